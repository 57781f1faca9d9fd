"""DirectML descs to and from JSON in the layout of DxDispatch model files.

A tensor desc is ``{"DataType": ..., "Sizes": [...], ...}`` (optionally wrapped as
``{"Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {...}}``); an operator is a dispatchable
``{"type": "DML_OPERATOR_SPLIT", "desc": {"InputTensor": ..., "OutputCount": 3,
"OutputTensors": [...], "Axis": 2}}``. As in DxDispatch, ``DataType`` may be written with or
without its ``DML_TENSOR_DATA_TYPE_`` prefix, and an absent or 0 ``TotalTensorSizeInBytes``
means ``DMLCalcBufferTensorSize`` of the desc. Files with ``//`` comments or trailing commas
(which DxDispatch's parser accepts) are read too.
"""

from __future__ import annotations

import json
import re
from typing import Any

from datamove._errors import DTypeError, ValidationError, a_kind
from datamove.directml._desc import JoinDesc, SplitDesc, check_count
from datamove.directml._enums import OperatorType, TensorType
from datamove.directml._errors import DirectMLValidationError, Violation
from datamove.directml._tensor import TensorDesc

__all__ = [
    "desc_from_json",
    "desc_to_json",
    "dumps",
    "json_path",
    "json_violations",
    "loads",
    "tensor_from_json",
    "tensor_to_json",
]

_OP = "DirectML JSON"


def tensor_to_json(tensor: TensorDesc) -> dict[str, Any]:
    """A ``TensorDesc`` as DxDispatch writes a ``DML_BUFFER_TENSOR_DESC``, every field explicit.

    Examples
    --------
    >>> tensor_to_json(TensorDesc("FLOAT32", [1, 1, 2, 3]))
    ... # doctest: +NORMALIZE_WHITESPACE
    {'DataType': 'DML_TENSOR_DATA_TYPE_FLOAT32', 'Flags': 'DML_TENSOR_FLAG_NONE',
     'DimensionCount': 4, 'Sizes': [1, 1, 2, 3], 'TotalTensorSizeInBytes': 24,
     'GuaranteedBaseOffsetAlignment': 0}
    """
    body: dict[str, Any] = {
        "DataType": tensor.data_type.dml_name,
        "Flags": tensor.flags.dml_name if tensor.flags <= 1 else int(tensor.flags),
        "DimensionCount": tensor.rank,
        "Sizes": list(tensor.sizes),
    }
    if tensor.strides is not None:
        body["Strides"] = list(tensor.strides)
    body["TotalTensorSizeInBytes"] = tensor.total_tensor_size_in_bytes
    body["GuaranteedBaseOffsetAlignment"] = tensor.guaranteed_base_offset_alignment
    if tensor.tensor_type is not TensorType.BUFFER:
        return {"Type": tensor.tensor_type.dml_name, "Desc": body}
    return body


# A desc's fields as Python names them (Violation paths, TensorDesc's arguments) and as JSON does.
_JSON_NAMES = {
    "input": "InputTensor",
    "inputs": "InputTensors",
    "output": "OutputTensor",
    "outputs": "OutputTensors",
    "axis": "Axis",
    "data_type": "DataType",
    "sizes": "Sizes",
    "strides": "Strides",
    "flags": "Flags",
    "rank": "DimensionCount",
    "total_tensor_size_in_bytes": "TotalTensorSizeInBytes",
    "guaranteed_base_offset_alignment": "GuaranteedBaseOffsetAlignment",
    "tensor_type": "Type",
}
_IN_DESC = frozenset(_JSON_NAMES.values()) - {"Type"}  # a wrapped tensor's fields are in "Desc"
_FIELDS = re.compile(r"\b(?:inputs?|outputs?)(?:\[[^\]]*\])?(?:\.[a-z_]+(?:\[[^\]]*\])?)+")
_TOKEN = re.compile(r"([A-Za-z_]\w*)((?:\[[^\]]*\])*)")


def _at(path: str, name: str) -> str:
    """The path to field ``name`` of the object at ``path`` (``""``: the file's top level)."""
    return f"{path}.{name}" if path else name


def json_path(path: str, obj: Any, root: str = "") -> str:
    """``path``, a field of a desc or tensor desc as Python names it, as the JSON ``obj`` does.

    ``outputs[1].sizes[2]`` is ``OutputTensors[1].Sizes[2]``, or ``OutputTensors[1].Desc.Sizes[2]``
    where that tensor is written wrapped (``{"Type": ..., "Desc": {...}}``), so that a report
    names the field as the user's file spells it. ``root`` is the path to ``obj`` itself. A
    tensor's ``rank`` is its ``DimensionCount`` where the file gives one, else the length of its
    ``Sizes`` (``len(OutputTensor.Sizes)``).

    Examples
    --------
    >>> body = {"OutputTensors": [{"Sizes": [2]}, {"Type": "BUFFER", "Desc": {"Sizes": [4]}}]}
    >>> json_path("outputs[1].sizes[0]", body, "desc")
    'desc.OutputTensors[1].Desc.Sizes[0]'
    >>> json_path("outputs[*].sizes[0]", body)
    'OutputTensors[*].Sizes[0]'
    >>> json_path("outputs[1].rank", body)
    'len(OutputTensors[1].Desc.Sizes)'
    """
    out = root
    node = obj
    for token in path.split("."):
        match = _TOKEN.fullmatch(token)
        if match is None:  # not a field: kept as it is
            out, node = _at(out, token), None
            continue
        name, index = match.groups()
        field = _JSON_NAMES.get(name, name)
        if field in _IN_DESC and isinstance(node, dict) and isinstance(node.get("Desc"), dict):
            out, node = _at(out, "Desc"), node["Desc"]
        if name == "rank" and isinstance(node, dict) and field not in node:  # no DimensionCount
            out, node = f"len({_at(out, 'Sizes')})", None
            continue
        out = _at(out, field + index)
        node = node.get(field) if isinstance(node, dict) else None
        for i in re.findall(r"\[([^\]]*)\]", index):
            k = 0 if i == "*" else int(i) if i.isdigit() else -1
            node = node[k] if isinstance(node, list) and 0 <= k < len(node) else None
    return out


def json_violations(
    violations: list[Violation], obj: Any, path: str | None = None
) -> list[Violation]:
    """``violations`` of the desc read from ``obj`` (at ``path``), their paths as JSON names them.

    Examples
    --------
    >>> obj = {"type": "DML_OPERATOR_JOIN", "desc": {"Axis": 3}}
    >>> found = [Violation("J3", "axis", 3, "must be below output.rank=2")]
    >>> [str(v) for v in json_violations(found, obj, "")]
    ['[J3] desc.Axis=3 must be below OutputTensor.DimensionCount=2']
    """
    _, body, root = read_operator(obj, path)

    def fields(match: re.Match[str]) -> str:  # the fields a message names: input.sizes[1]
        return json_path(match.group(0), body)

    return [
        Violation(v.rule, json_path(v.path, body, root), v.value, _FIELDS.sub(fields, v.message))
        for v in violations
    ]


def _field(obj: dict[str, Any], name: str, path: str) -> Any:
    if name not in obj:
        raise ValidationError(_OP, _at(path, name), None, "is missing")
    return obj[name]


def _check_count(body: dict[str, Any], name: str, path: str, rule: str, items: str, n: int) -> None:
    """The optional count field ``name`` (``DimensionCount``, ``OutputCount`` ...) is ``n``."""
    count = body.get(name)
    if count is not None and count != n:
        raise DirectMLValidationError(
            _OP, [Violation(rule, _at(path, name), count, f"must equal len({items})={n}")]
        )


def _object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DTypeError(_OP, path or "(top level)", value, "must be a JSON object")
    return value


def _list(value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise DTypeError(_OP, path, value, "must be a JSON array")
    return value


def tensor_from_json(obj: Any, path: str = "tensor") -> TensorDesc:
    """Read a ``TensorDesc`` from DxDispatch JSON (short or ``Type``/``Desc`` form).

    Raises
    ------
    datamove.ValidationError
        For a missing field or a value of the wrong kind, naming the field's path.
    DirectMLValidationError
        When ``DimensionCount`` disagrees with ``Sizes`` (T4).

    Examples
    --------
    >>> tensor_from_json({"DataType": "FLOAT32", "Sizes": [2, 3], "Strides": [0, 1]})
    ... # doctest: +NORMALIZE_WHITESPACE
    TensorDesc(data_type=<TensorDataType.FLOAT32: 1>, sizes=(2, 3), strides=(0, 1),
               flags=<TensorFlags.NONE: 0>, total_tensor_size_in_bytes=12,
               guaranteed_base_offset_alignment=0, tensor_type=<TensorType.BUFFER: 1>)
    """
    outer = _object(obj, path)
    tensor_type: Any = TensorType.BUFFER
    body, at = outer, path  # the object holding the fields, and its path
    if "Desc" in outer:
        tensor_type = outer.get("Type") or TensorType.BUFFER
        at = _at(path, "Desc")
        body = _object(outer["Desc"], at)
    elif "Type" in outer:
        tensor_type = outer["Type"]
    sizes = _list(_field(body, "Sizes", at), _at(at, "Sizes"))
    _check_count(body, "DimensionCount", at, "T4", "Sizes", len(sizes))
    data_type = _field(body, "DataType", at)  # outside the try: its error has its path already
    strides = body.get("Strides")
    strides = None if strides is None else _list(strides, _at(at, "Strides"))
    total = body.get("TotalTensorSizeInBytes")
    try:
        return TensorDesc(
            data_type,
            sizes,
            strides,
            flags=body.get("Flags") or 0,
            total_tensor_size_in_bytes=total or None,  # DxDispatch: 0 means computed
            guaranteed_base_offset_alignment=body.get("GuaranteedBaseOffsetAlignment") or 0,
            tensor_type=tensor_type,
        )
    except ValidationError as exc:
        argument = json_path(exc.argument, outer, path) if exc.argument else path
        raise type(exc)(_OP, argument, exc.value, exc.rule, hint=exc.hint) from None


def desc_to_json(desc: SplitDesc | JoinDesc) -> dict[str, Any]:
    """An operator desc as a DxDispatch dispatchable ``{"type": ..., "desc": {...}}``.

    Examples
    --------
    >>> split = SplitDesc(TensorDesc("FLOAT32", [6]), [TensorDesc("FLOAT32", [2])] * 3, 0)
    >>> data = desc_to_json(split)
    >>> data["type"], data["desc"]["OutputCount"], data["desc"]["Axis"]
    ('DML_OPERATOR_SPLIT', 3, 0)
    >>> desc_from_json(data) == split
    True
    """
    if isinstance(desc, SplitDesc):
        body = {
            "InputTensor": tensor_to_json(desc.input),
            "OutputCount": len(desc.outputs),
            "OutputTensors": [tensor_to_json(t) for t in desc.outputs],
            "Axis": desc.axis,
        }
    elif isinstance(desc, JoinDesc):
        body = {
            "InputCount": len(desc.inputs),
            "InputTensors": [tensor_to_json(t) for t in desc.inputs],
            "OutputTensor": tensor_to_json(desc.output),
            "Axis": desc.axis,
        }
    else:
        raise DTypeError(_OP, "desc", desc, "must be a SplitDesc or a JoinDesc")
    return {"type": desc.operator_type.dml_name, "desc": body}


def _tensor_array(
    body: dict[str, Any], name: str, count_name: str, path: str, rule: str
) -> list[TensorDesc]:
    items = _list(_field(body, name, path), _at(path, name))
    check_count(_OP, _at(path, name), len(items), "tensors")
    _check_count(body, count_name, path, rule, name, len(items))
    return [tensor_from_json(item, _at(path, f"{name}[{i}]")) for i, item in enumerate(items)]


def _axis(body: dict[str, Any], path: str) -> int:
    axis = _field(body, "Axis", path)
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise DTypeError(_OP, _at(path, "Axis"), axis, f"must be an integer, not {a_kind(axis)}")
    return axis


def read_operator(obj: Any, path: str | None) -> tuple[OperatorType, dict[str, Any], str]:
    """The operator (a dispatchable's ``type``, or told by a bare desc's fields), body and path.

    Known before the rest of the desc is read, so a report can name the operator even where
    the desc is broken (a wrong ``OutputCount``). ``path`` names ``obj``; ``None``: a
    dispatchable is the top level (its desc is ``desc``), and so is a bare desc, named
    ``desc``, so that a field reads ``desc.Axis`` either way.
    """
    if path is None:
        path = "" if isinstance(obj, dict) and "desc" in obj else "desc"
    outer = _object(obj, path)
    if "desc" in outer:
        kind = OperatorType.parse(_field(outer, "type", path))
        body = _object(outer["desc"], _at(path, "desc"))
        path = _at(path, "desc")
    else:
        body = outer
        if "OutputTensors" in body:
            kind = OperatorType.SPLIT
        elif "InputTensors" in body:
            kind = OperatorType.JOIN
        else:
            raise ValidationError(
                _OP,
                path,
                sorted(body),
                "is neither a split (OutputTensors) nor a join (InputTensors)",
            )
    return kind, body, path


def desc_from_json(obj: Any, path: str | None = None) -> SplitDesc | JoinDesc:
    """Read a split or join desc from a DxDispatch dispatchable or a bare ``desc`` object.

    A bare desc's operator is told by its fields (``InputTensor``/``OutputTensors`` for split,
    ``InputTensors``/``OutputTensor`` for join). Errors name fields from ``path``, the name of
    ``obj`` (by default a field of either form reads ``desc.Axis``; ``""``: ``obj`` is the top
    level).

    Raises
    ------
    datamove.ValidationError
        For a malformed object or an operator other than split and join.
    DirectMLValidationError
        When ``OutputCount``/``InputCount`` disagree with their arrays (S1/J1).
    """
    kind, body, at = read_operator(obj, path)
    if kind is OperatorType.SPLIT:
        single = tensor_from_json(_field(body, "InputTensor", at), _at(at, "InputTensor"))
        many = _tensor_array(body, "OutputTensors", "OutputCount", at, "S1")
    else:
        many = _tensor_array(body, "InputTensors", "InputCount", at, "J1")
        single = tensor_from_json(_field(body, "OutputTensor", at), _at(at, "OutputTensor"))
    axis = _axis(body, at)  # the constructors check types only, which are right by now
    if kind is OperatorType.SPLIT:
        return SplitDesc(single, many, axis)
    return JoinDesc(many, single, axis)


def dumps(desc: SplitDesc | JoinDesc, *, indent: int | None = 4) -> str:
    """The desc as DxDispatch JSON text (see :func:`desc_to_json`)."""
    return json.dumps(desc_to_json(desc), indent=indent)


# A string (to the closing quote, or to the end when there is none) or a comment, and a string or
# a comma before a closing bracket. Every alternative that starts matching consumes to its end or
# to the end of the text, so no start is scanned twice: linear time on any text.
_STRING = r'"(?:[^"\\]|\\.)*(?:"|\\?\Z)'
_COMMENTS = re.compile(_STRING + r"|//[^\n]*|/\*(?:.*?\*/|.*\Z)", re.DOTALL)
_TRAILING_COMMAS = re.compile(_STRING + r"|,(\s*[\]}])")


def _uncomment(match: re.Match[str]) -> str:
    text = match[0]
    if text[0] == '"' or (text[1] == "*" and not (len(text) >= 4 and text.endswith("*/"))):
        return text  # a string, or a /* with no */ (left for JSON to reject)
    return " "  # a comment separates tokens, like white space


def _parse_int(digits: str) -> int:
    """JSON's integers, with a ``ValidationError`` for those Python will not convert."""
    try:
        return int(digits)
    except ValueError:  # more than sys.get_int_max_str_digits() digits (4300 by default)
        raise ValidationError(
            _OP,
            "text",
            f"{digits[:20]}...",
            f"holds an integer of {len(digits)} digits, more than Python converts; no DirectML "
            "field holds more than 20 (a UINT64)",
        ) from None


_MAX_DEPTH = 64  # a DxDispatch model nests less than 10 deep; Python recurses on deeper ones


def _too_deep(text: str) -> ValidationError:
    return ValidationError(
        _OP,
        "text",
        text[:40],
        f"nests arrays or objects more than {_MAX_DEPTH} deep (a DxDispatch model nests less "
        "than 10 deep)",
    )


def _loads(text: str) -> Any:
    """``json.loads``; deep nesting and over-long integers are ``ValidationError``s."""
    try:
        data = json.loads(text, parse_int=_parse_int)
    except RecursionError:  # C's json gives up on deep nesting; nothing was half-built
        raise _too_deep(text) from None
    # Refused here, not where repr or json.dumps would recurse on it later (an error message).
    containers: list[tuple[Any, int]] = [(data, 1)] if isinstance(data, dict | list) else []
    while containers:
        value, depth = containers.pop()
        if depth > _MAX_DEPTH:
            raise _too_deep(text)
        items = value.values() if isinstance(value, dict) else value
        containers.extend((v, depth + 1) for v in items if isinstance(v, dict | list))
    return data


def parse_json_text(text: str | bytes | bytearray) -> Any:
    """JSON, also with comments and trailing commas as DxDispatch's parser allows.

    ``text`` is a ``str``, or UTF-8 ``bytes`` (as a file holds it).

    Raises
    ------
    datamove.DTypeError
        For ``text`` that is neither.
    datamove.ValidationError
        For bytes that are not UTF-8, text that is not JSON even so, nests too deeply, or holds
        an integer of more digits than Python converts. The time is linear in the text's length.
    """
    if isinstance(text, bytes | bytearray):
        raw = bytes(text)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            rule = f"is not UTF-8 (byte {exc.start} is {raw[exc.start]:#04x})"
            raise ValidationError(_OP, "text", raw[:40], rule) from None
    if not isinstance(text, str):
        raise DTypeError(_OP, "text", text, "must be JSON text (a str, or UTF-8 bytes)")
    try:
        return _loads(text)
    except json.JSONDecodeError as first:
        cleaned = _COMMENTS.sub(_uncomment, text)
        cleaned = _TRAILING_COMMAS.sub(lambda m: m[0] if m[1] is None else m[1], cleaned)
        try:
            return _loads(cleaned)
        except json.JSONDecodeError:
            raise ValidationError(_OP, "text", text[:40], f"is not JSON ({first})") from None


def loads(text: str | bytes | bytearray) -> SplitDesc | JoinDesc:
    """Read a split or join desc from JSON text, a ``str`` or UTF-8 ``bytes`` (`desc_from_json`).

    Examples
    --------
    >>> loads('{"Axis": 0, "InputTensor": {"DataType": "FLOAT32", "Sizes": [6]},'
    ...       ' "OutputTensors": [{"DataType": "FLOAT32", "Sizes": [6]},],}').outputs[0].sizes
    (6,)
    """
    return desc_from_json(parse_json_text(text))
