"""``datamove compose A B``: one slicing equal to ``A`` then ``B``, in NumPy and other dialects.

``A`` and ``B`` are NumPy basic-indexing expressions (``"x[1:, ::-1]"``); ``--shape`` says which
shapes the result must hold on (static, intervals such as ``[?,2..10]``; left out: every shape),
and ``--as`` lists dialects to write it in, as ``explain --as`` and ``convert`` write them
(``cli/_dialect_text.py``): every slicing dialect, DirectML and WebNN included. A dialect that
cannot say the result on every allowed shape gets one line with the reason and a witness; the
exit status stays 0, since the composition itself exists. ``--json`` prints one object: the NumPy
text and, per dialect, the emitter's value or the reason. Where no single slicing is ``A`` then
``B`` on every allowed shape, one line on stderr and exit 1.
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
from datamove.cli import _dialect_text
from datamove.cli._dialect_text import SLICING_DIALECTS
from datamove.cli._exit import EXIT_OK

__all__ = ["register"]

_EPILOG: Final = """examples:
  datamove compose "x[1:, ::-1]" "x[::2]"
  datamove compose "x[::-1]" "x[1:]" --as onnx,torch
  datamove compose "x[-3:]" "x[1:]" --shape "[3..]"
"""


def _numpy(s: Slicing, shape: str | None) -> str:
    """The slicing's own NumPy text, or the one exact on ``shape`` where the two differ."""
    try:
        return s.to_numpy()
    except NotExpressible:
        return s.to_numpy(shape)


def _run(args: argparse.Namespace) -> int:
    # the text, as convert passes it: an error shows shape='[?]', not PartialShape('[?]')
    shape = None if args.shape is None else str(PartialShape.parse(args.shape))
    a, b = Slicing.from_numpy(args.a), Slicing.from_numpy(args.b)
    result = compose(a, b, shape)
    text = _numpy(result, shape)
    translated = _dialect_text.translate(result, args.dialects or [], shape)
    if args.json:
        print(json.dumps({"numpy": text, "as": translated}))
        return EXIT_OK
    print(text)
    if translated:
        print("\n".join(_dialect_text.show_blocks(translated)))
    return EXIT_OK


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
        type=_dialect_text.dialect_list(SLICING_DIALECTS),
        metavar="D,...",
        help=f"also write it in these dialects: {','.join(SLICING_DIALECTS)}",
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON object: the NumPy text and each dialect's"
    )
    parser.set_defaults(func=_run)
