"""ONNX data Gathers read by ONNX's rule: of constant, computed or Range indices.

`gather_value` infers a data Gather's output where `datamove.ir._onnx` checks one: of constant
indices, each checked in range; of indices a shape subgraph computes, by their bounds, and
exactly where an index is ``k*x.shape[axis] + c`` of the data ``x`` itself (`_computed_gather`,
`_dim_linear`); of a Range of unknown length (`range_span`, made where the walk reads a Range),
by its ends (`_range_gather`). Sound: an index is a problem only where no size of the axis
runs it (`_index_never_fits`, `_linear_never_fits`, `_range_never_runs`). A GatherND that is
such a Gather on axis 0 (`nd_as_gather`: PyTorch's dynamo exporter writes ``x[[1, 0]]`` so, and
``x[:, [0, 2]]`` between two Transposes) is read as that Gather (`gather_nd_value`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from datamove._errors import ValidationError
from datamove._shape import Dimension, PartialShape
from datamove._validation import normalize_axis
from datamove.ir._bounds import wide_bounds
from datamove.ir._onnx_shapes import Term, gather_index_fault, gather_shape, node_attr, render
from datamove.ir._onnx_value import Value
from datamove.ir._ops import SMALL, bounds_of

__all__ = ["gather_nd_value", "gather_value", "nd_as_gather", "range_span", "unsqueezed_span"]


def range_span(ins: list[Value]) -> Value | None:
    """A Range of unknown length of bounded ends (``torch.arange(x.shape[1] - 2)``); else ``None``.

    Its scalar ``start``, ``limit`` and ``delta`` a shape subgraph bounds.

    Its length is ``max(ceil((limit - start) / delta), 0)``: over the box of its ends' bounds,
    of a ``delta`` of one sign, least and greatest at the box's corners (exact where one end
    varies; sound where they move together); a ``delta`` unbounded away from 0
    (``x.shape[0] + 1``) is, at its far corner, larger than any span, one value or none.
    Integer (int32, int64) ends of one type alone.
    The ends travel with the value (``span``), so a data Gather of it is read (`_range_gather`).
    """
    bounds = [wide_bounds(v.info()) if v.shape.rank == 0 else None for v in ins]
    etype = ins[0].etype if len(ins) == 3 else None
    if etype not in ("i32", "i64") or any(v.etype != etype for v in ins) or None in bounds:
        return None
    (s_lo, s_hi), (l_lo, l_hi), (d_lo, d_hi) = [(b[0].item(), b[1].item()) for b in bounds if b]
    if not (0 < d_lo <= d_hi or d_lo <= d_hi < 0):
        return None
    ends = [(l_lo - s_hi, d) for d in (d_lo, d_hi)] + [(l_hi - s_lo, d) for d in (d_lo, d_hi)]
    counts = [_ceil_div(n, d) for n, d in ends]
    least, most = max(min(counts), 0), max(*counts, 0)
    length = Dimension(int(least), None if most == math.inf else int(most))
    return Value(PartialShape([length]), etype, span=(ins[0], ins[1], ins[2]))


def _ceil_div(n: Any, d: Any) -> Any:
    """``ceil(n / d)`` of an int or an infinite ``n`` and a non-zero int or infinite ``d``.

    Of an infinite ``d``, its least over the ``d`` of that sign: 1 where ``n`` has its sign
    (a ``d`` past ``n`` takes one step), else 0.
    """
    if d in (math.inf, -math.inf):
        return 1 if n * d > 0 else 0
    if n in (math.inf, -math.inf):
        return n if d > 0 else -n
    return -(-n // d)


def gather_value(
    node: Any, ins: list[Value], _opset: int, scope: Mapping[str, Value] | None = None
) -> Value | None:
    """A data Gather's output where its ``indices`` are known or bounded; else ``None`` (opaque).

    ONNX's rule (Gather-1, 11, 13, as onnxruntime and onnx.reference run it): ``axis`` an axis
    of the data's rank, each index in ``[-d, d - 1]`` of the data's dim ``d`` on it (on an
    interval dim, a problem only where no size fits it: `gather_index_fault`); the output is
    ``data.shape[:axis] + indices.shape + data.shape[axis + 1:]`` (`gather_shape`). Indices a
    shape subgraph computes (torch's ``x[:, x.shape[1] - 1]``), of static shape, are read by
    their bounds and terms (`_computed_gather`; ``scope`` the values of the graph whose tensors
    the terms name, ``None`` in a subgraph or function). A Gather of a shape subgraph's value
    (its data known or bounded) is that subgraph's (`datamove.ir._onnx_shapes`), not read here.
    `ValidationError` for a rule broken.
    """
    if len(ins) != 2 or ins[0].shape.rank is None or bounds_of(ins[0].info()) is not None:
        return None
    (data, indices), rank = ins, ins[0].shape.rank
    values = indices.value
    if values is None and indices.span is not None:
        own = scope is not None and scope.get(node.input[0]) is data
        return _range_gather(node, data, indices, rank, own=own)
    if values is None:
        own = scope is not None and scope.get(node.input[0]) is data
        return _computed_gather(node, data, indices, rank, own=own)
    if values.dtype.kind not in "iu" or values.size > SMALL:
        return None
    axis = node_attr(node, "axis", 0)
    axis = normalize_axis("Gather", "axis", axis, axis, rank)
    dim = data.shape[axis]
    bad = gather_index_fault([int(v) for v in values.reshape(-1)], dim.max)
    if bad is not None:
        n = dim.min
        rule = f"holds {bad}, out of range [{-n}, {n - 1}] of data.shape[{axis}] = {n}"
        if not dim.is_static:
            of = f"data.shape[{axis}] = d for every d in {dim}"
            rule = f"holds {bad}, out of range [-d, d - 1] of {of}"
        rule += ": onnxruntime refuses it at run time"
        raise ValidationError("Gather", "indices", values.tolist(), rule)
    got = gather_shape(data.info(), indices.info(), axis)
    return None if got is None else Value(got.shape, data.etype)


def nd_as_gather(node: Any, ins: list[Value]) -> list[Value] | None:
    """A GatherND's data and indices as a Gather's on axis 0, where it is one; else ``None``.

    Of ``batch_dims`` 0 (its default) and indices whose last dim is 1, known or a Range of
    unknown length (`range_span`) unsqueezed on its last axis (`unsqueezed_span`): each row of
    indices then takes one slice ``data[i]`` of the data, as ``Gather(data, indices[..., 0],
    axis=0)`` does, and the spec's range ``[-d, d - 1]`` of each index is Gather's.
    """
    if len(ins) != 2 or node_attr(node, "batch_dims", 0) != 0:
        return None
    data, indices = ins
    rank = indices.shape.rank
    if not rank or indices.shape[rank - 1] != Dimension(1) or data.shape.rank == 0:
        return None
    if indices.value is not None:
        taken = indices.value[..., 0]
        return [data, Value(PartialShape(list(taken.shape)), indices.etype, taken)]
    if indices.span is not None and rank == 2:
        dims = [indices.shape[0]]
        return [data, Value(PartialShape(dims), indices.etype, span=indices.span)]
    return None


def unsqueezed_span(node: Any, ins: list[Value], opset: int) -> Value | None:
    """A Range of unknown length (`range_span`) unsqueezed on its last axis, its ends kept.

    ``Unsqueeze(arange, [-1])`` (or ``[1]``), the dynamo exporter's indices of a GatherND;
    ``None`` for any other Unsqueeze.
    """
    if not ins or ins[0].span is None or ins[0].shape.rank != 1:
        return None
    given = ins[1].value if len(ins) == 2 else None
    axes = node_attr(node, "axes", []) if opset < 13 else None  # an input from opset 13
    if given is not None and opset >= 13:
        axes = given.reshape(-1).tolist()
    if axes not in ([-1], [1]):
        return None
    return Value(PartialShape([ins[0].shape[0], 1]), ins[0].etype, span=ins[0].span)


def gather_nd_value(
    node: Any, ins: list[Value], opset: int, scope: Mapping[str, Value] | None = None
) -> Value | None:
    """A GatherND's output where it is a Gather on axis 0 (`nd_as_gather`); else ``None``.

    Read by `gather_value`'s rules; a rule broken is a `ValidationError` of GatherND, its
    indices as the node has them. But where each slice ``data[i]`` may be empty (a dim of the
    data after the first may be 0) no index is checked: onnxruntime checks none there and
    runs it, as PyTorch runs the ``x[:, [0, 2]]`` of no rows it comes from, where the spec and
    ``onnx.reference`` refuse an index out of range (docs/ir.md).
    """
    taken = nd_as_gather(node, ins)
    if taken is None:
        return None
    data = taken[0]
    if data.shape.rank is not None and any(d.min == 0 for d in data.shape.dims[1:]):
        dims = [*taken[1].shape.dims, *data.shape.dims[1:]]
        return Value(PartialShape(dims), data.etype)
    try:
        return gather_value(node, taken, opset, scope)
    except ValidationError as exc:
        value = ins[1].value.tolist() if ins[1].value is not None else exc.value
        raise ValidationError("GatherND", "indices", value, exc.rule) from None


def _computed_gather(
    node: Any, data: Value, indices: Value, rank: int, *, own: bool
) -> Value | None:
    """A data Gather whose indices a shape subgraph bounds (`gather_value`); else ``None``.

    Sound, as the Reshape's count (`check_reshape_count`): an index is a problem only where
    no value within its bounds fits any size of the axis (`_index_never_fits`), or where its
    term is ``k*x.shape[axis] + c`` of the data ``x`` itself (`_dim_linear`) and no size ``d``
    of that axis has ``k*d + c`` in ``[-d, d - 1]`` (`_linear_never_fits`: ``x[:, x.shape[1]]``
    never runs): where ``own``, the terms naming the graph's values (a function's inputs may
    bring terms of its caller's names). A 1-D index too where no one size takes all its
    elements: each fits a run of sizes (`_linear_sizes`, or from the least its bounds need
    on: `_least_size`), and they share none. Silent where it cannot tell.
    """
    bounds = wide_bounds(indices.info())
    if bounds is None or indices.etype not in ("i32", "i64") or not indices.shape.is_static:
        return None
    axis = node_attr(node, "axis", 0)
    axis = normalize_axis("Gather", "axis", axis, axis, rank)
    dim = data.shape[axis]
    lows, highs = bounds[0].reshape(-1).tolist(), bounds[1].reshape(-1).tolist()
    terms = indices.terms if indices.terms and len(indices.terms) == len(lows) else None
    texts = [_span(lo, hi) for lo, hi in zip(lows, highs, strict=True)]
    if terms is not None:
        texts = [render(t, "", str) for t in terms]
    shown = texts[0] if indices.shape.rank == 0 else "[" + ", ".join(texts) + "]"
    runs: list[tuple[Any, int | None]] = []  # the sizes of the axis each element may fit
    for k, (lo, hi) in enumerate(zip(lows, highs, strict=True)):
        linear = _dim_linear(terms[k], node.input[0], axis) if terms and own else None
        runs.append(_linear_sizes(*linear, dim) if linear else (_least_size(lo, hi), None))
        if linear is not None and _linear_never_fits(*linear, dim):
            rule = f"holds {texts[k]}, out of range [-d, d - 1] of data.shape[{axis}] = d for "
            rule += f"every d in {dim}: onnxruntime refuses it at run time"
            raise ValidationError("Gather", "indices", shown, rule)
        if _index_never_fits(lo, hi, dim.max):
            what = f"a value within {texts[k]}" if lo != hi else texts[k]
            if terms is not None:  # its expression, and where it lies
                what = texts[k] + (f", within {_span(lo, hi)}" if lo != hi else f" = {lo}")
            n = dim.min
            of = f"[{-n}, {n - 1}] of data.shape[{axis}] = {n}"
            if not dim.is_static:
                of = f"[-d, d - 1] of data.shape[{axis}] = d for every d in {dim}"
            rule = f"holds {what}, out of range {of}: onnxruntime refuses it at run time"
            raise ValidationError("Gather", "indices", shown, rule)
    low = max([dim.min, *(r[0] for r in runs)])
    high = min([h for h in (dim.max, *(r[1] for r in runs)) if h is not None], default=None)
    if high is not None and low > high:  # each fits some size, but none all at once
        apart = ", ".join(_span(max(a, dim.min), math.inf if b is None else b) for a, b in runs)
        rule = f"holds elements each in range [-d, d - 1] of data.shape[{axis}] = d at some d "
        rule += f"in {dim}, but at no one d ({apart}): onnxruntime refuses it at run time"
        raise ValidationError("Gather", "indices", shown, rule)
    got = gather_shape(data.info(), indices.info(), axis)
    return None if got is None else Value(got.shape, data.etype)


def _range_gather(node: Any, data: Value, indices: Value, rank: int, *, own: bool) -> Value | None:
    """A data Gather of a Range of unknown length (`range_span`): ``x[:, torch.arange(n)]``.

    Its output is the data's around the Range's length. Sound, by the ends' bounds alone: a
    problem only where the Range is never empty (its least length 1 or more) and its first
    value (``start``) or its last one never fits a size of the axis (`_index_never_fits`); the
    last lies in ``[max(start, limit - delta), limit - 1]`` of a positive ``delta``, in
    ``[limit + 1, min(start, limit - delta)]`` of a negative one. Exact of a ``delta`` of 1 or
    -1 whose ends are numbers or linear in the axis's own dim (where ``own``, as
    `_computed_gather`'s): ``torch.arange(x.shape[1] + 1)`` never runs (`_range_never_runs`).
    Silent where it cannot tell.
    """
    assert indices.span is not None  # (the caller's test)
    axis = node_attr(node, "axis", 0)
    axis = normalize_axis("Gather", "axis", axis, axis, rank)
    dim, length = data.shape[axis], indices.shape[0]
    pairs = [wide_bounds(v.info()) for v in indices.span]
    (s_lo, s_hi), (l_lo, l_hi), (d_lo, d_hi) = [(b[0].item(), b[1].item()) for b in pairs if b]
    rising = d_lo > 0
    last = (max(s_lo, l_lo - d_hi), l_hi - 1) if rising else (l_lo + 1, min(s_hi, l_hi - d_lo))
    texts = [_expression(v, b) for v, b in zip(indices.span, pairs, strict=True)]
    shown = f"Range({', '.join(texts)})"
    ends = [_linear_end(v, node.input[0], axis) if own else None for v in indices.span[:2]]
    if d_lo == d_hi and abs(d_lo) == 1 and None not in ends:
        start, limit = (e for e in ends if e)
        if _range_never_runs(start, limit, int(d_lo), dim):
            rule = f"is not empty and holds a value out of range [-d, d - 1] of data.shape[{axis}]"
            rule += f" = d for every d in {dim}: onnxruntime refuses it at run time"
            raise ValidationError("Gather", "indices", shown, rule)
    for what, (lo, hi) in (("its first value", (s_lo, s_hi)), ("its last value", last)):
        if length.min >= 1 and _index_never_fits(lo, hi, dim.max):
            n = dim.min
            of = f"[{-n}, {n - 1}] of data.shape[{axis}] = {n}"
            if not dim.is_static:
                of = f"[-d, d - 1] of data.shape[{axis}] = d for every d in {dim}"
            where = f" within {_span(lo, hi)}" if lo != hi else f" {lo}"
            rule = f"holds {what}{where}, of {length} values, out of range {of}"
            raise ValidationError("Gather", "indices", shown, f"{rule}: onnxruntime refuses it")
    dims = [*data.shape.dims[:axis], length, *data.shape.dims[axis + 1 :]]
    return Value(PartialShape(dims), data.etype)


def _linear_end(v: Value, data: str, axis: int) -> tuple[int, int] | None:
    """A Range's end as ``(k, c)``, ``k*data.shape[axis] + c`` (`_dim_linear`; a number: k 0)."""
    bounds = wide_bounds(v.info())
    if bounds is not None and bounds[0].size == 1 and bounds[0].item() == bounds[1].item():
        return 0, int(bounds[0].item())  # known: a number
    return _dim_linear(v.terms[0], data, axis) if v.terms and len(v.terms) == 1 else None


def _range_never_runs(
    start: tuple[int, int], limit: tuple[int, int], delta: int, dim: Dimension
) -> bool:
    """Whether no size ``d`` of ``dim`` runs ``Range(start, limit, delta)`` as indices.

    ``delta`` 1 or -1, the ends linear in ``d``; it runs where it is empty or each value is in
    ``[-d, d - 1]``. Its values run one by one from ``start`` to ``limit - delta``: all in
    range where both ends are (`_linear_sizes`); empty where ``delta*(start - limit) >= 0``,
    a run of sizes too.
    """
    (ks, cs), (kl, cl) = start, limit
    first = _linear_sizes(ks, cs, dim)
    last = _linear_sizes(kl, cl - delta, dim)
    low, high = max(first[0], last[0]), _least_of(first[1], last[1])
    if high is None or low <= high:  # some size takes both ends
        return False
    # empty where delta*(ks - kl)*d >= delta*(cl - cs): all sizes, none, or a run
    a, b = delta * (ks - kl), delta * (cl - cs)
    empty = (dim.min, dim.max) if a == 0 and b <= 0 else None
    if a > 0:
        empty = (max(dim.min, -(-b // a)), dim.max)
    elif a < 0:
        empty = (dim.min, _least_of(dim.max, b // a))
    return empty is None or (empty[1] is not None and empty[0] > empty[1])


def _least_of(a: int | None, b: int | None) -> int | None:
    """The smaller of two upper bounds, ``None`` unbounded."""
    return b if a is None else a if b is None else min(a, b)


def _expression(v: Value, bounds: Any) -> str:
    """A scalar's expression of dims (``x.shape[1]-2``), else its bounds (``0``, ``2..7``)."""
    if v.terms is not None and len(v.terms) == 1:
        return render(v.terms[0], "", str)
    return _span(bounds[0].item(), bounds[1].item())


def _span(lo: Any, hi: Any) -> str:
    """A value's bounds as OpenVINO writes a dim's (``4``, ``0..``, ``..3``, ``2..7``)."""
    if lo == hi:
        return str(lo)
    return f"{'' if lo == -math.inf else lo}..{'' if hi == math.inf else hi}"


def _index_never_fits(lo: Any, hi: Any, most: int | None) -> bool:
    """Whether no index in ``lo..hi`` is in range of any size up to ``most`` (`gather_index_fault`).

    The index needing the least size is the one nearest ``-1`` or ``0`` (a size of 1).
    """
    return most is not None and _least_size(lo, hi) > most


def _least_size(lo: Any, hi: Any) -> Any:
    """The least size of an axis some index in ``lo..hi`` is in range of: each larger one too."""
    return 1 if lo <= 0 and hi >= -1 else lo + 1 if lo > 0 else -hi


def _dim_linear(term: Term, data: str, axis: int) -> tuple[int, int] | None:
    """``(k, c)`` where ``term`` is ``k*data.shape[axis] + c``, else ``None``.

    Read as Python reads its text (`render`): numbers, that dim, ``+``, ``-``, ``*`` and
    parentheses, any ``k`` (``2*x.shape[1] - 3``, ``x.shape[1]*(-2)``, ``1 - x.shape[1]``);
    ``None`` for anything else (``//``, ``min``, another dim, a product of that dim by itself).
    """
    parts = term[1]
    at = 0

    def read() -> Any:
        return parts[at] if at < len(parts) else None

    def expr() -> tuple[int, int] | None:
        nonlocal at
        got = product()
        while got is not None and read() in ("+", "-"):
            sign = 1 if parts[at] == "+" else -1
            at += 1
            more = product()
            got = None if more is None else (got[0] + sign * more[0], got[1] + sign * more[1])
        return got

    def product() -> tuple[int, int] | None:
        nonlocal at
        got = factor()
        while got is not None and read() == "*":
            at += 1
            more = factor()
            if more is None or (got[0] and more[0]):  # not linear
                return None
            got = (got[0] * more[1] + more[0] * got[1], got[1] * more[1])
        return got

    def factor() -> tuple[int, int] | None:
        nonlocal at
        part = read()
        at += 1
        if part == (data, axis):
            return 1, 0
        if part == "(":
            got = expr()
            ok = read() == ")"
            at += 1
            return got if ok else None
        if isinstance(part, str) and part.lstrip("-").isdigit():
            return 0, int(part)
        return None

    got = expr()
    return got if got is not None and at == len(parts) and got[0] != 0 else None


def _linear_never_fits(k: int, c: int, dim: Dimension) -> bool:
    """Whether ``k*d + c`` is out of ``[-d, d - 1]`` at every size ``d`` of ``dim``."""
    low, high = _linear_sizes(k, c, dim)
    return high is not None and low > high


def _linear_sizes(k: int, c: int, dim: Dimension) -> tuple[int, int | None]:
    """The run ``low..high`` of sizes ``d`` of ``dim`` with ``k*d + c`` in ``[-d, d - 1]``.

    ``high`` ``None``: unbounded; ``low > high``: none. In range where ``(k + 1)*d >= -c`` and
    ``(1 - k)*d >= 1 + c``: each a run of sizes from one on, up to one, all or none, so the
    sizes that take it are one run (of ``k`` 1, those from ``-c/2`` on where ``c`` is -1 or
    less; of a larger ``k``, a bounded run).
    """
    low, high = dim.min, dim.max  # the run so far (high None: unbounded)
    for a, b in ((k + 1, -c), (1 - k, 1 + c)):  # a*d >= b
        if a > 0:
            low = max(low, -(-b // a))  # ceil(b / a)
        elif a < 0:
            high = b // a if high is None else min(high, b // a)  # floor(b / a)
        elif b > 0:
            return low, low - 1
    return low, high
