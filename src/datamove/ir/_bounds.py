"""Interval bounds through shape subgraphs, as OpenVINO's lower and upper bound evaluation.

Where an input dim is an interval or dynamic (a dynamic batch), ShapeOf's value is not known,
but each element lies in ``[dim.min, dim.max]``. `bound_layer` carries such per-element bounds
through the small integer layers converters write (`datamove.ir._fold.FOLDERS`), so that a
slicing parameter or split length that depends only on static dims comes out exactly known (its
lower and upper bounds meet), and one that depends on a dynamic dim comes out as an interval that
the layer it feeds reads (`datamove.ir._ops`: Slice and StridedSlice take the hull over the
corners of their parameters' intervals, VariadicSplit bounds each chunk).

Bounds are held as OpenVINO holds them: two arrays of the tensor's own element type, ``lower``
and ``upper`` (`Info`), where an upper bound at the type's maximum (a lower one at a signed
type's minimum) means unbounded on that side. They are sound: every value the tensor can take at
run time lies within them, element by element. An element whose arithmetic could pass its type's
range (which OpenVINO's specification leaves undefined; onnxruntime wraps) gets the whole range
of its type, an unbounded dim taken to reach `HUGE` (``x.shape[0] * INT64_MAX`` wraps at 2). How
far each value reaches so (`Info.reach`) is carried through the layers that have a rule for it,
as the bounds are: an unbounded side of ``INT32_MAX * x.shape[0]`` reaches 2**62, not `HUGE`, so
``INT32_MAX`` times it is the whole range (it wraps at 3); a value whose reach is not carried
(where a layer's rule has none) is read as reaching `HUGE`. An input with no bounds, or a layer
type without a rule here, gives no bounds at all (``None``).

The rules (each sound; where OpenVINO is looser, datamove is at least as tight):

- ShapeOf: ``[dim.min, dim.max]`` per dim (an unbounded dim: up to the type's maximum).
- Gather, Squeeze, Unsqueeze, Reshape, Transpose, Broadcast, Tile (data bounds, other inputs
  exactly known): the layer applied to the lower and to the upper bounds (OpenVINO's default
  evaluator).
- Add, Subtract, Multiply, Divide, Minimum, Maximum, Floor, Convert: interval arithmetic (the
  extremes over the corners of the inputs' intervals; a divisor interval holding 0 is unknown;
  an exactly known extreme is that number, not an unbounded side, so ``INT64_MIN - [0, 30]``
  passes the range and is the whole range, never the exact ``INT64_MIN``).
- Greater, Less, Equal: true or false where every pair of values agrees, else either.
- Select: the chosen input's bounds where the condition is known, else the hull of both.
- Mod (truncated, as C: the dividend's sign) and FloorMod (floored, as Python: the divisor's
  sign), on integers: over one period of a divisor ``m`` the remainder grows with the value, so
  an interval within it gives the remainders of its ends, and one that reaches a multiple of
  ``m`` the whole period (``0..|m|-1``, with its sign). A divisor interval is walked from its
  largest ``|m|`` down, a block of divisors of one quotient at a time (exact); past 64 blocks
  (small divisors of a large value), each remainder is below its divisor and the value. A
  negative value of FloorMod takes each divisor of an interval of fewer than 64 in turn, else
  the whole period of the largest. A divisor interval holding 0 is unknown. (OpenVINO
  takes FloorMod's remainders of the two bounds alone, and Mod's as if the dividend were never
  negative: docs/semantics.md, IR-10 and IR-11.)
- Abs: the absolute values of the interval, from 0 where it holds 0; a signed lower bound at
  the type's minimum (whose absolute value overflows) gives the whole range. (OpenVINO takes
  the absolute values of the two bounds alone: IR-12.)
- ReduceProd (axes exactly known): each reduced row's product of intervals, as Multiply.
- Range: only on exactly known inputs (`datamove.ir._fold`).

And output *shapes*, for the layers after them (a saved IR writes the interval it has as
``-1``): a data Reshape's (`reshaped`), from its input's dims and its target's value or bounds;
a data Unsqueeze's, Squeeze's, Transpose's and Gather's (`moved`), its input's dims moved,
inserted or dropped; and an element-wise layer's or a MatMul's (`elementwise`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from datamove._shape import INT64_MAX, Dimension, PartialShape
from datamove.ir._fold import (
    FOLDERS,
    attribute_type,
    axes_of,
    batch_dims,
    broadcast_inputs,
    fold_layer,
    opset_number,
)
from datamove.ir._graph import Layer
from datamove.ir._ops import SMALL, Info, bounds_of, transpose_order, with_bounds
from datamove.ir._types import ELEMENT_TYPES, ElementType

__all__ = [
    "BOUNDERS",
    "ELEMENTWISE",
    "bound_layer",
    "elementwise",
    "meet",
    "moved",
    "reshaped",
    "wide_bounds",
]

Array = np.ndarray[Any, Any]
Pair = tuple[Array, Array]  # (lower, upper) as object arrays of Python ints or floats
# (lower, upper, element type), and the reach where tracked (`datamove.ir._ops.Info.reach`)
Bounded = tuple[Array, Array, ElementType] | tuple[Array, Array, ElementType, Pair | None]
Bounder = Callable[[Layer, Sequence[Info]], Bounded | None]

_INF: Final = math.inf
HUGE: Final = 2**31
"""How far an unbounded side is taken to reach where an overflow is looked for (half its type's
maximum, for a narrower type than i64): a sum, difference or product that passes its type's
range with each unbounded end at this magnitude gets the whole range (``x.shape[0] * INT64_MAX``
wraps at 2; ``x.shape[0] * 2``, ``x.shape[0] * x.shape[1]`` and an i32 ``x.shape[0] + 1`` are
taken not to)."""
# Layers whose input 0 is data and whose other inputs must be exactly known: each bound is the
# layer applied to that bound (they only move, repeat or drop elements).
_STRUCTURAL: Final = (
    "Gather",
    "Squeeze",
    "Unsqueeze",
    "Reshape",
    "Transpose",
    "Broadcast",
    "Tile",
)


def _limits(etype: ElementType) -> tuple[int | float, int | float]:
    if etype.dtype == bool:
        return 0, 1
    if etype.dtype.kind == "V":  # ml_dtypes' (i4, u4, bf16, f8...), which NumPy cannot bound
        import ml_dtypes  # noqa: PLC0415 - installed: etype.dtype needs it

        cast = float if etype.name[0] in "bf" else int
        limits = ml_dtypes.finfo if cast is float else ml_dtypes.iinfo
        found: Any = limits(etype.dtype)
        return cast(found.min), cast(found.max)
    if etype.dtype.kind == "f":
        info = np.finfo(etype.dtype)
        return float(info.min), float(info.max)
    iinfo = np.iinfo(etype.dtype)
    return int(iinfo.min), int(iinfo.max)


def wide_bounds(info: Info) -> Pair | None:
    """An input's bounds as Python numbers, the type's extremes read as infinite.

    An element known exactly (its bounds equal) keeps an extreme as the number it is: a
    constant ``INT64_MIN`` minus ``0..30`` passes the type's range.
    """
    got = bounds_of(info)
    if got is None or info.etype is None or got[0].size > SMALL:
        return None
    if info.value is not None and info.value.dtype.kind in "iu":  # known: its Python ints
        return info.value.astype(object), info.value.astype(object)  # two: callers write them
    low, high = _limits(info.etype)
    signed = info.etype.dtype.kind in "if"
    exact = (got[0] == got[1]).reshape(-1).tolist()

    def wide(array: Array, edge: float, side: float) -> Array:
        flat = [
            side if (v == edge and (side > 0 or signed) and not known) else v
            for v, known in zip(
                (int(x) if array.dtype.kind in "iub" else float(x) for x in array.reshape(-1)),
                exact,
                strict=True,
            )
        ]
        return np.array(flat, dtype=object).reshape(array.shape)

    return wide(got[0], low, -_INF), wide(got[1], high, _INF)


def _narrow(lo: Array, hi: Array, etype: ElementType, *, wraps: bool = False) -> Pair:
    """Python bounds back in ``etype``, infinite ones at the type's extremes.

    An element that could pass the type's range (undefined: a C++ overflow, or a wrapping
    Convert) gets the whole range. With ``wraps`` (a sum or product), so does one whose
    infinite end meets the type's other extreme: ``INT64_MAX + [0, ?]`` passes the range at
    every size but 0 (of a Minimum or Maximum, the extreme is the value).
    """
    low, high = _limits(etype)
    # a 0-d object array's arithmetic gives a bare number: an array again
    lo, hi = np.asarray(lo, dtype=object), np.asarray(hi, dtype=object)
    los, his = [], []
    whole = etype.dtype.kind == "f"
    for x, y in zip(lo.reshape(-1), hi.reshape(-1), strict=True):
        a = low if x == -_INF else (x if whole else math.floor(x))
        b = high if y == _INF else (y if whole else math.ceil(y))
        if not low <= a <= b <= high or (
            wraps and ((x == -_INF and b == low) or (y == _INF and a == high))
        ):
            a, b = low, high
        los.append(a)
        his.append(b)
    lower = np.array(los, dtype=etype.dtype).reshape(lo.shape)
    upper = np.array(his, dtype=etype.dtype).reshape(hi.shape)
    if etype.dtype.kind == "f":  # rounded to the float type: widened by one step outward
        exact_lo = np.array(los, dtype=object).reshape(lo.shape)
        exact_hi = np.array(his, dtype=object).reshape(hi.shape)
        with np.errstate(over="ignore"):  # a step past an extreme, never taken: not rounded
            down, up = np.nextafter(lower, -np.inf), np.nextafter(upper, np.inf)
        lower = np.where(lower.astype(object) > exact_lo, down, lower)
        upper = np.where(upper.astype(object) < exact_hi, up, upper)
    return lower.astype(etype.dtype), upper.astype(etype.dtype)


def _reaching(array: Array, etype: ElementType) -> Array:
    """An object array of bounds with each infinite element at `HUGE`, of its sign."""
    huge = min(HUGE, (int(_limits(etype)[1]) + 1) // 2)
    flat = [int(math.copysign(huge, v)) if v in (_INF, -_INF) else v for v in array.reshape(-1)]
    return np.array(flat, dtype=object).reshape(array.shape)


def _near(info: Info, etype: ElementType) -> Pair | None:
    """How far an input's values reach, as Python numbers.

    Its tracked reach (`Info.reach`), else its bounds with each unbounded side at `HUGE`.
    """
    if info.value is None and info.reach is not None:
        return info.reach
    got = wide_bounds(info)
    if got is None:
        return None
    lo, hi = _reaching(got[0], etype), _reaching(got[1], etype)
    # an unbounded side past the other, finite one (..INT64_MIN + 1 read from -HUGE): it reaches
    # the type's extreme
    low, high = _limits(etype)
    turned = np.asarray(lo > hi, dtype=bool)
    lo[turned & np.asarray(got[0] == -_INF, dtype=bool)] = low
    hi[turned & np.asarray(got[1] == _INF, dtype=bool)] = high
    return lo, hi


def _kept_reach(reach: Pair | None, etype: ElementType) -> Pair | None:
    """A result's reach as stored: an element that passes the type (it wraps) reaches it all."""
    if reach is None or etype.dtype.kind not in "iu":
        return None
    low, high = _limits(etype)
    lo, hi = np.array(reach[0], dtype=object), np.array(reach[1], dtype=object)
    passes = np.asarray((lo < low) | (hi > high), dtype=bool)
    lo[passes], hi[passes] = low, high
    return lo, hi


def _wrapping(got: Pair, reach: Pair | None, etype: ElementType) -> Pair:
    """``got`` with each integer element whose ``reach`` passes the type's range made too wide.

    ``reach`` is the same arithmetic with each unbounded end at `HUGE` (`_reaching`); such an
    element's lower bound is set below the type, so that `_narrow` gives it the whole range.
    """
    if etype.dtype.kind not in "iu" or reach is None:
        return got
    low, high = _limits(etype)
    lo = np.array(got[0], dtype=object)
    passes = (reach[0] < low) | (reach[1] > high)
    lo[np.asarray(passes, dtype=bool)] = low - 1
    return lo, got[1]


def _same_type(ins: Sequence[Info], count: int) -> ElementType | None:
    """The element type of all ``count`` inputs, where one and of `_NUMBERS`."""
    etype = ins[0].etype if len(ins) == count else None
    if etype is None or any(i.etype != etype for i in ins) or etype.name not in _NUMBERS:
        return None
    return etype


_NUMBERS: Final = frozenset({"i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64"})


def _pairs(layer: Layer, ins: Sequence[Info]) -> tuple[Pair, Pair] | None:
    """Both inputs' bounds as Python numbers, broadcast by the layer's ``auto_broadcast``."""
    a = wide_bounds(ins[0])
    b = None if a is None else wide_bounds(ins[1])
    if a is None or b is None:
        return None
    both = broadcast_inputs(layer, a[0], a[1], b[0], b[1])
    if both is None:
        return None
    return (both[0], both[1]), (both[2], both[3])


def _pair(lo: list[Any], hi: list[Any], shape: tuple[int, ...]) -> Pair:
    """Per-element lower and upper bounds as two arrays of ``shape`` (Python ints)."""
    return np.array(lo, dtype=object).reshape(shape), np.array(hi, dtype=object).reshape(shape)


Rule = Callable[[Any, Any, Any, Any], tuple[Any, Any] | None]  # (a0, a1, b0, b1) -> (lo, hi)


def _each(rule: Rule, a: Pair, b: Pair) -> Pair | None:
    """``rule`` element by element over two intervals of one shape; ``None`` where it gives one."""
    got = [rule(*four) for four in zip(*(x.reshape(-1) for x in (*a, *b)), strict=True)]
    pairs = [g for g in got if g is not None]
    if len(pairs) < len(got):
        return None
    return _pair([p[0] for p in pairs], [p[1] for p in pairs], a[0].shape)


def _binary(rule: Rule, *, wraps: bool = False) -> Bounder:
    """A binary layer bounded element by element: ``rule(a0, a1, b0, b1)``."""

    def bound(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
        etype = _same_type(ins, 2)
        pairs = _pairs(layer, ins) if etype is not None else None
        got = None if pairs is None else _each(rule, *pairs)
        if etype is None or got is None or pairs is None:
            return None
        near_a, near_b = _near(ins[0], etype), _near(ins[1], etype)
        both = None
        if near_a is not None and near_b is not None:
            both = broadcast_inputs(layer, *near_a, *near_b)
        reach = None if both is None else _each(rule, (both[0], both[1]), (both[2], both[3]))
        if wraps:  # where the arithmetic may pass the type's range: the whole range
            got = _wrapping(got, reach, etype)
        return (*_narrow(*got, etype, wraps=wraps), etype, _kept_reach(reach, etype))

    return bound


def _corners(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Any, Any], tuple[Any, Any]]:
    """The extremes of ``op`` over the corners of two intervals.

    Exact for an op monotone in each argument on the intervals (a product, a quotient whose
    divisor keeps its sign, a minimum, a maximum).
    """

    def extremes(a0: Any, a1: Any, b0: Any, b1: Any) -> tuple[Any, Any]:
        values = [op(x, y) for x in (a0, a1) for y in (b0, b1)]
        return min(values), max(values)

    return extremes


def _times(x: Any, y: Any) -> Any:
    return 0 if x == 0 or y == 0 else x * y  # a zero times an unbounded value is zero


def _quotient(kind: str) -> Callable[[Any, Any], Any]:
    """One quotient: ``floor`` or ``trunc`` integer division, or ``true`` (floats)."""

    def divide(x: Any, y: Any) -> Any:
        if x in (_INF, -_INF):
            return x if y > 0 else -x
        if kind == "true":
            return x / y
        q = abs(x) // abs(y)
        if (x < 0) != (y < 0):
            return -q if kind == "trunc" or abs(x) % abs(y) == 0 else -q - 1
        return q

    return divide


def _divide(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
    etype = _same_type(ins, 2)
    if etype is None:
        return None
    if etype.dtype.kind == "f":
        kind = "true"
    else:
        python = layer.data.get("m_pythondiv", "true")
        if python not in ("true", "false"):
            return None
        kind = "floor" if python == "true" else "trunc"
    quotient = _corners(_quotient(kind))

    def rule(a0: Any, a1: Any, b0: Any, b1: Any) -> tuple[Any, Any] | None:
        if b0 <= 0 <= b1 or _INF in (b0, b1) or -_INF in (b0, b1):
            return None  # a divisor that may be 0 (undefined), or unbounded
        return quotient(a0, a1, b0, b1)

    return _binary(rule)(layer, ins)


def _unary(rule: Callable[[Any, Any, ElementType], tuple[Any, Any]]) -> Bounder:
    """A one-input layer bounded element by element: ``rule(a0, a1, etype)``."""

    def bound(_layer: Layer, ins: Sequence[Info]) -> Bounded | None:
        etype = _same_type(ins, 1)
        got = wide_bounds(ins[0]) if etype is not None else None
        if etype is None or got is None:
            return None

        def each(pair: Pair) -> Pair:  # the rule element by element, on the bounds or the reach
            flat = zip(pair[0].reshape(-1), pair[1].reshape(-1), strict=True)
            pairs = [rule(a0, a1, etype) for a0, a1 in flat]
            return _pair([p[0] for p in pairs], [p[1] for p in pairs], got[0].shape)

        near = _near(ins[0], etype)
        reach = None if near is None else each(near)
        return (*_narrow(*each(got), etype), etype, _kept_reach(reach, etype))

    return bound


def _floor(a0: Any, a1: Any, _etype: ElementType) -> tuple[Any, Any]:
    lo, hi = (v if v in (_INF, -_INF) else math.floor(v) for v in (a0, a1))
    return lo, hi


# -- Mod, FloorMod ------------------------------------------------------------------------------
# The divisors are walked from the largest down, a block of one quotient at a time (exact); past
# this many blocks (small divisors of a large value), each remainder is below its divisor.
_BLOCKS: Final = 64


def _period(a0: Any, a1: Any, m: int) -> tuple[Any, Any]:
    """The least and greatest ``x mod m`` (floored, ``m > 0``) over ``x`` in ``[a0, a1]``.

    Within one period (``a0 // m == a1 // m``) the remainder grows with ``x``; an interval that
    reaches the next multiple of ``m`` holds both that multiple (0) and the value before (m-1).
    """
    if _INF in (a0, a1) or -_INF in (a0, a1) or a0 // m != a1 // m:
        return 0, m - 1
    return a0 % m, a1 % m


def _hull(parts: Sequence[tuple[Any, Any]]) -> tuple[Any, Any]:
    return min(p[0] for p in parts), max(p[1] for p in parts)


def _remainders(p0: Any, p1: Any, m1: Any, m2: Any) -> tuple[Any, Any]:
    """``x mod m`` for ``0 <= p0 <= x <= p1`` and ``0 < m1 <= m <= m2`` (either kind of mod).

    The divisors from ``m2`` down fall in blocks over which ``p0 // m`` and ``p1 // m`` stay
    ``q0`` and ``q1``: where they are equal, ``x - q*m`` is every remainder (extreme at the
    corners); where not, every ``x`` interval reaches a multiple, so ``0..m-1`` for each ``m``.
    """
    if p1 == _INF:
        return 0, m2 - 1  # every period of every divisor
    parts: list[tuple[Any, Any]] = []
    m = m2
    for _ in range(_BLOCKS):
        if m < m1:
            return _hull(parts)
        q0, q1 = (0, 0) if m == _INF else (p0 // m, p1 // m)
        start = max(m1, p0 // (q0 + 1) + 1, p1 // (q1 + 1) + 1)  # the block's least divisor
        if q0 == q1:
            parts.append((p0 - q0 * m if q0 else p0, p1 - q1 * start))
        else:
            parts.append((0, m - 1))
        m = start - 1
    if m >= m1:  # the smaller divisors left: each remainder below its divisor and the value
        parts.append((0, min(p1, m - 1)))
    return _hull(parts)


def _divisor(b0: Any, b1: Any) -> tuple[Any, Any] | None:
    """The interval of ``|y|`` for ``y`` in ``[b0, b1]``; ``None`` where it may be 0."""
    if b0 <= 0 <= b1:
        return None  # a zero divisor is undefined (as for Divide)
    return (b0, b1) if b0 > 0 else (-b1, -b0)


def _mod(a0: Any, a1: Any, b0: Any, b1: Any) -> tuple[Any, Any] | None:
    """Mod (truncated, as C's ``%``): the sign of the dividend, ``|r| < |y|`` and ``|r| <= |x|``."""
    m = _divisor(b0, b1)
    if m is None:
        return None
    parts = []
    if a1 >= 0:  # x >= 0: x mod |y|
        parts.append(_remainders(max(a0, 0), a1, *m))
    if a0 <= 0:  # x <= 0: -((-x) mod |y|)
        lo, hi = _remainders(max(-a1, 0), -a0, *m)
        parts.append((-hi, -lo))
    return _hull(parts)


def _floor_mod(a0: Any, a1: Any, b0: Any, b1: Any) -> tuple[Any, Any] | None:
    """FloorMod (floored, as Python's ``%``): the sign of the divisor, ``|r| < |y|``."""
    if _divisor(b0, b1) is None:
        return None
    if b1 < 0:  # x mod y = -((-x) mod (-y))
        lo, hi = _floor_mod_positive(-a1, -a0, -b1, -b0)
        return -hi, -lo
    return _floor_mod_positive(a0, a1, b0, b1)


def _floor_mod_positive(a0: Any, a1: Any, m1: Any, m2: Any) -> tuple[Any, Any]:
    if a0 >= 0:
        return _remainders(a0, a1, m1, m2)
    if m2 - m1 < _BLOCKS:  # a negative value: each divisor's period in turn
        return _hull([_period(a0, a1, m) for m in range(m1, m2 + 1)])
    return 0, m2 - 1


def _integers(rule: Rule) -> Bounder:
    """An integer binary layer bounded element by element: ``rule(a0, a1, b0, b1)``."""
    binary = _binary(rule)

    def bound(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
        etype = _same_type(ins, 2)
        if etype is None or etype.dtype.kind not in "iu":
            return None  # OpenVINO's Mod is for integers; a float FloorMod is not read
        return binary(layer, ins)

    return bound


# -- Abs, ReduceProd ----------------------------------------------------------------------------
def _abs(a0: Any, a1: Any, etype: ElementType) -> tuple[Any, Any]:
    if a0 == -_INF and etype.dtype.kind == "i":
        return -_INF, _INF  # may be the minimum itself, whose absolute value overflows
    if a0 >= 0:
        return a0, a1
    if a1 <= 0:
        return -a1, -a0
    return 0, max(-a0, a1)


def _reduce_prod(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
    """The product of each reduced row's intervals (interval multiplication, pair by pair)."""
    keep = layer.data.get("keep_dims", "false")
    etype = ins[0].etype if len(ins) == 2 else None
    if etype is None or etype.dtype.kind not in "iu" or keep not in ("true", "false"):
        return None
    got, value, reaching = wide_bounds(ins[0]), ins[1].value, _near(ins[0], etype)
    if got is None or value is None or value.ndim > 1 or value.dtype.kind not in "iu":
        return None
    axes = axes_of(value, got[0].ndim)
    if not axes or reaching is None:  # empty axes: not read (as the fold)
        return None
    times = _corners(_times)
    rest = [k for k in range(got[0].ndim) if k not in axes]
    rows = [np.moveaxis(b, axes, list(range(-len(axes), 0))) for b in (*got, *reaching)]
    outer = rows[0].shape[: len(rest)]
    flat = [r.reshape((math.prod(outer), -1)) for r in rows]
    lo, hi, near_lo, near_hi = [], [], [], []
    for row_lo, row_hi, reach_lo, reach_hi in zip(*flat, strict=True):
        acc: tuple[Any, Any] = (1, 1)
        near: tuple[Any, Any] = (1, 1)  # with each unbounded end at HUGE: may it wrap?
        for x0, x1, r0, r1 in zip(row_lo, row_hi, reach_lo, reach_hi, strict=True):
            acc = times(*acc, x0, x1)
            near = times(*near, r0, r1)
        lo.append(acc[0])
        hi.append(acc[1])
        near_lo.append(near[0])
        near_hi.append(near[1])
    shape = tuple(1 if k in axes else d for k, d in enumerate(got[0].shape))
    if keep == "false":
        shape = tuple(got[0].shape[k] for k in rest)
    reach = _pair(near_lo, near_hi, shape)
    got_pair = _wrapping(_pair(lo, hi, shape), reach, etype)
    return (*_narrow(*got_pair, etype), etype, _kept_reach(reach, etype))


def _convert(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
    target = attribute_type(layer, 0)
    raw = bounds_of(ins[0]) if len(ins) == 1 and ins[0].etype is not None else None
    if target is None or raw is None or raw[0].size > SMALL:
        return None
    # The source's own extremes, not read as unbounded: a value there wraps in a narrower type.
    exact = [np.array(b.tolist(), dtype=object).reshape(b.shape) for b in raw]
    got = (exact[0], exact[1])
    if target.name == "boolean":
        lo, hi = got
        true = (lo > 0) | (hi < 0)  # every value non-zero
        false = (lo == 0) & (hi == 0)
        return true, ~false, target
    if target.name not in _NUMBERS:
        return None
    # monotone; a value outside the target type (which would wrap) widens to the whole type
    source = ins[0].etype
    near = None if source is None else _near(ins[0], source)
    return (*_narrow(*got, target), target, _kept_reach(near, target))


def _compare(kind: str) -> Bounder:
    """Greater, Less or Equal: known where every pair of values in the intervals agrees."""

    def known(x0: Any, x1: Any, y0: Any, y1: Any) -> tuple[bool, bool]:
        """Whether the comparison is surely true, and whether it may be."""
        if kind == "equal":
            return x0 == x1 == y0 == y1, not (x1 < y0 or y1 < x0)
        if kind == "greater":
            return x0 > y1, not x1 <= y0
        return x1 < y0, not x0 >= y1

    def bound(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
        pairs = _pairs(layer, ins) if _same_type(ins, 2) is not None else None
        got = None if pairs is None else _each(known, *pairs)
        if got is None:
            return None
        return got[0].astype(bool), got[1].astype(bool), ELEMENT_TYPES["boolean"]

    return bound


def _select(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
    if len(ins) != 3 or ins[0].etype is None or ins[0].etype.name != "boolean":
        return None
    etype = _same_type(ins[1:], 2)
    cond = bounds_of(ins[0])
    then, other = wide_bounds(ins[1]), wide_bounds(ins[2])
    if etype is None or cond is None or then is None or other is None:
        return None
    every = broadcast_inputs(layer, cond[0], cond[1], then[0], then[1], other[0], other[1])
    if every is None:
        return None

    def chosen(c0: Array, c1: Array, t0: Array, t1: Array, e0: Array, e1: Array) -> Pair:
        """Then's where the condition is surely true, the other's where surely false, else both."""
        lo = np.where(c0, t0, np.where(~c1, e0, np.minimum(t0, e0)))
        hi = np.where(c0, t1, np.where(~c1, e1, np.maximum(t1, e1)))
        return lo.astype(object), hi.astype(object)

    near_then, near_other = _near(ins[1], etype), _near(ins[2], etype)
    reach = None
    if near_then is not None and near_other is not None:
        both = broadcast_inputs(layer, cond[0], cond[1], *near_then, *near_other)
        reach = None if both is None else chosen(*both)
    return (*_narrow(*chosen(*every), etype), etype, _kept_reach(reach, etype))


def _shape_of(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
    if len(ins) != 1 or ins[0].shape.rank is None:
        return None
    typed = opset_number(layer) >= 3  # ShapeOf-1 gives i64
    etype = attribute_type(layer, 0) if typed else ELEMENT_TYPES["i64"]
    if etype is None or etype.name not in ("i32", "i64"):
        return None
    dims = ins[0].shape.dims
    lo = np.array([d.min for d in dims], dtype=object)
    hi = np.array([_INF if d.max is None else d.max for d in dims], dtype=object)
    return (*_narrow(lo, hi, etype), etype, _kept_reach((lo, _reaching(hi, etype)), etype))


def _structural(layer: Layer, ins: Sequence[Info]) -> Bounded | None:
    """The layer applied to the data's lower and upper bounds (its other inputs exactly known)."""
    if not ins or any(i.value is None for i in ins[1:]):
        return None
    got = bounds_of(ins[0])
    if got is None:
        return None
    fold = FOLDERS[layer.type]
    out = [fold(layer, [Info(ins[0].shape, ins[0].etype, bound), *ins[1:]]) for bound in got]
    if out[0] is None or out[1] is None or ins[0].etype is None:
        return None
    near = _near(ins[0], ins[0].etype)  # moved as the bounds are (within the type: as it)
    moved = (
        [
            fold(layer, [Info(ins[0].shape, ins[0].etype, r.astype(ins[0].etype.dtype)), *ins[1:]])
            for r in near
        ]
        if near is not None and ins[0].etype.dtype.kind in "iu"
        else [None, None]
    )
    reach = None
    if moved[0] is not None and moved[1] is not None:
        reach = (moved[0].astype(object), moved[1].astype(object))
    return out[0], out[1], ins[0].etype, reach


BOUNDERS: Final[dict[str, Bounder]] = {
    "ShapeOf": _shape_of,
    **dict.fromkeys(_STRUCTURAL, _structural),
    "Convert": _convert,
    "Add": _binary(lambda a0, a1, b0, b1: (a0 + b0, a1 + b1), wraps=True),
    "Subtract": _binary(lambda a0, a1, b0, b1: (a0 - b1, a1 - b0), wraps=True),
    "Multiply": _binary(_corners(_times), wraps=True),
    "Divide": _divide,
    "Floor": _unary(_floor),
    "Mod": _integers(_mod),
    "FloorMod": _integers(_floor_mod),
    "Abs": _unary(_abs),
    "ReduceProd": _reduce_prod,
    "Minimum": _binary(_corners(min)),
    "Maximum": _binary(_corners(max)),
    "Greater": _compare("greater"),
    "Less": _compare("less"),
    "Equal": _compare("equal"),
    "Select": _select,
}
"""Layer type -> its bounds: ``(layer, inputs) -> (lower, upper, element type)``."""


def bound_layer(layer: Layer, ins: Sequence[Info]) -> Info | None:
    """A one-output shape-subgraph layer's value where exactly known, else its bounds.

    The exact value is `fold_layer`'s (OpenVINO's constant folding) where every input is
    known; otherwise the bounds of `BOUNDERS` (an `Info` with ``lower`` and ``upper``, and the
    value itself where they meet). ``None`` where neither is known.
    """
    if all(i.value is not None for i in ins):
        folded = fold_layer(layer, ins)
        if folded is not None:
            return folded
    rule = BOUNDERS.get(layer.type)
    if rule is None or len(layer.outputs) != 1:
        return None
    try:
        got = rule(layer, ins)
    except (ValueError, TypeError, IndexError, OverflowError, ZeroDivisionError):
        return None
    if got is None:
        return None
    lower, upper, etype = got[:3]
    reach = got[3] if len(got) == 4 else None
    if lower.shape != upper.shape or lower.size > SMALL:
        return None
    lower, upper = np.asarray(lower, dtype=etype.dtype), np.asarray(upper, dtype=etype.dtype)
    return with_bounds(PartialShape(list(lower.shape)), etype, lower, upper, reach)


def reshaped(layer: Layer, ins: Sequence[Info]) -> Info | None:
    """A data Reshape's output shape, from its input's dims and its target's value or bounds.

    The shape of a layer datamove does not compute (opaque), for the layers after it: a saved
    IR writes an interval as ``-1``, so ``x.flatten()`` of ``[1..4,2..10,8]`` is declared
    ``[?]`` while its size lies in ``16..320``. Sound: every shape the layer can give lies
    within it. A target entry that may be 0 or -1 without being known to be is no shape. The -1
    is the input's dims over the others', neither counting a dim a 0 copies (OpenVINO's CPU
    plugin's rule, `datamove.ir._ops.reshape_shape`), at their extremes; beside an entry that may
    be 0 it has no upper bound.
    """
    if layer.type != "Reshape" or len(ins) != 2 or len(layer.outputs) != 1:
        return None
    data, target = ins
    special = layer.data.get("special_zero")
    got = wide_bounds(target)
    rank = data.shape.rank
    if special not in ("true", "false") or got is None or got[0].ndim != 1 or rank is None:
        return None
    dims: list[Dimension | None] = []  # None: the one -1, inferred below
    copied = set()  # the indices a 0 copies the input's dim at
    for k, (lo, hi) in enumerate(zip(got[0].tolist(), got[1].tolist(), strict=True)):
        if lo == hi == -1 and None not in dims:
            dims.append(None)
        elif lo == hi == 0 and special == "true":
            if k >= rank:
                return None
            dims.append(data.shape[k])
            copied.add(k)
        elif lo >= (1 if special == "true" else 0) and hi != -_INF:
            dims.append(Dimension(int(lo), None if hi == _INF else int(hi)))
        else:
            return None
    if None in dims:
        # the size of the input over the product of the other dims, at its extremes
        others = [d for k, d in enumerate(dims) if d is not None and k not in copied]
        ins_dims = [d for k, d in enumerate(data.shape.dims) if k not in copied]
        least, most = math.prod(d.min for d in ins_dims), _prod_max(ins_dims)
        fewest, largest = math.prod(d.min for d in others), _prod_max(others)
        # a quotient rounded down: exact only where a copied dim of 0 lets the count through
        floor = any(data.shape[k].min == 0 for k in copied)
        low = 0 if not largest else (least // largest if floor else -(-least // largest))
        high = None if most is None or not fewest else min(most // fewest, INT64_MAX)
        if low > INT64_MAX or (high is not None and high < low):
            return None  # no size runs: the layer keeps its declared shape
        dims[dims.index(None)] = Dimension(low, high)
    return Info(PartialShape([d for d in dims if d is not None]), data.etype)


def moved(layer: Layer, ins: Sequence[Info]) -> Info | None:
    """A data Unsqueeze's, Squeeze's, Transpose's or Gather's output shape: its input's dims.

    Each output dim is an input dim (moved by Transpose, kept around Gather's indices) or a
    new 1 (Unsqueeze), so every input shape gives one output shape and back: as free as the
    input. The other inputs (axes, order, Gather's axis) must be known constants, and Gather's
    indices of static shape (their values do not change the shape); Squeeze removes only dims
    known to be 1 (OpenVINO's Squeeze-1 of a dim that may be another size is left as declared).
    ``None`` otherwise, and for a Gather with ``batch_dims``.
    """
    if layer.type not in _MOVED or len(layer.outputs) != 1 or not ins:
        return None
    data = ins[0].shape
    if data.rank is None:
        return None
    dims = list(data.dims)
    if layer.type == "Gather":
        batched = batch_dims(layer) != 0
        if len(ins) != 3 or ins[2].value is None or batched or ins[1].shape.rank is None:
            return None
        axes = axes_of(ins[2].value.reshape(-1), len(dims))
        if axes is None or len(axes) != 1 or not ins[1].shape.is_static:
            return None
        a = axes[0]
        return Info(PartialShape([*dims[:a], *ins[1].shape.dims, *dims[a + 1 :]]), ins[0].etype)
    if len(ins) != 2 or ins[1].value is None:
        return None
    value = ins[1].value
    if layer.type == "Transpose":  # (its inference checked the order against this rank)
        order = transpose_order(len(dims), [int(v) for v in value.reshape(-1)])
        return Info(PartialShape([dims[k] for k in order]), ins[0].etype)
    if layer.type == "Unsqueeze":
        axes = axes_of(value, len(dims) + value.size)
        if axes is None:
            return None
        for a in sorted(axes):
            dims.insert(a, Dimension(1, 1))
        return Info(PartialShape(dims), ins[0].etype)
    axes = axes_of(value, len(dims))  # Squeeze with its axes
    if not axes or any(not (dims[a].is_static and dims[a].min == 1) for a in axes):
        return None
    return Info(PartialShape([d for k, d in enumerate(dims) if k not in axes]), ins[0].etype)


_MOVED: Final = ("Unsqueeze", "Squeeze", "Transpose", "Gather")
# Element-wise layers of one data input (others, such as MVN's axes, do not change the shape):
# the output has its shape, and its element type (Convert: its destination_type). Spelled as
# OpenVINO writes them (ReLU, SoftMax); the reader gives a type in any case that spelling.
_UNARY: Final = frozenset(
    {
        "Abs", "Ceiling", "Clamp", "Convert", "Cos", "Elu", "Erf", "Exp", "Floor", "Gelu",
        "HSigmoid", "HSwish", "Log", "LogSoftmax", "MVN", "Mish", "Negative", "ReLU", "Round",
        "Sigmoid", "Sign", "Sin", "SoftMax", "SoftPlus", "Sqrt", "Swish", "Tanh",
    }
)  # fmt: skip
_FLOATS: Final = frozenset({"f64", "f32", "f16", "bf16", "f8e4m3", "f8e5m2"})
# Element-wise layers of two inputs broadcast by auto_broadcast, of the first's element type.
_BINARY: Final = frozenset(
    {"Add", "Divide", "Maximum", "Minimum", "Multiply", "Power", "SquaredDifference", "Subtract"}
)
ELEMENTWISE: Final = _UNARY | _BINARY | {"MatMul"}  # the types `elementwise` reads


def elementwise(layer: Layer, ins: Sequence[Info]) -> tuple[Info, bool] | None:
    """A data element-wise layer's or MatMul's output shape, and whether it is free.

    One input gives a shape as free as its input (each input shape gives one output shape and
    back); two inputs broadcast (``numpy``, or ``none``: equal shapes) or multiplied (MatMul,
    both of rank 2 or more) give a shape whose dims are related to both inputs', not free. ``None``
    where the rank is not known, or the inputs cannot run together whatever their sizes, and
    for data of other types than floating point (integers are shape subgraphs' values).
    """
    etype = ins[0].etype if ins else None
    if len(layer.outputs) != 1 or etype is None or ins[0].shape.rank is None:
        return None
    if etype.name not in _FLOATS:
        return None  # integers: a shape subgraph's, whose values are `bound_layer`'s business
    kind = layer.type
    if kind in _UNARY:
        if kind == "Convert":
            etype = attribute_type(layer, 0)
            if etype is None:
                return None
        return Info(ins[0].shape, etype), True
    if len(ins) != 2 or ins[1].shape.rank is None or ins[1].etype != etype:
        return None
    a, b = list(ins[0].shape.dims), list(ins[1].shape.dims)
    if kind in _BINARY:
        mode = layer.data.get("auto_broadcast", "numpy")
        if mode == "none":
            dims = _same_dims(a, b)
        elif mode == "numpy":
            dims = _broadcast_dims(a, b)
        else:
            return None
    elif kind == "MatMul":
        dims = _matmul_dims(layer, a, b)
    else:
        return None
    return None if dims is None else (Info(PartialShape(dims), etype), False)


def meet(a: Dimension, b: Dimension) -> Dimension | None:
    """The sizes both dims allow, ``None`` where none."""
    lo = max(a.min, b.min)
    his = [h for h in (a.max, b.max) if h is not None]
    return None if his and lo > min(his) else Dimension(lo, min(his) if his else None)


def _same_dims(a: list[Dimension], b: list[Dimension]) -> list[Dimension] | None:
    if len(a) != len(b):
        return None
    dims = [meet(x, y) for x, y in zip(a, b, strict=True)]
    return None if None in dims else dims  # type: ignore[return-value]


def _broadcast_dims(a: list[Dimension], b: list[Dimension]) -> list[Dimension] | None:
    """NumPy's broadcast of two shapes of interval dims.

    Each output dim is the hull of what it can be: the other where one is 1, both where equal.
    """
    one = Dimension(1, 1)
    rank = max(len(a), len(b))
    a, b = [one] * (rank - len(a)) + a, [one] * (rank - len(b)) + b
    dims = []
    for x, y in zip(a, b, strict=True):
        cases = [d for d in (y if 1 in x else None, x if 1 in y else None, meet(x, y)) if d]
        if not cases:
            return None  # sizes that never broadcast: the layer fails at every size
        hull = cases[0]
        for d in cases[1:]:
            hull = hull.union(d)
        dims.append(hull)
    return dims


def _matmul_dims(layer: Layer, a: list[Dimension], b: list[Dimension]) -> list[Dimension] | None:
    """MatMul's output: the broadcast batch dims, then the rows of ``a``, the columns of ``b``.

    Each is transposed first where its attribute says; both are of rank 2 or more.
    """
    flags = [layer.data.get(key, "false") for key in ("transpose_a", "transpose_b")]
    if len(a) < 2 or len(b) < 2 or any(f not in ("true", "false") for f in flags):
        return None
    if flags[0] == "true":
        a = [*a[:-2], a[-1], a[-2]]
    if flags[1] == "true":
        b = [*b[:-2], b[-1], b[-2]]
    batch = _broadcast_dims(a[:-2], b[:-2])
    if batch is None or meet(a[-1], b[-2]) is None:
        return None
    return [*batch, a[-2], b[-1]]


def _prod_max(dims: Sequence[Dimension]) -> int | None:
    """The largest product of ``dims``; ``None`` where one is unbounded (and none is 0)."""
    if any(d.max == 0 for d in dims):
        return 0
    return None if any(d.max is None for d in dims) else math.prod(d.max or 0 for d in dims)
