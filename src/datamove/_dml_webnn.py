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

This module holds the window arithmetic and the dialects' rules, on plain numbers (it imports no
other dialect); ``Slicing`` and ``Splitting`` call it with the indices and parts they select.

Sources: ``../shared/research/directml-and-peers.md`` §1.4, §2.1-2.3, §3.3, §3.5, §3.7, §3.8;
the DirectML documentation of ``DML_SLICE1_OPERATOR_DESC`` and the WebNN specification.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence, Sized
from typing import Any, Final

from datamove._errors import NotExpressible, ValidationError, plural
from datamove._shape import PartialShape, largest, sizes_text
from datamove._validation import as_int, as_int_vector

__all__ = [
    "DML_SLICE",
    "DML_SPLIT",
    "WEBNN_SLICE",
    "WEBNN_SPLIT",
    "check_each",
    "check_lengths",
    "check_part_count",
    "check_tiling",
    "dml_slice_ops",
    "dml_split_call",
    "listed",
    "read_dml_split",
    "read_dml_window",
    "read_webnn_split",
    "read_webnn_window",
    "static_sizes",
    "webnn_slice_ops",
]

DML_SLICE: Final = "DirectML SLICE1"
DML_SPLIT: Final = "DirectML SPLIT"
WEBNN_SLICE: Final = "WebNN slice"
WEBNN_SPLIT: Final = "WebNN split"
DML_WINDOW: Final = ("InputWindowOffsets", "InputWindowSizes", "InputWindowStrides")

UINT32_MAX: Final = 2**32 - 1
INT32_MIN: Final = -(2**31)
INT32_MAX: Final = 2**31 - 1
# DirectML tensors have 1 to 8 dimensions from DML_FEATURE_LEVEL_3_0 (4 or 5 before).
DML_MAX_RANK: Final = 8
# WebNN's "valid tensor count" for split and concat (webnn PR #933).
WEBNN_MAX_OUTPUTS: Final = 8192

Ops = list[tuple[str, dict[str, Any]]]
Bounds = tuple[int, int | None, int]  # start, stop, step of one axis


# -- arguments -------------------------------------------------------------------------------------
def check_each(
    op: str, name: str, values: Sequence[int], ok: Callable[[int], bool], rule: str
) -> None:
    """``ok(v)`` for each value, else ValidationError naming ``name[i]`` and the rule broken."""
    for i, v in enumerate(values):
        if not ok(v):
            raise ValidationError(op, f"{name}[{i}]", v, rule)


def listed(value: Any) -> bool:
    """Whether a count-or-list argument is the list (a sequence or an array of 1 or more axes)."""
    return isinstance(value, list | tuple) or bool(getattr(value, "ndim", False))


def check_lengths(
    op: str,
    first: str,
    n: int,
    others: Iterable[tuple[str, Any, Sized]],
    tail: str = "; they need the same number of values",
    *,
    unit: tuple[str, str] | None = None,
) -> None:
    """Each of ``others`` (name, value as given, its values) has ``n`` values, as ``first``.

    ``first`` has ``n`` values, or ``n`` of ``unit`` (singular, plural) where that is given.
    """
    count = str(n) if unit is None else plural(n, *unit)
    for name, given, values in others:
        if len(values) != n:
            rule = f"has {plural(len(values), 'value')}, but {first} has {count}{tail}"
            raise ValidationError(op, name, given, rule)


# -- shapes ----------------------------------------------------------------------------------------
def static_sizes(
    ps: PartialShape,
    shape: Any,
    dialect: str,
    base: Callable[[], tuple[int, ...]],
    fixed: Container[int] = (),
    others: dict[int, int] | None = None,
) -> tuple[int, ...]:
    """The sizes of a static shape; else NotExpressible, with a shape the numbers would miss.

    ``base()`` is the allowed static shape the numbers would be written for; the witness differs
    from it on the first axis that is not static, by one or, on an axis in ``others``, at the
    size given there (a split's next size it runs on). The axes in ``fixed`` run on one size
    only, the one ``base()`` holds (index 5 on ``[5..6]``), as a static axis.
    """
    why = "fixes every size when the operator (the graph) is built"
    if ps.rank is None:
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"has an unknown rank; {dialect} {why}, one number per axis",
            hint="pass the static shape",
        )
    for k, d in enumerate(ps.dims):
        if d.min == largest(d) or k in fixed:  # static, or [9223372036854775806..]: one size
            continue
        first = base()
        if others is not None and k in others:
            other = others[k]
        else:
            other = first[k] + 1 if first[k] < largest(d) else first[k] - 1
        w = (*first[:k], other, *first[k + 1 :])
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"allows {sizes_text(d)} on axis {k}; {dialect} {why}: the numbers written for "
            f"{first} do not describe {w}",
            hint="pass the static shape",
            witness=w,
        )
    return base() if fixed else tuple(d.min for d in ps.dims)


# -- slicing: windows over the indices each axis keeps ---------------------------------------------
def _window(r: range) -> tuple[int, int, int]:
    """A tight window (offset, size, signed stride) over the indices ``r`` (not empty)."""
    n = len(r)
    if n == 1:
        return (r.start, 1, 1)
    return (min(r.start, r[-1]), (n - 1) * abs(r.step) + 1, r.step)


def _windows(
    dims: tuple[int, ...], ranges: Sequence[range], text: str, shape: Any, dialect: str
) -> list[tuple[int, int, int]]:
    for k, r in enumerate(ranges):
        if len(r) == 0:
            raise NotExpressible(
                dialect,
                "shape",
                shape,
                f"has size {dims[k]} on axis {k}, where {text} selects no element; {dialect} "
                "windows must be non-empty (and its tensors have no size 0)",
                witness=dims,
            )
    return [_window(r) for r in ranges]


def _in_range(
    dialect: str, name: str, values: list[int], lo: int, hi: int, text: str, dims: Any
) -> None:
    """Each of ``values``, written for the static shape ``dims``, lies in ``[lo, hi]``."""
    for i, v in enumerate(values):
        if not lo <= v <= hi:
            raise NotExpressible(
                dialect,
                f"{name}[{i}]",
                v,
                f"is outside [{lo}, {hi}], the range of {dialect}'s {name}, on shape "
                f"{list(dims)} (writing {text})",
                witness=dims,
            )


def _tensor_sizes(dialect: str, dims: tuple[int, ...], text: str, shape: Any) -> None:
    """The input's sizes fit the dialect's 32-bit unsigned tensor sizes (where an op is written)."""
    if any(d > UINT32_MAX for d in dims):
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"has a size past 2**32 - 1 for {text}; {dialect}'s input tensor sizes are 32-bit "
            "unsigned",
            witness=dims,
        )


def dml_slice_ops(
    dims: tuple[int, ...],
    ranges: Sequence[range],
    out: tuple[int, ...],
    text: str,
    shape: Any,
) -> Ops:
    """SLICE1 and RESHAPE picking the indices ``ranges`` (one per axis) into the shape ``out``."""
    windows = _windows(dims, ranges, text, shape, DML_SLICE)
    offsets, sizes, strides = ([w[j] for w in windows] for j in range(3))
    ops: Ops = []
    if any(w != (0, d, 1) for w, d in zip(windows, dims, strict=True)):
        ops.append(("SLICE1", dict(zip(DML_WINDOW, (offsets, sizes, strides), strict=True))))
    if out != tuple(len(r) for r in ranges):
        ops.append(("RESHAPE", {"sizes": list(out)}))
    if ops:
        _tensor_sizes(DML_SLICE, dims, text, shape)
        for what, rank in (("input", len(dims)), ("output", len(out))):
            if not 1 <= rank <= DML_MAX_RANK:
                raise NotExpressible(
                    DML_SLICE,
                    "shape",
                    shape,
                    f"gives an {what} of rank {rank} for {text}; DirectML tensors have 1 to "
                    f"{DML_MAX_RANK} dimensions (DML_FEATURE_LEVEL_3_0 and later)",
                    witness=dims,
                )
        _in_range(DML_SLICE, "InputWindowOffsets", offsets, 0, UINT32_MAX, text, dims)
        _in_range(DML_SLICE, "InputWindowSizes", sizes, 1, UINT32_MAX, text, dims)
        _in_range(DML_SLICE, "InputWindowStrides", strides, INT32_MIN, INT32_MAX, text, dims)
        _in_range(DML_SLICE, "sizes", list(out), 1, UINT32_MAX, text, dims)
    return ops


def webnn_slice_ops(
    dims: tuple[int, ...],
    ranges: Sequence[range],
    out: tuple[int, ...],
    text: str,
    shape: Any,
) -> Ops:
    """slice, reverse and reshape picking the indices ``ranges`` into the shape ``out``."""
    windows = _windows(dims, ranges, text, shape, WEBNN_SLICE)
    starts, sizes, signed = ([w[j] for w in windows] for j in range(3))
    strides = [abs(t) for t in signed]
    flipped = [k for k, t in enumerate(signed) if t < 0]
    ops: Ops = []
    if any((a, z, t) != (0, d, 1) for a, z, t, d in zip(starts, sizes, strides, dims, strict=True)):
        ops.append(("slice", {"starts": starts, "sizes": sizes, "strides": strides}))
    if flipped:
        ops.append(("reverse", {"axes": flipped}))
    if out != tuple(len(r) for r in ranges):
        ops.append(("reshape", {"newShape": list(out)}))
    if not ops:
        return ops
    _tensor_sizes(WEBNN_SLICE, dims, text, shape)
    _in_range(WEBNN_SLICE, "starts", starts, 0, UINT32_MAX, text, dims)
    _in_range(WEBNN_SLICE, "sizes", sizes, 1, UINT32_MAX, text, dims)
    _in_range(WEBNN_SLICE, "strides", strides, 1, UINT32_MAX, text, dims)
    _in_range(WEBNN_SLICE, "newShape", list(out), 1, UINT32_MAX, text, dims)
    return ops


# -- reading a window ------------------------------------------------------------------------------
def _vectors(
    op: str, names: tuple[str, str, str], offsets: Any, sizes: Any, strides: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    a = as_int_vector(op, names[0], offsets)
    b = as_int_vector(op, names[1], sizes)
    c = (1,) * len(a) if strides is None else as_int_vector(op, names[2], strides)
    others = ((names[1], sizes, b), (names[2], strides, c))
    tail = "; they need the same number of values, one per axis"
    check_lengths(op, names[0], len(a), others, tail)
    unsigned = "must be in [0, 2**32 - 1] (unsigned)"
    check_each(op, names[0], a, lambda v: 0 <= v <= UINT32_MAX, unsigned)
    nonempty = "must be in [1, 2**32 - 1]: windows are non-empty"
    check_each(op, names[1], b, lambda v: 1 <= v <= UINT32_MAX, nonempty)
    return a, b, c


def _bounds(offset: int, size: int, stride: int, n: int) -> Bounds:
    """``start:stop:step`` picking ``n`` elements of the window, from its start or its end."""
    if stride > 0:
        return (offset, offset + (n - 1) * stride + 1, stride)
    first = offset + size - 1
    last = first + (n - 1) * stride
    return (first, last - 1 if last >= 1 else None, stride)


def read_dml_window(offsets: Any, sizes: Any, strides: Any, output_sizes: Any) -> list[Bounds]:
    """A SLICE1 window as ``start:stop:step`` per axis (``Slicing.from_dml``)."""
    op = DML_SLICE
    a, b, c = _vectors(op, DML_WINDOW, offsets, sizes, strides)
    rule = "must be a non-zero 32-bit int (INT)"
    check_each(op, DML_WINDOW[2], c, lambda v: v != 0 and INT32_MIN <= v <= INT32_MAX, rule)
    most = [1 + (z - 1) // abs(t) for z, t in zip(b, c, strict=True)]
    counts = tuple(most)
    if output_sizes is not None:
        counts = as_int_vector(op, "output_sizes", output_sizes)
        given = [("output_sizes", output_sizes, counts)]
        check_lengths(op, "the window", len(a), given, "", unit=("axis", "axes"))
        for i, (n, m) in enumerate(zip(counts, most, strict=True)):
            if not 1 <= n <= m:
                raise ValidationError(
                    op,
                    f"output_sizes[{i}]",
                    n,
                    f"must be in [1, {m}]: 1 <= OutputSizes[i] <= MaxCopiedElements[i] = "
                    f"1 + ({b[i]} - 1) / |{c[i]}|",
                )
    return [_bounds(*w) for w in zip(a, b, c, counts, strict=True)]


def read_webnn_window(starts: Any, sizes: Any, strides: Any) -> list[Bounds]:
    """A WebNN slice as ``start:stop:step`` per axis (``Slicing.from_webnn``)."""
    op = WEBNN_SLICE
    a, b, c = _vectors(op, ("starts", "sizes", "strides"), starts, sizes, strides)
    rule = "must be in [1, 2**32 - 1]; a reversal is a reverse op"
    check_each(op, "strides", c, lambda v: 1 <= v <= UINT32_MAX, rule)
    return [_bounds(x, z, t, 1 + (z - 1) // t) for x, z, t in zip(a, b, c, strict=True)]


# -- splits ----------------------------------------------------------------------------------------
def check_tiling(
    lengths: tuple[int, ...],
    d: int,
    axis: int,
    dialect: str,
    shape: Any,
    value: Any,
    *,
    empty: bool = False,
    where: str | None = None,
) -> None:
    """Parts that tile the axis, at least 1 long unless ``empty``; else NotExpressible (at d).

    ``where`` says where the size ``d`` comes from (by default: the shape has it).
    """
    if where is None:
        where = f"has size {d} on axis {axis}"
    if sum(lengths) != d:
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"{where}, where the indices {list(value)} give overlapping "
            f"parts of lengths {list(lengths)}; {dialect}'s parts tile the axis",
            hint="sort the indices",
            witness=(d,),
        )
    if not empty and 0 in lengths:
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"{where}, where part {lengths.index(0)} of {list(lengths)} "
            f"is empty; {dialect}'s parts are at least 1 long",
            hint="leave the empty parts out of the operator and make them outside it",
            witness=(d,),
        )


def check_part_count(count: int) -> None:
    """WebNN's cap on the number of outputs."""
    if count > WEBNN_MAX_OUTPUTS:
        raise NotExpressible(
            WEBNN_SPLIT,
            "splits",
            count,
            f"gives {count} outputs; WebNN splits into at most {WEBNN_MAX_OUTPUTS} "
            "(its valid tensor count)",
            hint="split in two steps",
        )


def dml_split_call(
    dims: tuple[int, ...], axis: int, lengths: tuple[int, ...], shape: Any
) -> tuple[str, dict[str, Any]]:
    """``("SPLIT", {Axis, InputSizes, OutputSizes})``; ``axis`` counted from the front."""
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


def read_dml_split(axis: Any, output_sizes: Any) -> tuple[int, tuple[int, ...]]:
    """The ``Axis`` and the parts' lengths of a SPLIT's outputs (``Splitting.from_dml``)."""
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
    return ax, tuple(row[ax] for row in rows)


def read_webnn_split(splits: Any, axis: Any) -> tuple[int, int | tuple[int, ...]]:
    """The axis, and a count or the sizes of a WebNN split (``Splitting.from_webnn``)."""
    op = WEBNN_SPLIT
    ax = as_int(op, "axis", axis)
    if ax < 0:
        raise ValidationError(op, "axis", axis, "must be at least 0 (unsigned)")
    if listed(splits):
        sizes = as_int_vector(op, "splits", splits)
        if not sizes:
            raise ValidationError(op, "splits", splits, "is empty")
        check_each(op, "splits", sizes, lambda v: 1 <= v <= UINT32_MAX, "must be in [1, 2**32 - 1]")
        if len(sizes) > WEBNN_MAX_OUTPUTS:
            raise ValidationError(
                op, "splits", f"{len(sizes)} sizes", f"gives more than {WEBNN_MAX_OUTPUTS} outputs"
            )
        return ax, sizes
    n = as_int(op, "splits", splits)
    if not 1 <= n <= WEBNN_MAX_OUTPUTS:
        raise ValidationError(op, "splits", splits, f"must be in [1, {WEBNN_MAX_OUTPUTS}]")
    return ax, n
