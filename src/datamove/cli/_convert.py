"""``datamove convert``: one slicing's parameters, from one dialect to another, for scripts.

``--from`` names the dialect the parameters are in (each has its own options, listed in
``SOURCES``); ``--to`` the dialect to write, through the emitters of ``dm.Slicing``
(``_dialect_text.SLICING_DIALECTS``), exact on every shape ``--shape`` allows (default: any).
Plain output is the emitter's value as text (``_dialect_text.render``); ``--json`` prints the
emitter's value as one JSON value (a dict, a list of ``[op, params]`` pairs, or NumPy's string).
Exit 1 where the input is invalid or the target dialect cannot say the slicing (the reason and
its witness shape in one line), 2 on usage errors.
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any, Final

from datamove._dialects import Slicing
from datamove._errors import NotExpressible, ValidationError
from datamove._shape import PartialShape
from datamove._strided_slice import MASKS
from datamove.cli import _dialect_text

__all__ = ["SOURCES", "register"]

EXIT_INVALID = 1

# --from NAME -> (required options, optional options), by their dest names; but for the masks
# (keywords), in the order Slicing.from_NAME takes them.
SOURCES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "numpy": (("index",), ()),
    "strided-slice": (("begin", "end"), ("stride", *MASKS)),
    "slice": (("start", "stop"), ("step", "axes")),
    "onnx": (("starts", "ends"), ("axes", "steps")),
    "tf": (("begin", "end"), ("strides", *MASKS)),
}

# Every source option, with its help; masks are lists of 0/1 (strided-slice) or ints (tf).
_OPTIONS: Final = {
    "index": "numpy: the expression, e.g. 'x[1:, ..., None, ::-2]'",
    "begin": "strided-slice, tf: comma-separated, e.g. 1,0,0",
    "end": "strided-slice, tf: comma-separated",
    "stride": "strided-slice: comma-separated (default: all 1)",
    "strides": "tf: comma-separated (default: all 1)",
    "start": "slice: comma-separated",
    "stop": "slice: comma-separated",
    "step": "slice: comma-separated (default: all 1)",
    "starts": "onnx: comma-separated",
    "ends": "onnx: comma-separated",
    "steps": "onnx: comma-separated (default: all 1)",
    "axes": "slice, onnx: comma-separated (default: 0, 1, ...)",
    **dict.fromkeys(
        MASKS, "strided-slice: comma-separated 0/1, e.g. 0,1,1; tf: an int bit field, e.g. 6"
    ),
}


def _option(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _bits(text: str, dest: str) -> int:
    try:
        return int(text.strip(), 0)  # 6, 0b110 or 0x6
    except ValueError:
        raise ValidationError(
            "convert", _option(dest), text, "must be an int bit field, e.g. 6 or 0b110"
        ) from None


def _slicing(source: str, given: dict[str, str]) -> Slicing:
    """The slicing the ``--from`` parameters describe (``ValidationError`` where invalid)."""
    if source == "numpy":
        return Slicing.from_numpy(given["index"])

    def ints(dest: str) -> list[int] | None:
        return (
            _dialect_text.int_list(given[dest], _option(dest), "convert") if dest in given else None
        )

    masks = {
        m: _bits(given[m], m) if source == "tf" else _dialect_text.mask_list(given[m], m, "convert")
        for m in MASKS
        if m in given
    }
    required, optional = SOURCES[source]
    values = [ints(d) for d in (*required, *optional) if d not in MASKS]
    make: Callable[..., Slicing] = getattr(Slicing, "from_" + source.replace("-", "_"))
    return make(*values, **masks)


def _run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.convert_parser
    if args.expr is not None:  # datamove convert "x[1:]" --to onnx: --from numpy --index "x[1:]"
        if args.source not in (None, "numpy") or args.index is not None:
            parser.error(
                f"a NumPy expression ({args.expr!r}) is --from numpy --index EXPR; "
                "give it once, and the other dialects' parameters as options"
            )
        args.source, args.index = "numpy", args.expr
    if args.source is None:
        parser.error("--from DIALECT is required, or a NumPy expression such as 'x[1:, ::-1]'")
    required, optional = SOURCES[args.source]
    given = {d: getattr(args, d) for d in _OPTIONS if getattr(args, d) is not None}
    stray = [d for d in given if d not in required + optional]
    if stray:
        allowed = ", ".join(_option(d) for d in required + optional)
        parser.error(
            f"{_option(stray[0])} is not a parameter of --from {args.source} "
            f"(its parameters: {allowed})"
        )
    missing = [d for d in required if d not in given]
    if missing:
        need = ", ".join(_option(d) for d in missing)
        parser.error(f"--from {args.source} needs {need}")
    slicing = _slicing(args.source, given)
    shape = None if args.shape is None else str(PartialShape.parse(args.shape))
    try:
        value = _dialect_text.emit(slicing, args.target, shape)
    except NotExpressible as exc:
        entry = {"error": str(exc), "witness": exc.witness}
        print(f"datamove: error: {_dialect_text.reason(entry)}", file=sys.stderr)
        return EXIT_INVALID
    if value is None:
        parser.error(f"--to {args.target} is {_dialect_text.UNAVAILABLE} of datamove")
    if args.json:
        print(json.dumps(value))
    else:
        print("\n".join(_dialect_text.render(args.target, value)))
    return 0


_EPILOG = """\
examples:
  datamove convert --from onnx --starts 1,-1 --ends 9223372036854775807,-9223372036854775808 \\
      --steps 1,-2 --to numpy
  datamove convert --from numpy --index "x[1:, ..., None, ::-2]" --to strided-slice --json
  datamove convert "x[..., ::-1]" --to tf
  datamove convert --from tf --begin 1,0 --end 0,0 --begin-mask 0 --end-mask 3 --to onnx \\
      --shape "[?,4]"
  datamove convert --from slice --start -100 --stop -200 --step -1 --to numpy --shape 50

--from numpy takes --index (or the expression alone, as EXPR); strided-slice --begin --end
[--stride] [--*-mask 0,1,...]; slice --start --stop [--step] [--axes]; onnx --starts --ends
[--axes] [--steps]; tf --begin --end [--strides] [--*-mask INT]. Shapes are in OpenVINO's
notation (5, 2..10, ?); without --shape the parameters written are exact for every shape.
Exit 1: invalid parameters, or --to cannot say the slicing for every shape allowed (the
witness is a shape where it fails).
"""


def register(subparsers: Any) -> None:
    """Add ``datamove convert``."""
    parser = subparsers.add_parser(
        "convert",
        help="write a slicing's parameters in another dialect (NumPy, OpenVINO, ONNX, "
        "TensorFlow, PyTorch ...)",
        description="Read a slicing in one dialect and write it, exactly, in another.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "expr",
        nargs="?",
        metavar="EXPR",
        help="a NumPy expression, e.g. 'x[1:-1:2]': short for --from numpy --index EXPR",
    )
    parser.add_argument(
        "--from",
        dest="source",
        choices=list(SOURCES),
        metavar="DIALECT",
        help=f"the input dialect: {', '.join(SOURCES)} (required without EXPR)",
    )
    parser.add_argument(
        "--to",
        dest="target",
        required=True,
        choices=list(_dialect_text.SLICING_DIALECTS),
        metavar="DIALECT",
        help=f"the dialect to write: {', '.join(_dialect_text.SLICING_DIALECTS)}",
    )
    parser.add_argument(
        "--shape", metavar="SHAPE", help="the input shape, e.g. 2,3,4 or [?,3,2..10] (default: any)"
    )
    parser.add_argument("--json", action="store_true", help="print the emitter's value as JSON")
    for dest, text in _OPTIONS.items():
        metavar = "EXPR" if dest == "index" else "MASK" if dest in MASKS else "N,..."
        parser.add_argument(_option(dest), dest=dest, metavar=metavar, help=text)
    _dialect_text.allow_negative_lists(parser)  # --ends -1,-2
    parser.set_defaults(func=_run, convert_parser=parser)
