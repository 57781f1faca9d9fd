"""One slicing or split, written in other dialects: ``explain ... --as`` and ``convert --to``.

One table per kind maps a dialect's command-line name to the emitter that writes it
(``dm.Slicing.to_onnx`` ...) and a title. An emitter this version of datamove does not have
(found by name, ``getattr``) is reported as "not available in this version"; one that cannot
say the operation for every shape allowed raises ``dm.NotExpressible``, reported in one line with
its witness. ``render`` writes an emitter's value as text, one line per operation. The options
that give a slicing's parameters are read as ``explain`` and ``convert`` both read them
(``int_list``, ``allow_negative_lists``).
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, NoReturn

from datamove._errors import NotExpressible, ValidationError
from datamove._shape import PartialShape

__all__ = [
    "ALIASES",
    "SLICING_DIALECTS",
    "SPLIT_DIALECTS",
    "UNAVAILABLE",
    "allow_negative_lists",
    "dialect_list",
    "emit",
    "int_list",
    "render",
    "show_blocks",
    "step_required",
    "translate",
]

# name -> (emitter method, what it writes). The order is the order --help lists them.
SLICING_DIALECTS: Final[Mapping[str, tuple[str, str]]] = {
    "numpy": ("to_numpy", "NumPy basic indexing"),
    "strided-slice": ("to_strided_slice", "OpenVINO StridedSlice-1"),
    "slice": ("to_slice", "OpenVINO Slice-8, Unsqueeze, Squeeze, in order"),
    "onnx": ("to_onnx", "ONNX Slice-13, Unsqueeze, Squeeze, in order"),
    "tf": ("to_tf", "tf.strided_slice"),
    "torch": ("to_torch", "PyTorch calls on x, in order"),
    "dml": ("to_dml", "DirectML operators, in order"),
    "webnn": ("to_webnn", "WebNN operators, in order"),
}

# For a split, "slice" and "strided-slice" write each part as a slicing.
SPLIT_DIALECTS: Final[Mapping[str, tuple[str, str]]] = {
    "numpy": ("to_numpy", "a numpy function"),
    "torch": ("to_torch", "a torch function"),
    "openvino": ("to_openvino", "OpenVINO Split-1 or VariadicSplit-1"),
    "onnx": ("to_onnx", "ONNX Split-18"),
    "tf": ("to_tf", "a TensorFlow function"),
    "dml": ("to_dml", "DirectML SPLIT"),
    "webnn": ("to_webnn", "WebNN split"),
    "slice": ("to_slice", "each part as OpenVINO Slice-8, in order"),
    "strided-slice": ("to_strided_slice", "each part as OpenVINO StridedSlice-1"),
}

UNAVAILABLE: Final = "not available in this version"

# Library names a dialect is also called by (--as, convert --to and --from take them).
ALIASES: Final = {"tensorflow": "tf", "pytorch": "torch", "directml": "dml"}

# How a dict-valued emitter's call opens.
_CALLS: Final = {"strided-slice": "StridedSlice(", "tf": "tf.strided_slice(x, "}


def allow_negative_lists(parser: argparse.ArgumentParser) -> None:
    r"""Let an option take ``-1,2`` as its value (``--ends -1,2``), as it takes ``-1``.

    argparse reads a word that starts with ``-`` as an option unless it looks like a negative
    number (``^-\d+$``); a comma-separated list of integers (or a shape, ``-1,3``) that starts
    with a negative one is a value too: no option of these parsers looks like one.
    """
    if hasattr(parser, "_negative_number_matcher"):  # CPython's argparse (3.11 to 3.13)
        parser._negative_number_matcher = re.compile(r"^-\d[\d,\s-]*$|^-\d*\.\d+$")


def int_list(text: str, option: str, command: str) -> list[int]:
    """The integers of ``option``'s comma-separated value (none for an empty one)."""
    if not text.strip():
        return []
    try:
        return [int(p) for p in text.split(",")]  # "1,,2" and "1 2" are errors; " 1, 2" is not
    except ValueError:
        raise ValidationError(
            command, option, text, "must be comma-separated integers, e.g. 1,0,-1"
        ) from None


def step_required(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    before: list[str],
    after: Sequence[str] = (),
) -> NoReturn:
    """The usage error of a Slice-8 without ``--step``, showing the command with steps of 1.

    Slice-8's step is a required input (``dm.slice`` and ``Slicing.from_slice`` take no
    default); ``explain slice`` and ``convert --from slice`` both refuse to guess it.
    """
    ones = ",".join("1" for _ in args.start.split(",")) if args.start.strip() else ""
    words = ["datamove", *before, "--start", args.start, "--stop", args.stop, "--step", ones]
    words += [] if args.axes is None else ["--axes", args.axes]
    words += [*after, *(["--json"] if args.json else [])]
    words += ["--as", ",".join(args.as_)] if getattr(args, "as_", None) else []
    parser.error(
        f"--step is required: Slice-8 has no default step (with steps of 1: {shlex.join(words)})"
    )


def mask_list(text: str, name: str, command: str) -> list[int]:
    """A StridedSlice mask's 0/1 list.

    TensorFlow's bit field, easy to pass for it (``convert --from tf`` takes bit fields), is
    refused with the list it stands for: ``--begin-mask 6`` is ``--begin-mask 0,1,1``.
    """
    option = "--" + name.replace("_", "-")
    bits = int_list(text, option, command)
    if len(bits) == 1 and bits[0] > 1:
        as_list = ",".join(str(bits[0] >> i & 1) for i in range(bits[0].bit_length()))
        raise ValidationError(
            command,
            option,
            text,
            "is a list of 0/1, one per index of begin, not TensorFlow's bit field",
            hint=f"the bit field {bits[0]} is {option} {as_list}",
        )
    return bits


def dialect_list(table: Mapping[str, Any]) -> Callable[[str], list[str]]:
    """An argparse ``type``: comma-separated dialect names of ``table``, in order, once each."""

    def parse(text: str) -> list[str]:
        names = [ALIASES.get(n.strip(), n.strip()) for n in text.split(",")]
        unknown = [n for n in names if n not in table]
        if unknown:
            raise argparse.ArgumentTypeError(
                f"unknown dialect {unknown[0]!r}; the dialects are {', '.join(table)}"
            )
        return list(dict.fromkeys(names))

    return parse


def _table(split: bool) -> Mapping[str, tuple[str, str]]:
    return SPLIT_DIALECTS if split else SLICING_DIALECTS


class _Int64List(list[int]):
    """``to_tf``'s int64 array: a list in JSON, ``tf.constant([...], tf.int64)`` as text.

    TensorFlow reads a pasted list of small ints as int32, and ``end`` and ``strides`` in
    ``begin``'s type, wrapping; the constant keeps every value.
    """

    def __repr__(self) -> str:
        return f"tf.constant({list(self)!r}, tf.int64)"


def emit(obj: Any, name: str, shape: Any) -> Any:
    """The emitter's value for dialect ``name``; ``None`` where this version has no emitter.

    For a split (``obj`` has ``as_slicings``) in a slicing dialect, a list with one value per
    part. Raises ``NotExpressible`` (and any ``ValidationError``) as the emitter does. A NumPy
    array (``to_tf``'s int64 indices or sizes) is an ``_Int64List``.
    """
    split = hasattr(obj, "as_slicings")
    method = _table(split)[name][0]
    if name in ("slice", "strided-slice") and split:
        return [getattr(part, method)(shape) for part in obj.as_slicings(shape)]
    fn = getattr(obj, method, None)
    value = None if fn is None else fn(shape)
    if isinstance(value, dict):
        value = _listed(value)
    elif isinstance(value, tuple) and isinstance(value[-1], dict):  # a split's (name, kwargs)
        value = (*value[:-1], _listed(value[-1]))
    return value


def _listed(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: _Int64List(v.tolist()) if hasattr(v, "tolist") else v for k, v in kwargs.items()}


def translate(
    obj: Any, names: list[str], shape: Any, *, shape_hints: bool = True
) -> dict[str, dict[str, Any]]:
    """Per dialect: ``{"value": ...}``, or ``{"error": ...}`` (with ``"witness"`` when known).

    ``shape_hints=False`` where the caller cannot pass another shape (a model's layer): an
    error's hint to pass one is left out.
    """
    table = _table(hasattr(obj, "as_slicings"))
    out: dict[str, dict[str, Any]] = {}
    for name in names:
        if name not in table:  # a model's --as names the dialects of slicings and splits
            out[name] = {"error": f"not a dialect of this operation; those are {', '.join(table)}"}
            continue
        try:
            value = emit(obj, name, shape)
        except NotExpressible as exc:
            text = str(exc)
            if not shape_hints and exc.hint and exc.argument == "shape":
                text = text.removesuffix(f" (hint: {exc.hint})")
            out[name] = {"error": text, "witness": exc.witness}
        except ValidationError as exc:
            out[name] = {"error": str(exc)}
        else:
            out[name] = {"error": UNAVAILABLE} if value is None else {"value": value}
    return out


def reason(entry: Mapping[str, Any], split: bool = False) -> str:
    """The one-line reason a dialect cannot say it, with the witness where there is one.

    A slicing's witness is a shape; a split's is the size of the split axis, or (DirectML's
    splits) a whole shape.
    """
    text = str(entry["error"])
    witness = entry.get("witness")
    if witness is not None:
        if split and len(witness) == 1:
            text += f" (witness: size {witness[0]} of the split axis)"
        else:
            text += f" (witness: shape {PartialShape(list(witness))})"
    return text


def _args(params: Mapping[str, Any], omit_zero_masks: bool) -> str:
    return ", ".join(
        f"{k}={v!r}"
        for k, v in params.items()
        if not (
            omit_zero_masks and k.endswith("_mask") and not any(v if isinstance(v, list) else [v])
        )
    )


def render(name: str, value: Any, split: bool = False) -> list[str]:
    """An emitter's value as lines of text: the index, or one call per line.

    A dict (StridedSlice, ``tf.strided_slice``) leaves out its all-zero masks, the default.
    """
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [f"{_CALLS.get(name, name + '(')}{_args(value, True)})"]
    if split and name in ("slice", "strided-slice"):
        lines: list[str] = []
        for k, part in enumerate(value):
            body = render(name, part)
            lines.append(f"output {k}: {body[0]}")
            lines += [" " * len(f"output {k}: ") + line for line in body[1:]]
        return lines
    calls = [value] if isinstance(value, tuple) else value  # a tuple: a split's one call
    if not calls:
        return ["(no operation: x itself)"]
    return [f"{op}({_args(params, False)})" for op, params in calls]


def show_blocks(translated: Mapping[str, Mapping[str, Any]], split: bool = False) -> list[str]:
    """One block per dialect: ``name (title):`` and the lines, or ``name: reason``."""
    lines: list[str] = []
    for name, entry in translated.items():
        if "value" in entry:
            lines.append(f"{name} ({_table(split)[name][1]}):")
            lines += ["  " + line for line in render(name, entry["value"], split)]
        else:
            lines.append(f"{name}: {reason(entry, split)}")
    return lines
