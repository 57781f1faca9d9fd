r"""The IR errors: ``IRError``, ``UnsupportedOperatorError`` and ``InputTypeError``; ``ONNXError``.

All three are ``ValidationError``\\ s, and ``InputTypeError`` is also a ``DTypeError``. They
carry where in the file the problem is, as well as the usual ``op``/``argument``/``value``/
``rule``: ``layer_id``, ``layer_name``, ``layer_type`` and ``port`` (each ``None`` when the problem
is not about one layer or port).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from datamove._errors import DTypeError, ValidationError

__all__ = ["IRError", "InputTypeError", "ONNXError", "UnsupportedOperatorError", "where"]


def where(
    layer_id: str | None,
    layer_name: str | None,
    layer_type: str | None,
    port: int | None,
    unit: str = "layer",
) -> str:
    """Describe a place in the IR: ``layer 3 'Split_3' (Split) port 2``; ``model`` for none.

    ``unit`` is the model's word for the place: ``node`` for an ONNX model's.
    """
    if layer_id is None:
        return "model"
    text = f"{unit} {layer_id}"
    if layer_name is not None:
        text += f" {layer_name!r}"
    if layer_type is not None:
        text += f" ({layer_type})"
    if port is not None:
        text += f" port {port}"
    return text


class IRError(ValidationError):
    """An OpenVINO IR file (``.xml`` + ``.bin``) that cannot be read, or a model that cannot run.

    Parameters
    ----------
    argument, value, rule, hint
        As for `datamove.ValidationError`; ``op`` is always ``"IR"``.
    layer_id, layer_name, layer_type, port : optional
        Where the problem is.

    Examples
    --------
    >>> err = IRError("dim", "x", "is not a dimension", layer_id="3", layer_name="s",
    ...               layer_type="Split", port=2)
    >>> print(err)
    IR: layer 3 's' (Split) port 2: dim='x' is not a dimension
    >>> err.layer_type, err.port
    ('Split', 2)
    """

    def __init__(
        self,
        argument: str | None,
        value: Any,
        rule: str,
        *,
        hint: str | None = None,
        layer_id: str | None = None,
        layer_name: str | None = None,
        layer_type: str | None = None,
        port: int | None = None,
    ) -> None:
        self.layer_id = layer_id
        self.layer_name = layer_name
        self.layer_type = layer_type
        self.port = port
        place = where(layer_id, layer_name, layer_type, port)
        prefix = "" if layer_id is None else f"{place}: "
        if argument is None:
            super().__init__("IR", None, value, prefix + rule, hint=hint)
        else:
            super().__init__("IR", prefix + argument, value, rule, hint=hint)
        # Keep the structured fields as the caller named them (the message holds the place).
        self.argument = argument
        self.rule = rule

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with every structured field."""
        places: dict[str, Any] = {
            "hint": self.hint,
            "layer_id": self.layer_id,
            "layer_name": self.layer_name,
            "layer_type": self.layer_type,
            "port": self.port,
        }
        return (partial(type(self), **places), (self.argument, self.value, self.rule))


class UnsupportedOperatorError(IRError):
    """A layer whose type (or version) datamove does not implement.

    Examples
    --------
    >>> err = UnsupportedOperatorError("type", "Gather", "is not supported", layer_id="7",
    ...                                layer_name="g", layer_type="Gather")
    >>> isinstance(err, IRError), err.layer_type
    (True, 'Gather')
    """


class InputTypeError(IRError, DTypeError):
    """An input of `Model.run` that is not an array, or not of its Parameter's element type.

    Both an `IRError` (it names the Parameter) and a `datamove.DTypeError` (so also a
    ``TypeError``), which is what `datamove.split` raises for the same data.

    Examples
    --------
    >>> err = InputTypeError("inputs['x']", "abc", "must be an array, not a string", layer_id="0",
    ...                      layer_name="x", layer_type="Parameter", port=0)
    >>> print(err)
    IR: layer 0 'x' (Parameter) port 0: inputs['x']='abc' must be an array, not a string
    >>> from datamove import DTypeError
    >>> isinstance(err, IRError), isinstance(err, DTypeError), isinstance(err, TypeError)
    (True, True, True)
    """


class ONNXError(ValidationError):
    """An ONNX file that cannot be read (or the optional ``onnx`` package is missing).

    ``op`` is ``"ONNX"``; a problem in one node of a model that can be read is not an error but
    a `Problem` of `ONNXModel.check`.

    Examples
    --------
    >>> print(ONNXError("path", "m.onnx", "is not an ONNX model: Error parsing message"))
    ONNX: path='m.onnx' is not an ONNX model: Error parsing message
    """

    def __init__(
        self,
        argument: str | None,
        value: Any,
        rule: str,
        *,
        hint: str | None = None,
        op: str = "ONNX",
    ) -> None:
        super().__init__(op, argument, value, rule, hint=hint)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with every structured field."""
        return (
            partial(type(self), hint=self.hint, op=self.op),
            (self.argument, self.value, self.rule),
        )
