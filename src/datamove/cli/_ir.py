"""``datamove check`` and ``datamove run``: the IR commands of the command line."""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import ast
import contextlib
import functools
import json
import os
import re
import shlex
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

import numpy as np

from datamove._errors import ValidationError
from datamove._files import commit, kind, temporary_beside
from datamove.cli._exit import EXIT_INVALID, EXIT_OK
from datamove.cli._npy import load_npy
from datamove.ir._errors import IRError, MissingInputError, UnsupportedOperatorError, where
from datamove.ir._model import Model, input_list, read_model
from datamove.ir._onnx import read_onnx
from datamove.ir._onnx_value import node_name
from datamove.ir._types import ELEMENT_TYPES

__all__ = ["add_input_shape", "input_shape_words", "input_shapes", "is_onnx", "read", "register"]


def is_onnx(path: str) -> bool:
    """Whether a model file is read as ONNX (its name ends in ``.onnx``) rather than IR."""
    return path.lower().endswith(".onnx")


_CHECK_EPILOG = """\
examples:
  datamove check model.xml
  datamove check model.xml --input-shape "x=[?,3,224,224]"
  datamove check model.xml --json
  datamove check model.onnx          (an ONNX model: needs the optional 'onnx' package)

exit status: 0 no problems (opaque layers, of types datamove does not model, are none),
1 problems found (or the file cannot be read), 2 usage error
"""

_RUN_EPILOG = """\
examples:
  datamove run model.xml --input x=x.npy --output-dir out/
  datamove run model.xml --input x=x.npy --output-dir out/ --json
  datamove run model.xml --input x=x.npy --output-dir out/ --output y0 --output y1

Without --output, every output is computed; with it, only those named (repeatable), and only
the inputs they need must be given: a model's outputs that need only layers datamove computes
run even where others need a MatMul.

Each output is written as DIR/NAME.npy (characters other than letters, digits, '.', '_' and '-'
become '_'). The files are written under temporary names and renamed at the end: on an error
nothing is left in DIR.
"""


def _name_values(
    texts: list[str] | None, option: str, command: str, inputs: Iterable[str] = (), what: str = ""
) -> Iterator[tuple[str, str, str]]:
    """Each ``NAME=VALUE`` of ``option`` in turn, as ``(NAME, VALUE, text)``; each NAME once.

    ``inputs``: the names the model takes, for the hint where NAME or VALUE (``what``, e.g.
    ``SHAPE``) is left out.
    """
    seen: set[str] = set()
    inputs = list(inputs)
    for text in texts or []:
        name, sep, value = text.partition("=")
        if not sep or not name:
            first = next(iter(inputs), None)
            named = not sep and text in inputs  # a name without its value: --input-shape x
            example = f"{text}={what}" if named else f"{first}={value or text}"
            hint = None if first is None else f"e.g. {option} {example}"
            raise ValidationError(command, option, text, "must be written NAME=VALUE", hint=hint)
        if name in seen:
            raise ValidationError(command, option, text, f"names input {name!r} a second time")
        seen.add(name)
        yield name, value, text


def read(args: argparse.Namespace, command: str) -> Any:
    """The model ``args.model`` names: ONNX (``args.bin`` refused) or IR, as `is_onnx` says."""
    if not is_onnx(args.model):
        return read_model(args.model, args.bin)
    if args.bin is not None:
        raise ValidationError(command, "--bin", args.bin, "is for IR models; a .onnx is one file")
    return read_onnx(args.model)


def add_input_shape(parser: argparse.ArgumentParser, verb: str) -> None:
    """``--input-shape NAME=SHAPE`` (repeatable), as ``check`` and ``explain MODEL`` take it."""
    parser.add_argument(
        "--input-shape",
        action="append",
        metavar="NAME=SHAPE",
        help=f"{verb} with this input shape instead of the declared one, in OpenVINO's "
        "notation (repeatable)",
    )


def input_shapes(args: argparse.Namespace, model: Any, command: str) -> dict[str, str] | None:
    """``--input-shape``'s shapes by input name, as ``model.check`` takes them (``None``: none)."""
    names = getattr(model, "_input_aliases", model.inputs)  # an IR's takes its tensors' names
    given = _name_values(args.input_shape, "--input-shape", command, names, "SHAPE")
    return {n: v for n, v, _ in given} or None


@contextlib.contextmanager
def input_shape_words(args: argparse.Namespace, command: str) -> Iterator[None]:
    """An error of the model's ``input_shapes['x']`` said in ``--input-shape``'s words.

    ``check: --input-shape='x=[a]' is not a shape ...``, not ``IR: input_shapes['x']='[a]'``:
    the name and the shape as the option gave them.
    """
    try:
        yield
    except ValidationError as exc:
        texts = {t.partition("=")[0]: t for t in args.input_shape or ()}
        found = re.fullmatch(r"input_shapes\[(.*)\]", str(exc.argument))
        text = None if found is None else texts.get(ast.literal_eval(found[1]))
        if text is None:
            raise
        raise ValidationError(command, "--input-shape", text, exc.rule, hint=exc.hint) from None


# Each kind of CheckReport.notes, and the heading `check -v` lists it under.
_NOTE_HEADINGS: Final = {
    "looser": "declared dims looser than datamove's",
    "openvino-cpu": "OpenVINO's CPU plugin runs these layers otherwise than the spec",
    "shape-subgraph": "ONNX shape-subgraph nodes that fail at run time",
    "extension": "layers OpenVINO reads only with an extension",
    "opset": "ONNX opsets newer than the installed onnx knows",
    "onnxruntime": "ONNX nodes onnxruntime refuses or cannot run, legal by the spec",
    "unread": "problems of layers OpenVINO does not read: no output needs them",
}


def _check(args: argparse.Namespace) -> int:
    model = read(args, "check")
    with input_shape_words(args, "check"):
        report = model.check(input_shapes(args, model, "check"))
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report)
        if args.verbose:
            print("node outputs:" if report.unit == "node" else "ports:")  # ONNX has no ports
            layers = _layers(model)
            for (lid, pid), shape in report.ports.items():
                name, kind = layers.get(lid, (None, None))
                print(f"  {where(lid, name, kind, pid, report.unit)}: {shape}")
            for kind, heading in _NOTE_HEADINGS.items():
                notes = [note for note in report.notes if note.kind == kind]
                if notes:
                    print(f"notes ({heading}):")
                    for note in notes:
                        print(f"  {note}")
    return EXIT_OK if report.ok else EXIT_INVALID


def _layers(model: Any) -> dict[str, tuple[str, str]]:
    """Each layer's (or ONNX node's) id -> its name and type, as problems name them."""
    if isinstance(model, Model):
        return {x.id: (x.name, x.type) for x in model._graph.layers}
    nodes = model._proto.graph.node  # an ONNX model: a node's id is its index
    return {str(i): (node_name(n), n.op_type) for i, n in enumerate(nodes)}


def _as_declared(model: Model, name: str, value: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``value`` as the type its Parameter declares, where ``np.save`` could not name that type.

    NumPy's format has no name for ``ml_dtypes``' types (bf16, float8, 4-bit): ``np.save`` writes
    such an array as raw bytes, ``'|V2'`` or ``'|V1'``, which ``np.load`` returns. Such an
    input, of the item size of an ``ml_dtypes`` type that its Parameter declares, is read as that
    type; any other is left for `Model.run` to check.
    """
    dtype = value.dtype
    if dtype.kind != "V" or dtype.names is not None or dtype.subdtype is not None:
        return value
    k = model._input_aliases.get(name)  # the names Model.run takes
    declared = model._params[k].data.get("element_type") if k is not None else None
    etype = ELEMENT_TYPES.get(declared) if declared is not None else None
    if etype is None or not etype.dtype_name.startswith("ml_dtypes."):
        return value
    return value.view(etype.dtype) if etype.dtype.itemsize == dtype.itemsize else value


def _inputs_hint(model: Model) -> str:
    """``pass --input NAME=FILE.npy for each input: '30' (or 'x')``: each input, its aliases."""
    listed = input_list(model._input_names, model._other_names())
    return "pass --input NAME=FILE.npy for each input: " + listed


def _file_name(name: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".")
    return (safe or "output") + ".npy"


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its parents that do not exist yet, innermost first."""
    missing = []
    while not os.path.lexists(folder) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove the folders ``run`` made (innermost first) while they are empty; never others."""
    for folder in folders:
        try:
            folder.rmdir()  # only an empty folder: never what another process wrote there
        except OSError:
            return


def _run(args: argparse.Namespace) -> int:
    inputs: dict[str, Any] = {}
    read_from: dict[Path, str] = {}  # each file read (links resolved) -> its --input
    if not args.output_dir:
        rule = "is empty; name a folder ('.' for this one)"
        raise ValidationError("run", "--output-dir", args.output_dir, rule)
    if is_onnx(args.model):  # not "is not well-formed XML"
        rule = "is an ONNX model; run takes OpenVINO IR (.xml and .bin)"
        hint = "convert it first: ovc MODEL.onnx, then datamove run MODEL.xml ..."
        raise ValidationError("run", "model", args.model, rule, hint=hint)
    model = read_model(args.model, args.bin)
    pairs = _name_values(args.input, "--input", "run", model._input_aliases, "FILE.npy")
    for name, file, text in pairs:
        if name not in model._input_aliases:  # the names Model.run takes; before reading FILE
            rule = "names no input of this model"
            raise ValidationError("run", "--input", text, rule, hint=_inputs_hint(model))
        inputs[name] = load_npy(file, functools.partial(ValidationError, "run", "--input", text))
        read_from[Path(os.path.realpath(file))] = text
    try:  # Model.run's own check of its outputs, said in --output's words
        if args.output:
            model._chosen(args.output)
    except IRError as exc:
        raise ValidationError("run", "--output", exc.value, exc.rule, hint=exc.hint) from None
    for name, value in inputs.items():
        inputs[name] = _as_declared(model, name, value)
    try:
        outputs = model.run(inputs, args.output)
    except MissingInputError as exc:  # in --input's words, not inputs=
        these = " these outputs need" if args.output else ""
        listed = input_list(exc.needed, model._other_names())
        hint = f"pass --input NAME=FILE.npy for each input{these}: {listed}"
        raise ValidationError(
            "run", None, None, f"no --input gives input {exc.missing!r}", hint=hint
        ) from None
    except UnsupportedOperatorError as exc:  # the hint names --output, not outputs=
        if not exc.runnable:
            raise
        make, fields = exc.__reduce__()
        options = " ".join(f"--output {shlex.quote(name)}" for name in exc.runnable)
        raise make(*fields, passing=options) from None
    out_dir = Path(args.output_dir)
    files = {name: out_dir / _file_name(name) for name in outputs}
    if len(set(files.values())) != len(files):
        raise ValidationError("run", "outputs", list(outputs), "map to the same file name")
    real_dir = Path(os.path.realpath(out_dir))  # DIR/NAME.npy is replaced, even a link
    for name, target in files.items():
        given = read_from.get(real_dir / target.name)
        if given is not None:
            rule = f"would replace the file of --input {given!r} with output {name!r}"
            raise ValidationError("run", "--output-dir", args.output_dir, rule)
        try:
            mode = target.lstat().st_mode  # a link is replaced itself, whatever it points to
        except OSError:
            continue  # a new file (or a folder to create): found writing it, if it fails
        if not stat.S_ISREG(mode) and not stat.S_ISLNK(mode):
            rule = (
                f"holds {target.name!r}, {kind(mode)}, where output {name!r} is to be written;"
                " only a regular file is replaced"
            )
            raise ValidationError("run", "--output-dir", args.output_dir, rule)

    names = list(files)

    def unwritable(k: int, exc: OSError) -> ValidationError:
        """Output ``k`` cannot be written: no permission, a full disk, too long a name."""
        reason = exc.strerror or type(exc).__name__
        rule = f"cannot hold {files[names[k]].name!r}, output {names[k]!r} ({reason})"
        return ValidationError("run", "--output-dir", args.output_dir, rule)

    made = _missing_folders(out_dir)  # created here: removed again if nothing is written
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file where the folder should be, no permission
        _remove_empty(made)
        rule = f"is not a writable folder ({exc.strerror or type(exc).__name__})"
        raise ValidationError("run", "--output-dir", args.output_dir, rule) from None
    temps: list[Path] = []
    written = False
    try:
        for k, name in enumerate(names):
            try:
                temps.append(temporary_beside(files[name]))
                with temps[-1].open("wb") as f:
                    np.save(f, np.asarray(outputs[name]), allow_pickle=False)
            except OSError as exc:
                raise unwritable(k, exc) from None
        commit(temps, list(files.values()), unwritable)  # all or none
        written = True
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        if not written:
            _remove_empty(made)
    summary = {
        name: {
            "file": os.fspath(files[name]),
            "shape": list(np.shape(a)),
            "dtype": str(np.asarray(a).dtype),
        }
        for name, a in outputs.items()
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for name, info in summary.items():
            print(f"{name}: {info['dtype']} {info['shape']} -> {info['file']}")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add ``check`` and ``run`` to the ``datamove`` command."""
    fmt = argparse.RawDescriptionHelpFormatter
    check = subparsers.add_parser(
        "check",
        help="infer every port's shape of an OpenVINO IR or ONNX model and report all problems",
        description="Read an OpenVINO IR model (.xml + .bin) or an ONNX model (.onnx), infer "
        "every port's shape from its inputs, compare with the dims the file declares, and report "
        "every problem with the layer's id, name, type and port. Layers of types datamove does "
        "not model (MatMul, Add...) are opaque: taken as the file declares them, counted, and "
        "checked around. ONNX models: Slice, Split and Concat nodes (and each Reshape of a "
        "known or computed shape, each data Gather of constant or computed indices, and the "
        "SplitToSequence parts SequenceAt takes) are checked with ONNX's semantics; a node's id "
        "is its index in the graph.",
        epilog=_CHECK_EPILOG,
        formatter_class=fmt,
    )
    check.add_argument("model", help="the model's .xml file (or .onnx file)")
    check.add_argument("--bin", help="its .bin file (default: MODEL with the suffix .bin)")
    add_input_shape(check, "check")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument(
        "-v", "--verbose", action="store_true", help="also print every port's shape and the notes"
    )
    check.set_defaults(func=_check)

    run = subparsers.add_parser(
        "run",
        help="run an OpenVINO IR model on .npy inputs and write .npy outputs",
        description="Run an OpenVINO IR model with datamove's operators (NumPy) and write each "
        "output, named as OpenVINO names it, as a .npy file.",
        epilog=_RUN_EPILOG,
        formatter_class=fmt,
    )
    run.add_argument("model", help="the model's .xml file")
    run.add_argument("--bin", help="its .bin file (default: MODEL with the suffix .bin)")
    run.add_argument(
        "--input", action="append", metavar="NAME=FILE.npy", help="an input (repeatable)"
    )
    run.add_argument(
        "--output-dir", required=True, metavar="DIR", help="where to write the outputs"
    )
    run.add_argument(
        "--output",
        action="append",
        metavar="NAME",
        help="compute only this output, by any of its names (repeatable; default: all)",
    )
    run.add_argument("--json", action="store_true", help="print what was written as JSON")
    run.set_defaults(func=_run)
