"""``save_model``: write a `Model` as IR v11, the version OpenVINO writes today."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING
from xml.sax.saxutils import quoteattr

from datamove._errors import a_kind, plural
from datamove._files import commit, path_name, temporary_beside
from datamove._shape import PartialShape
from datamove.ir._errors import IRError
from datamove.ir._graph import parse_shape_attr

if TYPE_CHECKING:
    from datamove.ir._graph import Layer, Port
    from datamove.ir._model import Model

__all__ = ["save_model"]


def _escape_names(names: tuple[str, ...] | list[str]) -> str:
    return ",".join(n.replace(",", "\\,") for n in names)


def _shape_attr(shape: PartialShape) -> str:
    return "..." if shape.rank is None else ",".join(str(d) for d in shape.dims)


def _readable_shape(layer: Layer) -> bool:
    """Whether a Parameter's ``shape`` attribute reads (``check`` reports one that does not)."""
    try:
        parse_shape_attr(layer.data.get("shape", ""), "shape", layer)
    except IRError:
        return False
    return True


def _port(pid: int, port: Port, inferred: PartialShape | None, names: str = "") -> list[str]:
    """A ``<port>`` with the inferred shape (else the declared one: an unsupported layer)."""
    attrs = f'id="{pid}"'
    if port.precision:
        attrs += f" precision={quoteattr(port.precision)}"
    if names:
        attrs += f" names={quoteattr(names)}"
    usable = inferred is not None and (inferred.rank is not None or not port.has_dims)
    shape = inferred if inferred is not None and usable else port.shape
    if shape.rank is None or not shape.dims:
        return [f"\t\t\t\t<port {attrs} />"]
    dims = [f"\t\t\t\t\t<dim>{d.min if d.is_static else -1}</dim>" for d in shape.dims]
    return [f"\t\t\t\t<port {attrs}>", *dims, "\t\t\t\t</port>"]


def save_model(
    model: Model, xml_path: str | os.PathLike[str], bin_path: str | os.PathLike[str] | None = None
) -> None:
    """Write ``model`` as an IR v11 ``.xml`` and ``.bin`` that OpenVINO reads.

    Ports get the shapes `Model.check` infers (non-static dims written as ``-1``, as OpenVINO
    writes them), layers are renumbered in file order, constants are copied byte for byte
    (equal ones once, as OpenVINO writes them), and every input and output keeps the names
    OpenVINO gives it (an IR v10 file's implicit names are written out). Both files are
    written to temporary names and renamed at the end, so an error leaves nothing behind.

    Parameters
    ----------
    model : Model
        A model from `read_model`.
    xml_path : path
        Where to write the ``.xml``.
    bin_path : path, optional
        Where to write the ``.bin``; by default ``xml_path`` with the suffix ``.bin``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from datamove.ir import read_model
    >>> from datamove.ir._examples import write_example
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> save_model(read_model(write_example(tmp)), tmp / "copy.xml")
    >>> read_model(tmp / "copy.xml").outputs
    ['parts_a', 'parts_b']
    """
    from datamove.ir._model import Model  # noqa: PLC0415 - _model imports nothing from here

    if not isinstance(model, Model):
        raise IRError(  # a raise alone: mypy takes the branch as unreachable (model: Model)
            "model", model, f"must be a Model, not {a_kind(model)}", hint="read one with read_model"
        )
    for argument, value in (("xml_path", xml_path), ("bin_path", bin_path)):
        if value is not None or argument == "xml_path":
            text = path_name(value, functools.partial(IRError, argument, value))
            if not text:
                raise IRError(argument, text, "is empty; name the file to write")
    xml_file = Path(os.fspath(xml_path))
    bin_file = Path(os.fspath(bin_path)) if bin_path is not None else xml_file.with_suffix(".bin")
    for argument, path in (("xml_path", xml_file), ("bin_path", bin_file)):
        if path.is_dir():
            raise IRError(argument, os.fspath(path), "is a folder; name the file to write")
        if not path.parent.is_dir():
            raise IRError(argument, os.fspath(path), "is in a folder that does not exist")
    if os.path.realpath(xml_file) == os.path.realpath(bin_file):  # one would overwrite the other
        raise IRError(
            "bin_path",
            os.fspath(bin_file),
            f"is the file xml_path={os.fspath(xml_file)!r}",
            hint="the .xml and the .bin are two files; name another for the .bin",
        )
    graph = model._graph
    unwritten = [x for x in graph.layers if x.kept_out]
    if unwritten:  # an If without its bodies: a file OpenVINO refuses, or one that runs otherwise
        first = unwritten[0]
        more = f" (and {plural(len(unwritten) - 1, 'other layer')})" if len(unwritten) > 1 else ""
        tags = ", ".join(f"<{t}>" for t in first.kept_out)
        raise first.error(
            None,
            None,
            f"holds {tags}, which save_model does not write{more}",
            hint="datamove reads only a layer's <data> and ports; save it with openvino.save_model",
        )
    report = model.check()
    blob = bytearray()
    written: dict[tuple[int, int], int] = {}  # (size, hash) -> offset: equal bytes written once
    lines = [
        '<?xml version="1.0"?>',
        f'<net name={quoteattr(graph.name)} version="11">',
        "\t<layers>",
    ]
    edges: list[tuple[int, int, int, int]] = []
    for layer in graph.layers:  # file order: OpenVINO orders inputs and outputs by it
        lid = layer.index
        attrs = f'id="{lid}" name={quoteattr(layer.name)} type={quoteattr(layer.type)}'
        attrs += f" version={quoteattr(layer.version)}"
        if layer.type == "Result":
            names = model._result_names(layer)
            if names:
                attrs += f" output_names={quoteattr(_escape_names(sorted(names)))}"
        lines.append(f"\t\t<layer {attrs}>")
        data = dict(layer.data)
        if layer.type == "Const":
            raw = model._raw_const(layer)
            at = written.setdefault((len(raw), hash(raw)), len(blob))
            if at == len(blob) or blob[at : at + len(raw)] != raw:  # new, or a hash collision
                at = len(blob)
                blob += raw
            data["offset"], data["size"] = str(at), str(len(raw))
        if layer.type == "Parameter" and _readable_shape(layer):  # else kept: still refused
            shape = report.ports.get((layer.id, layer.outputs[0].id)) if layer.outputs else None
            if shape is not None:
                data["shape"] = _shape_attr(shape)
        if data:
            body = " ".join(f"{k}={quoteattr(v)}" for k, v in data.items())
            lines.append(f"\t\t\t<data {body} />")
        if layer.inputs:
            lines.append("\t\t\t<input>")
            for k, port in enumerate(layer.inputs):
                lines += _port(k, port, report.ports.get((layer.id, port.id)))
                src, out = layer.sources[k]
                edges.append((src, len(graph.layers[src].inputs) + out, lid, k))
            lines.append("\t\t\t</input>")
        if layer.outputs:
            lines.append("\t\t\t<output>")
            for k, port in enumerate(layer.outputs):
                shape = report.ports.get((layer.id, port.id))
                tensor = _escape_names(model._tensor_names(lid, k))
                lines += _port(len(layer.inputs) + k, port, shape, tensor)
            lines.append("\t\t\t</output>")
        lines.append("\t\t</layer>")
    lines += ["\t</layers>", "\t<edges>"]
    lines += [
        f'\t\t<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}" />'
        for a, b, c, d in sorted(edges)
    ]
    lines += ["\t</edges>", "</net>", ""]
    _write_atomically({xml_file: "\n".join(lines).encode("utf-8"), bin_file: bytes(blob)})


def _write_atomically(files: dict[Path, bytes]) -> None:
    """Write every file under a temporary name beside it, then rename them all or none."""
    temps: list[Path] = []
    targets = list(files)

    def unwritable(k: int, exc: OSError) -> IRError:
        reason = exc.strerror or str(exc)
        return IRError("path", os.fspath(targets[k]), f"cannot be written ({reason})")

    writing = 0  # the file being written: an OSError is its
    try:
        for writing, (path, content) in enumerate(files.items()):  # noqa: B007 - read below
            temps.append(temporary_beside(path))
            temps[-1].write_bytes(content)
        commit(temps, targets, unwritable)  # a failed rename puts back those done before it
    except OSError as exc:  # no permission, a full disk, a folder made meanwhile
        raise unwritable(writing, exc) from None
    finally:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
