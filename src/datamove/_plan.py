"""Plans: what every operator call takes from its input, validated once, cached in one place.

Each call is ``build -> Plan -> one cache -> backend.take(plan)``:

1. :func:`hit` answers a repeated NumPy call at once: the compiled ``plan_hit`` of
   ``datamove._kernels`` where it was built, else its Python twin :func:`python_hit`. Both key
   the call the same way and return the outputs of the stored plan, or ``None``.
2. On a miss, :func:`plan_for` takes one *snapshot* of the parameters (lists and 1-D integer
   arrays become tuples, so a list another thread changes meanwhile cannot leave a plan under
   the wrong values), keys the call from the snapshot, and builds the plan from the snapshot
   with the operator's builder, which validates every value. A ``ValidationError`` that names
   a snapshot is re-raised naming the caller's own value.
3. The backend of the array's library applies the plan (:mod:`datamove._backends`).

While PyTorch's dynamo traces a call (``torch.compile``, strict ``torch.export``), which it
cannot do through the compiled key and hit or the cache's lock, :func:`plan_for` builds the
plan with the same builder and stores nothing (:data:`compiling`); the operators call the hit
only for NumPy arrays, so dynamo never meets it on a tensor (docs/backends.md).

**One key rule.** :func:`key` is ``plan_key`` in C where it was built, else
:func:`python_key`; a property test holds the two byte-equal on any input. The key holds the
operator's code, the shape, and each parameter's kind and values: only exact ints within int64,
lists and tuples of them, 1-D NumPy arrays of a native integer type, and ``None`` make a key
(lists, tuples and arrays of the same values give the same key: every operator reads them
alike). Anything else (bool, float, NumPy scalars, ``Unknown``, other sequences) has no key,
and the call is built afresh each time, so that a look-alike (``True``, ``1.0``) can never
reuse an accepted call's plan.

**One bounded cache.** :data:`PLANS` maps keys to validated plans (errors are never stored).
It holds at most :data:`MAX_PLANS` plans and :data:`MAX_BYTES` bytes by the plans' own
estimate (:attr:`Plan.cost`, plus what backends lower them to); the oldest go first. A plan
costing more than :data:`MAX_PLAN_BYTES` (a split into hundreds of thousands of outputs) is
never stored: building it again costs little next to making that many outputs.
"""

from __future__ import annotations

import itertools
import marshal
import operator
import os
import sys
import threading
from array import array
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import numpy as np

from datamove import _dialect_memo
from datamove import _memo as _inference_memo
from datamove._errors import ValidationError
from datamove._shape import INT64_MAX, INT64_MIN

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = [
    "CONCAT",
    "MAX_BYTES",
    "MAX_PARAMS",
    "MAX_PLANS",
    "MAX_PLAN_BYTES",
    "PLANS",
    "SLICE",
    "SPLIT",
    "STRIDED_SLICE",
    "VARIADIC_SPLIT",
    "CacheInfo",
    "Index",
    "Plan",
    "cache_clear",
    "cache_info",
    "chunks",
    "clear",
    "compiling",
    "hit",
    "key",
    "lowered",
    "plan_for",
    "plan_path",
    "python_hit",
    "python_key",
    "single",
]

Index = tuple[Any, ...]  # a NumPy basic index: ints, slices (any step), None, Ellipsis

# Each operator's code in the keys (a tag: what a plan does is in the plan itself).
STRIDED_SLICE: Final = 0
SPLIT: Final = 1
VARIADIC_SPLIT: Final = 2
SLICE: Final = 3
CONCAT: Final = 4


class Plan(NamedTuple):
    """The validated, backend-neutral description of what each output of a call takes.

    A tuple, so that the compiled ``plan_hit`` reads its first two fields directly.
    """

    indices: tuple[Index, ...]  # one NumPy basic index per output
    single: bool  # one output (StridedSlice); else a tuple of outputs
    axis: int  # >= 0: consecutive unit-step chunks along this axis (the splits); else -1
    cost: int  # the bytes the plan holds, by estimate (the cache's bound counts them)
    lowered: dict[str, tuple[Any, int]]  # backend name -> (its form of the plan, its cost)
    key: bytes | None = None  # the key it is cached under; None: not cached


# Bytes per index entry (a slice and its ints, or an int) and per index (a tuple), by estimate.
_ENTRY_BYTES: Final = 120
_INDEX_BYTES: Final = 64


def single(index: Index) -> Plan:
    """The plan of a call with one output, ``data[index]``."""
    return Plan((index,), True, -1, _INDEX_BYTES + _ENTRY_BYTES * len(index), {})


def chunks(axis: int, bounds: list[int]) -> Plan:
    """The plan of cuts ``bounds[k]:bounds[k + 1]`` along ``axis`` (Split, VariadicSplit)."""
    lead = (slice(None),) * axis
    indices = tuple((*lead, slice(a, z)) for a, z in itertools.pairwise(bounds))
    cost = len(indices) * (_INDEX_BYTES + _ENTRY_BYTES * (axis + 1))
    return Plan(indices, False, axis, cost, {})


# -- the key rule ------------------------------------------------------------------------------
_KEY_WORDS: Final = 256  # DM_KEY_WORDS in csrc/plans.c
MAX_PARAMS: Final = 8  # DM_MAX_PARAMS: the most parameters a key holds
_NATIVE_INTS: Final = frozenset("bhilqBHILQ")  # buffer formats of native integer arrays
_NDARRAY: Final = np.ndarray


_INT: Final = frozenset({int})


def python_key(ndarray: type, op: int, shape: Any, *params: Any) -> bytes | None:
    """The Python twin of the compiled ``plan_key``: the same bytes, or ``None`` alike.

    The compiled key refuses a call as soon as its words would pass ``_KEY_WORDS``; words only
    grow, so checking the total once at the end refuses the same calls.
    """
    del ndarray  # the compiled key takes it to recognise arrays; here it is NumPy's
    if len(params) > MAX_PARAMS:
        msg = "plan_key(ndarray, op, shape, *params)"
        raise TypeError(msg)
    if (
        type(shape) is not tuple
        or type(op) is not int
        or not INT64_MIN <= op <= INT64_MAX
        or len(shape) > _KEY_WORDS - 2 - len(params)
    ):
        return None
    if not _INT.issuperset(map(type, shape)):
        try:
            shape = tuple(map(operator.index, shape))
        except Exception:  # noqa: BLE001 - any failing __index__: no key (as plan_key)
            return None
    if shape and not (min(shape) >= INT64_MIN and max(shape) <= INT64_MAX):
        return None
    words = [op, len(shape), *shape]
    append = words.append
    for value in params:
        kind = type(value)
        if value is None:
            append(0)
        elif kind is int:
            if not INT64_MIN <= value <= INT64_MAX:
                return None
            append(1)
            append(value)
        elif kind is list or kind is tuple:
            if value:
                if len(value) > _KEY_WORDS or not _INT.issuperset(map(type, value)):
                    return None
                if not (min(value) >= INT64_MIN and max(value) <= INT64_MAX):
                    return None
            append(2 + (len(value) << 8))
            words += value
        elif kind is _NDARRAY:
            dtype = value.dtype
            if value.ndim != 1 or dtype.char not in _NATIVE_INTS or not dtype.isnative:
                return None
            if len(value) > _KEY_WORDS:
                return None
            items = value.tolist()
            if dtype.kind == "u" and items and max(items) > INT64_MAX:
                return None
            append(2 + (len(items) << 8))
            words += items
        else:
            return None
    if len(words) > _KEY_WORDS:
        return None
    return array("q", words).tobytes()


def python_hit(plans: dict[bytes, Plan], ndarray: type, op: int, data: Any, *params: Any) -> Any:
    """The Python twin of the compiled ``plan_hit``: a stored plan's outputs, or ``None``."""
    if type(data) is not ndarray:
        return None
    array: Any = data
    shape = array.shape
    k: Any
    try:  # the hot path of installs without the compiled part
        m = _dumps((op, shape, params), 2)
        k = _memo_get(m, _MISS)
        if k is _MISS:
            k = _memo(m, params)
    except Exception:  # noqa: BLE001 - unmarshallable (or a buffer that fails)
        k = python_key(_NDARRAY, op, shape, *params)
    if k.__class__ is _Arrays:  # the arrays the memo read must be arrays of the same kind here
        for i, dtype in k.checks:
            v = params[i]
            if type(v) is not _NDARRAY or v.dtype is not dtype or v.ndim != 1:
                k = python_key(_NDARRAY, op, shape, *params)
                break
        else:
            k = k.key
    plan = plans.get(k)  # None keys no plan
    if plan is None:
        return None
    # plan[0] and plan[1] are Plan.indices and Plan.single, read by position as plan_hit reads them
    indices = plan[0]
    if plan[1]:
        return array[indices[0]]
    if len(indices) == 2:  # the usual split, in half the time of the general form (0.17 us)
        return array[indices[0]], array[indices[1]]
    return tuple([array[index] for index in indices])


# The pure-Python hit's shortcut to python_key: its answers, memoised under the call's marshal
# bytes. ``marshal`` writes, in C, the exact type of every value (``True``, ``1`` and ``1.0``
# differ; an int subclass is unmarshallable) and lists and tuples item by item, so the bytes are
# a typed key of a call made of ints, ``None``s, lists and tuples. Anything else cannot be
# marshalled (python_key answers directly) or is a buffer, which marshal writes as its bytes
# alone. So an entry with buffers among its parameters is an ``_Arrays``: python_key's answer
# for the call whose buffers were 1-D arrays of the dtypes it lists, read from the marshalled
# bytes, and a hit whose parameters there are not such arrays asks python_key itself. Only
# python_key decides; the memo saves rebuilding its bytes. Calls past _MEMO_BYTES skip it,
# which bounds what it holds; the others are stored by _memo.keep, under its lock.
_MEMO_BYTES: Final = 2048


class _Arrays:
    """A memo entry of a call with buffers: its key where they are arrays of ``checks``."""

    __slots__ = ("checks", "key")

    def __init__(self, key: bytes | None, checks: tuple[tuple[int, np.dtype[Any]], ...]) -> None:
        self.key = key
        self.checks = checks  # (parameter position, its dtype), for each buffer


_MEMO: Final[dict[bytes, bytes | _Arrays | None]] = {}  # marshal bytes -> python_key's answer
_MEMO_MAX: Final = 4096  # answers held (cleared whole when full)
_MISS: Final = object()
_memo_get: Final = _MEMO.get
_dumps: Final = marshal.dumps


def _memo_key(op: int, shape: Any, params: tuple[Any, ...]) -> bytes | None:
    """`python_key`'s answer through the memo, as `python_hit` reads it (a call of arrays: asked).

    python_key takes about 4 us a call, the memo one ``marshal.dumps``: on the Python path, a
    call that `python_hit` does not answer (another library's arrays, Concat) is keyed here.
    """
    try:
        m = marshal.dumps((op, shape, params), 2)
        k = _MEMO.get(m, _MISS)
        if k is _MISS:
            k = _memo(m, params)
    except Exception:  # noqa: BLE001 - unmarshallable (or a buffer that fails)
        k = _MISS
    if k is _MISS or k.__class__ is _Arrays:
        return python_key(_NDARRAY, op, shape, *params)
    return k  # type: ignore[return-value]


def _memo(m: bytes, live: tuple[Any, ...]) -> bytes | _Arrays | None:
    """python_key's answer for the call marshalled as ``m``, kept unless ``m`` is too long.

    ``live`` are the parameters that were marshalled: the buffers among them say how to read
    the bytes marshal wrote for them (and whether python_key takes them at all).
    """
    op, shape, params = marshal.loads(m)  # noqa: S302 - bytes this module marshalled
    k: bytes | _Arrays | None
    if bytes in map(type, params):
        checks = []
        listed = list(params)
        for i, value in enumerate(params):
            if type(value) is bytes:
                v = live[i]
                if not _int_vector(v):  # python_key takes no other buffer
                    return python_key(_NDARRAY, op, shape, *live)
                checks.append((i, v.dtype))
                listed[i] = np.frombuffer(value, v.dtype).tolist()
        k = _Arrays(python_key(_NDARRAY, op, shape, *listed), tuple(checks))
    else:
        k = python_key(_NDARRAY, op, shape, *params)
    if len(m) <= _MEMO_BYTES:
        _inference_memo.keep(_MEMO, m, k, _MEMO_MAX)
    return k


def _int_vector(value: Any) -> bool:
    return (
        type(value) is _NDARRAY
        and value.ndim == 1
        and value.dtype.char in _NATIVE_INTS
        and value.dtype.isnative
    )


_compiled_key: Callable[..., bytes | None] | None
_compiled_hit: Callable[..., Any] | None
try:  # the optional compiled part (setup.py)
    from datamove import _kernels

    _compiled_key, _compiled_hit = _kernels.plan_key, _kernels.plan_hit
except (ImportError, AttributeError):  # pragma: no cover - not built
    _compiled_key = _compiled_hit = None

key: Callable[..., bytes | None] = _compiled_key or python_key
hit: Callable[..., Any] = _compiled_hit or python_hit


@contextmanager
def plan_path(path: str) -> Iterator[None]:
    """Use the ``"compiled"`` or the ``"python"`` key and hit for a while (tests, benchmarks).

    ``ValueError`` for ``"compiled"`` where the compiled part was not built. The cache is
    cleared on the way in and out: both paths key alike, but a test wants to see misses.
    """
    global key, hit
    if path == "compiled":
        if _compiled_key is None or _compiled_hit is None:
            msg = "the compiled part (datamove._kernels) was not built"
            raise ValueError(msg)
        new = (_compiled_key, _compiled_hit)
    elif path == "python":
        new = (python_key, python_hit)
    else:
        msg = f"plan_path takes 'compiled' or 'python', not {path!r}"
        raise ValueError(msg)
    old = (key, hit)
    clear()
    key, hit = new
    try:
        yield
    finally:
        key, hit = old
        clear()


# -- the cache ---------------------------------------------------------------------------------
MAX_PLANS: Final = 4096
MAX_BYTES: Final = 64 << 20
MAX_PLAN_BYTES: Final = 1 << 20
PLANS: Final[dict[bytes, Plan]] = {}  # key -> validated plan, oldest first
_LOCK = threading.Lock()  # every change to PLANS and its counts (a new one in a forked child)
_held = 0  # bytes held by PLANS, by the plans' estimates
_stored = 0  # plans stored since the cache was last cleared


def _size(k: bytes, plan: Plan) -> int:
    return len(k) + plan.cost + sum(c for _, c in plan.lowered.values())


def _store(k: bytes, plan: Plan) -> Plan:
    """Keep ``plan`` under ``k`` (or the plan another thread stored first); evict the oldest."""
    global _held, _stored  # noqa: PLW0603
    size = _size(k, plan)
    if size > MAX_PLAN_BYTES:
        return plan
    with _LOCK:
        there = PLANS.get(k)
        if there is not None:
            return there
        _drop_oldest(1, size)
        PLANS[k] = plan
        _held += size
        _stored += 1
    return plan


def _drop_oldest(plans: int, size: int, spare: bytes | None = None) -> None:
    """Under ``_LOCK``: drop the oldest plans but ``spare`` till ``plans`` and ``size`` more fit."""
    global _held  # noqa: PLW0603
    while len(PLANS) + plans > MAX_PLANS or _held + size > MAX_BYTES:
        keys = iter(PLANS)
        old_key = next(keys, None)
        if old_key is not None and old_key == spare:
            old_key = next(keys, None)
        if old_key is None:
            return
        _held -= _size(old_key, PLANS.pop(old_key))


def _after_fork_in_child() -> None:
    """A fresh lock in a forked child (as `datamove._memo`'s), and the bytes held counted again.

    A thread of the parent that held the lock as the process forked does not exist in the
    child, which would wait forever on its first store; a store cut short by the fork may have
    changed PLANS without its count.
    """
    global _LOCK, _held  # noqa: PLW0603
    _LOCK = threading.Lock()
    _held = sum(_size(k, plan) for k, plan in PLANS.items())


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def clear() -> None:
    """Empty the cache (and the memo of the Python key's answers)."""
    global _held, _stored  # noqa: PLW0603
    with _LOCK:
        PLANS.clear()
        _MEMO.clear()
        _held = _stored = 0


class CacheInfo(NamedTuple):
    """What :func:`cache_info` reports, as ``functools.lru_cache``'s ``cache_info``."""

    plans: int  # plans held
    bytes: int  # what they hold, by their own estimates (backends' forms of them included)
    stored: int  # plans stored since the cache was last cleared: calls that missed and were kept
    max_plans: int  # plans held at most (the oldest go first)
    max_bytes: int  # bytes held at most


def cache_info() -> CacheInfo:
    """The state of the plan cache, which every operator call on arrays goes through.

    A repeated call is answered from its stored plan; ``stored`` counts the calls that were
    not (each built, validated and stored a plan), so a count that keeps growing under a
    steady workload says its calls are too many or too varied to stay cached. Calls whose
    parameters have no key (floats, bools, NumPy scalars) and plans over 1 MiB are never
    stored. Inference results and ``Slicing`` objects are memoised apart (see
    :func:`cache_clear`).

    Examples
    --------
    >>> import numpy as np, datamove as dm
    >>> dm.cache_clear()
    >>> x = np.arange(12).reshape(3, 4)
    >>> for _ in range(3):
    ...     parts = dm.split(x, 1, 2)
    >>> dm.cache_info().plans, dm.cache_info().stored
    (1, 1)
    """
    with _LOCK:
        return CacheInfo(len(PLANS), _held, _stored, MAX_PLANS, MAX_BYTES)


def cache_clear() -> None:
    """Empty the caches datamove keeps for the process: plans, inference results, slicings.

    What they hold is bounded (the plan cache at :data:`MAX_BYTES`, the others alike; see
    docs/architecture.md); clearing frees it at once, and the next calls build afresh. A
    model's and a DirectML desc's own caches go with them; the IR reader's dims and shapes (by
    their text), ONNX's operator schemas, DirectML's feature-level texts and table rows, and
    the backend found for each array type stay (each bounded, or one per type or table).
    """
    clear()
    _inference_memo.clear()
    _dialect_memo.clear()


def lowered(plan: Plan, name: str, lower: Callable[[Plan], Any], cost: int) -> Any:
    """A backend's own form of ``plan`` (a list of ``narrow`` calls, a jitted function).

    Made once per plan and kept with it while the plan is cached (``cost`` bytes, counted in the
    cache's bound: the oldest other plans go to make room); a plan that is not cached lowers
    afresh each call.
    """
    global _held  # noqa: PLW0603
    got = plan.lowered.get(name)
    if got is not None:
        return got[0]
    form = lower(plan)
    if plan.key is not None:
        with _LOCK:
            if PLANS.get(plan.key) is plan and name not in plan.lowered:
                _drop_oldest(0, cost, spare=plan.key)
                if _held + cost <= MAX_BYTES:
                    plan.lowered[name] = (form, cost)
                    _held += cost
    return form


def _compiling_unknown() -> bool:
    """Whether dynamo traces the call (``torch.compile``, strict ``torch.export``).

    Until torch is imported nothing can trace, and this asks again; from then on
    :data:`compiling` is ``torch.compiler.is_dynamo_compiling``, which returns ``False`` (35 ns)
    and which dynamo answers ``True``, without a guard, while it traces. Dynamo cannot trace the
    compiled key, the cache's lock or its stores; a non-strict export runs the code itself, so
    it keys and caches as an eager call does.
    """
    global compiling  # noqa: PLW0603
    torch = sys.modules.get("torch")  # never imported here
    if torch is None:
        return False
    compiling = torch.compiler.is_dynamo_compiling
    return compiling()


compiling: Callable[[], bool] = _compiling_unknown


def plan_for(op: int, shape: Any, params: tuple[Any, ...], build: Callable[..., Plan]) -> Plan:
    """The plan of an operator call: from the cache, or built (and stored when it has a key).

    ``build(shape, *params)`` validates the parameters and raises ``ValidationError`` naming
    the value it was given; where that is the snapshot of a caller's list or array, the caller's
    own values are checked again, so the error names them and what they are (a list, an array),
    as the shape inference of the same values does.
    """
    if compiling():  # dynamo traces: the plan, built from the static shape, uncached
        return build(shape, *params)
    k = key(_NDARRAY, op, shape, *params) if key is not python_key else _memo_key(op, shape, params)
    if k is not None:
        plan = PLANS.get(k)
        if plan is not None:  # stored under these values: valid for them, however they change
            return plan
    # A miss: key and build from one snapshot, so that both see the same values.
    snap = tuple(map(_snapshot, params))
    k = key(_NDARRAY, op, shape, *snap)
    try:
        plan = build(shape, *snap)
    except ValidationError:
        # The rule may name what the snapshot is (a tuple), not what the caller passed (a list,
        # an array): check the caller's own values again, for the error they would get uncached.
        # They pass only if another thread changed them since: the snapshot's error stands.
        try:
            build(shape, *params)
        except ValidationError as own:
            raise own from None
        raise
    if k is None:
        return plan
    return _store(k, plan._replace(key=k))


def _snapshot(value: Any) -> Any:
    """The values the key reads, as a tuple: a list or a 1-D integer array; else ``value``."""
    kind = type(value)
    if kind is list:
        return tuple(value)
    if _int_vector(value):
        items = value.tolist()
        if value.dtype.kind == "u" and items and max(items) > INT64_MAX:
            return value  # beyond int64: no key, and the checks name the array
        return tuple(items)
    return value
