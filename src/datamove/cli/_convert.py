"""``datamove convert``: one slicing's or split's parameters, from one dialect to another.

``--from`` names the dialect the parameters are in (each has its own options, listed in
``SOURCES``); ``--to`` the dialect to write, through the emitters of ``dm.Slicing``
(``_dialect_text.SLICING_DIALECTS``) or ``dm.Splitting`` (``SPLIT_DIALECTS``), exact on every
shape ``--shape`` allows (default: any). An expression alone is a NumPy index (``x[1:]``,
``--from numpy --index``) or a call of a split function (``torch.chunk(x, 3, 1)``,
``np.split(x, [2], axis=1)``, ``tf.split(x, 2)``, ``x.chunk(3, -1)``): parsed, never evaluated
(`split_call`). Plain output is the emitter's value as text (``_dialect_text.render``);
``--json`` prints the emitter's value as one JSON value (a dict, a list of ``[op, params]``
pairs, one ``[op, params]`` pair for a split, or NumPy's string). Exit 1 where the input is
invalid or the target dialect cannot say the operation (the reason and its witness in one
line), 2 on usage errors.
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import ast
import inspect
import json
import sys
from collections.abc import Callable
from typing import Any, Final

import numpy as np

from datamove._dialects import Slicing
from datamove._errors import NotExpressible, ValidationError
from datamove._shape import INT64_MAX, INT64_MIN, PartialShape
from datamove._splitting import Splitting
from datamove._strided_slice import MASKS
from datamove.cli import _dialect_text
from datamove.cli._exit import EXIT_INVALID, EXIT_OK

__all__ = ["SOURCES", "register", "split_call"]

# --from NAME -> (required options, optional options), by their dest names; but for the masks
# (keywords), in the order Slicing.from_NAME takes them.
SOURCES: Final[dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "numpy": (("index",), ()),
    "strided-slice": (("begin", "end"), ("stride", *MASKS)),
    "slice": (("start", "stop", "step"), ("axes",)),
    "onnx": (("starts", "ends"), ("axes", "steps")),
    "tf": (("begin", "end"), ("strides", *MASKS)),
    # splits: Splitting.from_NAME, each option passed by its parameter's name (_PARAMETERS)
    "split": (("axis", "num_splits"), ()),
    "variadic-split": (("axis", "lengths"), ()),
    "onnx-split": ((), ("axis", "split", "num_outputs")),
}
_SPLITS: Final = ("split", "variadic-split", "onnx-split")
_PARAMETERS: Final = {"lengths": "split_lengths"}  # an option named as explain names it
_ONE_INT: Final = ("axis", "num_splits", "num_outputs")

# Every source option, with its help; masks are lists of 0/1 (strided-slice) or ints (tf).
_OPTIONS: Final = {
    "index": "numpy: the expression, e.g. 'x[1:, ..., None, ::-2]'",
    "begin": "strided-slice, tf: comma-separated, e.g. 1,0,0",
    "end": "strided-slice, tf: comma-separated",
    "stride": "strided-slice: comma-separated (default: all 1)",
    "strides": "tf: comma-separated (default: all 1)",
    "start": "slice: comma-separated",
    "stop": "slice: comma-separated",
    "step": "slice: comma-separated (required: Slice-8 has no default step)",
    "starts": "onnx: comma-separated",
    "ends": "onnx: comma-separated",
    "steps": "onnx: comma-separated (default: all 1)",
    "axes": "slice, onnx: comma-separated (default: 0, 1, ...)",
    "axis": "split, variadic-split, onnx-split: the axis to split (onnx-split's default: 0)",
    "num_splits": "split: the number of equal parts",
    "lengths": "variadic-split: split_lengths, e.g. 2,-1 (one -1: the rest of the axis)",
    "split": "onnx-split: the parts' lengths, e.g. 2,3 (Split-18's input)",
    "num_outputs": "onnx-split: Split-18's num_outputs (parts of ceil(size / n), the last shorter)",
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
        bits = text.replace(" ", "").split(",")
        value = sum(1 << i for i, b in enumerate(bits) if b == "1")
        hint = f"the list {text} is {_option(dest)} {value}" if set(bits) <= {"0", "1"} else None
        raise ValidationError(
            "convert", _option(dest), text, "must be an int bit field, e.g. 6 or 0b110", hint=hint
        ) from None


def _operation(source: str, given: dict[str, Any], rank: int | None) -> Slicing | Splitting:
    """What the ``--from`` parameters describe (``ValidationError`` where invalid).

    ``rank`` is ``--shape``'s, where known: a Slice's axes from the back count from it.
    """
    if source == "numpy":
        return Slicing.from_numpy(given["index"])

    def ints(dest: str) -> Any:
        if dest not in given or dest in _ONE_INT:  # an int option is read by argparse
            return given.get(dest)
        return _dialect_text.int_list(given[dest], _option(dest), "convert")

    if source in _SPLITS:
        reader = "onnx" if source == "onnx-split" else source.replace("-", "_")
        split = getattr(Splitting, "from_" + reader)
        return split(**{_PARAMETERS.get(d, d): ints(d) for d in given})  # type: ignore[no-any-return]

    masks = {
        m: _bits(given[m], m) if source == "tf" else _dialect_text.mask_list(given[m], m, "convert")
        for m in MASKS
        if m in given
    }
    required, optional = SOURCES[source]
    values = [ints(d) for d in (*required, *optional) if d not in MASKS]
    if source == "tf" and all(INT64_MIN <= v <= INT64_MAX for v in values[0]):
        values[0] = np.array(values[0], np.int64)  # the numbers as written, as --to tf writes them
    make: Callable[..., Slicing] = getattr(Slicing, "from_" + source.replace("-", "_"))
    if source in ("slice", "onnx"):
        return make(*values, rank=rank)
    return make(*values, **masks)


# A split function's call -> its parameters, from the data's, as the library's signature names
# them; the module names Splitting's parser (from_numpy, from_torch, from_tf).
_CALLS: Final = {
    "numpy.split": "ary, indices_or_sections, axis=0",
    "numpy.array_split": "ary, indices_or_sections, axis=0",
    "torch.split": "tensor, split_size_or_sections, dim=0",
    "torch.chunk": "input, chunks, dim=0",
    "torch.tensor_split": "input, indices_or_sections, dim=0",
    "tf.split": "value, num_or_size_splits, axis=0, num=None, name=None",
}
_MODULES: Final = {"np": "numpy", "tensorflow": "tf"}
# The keywords PyTorch's tensor_split takes: its docs' indices_or_sections is no keyword of it
_TORCH_KEYWORDS: Final = {"sections": "indices_or_sections", "indices": "indices_or_sections"}


class _Data:
    """The name a call splits (``x`` in ``torch.chunk(x, 3)``), where the call has it."""


def split_call(text: str) -> Splitting | None:
    """The split a call of ``_CALLS`` makes (``torch.chunk(x, 3, 1)``); ``None``: no call.

    Parsed, never evaluated: the data is a name, every other argument a literal. A tensor's
    method (``x.chunk(3, dim=1)``) is PyTorch's. A call of another function, or arguments its
    signature refuses, is a ``ValidationError``.

    Examples
    --------
    >>> split_call("torch.chunk(x, 3, dim=1)")
    Splitting(axis=1, rule='chunk', value=3)
    >>> split_call("np.split(a, [2, 5])")
    Splitting(axis=0, rule='indices', value=(2, 5))
    >>> split_call("x[1:]") is None
    True
    """

    def refuse(rule: str) -> ValidationError:
        return ValidationError("convert", "EXPR", text, rule)

    try:
        node = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None  # Slicing.from_numpy says what an expression lacks
    if not isinstance(node, ast.Call):
        return None
    func, args = node.func, list(node.args)
    name = ast.unparse(func)
    module, _, function = name.rpartition(".")
    full = f"{_MODULES.get(module, module)}.{function}"
    receiver = func.value if isinstance(func, ast.Attribute) else None
    if isinstance(receiver, ast.Name) and module not in (*_MODULES, *_MODULES.values(), "torch"):
        full, args = f"torch.{function}", [receiver, *args]  # x.chunk(3): a tensor's method
    if full not in _CALLS:
        known = ", ".join([*_CALLS, "x.split", "x.chunk", "x.tensor_split"])
        raise refuse(f"calls {name}, which is no split datamove reads; those are {known}")
    signature = inspect.Signature(
        [
            inspect.Parameter(
                p,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=ast.literal_eval(default) if eq else inspect.Parameter.empty,
            )
            for p, eq, default in (param.partition("=") for param in _CALLS[full].split(", "))
        ]
    )

    def literal(arg: ast.expr) -> Any:
        if isinstance(arg, ast.Starred):
            raise refuse("unpacks arguments (* or **); write each one")
        if isinstance(arg, ast.Name):
            return _Data()
        try:
            return ast.literal_eval(arg)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            rule = f"passes {ast.unparse(arg)}, which is no literal (nothing is evaluated)"
            raise refuse(rule) from None

    keywords: dict[str, Any] = {}
    for k in node.keywords:
        if k.arg is None:
            raise refuse("unpacks arguments (* or **); write each one")
        if full == "torch.tensor_split" and k.arg == "indices_or_sections":  # its docs' name
            rule = f"passes indices_or_sections={literal(k.value)!r}, a keyword torch.tensor_split"
            rule += " does not take (PyTorch refuses it): pass it by position, or as sections= "
            raise refuse(rule + "(an int) or indices= (a list)")
        name = _TORCH_KEYWORDS.get(k.arg, k.arg) if full == "torch.tensor_split" else k.arg
        if name in keywords:
            raise refuse(f"passes {name} twice")
        keywords[name] = literal(k.value)
        if name != k.arg and isinstance(keywords[name], (list, tuple)) != (k.arg == "indices"):
            form = "a list of indices" if k.arg == "indices" else "an int, the count of parts"
            other = "sections" if k.arg == "indices" else "indices"
            rule = f"passes {k.arg}={keywords[name]!r}; torch.tensor_split's {k.arg}= is {form}"
            raise refuse(f"{rule} (PyTorch refuses another), {other}= the other form")
    try:
        bound = signature.bind(*map(literal, args), **keywords)
    except TypeError as exc:
        raise refuse(f"does not match {full}({_CALLS[full]}): {exc}") from None
    bound.apply_defaults()
    values = bound.arguments
    first = next(iter(values))
    data = values.pop(first)
    if not isinstance(data, _Data):
        raise refuse(f"splits {first}={data!r}; the data is a name, such as x")
    values.pop("name", None)  # tf.split's op name
    named = next((p for p, v in values.items() if isinstance(v, _Data)), None)
    if named is not None:
        raise refuse(f"passes a name as {named}; every argument but the data is a literal")
    library, _, function = full.partition(".")
    make = getattr(Splitting, f"from_{library}")
    return make(*values.values(), **({} if library == "tf" else {"function": function}))  # type: ignore[no-any-return]


def _run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.convert_parser
    given = {d: getattr(args, d) for d in _OPTIONS if getattr(args, d) is not None}
    op: Slicing | Splitting | None = None
    if args.expr is not None:  # datamove convert "x[1:]" --to onnx: --from numpy --index "x[1:]"
        op = split_call(args.expr)
        if op is not None and (args.source is not None or given):
            extra = "--from" if args.source is not None else _option(next(iter(given)))
            parser.error(f"{extra} is not for a call ({args.expr!r}): the call gives the split")
        if args.source not in (None, "numpy") or args.index is not None:
            parser.error(
                f"a NumPy expression ({args.expr!r}) is --from numpy --index EXPR; "
                "give it once, and the other dialects' parameters as options"
            )
        args.source, args.index = "numpy", args.expr
        given["index"] = args.expr
    if args.source is None:
        parser.error(
            "--from DIALECT is required, or an expression such as 'x[1:, ::-1]' or "
            "'torch.chunk(x, 3, 1)'"
        )
    shape = PartialShape(None) if args.shape is None else PartialShape.parse(args.shape)
    if op is None:
        required, optional = SOURCES[args.source]
        stray = [d for d in given if d not in required + optional]
        if stray:
            allowed = ", ".join(_option(d) for d in required + optional)
            parser.error(
                f"{_option(stray[0])} is not a parameter of --from {args.source} "
                f"(its parameters: {allowed})"
            )
        missing = [d for d in required if d not in given]
        if missing == ["step"]:
            after = ["--to", args.target, *([] if args.shape is None else ["--shape", args.shape])]
            _dialect_text.step_required(parser, args, ["convert", "--from", "slice"], after)
        if missing:
            need = ", ".join(_option(d) for d in missing)
            parser.error(f"--from {args.source} needs {need}")
        op = _operation(args.source, given, shape.rank)
    split = isinstance(op, Splitting)
    table = _dialect_text.SPLIT_DIALECTS if split else _dialect_text.SLICING_DIALECTS
    if args.target not in table:
        parser.error(
            f"--to {args.target} does not write a {'split' if split else 'slicing'}; "
            f"the dialects of one are {', '.join(table)}"
        )
    try:
        value = _dialect_text.emit(op, args.target, None if args.shape is None else str(shape))
    except NotExpressible as exc:
        entry = {"error": str(exc), "witness": exc.witness}
        print(f"datamove: error: {_dialect_text.reason(entry, split)}", file=sys.stderr)
        return EXIT_INVALID
    if value is None:
        parser.error(f"--to {args.target} is {_dialect_text.UNAVAILABLE} of datamove")
    if args.json:
        print(json.dumps(value))
    else:
        print("\n".join(_dialect_text.render(args.target, value, split)))
    return EXIT_OK


_EPILOG = """\
examples:
  datamove convert --from onnx --starts 1,-1 --ends 9223372036854775807,-9223372036854775808 \\
      --steps 1,-2 --to numpy
  datamove convert --from numpy --index "x[1:, ..., None, ::-2]" --to strided-slice --json
  datamove convert "x[..., ::-1]" --to tf
  datamove convert --from tf --begin 1,0 --end 0,0 --begin-mask 0 --end-mask 3 --to onnx \\
      --shape "[?,4]"
  datamove convert --from slice --start -100 --stop -200 --step -1 --to numpy --shape 50
  datamove convert "torch.chunk(x, 3, 1)" --to onnx --shape "[?,10]"
  datamove convert --from variadic-split --axis 1 --lengths 2,-1 --to tf

--from numpy takes --index (or the expression alone, as EXPR); strided-slice --begin --end
[--stride] [--*-mask 0,1,...]; slice --start --stop --step [--axes]; onnx --starts --ends
[--axes] [--steps]; tf --begin --end [--strides] [--*-mask INT]. Splits: split --axis
--num-splits; variadic-split --axis --lengths; onnx-split [--axis] (--split | --num-outputs);
or the call alone, as EXPR: np.split, np.array_split, torch.split, torch.chunk,
torch.tensor_split, tf.split, x.split, x.chunk, x.tensor_split. Shapes are in OpenVINO's
notation (5, 2..10, ?); without --shape the parameters written are exact for every shape.
Exit 1: invalid parameters, or --to cannot say the operation for every shape allowed (the
witness is a shape, or a split axis's size, where it fails).
"""


def _source(name: str) -> str:
    """``--from``'s dialect, an alias read as its name; PyTorch's, no source, says what is."""
    name = _dialect_text.ALIASES.get(name, name)
    if name == "torch":
        raise argparse.ArgumentTypeError(
            "PyTorch's slicing is a NumPy index, its split a call: give either as EXPR, e.g. "
            "'x[1:, ::-1]' or 'torch.chunk(x, 3, 1)', without --from"
        )
    return name


def register(subparsers: Any) -> None:
    """Add ``datamove convert``."""
    parser = subparsers.add_parser(
        "convert",
        help="write a slicing's or a split's parameters in another dialect (NumPy, OpenVINO, "
        "ONNX, TensorFlow, PyTorch ...)",
        description="Read a slicing or a split in one dialect and write it, exactly, in another.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "expr",
        nargs="?",
        metavar="EXPR",
        help="a NumPy expression, e.g. 'x[1:-1:2]' (short for --from numpy --index EXPR), or "
        "a split's call, e.g. 'torch.chunk(x, 3, 1)' (parsed, never evaluated)",
    )
    parser.add_argument(
        "--from",
        dest="source",
        choices=list(SOURCES),
        type=_source,
        metavar="DIALECT",
        help=f"the input dialect: {', '.join(SOURCES)} (required without EXPR)",
    )
    every = {**_dialect_text.SLICING_DIALECTS, **_dialect_text.SPLIT_DIALECTS}
    parser.add_argument(
        "--to",
        dest="target",
        required=True,
        choices=list(every),
        type=lambda name: _dialect_text.ALIASES.get(name, name),
        metavar="DIALECT",
        help=f"the dialect to write: of a slicing {', '.join(_dialect_text.SLICING_DIALECTS)}; "
        f"of a split {', '.join(_dialect_text.SPLIT_DIALECTS)}",
    )
    parser.add_argument(
        "--shape", metavar="SHAPE", help="the input shape, e.g. 2,3,4 or [?,3,2..10] (default: any)"
    )
    parser.add_argument("--json", action="store_true", help="print the emitter's value as JSON")
    for dest, text in _OPTIONS.items():
        metavar = "EXPR" if dest == "index" else "MASK" if dest in MASKS else "N,..."
        if dest in _ONE_INT:
            parser.add_argument(_option(dest), dest=dest, metavar="N", type=int, help=text)
        else:
            parser.add_argument(_option(dest), dest=dest, metavar=metavar, help=text)
    _dialect_text.allow_negative_lists(parser)  # --ends -1,-2
    parser.set_defaults(func=_run, convert_parser=parser)
