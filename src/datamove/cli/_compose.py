"""``datamove compose A B``: one slicing equal to ``A`` then ``B``, in NumPy and other dialects.

``A`` and ``B`` are NumPy basic-indexing expressions (``"x[1:, ::-1]"``); ``--shape`` says which
shapes the result must hold on (static, intervals such as ``[?,2..10]``; left out: every shape),
and ``--as`` lists dialects to write it in, one line each: ``numpy``, ``strided-slice``
(OpenVINO StridedSlice-1 / ``dm.strided_slice`` keyword arguments), ``slice`` (OpenVINO Slice-8
with Unsqueeze/Squeeze), ``onnx``, ``tf`` (``tf.strided_slice``) and ``torch``, as JSON. A
dialect that cannot say the result on every allowed shape gets a ``cannot:`` line with the reason
and a witness; the exit status stays 0, since the composition itself exists. Where no single
slicing is ``A`` then ``B`` on every allowed shape, one line on stderr and exit 1.
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import json
from typing import Any, Final

from datamove._compose import compose
from datamove._dialects import Slicing
from datamove._errors import NotExpressible
from datamove._shape import PartialShape

__all__ = ["register"]

DIALECTS: Final = ("numpy", "strided-slice", "slice", "onnx", "tf", "torch")

_EPILOG: Final = """examples:
  datamove compose "x[1:, ::-1]" "x[::2]"
  datamove compose "x[::-1]" "x[1:]" --as onnx,torch
  datamove compose "x[-3:]" "x[1:]" --shape "[3..]"
"""


def _dialects(text: str) -> list[str]:
    names = [p.strip() for p in text.split(",") if p.strip()]
    bad = [n for n in names if n not in DIALECTS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown dialect {', '.join(bad) or repr(text)}; choose from {','.join(DIALECTS)}"
        )
    return names


def _emit(s: Slicing, dialect: str, shape: PartialShape | None) -> str:
    emit: dict[str, Any] = {
        "numpy": s.to_numpy,
        "strided-slice": s.to_strided_slice,
        "slice": s.to_slice,
        "onnx": s.to_onnx,
        "tf": s.to_tf,
        "torch": s.to_torch,
    }
    try:
        value = emit[dialect](shape)
    except NotExpressible as exc:
        return f"{dialect}: cannot: {exc}"
    return f"{dialect}: {value if isinstance(value, str) else json.dumps(value)}"


def _numpy(s: Slicing, shape: PartialShape | None) -> str:
    """The slicing's own NumPy text, or the one exact on ``shape`` where the two differ."""
    try:
        return s.to_numpy()
    except NotExpressible:
        return s.to_numpy(shape)


def _run(args: argparse.Namespace) -> int:
    shape = None if args.shape is None else PartialShape.parse(args.shape)
    a, b = Slicing.from_numpy(args.a), Slicing.from_numpy(args.b)
    result = compose(a, b, shape)
    print(_numpy(result, shape))
    for dialect in args.dialects or []:
        print(_emit(result, dialect, shape))
    return 0


def register(subparsers: Any) -> None:
    """Add ``datamove compose``."""
    parser = subparsers.add_parser(
        "compose",
        help="one slicing equal to A then B (B(A(x))), in NumPy form and other dialects",
        description="Compose two NumPy slicings into one, exact on every shape --shape allows "
        "(default: every shape), or say why no single slicing is.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("a", metavar="A", help='the first slicing, e.g. "x[1:, ::-1]"')
    parser.add_argument("b", metavar="B", help='the slicing applied to its result, e.g. "x[::2]"')
    parser.add_argument(
        "--shape", help="the shapes it must hold on: 2,3,4 or [?,2..10] (default: every shape)"
    )
    parser.add_argument(
        "--as",
        dest="dialects",
        type=_dialects,
        metavar="D,...",
        help=f"also write it in these dialects, one line each: {','.join(DIALECTS)}",
    )
    parser.set_defaults(func=_run)
