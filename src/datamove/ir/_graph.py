"""Reading an IR ``.xml`` into a checked graph of layers, ports and edges (no execution here).

Everything a hostile file could do is bounded here: the XML makes no entity but XML's own (a
file with a DTD is parsed by ``defusedxml``: no entities, no external references), every
number is parsed from a short string and checked against int64, edges must join existing
ports one-to-one, the graph must be acyclic, and every ``Const`` must lie inside the ``.bin``
file. Nothing is read from the ``.bin`` here but its size.
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import os
import re
import stat
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple
from xml.etree.ElementTree import TreeBuilder, XMLParser

from datamove._errors import ValidationError
from datamove._files import kind, read_regular
from datamove._memo import keep
from datamove._shape import INT64_MAX, INT64_MIN, Dimension, PartialShape
from datamove.ir._errors import IRError
from datamove.ir._types import OPENVINO_PRECISIONS, OPENVINO_TYPE_NAMES

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

__all__ = ["Graph", "Layer", "Port", "parse_graph", "parse_shape_attr", "split_names"]

_MAX_NUMBER_CHARS: Final = 24  # longest decimal text an int64 (with sign and spaces) can need
_MAX_SHOWN_LAYERS: Final = 5
# The largest .xml read: an IR's .xml holds only the graph (its weights are in the .bin), and
# parsing one takes 7 to 20 times its size in memory.
MAX_XML_BYTES: Final = 256 * 2**20
SUPPORTED_IR_VERSIONS: Final = (10, 11)
_FEED_BYTES: Final = 2**16  # the .xml is parsed 64 KiB at a time
_EDGE_KEYS: Final = ("from-layer", "from-port", "to-layer", "to-port")
# A <layer>'s elements that datamove reads (rt_info: OpenVINO's runtime notes, never written)
_READ_ELEMENTS: Final = frozenset({"data", "input", "output", "rt_info"})


class Port(NamedTuple):
    """One port of a layer as the file declares it.

    A tuple: made 4x as fast as a frozen dataclass, and an LLM's .xml declares 40,000 ports.
    """

    id: int
    precision: str | None
    shape: PartialShape  # the declared dims; -1 and '?' are '?'
    has_dims: bool  # False: no <dim> at all (a scalar, or a dynamic rank OpenVINO wrote)
    names: tuple[str, ...]


@dataclass(slots=True)
class Layer:
    """One ``<layer>``: its attributes, data, ports and where each input comes from."""

    index: int  # position in the file
    id: str
    name: str
    type: str
    version: str
    data: dict[str, str]
    attrs: dict[str, str]
    inputs: tuple[Port, ...]
    outputs: tuple[Port, ...]
    sources: list[tuple[int, int]] = field(default_factory=list)  # (layer index, output index)
    # The tags of its other elements, in file order (an If's <then_body>, a Loop's <port_map>):
    # read by OpenVINO, not by datamove, so save_model cannot write them.
    kept_out: tuple[str, ...] = ()

    def error(
        self,
        argument: str | None,
        value: Any,
        rule: str,
        *,
        port: int | None = None,
        hint: str | None = None,
        cls: builtins.type[IRError] = IRError,
        **data: Any,
    ) -> IRError:
        """An error about this layer (``data``: the fields of ``cls`` beyond `IRError`'s)."""
        return cls(
            argument,
            value,
            rule,
            hint=hint,
            layer_id=self.id,
            layer_name=self.name,
            layer_type=self.type,
            port=port,
            **data,
        )

    def int_attr(self, key: str, default: int | None = None) -> int:
        """An integer attribute of an operator (``num_splits``, ``axis``, ``batch_dims``).

        Read as OpenVINO reads it (see :func:`parse_attr_int`); ``default`` where left out,
        where the operator has one.
        """
        if key not in self.data:
            if default is not None:
                return default
            raise self.error(key, None, "is missing from <data>")
        return parse_attr_int(self.data[key], key, self)

    def extent_attr(self, key: str) -> int:
        """A Const's ``offset`` or ``size``: a decimal, as OpenVINO reads it (`parse_int`)."""
        if key not in self.data:
            raise self.error(key, None, "is missing from <data>")
        return parse_int(self.data[key], key, self)

    def int_list_attr(self, key: str) -> tuple[int, ...]:
        """An operator attribute of comma-separated integers (a mask; ``""`` is empty).

        As in OpenVINO, one trailing comma ends the list (``"0,1,"`` is ``[0, 1]``), any other
        empty item (``"1,,0"``, ``",0"``, ``"0, "``) is an error, and each item is read by
        :func:`parse_attr_int`.
        """
        text = self.data.get(key, "")
        if len(text) > 100_000:
            raise self.error(key, text, "is too long")
        items = text.split(",") if text else []
        if items and not items[-1]:  # std::getline ends the list at a trailing comma
            items.pop()
        for item in items:
            if not item:
                raise self.error(key, text, "has an empty item", hint="OpenVINO refuses it as well")
        return tuple(parse_attr_int(item, key, self) for item in items)


@dataclass(slots=True)
class Graph:
    """A parsed IR: its layers in file order, a topological order, and the ``.bin`` size."""

    name: str
    version: int
    layers: list[Layer]
    order: list[int]  # layer indices, every producer before its consumers
    xml_path: Path
    bin_path: Path


def parse_int(text: str, argument: str, layer: Layer | None = None) -> int:
    """An int64 from a short decimal string, or an `IRError`.

    As OpenVINO reads an id, a port, an edge's end, a Const's extent and the IR version
    (``std::stoll`` to the end of the text): ASCII white space and a sign before it, nothing after.
    """
    if text.isascii() and text.isdigit() and len(text) < 19:  # the common case: "42"
        return int(text)
    stripped = text.lstrip(_ASCII_SPACE)
    if len(stripped) > _MAX_NUMBER_CHARS or not re.fullmatch(r"[+-]?[0-9]+", stripped):
        raise _err(layer, argument, text, "is not an integer")
    value = int(stripped)
    if not INT64_MIN <= value <= INT64_MAX:
        raise _err(layer, argument, text, "does not fit in int64")
    return value


# OpenVINO reads an operator's integer attribute as C++'s ``stream >> int64``, after a check that
# the text starts with a digit or '-' once ASCII white space is skipped: the leading integer
# counts, and whatever follows it is ignored. A decimal or exponent form is taken when its value
# is that leading integer ("2.0", "2e0"); other trailing text ("2abc", "2.5", "2e5") is refused.
_ASCII_SPACE: Final = " \t\n\r\v\f"
_ATTR_INT: Final = re.compile(r"(-?[0-9]+)(\.[0-9]*)?([eE][+-]?[0-9]+)?")
_MAX_ATTR_CHARS: Final = 256


_LEADING_ZEROS: Final = re.compile(r"^(-?)0+(?=[0-9])")
_TRAILING_ZEROS: Final = re.compile(r"(\.[0-9]*?)0+$")


def parse_attr_int(text: str, argument: str, layer: Layer | None = None) -> int:
    """An operator's integer attribute, read as OpenVINO reads it where that is unambiguous.

    ASCII white space may surround it; no ``+`` sign (OpenVINO refuses it). A decimal or
    exponent form is taken when its value is a whole number that OpenVINO reads the same
    (``"2.0"``, ``"3.00"``, ``"2e0"``). Text that OpenVINO would cut short to its leading integer
    (``"2abc"``, ``"2.5"``, ``"2e5"``, ``"2 3"``, ``"0x2"``) is an `IRError`.
    """
    stripped = text.lstrip(_ASCII_SPACE).rstrip()
    # Leading zeros, and trailing zeros of a fraction, change no value: OpenVINO reads
    # "000...02" and "2.000...0" as 2 however long they are.
    stripped = _LEADING_ZEROS.sub(r"\1", stripped)
    if "e" not in stripped.lower():
        stripped = _TRAILING_ZEROS.sub(r"\1", stripped)
    if len(stripped) > _MAX_ATTR_CHARS:  # no whole number of int64 is written this long
        long_int = re.fullmatch(r"-?[0-9]+", stripped)
        raise _err(
            layer, argument, text, "does not fit in int64" if long_int else "is not an integer"
        )
    match = _ATTR_INT.fullmatch(stripped)
    if match is None or ((match[2] or match[3]) and Decimal(stripped) != Decimal(match[1])):
        lead = re.match(r"-?[0-9]+", stripped)
        hint = (
            "OpenVINO refuses a '+' sign"
            if stripped[:1] == "+"
            else None
            if lead is None
            else f"OpenVINO would read {lead[0]} and ignore {stripped[lead.end() :]!r}"
        )
        raise _err(layer, argument, text, "is not an integer", hint=hint)
    value = int(match[1])
    if not INT64_MIN <= value <= INT64_MAX:
        raise _err(layer, argument, text, "does not fit in int64")
    return value


def _err(
    layer: Layer | None,
    argument: str,
    value: Any,
    rule: str,
    port: int | None = None,
    *,
    hint: str | None = None,
) -> IRError:
    if layer is None:
        return IRError(argument, value, rule, port=port, hint=hint)
    return layer.error(argument, value, rule, port=port, hint=hint)


def parse_dim(
    text: str, argument: str = "dim", layer: Layer | None = None, port: int | None = None
) -> Dimension:
    """A dimension written as ``5``, ``-1``, ``?``, ``1..10``, ``..6`` or ``3..``.

    Parsed once per distinct text: a model writes the same few dims on every port (127,502
    ``<dim>`` of about 30 texts in a 20,000-layer LLM), and a `Dimension` is immutable.
    """
    known = _DIMS.get(text)
    if known is not None:
        return known
    dim = _parse_dim_text(text, argument, layer, port)
    keep(_DIMS, text, dim)
    return dim


_DIMS: dict[str, Dimension] = {}
# A port's dims by their texts, and a shape attribute by its text, parsed once each: a model
# declares a few dozen shapes (about 40 on the 43,312 ports of a 20,000-layer LLM)
_SHAPES: dict[str | tuple[str, ...], PartialShape] = {}
_SHAPE_RANK_KEPT: Final = 16  # the longest kept: short keys keep the cache small
_SHAPE_TEXT_KEPT: Final = 128


def _parse_dim_text(text: str, argument: str, layer: Layer | None, port: int | None) -> Dimension:
    stripped = (text or "").strip()
    # as PartialShape's dims say it; but a <dim>, where OpenVINO refuses ? and ..6 (_parse_port)
    hint = "write 5, 2..10, 3.. or -1" if argument == "dim" else "write 5, 2..10, ..6, 3.., ? or -1"
    if len(stripped) > 2 * _MAX_NUMBER_CHARS + 2:
        raise _err(layer, argument, text, "is not a dimension", port, hint=hint)
    if stripped in ("-1", "?"):
        return Dimension()
    if not re.fullmatch(r"[0-9]*(\.\.)?[0-9]*", stripped) or stripped in ("", ".."):
        raise _err(layer, argument, text, "is not a dimension", port, hint=hint)
    for part in stripped.split(".."):
        if part and int(part) > INT64_MAX:
            raise _err(layer, argument, text, "does not fit in int64", port)
    try:
        return Dimension.parse(stripped)
    except ValidationError as exc:
        raise _err(layer, argument, text, exc.rule, port) from None


def parse_shape_attr(
    text: str, argument: str = "shape", layer: Layer | None = None
) -> PartialShape:
    """A ``shape`` attribute: ``"1,3,?,1..10"``, ``""`` (a scalar) or ``"..."`` (dynamic rank).

    Parsed once per distinct text, as a port's dims are.
    """
    known = _SHAPES.get(text)
    if known is None:
        known = _parse_shape_text(text, argument, layer)
        if len(text) <= _SHAPE_TEXT_KEPT:
            keep(_SHAPES, text, known)
    return known


def _parse_shape_text(text: str, argument: str, layer: Layer | None) -> PartialShape:
    stripped = text.strip().removeprefix("[").removesuffix("]").strip()
    if stripped == "...":
        return PartialShape(None)
    if not stripped:
        return PartialShape([])
    if len(stripped) > 1_000_000:
        raise _err(layer, argument, text[:40] + "...", "is too long")
    return PartialShape([parse_dim(p, argument, layer) for p in stripped.split(",")])


def split_names(text: str) -> tuple[str, ...]:
    r"""Tensor names from a ``names`` attribute: comma-separated, ``\,`` for a comma in a name.

    Examples
    --------
    >>> split_names(r"a\,b,c")
    ('a,b', 'c')
    >>> split_names("a,,b"), split_names("")
    (('a', 'b'), ())
    """
    if "\\" not in text:  # the common case: no escape, a plain split (43,313 in an LLM)
        return tuple(p for p in text.split(",") if p)
    parts = re.split(r"(?<!\\),", text)
    return tuple(p.replace("\\,", ",") for p in parts if p)


class _Doctype(Exception):  # noqa: N818 - not an error: the file is read by defusedxml instead
    """A ``<!DOCTYPE``: the only place a file can declare entities or name external ones."""


class _Reader(TreeBuilder):
    """ElementTree's tree of an ``.xml``, each ``<net><layers><layer>`` read once it is made.

    The document is built inside `_top`, an element started before the parser starts, so that
    `take` finds the layers the parser has made so far (after each piece fed) with no Python
    call per element: each is read by `_parse_layer` into `layers`, then cleared, and the tree
    never holds the whole graph. The first `IRError` is kept in `error`, for after the checks of
    the whole file.
    """

    def __init__(self, caseless: Mapping[str, str]) -> None:
        super().__init__()
        self.caseless = caseless
        self.layers: list[Layer] = []
        self.error: IRError | None = None
        self._top = self.start("", {})
        self._layers: Element | None = None  # the root's first <layers>, once made
        self._taken = 0  # its children read (or passed) so far; before it, the root's

    def read(self, elem: Element) -> None:
        """Read one ``<layer>``, unless one before it was broken, and clear it."""
        if self.error is None:
            try:
                self.layers.append(_parse_layer(len(self.layers), elem, self.caseless))
            except IRError as exc:
                self.error = exc
        elem.clear()

    def take(self, *, final: bool = False) -> None:
        """Read the ``<layer>`` children of the root's first ``<layers>`` made so far.

        All but the last, which the parser may not have ended yet; all of them when ``final``.
        """
        if self._layers is None:  # each child of the root looked at once, until <layers>
            made = self._top[0][self._taken :] if len(self._top) else []
            self._taken += len(made)
            self._layers = next((e for e in made if e.tag == "layers"), None)
            if self._layers is None:
                return
            self._taken = 0
        end = len(self._layers) - (not final)
        for elem in self._layers[self._taken : end]:
            if elem.tag == "layer":
                self.read(elem)
        self._taken = max(self._taken, end)

    def doctype(self, _name: str, _pubid: str | None, _system: str | None) -> None:
        raise _Doctype

    def close(self) -> Element:
        """The document's root element, once its last layers are read."""
        self.end("")
        self.take(final=True)
        return super().close()[0]


def _parse_xml(xml_path: object, caseless: Mapping[str, str]) -> tuple[Element, _Reader]:
    """The root element, and the reader that holds the layers (or the first broken one).

    Parsed by expat through ElementTree's C parser, which makes no entity but the five of XML
    itself where there is no ``<!DOCTYPE``; a file with one is parsed by ``defusedxml``, which
    refuses entities and external references.
    """
    name = os.fspath(xml_path) if isinstance(xml_path, str | os.PathLike) else xml_path
    try:
        from defusedxml import DefusedXmlException  # noqa: PLC0415
        from defusedxml import ElementTree as SafeET  # noqa: PLC0415 - the optional 'ir' extra
    except ImportError:
        raise IRError(
            "xml",
            name,
            "cannot be read: reading IR files needs defusedxml, which is not installed",
            hint="pip install 'datamove[ir]'",
        ) from None

    data = read_regular(
        xml_path,
        lambda rule: IRError("xml_path", name, rule),
        max_bytes=MAX_XML_BYTES,
        what="an IR .xml file",
    )
    reader = _Reader(caseless)
    try:
        try:
            parser = XMLParser(target=reader)  # noqa: S314 - _Reader stops at a DTD
            view = memoryview(data)
            for start in range(0, len(data), _FEED_BYTES):  # expat copies what it is fed
                parser.feed(view[start : start + _FEED_BYTES])
                reader.take()
            return parser.close(), reader
        except _Doctype:
            pass
        root = SafeET.fromstring(data)
    except DefusedXmlException as exc:
        raise IRError(
            "xml",
            name,
            f"uses a forbidden XML feature ({type(exc).__name__})",
            hint="IR files never need DTDs or entities; this file is not from OpenVINO",
        ) from None
    except Exception as exc:  # noqa: BLE001 - xml.etree.ElementTree.ParseError and friends
        raise IRError("xml", name, f"is not well-formed XML ({exc})") from None
    layers = root.find("layers")
    for elem in layers.findall("layer") if layers is not None else []:
        reader.read(elem)
    return root, reader


def _parse_port(elem: Element, layer: Layer, argument: str) -> Port:
    pid = parse_int(elem.get("id", ""), f"{argument} port id", layer)
    texts = tuple([d.text or "" for d in elem.findall("dim")])  # findall: C, iterfind: Python
    shape = _SHAPES.get(texts)
    if shape is None:
        for text in texts:  # OpenVINO reads a <dim> as a number: "?" and "..6" it refuses
            if text.strip() == "?" or text.strip().startswith(".."):
                rule = "is not a dimension OpenVINO reads in a <dim>, so it refuses the file"
                raise layer.error("dim", text, rule, port=pid, hint="write -1")
        shape = PartialShape([parse_dim(text, "dim", layer, pid) for text in texts])
        if len(texts) <= _SHAPE_RANK_KEPT:  # a short key: the cache stays small
            keep(_SHAPES, texts, shape)
    names = split_names(elem.get("names", ""))
    precision = elem.get("precision")
    if precision is not None and precision not in OPENVINO_PRECISIONS:
        raise layer.error(
            "precision",
            precision,
            "is not an element type OpenVINO knows",
            port=pid,
            hint="write FP32, I64, BOOL, ... or f32, i64, boolean, ...",
        )
    return Port(pid, precision, shape, bool(texts), names)


# The <data> attributes whose values OpenVINO reads ignoring the case of ASCII letters, each
# with the values datamove reads by their lower-case spellings: an element type ("F32" is f32),
# a bool ("True" and "1" are true, "0" false) and a broadcast mode ("NUMPY"; a "mode" of
# another name, an Interpolate's "NEAREST", is not datamove's business). Another value
# stays as written, for the check that names it (OpenVINO reads a bool it does not know, "yes",
# as the operator's default: datamove does not guess it).
_TYPE_NAMES: Final = {name: name for name in OPENVINO_TYPE_NAMES}
_BOOLS: Final = {"true": "true", "1": "true", "false": "false", "0": "false"}
_MODES: Final = {name: name for name in ("numpy", "none", "pdpd", "explicit", "bidirectional")}
_CASELESS_VALUES: Final[dict[str, Mapping[str, str]]] = {
    **dict.fromkeys(
        (
            *("element_type", "destination_type", "output_type", "index_element_type"),
            *("count_element_type", "convert_type", "variable_type"),
        ),
        _TYPE_NAMES,
    ),
    **dict.fromkeys(
        (
            "special_zero",
            "m_pythondiv",
            "keep_dims",
            "transpose_a",
            "transpose_b",
            "allow_axis_skip",
        ),
        _BOOLS,
    ),
    **dict.fromkeys(("auto_broadcast", "mode"), _MODES),  # (Broadcast's mode)
}


# The layer types OpenVINO reads in one spelling alone, by their lower-case spellings: what it
# does with another (`type="const"`, `"Constant"`; `type="result"`), which datamove refuses.
_EXACT_TYPES: Final = {
    "const": ("Const", "OpenVINO refuses it"),
    "constant": ("Const", "OpenVINO refuses it"),
    "result": ("Result", "OpenVINO reads it as no output of the model (IR-28)"),
}


def _parse_layer(index: int, elem: Element, caseless: Mapping[str, str]) -> Layer:
    attrs = dict(elem.attrib)
    lid = attrs.get("id")
    ltype = attrs.get("type")
    if lid is None or ltype is None:
        raise IRError(f"layers[{index}]", attrs, "needs both an 'id' and a 'type' attribute")
    parse_int(lid, f"layers[{index}] id")  # OpenVINO reads layer ids as integers
    if ltype.isascii():  # OpenVINO ignores the case of ASCII letters alone ("TopK" with a Kelvin K)
        low = ltype.lower()
        exact = _EXACT_TYPES.get(low)
        if exact is not None and ltype != exact[0]:
            raise IRError(
                "type",
                ltype,
                f"is not {exact[0]!r}: {exact[1]}",
                hint=f'write type="{exact[0]}"',
                layer_id=lid,
                layer_name=attrs.get("name", lid),
                layer_type=ltype,
            )
        ltype = caseless.get(low, ltype)
    data_elem = elem.find("data")
    data = dict(data_elem.attrib) if data_elem is not None else {}
    for key, value in data.items():  # (a few keys a layer: faster than looking each up)
        names = _CASELESS_VALUES.get(key)
        if names is not None and value.isascii():
            data[key] = names.get(value.lower(), value)
    layer = Layer(
        index, lid, attrs.get("name", lid), ltype, attrs.get("version", ""), data, attrs, (), ()
    )
    layer.kept_out = tuple(dict.fromkeys(c.tag for c in elem if c.tag not in _READ_ELEMENTS))
    in_elem, out_elem = elem.find("input"), elem.find("output")
    ins = in_elem.findall("port") if in_elem is not None else []
    outs = out_elem.findall("port") if out_elem is not None else []
    layer.inputs = tuple([_parse_port(p, layer, "input") for p in ins])
    layer.outputs = tuple([_parse_port(p, layer, "output") for p in outs])
    seen: set[int] = set()
    for port in (*layer.inputs, *layer.outputs):  # one pass: a layer may have 10**5 ports
        if port.id in seen:
            raise layer.error("port id", port.id, "is used twice in this layer", port=port.id)
        seen.add(port.id)
    return layer


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off within, then as it was found (on errors too).

    Reading a model pauses it: parsing makes a dozen objects per ``<layer>``, ``<port>`` and
    ``<dim>``, none of them garbage, and the collections they set off took a third of reading a
    20,000-layer model. So does inferring its shapes (``Model._infer``, for `check`, `run` and
    ``explain``), where two full collections over that model's graph took a sixth of `check`.
    The memory that is made is bounded by the file, itself bounded by ``MAX_XML_BYTES``.
    """
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


def parse_graph(
    xml_path: str | os.PathLike[str],
    bin_path: str | os.PathLike[str] | None = None,
    *,
    caseless: Mapping[str, str],
) -> Graph:
    """Parse and check the structure of an IR file (see the module docstring).

    ``caseless`` maps the lower-case spelling of each layer type datamove knows to its name
    (``{"split": "Split"}``): a layer's type is read as OpenVINO reads it, its ASCII letters in
    any case, and given that name, so that the rest of datamove matches it exactly; other types
    are kept as the file spells them. A ``Const`` or ``Result`` spelled otherwise is an `IRError`.
    `read_model` calls it with the garbage collector paused (`gc_paused`).
    """
    root, reader = _parse_xml(xml_path, caseless)  # first: it checks that xml_path is a path
    xml = Path(xml_path)
    if root.tag != "net":
        raise IRError("xml", os.fspath(xml), f"has root element <{root.tag}>, not <net>")
    version_text = root.get("version", "")
    version = parse_int(version_text, "version") if version_text else 0
    if version not in SUPPORTED_IR_VERSIONS:
        raise IRError(
            "version",
            version_text,
            "is not a supported IR version",
            hint="datamove reads IR v10 and v11 (OpenVINO 2020.1 and later)",
        )
    if reader.error is not None:
        raise reader.error
    layers = reader.layers
    by_id: dict[int, int] = {}  # layer ids as numbers: OpenVINO reads "03" as 3
    for layer in layers:
        number = parse_int(layer.id, "id", layer)
        if number in by_id:
            raise layer.error("id", layer.id, "is used by two layers")
        by_id[number] = layer.index

    # Edges: each input port fed by exactly one existing output port.
    fed: dict[tuple[int, int], tuple[int, int]] = {}
    out_pos = [{p.id: k for k, p in enumerate(layer.outputs)} for layer in layers]
    in_pos = [{p.id: k for k, p in enumerate(layer.inputs)} for layer in layers]
    edges_elem = root.find("edges")
    for n, edge in enumerate(edges_elem.findall("edge") if edges_elem is not None else []):
        arg = f"edges[{n}]"
        try:
            fl, fp, tl, tp = [parse_int(edge.get(key, ""), arg) for key in _EDGE_KEYS]
        except IRError:
            raise IRError(
                arg, dict(edge.attrib), "needs integer from-layer, from-port, to-layer and to-port"
            ) from None
        for lid, attr in ((fl, "from-layer"), (tl, "to-layer")):
            if lid not in by_id:
                raise IRError(
                    arg,
                    dict(edge.attrib),
                    f"points to layer {edge.get(attr)!r}, which does not exist",
                )
        src, dst = layers[by_id[fl]], layers[by_id[tl]]
        if fp not in out_pos[src.index]:
            raise src.error(
                arg,
                dict(edge.attrib),
                f"starts at port {fp}, which is not an output port of this layer",
                port=fp,
            )
        if tp not in in_pos[dst.index]:
            raise dst.error(
                arg,
                dict(edge.attrib),
                f"ends at port {tp}, which is not an input port of this layer",
                port=tp,
            )
        key = (dst.index, in_pos[dst.index][tp])
        if key in fed:
            raise dst.error(
                arg,
                dict(edge.attrib),
                "feeds an input port that another edge already feeds",
                port=tp,
            )
        fed[key] = (src.index, out_pos[src.index][fp])
    for layer in layers:
        for k, port in enumerate(layer.inputs):
            if (layer.index, k) not in fed:
                raise layer.error("input port", port.id, "has no incoming edge", port=port.id)
        layer.sources = [fed[(layer.index, k)] for k in range(len(layer.inputs))]

    order = _topological_order(layers)
    if bin_path is not None and not isinstance(bin_path, str | os.PathLike):
        raise IRError("bin_path", bin_path, "is not a path (a str or an os.PathLike)")
    bin_file = Path(bin_path) if bin_path is not None else xml.with_suffix(".bin")
    try:
        bin_stat: os.stat_result | None = bin_file.stat()
    except (OSError, ValueError):  # ValueError: a NUL character in the path
        bin_stat = None  # fine while there is no Const
    for layer in layers:
        if layer.type == "Const":
            _check_const_extent(layer, bin_file, bin_stat)
    return Graph(root.get("name", ""), version, layers, order, xml, bin_file)


def _topological_order(layers: list[Layer]) -> list[int]:
    indegree = [len(layer.inputs) for layer in layers]
    users: list[list[int]] = [[] for _ in layers]
    for layer in layers:
        for src, _ in layer.sources:
            users[src].append(layer.index)
    ready = deque(i for i, d in enumerate(indegree) if d == 0)
    order: list[int] = []
    while ready:
        i = ready.popleft()
        order.append(i)
        for j in users[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                ready.append(j)
    if len(order) != len(layers):
        stuck = [layers[i] for i, d in enumerate(indegree) if d > 0]
        shown = ", ".join(f"{x.id} {x.name!r}" for x in stuck[:_MAX_SHOWN_LAYERS])
        more = (
            f" and {len(stuck) - _MAX_SHOWN_LAYERS} more" if len(stuck) > _MAX_SHOWN_LAYERS else ""
        )
        raise stuck[0].error(
            None,
            None,
            f"the edges form a cycle through layers {shown}{more}",
            hint="an IR graph must be acyclic",
        )
    return order


def _check_const_extent(layer: Layer, bin_path: Path, bin_stat: os.stat_result | None) -> None:
    """A Const's ``offset``/``size`` must lie inside the ``.bin`` (checked before any read).

    ``bin_stat`` is the ``.bin``'s ``stat``, ``None`` where it has none: a folder or a pipe is
    no ``.bin`` file either, never read.
    """
    offset, size = layer.extent_attr("offset"), layer.extent_attr("size")
    if offset < 0 or size < 0:
        raise layer.error(
            "offset" if offset < 0 else "size", min(offset, size), "must not be negative"
        )
    if bin_stat is None or not stat.S_ISREG(bin_stat.st_mode):
        missing = (
            "does not exist"
            if bin_stat is None
            else f"is {kind(bin_stat.st_mode)}, not a regular file"
        )
        raise layer.error(
            None,
            None,
            f"reads weights, but the .bin file {os.fspath(bin_path)!r} {missing}",
            hint="if it has another name, pass it: bin_path=, or --bin on the command line",
        )
    if offset + size > bin_stat.st_size:
        raise layer.error(
            "offset + size",
            offset + size,
            f"is past the end of {bin_path.name!r} ({bin_stat.st_size} bytes): "
            "the .bin file is too short",
        )
