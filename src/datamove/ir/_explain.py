"""What each data-movement layer of a model does, as a NumPy expression on its data input ``x``.

`explain_layers` walks a model's Slice, StridedSlice, Split, VariadicSplit, Unsqueeze and
Squeeze layers (each output a basic index of ``x``) and its Concat layers (`concat_parts`: where
each input lands in the output) with the shapes and values `Model.check` infers. With every
index input known, a slice's expression is `numpy_answer`'s, the one text ``datamove explain``
prints for a slice: the index ``datamove convert --to numpy`` writes of its canonical form,
which takes what the operator takes for *every* size the shape allows (``Slicing.to_numpy``),
with the bounds a static size makes redundant left out; where none does, the expression is
``None`` and the note is convert's reason, with its witness. A split's parts on a static shape
are the operator's own plan (`datamove.ir._ops.shape_planner`) written out. An index input
known only at run time is written as a name after the layer that makes it (``x[:, :n]``),
listed in ``runtime``; never guessed; a stop that is its start plus a constant, as the start's
name plus it where that is exact (`linked_stop`: ``x[:, s:s+4]``). A Gather of constant
indices on data is listed too (`gather_expression`): a basic index, a slice where exact, else
``np.take``; one of indices a shape subgraph computes (``x[:, x.shape[1] - 1]`` converted on
dynamic axes) with its indices named so (`computed_gathers`), where they are out of range said
exactly for the axis's own dim (`own_dim_term`: ``x.shape[1] - 1``, ``x.size(1) // 2``), else
by their bounds.
"""

from __future__ import annotations

import contextlib
import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from datamove._concat import concat_shape
from datamove._dialects import NUMPY, WHOLE, Cut, Slicing, addressed, entries_text
from datamove._errors import NotExpressible, ValidationError
from datamove._shape import Dimension, PartialShape, Unknown, largest
from datamove._slice import infer_slice
from datamove._split import infer_split, infer_variadic_split
from datamove._strided_slice import (
    KEEP,
    MASKS,
    NEW,
    NUMPY_MAXDIMS,
    PAST_NUMPY_RANK,
    SHRINK,
    axis_walk,
    checked_params,
)
from datamove._validation import normalize_axis
from datamove.ir._errors import where
from datamove.ir._fold import batch_dims, opset_number
from datamove.ir._offsets import Link, link_of
from datamove.ir._ops import Info, bounds_of, shape_planner
from datamove.ir._sizes import diagonal_shapes

if TYPE_CHECKING:
    from datamove.ir._graph import Graph, Layer
    from datamove.ir._model import Model

__all__ = [
    "EXPLAINED",
    "SLICING",
    "VIEWS",
    "add_algebra",
    "around",
    "at",
    "chunks",
    "clamped_starts",
    "concat_entry",
    "concat_parts",
    "entry",
    "explain_layers",
    "gather_expression",
    "index_expression",
    "layer_slicing",
    "linked_stop",
    "numpy_answer",
    "part_texts",
    "plus_text",
    "runtime_chunks",
    "runtime_name",
    "slice_slicing",
    "split_chunks",
    "tidy",
    "trim",
    "view_expression",
]

SLICING: Final = ("Slice", "StridedSlice", "Split", "VariadicSplit")
VIEWS: Final = ("Unsqueeze", "Squeeze")  # a basic index of the data: x[None], x[:, 0]
# the layer types explain_layers lists (a Gather where its indices are constant or computed)
EXPLAINED: Final = (*SLICING, "Concat", *VIEWS, "Gather")
_INPUTS: Final = {
    "Slice": ("data", "start", "stop", "step", "axes"),
    "StridedSlice": ("data", "begin", "end", "stride"),
    "Split": ("data", "axis"),
    "VariadicSplit": ("data", "axis", "split_lengths"),
    "Unsqueeze": ("data", "axes"),
    "Squeeze": ("data", "axes"),
}
_WIDE: Final = 2**31 - 1  # converters' sentinels (INT32_MAX, INT64_MAX): checked, never assumed

Part = int | str | None  # a slice bound: a number, a run-time name, or omitted


def _part(v: Part) -> str:
    return "" if v is None else str(v)


def _slice_text(s: slice, d: int | None) -> str:
    """``start:stop:step`` with what Python would default left out (``d``: the size, if known)."""
    step = 1 if s.step is None else s.step
    start, stop = s.start, s.stop
    if isinstance(step, int) and step > 0:
        a = None if start == 0 else start
        b = None if isinstance(stop, int) and d is not None and stop >= d else stop
    elif isinstance(step, int):
        a = None if isinstance(start, int) and d is not None and start >= d - 1 else start
        b = stop
    else:
        a, b = start, stop
    text = f"{_part(a)}:{_part(b)}"
    return text if step == 1 else f"{text}:{step}"


def index_expression(index: Sequence[Any], shape: Sequence[int | None], name: str = "x") -> str:
    """Write a NumPy basic index the way a person would: ``x[1:, :, :2]``.

    Bounds may be names of values known only at run time; a size may be ``None`` (unknown).

    Examples
    --------
    >>> index_expression((slice(1, 2, 1), slice(None), slice(0, 2, 1)), (2, 3, 4))
    'x[1:, :, :2]'
    >>> index_expression((None, Ellipsis, 1), (2, 3))
    'x[None, ..., 1]'
    >>> index_expression((Ellipsis,), (2, 3))
    'x[...]'
    >>> index_expression((), (2, 3))  # no item: every axis whole, as x[...] writes it
    'x[...]'
    >>> index_expression((slice(None), slice(0, "n", 1)), (None, None))
    'x[:, :n]'
    """
    index = tuple(index) or (Ellipsis,)  # x[] is no Python
    consumed = sum(1 for i in index if i is not None and i is not Ellipsis)
    axis = 0
    parts: list[str] = []
    for item in index:
        if item is None:
            parts.append("None")
        elif item is Ellipsis:
            parts.append("...")
            axis += len(shape) - consumed
        elif isinstance(item, slice):
            parts.append(_slice_text(item, shape[axis] if axis < len(shape) else None))
            axis += 1
        else:
            parts.append(str(item))
            axis += 1
    return f"{name}[{', '.join(parts)}]"


# -- raw indices: the parameters as written ------------------------------------------------------
Values = list[int] | str  # an index input's values, or the name of its run-time value


def at(v: Values, i: int, length: int | None) -> Part:
    """Element ``i`` of an index input: its number, or ``name[i]`` (``name`` when of length 1)."""
    if isinstance(v, str):
        return v if length == 1 else f"{v}[{i}]"
    return v[i]


def _raw_slice(_layer: Layer, vals: list[Values], lengths: list[int | None], rank: int) -> Any:
    start, stop, step = vals[1:4]
    axes = vals[4] if len(vals) == 5 else None
    if isinstance(axes, str):
        return None
    n = len(axes) if axes is not None else next((x for x in lengths[1:4] if x is not None), None)
    if n is None:
        return None
    # the operator's checks (axes in range, none twice, no more than the rank) or its error
    b, e, s = (Unknown(lengths[j]) if isinstance(v, str) else v for j, v in enumerate(vals[1:4], 1))
    infer_slice(PartialShape([Dimension()] * rank), b, e, s, axes)
    listed = range(n) if axes is None else [a + rank if a < 0 else a for a in axes]
    raw: list[Any] = [slice(None)] * rank
    for k, a in enumerate(listed):
        raw[a] = slice(*(at(v, k, lengths[j + 1]) for j, v in enumerate((start, stop, step))))
    return trim(raw)


def _raw_strided(layer: Layer, vals: list[Values], lengths: list[int | None], rank: int) -> Any:
    begin, end = vals[1], vals[2]
    stride: Values = vals[3] if len(vals) == 4 else []
    n = next((x for x in lengths[1:] if x is not None), None)
    if n is None:
        return None
    p = checked_params(Unknown(n), Unknown(n), None, *(layer.int_list_attr(k) for k in MASKS))
    bmask, emask = p.begin_mask, p.end_mask
    steps = axis_walk(rank, n, p.new_axis_mask, p.shrink_axis_mask, p.ellipsis_mask)
    raw: list[Any] = []
    for kind, _, i in steps:
        if kind == NEW:
            raw.append(None)
        elif kind == KEEP:
            raw.append(slice(None))
        elif kind == SHRINK:
            raw.append(at(begin, i, lengths[1]))
        else:
            s = 1 if stride == [] else at(stride, i, lengths[3])
            b = None if bmask[i] else at(begin, i, lengths[1])
            e = None if emask[i] else at(end, i, lengths[2])
            raw.append(slice(b, e, s))
    return trim(raw)


Least = tuple[float | None, float | None]  # a start's and a step's least values (None: unknown)


def clamped_starts(
    index: Sequence[Any], dims: Sequence[int | None], least: Sequence[Least] | None = None
) -> tuple[Any, ...]:
    """``index`` with each start NumPy would read otherwise than OpenVINO and ONNX held in range.

    With a negative step, a start below ``-d`` (on ``d`` elements, ``d >= 1``) is clamped to
    element 0 by OpenVINO's Slice and StridedSlice and by ONNX (docs/semantics.md, S-1), but
    makes NumPy's slice empty. Where a start may be so (a run-time value, a constant on an axis
    of unknown size) and the step may be negative, it is written ``max(start, -d)``, which NumPy
    reads as they do for every step: ``x[max(n, -x.shape[0])::-1]``. ``least`` gives, for each
    item of ``index``, its start's and step's least values where known (a shape subgraph's
    bounds).

    Examples
    --------
    >>> clamped_starts((slice("n", None, -1),), (None,))
    (slice('max(n, -x.shape[0])', None, -1),)
    >>> clamped_starts((slice(-7, "e", -1), slice(-2, None, -1)), (3, 5))
    (slice(-3, 'e', -1), slice(-2, None, -1))
    >>> clamped_starts((slice("n", None, -1),), (None,), [(0, None)])
    (slice('n', None, -1),)
    """
    out: list[Any] = []
    axis = 0
    for k, item in enumerate(index):
        if item is None or item is Ellipsis:  # no axis of x; an ellipsis never reaches here
            out.append(item)
            continue
        dim = dims[axis] if axis < len(dims) else None
        axis += 1
        if not isinstance(item, slice) or item.start is None:
            out.append(item)
            continue
        start_low, step_low = least[k] if least is not None and k < len(least) else (None, None)
        step = 1 if item.step is None else item.step
        step_low = step if isinstance(step, int) else step_low
        start_low = item.start if isinstance(item.start, int) else start_low
        floor = -max(dim, 1) if dim is not None else -1  # from here up, read alike
        if (step_low is not None and step_low > 0) or (
            start_low is not None and start_low >= floor
        ):
            out.append(item)
            continue
        if dim is not None and isinstance(item.start, int):
            start: Any = -dim
        else:
            start = f"max({item.start}, {-dim if dim is not None else f'-x.shape[{axis - 1}]'})"
        out.append(slice(start, item.stop, item.step))
    return tuple(out)


def trim(raw: list[Any]) -> tuple[Any, ...]:
    """``raw`` without its trailing ``:`` (``...`` where nothing is left)."""
    while raw and raw[-1] == slice(None):
        raw.pop()
    return tuple(raw) if raw else (Ellipsis,)


def tidy(raw: tuple[Any, ...], wide: int = _WIDE) -> tuple[Any, ...]:
    """Bounds far outside any size left out: ``x[1:9223372036854775807]`` is ``x[1:]``."""
    out: list[Any] = []
    for item in raw:
        if isinstance(item, slice) and isinstance(item.step, int):
            a, b, s = item.start, item.stop, item.step
            if s > 0:
                a = None if a == 0 else a
                b = None if isinstance(b, int) and b >= wide else b
            else:
                a = None if isinstance(a, int) and (a >= wide or a == -1) else a
                b = None if isinstance(b, int) and b <= -wide else b
            out.append(slice(a, b, s))
        else:
            out.append(item)
    return tuple(out)


def _takes(index: Sequence[Any], dims: tuple[int, ...]) -> list[Any]:
    """What each axis of ``index`` takes of ``dims`` (a range, an index, a new axis)."""
    consumed = sum(1 for i in index if i is not None and i is not Ellipsis)
    out: list[Any] = []
    axis = 0
    for item in index:
        if item is None:
            out.append("new")
        elif item is Ellipsis:
            for _ in range(len(dims) - consumed):
                out.append(range(dims[axis]))
                axis += 1
        elif isinstance(item, slice):
            out.append(range(dims[axis])[item])
            axis += 1
        else:
            out.append(item + dims[axis] if item < 0 else item)  # in range: the planner ran
            axis += 1
    out += [range(d) for d in dims[axis:]]
    return out


def _every_size(raw: tuple[Any, ...], planner: Any, shape: PartialShape, values: list[int]) -> bool:
    """Whether ``raw`` takes what the operator takes at every size ``shape`` allows."""
    tried = 0
    for dims in diagonal_shapes(shape, values):
        try:
            (want,) = planner(dims)
        except ValidationError:  # the layer fails at this size: any index will do
            continue
        if _takes(raw, dims) != _takes(want, dims):
            return False
        tried += 1
    return tried > 0


# -- the layers ----------------------------------------------------------------------------------
def runtime_name(text: str, default: str) -> str:
    """A Python name for a run-time value, after its maker: letters, digits and ``_``."""
    name = re.sub(r"\W+", "_", text).strip("_") or default
    return f"_{name}" if name[0].isdigit() or name == "x" else name


def entry(
    layer_id: str, layer_type: str, name: str, shape: str, outs: list[Any], split: bool
) -> dict[str, Any]:
    """One layer's explanation, before anything is known: ``numpy`` ``None`` for each output."""
    return {
        "layer_id": layer_id,
        "layer_type": layer_type,
        "name": name,
        "input_shape": shape,
        "output_shapes": [str(s) for s in outs],
        "numpy": [None] * len(outs) if split else None,
        "runtime": {},
        "note": None,
        "values": {},
        "attributes": {},
    }


def linked_stop(
    layer: Layer, vals: list[Values], lengths: list[int | None], links: Mapping[Any, Link]
) -> str | None:
    """A run-time stop written as its start's name plus ``c`` (``s+4``), where that is exact.

    Where the stop is the start plus a constant ``c > 0`` (`datamove.ir._offsets`), both one
    element and read (a StridedSlice's masks 0), the step a known ``k > 0``: the Add wraps where
    ``s + c`` passes INT64_MAX, but the start is past any dim there, and NumPy's ``x[s:s+c:k]``
    (``s`` a Python int) is empty as the slice is. A ``c < 0`` or a negative step is not written
    so: ``s - 2`` wrapping past INT64_MIN is a stop past the end, where NumPy's is before the
    start. Else ``None``: the stop keeps its own name.
    """
    if layer.type not in ("Slice", "StridedSlice") or len(vals) < 3:
        return None
    step = vals[3] if len(vals) > 3 else [1]
    if not (isinstance(vals[1], str) and isinstance(vals[2], str) and isinstance(step, list)):
        return None
    if len(step) != 1 or step[0] <= 0:
        return None
    if lengths[1:3] != [1, 1] or (
        layer.type == "StridedSlice"
        and any(list(layer.int_list_attr(k))[:1] not in ([], [0]) for k in MASKS)
    ):
        return None
    pair = (link_of(links, layer.sources[1]), link_of(links, layer.sources[2]))
    return plus_text(vals[1], pair, step[0])


def plus_text(start: str, links: tuple[Link, Link], step: int | None) -> str | None:
    """``start+c`` where the stop's link is the start's plus ``c > 0`` and ``step > 0``.

    The one rule of `linked_stop` (IR) and an ONNX Slice's (`datamove.ir._onnx_explain`).
    """
    (root, a), (other, b) = links
    c = b - a
    exact = step is not None and step > 0 and root == other and c > 0
    return f"{start}+{c}" if exact else None


def _explain(
    model: Model,
    layer: Layer,
    ins: list[Info],
    outs: list[PartialShape],
    links: Mapping[Any, Link] | None = None,
) -> dict[str, Any]:
    graph = model._graph
    shape = ins[0].shape if ins else PartialShape(None)
    names = _INPUTS[layer.type]
    split = layer.type in ("Split", "VariadicSplit")
    info = entry(layer.id, layer.type, layer.name, str(shape), outs, split)
    if layer.type == "StridedSlice":
        info["attributes"] = {k: list(layer.int_list_attr(k)) for k in MASKS}
    elif layer.type == "Split":
        info["attributes"] = {"num_splits": layer.int_attr("num_splits")}
    vals: list[Values] = [[]]
    lengths: list[int | None] = [None]
    for k, got in enumerate(ins[1:], 1):
        argument = names[k] if k < len(names) else f"input {k}"
        s = got.shape
        lengths.append(
            s[0].get_length() if s.rank == 1 and s[0].is_static else (1 if s.rank == 0 else None)
        )
        if got.value is not None and got.value.dtype.kind in "iu":
            vals.append([int(v) for v in got.value.reshape(-1)])
            info["values"][argument] = vals[-1] if got.value.ndim else vals[-1][0]
            continue
        src = graph.layers[layer.sources[k][0]]
        name = runtime_name(src.name, f"layer{src.id}")
        vals.append(name)
        info["runtime"][name] = f"{argument}: layer {src.id} {src.name!r} ({src.type})"
    stop = linked_stop(layer, vals, lengths, links or {})
    if stop is not None and vals[2] != vals[1]:
        del info["runtime"][vals[2]]
        vals[2] = stop
    rank = shape.rank
    if rank is None and layer.type in VIEWS:
        info["note"] = "the data's rank is unknown"
        return info
    if rank is None and not split:
        # constant parameters: an index every rank takes alike, where one is (x[..., :2]); not
        # where none is or a parameter is one a Slicing does not read
        with contextlib.suppress(ValidationError, KeyError):
            info["numpy"] = None if info["runtime"] else numpy_answer(layer_slicing(info), shape)[0]
        if info["numpy"] is None:
            info["note"] = "the data's rank is unknown"
        return info
    view = layer.type in VIEWS
    known = all(isinstance(v, list) for v in vals[1:])
    planner = (
        shape_planner(layer, [None, *(np.asarray(v, dtype=object) for v in vals[1:])])
        if known
        else None
    )
    if view:
        if planner is None:
            info["note"] = "its axes are known only at run time"
            return info
        ints = [v for vs in vals[1:] if isinstance(vs, list) for v in vs]
        info["numpy"], info["note"] = view_expression(planner, shape, ints)
        return info
    if planner is not None and shape.is_static:
        dims = shape.to_shape()
        try:
            takes = planner(dims)
        except ValidationError as exc:
            info["note"] = str(exc)  # the operator, argument, value and rule
            return info
        if split:
            info["numpy"] = [index_expression(t, dims) for t in takes]
            return info
    if split:
        info["numpy"] = _split_text(layer, vals, lengths, shape)
        if all(t is None for t in info["numpy"]):
            info["note"] = "the axis is known only at run time"
        return info
    assert rank is not None  # a slice's is known (above)
    build = _raw_slice if layer.type == "Slice" else _raw_strided
    raw = build(layer, vals, lengths, rank)
    if raw is None:
        info["note"] = "the axes it slices are known only at run time"
        return info
    dims_or_none = [d.get_length() if d.is_static else None for d in shape.dims]
    if not known:
        info["numpy"] = index_expression(clamped_starts(tidy(raw), dims_or_none), dims_or_none)
        return info
    try:
        info["numpy"], info["note"] = numpy_answer(layer_slicing(info), shape)
    except ValidationError as exc:  # a parameter a Slicing does not read
        info["note"] = str(exc)
    if info["numpy"] is not None and not shape.is_static:
        _below_int32(info, index_expression(tidy(raw), dims_or_none), shape)
    return info


def numpy_answer(slicing: Slicing, shape: PartialShape) -> tuple[str | None, str | None]:
    """The NumPy index taking what ``slicing`` takes on every shape ``shape`` allows, or why none.

    The one writer of every NumPy index ``datamove explain`` prints for a slice: its ``NumPy:``
    line and its ``--as numpy`` entry, of an operator, a NumPy index, a model's layer and an
    ONNX node, on static and dynamic shapes alike. It writes the canonical form
    (``slicing.canonical(shape)``), so that equivalent slicings get one text: on an axis that
    is not static a cut is the canonical form's, the simplest found that takes the same
    elements on every size (``5:7:3`` on ``[?]`` is ``5:6``, ``-1:-100:-1`` on ``[2..10]`` is
    ``::-1``), and an index stays as given (``-1``, the one text for every size). The entries
    are those the form's ``to_numpy(shape)`` writes (``datamove convert --to numpy --shape``:
    exact on every size allowed), but on a static axis, where it writes in-range numbers, a cut
    is written from the elements it takes alone (one text for every equivalent cut): its
    first, its step and the place of the next (``1:5:2`` on 8, where convert writes
    ``1:4:2``), one element or none with step 1 (``0::-1`` of the operator is ``:1``), each
    bound the size makes redundant left out (``7::-1`` on 8 is ``::-1``), and an index as the
    element it takes (``-1`` on 4 is ``3``). On a known rank an ellipsis is the whole axes it
    stands for (``x[..., ::-1]`` on ``[3,4]`` is ``x[:, ::-1]``) and trailing whole axes are
    dropped (``x[1:, :]`` is ``x[1:]``). Where no index is exact, ``(None, reason)`` in
    convert's words on the parameters as given, with its witness.

    Examples
    --------
    >>> numpy_answer(Slicing.from_slice([-100], [-200], [-1]), PartialShape.parse("[1..50]"))
    ('x[:1]', None)
    >>> numpy_answer(Slicing.from_slice([5], [7], [3]), PartialShape.parse("[2..10]"))
    ('x[5:6]', None)
    >>> numpy_answer(Slicing.from_slice([0, 0], [2**63 - 1, -2**63], [1, -1]), PartialShape([4, 6]))
    ('x[:, :1]', None)
    >>> numpy_answer(Slicing.from_numpy("x[-1, -2]"), PartialShape.parse("[?,5]"))
    ('x[-1, 3]', None)
    >>> print(numpy_answer(Slicing.from_numpy("x[-2::-2]", clamping="openvino"),
    ...                    PartialShape.parse("[?]"))[1])  # doctest: +ELLIPSIS
    shape [?] allows sizes 1..1 of axis 0, where -2::-2 selects ... (witness: shape [1])
    """
    if shape.rank is not None and shape.rank > NUMPY_MAXDIMS:
        return None, f"has rank {shape.rank}, {PAST_NUMPY_RANK}"
    form = slicing
    with contextlib.suppress(ValidationError):  # where it cannot run, _cuts below says why
        form = slicing.canonical(shape)
    entries: list[Any] | None = None
    with contextlib.suppress(NotExpressible):
        entries = form._cuts(shape, "NumPy", NUMPY)[1]
    if entries is None:  # the refusal in the numbers as given (or their index, where they have one)
        try:
            entries = slicing._cuts(shape, "NumPy", NUMPY)[1]
        except NotExpressible as exc:
            seen = (
                ""
                if exc.witness is None
                else f" (witness: shape {PartialShape(list(exc.witness))})"
            )
            return None, f"shape {shape} {exc.rule}{seen}"
    if shape.rank is None or not entries:
        return entries_text(entries), None
    if Ellipsis in entries:  # the axes it stands for, spelled out as the canonical form is
        k = entries.index(Ellipsis)
        whole = [WHOLE] * (shape.rank - addressed(entries))
        entries = [*entries[:k], *whole, *entries[k + 1 :]]
    parts: list[str] = []
    axis = 0
    for x in entries:
        short = x
        if x is not None:
            dim = shape.dims[axis]
            axis += 1
            if isinstance(x, Cut) and dim.is_static:  # written from the elements it takes
                r = range(dim.get_length())
                want = r[x.start : x.stop : x.step]
                step = want.step if len(want) > 1 else 1
                start = want[0] if want else 0
                nxt = start + len(want) * step  # where the next one would be: 1:5:2, 6:0:-3
                stop = None if nxt < 0 else nxt
                a = None if r[:stop:step] == want else start  # each bound left out
                short = Cut(a, None if r[a::step] == want else stop, step)
            elif type(x) is int and x < 0 and dim.is_static:  # in range: _cuts checked it
                short = x + dim.get_length()  # x[-1] on 4 is x[3]; on [?] only -1 says it
        parts.append(entries_text([short])[2:-1])  # x[...]'s text of this one entry
    while parts and parts[-1] == ":":  # x[1:, :] is x[1:]
        parts.pop()
    return f"x[{', '.join(parts) or '...'}]", None


def _below_int32(info: dict[str, Any], short: str, shape: PartialShape) -> None:
    """Add ``numpy_below_2**31``, ``short``, where it equals the layer below ``2**31`` only.

    Where ``short`` is not the layer's ``numpy`` but takes what it takes on every size below
    ``2**31`` that ``shape`` allows (``Slicing.equivalent`` decides). A converter's int32
    sentinel (PyTorch's ``x.flip(1)`` is a Slice to ``-2**31``) takes the whole axis only on
    sizes below ``2**31``: ``x[:, :-2147483648:-1]`` is ``x[:, ::-1]`` there.
    """
    if short == info["numpy"] or any(d.min > _WIDE for d in shape.dims):
        return
    below = PartialShape([Dimension(d.min, min(_WIDE, largest(d))) for d in shape.dims])
    with contextlib.suppress(ValidationError, KeyError):  # a parameter a Slicing does not read
        s = layer_slicing(info)
        if s.equivalent(short, below) and not s.equivalent(short, shape):  # not on every size
            info["numpy_below_2**31"] = short


def view_expression(
    planner: Any, shape: PartialShape, axes: list[int]
) -> tuple[str | None, str | None]:
    """An Unsqueeze's or Squeeze's index on ``shape`` (of known rank), or a note saying why none.

    ``planner`` is the layer's `shape_planner`, with its constant ``axes``. On a dynamic shape,
    one index at every size, where one is: found at one size, checked at the others. The one
    writer of a view's index, for an IR's layers and an ONNX model's nodes.
    """
    dims_or_none = [d.get_length() if d.is_static else None for d in shape.dims]
    if shape.is_static:
        try:
            (takes,) = planner(shape.to_shape())
        except ValidationError as exc:
            return None, str(exc)  # the operator, argument, value and rule
        return index_expression(_view_index(takes), dims_or_none), None
    for dims in diagonal_shapes(shape, axes):
        with contextlib.suppress(ValidationError):  # a size it refuses: try the next
            (candidate,) = planner(dims)
            if _every_size(candidate, planner, shape, axes):
                return index_expression(_view_index(candidate), dims_or_none), None
            break
    return None, f"which dims it drops depends on the sizes {shape} allows"


def _view_index(index: tuple[Any, ...]) -> tuple[Any, ...]:
    """An Unsqueeze's or Squeeze's index as a person writes it: ``x[None]``, ``x[:, 0]``.

    Its trailing ``...`` (which keeps a 0-d result an array) is left out, and so are the
    ``:`` before it, but where every dim is dropped (``x[0, ...]``, a 0-d array, not a scalar).
    """
    items = list(index[:-1] if index and index[-1] is Ellipsis else index)
    if items and all(type(i) is int for i in items):
        return index
    return trim(items)


def gather_expression(
    indices: Any, axis: int, shape: PartialShape, *, version: int | None = None
) -> tuple[str | None, str | None, str | None]:
    """A Gather of constant ``indices`` on ``axis`` of ``shape`` as NumPy: text, note, range.

    The one writer of a Gather's expression, for an IR's layers and an ONNX model's nodes. A
    scalar index is the basic index ``x[:, i]``, written as `numpy_answer` writes a shrunk index
    (the position it takes on a static axis: ``x[:, 3]`` for ``-1`` on 4; as given on a
    dynamic one). A 1-D index of an arithmetic progression is the slice taking those elements
    where that is exact: on a static axis; on a dynamic one where every index is in range of
    every size and of one sign (``x[:, 1:3]``, ``x[..., -2:]``). Any other is
    ``np.take(x, [...], axis=a)``, which, as a Gather, copies and raises on an index out of
    range. The third item, for an IR's Gather (``version``: its opset), says where an index is
    out of range of a size the shape allows: there Gather-8 gives zeros (Gather-1 and -7 leave
    it undefined), where NumPy raises; on a static axis that is the note, with no text. ONNX's
    Gather (``version`` ``None``) refuses an index out of range, as NumPy does.

    Examples
    --------
    >>> gather_expression(np.array(-1), 1, PartialShape([2, 4]))
    ('x[:, 3]', None, None)
    >>> gather_expression(np.array([0, 2]), -1, PartialShape.parse("[?,5]"))
    ('x[:, :4:2]', None, None)
    >>> gather_expression(np.array([2, 0]), 0, PartialShape.parse("[?]"))
    ('np.take(x, [2, 0], axis=0)', None, None)
    >>> gather_expression(np.array(-1), 1, PartialShape.parse("[?,?]"), version=8)[::2]
    ('x[:, -1]', 'index -1 is out of range of x.shape[1] of size 0: Gather-8 gives zeros there')
    """
    rank = shape.rank
    if rank is None:
        return None, "the data's rank is unknown", None
    a = normalize_axis("Gather", "axis", axis, axis, rank)
    dim = shape.dims[a]
    flat = [int(v) for v in np.asarray(indices).reshape(-1)]
    if version is not None and version < 8 and any(i < 0 for i in flat):
        why = (
            f"Gather-{version} leaves a negative index undefined (Gather-8 counts it from the end)"
        )
        return None, why, None
    out_of_range = None
    # the index out of range of the most sizes: i of sizes up to i, -i of sizes below i
    worst = max(flat, key=lambda i: i + 1 if i >= 0 else -i, default=None)
    below = 0 if worst is None else worst + 1 if worst >= 0 else -worst
    if below > dim.min:
        top = min(below - 1, largest(dim))
        sizes = f"size {dim.min}" if top == dim.min else f"sizes {dim.min}..{top}"
        said = f"index {worst} is out of range of x.shape[{a}] of {sizes}"
        gives = "the Gather fails there, as NumPy does"
        if version is not None:
            gives = f"Gather-{version} " + (
                "gives zeros there" if version >= 8 else "leaves the output undefined there"
            )
        if dim.is_static:
            return None, f"{said}: {gives}", None
        out_of_range = f"{said}: {gives}" if version is not None else None
    dims = [d.get_length() if d.is_static else None for d in shape.dims]
    lead: list[Any] = [slice(None)] * a
    if np.ndim(indices) == 0:
        (i,) = flat
        pos = i + dim.get_length() if i < 0 and dim.is_static else i
        return index_expression(trim([*lead, pos]), dims), None, out_of_range
    in_range = below <= dim.min  # a slice clamps where a Gather does not: in range only
    cut = _progression(flat, dim) if np.ndim(indices) == 1 and in_range else None
    if cut is not None:
        return index_expression(trim([*lead, cut]), dims), None, out_of_range
    return f"np.take(x, {np.asarray(indices).tolist()}, axis={a})", None, out_of_range


def _computed_gather(
    name: str,
    indices: Info,
    axis: int,
    shape: PartialShape,
    version: int,
    own: tuple[int, int] | None,
) -> tuple[str | None, str | None, str | None]:
    """A Gather of indices ``name`` a shape subgraph computes, as NumPy: text, note, range.

    A scalar is the basic index ``x[:, name]``, a 1-D index ``np.take(x, name, axis=a)``;
    NumPy counts a negative index from the end, as Gather-8 does. An index of the axis's own
    dim ``d // m + c`` (``own``: `own_dim_term`; ``x.shape[1] - 1``, ``x.size(1) // 2``) is
    in range exactly of the sizes from `_out_of_range_below`'s: the range line names those
    below it, and one of no such size (``x.shape[1] + c``, ``c`` 0 or more) is a note, no
    text. Else, where the indices'
    bounds do not put every index in range of every size of the axis, the range line says an
    index may be out of range there. There Gather-8 gives zeros, NumPy raises. A Gather-1 or
    -7 of an index that may be negative (undefined) has a note, no text.
    """
    rank = shape.rank
    if rank is None:
        return None, "the data's rank is unknown", None
    a = normalize_axis("Gather", "axis", axis, axis, rank)
    bounds = bounds_of(indices)
    assert bounds is not None  # (computed_gathers)
    low, high = (int(np.min(b)) if k == 0 else int(np.max(b)) for k, b in enumerate(bounds))
    within = f"{low}..{high}" if high < np.iinfo(np.int64).max else f"{low}.."
    if version < 8 and low < 0:
        why = f"Gather-{version} leaves a negative index undefined"
        return None, f"{name} is within {within}: {why} (Gather-8 counts it from the end)", None
    dim = shape.dims[a]
    wide = None
    gives = "gives zeros there" if version >= 8 else "leaves the output undefined there"
    scalar = indices.shape.rank == 0
    text = f"x[{', '.join([':'] * a + [name])}]" if scalar else f"np.take(x, {name}, axis={a})"
    if own is not None:
        m, c = own
        term = f"x.shape[{a}]" + (f"//{m}" if m > 1 else "") + (f"{c:+d}" if c else "")
        least = _out_of_range_below(m, c)
        if least is None:
            return (
                None,
                (
                    f"{name} is {term}, out of range of x.shape[{a}] of every size: "
                    f"Gather-{version} {gives}"
                ),
                None,
            )
        top = min(least - 1, largest(dim))
        if top >= dim.min:
            sizes = f"size {top}" if top == dim.min else f"sizes {dim.min}..{top}"
            wide = (
                f"{name} is {term}, out of range of x.shape[{a}] of {sizes}: "
                f"Gather-{version} {gives}"
            )
        return text, None, wide
    top = min(max(high, -low - 1), largest(dim))  # a size d may not hold it: d <= this
    if top >= dim.min:
        sizes = f"size {top}" if top == dim.min else f"sizes {dim.min}..{top}"
        sizes = f"sizes {dim.min}.." if top >= largest(Dimension(0, None)) else sizes
        wide = (
            f"{name} is within {within}, which may be out of range of x.shape[{a}] of "
            f"{sizes}: Gather-{version} {gives}"
        )
    return text, None, wide


# layers that pass a one-element value on as it is
_PASSED: Final = ("Convert", "Unsqueeze", "Squeeze", "Reshape")


def _one(info: Info) -> int | None:
    """A port's one integer, where its value is known and of one element."""
    value = info.value
    return int(value.reshape(-1)[0]) if value is not None and value.size == 1 else None


def own_dim_term(
    graph: Graph, infos: Mapping[tuple[int, int], Info], layer: Layer, axis: int
) -> tuple[int, int] | None:
    """``(m, c)`` where a Gather's one index is its data's own dim on ``axis``, ``d // m + c``.

    ``x.shape[1] - 1`` and ``x.size(1) // 2`` as ``convert_model`` makes them:
    ``Gather(ShapeOf(x), 1, 0)``, an integer Divide by a constant ``m`` of 1 or more (a Floor
    of integers after it), then Add or Subtract of constants, through layers that pass one
    element on (Convert, Unsqueeze, Squeeze, Reshape). ``None`` otherwise, and for a constant
    past ``2**20`` (`_out_of_range_below` counts sizes up to it).
    """
    data, port, m, c = layer.sources[0], layer.sources[1], 1, 0
    for _ in range(len(graph.layers)):  # a chain back, never a loop
        src = graph.layers[port[0]]
        ins = [infos[s] for s in src.sources]
        integer = bool(ins) and ins[0].etype is not None and ins[0].etype.dtype.kind in "iu"
        if (src.type in _PASSED or (src.type == "Floor" and integer)) and ins:
            port = src.sources[0]
        elif src.type in ("Add", "Subtract") and len(ins) == 2 and m == 1:
            k = 1 if _one(ins[1]) is not None else 0 if src.type == "Add" else None
            value = None if k is None else _one(ins[k])
            if k is None or value is None:
                return None
            c += value if src.type == "Add" else -value
            port = src.sources[1 - k]
        elif src.type == "Divide" and len(ins) == 2 and integer and m == 1:
            m = _one(ins[1]) or 0
            if m < 1:
                return None
            port = src.sources[0]
        else:
            rank = infos[data].shape.rank
            if src.type != "Gather" or len(ins) != 3 or rank is None or abs(c) > 2**20:
                return None
            shape_of = graph.layers[src.sources[0][0]]
            k = _one(ins[1])
            if shape_of.type != "ShapeOf" or shape_of.sources[:1] != [data] or _one(ins[2]) != 0:
                return None
            if k is None or batch_dims(src) != 0 or not -rank <= k < rank or k % rank != axis:
                return None
            return m, c
    return None


def _out_of_range_below(m: int, c: int) -> int | None:
    """The least size ``d`` of which ``d // m + c`` is in range, ``None`` where no size has it.

    In range: ``-d`` to ``d - 1``; so of every size past it too (both ends grow with ``d``).
    """
    if m == 1 and c >= 0:
        return None
    return next(d for d in range(2 * abs(c) + 3) if -d <= d // m + c <= d - 1)


def _progression(flat: list[int], dim: Dimension) -> slice | None:
    """The slice taking the elements ``flat`` indexes, in order, on every size of ``dim``.

    Every index is in range of every size ``dim`` allows (the caller checked).
    """
    if not flat:
        return slice(0, 0, 1)
    if dim.is_static:
        d = dim.get_length()
        flat = [i + d if i < 0 else i for i in flat]
    elif not (all(i >= 0 for i in flat) or all(i < 0 for i in flat)):
        return None  # of both signs: their order depends on the size
    step = flat[1] - flat[0] if len(flat) > 1 else 1
    if step == 0 or any(c - b != step for b, c in itertools.pairwise(flat)):
        return None
    stop: int | None = flat[-1] + step
    if (flat[0] >= 0 and stop is not None and stop < 0) or (flat[0] < 0 and stop == 0):
        stop = None  # past the first element (x[2::-1]), or to the end (x[-2:])
    cut = slice(flat[0], stop, step)
    for d in {dim.min, dim.min + 1, dim.min + 7, largest(dim) if dim.max is not None else 0}:
        if d > 0 and list(range(d)[cut]) != [i + d if i < 0 else i for i in flat]:
            return None
    return cut


def concat_parts(
    shapes: Sequence[PartialShape], axis: int, argument: str = "shapes"
) -> dict[str, Any]:
    """A Concat of inputs ``x0``, ``x1``... of ``shapes`` along ``axis``, as NumPy.

    ``output_shape``; ``numpy``, the ``np.concatenate`` call; ``parts``, where each input lands
    in the output ``out`` (``out[:, 2:5]``), written with ``xk.shape[axis]`` where an input's
    size there is not static; and where every one is, ``lengths`` and ``inverse``, the
    VariadicSplit that takes them back out. The one writer of a Concat's parts, for
    ``datamove explain concat`` and a model's Concat layers; its errors name ``argument``
    (``shapes``; a layer's ``inputs``).

    Examples
    --------
    >>> info = concat_parts([PartialShape([2, 3]), PartialShape.parse("[2,?]")], -1)
    >>> info["numpy"], info["parts"]
    ('np.concatenate([x0, x1], axis=1)', ['out[:, :3]', 'out[:, 3:]'])
    >>> concat_parts([PartialShape.parse("[?]"), PartialShape([2]), PartialShape([1])], 0)["parts"]
    ['out[:x0.shape[0]]', 'out[x0.shape[0]:2+x0.shape[0]]', 'out[2+x0.shape[0]:]']
    """
    out = concat_shape(list(shapes), axis, argument)  # its errors name argument
    n = len(shapes)
    info: dict[str, Any] = {
        "output_shape": str(out),
        "numpy": None,
        "parts": [None] * n,
        "lengths": None,
        "inverse": None,
    }
    if out.rank is None:
        return info
    a = axis + out.rank if axis < 0 else axis
    info["numpy"] = f"np.concatenate([{', '.join(f'x{k}' for k in range(n))}], axis={a})"
    sizes = [s[a] if s.rank is not None else Dimension() for s in shapes]
    if all(d.is_static for d in sizes):
        info["lengths"] = [d.get_length() for d in sizes]
        info["parts"] = part_texts(a, info["lengths"], "out")
        info["inverse"] = f"dm.variadic_split(out, {a}, {info['lengths']})"
        return info
    cuts = []  # after the first k inputs: their static sizes summed, the others by their shape
    for k in range(1, n):
        known = sum(d.get_length() for d in sizes[:k] if d.is_static)
        terms = [f"x{j}.shape[{a}]" for j in range(k) if not sizes[j].is_static]
        cuts.append("+".join(([str(known)] if known else []) + terms))
    prefix, suffix = around(a)
    info["parts"] = chunks("out" + prefix.removeprefix("x"), cuts, suffix)
    return info


def concat_entry(
    layer_id: str,
    name: str,
    shapes: Sequence[PartialShape],
    axis: int,
    sources: list[str],
    outs: list[Any],
) -> dict[str, Any]:
    """A Concat's entry: its inputs' ``shapes``, where they come from, and `concat_parts`.

    The one writer of a model's Concat entry, for an IR's layers and an ONNX model's nodes.
    """
    info = entry(layer_id, "Concat", name, "", outs, False)
    info["input_shape"] = None  # it has several: input_shapes
    info["input_shapes"] = [str(s) for s in shapes]
    info["attributes"] = {"axis": axis}
    info["sources"] = sources
    parts = concat_parts(shapes, axis, "inputs")
    parts.pop("output_shape")
    info.update(parts)
    return info


def _explain_concat(model: Model, layer: Layer, ins: list[Info], outs: list[Any]) -> dict[str, Any]:
    """A Concat layer: `concat_entry`, each input named by the port it comes from."""
    graph = model._graph
    sources = [
        where(src.id, src.name, src.type, src.outputs[k].id if k < len(src.outputs) else None)
        for src, k in ((graph.layers[j], k) for j, k in layer.sources)
    ]
    shapes = [i.shape for i in ins]
    return concat_entry(layer.id, layer.name, shapes, layer.int_attr("axis"), sources, outs)


def _split_text(
    layer: Layer, vals: list[Values], lengths: list[int | None], shape: PartialShape
) -> list[str | None]:
    """Each chunk of a split on a dynamic shape, with a dynamic axis written ``x.shape[a]``.

    On a static axis (the other dims dynamic) the chunks are known, and written as on a static
    shape: ``x[:, 2:4]``. On a data of unknown rank the index does not depend on the rank
    (`around`): ``x[:2]`` on axis 0, ``x[..., :2]`` on axis -1.
    """
    count = len(layer.outputs)
    axis = vals[1]
    if isinstance(axis, str) or len(axis) != 1:
        return [None] * count
    rank = shape.rank
    a = axis[0] + rank if axis[0] < 0 and rank is not None else axis[0]
    dim = shape.dims[a] if rank is not None and 0 <= a < rank else None
    lens = vals[2] if layer.type == "VariadicSplit" else None
    if dim is not None and dim.is_static and not isinstance(lens, str):
        if lens is None:
            parts = infer_split(shape, a, layer.int_attr("num_splits"))
        else:
            parts = infer_variadic_split(shape, a, lens)
        return list(part_texts(a, [p[a].get_length() for p in parts]))
    if isinstance(lens, str):
        return runtime_chunks(lens, lengths[2] or count, a)
    if layer.type == "Split":
        return split_chunks(a, num_splits=layer.int_attr("num_splits"))
    assert lens is not None  # a VariadicSplit's
    return split_chunks(a, lengths=lens)


def part_texts(axis: int, lengths: Sequence[int], name: str = "x") -> list[str]:
    """Each part of ``name`` cut along ``axis`` (from the front) into ``lengths``, shortest.

    The axis's size is the lengths' sum: the first part is written from the start, the last
    to the end. `datamove explain` (split, variadic-split, concat) and a model's Split and
    VariadicSplit on a static axis write their parts with it.

    Examples
    --------
    >>> part_texts(1, [2, 2, 2])
    ['x[:, :2]', 'x[:, 2:4]', 'x[:, 4:]']
    >>> part_texts(0, [3, 1], "out")
    ['out[:3]', 'out[3:]']
    """
    shape = [None] * axis + [sum(lengths)]
    cuts = itertools.accumulate(lengths, initial=0)
    return [
        index_expression((*[slice(None)] * axis, slice(lo, hi, 1)), shape, name)
        for lo, hi in itertools.pairwise(cuts)
    ]


def split_chunks(
    axis: int,
    *,
    num_splits: int | None = None,
    lengths: Sequence[int] | None = None,
    ceil: bool = False,
) -> list[str | None]:
    """Each part of a Split (``num_splits``) or VariadicSplit (``lengths``) on any size.

    The axis's size is written ``x.shape[axis]`` where a part's bounds need it; ``axis`` as
    `around` takes it (from the back on a data of unknown rank). Each index takes the part the
    operator gives at every size it splits. ``ceil``: parts of ``ceil(size / num_splits)``, the
    last one shorter (ONNX Split-18's ``num_outputs``), written ``-(-x.shape[axis]//n)``. The one
    writer of a split's parts on a dynamic axis, for `datamove explain`, IR and ONNX models.

    Examples
    --------
    >>> split_chunks(1, num_splits=3)
    ['x[:, :x.shape[1]//3]', 'x[:, x.shape[1]//3:x.shape[1]//3*2]', 'x[:, x.shape[1]//3*2:]']
    >>> split_chunks(0, num_splits=3, ceil=True)[1]
    'x[-(-x.shape[0]//3):-(-x.shape[0]//3)*2]'
    >>> split_chunks(-1, lengths=[2, -1, 1])
    ['x[..., :2]', 'x[..., 2:-1]', 'x[..., -1:]']
    >>> split_chunks(-1, lengths=[2, 4])
    ['x[..., :2]', 'x[..., 2:]']
    """
    size = f"x.shape[{axis}]"
    prefix, suffix = around(axis)
    if lengths is None:
        assert num_splits is not None
        n = num_splits
        # Unary minus binds before // and *: -(-a//n)*k is ceil(a / n) * k, no parentheses.
        part = f"-(-{size}//{n})" if ceil else f"{size}//{n}"
        return chunks(prefix, [part if k == 1 else f"{part}*{k}" for k in range(1, n)], suffix)
    lens = list(lengths)
    if -1 not in lens:  # the lengths sum to the size: the last part runs to the end
        return chunks(prefix, [str(c) for c in itertools.accumulate(lens[:-1])], suffix)
    rest = lens.index(-1)
    texts: list[str | None] = []
    for k in range(len(lens)):
        after = sum(lens[k + 1 :])
        if k <= rest:
            lo = str(sum(lens[:k]) or "")
        else:
            lo = f"-{sum(lens[k:])}" if sum(lens[k:]) else size
        hi = str(sum(lens[: k + 1])) if k < rest else (f"-{after}" if after else "")
        texts.append(f"{prefix}{lo}:{hi}{suffix}")
    return texts


def runtime_chunks(
    name: str, count: int, axis: int, written: Sequence[str] | None = None
) -> list[str | None]:
    """``count`` parts of lengths known at run time, the values of ``name``: cut at their sums.

    Each length is written ``name[k]`` (``name`` alone for one), or as its expression where
    ``written`` has one per part (``x.shape[1]//2``); ``axis`` as `around` takes it.
    """
    lengths = [name if count == 1 else f"{name}[{k}]" for k in range(count)]
    if written is not None and len(written) == count:
        lengths = list(written)
    prefix, suffix = around(axis)
    return chunks(prefix, ["+".join(lengths[: k + 1]) for k in range(count - 1)], suffix)


def around(axis: int) -> tuple[str, str]:
    """What an index on ``x`` writes before and after the slice of one axis.

    ``axis`` counts from the front (``x[:, `` and ``]`` for axis 1), or, on a data of unknown
    rank, from the back (``x[..., `` and ``, :]`` for axis -2): either index takes the same axis
    at every rank the axis is in range for.
    """
    if axis >= 0:
        return "x[" + ":, " * axis, "]"
    return "x[..., ", ", :" * (-axis - 1) + "]"


def chunks(prefix: str, cuts: list[str], suffix: str = "]") -> list[str | None]:
    """Each chunk's expression, between consecutive ``cuts`` (``prefix``, ``suffix``: `around`)."""
    ends = ["", *cuts, ""]
    return [f"{prefix}{ends[k]}:{ends[k + 1]}{suffix}" for k in range(len(cuts) + 1)]


def layer_slicing(info: dict[str, Any]) -> Slicing:
    """A Slice's or StridedSlice's constant parameters (``info``'s) as a `Slicing`.

    The one reader of a layer's explained values, for its NumPy index, its algebra line and its
    ``--as``.
    """
    values = info["values"]
    if info["layer_type"] == "Slice":
        v, shape = values, PartialShape.parse(info["input_shape"])
        return slice_slicing(v["start"], v["stop"], v["step"], v.get("axes"), shape)
    return Slicing.from_strided_slice(
        values["begin"], values["end"], values.get("stride"), **info["attributes"]
    )


def slice_slicing(
    start: Sequence[int],
    stop: Sequence[int],
    step: Sequence[int],
    axes: Sequence[int] | None,
    shape: PartialShape,
) -> Slicing:
    """A Slice-8 of these parameters on ``shape`` as a `Slicing`, for `datamove explain`.

    Its axes are counted from the front where the rank is known (``[0, -1]`` on rank 3 is
    ``x[a, :, b]``, not ``x[a, ..., b]``; ``[0, -2, 2]`` needs the rank): `Slicing.from_slice`'s
    ``rank``.
    """
    return Slicing.from_slice(start, stop, step, axes, rank=shape.rank)


def add_algebra(info: dict[str, Any], slicing: Callable[[], Slicing], shape: PartialShape) -> None:
    """Add ``algebra``, ``identity: ...`` or ``empty: ...``, where ``slicing()`` is so on ``shape``.

    As ``Slicing.is_identity`` and ``is_empty`` prove it; no line otherwise, nor where the
    parameters are none a `Slicing` reads. The one writer of the line, for `datamove explain`
    of an operator and of a model's layer.

    Examples
    --------
    >>> info = {}
    >>> add_algebra(info, lambda: Slicing.from_numpy("x[:5]"), PartialShape.parse("[..5]"))
    >>> info["algebra"]
    'identity: the output is x unchanged on every shape [..5] allows'
    """
    where = "" if shape.is_static else f" on every shape {shape} allows"
    with contextlib.suppress(ValidationError, KeyError):  # a parameter a Slicing does not read
        s = slicing()
        if s.is_identity(shape):
            info["algebra"] = f"identity: the output is x unchanged{where}"
        elif s.is_empty(shape):
            info["algebra"] = f"empty: the output has no element{where}"


def _algebra(info: dict[str, Any]) -> None:
    """Add ``algebra`` to a slice with constant parameters that is the identity or empty."""
    if not info["runtime"] and info["layer_type"] in ("Slice", "StridedSlice"):
        add_algebra(info, lambda: layer_slicing(info), PartialShape.parse(info["input_shape"]))


def outs_of(infos: Mapping[Any, Info], idx: int, layer: Layer) -> list[PartialShape]:
    """The shapes of ``layer``'s outputs, as check infers them."""
    return [infos[(idx, k)].shape for k in range(len(layer.outputs))]


def gathers(ins: Sequence[Info]) -> bool:
    """Whether a Gather's inputs are data and constant integer indices: a Gather explain lists."""
    indices = ins[1].value if len(ins) > 1 else None
    return (
        indices is not None
        and indices.dtype.kind in "iu"
        and ins[0].value is None
        and bounds_of(ins[0]) is None
    )


def computed_gathers(ins: Sequence[Info]) -> bool:
    """Whether a Gather's inputs are data and indices a shape subgraph computes: explain lists it.

    The indices bounded (every path back from them ends at a ShapeOf or a Const: `bounds_of`)
    but not known, a scalar or 1-D of a static length: ``x[:, x.shape[1] - 1]`` on ``[?,?]``.
    """
    indices = ins[1] if len(ins) > 1 else None
    return (
        indices is not None
        and indices.value is None
        and bounds_of(indices) is not None
        and indices.shape.rank in (0, 1)
        and indices.shape.is_static
        and ins[0].value is None
        and bounds_of(ins[0]) is None
    )


def unlisted(kind: str, ins: Sequence[Info], out: Info | None) -> str | None:
    """Why explain lists no entry for a layer of ``kind``, as ``--layer``'s error says it.

    Of these inputs and first output: a Concat, Unsqueeze, Squeeze or Gather of a shape
    subgraph's values, or a Gather whose indices are computed at run time (the IR's and ONNX's
    alike). ``None`` where it would list one, or where the reason is not one of these.
    """
    shapes = "of a shape subgraph's values: it moves no data, and explain lists data's moves"
    if kind in ("Concat", *VIEWS) and out is not None and bounds_of(out) is not None:
        return shapes
    if kind != "Gather" or len(ins) < 2:  # (an IR's third input: its axis)
        return None
    if ins[0].value is not None or bounds_of(ins[0]) is not None:
        return shapes
    if ins[1].value is None:
        return (
            "whose indices are computed at run time: there is no NumPy index to print (explain "
            "lists a Gather of constant indices)"
        )
    return None


def _explain_gather(
    model: Model, layer: Layer, infos: Mapping[tuple[int, int], Info], outs: list[PartialShape]
) -> dict[str, Any]:
    """A Gather layer of constant (`gather_expression`) or computed indices, ``batch_dims`` 0.

    Computed indices (`computed_gathers`) are named after the layer that makes them, as a
    slice's run-time bound is (`_computed_gather`). One of ``batch_dims`` not 0 (Gather-7, -8)
    takes a different element per batch: no NumPy index, a note. Its range line
    (``out_of_range``) says where Gather-8 gives zeros.
    """
    ins = [infos[s] for s in layer.sources]
    shape = ins[0].shape
    info = entry(layer.id, "Gather", layer.name, str(shape), outs, False)
    indices = ins[1].value
    name = None
    if indices is not None:
        info["values"]["indices"] = indices.tolist()
    else:  # (computed_gathers)
        src = model._graph.layers[layer.sources[1][0]]
        name = runtime_name(src.name, f"layer{src.id}")
        info["runtime"][name] = f"indices: layer {src.id} {src.name!r} ({src.type})"
    given = ins[2].value if len(ins) > 2 else None
    batch = batch_dims(layer)
    info["attributes"]["batch_dims"] = batch
    if given is None or given.size != 1 or given.dtype.kind not in "iu":
        info["note"] = "its axis is known only at run time"
        return info
    axis = info["values"]["axis"] = int(given.reshape(-1)[0])
    if batch != 0:
        info["note"] = (
            f"batch_dims={batch} takes the indices of each batch from that batch: "
            "no NumPy basic index (np.take_along_axis's, broadcast)"
        )
        return info
    try:
        n = opset_number(layer)  # opset8 and later hold Gather-8; opset7 Gather-7
        version = 8 if n >= 8 else 7 if n == 7 else 1
        if name is not None:
            a = normalize_axis("Gather", "axis", axis, axis, shape.rank) if shape.rank else None
            own = None if a is None else own_dim_term(model._graph, infos, layer, a)
            text, note, wide = _computed_gather(name, ins[1], axis, shape, version, own)
        else:
            text, note, wide = gather_expression(indices, axis, shape, version=version)
    except ValidationError as exc:  # an axis out of range: check() reports it
        info["note"] = str(exc)
        return info
    info["numpy"], info["note"] = text, note
    if wide is not None:
        info["out_of_range"] = wide
    return info


def explain_layers(
    model: Model, layer: str | None = None, overrides: Mapping[int, PartialShape] | None = None
) -> list[dict[str, Any]]:
    """Each layer of ``model`` of a type in `EXPLAINED`: id, name, shapes, NumPy expression(s).

    A Concat's entry has ``input_shapes`` (``input_shape`` is ``None``), ``sources`` (the
    port each input comes from) and `concat_parts`' keys. A Concat, Unsqueeze or Squeeze whose
    values check computes (a shape subgraph's: split lengths, a Reshape's target shape) is left
    out: it moves no data.

    ``layer`` picks one by id or name; ``ValidationError`` if none matches. ``overrides``:
    new shapes of Parameters (by layer index), as `Model.check` infers with them.
    """
    graph = model._graph
    links: dict[Any, Link] = {}
    infos, problems, _ = model._infer(overrides or {}, compare=False, offsets=links)
    refused = {p.layer_id: p.message for p in reversed(problems) if p.kind == "operator"}
    found = []
    for idx in graph.order:
        node = graph.layers[idx]
        if node.type not in EXPLAINED or (layer is not None and layer not in (node.id, node.name)):
            continue
        if node.type in ("Concat", *VIEWS, "Gather") and bounds_of(infos[(idx, 0)]) is not None:
            continue  # a shape subgraph's (split lengths, a Reshape's shape): no data moved
        ins = [infos[s] for s in node.sources]
        if node.type == "Gather":
            if gathers(ins) or computed_gathers(ins):
                found.append(_explain_gather(model, node, infos, outs_of(infos, idx, node)))
            continue
        outs = outs_of(infos, idx, node)
        # a constant index input not of integers (f32 [1.0]) is not one known at run time:
        # the note is check's rule (its element type, or the operator's on its floats)
        floats = any(i.value is not None and i.value.dtype.kind not in "iu" for i in ins[1:])
        note = refused.get(node.id) if floats else None
        try:
            if note is None:
                if node.type == "Concat":
                    found.append(_explain_concat(model, node, ins, outs))
                else:
                    found.append(_explain(model, node, ins, outs, links))
                _algebra(found[-1])
                continue
        except ValidationError as exc:  # a broken attribute: check() reports it
            note = str(exc)
        shape = str(ins[0].shape) if ins else "[...]"
        found.append(entry(node.id, node.type, node.name, shape, outs, node.type in SLICING[2:]))
        found[-1]["note"] = note
        if node.type == "Concat":
            found[-1].update(input_shape=None, input_shapes=[str(i.shape) for i in ins])
    if layer is not None and not found:
        other = next((x for x in graph.layers if layer in (x.id, x.name)), None)
        what = (
            "" if other is None else f" (it names layer {other.id} {other.name!r}, a {other.type})"
        )
        rule = (
            f"names no {', '.join(EXPLAINED[:-1])} or {EXPLAINED[-1]} layer of the model (by id "
            f"or name){what}"
        )
        why = None
        if other is not None:
            idx = graph.layers.index(other)
            out = infos.get((idx, 0)) if other.outputs else None
            why = unlisted(other.type, [infos[s] for s in other.sources], out)
        if other is not None and why is not None:
            rule = f"names layer {other.id} {other.name!r}, a {other.type} {why}"
        raise ValidationError(
            "explain",
            "--layer",
            layer,
            rule,
            hint="datamove explain MODEL lists the layers it explains, with their ids",
        )
    return found
