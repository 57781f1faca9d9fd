"""``datamove explain``: what an operator does to a shape, in words and pictures.

For StridedSlice and Slice it prints the output shape, the equivalent NumPy index (``x[1:, :, :2]``,
`datamove.ir._explain.numpy_answer`'s on every shape: convert's index of its canonical form for
every size allowed, shortened where a size is static, or its reason for none; the one text
explain prints for a slice, ``--as numpy`` and a model's layer included) and, for static inputs
of rank at most 3, a picture of which elements the operator's own plan takes
(`datamove._strided_slice.numpy_index`, `datamove._slice.plan_slice`); for Slice also Python's
reading of the same numbers where it takes other elements. For the splits it prints every
chunk's shape and its NumPy index, for Concat where each input goes in the output, each with a
picture labelling each element with its chunk or input. ``--as onnx,tf,...`` (slices, splits
and a model's layers) adds the same operation in each dialect listed
(`datamove.cli._dialect_text`).
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import math
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import numpy as np

from datamove._dialects import Slicing
from datamove._errors import NotExpressible, ValidationError
from datamove._shape import PartialShape
from datamove._slice import infer_slice, plan_slice
from datamove._split import infer_split, infer_variadic_split
from datamove._splitting import Splitting, onnx_split_version
from datamove._strided_slice import MASKS, NUMPY_MAXDIMS, infer_strided_slice, numpy_index
from datamove.cli import _dialect_text, _ir
from datamove.cli._convert import split_call
from datamove.cli._exit import EXIT_OK, EXIT_USAGE
from datamove.ir._errors import where
from datamove.ir._explain import (
    EXPLAINED,
    VIEWS,
    add_algebra,
    concat_parts,
    index_expression,
    layer_slicing,
    numpy_answer,
    part_texts,
    slice_slicing,
    split_chunks,
)
from datamove.ir._onnx import EXPLAINED_NODES

__all__ = [
    "explain_concat",
    "explain_numpy",
    "explain_slice",
    "explain_split",
    "explain_strided_slice",
    "register",
]

_ints: Final = functools.partial(_dialect_text.int_list, command="explain")
_MAX_PICTURE: Final = 512  # elements; larger inputs get no picture
_LABELS: Final = "0123456789abcdefghijklmnopqrstuvwxyz"


def _drawable(shape: tuple[int, ...]) -> bool:
    """Whether ``_picture`` draws ``shape``: rank <= 3, 1 to ``_MAX_PICTURE`` elements."""
    return len(shape) <= 3 and 0 < math.prod(shape) <= _MAX_PICTURE


def _picture(shape: tuple[int, ...], cell: Callable[[tuple[int, ...]], str]) -> list[str]:
    """Rows of cells for an array of rank <= 3 (one block per leading index for rank 3)."""
    if not _drawable(shape):
        return []
    if len(shape) == 0:
        return [f"  {cell(())}"]
    if len(shape) == 1:
        return ["  " + " ".join(cell((i,)) for i in range(shape[0]))]
    if len(shape) == 2:
        return ["  " + " ".join(cell((i, j)) for j in range(shape[1])) for i in range(shape[0])]
    lines: list[str] = []
    for k in range(shape[0]):
        lines.append(f"  x[{k}]:")
        lines += [
            "    " + " ".join(cell((k, i, j)) for j in range(shape[2])) for i in range(shape[1])
        ]
    return lines


def explain_strided_slice(
    shape: PartialShape,
    begin: Sequence[int],
    end: Sequence[int],
    stride: Sequence[int] | None,
    masks: Mapping[str, Sequence[int]],
) -> dict[str, Any]:
    """Everything ``datamove explain strided-slice`` prints, as data.

    Examples
    --------
    >>> info = explain_strided_slice(PartialShape([2, 3, 4]), [1, 0, 0], [0, 0, 2], None,
    ...                              {"begin_mask": [0, 1, 1], "end_mask": [1, 1, 0]})
    >>> info["output_shape"], info["numpy"]
    ('[1,3,2]', 'x[1:, :, :2]')
    """
    return _slicing_info(
        shape,
        infer_strided_slice(shape, begin, end, stride, **masks),
        lambda: Slicing.from_strided_slice(begin, end, stride, **masks),
        lambda dims: numpy_index(dims, begin, end, stride, **masks),
    )[0]


def explain_numpy(shape: PartialShape, expr: str) -> dict[str, Any]:
    """Everything ``datamove explain numpy EXPR`` prints, as data.

    The NumPy index ``expr`` (parsed, never evaluated) on ``shape``: the output shape, the
    ``identity:`` or ``empty:`` line where it is so on every shape allowed (a proof, as
    ``Slicing.is_identity`` and ``is_empty`` give it), and `numpy_answer`'s index of its
    canonical form on ``shape`` (one text for every equivalent index, docs/algebra.md); on a
    static shape the picture of the StridedSlice it is there.

    Examples
    --------
    >>> info = explain_numpy(PartialShape.parse("[?,2..10]"), "x[0:9223372036854775807, ::1]")
    >>> info["output_shape"], info["numpy"], info["algebra"]
    ('[?,2..10]', 'x[...]', 'identity: the output is x unchanged on every shape [?,2..10] allows')
    """
    slicing = Slicing.from_numpy(expr)
    out = slicing.infer(str(shape))  # first, with the shape as text: the index refusal of s(x)
    index = None
    if shape.is_static:  # the StridedSlice it is on this shape: the elements it takes
        index = functools.partial(numpy_index, **slicing.to_strided_slice(shape))
    return _slicing_info(shape, out, lambda: slicing, index)[0]


def _slicing_info(
    shape: PartialShape,
    out: PartialShape,
    slicing: Callable[[], Slicing],
    index: Callable[[tuple[int, ...]], Any] | None = None,
    **keys: Any,
) -> tuple[dict[str, Any], Any]:
    """What ``explain`` prints of a slicing, and its NumPy index (``None`` where it has none).

    The ``NumPy:`` line is `numpy_answer`'s (of the canonical form), or
    ``numpy_unavailable``, why there is none. On a static shape, ``index(dims)`` gives the
    operator's own index: the elements it takes, pictured for small inputs. ``keys`` (and
    their order) come before the picture.
    """
    info: dict[str, Any] = {"input_shape": str(shape), "output_shape": str(out), "numpy": None}
    info |= {**keys, "picture": []}
    add_algebra(info, slicing, shape)
    info["numpy"], none = numpy_answer(slicing(), shape)
    if none is not None:
        info["numpy_unavailable"] = none
    if index is None or info["numpy"] is None or not shape.is_static:
        return info, None
    dims = shape.to_shape()
    try:
        numpy = index(dims)
    except ValidationError as exc:  # an output of more axes than NumPy's 64
        info["numpy"], info["numpy_unavailable"] = None, exc.rule
        return info, None
    # No picture of an input NumPy cannot hold (the operator's plan has checked the output).
    if math.prod(dims) <= _MAX_PICTURE and len(dims) <= NUMPY_MAXDIMS:
        flat = np.arange(math.prod(dims)).reshape(dims)
        taken = flat[numpy].reshape(-1).tolist()
        width = len(str(max(math.prod(dims) - 1, 0)))
        chosen = set(taken)
        info["picture"] = _picture(
            dims,
            lambda i: str(flat[i]).rjust(width) if int(flat[i]) in chosen else "·".rjust(width),
        )
        if len(taken) <= 64:
            info["taken"] = taken
    return info, numpy


def explain_slice(
    shape: PartialShape,
    start: Sequence[int],
    stop: Sequence[int],
    step: Sequence[int],
    axes: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Everything ``datamove explain slice`` prints, as data.

    ``python`` is Python's slicing of the same numbers, where it takes other elements than
    Slice-8 (which clamps as OpenVINO's runtime and ONNX do), else ``None``.

    Examples
    --------
    >>> info = explain_slice(PartialShape([2, 3, 4]), [1, -1], [2, -5], [1, -2], [0, 2])
    >>> info["output_shape"], info["numpy"], info["python"]
    ('[1,3,2]', 'x[1:, :, ::-2]', None)
    >>> info = explain_slice(PartialShape([1]), [-3], [-6], [-3])
    >>> info["output_shape"], info["numpy"], info["python"]
    ('[1]', 'x[...]', 'x[-3:-6:-3]')
    """
    info, index = _slicing_info(
        shape,
        infer_slice(shape, start, stop, step, axes),
        lambda: slice_slicing(start, stop, step, axes, shape),
        lambda dims: plan_slice(dims, start, stop, step, axes).indices[0],
        python=None,
    )
    if index is not None:
        info["python"] = _python_differs(shape.to_shape(), index, start, stop, step, axes)
    return info


def _python_differs(
    dims: tuple[int, ...],
    index: Any,
    start: Sequence[int],
    stop: Sequence[int],
    step: Sequence[int],
    axes: Sequence[int] | None,
) -> str | None:
    """Python's ``x[start:stop:step, ...]`` of the same numbers, where it takes other elements."""
    rank = len(dims)
    listed = range(len(start)) if axes is None else [a + rank if a < 0 else a for a in axes]
    raw: list[slice] = [slice(None)] * rank
    for a, b, e, s in zip(listed, start, stop, step, strict=True):
        raw[a] = slice(b, e, s)
    ours = list(index[: index.index(Ellipsis)] if Ellipsis in index else index)
    ours += [slice(None)] * (rank - len(ours))
    # range(d)[...] compares what each axis takes, in O(1), however long the axis.
    if all(range(d)[p] == range(d)[o] for d, p, o in zip(dims, raw, ours, strict=True)):
        return None
    return index_expression(tuple(raw), dims)


def _parts_picture(shape: PartialShape, axis: int, lengths: Sequence[int]) -> list[str]:
    """A picture of ``shape`` labelling each element with its part along ``axis``."""
    if not (shape.is_static and _drawable(dims := shape.to_shape())):
        return []
    # The axis is at most _MAX_PICTURE long here: label each of its positions, no more.
    labels = "".join(_LABELS[k % len(_LABELS)] * n for k, n in enumerate(lengths))
    return _picture(dims, lambda i: labels[i[axis]])


def explain_split(
    shape: PartialShape,
    axis: int,
    *,
    num_splits: int | None = None,
    lengths: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Everything ``datamove explain split`` / ``variadic-split`` prints, as data.

    Each output's part of ``x`` (``x[:, 1:3]``) is known where every output's length on the
    axis is: the input's size there is static, or the lengths are given with no ``-1`` (they
    fix it). The other dims may be dynamic: the parts are the same at every size they allow.
    Otherwise a part is written with the axis's size (``x[:, :x.shape[1]//2]``), as
    `datamove.ir._explain.split_chunks` writes it for a model's layer; on a data of unknown
    rank a negative axis counts from the back (``x[..., :2]``).

    Examples
    --------
    >>> info = explain_split(PartialShape([2, 6]), 1, lengths=[1, 2, -1])
    >>> info["outputs"]
    [('[2,1]', 'x[:, :1]'), ('[2,2]', 'x[:, 1:3]'), ('[2,3]', 'x[:, 3:]')]
    >>> explain_split(PartialShape.parse("[?,4]"), 1, num_splits=2)["outputs"]
    [('[?,2]', 'x[:, :2]'), ('[?,2]', 'x[:, 2:]')]
    >>> explain_split(PartialShape.parse("[?,?]"), 1, num_splits=2)["outputs"]
    [('[?,?]', 'x[:, :x.shape[1]//2]'), ('[?,?]', 'x[:, x.shape[1]//2:]')]
    """
    if lengths is None:
        assert num_splits is not None
        shapes = infer_split(shape, axis, num_splits)
    else:
        shapes = infer_variadic_split(shape, axis, list(lengths))
    info: dict[str, Any] = {
        "input_shape": str(shape),
        "outputs": [(str(s), None) for s in shapes],
        "picture": [],
    }
    rank = shape.rank
    a = axis if rank is None else axis + rank if axis < 0 else axis  # from the back: any rank
    if rank is None or not all(s[a].is_static for s in shapes):
        # the parts' bounds move with the axis's size: written with it, as model explain does
        parts = split_chunks(a, num_splits=num_splits, lengths=lengths)
        info["outputs"] = list(zip(map(str, shapes), parts, strict=True))
        return info
    sizes = [s[a].get_length() for s in shapes]
    info["outputs"] = list(zip(map(str, shapes), part_texts(a, sizes), strict=True))
    info["picture"] = _parts_picture(shape, a, sizes)
    return info


def explain_concat(shapes: Sequence[PartialShape], axis: int) -> dict[str, Any]:
    """Everything ``datamove explain concat`` prints, as data.

    Each input's part of the output (``out[:, 2:6]``, `concat_parts`), written with its size
    (``out[:x0.shape[0]]``) where that is not static; where every one is, the inverse (the
    VariadicSplit of the output by those sizes) and a picture.

    Examples
    --------
    >>> info = explain_concat([PartialShape([2, 3]), PartialShape([2, 1])], -1)
    >>> info["output_shape"], info["inputs"]
    ('[2,4]', [('[2,3]', 'out[:, :3]'), ('[2,1]', 'out[:, 3:]')])
    >>> info["numpy"], info["inverse"]
    ('np.concatenate([x0, x1], axis=1)', 'dm.variadic_split(out, 1, [3, 1])')
    """
    parts = concat_parts(shapes, axis)
    info: dict[str, Any] = {
        "input_shapes": [str(s) for s in shapes],
        "axis": axis,
        "output_shape": parts["output_shape"],
        "inputs": list(zip(map(str, shapes), parts["parts"], strict=True)),
        "numpy": parts["numpy"],
        "inverse": parts["inverse"],
        "picture": [],
    }
    out = PartialShape.parse(parts["output_shape"])
    if parts["lengths"] is not None and out.rank is not None:
        a = axis + out.rank if axis < 0 else axis
        info["picture"] = _parts_picture(out, a, parts["lengths"])
    return info


def _print_strided(args: argparse.Namespace) -> int:
    masks = {
        name: _dialect_text.mask_list(getattr(args, name) or "", name, "explain") for name in MASKS
    }
    begin, end = _ints(args.begin, "--begin"), _ints(args.end, "--end")
    stride = _ints(args.stride, "--stride") if args.stride else None
    info = explain_strided_slice(PartialShape.parse(args.shape), begin, end, stride, masks)
    return _print(
        args,
        info,
        lambda: _show_strided(info, begin, end, stride, masks),
        lambda: Slicing.from_strided_slice(begin, end, stride, **masks),
    )


def _print(
    args: argparse.Namespace,
    info: dict[str, Any],
    show: Callable[[], None],
    op: Callable[[], Slicing | Splitting] | None = None,
) -> int:
    """Print ``info`` as JSON, or ``show`` it; with ``--as``, ``op()`` in each dialect listed.

    Every dialect is written before anything is printed: an error leaves no partial output.
    """
    split = False
    if op is not None and args.as_:
        operation = op()
        split = isinstance(operation, Splitting)
        info["as"] = _translated(operation, args.as_, info)
    if args.json:
        print(json.dumps(info, indent=2))
        return EXIT_OK
    show()
    if "as" in info:
        print("in other dialects:")
        print("\n".join(_dialect_text.show_blocks(info["as"], split)))
    return EXIT_OK


def _translated(
    op: Slicing | Splitting, names: list[str], info: dict[str, Any], **kw: Any
) -> dict[str, dict[str, Any]]:
    """``op`` in each dialect of ``names`` (`_dialect_text.translate`) on ``info``'s input shape.

    A slicing's ``numpy`` is the text explain printed, `numpy_answer`'s: one index per slice.
    """
    # The shape as text: an emitter's message shows it as given (shape='[?]').
    out = _dialect_text.translate(op, names, info["input_shape"], **kw)
    if isinstance(op, Slicing) and "value" in out.get("numpy", {}) and info["numpy"]:
        out["numpy"]["value"] = info["numpy"]
    return out


def _show_strided(
    info: dict[str, Any],
    begin: list[int],
    end: list[int],
    stride: list[int] | None,
    masks: Mapping[str, Sequence[int]],
) -> None:
    print(f"StridedSlice on x of shape {info['input_shape']}")
    print(f"  begin={begin} end={end} stride={stride if stride is not None else [1] * len(begin)}")
    set_masks = {k: v for k, v in masks.items() if any(v)}
    if set_masks:
        print("  " + " ".join(f"{k}={v}" for k, v in set_masks.items()))
    _show_taken(info)


def _show_taken(info: dict[str, Any]) -> None:
    """The output shape, the NumPy index, Python's reading, the picture and the output order."""
    print(f"output shape: {info['output_shape']}")
    if info["numpy"]:
        print(f"NumPy:        {info['numpy']}")
    elif "numpy_unavailable" in info:
        print(f"NumPy:        none: {info['numpy_unavailable']}")
    if "algebra" in info:  # its label in the column of the lines above
        label, rest = info["algebra"].split(": ", 1)
        print(f"{label + ':':<14}{rest}")
    if info.get("python"):  # a Slice that Python's slicing of the same numbers reads otherwise
        print(
            f"Python:       {info['python']} takes other elements (Slice clamps as OpenVINO's "
            "runtime and ONNX Slice do)"
        )
    if info["picture"]:
        print("elements taken (flat index; · = not taken):")
        print("\n".join(info["picture"]))
    if "taken" in info:
        print(f"output order: {' '.join(map(str, info['taken']))}")


def _print_numpy(args: argparse.Namespace) -> int:
    shape = PartialShape(None) if args.shape is None else PartialShape.parse(args.shape)
    if args.as_:  # an index out of range: refused as `convert --to` the first dialect refuses it
        with contextlib.suppress(NotExpressible):  # shown beside the others
            _dialect_text.emit(Slicing.from_numpy(args.index), args.as_[0], str(shape))
    info = explain_numpy(shape, args.index)

    def show() -> None:
        print(f"{args.index} on x of shape {info['input_shape']}")
        _show_taken(info)

    return _print(args, info, show, lambda: Slicing.from_numpy(args.index))


def _print_slice(args: argparse.Namespace) -> int:
    if args.step is None:
        _dialect_text.step_required(
            args.slice_parser, args, ["explain", "slice", "--shape", args.shape]
        )
    start, stop = _ints(args.start, "--start"), _ints(args.stop, "--stop")
    step = _ints(args.step, "--step")
    axes = _ints(args.axes, "--axes") if args.axes is not None else None
    shape = PartialShape.parse(args.shape)
    info = explain_slice(shape, start, stop, step, axes)
    return _print(
        args,
        info,
        lambda: _show_slice(info, start, stop, step, axes),
        lambda: slice_slicing(start, stop, step, axes, shape),
    )


def _show_slice(
    info: dict[str, Any],
    start: list[int],
    stop: list[int],
    step: list[int],
    axes: list[int] | None,
) -> None:
    print(f"Slice on x of shape {info['input_shape']}")
    listed = f"axes={axes}" if axes is not None else f"axes={list(range(len(start)))} (default)"
    print(f"  start={start} stop={stop} step={step} {listed}")
    _show_taken(info)


def _print_concat(args: argparse.Namespace) -> int:
    info = explain_concat([PartialShape.parse(s) for s in args.shapes], args.axis)
    return _print(args, info, lambda: _show_concat(info))


def _show_concat(info: dict[str, Any]) -> None:
    print(f"Concat of {len(info['inputs'])} inputs, axis {info['axis']}")
    for k, (shape, part) in enumerate(info["inputs"]):
        print(f"  input {k}: {shape}" + (f"  -> {part}" if part else ""))
    print(f"output shape: {info['output_shape']}")
    if info["numpy"]:
        print(f"NumPy:        {info['numpy']}")
    if info["inverse"]:
        print(f"inverse:      {info['inverse']}")
    if info["picture"]:
        print("elements by input:")
        print("\n".join(info["picture"]))


def _print_split(args: argparse.Namespace) -> int:
    shape, axis = PartialShape.parse(args.shape), args.axis
    op: Callable[[], Splitting]
    if args.op == "split":
        info = explain_split(shape, axis, num_splits=args.num_splits)
        name, said = "Split", f"num_splits {args.num_splits}"
        op = functools.partial(Splitting.from_split, axis, args.num_splits)
    else:
        lengths = _ints(args.lengths, "--lengths")
        info = explain_split(shape, axis, lengths=lengths)
        name, said = "VariadicSplit", f"split_lengths {lengths}"
        op = functools.partial(Splitting.from_variadic_split, axis, lengths)
    return _print(args, info, lambda: _show_split(info, name, axis, said), op)


def _show_split(info: dict[str, Any], name: str, axis: int, said: str) -> None:
    print(f"{name} on x of shape {info['input_shape']}, axis {axis}, {said}")
    for k, (shape, expr) in enumerate(info["outputs"]):
        print(f"  output {k}: {shape}" + (f"  = {expr}" if expr else ""))
    if info["picture"]:
        print("elements by output:")
        print("\n".join(info["picture"]))


def _print_model(args: argparse.Namespace) -> int:
    model = _ir.read(args, "explain")
    onnx = _ir.is_onnx(args.model)
    with _ir.input_shape_words(args, "explain"):
        layers = model.explain(args.layer, _ir.input_shapes(args, model, "explain"))
    if args.as_:
        for info in layers:
            info["as"] = _layer_dialects(info, args.as_)
    if args.json:
        print(json.dumps(layers, indent=2))
        return EXIT_OK
    kinds, what = (EXPLAINED_NODES, "nodes") if onnx else (EXPLAINED, "layers")
    if not layers:
        print(f"no {', '.join(kinds[:-1])} or {kinds[-1]} {what}")
    for info in layers:
        outs = ", ".join(info["output_shapes"]) or "?"  # a sequence of parts not known
        ins = (
            f"x {info['input_shape']}"
            if "input_shapes" not in info  # a Concat's: x0, x1...
            else ", ".join(f"x{k} {shape}" for k, shape in enumerate(info["input_shapes"]))
        )
        place = info.get("place") or where(  # a node in a function or a subgraph: check's name
            info["layer_id"], info["name"], info["layer_type"], None, what.rstrip("s")
        )
        print(f"{place}: {ins} -> {outs}")
        if "call_inputs" in info:
            values = info.get("call_values", {})
            passed = ", ".join(
                f"{name} {shape}" + (f" = {values[name]}" if name in values else "")
                for name, shape in info["call_inputs"].items()
            )
            print(f"  called with {passed}")
        numpy = info["numpy"]
        if isinstance(numpy, list):
            each = "part" if info["layer_type"] == "SplitToSequence" else "output"
            for k, text in enumerate(numpy):
                print(f"  {each} {k}: {text or 'no NumPy index'}")
        elif numpy:
            short = info.get("numpy_below_2**31")
            print(f"  {numpy}" + (f"  ({short} on sizes below 2**31)" if short else ""))
        for k, source in enumerate(info.get("sources", ())):  # a Concat's inputs
            part = info["parts"][k]
            print(f"  x{k} from {source}" + (f": {part}" if part else ""))
        if info["note"]:
            print(f"  no NumPy index: {info['note']}")
        if "out_of_range" in info:  # an IR Gather's index out of range of some sizes
            print(f"  but {info['out_of_range']}, where NumPy raises")
        if "algebra" in info:
            print(f"  {info['algebra']}")
        for name, what in info["runtime"].items():
            print(f"  {name} = {what}, known at run time")
        if args.layer is not None:
            _show_layer(info)
        if "as" in info:
            split = info["layer_type"] in ("Split", "VariadicSplit", "SplitToSequence")
            print("  in other dialects:")
            lines = _dialect_text.show_blocks(info["as"], split)
            print("\n".join("    " + line for line in lines))
    return EXIT_OK


def _onnx_split(info: dict[str, Any]) -> Splitting:
    """The operation of an ONNX model's Split node, from its explained values."""
    return Splitting.from_onnx(
        info["values"]["axis"],
        info["values"].get("split"),
        num_outputs=info["attributes"].get("num_outputs"),
        outputs=len(info["output_shapes"]),
        opset=info["opset"],
    )


def _sequence_split(info: dict[str, Any]) -> Splitting:
    """An ONNX SplitToSequence's parts as a split of their lengths (on its input's shape).

    Where ``keepdims=0`` removes the axis (no ``split``), no split of a dialect says it.
    """
    values = info["values"]
    if info["attributes"].get("keepdims") == 0 and "split" not in values:
        rule = "removes the axis from each part (no split is given): no split of a dialect does"
        raise ValidationError("ONNX SplitToSequence", "keepdims", 0, rule)
    axis = values["axis"]
    lengths = [PartialShape.parse(s).dims[axis].get_length() for s in info["output_shapes"]]
    return Splitting.from_variadic_split(axis, lengths)


def _layer_op(info: dict[str, Any]) -> Slicing | Splitting:
    """The operation of one layer of a model, from its explained values.

    A node of an ONNX model is read as ONNX reads it; an Unsqueeze or Squeeze as its index.
    """
    kind, values, attributes = info["layer_type"], info["values"], info["attributes"]
    if kind == "Concat":
        rule = "joins its inputs; datamove writes slicings and splits in other dialects"
        raise ValidationError("Concat", "layer", info["layer_id"], rule)
    if kind in VIEWS or (kind == "Gather" and info["numpy"].startswith("x[")):
        return Slicing.from_numpy(info["numpy"])  # a Gather's basic index: in range, alike
    if kind == "Gather":
        rule = (
            "takes its indices by np.take, no slicing; datamove writes slicings in other dialects"
        )
        raise ValidationError("Gather", "layer", info["layer_id"], rule)
    if info.get("dialect") == "onnx" and kind == "Slice":
        return Slicing.from_onnx(
            values["starts"], values["ends"], values.get("axes"), values.get("steps")
        )
    if kind == "SplitToSequence":
        return _sequence_split(info)
    if info.get("dialect") == "onnx":
        return _onnx_split(info)
    if kind in ("Slice", "StridedSlice"):
        return layer_slicing(info)
    if kind == "Split":
        return Splitting.from_split(values["axis"], attributes["num_splits"])
    return Splitting.from_variadic_split(values["axis"], values["split_lengths"])


def _layer_dialects(info: dict[str, Any], names: list[str]) -> dict[str, dict[str, Any]]:
    """``--as`` of one layer of a model: its operation in each dialect, on its input shape."""
    if info["layer_type"] == "SequenceAt" and "position" in info["values"]:
        why = f"it picks part {info['values']['position']} of the sequence {info['sequence']} makes"
    elif info["runtime"]:
        why = "its parameters are known only at run time"
    elif (
        (info["layer_type"] in (*VIEWS, "Gather") and info["numpy"] is None)  # its note: why
        or (not info["values"] and info["layer_type"] not in ("Concat", *VIEWS))  # check()'s
        or (info["layer_type"] in ("SplitToSequence", "SequenceAt") and info["note"])
    ):
        why = f"it cannot be read: {info['note']}"
    else:
        try:
            op = _layer_op(info)
        except ValidationError as exc:
            why = str(exc)
        else:
            return _translated(op, names, info, shape_hints=False)
    return {name: {"error": why} for name in names}


def _onnx_parts(info: dict[str, Any], shape: PartialShape, axis: int) -> dict[str, Any]:
    """``explain_split``'s data for an ONNX model's Split node, read as ONNX reads it.

    Its parts are known where their lengths are: the axis's size is static (the other dims
    need not be), or ``split`` gives them. Otherwise each is the index the model's explanation
    wrote with the axis's size (``x[:, :-(-x.shape[1]//3)]``).
    """
    split = _onnx_split(info)
    dim = shape.dims[axis]  # in range: explain checked the axis (or left a note)
    if dim.is_static:
        lengths = list(split.lengths(dim.get_length()))
    elif split.rule == "lengths":
        lengths = list(split.value)
    else:
        outputs = list(zip(info["output_shapes"], info["numpy"], strict=True))
        return {"input_shape": str(shape), "outputs": outputs, "picture": []}
    return explain_split(shape, axis, lengths=lengths)


def _show_layer(info: dict[str, Any]) -> None:
    """The full explanation of one layer, as the operator's own form prints it.

    An ONNX Slice is shown as Slice-8 (the same clamping), an ONNX Split by its parts' lengths.
    """
    kind, values, attributes = info["layer_type"], info["values"], info["attributes"]
    if info["runtime"] or info["input_shape"] == "[...]" or info["note"]:
        return  # its parameters are known only at run time (or broken): nothing more to show
    if kind in ("SequenceAt", "Gather"):
        return  # one part of its sequence (the SplitToSequence's layer shows them); a Gather's
        # expression says all
    if kind == "SplitToSequence" and "split" not in values and attributes.get("keepdims") == 0:
        return  # parts of one element, the axis removed: no split's picture
    print()
    if kind == "Concat":
        shapes = [PartialShape.parse(s) for s in info["input_shapes"]]
        _show_concat(explain_concat(shapes, attributes["axis"]))
        return
    shape = PartialShape.parse(info["input_shape"])
    onnx = info.get("dialect") == "onnx"
    if kind in VIEWS:
        print(f"{kind} on x of shape {info['input_shape']}: {info['numpy']}")
        _show_taken(explain_numpy(shape, info["numpy"]))
    elif kind == "Slice":
        if onnx:
            print(
                "ONNX Slice clamps as OpenVINO's Slice-8 (starts, ends, steps: start, stop, step):"
            )
            start, stop = values["starts"], values["ends"]
            step = values.get("steps") or [1] * len(start)
        else:
            start, stop, step = values["start"], values["stop"], values["step"]
        axes = values.get("axes")
        _show_slice(explain_slice(shape, start, stop, step, axes), start, stop, step, axes)
    elif kind == "StridedSlice":
        begin, end, stride = values["begin"], values["end"], values.get("stride")
        explained = explain_strided_slice(shape, begin, end, stride, attributes)
        _show_strided(explained, begin, end, stride, attributes)
    elif kind == "SplitToSequence":
        lengths = list(_sequence_split(info).value)
        said = f"split {values['split']}" if "split" in values else "parts of one element"
        parts = explain_split(shape, values["axis"], lengths=lengths)
        _show_split(parts, "ONNX SplitToSequence", values["axis"], said)
    elif onnx:
        axis = values["axis"]
        if "num_outputs" in attributes:
            said = f"num_outputs {attributes['num_outputs']}"
        elif "split" in values:
            said = f"split {values['split']}"
        else:
            said = f"{len(info['output_shapes'])} equal parts"
        name = f"ONNX Split-{onnx_split_version(info['opset'])}"
        _show_split(_onnx_parts(info, shape, axis), name, axis, said)
    elif kind == "Split":
        axis, n = values["axis"], attributes["num_splits"]
        _show_split(explain_split(shape, axis, num_splits=n), kind, axis, f"num_splits {n}")
    else:
        axis, lengths = values["axis"], values["split_lengths"]
        said = f"split_lengths {lengths}"
        _show_split(explain_split(shape, axis, lengths=lengths), kind, axis, said)


OPERATORS: Final = ("strided-slice", "split", "variadic-split", "slice", "concat", "numpy", "model")


def model_argv(argv: Sequence[str]) -> list[str]:
    """``explain MODEL.xml ...`` as ``explain model MODEL.xml ...``: a path picks the model form.

    A first argument that is no operator name and ends in ``.xml`` or names a file. One that
    holds ``[`` and names no file is a NumPy index: ``explain "x[::1]"`` is ``explain numpy``.
    A library call (``torch.chunk(x, 3, 1)``) is a usage error (exit 2) that names ``convert``,
    which takes it (`_call_hint`).
    """
    argv = list(argv)
    if len(argv) >= 2 and argv[0] == "explain":
        first = argv[1]
        named = first.lower().endswith((".xml", ".onnx")) or Path(first).is_file()
        if first not in OPERATORS and not first.startswith("-"):
            if named:
                return ["explain", "model", *argv[1:]]
            hint = _call_hint(first) if re.match(r"[A-Za-z_][\w.]*\s*\(", first) else None
            if hint is not None:
                print(
                    f"datamove explain: error: {first!r} is a call; explain takes an operator, "
                    f"a NumPy index or a model (hint: {hint})",
                    file=sys.stderr,
                )
                raise SystemExit(EXIT_USAGE)
            if "[" in first:
                return ["explain", "numpy", *argv[1:]]
    return argv


def _call_hint(call: str) -> str | None:
    """The hint of explain's refusal of a call; ``None`` where ``call`` parses as no call.

    The convert command that takes a split's call, or, for another call, convert's refusal of
    it (``x.flip(1)``): the hint named a convert command that refused it too.
    """
    try:
        if split_call(call) is None:
            return None
    except ValidationError as exc:  # x.flip(1): convert refuses it too
        return f"give a slicing as a NumPy index, e.g. 'x[:, ::-1]'; {exc}"
    command = f"datamove convert {shlex.quote(call)} --to numpy --shape SHAPE"
    return f"convert takes a split's call: {command}"


_EPILOG = """\
examples:
  datamove explain strided-slice --shape 2,3,4 --begin 1,0,0 --end 0,0,2 \\
      --begin-mask 0,1,1 --end-mask 1,1,0
  datamove explain strided-slice --shape 6 --begin 3 --end 0 --stride -1 --end-mask 1
  datamove explain strided-slice --shape "[?,2..10,12]" --begin 0,-3 --end 0,0 \\
      --begin-mask 1,0 --end-mask 1,1
  datamove explain slice --shape 2,3,4 --start 1,-1 --stop 2,-5 --step 1,-2 --axes 0,2
  datamove explain slice --shape 1 --start -3 --stop -6 --step -3
  datamove explain slice --shape "[?,8]" --start 1 --stop 5 --step 2 --as onnx,tf,torch
  datamove explain split --shape 6,12 --axis 1 --num-splits 3
  datamove explain variadic-split --shape 2,6 --axis 1 --lengths 1,2,-1
  datamove explain concat --shapes 2,3 2,1 --axis -1
  datamove explain "x[::1, :9223372036854775807]" --shape "[?,2..10]"   (a NumPy index)
  datamove explain model.xml                 (every data-movement layer of a model, as NumPy)
  datamove explain model.xml --layer 7       (one layer, with its picture)
  datamove explain model.onnx                (every data-movement node of an ONNX model)
  datamove explain model.xml --as onnx,torch (every slicing and split layer, as ONNX and PyTorch)

Shapes are in OpenVINO's notation (5, 2..10, ?); a picture is drawn for static inputs of rank <= 3.
Masks: a 1 in begin_mask/end_mask ignores begin[i]/end[i] (the whole extent is taken).
"""


# What a 1 at index i of each StridedSlice mask does (docs/semantics.md has the rules).
_MASK_HELP: Final = {
    "begin_mask": "a 1 ignores begin[i]: the axis is taken from its first element (its last "
    "with a negative stride)",
    "end_mask": "a 1 ignores end[i]: the axis is taken to its end (its start with a negative "
    "stride)",
    "new_axis_mask": "a 1 inserts an axis of size 1 in the output (begin[i] and end[i] unread)",
    "shrink_axis_mask": "a 1 takes element begin[i] alone and drops the axis, as x[i] does",
    "ellipsis_mask": "a 1 (one at most) stands for every axis no other index names, as ... does",
}


def _finish(
    parser: argparse.ArgumentParser,
    func: Callable[[argparse.Namespace], int],
    json_help: str | None,
    table: Mapping[str, tuple[str, str]] | None = None,
) -> None:
    """Add ``--json`` and, with a ``table`` of dialects, ``--as``; ``func`` runs the form."""
    parser.add_argument("--json", action="store_true", help=json_help)
    if table is not None:
        _dialect_text.allow_negative_lists(parser)  # --stop -5,2
        parser.add_argument(
            "--as",
            dest="as_",
            metavar="DIALECT,...",
            type=_dialect_text.dialect_list(table),
            help=f"also write it in these dialects: {', '.join(table)}",
        )
    parser.set_defaults(func=func)


def register(subparsers: Any) -> None:
    """Add ``datamove explain``."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = subparsers.add_parser(
        "explain",
        help="explain a StridedSlice, Slice, Split, VariadicSplit or Concat, a NumPy index, or "
        "a model's slicing layers: shapes, NumPy index, picture",
        description="Explain what one operator does to a shape: the output shape(s), the "
        "equivalent NumPy index and, for small inputs of rank <= 3, a picture; or what each "
        "slicing, split and Concat layer of a model (MODEL.xml, MODEL.onnx) does.",
        epilog=_EPILOG,
        formatter_class=fmt,
    )
    ops = parser.add_subparsers(dest="op", metavar="OPERATOR", required=True)
    add = functools.partial(ops.add_parser, epilog=_EPILOG, formatter_class=fmt)
    ss = add("strided-slice", help="StridedSlice-1")
    ss.add_argument("--shape", required=True, help="the input shape, e.g. 2,3,4 or [?,3,224,224]")
    ss.add_argument("--begin", required=True, help="comma-separated, e.g. 1,0,0")
    ss.add_argument("--end", required=True, help="comma-separated, e.g. 0,0,2")
    ss.add_argument("--stride", help="comma-separated (default: all 1)")
    for name in MASKS:
        ss.add_argument(
            "--" + name.replace("_", "-"), dest=name, metavar="0,1,...", help=_MASK_HELP[name]
        )
    _finish(ss, _print_strided, "print the explanation as JSON", _dialect_text.SLICING_DIALECTS)
    sp = add("split", help="Split-1")
    sp.add_argument("--shape", required=True, help="the input shape, e.g. 6,12 or [?,12]")
    sp.add_argument(
        "--axis", required=True, type=int, help="the axis to split (negative: from the end)"
    )
    sp.add_argument(
        "--num-splits", required=True, type=int, help="the number of equal parts; divides the axis"
    )
    _finish(sp, _print_split, "print the explanation as JSON", _dialect_text.SPLIT_DIALECTS)
    vs = add("variadic-split", help="VariadicSplit-1")
    vs.add_argument("--shape", required=True, help="the input shape, e.g. 2,6 or [?,6]")
    vs.add_argument(
        "--axis", required=True, type=int, help="the axis to split (negative: from the end)"
    )
    vs.add_argument(
        "--lengths",
        required=True,
        help="split_lengths, comma-separated, e.g. 1,2,-1 (one -1: the rest of the axis)",
    )
    _finish(vs, _print_split, "print the explanation as JSON", _dialect_text.SPLIT_DIALECTS)
    sl = add("slice", help="Slice-8")
    sl.add_argument("--shape", required=True, help="the input shape, e.g. 2,3,4 or [?,3,224,224]")
    sl.add_argument("--start", required=True, help="comma-separated, e.g. 1,-1")
    sl.add_argument("--stop", required=True, help="comma-separated, e.g. 2,-5")
    step = sl.add_argument(
        "--step", help="comma-separated, non-zero, e.g. 1,-2 (required: no default)"
    )
    sl.set_defaults(slice_parser=sl)
    sl.add_argument("--axes", help="the axes sliced, comma-separated (default: 0, 1, ...)")
    _finish(sl, _print_slice, "print the explanation as JSON", _dialect_text.SLICING_DIALECTS)
    # The usage shows --step required; argparse does not check it: its error is step_required's
    step.required = True
    sl.usage = sl.format_usage().removeprefix("usage: ").rstrip()
    step.required = False
    cc = add("concat", help="Concat-1")
    cc.add_argument(
        "--shapes", required=True, nargs="+", metavar="SHAPE", help="each input's shape"
    )
    cc.add_argument(
        "--axis", required=True, type=int, help="the axis to join along (negative: from the end)"
    )
    _finish(cc, _print_concat, "print the explanation as JSON")
    ix = add(
        "numpy",
        help="a NumPy index, e.g. 'x[1:, ::-1]': its output shape, canonical form, whether it is "
        "the identity or empty (also: datamove explain EXPR)",
    )
    ix.add_argument("index", metavar="EXPR", help="the index, parsed, never evaluated")
    ix.add_argument(
        "--shape", help="the input shape, e.g. 2,3,4 or [?,2..10] (default: any rank and sizes)"
    )
    _finish(ix, _print_numpy, "print the explanation as JSON", _dialect_text.SLICING_DIALECTS)
    md = add(
        "model",
        help="every Slice, StridedSlice, Split, VariadicSplit, Concat, Unsqueeze and Squeeze layer "
        "of an OpenVINO IR model, or node of an ONNX model (and its SplitToSequence and SequenceAt "
        "nodes) (also: "
        "datamove explain MODEL.xml, "
        "datamove explain MODEL.onnx)",
    )
    md.add_argument("model", help="the model's .xml file (or .onnx file)")
    md.add_argument("--bin", help="its .bin file (default: MODEL with the suffix .bin)")
    md.add_argument("--layer", metavar="ID_OR_NAME", help="explain this layer in full")
    _ir.add_input_shape(md, "explain")
    every = {**_dialect_text.SLICING_DIALECTS, **_dialect_text.SPLIT_DIALECTS}
    _finish(md, _print_model, "print the layers as JSON", every)
