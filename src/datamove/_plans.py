"""Validated plans of NumPy calls, answered in C on the next call with the same values.

``split``, ``variadic_split`` and ``strided_slice`` first ask :data:`hit` (the compiled
``plan_hit`` of ``datamove._kernels``; ``None`` where the optional compiled part was not built)
whether an earlier call on an array of the same shape, with parameters of the same kinds and
values, stored a plan. On a hit it returns the outputs (``data[index]``, or one view per chunk)
without running any Python code. On a miss the operator validates its parameters in Python as
ever and, once they are valid, calls :func:`remember`.

The key is built in C from the operator, the shape, and each parameter's kind and values; only
exact ints (in int64), lists and tuples of them, 1-D NumPy integer arrays and ``None`` make a
key (see ``plan_key`` in ``_kernels.c``). Anything else (bool, float, NumPy scalars, other
sequences) has no key and always takes the Python path, which checks it and names it in any
error. Errors are never stored. The cache holds at most :data:`MAX` plans, oldest dropped first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Final

from datamove import _compat

__all__ = ["MAX", "PLANS", "SLICE", "SPLIT", "VARIADIC", "hit", "remember"]

SLICE: Final = 0  # a single output: data[index]
SPLIT: Final = 1  # chunks: one data[i] per i in index
VARIADIC: Final = 2

hit: Callable[..., Any] | None
_key: Callable[..., bytes | None] | None
try:  # the optional compiled part (setup.py)
    from datamove import _kernels

    hit, _key = _kernels.plan_hit, _kernels.plan_key
except (ImportError, AttributeError):  # pragma: no cover - not built, or built before these
    hit = _key = None

PLANS: Final[dict[bytes, Any]] = {}  # plan_key(...) -> index; validated plans only
MAX: Final = 4096
_LOCK: Final = threading.Lock()
_NDARRAY: Final = _compat.ndarray


def remember(op: int, shape: tuple[int, ...], index: Any, *params: Any) -> None:
    """Store ``index``, the validated plan of ``op`` on ``shape`` with ``params``, for :data:`hit`.

    A no-op where the compiled part is missing or the parameters make no key.
    """
    if _key is None:
        return
    key = _key(_NDARRAY, op, shape, *params)
    if key is None:
        return
    with _LOCK:
        if len(PLANS) >= MAX and key not in PLANS:
            del PLANS[next(iter(PLANS))]
        PLANS[key] = index
