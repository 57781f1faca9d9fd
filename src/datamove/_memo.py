"""A bounded, thread-safe memo for the pure ``infer_*`` functions.

Shape inference is pure: the same shape and parameters always give the same (immutable) result.
The memo key is *type-exact* (``True``, ``1.0`` and ``1`` hash alike in Python, so every value
is tagged with its type): a call that would be rejected never reuses an accepted call's result.
Arguments that cannot be keyed cheaply (arrays, odd types) bypass the memo.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final, TypeVar

from datamove._shape import Dimension, PartialShape, Unknown

__all__ = ["memoize"]

F = TypeVar("F", bound=Callable[..., Any])

_MAX_ENTRIES: Final = 4096
_ATOMS: Final = frozenset({int, str, type(None), PartialShape, Unknown, Dimension})


def _freeze(value: Any) -> Any:
    # Only these types may appear: among them no two unequal values compare equal (bool and
    # float are left out on purpose), so the value itself is a type-exact key.
    t = type(value)
    if t in _ATOMS:
        return value
    if t is list or t is tuple:
        items = tuple(value)
        if set(map(type, items)) <= _ATOMS:
            return items
    raise TypeError  # not memoizable: the caller computes afresh


def memoize(fn: F) -> F:
    """Memoize a pure function of shapes and parameters (bounded; cleared whole when full)."""
    cache: dict[Any, Any] = {}

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            key = (*map(_freeze, args), *[(k, _freeze(v)) for k, v in kwargs.items()])
            return cache[key]
        except TypeError:
            return fn(*args, **kwargs)
        except KeyError:
            pass
        result = fn(*args, **kwargs)
        if len(cache) >= _MAX_ENTRIES:
            cache.clear()
        cache[key] = result
        return result

    wrapper.cache = cache  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
