"""``datamove explain``: what an operator does to a shape, in words and pictures.

For StridedSlice and Slice it prints the output shape, the equivalent NumPy index (``x[1:, :, :2]``,
built from the operator's own plan: `datamove._strided_slice.numpy_index`,
`datamove._slice.plan_slice`) and, for inputs of rank at most 3, a picture of which elements are
taken; for Slice also Python's reading of the same numbers where it takes other elements. For the
splits it prints every chunk's shape and its NumPy index, for Concat where each input goes in the
output, each with a picture labelling each element with its chunk or input.
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from datamove._concat import infer_concat
from datamove._errors import ValidationError
from datamove._shape import PartialShape
from datamove._slice import infer_slice, plan_slice
from datamove._split import infer_split, infer_variadic_split
from datamove._strided_slice import NUMPY_MAXDIMS, infer_strided_slice, numpy_index

__all__ = [
    "explain_concat",
    "explain_slice",
    "explain_split",
    "explain_strided_slice",
    "index_expression",
    "register",
]

_MAX_PICTURE: Final = 512  # elements; larger inputs get no picture
_LABELS: Final = "0123456789abcdefghijklmnopqrstuvwxyz"
MASK_NAMES: Final = ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")


def _slice_text(s: slice, d: int) -> str:
    step = 1 if s.step is None else s.step
    start, stop = s.start, s.stop
    if step > 0:
        a = "" if start in (None, 0) else str(start)
        b = "" if stop is None or stop >= d else str(stop)
    else:
        a = "" if start is None or start >= d - 1 else str(start)
        b = "" if stop is None else str(stop)
    text = f"{a}:{b}"
    return text if step == 1 else f"{text}:{step}"


def index_expression(index: Sequence[Any], shape: Sequence[int], name: str = "x") -> str:
    """Write a NumPy basic index the way a person would: ``x[1:, :, :2]``.

    Examples
    --------
    >>> index_expression((slice(1, 2, 1), slice(None), slice(0, 2, 1)), (2, 3, 4))
    'x[1:, :, :2]'
    >>> index_expression((None, Ellipsis, 1), (2, 3))
    'x[None, ..., 1]'
    >>> index_expression((Ellipsis,), (2, 3))
    'x[...]'
    """
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
            parts.append(_slice_text(item, shape[axis]))
            axis += 1
        else:
            parts.append(str(item))
            axis += 1
    return f"{name}[{', '.join(parts)}]"


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
    out = infer_strided_slice(shape, begin, end, stride, **masks)
    info: dict[str, Any] = {
        "input_shape": str(shape),
        "output_shape": str(out),
        "numpy": None,
        "picture": [],
    }
    if shape.is_static:
        dims = shape.to_shape()
        try:
            index = numpy_index(dims, begin, end, stride, **masks)
        except ValidationError as exc:  # inference has no rank limit; NumPy has (64 axes)
            info["numpy_unavailable"] = exc.rule
            return info
        _show_index(info, dims, index)
    return info


def _show_index(info: dict[str, Any], dims: tuple[int, ...], index: Any) -> None:
    """Add the NumPy expression of ``index``, and for small inputs the elements it takes."""
    import numpy as np  # noqa: PLC0415

    info["numpy"] = index_expression(index, dims)
    # No picture of an input NumPy cannot hold (the operator's plan has checked the output).
    if math.prod(dims) <= _MAX_PICTURE and len(dims) <= NUMPY_MAXDIMS:
        flat = np.arange(math.prod(dims)).reshape(dims)
        taken = flat[index].reshape(-1).tolist()
        width = len(str(max(math.prod(dims) - 1, 0)))
        chosen = set(taken)
        info["picture"] = _picture(
            dims,
            lambda i: str(flat[i]).rjust(width) if int(flat[i]) in chosen else "·".rjust(width),
        )
        if len(taken) <= 64:
            info["taken"] = taken


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
    ('[1]', 'x[::-1]', 'x[-3:-6:-3]')
    """
    out = infer_slice(shape, start, stop, step, axes)
    info: dict[str, Any] = {
        "input_shape": str(shape),
        "output_shape": str(out),
        "numpy": None,
        "python": None,
        "picture": [],
    }
    if shape.is_static:
        dims = shape.to_shape()
        try:
            (index,) = plan_slice(dims, start, stop, step, axes).indices
        except ValidationError as exc:  # a rank NumPy cannot index (more than 64 axes)
            info["numpy_unavailable"] = exc.rule
            return info
        _show_index(info, dims, index)
        info["python"] = _python_differs(dims, index, start, stop, step, axes)
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


def _chunks(shape: PartialShape, axis: int, lengths: list[int]) -> list[tuple[int, int]]:
    a = axis + shape.rank if axis < 0 and shape.rank is not None else axis
    d = shape[a].get_length()
    rest = d - sum(v for v in lengths if v != -1)
    bounds, start = [], 0
    for v in lengths:
        n = rest if v == -1 else v
        bounds.append((start, start + n))
        start += n
    return bounds


def explain_split(
    shape: PartialShape,
    axis: int,
    *,
    num_splits: int | None = None,
    lengths: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Everything ``datamove explain split`` / ``variadic-split`` prints, as data.

    Examples
    --------
    >>> info = explain_split(PartialShape([2, 6]), 1, lengths=[1, 2, -1])
    >>> info["outputs"]
    [('[2,1]', 'x[:, 0:1]'), ('[2,2]', 'x[:, 1:3]'), ('[2,3]', 'x[:, 3:6]')]
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
    if rank is None or not shape[axis + rank if axis < 0 else axis].is_static:
        return info
    a = axis + rank if axis < 0 else axis
    d = shape[a].get_length()
    lens = [d // num_splits] * num_splits if lengths is None and num_splits else list(lengths or [])
    bounds = _chunks(shape, a, lens)
    prefix = ":, " * a
    info["outputs"] = [
        (str(s), f"x[{prefix}{lo}:{hi}]") for s, (lo, hi) in zip(shapes, bounds, strict=True)
    ]
    if shape.is_static and _drawable(dims := shape.to_shape()):
        # The axis is at most _MAX_PICTURE long here: label each of its positions, no more.
        owner = [_LABELS[k % len(_LABELS)] * (hi - lo) for k, (lo, hi) in enumerate(bounds)]
        labels = "".join(owner)
        info["picture"] = _picture(dims, lambda i: labels[i[a]])
    return info


def explain_concat(shapes: Sequence[PartialShape], axis: int) -> dict[str, Any]:
    """Everything ``datamove explain concat`` prints, as data.

    Each input's part of the output (``out[:, 2:6]``) is known where every input's size on the
    axis is static; the inverse is the VariadicSplit of the output by those sizes.

    Examples
    --------
    >>> info = explain_concat([PartialShape([2, 3]), PartialShape([2, 1])], -1)
    >>> info["output_shape"], info["inputs"]
    ('[2,4]', [('[2,3]', 'out[:, 0:3]'), ('[2,1]', 'out[:, 3:4]')])
    >>> info["numpy"], info["inverse"]
    ('np.concatenate([x0, x1], axis=1)', 'dm.variadic_split(out, 1, [3, 1])')
    """
    out = infer_concat(list(shapes), axis)
    info: dict[str, Any] = {
        "input_shapes": [str(s) for s in shapes],
        "axis": axis,
        "output_shape": str(out),
        "inputs": [(str(s), None) for s in shapes],
        "numpy": None,
        "inverse": None,
        "picture": [],
    }
    rank = out.rank
    if rank is None:
        return info
    a = axis + rank if axis < 0 else axis
    names = ", ".join(f"x{k}" for k in range(len(shapes)))
    info["numpy"] = f"np.concatenate([{names}], axis={a})"
    if any(s.rank is None or not s[a].is_static for s in shapes):
        return info
    lengths = [s[a].get_length() for s in shapes]
    bounds = list(itertools.pairwise(itertools.accumulate(lengths, initial=0)))
    prefix = ":, " * a
    info["inputs"] = [
        (str(s), f"out[{prefix}{lo}:{hi}]") for s, (lo, hi) in zip(shapes, bounds, strict=True)
    ]
    info["inverse"] = f"dm.variadic_split(out, {a}, {lengths})"
    if out.is_static and _drawable(dims := out.to_shape()):
        # The axis is at most _MAX_PICTURE long here: label each of its positions, no more.
        labels = "".join(_LABELS[k % len(_LABELS)] * n for k, n in enumerate(lengths))
        info["picture"] = _picture(dims, lambda i: labels[i[a]])
    return info


def _ints(text: str, option: str) -> list[int]:
    if not text.strip():
        return []
    try:
        return [int(p) for p in text.replace(" ", "").split(",")]  # "1,,2" is an error
    except ValueError:
        raise ValidationError(
            "explain", option, text, "must be comma-separated integers, e.g. 1,0,-1"
        ) from None


def _shape(text: str) -> PartialShape:
    return PartialShape.parse(text)


def _print_strided(args: argparse.Namespace) -> int:
    masks = {
        name: _ints(getattr(args, name) or "", "--" + name.replace("_", "-")) for name in MASK_NAMES
    }
    begin, end = _ints(args.begin, "--begin"), _ints(args.end, "--end")
    stride = _ints(args.stride, "--stride") if args.stride else None
    info = explain_strided_slice(_shape(args.shape), begin, end, stride, masks)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"StridedSlice on x of shape {info['input_shape']}")
    print(f"  begin={begin} end={end} stride={stride if stride is not None else [1] * len(begin)}")
    set_masks = {k: v for k, v in masks.items() if any(v)}
    if set_masks:
        print("  " + " ".join(f"{k}={v}" for k, v in set_masks.items()))
    print(f"output shape: {info['output_shape']}")
    if info["numpy"]:
        print(f"NumPy:        {info['numpy']}")
    elif "numpy_unavailable" in info:
        print(f"NumPy:        none: {info['numpy_unavailable']}")
    if info["picture"]:
        print("elements taken (flat index; · = not taken):")
        print("\n".join(info["picture"]))
    if "taken" in info:
        print(f"output order: {' '.join(map(str, info['taken']))}")
    return 0


def _print_slice(args: argparse.Namespace) -> int:
    start, stop = _ints(args.start, "--start"), _ints(args.stop, "--stop")
    step = _ints(args.step, "--step")
    axes = _ints(args.axes, "--axes") if args.axes is not None else None
    info = explain_slice(_shape(args.shape), start, stop, step, axes)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"Slice on x of shape {info['input_shape']}")
    listed = f"axes={axes}" if axes is not None else f"axes={list(range(len(start)))} (default)"
    print(f"  start={start} stop={stop} step={step} {listed}")
    print(f"output shape: {info['output_shape']}")
    if info["numpy"]:
        print(f"NumPy:        {info['numpy']}")
    elif "numpy_unavailable" in info:
        print(f"NumPy:        none: {info['numpy_unavailable']}")
    if info["python"]:
        print(
            f"Python:       {info['python']} takes other elements (Slice clamps as OpenVINO's "
            "runtime and ONNX Slice do)"
        )
    if info["picture"]:
        print("elements taken (flat index; · = not taken):")
        print("\n".join(info["picture"]))
    if "taken" in info:
        print(f"output order: {' '.join(map(str, info['taken']))}")
    return 0


def _print_concat(args: argparse.Namespace) -> int:
    info = explain_concat([_shape(s) for s in args.shapes], args.axis)
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(f"Concat of {len(args.shapes)} inputs, axis {args.axis}")
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
    return 0


def _print_split(args: argparse.Namespace) -> int:
    if args.op == "split":
        info = explain_split(_shape(args.shape), args.axis, num_splits=args.num_splits)
        head = f"Split on x of shape {info['input_shape']}, axis {args.axis}, "
        head += f"num_splits {args.num_splits}"
    else:
        lengths = _ints(args.lengths, "--lengths")
        info = explain_split(_shape(args.shape), args.axis, lengths=lengths)
        head = f"VariadicSplit on x of shape {info['input_shape']}, axis {args.axis}, "
        head += f"split_lengths {lengths}"
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    print(head)
    for k, (shape, expr) in enumerate(info["outputs"]):
        print(f"  output {k}: {shape}" + (f"  = {expr}" if expr else ""))
    if info["picture"]:
        print("elements by output:")
        print("\n".join(info["picture"]))
    return 0


_EPILOG = """\
examples:
  datamove explain strided-slice --shape 2,3,4 --begin 1,0,0 --end 0,0,2 \\
      --begin-mask 0,1,1 --end-mask 1,1,0
  datamove explain strided-slice --shape 6 --begin 3 --end 0 --stride -1 --end-mask 1
  datamove explain strided-slice --shape "[?,2..10,12]" --begin 0,-3 --end 0,0 \\
      --begin-mask 1,0 --end-mask 1,1
  datamove explain slice --shape 2,3,4 --start 1,-1 --stop 2,-5 --step 1,-2 --axes 0,2
  datamove explain slice --shape 1 --start -3 --stop -6 --step -3
  datamove explain split --shape 6,12 --axis 1 --num-splits 3
  datamove explain variadic-split --shape 2,6 --axis 1 --lengths 1,2,-1
  datamove explain concat --shapes 2,3 2,1 --axis -1

Shapes are in OpenVINO's notation (5, 2..10, ?); a picture is drawn for static inputs of rank <= 3.
Masks: a 1 in begin_mask/end_mask ignores begin[i]/end[i] (the whole extent is taken).
"""


def register(subparsers: Any) -> None:
    """Add ``datamove explain``."""
    fmt = argparse.RawDescriptionHelpFormatter
    parser = subparsers.add_parser(
        "explain",
        help="explain a StridedSlice, Slice, Split, VariadicSplit or Concat: shapes, NumPy "
        "index, picture",
        description="Explain what one operator does to a shape: the output shape(s), the "
        "equivalent NumPy index and, for small inputs of rank <= 3, a picture.",
        epilog=_EPILOG,
        formatter_class=fmt,
    )
    ops = parser.add_subparsers(dest="op", metavar="OPERATOR", required=True)
    ss = ops.add_parser("strided-slice", help="StridedSlice-1", epilog=_EPILOG, formatter_class=fmt)
    ss.add_argument("--shape", required=True, help="the input shape, e.g. 2,3,4 or [?,3,224,224]")
    ss.add_argument("--begin", required=True, help="comma-separated, e.g. 1,0,0")
    ss.add_argument("--end", required=True, help="comma-separated, e.g. 0,0,2")
    ss.add_argument("--stride", help="comma-separated (default: all 1)")
    for name in MASK_NAMES:
        ss.add_argument(
            "--" + name.replace("_", "-"), dest=name, metavar="0,1,...", help=f"{name} bits"
        )
    ss.add_argument("--json", action="store_true", help="print the explanation as JSON")
    ss.set_defaults(func=_print_strided)
    sp = ops.add_parser("split", help="Split-1", epilog=_EPILOG, formatter_class=fmt)
    sp.add_argument("--shape", required=True)
    sp.add_argument("--axis", required=True, type=int)
    sp.add_argument("--num-splits", required=True, type=int)
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(func=_print_split)
    vs = ops.add_parser(
        "variadic-split", help="VariadicSplit-1", epilog=_EPILOG, formatter_class=fmt
    )
    vs.add_argument("--shape", required=True)
    vs.add_argument("--axis", required=True, type=int)
    vs.add_argument("--lengths", required=True, help="split_lengths, e.g. 1,2,-1")
    vs.add_argument("--json", action="store_true")
    vs.set_defaults(func=_print_split)
    sl = ops.add_parser("slice", help="Slice-8", epilog=_EPILOG, formatter_class=fmt)
    sl.add_argument("--shape", required=True, help="the input shape, e.g. 2,3,4 or [?,3,224,224]")
    sl.add_argument("--start", required=True, help="comma-separated, e.g. 1,-1")
    sl.add_argument("--stop", required=True, help="comma-separated, e.g. 2,-5")
    sl.add_argument("--step", required=True, help="comma-separated, non-zero, e.g. 1,-2")
    sl.add_argument("--axes", help="the axes sliced, comma-separated (default: 0, 1, ...)")
    sl.add_argument("--json", action="store_true", help="print the explanation as JSON")
    sl.set_defaults(func=_print_slice)
    cc = ops.add_parser("concat", help="Concat-1", epilog=_EPILOG, formatter_class=fmt)
    cc.add_argument(
        "--shapes", required=True, nargs="+", metavar="SHAPE", help="each input's shape"
    )
    cc.add_argument("--axis", required=True, type=int)
    cc.add_argument("--json", action="store_true", help="print the explanation as JSON")
    cc.set_defaults(func=_print_concat)
