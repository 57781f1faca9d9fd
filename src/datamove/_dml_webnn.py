"""The DirectML and WebNN dialects of slicing and splitting: static windows, unsigned numbers.

DirectML ``DML_SLICE1_OPERATOR_DESC`` and WebNN ``MLGraphBuilder.slice`` describe a slice as a
window per input axis: an offset (``starts``), a number of elements the window spans
(``sizes``) and a stride. Both have:

- **static shapes**: every number is fixed when the operator is built, so a slicing is written
  for one static shape; another shape raises :class:`~datamove.NotExpressible`;
- **unsigned offsets and sizes, no clamping**: the window lies inside the axis (``offset + size
  <= d``), negative indices and sentinels do not exist;
- **non-empty windows** (DirectML's tensors have no size 0; WebNN's slice sizes are non-zero):
  an empty result is refused.

They differ on the stride: DirectML's ``InputWindowStrides`` are signed and a negative stride
copies from the window's end (``offset + size - 1``) backwards; WebNN's ``strides`` are
``>= 1`` (webnn#772), so a negative step is a ``reverse`` after the slice (as onnxruntime's
WebNN provider writes it, onnxruntime PR #22871). Neither adds or removes axes: that is a
reshape (DirectML: a new tensor description over the same buffer, DirectMLX ``Reinterpret``;
WebNN ``reshape``). The number of elements a window gives is ``1 + (size - 1) // |stride|``
(DirectML's ``MaxCopiedElements``, WebNN's ``ceil(size / stride)``); the windows written here
are tight, ``size = (n - 1) * |stride| + 1``, so both readings agree.

Splits: DirectML ``DML_SPLIT_OPERATOR_DESC`` takes the parts' sizes along an unsigned ``Axis``,
each at least 1; WebNN ``split`` takes a count (which must divide the axis) or the sizes (each
non-zero), an unsigned ``axis``, and at most 8192 outputs (webnn PR #933).

Sources: ``../shared/research/directml-and-peers.md`` §1.4, §2.1-2.3, §3.3, §3.5, §3.7, §3.8;
the DirectML documentation of ``DML_SLICE1_OPERATOR_DESC`` and the WebNN specification.
"""

from __future__ import annotations

from typing import Any, Final

from datamove._dialects import SAME, Cut, Slicing, _shape_dims
from datamove._errors import NotExpressible, ValidationError
from datamove._shape import Dimension, PartialShape, ShapeLike
from datamove._splitting import Splitting
from datamove._validation import as_int, as_int_vector

__all__ = [
    "slicing_from_dml",
    "slicing_from_webnn",
    "slicing_to_dml",
    "slicing_to_webnn",
    "splitting_from_dml",
    "splitting_from_webnn",
    "splitting_to_dml",
    "splitting_to_webnn",
]

DML_SLICE: Final = "DirectML SLICE1"
DML_SPLIT: Final = "DirectML SPLIT"
WEBNN_SLICE: Final = "WebNN slice"
WEBNN_SPLIT: Final = "WebNN split"

UINT32_MAX: Final = 2**32 - 1
INT32_MAX: Final = 2**31 - 1
# DirectML tensors have 1 to 8 dimensions from DML_FEATURE_LEVEL_3_0 (4 or 5 before).
DML_MAX_RANK: Final = 8
# WebNN's "valid tensor count" for split and concat (webnn PR #933).
WEBNN_MAX_OUTPUTS: Final = 8192

Ops = list[tuple[str, dict[str, Any]]]


# -- a slicing on one static shape -----------------------------------------------------------------
def _static_dims(ps: PartialShape, shape: Any, dialect: str, witness_of: Any) -> tuple[int, ...]:
    """The sizes of a static shape; otherwise NotExpressible, with a shape the numbers miss."""
    why = "fixes every size when the operator is built"
    if ps.rank is None:
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"has an unknown rank; {dialect} {why}, one number per axis",
            hint="pass the static shape",
        )
    for k, d in enumerate(ps.dims):
        if d.is_static:
            continue
        base = list(witness_of(ps))
        other = base[k] + 1 if d.max is None or base[k] + 1 <= d.max else base[k] - 1
        w = (*base[:k], other, *base[k + 1 :])
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"allows sizes {d} on axis {k}; {dialect} {why}: the numbers written for "
            f"{tuple(base)} do not describe {w}",
            hint="pass the static shape",
            witness=w,
        )
    return tuple(d.min for d in ps.dims)


def _ranges(
    s: Slicing, shape: ShapeLike | None, dialect: str
) -> tuple[tuple[int, ...], list[range], tuple[int, ...]]:
    """The input sizes, the indices each input axis keeps (in order), and the output shape."""
    ps = _shape_dims(shape, dialect)
    dims = _static_dims(ps, shape, dialect, lambda p: s._witness(p, {}))
    out_ps = s.infer(ps)  # refuses what the slicing cannot run on, as s(x) does
    out = tuple(d.min for d in out_ps.dims)
    ranges = [range(d) for d in dims]
    for x, axis in zip(s.entries, s._axes(len(dims)), strict=True):
        if axis is None:
            continue
        d = dims[axis]
        if type(x) is int:
            j = x + d if x < 0 else x
            ranges[axis] = range(j, j + 1)
        else:
            assert isinstance(x, Cut)
            ranges[axis] = x.range(d)
    for k, r in enumerate(ranges):
        if len(r) == 0:
            raise NotExpressible(
                dialect,
                "shape",
                shape,
                f"has size {dims[k]} on axis {k}, where {s._text(s.entries)} selects no element; "
                f"{dialect} windows must be non-empty (and its tensors have no size 0)",
                witness=dims,
            )
    return dims, ranges, out


def _window(r: range) -> tuple[int, int, int]:
    """A tight window (offset, size, stride > 0 or < 0) over the indices ``r`` (not empty)."""
    n = len(r)
    if n == 1:
        return (r.start, 1, 1)
    return (min(r.start, r[-1]), (n - 1) * abs(r.step) + 1, r.step)


def _check_range(dialect: str, name: str, values: list[int], lo: int, hi: int, s: Slicing) -> None:
    for i, v in enumerate(values):
        if not lo <= v <= hi:
            raise NotExpressible(
                dialect,
                f"{name}[{i}]",
                v,
                f"is outside [{lo}, {hi}], the range of {dialect}'s {name} "
                f"(writing {s._text(s.entries)})",
            )


def slicing_to_dml(s: Slicing, shape: ShapeLike | None) -> Ops:
    """``s.to_dml(shape)``: DirectML SLICE1 and a reshape, for one static shape."""
    dims, ranges, out = _ranges(s, shape, DML_SLICE)
    windows = [_window(r) for r in ranges]
    offsets = [w[0] for w in windows]
    sizes = [w[1] for w in windows]
    strides = [w[2] for w in windows]
    counts = tuple(len(r) for r in ranges)
    ops: Ops = []
    if any(w != (0, d, 1) for w, d in zip(windows, dims, strict=True)):
        ops.append(
            (
                "SLICE1",
                {
                    "InputWindowOffsets": offsets,
                    "InputWindowSizes": sizes,
                    "InputWindowStrides": strides,
                },
            )
        )
    if out != counts:
        ops.append(("RESHAPE", {"sizes": list(out)}))
    if ops:
        for what, rank in (("input", len(dims)), ("output", len(out))):
            if not 1 <= rank <= DML_MAX_RANK:
                raise NotExpressible(
                    DML_SLICE,
                    "shape",
                    shape,
                    f"gives an {what} of rank {rank} for {s._text(s.entries)}; DirectML "
                    f"tensors have 1 to {DML_MAX_RANK} dimensions (DML_FEATURE_LEVEL_3_0 and "
                    "later)",
                    witness=dims,
                )
        _check_range(DML_SLICE, "InputWindowOffsets", offsets, 0, UINT32_MAX, s)
        _check_range(DML_SLICE, "InputWindowSizes", sizes, 1, UINT32_MAX, s)
        _check_range(DML_SLICE, "InputWindowStrides", strides, -INT32_MAX - 1, INT32_MAX, s)
        _check_range(DML_SLICE, "sizes", list(out), 1, UINT32_MAX, s)
    return ops


def slicing_to_webnn(s: Slicing, shape: ShapeLike | None) -> Ops:
    """``s.to_webnn(shape)``: WebNN slice, reverse and reshape, for one static shape."""
    dims, ranges, out = _ranges(s, shape, WEBNN_SLICE)
    windows = [_window(r) for r in ranges]
    starts = [w[0] for w in windows]
    sizes = [w[1] for w in windows]
    strides = [abs(w[2]) for w in windows]
    flipped = [k for k, w in enumerate(windows) if w[2] < 0]
    counts = tuple(len(r) for r in ranges)
    ops: Ops = []
    if any((w[0], w[1], abs(w[2])) != (0, d, 1) for w, d in zip(windows, dims, strict=True)):
        ops.append(("slice", {"starts": starts, "sizes": sizes, "strides": strides}))
    if flipped:
        ops.append(("reverse", {"axes": flipped}))
    if out != counts:
        ops.append(("reshape", {"newShape": list(out)}))
    for name, values in (("starts", starts), ("sizes", sizes), ("strides", strides)):
        _check_range(WEBNN_SLICE, name, values, 1 if name != "starts" else 0, UINT32_MAX, s)
    _check_range(WEBNN_SLICE, "newShape", list(out), 1, UINT32_MAX, s)
    return ops


# -- reading a window ------------------------------------------------------------------------------
def _vectors(
    op: str, names: tuple[str, str, str], offsets: Any, sizes: Any, strides: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    a = as_int_vector(op, names[0], offsets)
    b = as_int_vector(op, names[1], sizes)
    c = (1,) * len(a) if strides is None else as_int_vector(op, names[2], strides)
    for name, given, vec in ((names[1], sizes, b), (names[2], strides, c)):
        if len(vec) != len(a):
            raise ValidationError(
                op,
                name,
                given,
                f"has {len(vec)} values, but {names[0]} has {len(a)}; they need the same "
                "number of values, one per axis",
            )
    for i, v in enumerate(a):
        if not 0 <= v <= UINT32_MAX:
            raise ValidationError(op, f"{names[0]}[{i}]", v, "must be in [0, 2**32 - 1] (unsigned)")
    for i, v in enumerate(b):
        if not 1 <= v <= UINT32_MAX:
            raise ValidationError(
                op, f"{names[1]}[{i}]", v, "must be in [1, 2**32 - 1]: windows are non-empty"
            )
    return a, b, c


def _cut(offset: int, size: int, stride: int, n: int) -> Cut:
    """The cut picking ``n`` elements of the window, from its start or (stride < 0) its end."""
    if stride > 0:
        return Cut.make(offset, offset + (n - 1) * stride + 1, stride, SAME)
    first = offset + size - 1
    last = first + (n - 1) * stride
    return Cut.make(first, last - 1 if last >= 1 else None, stride, SAME)


def slicing_from_dml(
    offsets: Any, sizes: Any, strides: Any = None, output_sizes: Any = None
) -> Slicing:
    """``Slicing.from_dml``: a SLICE1 window, one entry per input axis."""
    op = DML_SLICE
    names = ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides")
    a, b, c = _vectors(op, names, offsets, sizes, strides)
    for i, v in enumerate(c):
        if v == 0 or not -INT32_MAX - 1 <= v <= INT32_MAX:
            raise ValidationError(op, f"{names[2]}[{i}]", v, "must be a non-zero 32-bit int (INT)")
    most = [1 + (z - 1) // abs(t) for z, t in zip(b, c, strict=True)]
    counts = tuple(most)
    if output_sizes is not None:
        counts = as_int_vector(op, "output_sizes", output_sizes)
        if len(counts) != len(a):
            raise ValidationError(
                op,
                "output_sizes",
                output_sizes,
                f"has {len(counts)} values, but the window has {len(a)} axes",
            )
        for i, (n, m) in enumerate(zip(counts, most, strict=True)):
            if not 1 <= n <= m:
                raise ValidationError(
                    op,
                    f"output_sizes[{i}]",
                    n,
                    f"must be in [1, {m}]: 1 <= OutputSizes[i] <= MaxCopiedElements[i] = "
                    f"1 + ({b[i]} - 1) / |{c[i]}|",
                )
    return Slicing(_cut(*w) for w in zip(a, b, c, counts, strict=True))


def slicing_from_webnn(starts: Any, sizes: Any, strides: Any = None) -> Slicing:
    """``Slicing.from_webnn``: a WebNN slice, one entry per input axis."""
    op = WEBNN_SLICE
    a, b, c = _vectors(op, ("starts", "sizes", "strides"), starts, sizes, strides)
    for i, v in enumerate(c):
        if not 1 <= v <= UINT32_MAX:
            raise ValidationError(
                op, f"strides[{i}]", v, "must be in [1, 2**32 - 1]; a reversal is a reverse op"
            )
    return Slicing(_cut(x, z, t, 1 + (z - 1) // t) for x, z, t in zip(a, b, c, strict=True))


# -- splits ----------------------------------------------------------------------------------------
def _split_lengths(
    sp: Splitting, shape: ShapeLike | None, dialect: str
) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """The static shape, the axis counted from the front, and the parts' lengths."""
    ps = _shape_dims(shape, dialect)
    dims = _static_dims(ps, shape, dialect, lambda p: tuple(max(d.min, 1) for d in p.dims))
    axis = _unsigned_axis(sp, len(dims), dialect)
    lengths = sp.lengths(dims[axis])
    _tiles(sp, lengths, dims[axis], dialect, shape)
    return dims, axis, lengths


def _unsigned_axis(sp: Splitting, rank: int, dialect: str) -> int:
    if not -rank <= sp.axis < rank:
        raise ValidationError(dialect, "axis", sp.axis, f"is out of range for rank {rank}")
    return sp.axis % rank


def _tiles(sp: Splitting, lengths: tuple[int, ...], d: int, dialect: str, shape: Any) -> None:
    if sum(lengths) != d:
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"has size {d} on axis {sp.axis}, where the indices {list(sp.value)} give "
            f"overlapping parts of lengths {list(lengths)}; {dialect}'s parts tile the axis",
            hint="sort the indices",
            witness=(d,),
        )
    if 0 in lengths:
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"has size {d} on axis {sp.axis}, where part {lengths.index(0)} of "
            f"{list(lengths)} is empty; {dialect}'s parts are at least 1 long",
            hint="leave the empty parts out of the operator and make them outside it",
            witness=(d,),
        )


def splitting_to_dml(sp: Splitting, shape: ShapeLike | None) -> tuple[str, dict[str, Any]]:
    """``s.to_dml(shape)``: ``("SPLIT", {Axis, InputSizes, OutputSizes})`` on a static shape."""
    dims, axis, lengths = _split_lengths(sp, shape, DML_SPLIT)
    if not 1 <= len(dims) <= DML_MAX_RANK:
        raise NotExpressible(
            DML_SPLIT,
            "shape",
            shape,
            f"has rank {len(dims)}; DirectML tensors have 1 to {DML_MAX_RANK} dimensions",
            witness=dims,
        )
    if 0 in dims or max(dims) > UINT32_MAX:
        raise NotExpressible(
            DML_SPLIT,
            "shape",
            shape,
            "has a size outside [1, 2**32 - 1]; DirectML sizes are non-zero UINTs",
            witness=dims,
        )
    outputs = [[*dims[:axis], n, *dims[axis + 1 :]] for n in lengths]
    return ("SPLIT", {"Axis": axis, "InputSizes": list(dims), "OutputSizes": outputs})


def splitting_from_dml(axis: Any, output_sizes: Any) -> Splitting:
    """``Splitting.from_dml``: the outputs' ``Sizes`` (each a list) and the unsigned ``Axis``."""
    op = DML_SPLIT
    ax = as_int(op, "Axis", axis)
    if not isinstance(output_sizes, list | tuple) or not output_sizes:
        raise ValidationError(
            op, "OutputSizes", output_sizes, "must be a non-empty list of sizes, one per output"
        )
    rows = [as_int_vector(op, f"OutputSizes[{i}]", v) for i, v in enumerate(output_sizes)]
    rank = len(rows[0])
    if not 0 <= ax < rank:
        raise ValidationError(op, "Axis", axis, f"must be in [0, {rank - 1}] (unsigned)")
    for i, row in enumerate(rows):
        if len(row) != rank or any(row[k] != rows[0][k] for k in range(rank) if k != ax):
            raise ValidationError(
                op,
                f"OutputSizes[{i}]",
                list(row),
                f"must equal OutputSizes[0]={list(rows[0])} but on the axis {ax}",
            )
        if row[ax] < 1:
            raise ValidationError(op, f"OutputSizes[{i}][{ax}]", row[ax], "must be at least 1")
    return Splitting(ax, "lengths", tuple(row[ax] for row in rows))


def splitting_to_webnn(sp: Splitting, shape: ShapeLike | None) -> tuple[str, dict[str, Any]]:
    """``s.to_webnn(shape)``: ``("split", {splits, axis})``, a count or the sizes."""
    ps = _shape_dims(shape, WEBNN_SPLIT)
    if ps.rank is None:
        if sp.axis < 0:
            raise NotExpressible(
                WEBNN_SPLIT,
                "shape",
                shape,
                f"has an unknown rank, and WebNN's axis is unsigned: axis {sp.axis}, counted "
                "from the back, names another axis on each rank",
                hint="pass the shape, or its rank",
            )
        axis, dim = sp.axis, Dimension()
    else:
        axis = _unsigned_axis(sp, ps.rank, WEBNN_SPLIT)
        dim = ps.dims[axis]
    if sp.rule == "even":  # WebNN's count is the same rule (it must divide) on every size
        _count_cap(int(sp.value))
        return ("split", {"splits": int(sp.value), "axis": axis})
    if not dim.is_static:
        # Sizes that tile one size tile no other: the first allowed size shows it.
        base = _try_lengths(sp, dim.min)
        w = sp._witness(dim, lambda _: base)
        raise NotExpressible(
            WEBNN_SPLIT,
            "shape",
            shape,
            f"allows sizes {dim} on axis {sp.axis}; WebNN's sizes are fixed when the graph is "
            f"built, and the {sp.rule!r} rule's parts move with the size"
            + ("" if isinstance(w, bool) else f" ({base} on size {dim.min}, not on {w})"),
            hint="pass the static shape",
            witness=None if isinstance(w, bool) else (w,),
        )
    lengths = sp.lengths(dim.min)
    _tiles(sp, lengths, dim.min, WEBNN_SPLIT, shape)
    _count_cap(len(lengths))
    if len(set(lengths)) == 1:  # the count form: the sizes form is not everywhere (webnn#392)
        return ("split", {"splits": len(lengths), "axis": axis})
    return ("split", {"splits": list(lengths), "axis": axis})


def _try_lengths(sp: Splitting, d: int) -> tuple[int, ...] | None:
    try:
        return sp.lengths(d)
    except ValidationError:
        return None


def _count_cap(count: int) -> None:
    if count > WEBNN_MAX_OUTPUTS:
        raise NotExpressible(
            WEBNN_SPLIT,
            "splits",
            count,
            f"gives {count} outputs; WebNN splits into at most {WEBNN_MAX_OUTPUTS} "
            "(its valid tensor count)",
            hint="split in two steps",
        )


def splitting_from_webnn(splits: Any, axis: Any = 0) -> Splitting:
    """``Splitting.from_webnn``: ``split(input, splits, {axis})``, a count or the sizes."""
    op = WEBNN_SPLIT
    ax = as_int(op, "axis", axis)
    if ax < 0:
        raise ValidationError(op, "axis", axis, "must be at least 0 (unsigned)")
    if isinstance(splits, list | tuple) or bool(getattr(splits, "ndim", False)):
        sizes = as_int_vector(op, "splits", splits)
        if not sizes:
            raise ValidationError(op, "splits", splits, "is empty")
        for i, v in enumerate(sizes):
            if not 1 <= v <= UINT32_MAX:
                raise ValidationError(op, f"splits[{i}]", v, "must be in [1, 2**32 - 1]")
        if len(sizes) > WEBNN_MAX_OUTPUTS:
            raise ValidationError(
                op, "splits", f"{len(sizes)} sizes", f"gives more than {WEBNN_MAX_OUTPUTS} outputs"
            )
        return Splitting(ax, "lengths", sizes)
    n = as_int(op, "splits", splits)
    if not 1 <= n <= WEBNN_MAX_OUTPUTS:
        raise ValidationError(op, "splits", splits, f"must be in [1, {WEBNN_MAX_OUTPUTS}]")
    return Splitting(ax, "even", n)
