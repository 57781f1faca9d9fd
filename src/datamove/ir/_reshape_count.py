"""Whether any size runs a Reshape: its element count over interval dims and bounded values.

`check_reshape_count` is ONNX check's (`datamove.ir._onnx`) and the IR check's
(`datamove.ir._ops`) one rule for a data Reshape whose data has interval dims or whose ``shape``
is known only by bounds (a shape subgraph's): a problem only where no size and no value runs.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any, Final

from datamove._errors import ValidationError
from datamove._shape import Dimension, PartialShape

_INF: Final = math.inf
_Span = tuple[int, int | None]  # a size of at least 1 in ``lo..hi`` (``None``: unbounded)
_BRANCHES: Final = 64  # the most cases (an entry or dim -1, 0 or positive) weighed; past it, runs
_FACTORED: Final = 10**9  # the largest count whose divisors are searched; past it, runs


def check_reshape_count(
    data: PartialShape, entries: Sequence[tuple[Any, Any]], allowzero: bool, *, onnx: bool
) -> None:
    """`ValidationError` where a Reshape of ``data`` by values within ``entries`` never runs.

    By `reshape_runs` (ONNX's rule, or not ``onnx`` OpenVINO's); silent where ``data`` has no
    rank.
    """
    if data.rank is None:
        return
    if reshape_runs(data.dims, entries, allowzero, onnx=onnx):
        return
    known = all(lo == hi for lo, hi in entries)
    text = "[" + ", ".join(_span_text(lo, hi) for lo, hi in entries) + "]"
    rule = f"keeps the element count of the data's {data} at no size of its dims"
    rule += "" if known else " and no value within these bounds"
    rule += " (each -1, 0 or positive, a -1 an exact quotient): it never runs"
    shown = [lo for lo, _ in entries] if known else text
    raise ValidationError("Reshape", "shape", shown, rule)


def _span_text(lo: Any, hi: Any) -> str:
    """A value's bounds as OpenVINO writes a dim's (``4``, ``0..``, ``..3``, ``2..7``)."""
    if lo == hi:
        return str(lo)
    return f"{'' if lo == -_INF else lo}..{'' if hi == _INF else hi}"


def reshape_runs(
    data: Sequence[Dimension],
    entries: Sequence[tuple[Any, Any]],
    allowzero: bool,
    *,
    onnx: bool = True,
) -> bool:
    """Whether some data dims within ``data`` and ``shape`` values within ``entries`` run.

    ONNX's Reshape (as onnxruntime runs it, `datamove.ir._onnx`): each value -1, 0 or positive,
    one -1 at most; a 0 copies the data's dim at its index (which must exist) unless
    ``allowzero``; a -1 beside no dim of 0, the data's count over the other dims' (exactly); the
    element count kept. Not ``onnx``, OpenVINO's Reshape-1 (``allowzero`` is not
    ``special_zero``; `datamove.ir._ops.reshape_shape`): a -1 beside a 0 of its own is 1, and
    beside a copied dim of 0 it runs (no element either side). ``entries`` are each value's
    bounds (``wide_bounds``, infinite where unbounded), each taken apart from the others and
    from the data's dims: a wider set than the model can give, so ``False`` only where no size
    runs (``x`` of ``[3,5]`` by ``[y.shape[0], 4]``: 4 rows of 4 is never 15). ``True`` where
    one runs, or where it cannot tell (more than one unknown size on each side of the count, a
    count past 10**9).

    Examples
    --------
    >>> inf = float("inf")
    >>> reshape_runs([Dimension(3), Dimension(5)], [(0, inf), (4, 4)], False)
    False
    >>> reshape_runs([Dimension(3), Dimension(4)], [(0, inf), (4, 4)], False)
    True
    >>> reshape_runs([Dimension(2, 6), Dimension(5)], [(0, inf), (4, 4)], False)
    True
    """
    sides: list[list[int | _Span]] = [  # each dim's and value's cases
        # a dim: its size known, or 0 (where it may be) and 1 and more
        [d.min] if d.is_static else [0] * (d.min == 0) + [(max(d.min, 1), d.max)]
        for d in data
    ]
    for lo, hi in entries:  # a value -1, 0, known, or positive (below -1 never runs)
        sides.append([v for v in (-1, 0) if lo <= v <= hi])
        if lo == hi and hi >= 1:
            sides[-1].append(int(lo))
        elif hi >= 1:
            sides[-1].append((max(lo, 1) if lo > -_INF else 1, None if hi == _INF else int(hi)))
    if math.prod(len(s) for s in sides) > _BRANCHES:
        return True
    rank = len(data)
    return any(
        _reshape_case(list(case[:rank]), list(case[rank:]), allowzero, onnx=onnx)
        for case in itertools.product(*sides)
    )


def _reshape_case(
    data: list[int | _Span], values: list[int | _Span], allowzero: bool, *, onnx: bool
) -> bool:
    """Whether one case runs: each data dim and value an int, or a size of 1 and more."""
    if values.count(-1) > 1:
        return False
    out: list[int | _Span] = []
    for k, v in enumerate(values):
        if v == 0 and not allowzero:
            if k >= len(data):
                return False
            out.append(data[k])
        else:
            out.append(v)
    copied = {k for k, v in enumerate(values) if v == 0 and not allowzero}
    if -1 in out and 0 in out and onnx:  # beside a dim of 0: the spec and onnxruntime refuse it
        return False
    if -1 in out and any(out[k] == 0 for k in copied):  # OpenVINO: no element either side
        return True
    if -1 in out and 0 in out:  # OpenVINO makes the -1 beside a 0 of its own 1
        out[out.index(-1)] = 1
    elif -1 in out:
        if 0 in data:  # the -1 is 0
            return True
        out[out.index(-1)] = (1, None)
    left = [d for k, d in enumerate(data) if k not in copied or isinstance(d, int)]
    right = [d for k, d in enumerate(out) if k not in copied or isinstance(d, int)]
    return _products_meet(left, right)


def _products_meet(left: list[int | _Span], right: list[int | _Span]) -> bool:
    """Whether the product of ``left`` can equal that of ``right`` (each span in its bounds)."""
    p = math.prod(d for d in left if isinstance(d, int))
    q = math.prod(d for d in right if isinstance(d, int))
    lows = [s for s in left if not isinstance(s, int)]
    highs = [s for s in right if not isinstance(s, int)]
    if p == 0 or q == 0:  # every span is 1 or more
        return p == q
    g = math.gcd(p, q)
    p, q = p // g, q // g
    most_left, most_right = _span_prod(lows, p), _span_prod(highs, q)
    if most_left[1] is not None and most_left[1] < most_right[0]:
        return False
    if most_right[1] is not None and most_right[1] < most_left[0]:
        return False
    if not highs:  # p * prod(lows) == q, p and q coprime
        return p == 1 and _product_is(q, lows)
    if not lows:
        return q == 1 and _product_is(p, highs)
    if len(lows) == 1 and len(highs) == 1:  # p * a == q * b: a = q * k, b = p * k
        (a0, a1), (b0, b1) = lows[0], highs[0]
        low = max(-(-a0 // q), -(-b0 // p))
        return (a1 is None or low <= a1 // q) and (b1 is None or low <= b1 // p)
    return True  # more unknowns: cannot tell


def _span_prod(spans: list[_Span], times: int) -> _Span:
    high = None if any(s[1] is None for s in spans) else times * math.prod(s[1] or 0 for s in spans)
    return times * math.prod(s[0] for s in spans), high


def _product_is(n: int, spans: list[_Span]) -> bool:
    """Whether sizes within ``spans`` multiply to ``n`` (``True`` past ``_FACTORED``)."""
    if not spans:
        return n == 1
    (lo, hi), rest = spans[0], spans[1:]
    if not rest:
        return lo <= n and (hi is None or n <= hi)
    if n > _FACTORED:
        return True
    divisors = [d for d in range(1, math.isqrt(n) + 1) if n % d == 0]
    divisors += [n // d for d in divisors]
    return any(
        lo <= d and (hi is None or d <= hi) and _product_is(n // d, rest) for d in set(divisors)
    )
