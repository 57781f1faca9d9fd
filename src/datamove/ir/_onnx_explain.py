"""ONNX nodes explained: each node `ONNXModel.explain` lists, written as NumPy on its data.

A Slice or Split (`explain_cut`), an Unsqueeze or Squeeze (`explain_view`), a data Gather
(`explain_gather`), SplitToSequence then SequenceAt (`explain_split_to_sequence`,
`explain_sequence_at`) as NumPy on the data input ``x``, and a Concat as where each input lands
(`explain_concat`), in the form `datamove.ir._explain` gives IR layers: one entry each, from
the `Node` the walk (`datamove.ir._onnx`) saw; a parameter known only at run time named as
its tensor, and a broken node's entry a note (check reports it).
"""

from __future__ import annotations

from typing import Any

from datamove._errors import ValidationError, plural
from datamove._shape import Dimension, PartialShape
from datamove._validation import normalize_axis
from datamove.ir._bounds import wide_bounds
from datamove.ir._explain import (
    around,
    at,
    clamped_starts,
    concat_entry,
    entry,
    gather_expression,
    index_expression,
    numpy_answer,
    part_texts,
    plus_text,
    runtime_chunks,
    runtime_name,
    split_chunks,
    tidy,
    trim,
    view_expression,
)
from datamove.ir._onnx_rules import (
    EMPTY_SQUEEZE,
    MAX_PARTS,
    empty_squeeze,
    many_parts,
    normal_axes,
    position_error,
    sequence_parts,
    slice_params,
    slicing,
    splitting,
    view_axes,
    view_data_shape,
)
from datamove.ir._onnx_shapes import node_attr, render
from datamove.ir._onnx_value import Node, Value, node_name
from datamove.ir._ops import bounds_of, squeeze_index, unsqueeze_index

__all__ = [
    "explain_concat",
    "explain_cut",
    "explain_gather",
    "explain_sequence_at",
    "explain_split_to_sequence",
    "explain_view",
]


def explain_cut(node: Node) -> dict[str, Any]:
    proto = node.proto
    kind = proto.op_type
    shape = node.ins[0].shape
    info = entry(str(node.index), kind, node_name(proto), str(shape), node.outs, kind == "Split")
    info |= {"dialect": "onnx", "opset": node.version}
    try:
        if kind == "Slice":
            _explain_slice(node, info, shape)
        else:
            _explain_split(node, info, shape)
    except ValidationError as exc:  # a broken node: check() reports it
        info["note"] = str(exc)
    return info


def explain_gather(node: Node) -> dict[str, Any]:
    """A data Gather as NumPy: ``x[:, 3]``, ``x[:, x.shape[1]-1]``; a GatherND that is one.

    Of constant indices, `gather_expression`'s; of indices a shape subgraph computes, their
    expressions (a scalar's as a basic index, else ``np.take(x, [...], axis=1)``), which NumPy
    counts from the end where negative and refuses out of range, as ONNX does; of a Range of
    unknown length, a slice or ``np.take`` of ``np.arange`` (`_explain_range`).
    """
    proto, kind = node.proto, node.proto.op_type
    shape = node.ins[0].shape
    info = entry(str(node.index), kind, node_name(proto), str(shape), node.outs, False)
    info |= {"dialect": "onnx", "opset": node.version}
    indices = node.ins[1].value
    axis = node_attr(proto, "axis", 0)  # (a GatherND's ins are its Gather's: `nd_as_gather`)
    given = {} if indices is None else {"indices": indices.tolist()}
    if kind == "GatherND" and indices is not None:  # its indices, as the node has them
        given = {"indices": indices[..., None].tolist()}
    info["values"] = given | ({"axis": axis} if kind == "Gather" else {"batch_dims": 0})
    try:
        if indices is not None:
            info["numpy"], info["note"], _ = gather_expression(indices, axis, shape)
            return info
        if shape.rank is None:
            _note_runtime(node, info, 1, "indices")
            info["note"] = "the data's rank is unknown"
            return info
        a = normalize_axis("Gather", "axis", axis, axis, shape.rank)
        if node.ins[1].span is not None:  # a Range of unknown length (`range_span`)
            _explain_range(node, info, a)
            return info
        texts = _note_runtime(node, info, 1, "indices")
        if texts is None:  # (_computed: terms of a tensor the function names too)
            info["note"] = _clash_note(node, "indices")
            return info
        scalar = node.ins[1].shape.rank == 0
        text = f"x[{', '.join([':'] * a + texts)}]"
        info["numpy"] = text if scalar else f"np.take(x, [{', '.join(texts)}], axis={a})"
    except ValidationError as exc:  # a broken node: check() reports it
        info["note"] = str(exc)
    return info


def _explain_range(node: Node, info: dict[str, Any], axis: int) -> None:
    """A data Gather of a Range of unknown length (``x[:, torch.arange(x.shape[1] - 2)]``).

    A slice where it is one at every size: a ``delta`` known or an expression of dims (of one
    sign: `range_span`), a ``start`` never negative (a negative index counts from the end, a
    slice's start otherwise), and a ``limit`` never negative (``max(limit, 0)`` where it may
    be: Range is then empty, as the slice from a ``start`` of 0 or more) or, of a negative
    ``delta``, -1 ("to the start": ``x[:, 3::-1]``); the Range's values are then the slice's
    where each is in range, and onnxruntime refuses one that is not. Else ``np.take`` of
    ``np.arange``, which is ONNX's Range on integers.
    An end neither known nor an expression of dims leaves the node a note.
    """
    v = node.ins[1]
    assert v.span is not None  # (the caller's test)
    name = runtime_name(v.source or node.proto.input[1], "value")
    others: dict[str, str] = {}  # another tensor whose dims the ends read

    def named(tensor: str) -> str:
        others[runtime_name(tensor, "value")] = f"the tensor {tensor!r}, whose dims it reads"
        return runtime_name(tensor, "value")

    ends: list[tuple[str, float, float] | None] = []  # each end's text and bounds
    for end in v.span:
        bounds = wide_bounds(end.info())
        if bounds is None or bounds[0].size != 1:
            ends.append(None)
            continue
        lo, hi = bounds[0].item(), bounds[1].item()
        if lo == hi:
            ends.append((str(int(lo)), lo, hi))
        elif end.terms is not None and len(end.terms) == 1 and not _clashes(node, end.terms):
            ends.append((render(end.terms[0], node.proto.input[0], named), lo, hi))
        else:
            ends.append(None)
    shown = ", ".join("?" if e is None else e[0] for e in ends)
    info["runtime"][name] = f"indices: {v.maker or repr(node.proto.input[1])} = Range({shown})"
    info["runtime"] |= others
    if None in ends:
        info["note"] = "its indices are a Range whose ends are known only at run time"
        if any(_clashes(node, end.terms) for end in v.span):
            info["note"] = _clash_note(node, "indices")
        return
    (start, s_lo, _), (limit, l_lo, l_hi), (delta, d_lo, d_hi) = ends  # type: ignore[misc]
    prefix, suffix = around(axis)
    if s_lo >= 0 and d_lo > 0:
        stop = limit if l_lo >= 0 else f"max({limit}, 0)"
        step = "" if d_lo == d_hi == 1 else f":{delta}"
        info["numpy"] = f"{prefix}{'' if start == '0' else start}:{stop}{step}{suffix}"
    elif s_lo >= 0 and (l_lo >= 0 or l_lo == l_hi == -1):  # (`range_span`: delta < 0)
        stop = "" if l_lo == -1 else limit
        info["numpy"] = f"{prefix}{start}:{stop}:{delta}{suffix}"
    else:
        info["numpy"] = f"np.take(x, np.arange({start}, {limit}, {delta}), axis={axis})"


def explain_concat(node: Node) -> dict[str, Any]:
    """A Concat node as an IR's Concat layer (`concat_entry`), each input named by its maker."""
    proto = node.proto
    sources = [v.maker or repr(n) for v, n in zip(node.ins, proto.input, strict=True)]
    shapes = [v.shape for v in node.ins]
    name = node_name(proto)
    try:
        axis = node_attr(proto, "axis", 1)  # required from Concat-4 on
        info = concat_entry(str(node.index), name, shapes, axis, sources, node.outs)
    except ValidationError as exc:  # a broken node: check() reports it
        info = entry(str(node.index), "Concat", name, "", node.outs, False)
        info |= {"input_shape": None, "input_shapes": [str(s) for s in shapes]}
        info["note"] = str(exc)
    return info | {"dialect": "onnx", "opset": node.version}


def explain_view(node: Node) -> dict[str, Any]:
    """An Unsqueeze or Squeeze node as an IR's layer (`view_expression`): ``x[None]``, ``x[:, 0]``.

    Its axes are an attribute before opset 13, input 1 from it. ONNX refuses what OpenVINO
    reads otherwise: an Unsqueeze's axes must be distinct axes of its output, and a Squeeze's
    dims listed must be 1 (OpenVINO keeps one that is not); so a listed dim of unknown size is
    1 wherever the node runs.
    """
    proto, kind = node.proto, node.proto.op_type
    shape = node.ins[0].shape
    info = entry(str(node.index), kind, node_name(proto), str(shape), node.outs, False)
    info |= {"dialect": "onnx", "opset": node.version}
    try:
        axes = view_axes(proto, node.ins, node.version)
    except ValidationError as exc:  # a broken node
        info["note"] = str(exc)
        return info
    if isinstance(axes, str):
        _note_runtime(node, info, 1, "axes")
        info["note"] = "its axes are known only at run time"
        return info
    if axes is not None:
        info["values"]["axes"] = axes
    if shape.rank is None:
        info["note"] = "the data's rank is unknown"
        return info
    got = view_data_shape(kind, axes, shape)
    if isinstance(got, str):
        info["note"] = got
        return info
    if empty_squeeze(kind, axes, node.version):
        if any(1 in d for d in shape.dims):
            info["note"] = EMPTY_SQUEEZE
        else:
            info["numpy"] = "x[...]"
        return info
    shape = got
    if kind == "Unsqueeze":
        assert axes is not None  # Unsqueeze's schema requires them (schema_fault)
        planner: Any = lambda dims: (unsqueeze_index(dims, axes),)  # noqa: E731
    else:
        planner = lambda dims: (squeeze_index(dims, axes),)  # noqa: E731
    info["numpy"], info["note"] = view_expression(planner, shape, axes or [])
    return info


def _note_runtime(node: Node, info: dict[str, Any], k: int, argument: str) -> list[str] | None:
    """Name input ``k``, known at run time, in ``runtime``; its expressions where it has them.

    A shape subgraph's value is written as expressions of dims (``x.shape[1]//2``, the node's
    data ``x``), listed under ``expressions`` too.
    """
    v = node.ins[k]
    name = runtime_name(v.source or node.proto.input[k], "value")
    what = f"{argument}: {v.maker or repr(node.proto.input[k])}"
    texts = None
    others: dict[str, str] = {}  # another tensor whose dims the expressions read
    if v.terms is not None and not _clashes(node, v.terms):
        data = node.proto.input[0]

        def named(tensor: str) -> str:
            others[runtime_name(tensor, "value")] = f"the tensor {tensor!r}, whose dims it reads"
            return runtime_name(tensor, "value")

        texts = [render(t, data, named) for t in v.terms]
        info.setdefault("expressions", {})[argument] = texts
        what += " = " + (texts[0] if v.shape.rank == 0 else "[" + ", ".join(texts) + "]")
    info["runtime"][name] = what
    info["runtime"] |= others
    return texts


def _clashes(node: Node, terms: Any) -> bool:
    """Whether ``terms`` read a tensor of the caller's that the function names too.

    (`Node.clash`: ``x.shape[0]`` of the caller's ``x`` passed to a function whose data input
    is named ``x`` would read as the data's dims.) Not written.
    """
    return any(not isinstance(p, str) and p[0] in node.clash for t in terms or () for p in t[1])


def _clash_note(node: Node, argument: str) -> str:
    names = ", ".join(repr(n) for n in sorted(node.clash))
    return (
        f"its {argument} are expressions of the dims of the calling graph's {names}, which "
        "the function names too: not written"
    )


def _explain_slice(node: Node, info: dict[str, Any], shape: PartialShape) -> None:
    starts, ends, axes, steps = slice_params(node.proto, node.ins, node.version)
    params = {"starts": starts, "ends": ends, "axes": axes, "steps": steps}
    written: dict[str, Any] = {}  # each run-time parameter's expressions, where it has them
    for k, (argument, v) in enumerate(params.items(), 1):
        if isinstance(v, list):
            info["values"][argument] = v
        elif isinstance(v, str):
            texts = _note_runtime(node, info, k, argument)
            if texts is not None and argument != "axes":
                written[argument] = texts
    known = [v for v in (*params.values(), *written.values()) if isinstance(v, list)]
    if len({len(v) for v in known}) > 1:  # lengths that differ: the names, not the expressions
        written = {}
    starts, ends, steps = (written.get(a, params[a]) for a in ("starts", "ends", "steps"))
    plus = _linked_ends(node, starts, ends, steps)
    if plus is not None:  # the ends: the starts' name plus c
        assert isinstance(ends, str)
        del info["runtime"][ends]
        ends = plus
    rank = shape.rank
    if not info["runtime"]:  # on an unknown rank too: x[..., 1:3] is every rank's
        s = slicing(starts, ends, axes, steps, rank)
        if axes is not None:
            info["values"]["axes"] = normal_axes(axes, rank, "ONNX Slice")
        info["numpy"], info["note"] = numpy_answer(s, shape)  # an IR layer's, explain slice's
        return
    if rank is None:
        info["note"] = "the data's rank is unknown"
        return
    if isinstance(axes, str):
        info["note"] = "the axes it slices are known only at run time"
        return
    n = next((len(p) for p in params.values() if isinstance(p, list)), 1)
    if axes is None and n > rank:  # more parameters than axes: onnxruntime refuses the node
        info["note"] = (
            f"its parameters address {plural(n, 'axis', 'axes')}, but the data has rank {rank}"
        )
        return
    listed = list(range(n)) if axes is None else normal_axes(axes, rank, "ONNX Slice")
    raw: list[Any] = [slice(None)] * rank
    least: list[tuple[float | None, float | None]] = [(None, None)] * rank
    for k, a in enumerate(listed):
        step = 1 if steps is None else at(steps, k, n)
        raw[a] = slice(at(starts, k, n), at(ends, k, n), step)
        least[a] = (_least(node.ins[1], k), _least(node.ins[4], k) if len(node.ins) > 4 else None)
    dims = [d.get_length() if d.is_static else None for d in shape.dims]
    info["numpy"] = index_expression(clamped_starts(tidy(trim(raw)), dims, least), dims)


def _linked_ends(node: Node, starts: Any, ends: Any, steps: Any) -> str | None:
    """The ends as the starts' name plus ``c`` (``s+4``), where `plus_text` finds it exact.

    Both of one element and run-time names (no expressions), the step a known one: onnxruntime
    computes the Add as OpenVINO does (`datamove.ir._explain.linked_stop`).
    """
    if len(node.links) < 3 or not (isinstance(starts, str) and isinstance(ends, str)):
        return None
    if starts == ends or any(v.shape != PartialShape([1]) for v in node.ins[1:3]):
        return None
    step = steps[0] if isinstance(steps, list) and len(steps) == 1 else None
    return plus_text(starts, (node.links[1], node.links[2]), 1 if steps is None else step)


def _least(v: Value, k: int) -> float | None:
    """Element ``k``'s least value, where a shape subgraph bounds it (one element: every k)."""
    got = bounds_of(v.info())
    if got is None or got[0].ndim != 1 or not len(got[0]):
        return None
    return float(got[0][k % len(got[0])])


def _explain_split(node: Node, info: dict[str, Any], shape: PartialShape) -> None:
    s, axis = splitting(node.proto, node.ins, node.version)
    count = len(node.outs)
    info["values"]["axis"] = axis
    num = node_attr(node.proto, "num_outputs")
    if num is not None:
        info["attributes"]["num_outputs"] = num
    rank = shape.rank
    written = None
    if s is None:
        written = _note_runtime(node, info, 1, "split")
    elif s.rule == "lengths":
        info["values"]["split"] = list(s.value)
    if rank is not None and not -rank <= axis < rank:
        info["note"] = f"axis {axis} is out of range for rank {rank}"
        return
    a = axis + rank if axis < 0 and rank is not None else axis  # from the back: unknown rank
    dim = Dimension() if rank is None else shape.dims[a]
    if s is None:
        info["numpy"] = runtime_chunks(next(iter(info["runtime"])), count, a, written)
        return
    # The parts are written as datamove explain and an IR model's Split write them.
    if dim.is_static:
        info["numpy"] = part_texts(a, s.lengths(dim.get_length()))
    elif s.rule == "lengths":  # the same cuts at every size (and rank)
        info["numpy"] = split_chunks(a, lengths=s.value)
    else:
        info["numpy"] = split_chunks(a, num_splits=int(s.value), ceil=s.rule != "even")


def explain_split_to_sequence(node: Node) -> dict[str, Any]:
    """A SplitToSequence: its parts (`sequence_parts`), each as NumPy on its data ``x``."""
    proto = node.proto
    shape = node.ins[0].shape
    note = None
    try:
        parts = sequence_parts(proto, node.ins)
    except ValidationError as exc:  # a broken node: check() reports it
        parts, note = None, str(exc)
    info = entry(str(node.index), "SplitToSequence", node_name(proto), str(shape), [], True)
    info |= {"dialect": "onnx", "opset": node.version}
    info["output_shapes"] = [str(p) for p in parts or []]
    info["numpy"] = [None] * len(parts or [])
    axis = node_attr(proto, "axis", 0)
    keepdims = node_attr(proto, "keepdims")
    info["values"]["axis"] = axis
    if keepdims is not None:
        info["attributes"]["keepdims"] = keepdims
    given = node.ins[1] if len(node.ins) > 1 and proto.input[1] else None
    written = None
    if given is not None and given.value is not None:
        info["values"]["split"] = given.value.tolist()
    elif given is not None:
        written = _note_runtime(node, info, 1, "split")
    if parts is None:
        many = many_parts(proto, node.ins)
        if note is None and shape.rank is None:
            note = "the data's rank is unknown"
        elif note is None and many is not None:
            note = f"it makes {many} parts, more than datamove reads ({MAX_PARTS})"
        elif note is None and given is not None and given.value is not None:
            scalar = given.value.ndim == 0
            note = (
                "a scalar split with keepdims=0, which the spec ignores and onnxruntime does "
                "not (it removes the axis)"
                if scalar and keepdims == 0
                else "its number of parts is known only at run time"
            )
        info["note"] = note or "its number of parts is known only at run time"
        return info
    rank = shape.rank
    assert rank is not None  # parts are known on a known rank only
    a = axis % rank
    prefix, suffix = around(a)
    if given is None and keepdims == 0:  # one element each, the axis removed
        info["numpy"] = [f"{prefix}{k}{suffix}" for k in range(len(parts))]
    elif all(p.dims[a].is_static for p in parts):
        info["numpy"] = part_texts(a, [p.dims[a].get_length() for p in parts])
    else:  # a 1-D split known at run time, bounded by a shape subgraph
        info["numpy"] = runtime_chunks(next(iter(info["runtime"])), len(parts), a, written)
    return info


def explain_sequence_at(node: Node, sequence: tuple[str, dict[str, Any]] | None) -> dict[str, Any]:
    """A SequenceAt of a SplitToSequence's output: that part, on the SplitToSequence's ``x``.

    ``sequence``: that node's name and entry, where one of the SequenceAt's graph makes it.
    """
    proto = node.proto
    maker, made = sequence or (None, None)
    shape = "[...]" if made is None else made["input_shape"]
    info = entry(str(node.index), "SequenceAt", node_name(proto), shape, node.outs, False)
    info |= {"dialect": "onnx", "opset": node.version}
    position = node.ins[1].value
    if made is None or maker is None:
        graph = "" if node.place is None else " of its subgraph or function"
        info["note"] = f"it reads a sequence no SplitToSequence node{graph} makes"
        return info
    info["sequence"] = maker
    if position is None or position.size != 1 or position.dtype.kind not in "iu":
        info["note"] = "its position is known only at run time"
        return info
    k = int(position.reshape(-1)[0])
    info["values"]["position"] = k
    parts = made["numpy"]
    if made["note"] is not None or None in parts:
        info["note"] = f"{maker} has no NumPy index for its parts"
    elif not -len(parts) <= k < len(parts):
        info["note"] = str(position_error(k, len(parts)))
    else:
        info["numpy"] = parts[k]
    return info
