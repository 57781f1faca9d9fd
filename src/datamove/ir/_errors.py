r"""The IR errors: ``IRError`` and its kinds; ``ONNXError``.

``IRError``, ``UnsupportedOperatorError``, ``MissingInputError`` and ``InputTypeError`` are
``ValidationError``\\ s, and ``InputTypeError`` is also a ``DTypeError``. They carry where in
the file the problem is, as well as the usual ``op``/``argument``/``value``/``rule``:
``layer_id``, ``layer_name``, ``layer_type`` and ``port`` (each ``None`` when the problem is
not about one layer or port). ``UnsupportedOperatorError`` and ``MissingInputError`` also carry
what a caller needs to say the fix in its own words (``runnable``; ``missing``, ``needed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from datamove._errors import DTypeError, ValidationError

__all__ = [
    "IRError",
    "InputTypeError",
    "MissingInputError",
    "ONNXError",
    "UnsupportedOperatorError",
    "where",
]


def where(
    layer_id: str | None,
    layer_name: str | None,
    layer_type: str | None,
    port: int | None,
    unit: str = "layer",
) -> str:
    """Describe a place in the IR: ``layer 3 'Split_3' (Split) port 2``; ``model`` for none.

    ``unit`` is the model's word for the place: ``node`` for an ONNX model's, whose ``port`` is
    an output (``node 3 'cut' (Slice) output 0``: ONNX has no ports).
    """
    if layer_id is None:
        return "model"
    text = f"{unit} {layer_id}"
    if layer_name is not None:
        text += f" {layer_name!r}"
    if layer_type is not None:
        text += f" ({layer_type})"
    if port is not None:
        text += f" {'output' if unit == 'node' else 'port'} {port}"
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

    ``runnable``: where `Model.run` refuses a layer that some outputs do not need, their names
    (else ``()``), which the hint says to pass (``outputs=[...]``, or as ``passing`` says:
    ``datamove run`` passes ``--output NAME``).

    Examples
    --------
    >>> err = UnsupportedOperatorError("type", "Gather", "is not supported", layer_id="7",
    ...                                layer_name="g", layer_type="Gather")
    >>> isinstance(err, IRError), err.layer_type
    (True, 'Gather')
    >>> UnsupportedOperatorError(None, None, "cannot run", hint="use OpenVINO", runnable=["y"]).hint
    "pass outputs=['y'] to run the outputs that need none, or use OpenVINO"
    """

    def __init__(
        self,
        *args: Any,
        hint: str | None = None,
        runnable: Sequence[str] = (),
        passing: str | None = None,
        **kw: Any,
    ) -> None:
        self.runnable, self.advice, self.passing = tuple(runnable), hint, passing
        if self.runnable:
            passed = passing or f"outputs={list(self.runnable)!r}"
            hint = f"pass {passed} to run the outputs that need none, or {hint}"
        super().__init__(*args, hint=hint, **kw)

    def __reduce__(self) -> tuple[Any, ...]:
        make, fields = super().__reduce__()
        more = {"hint": self.advice, "runnable": self.runnable, "passing": self.passing}
        return (partial(make, **more), fields)


class MissingInputError(IRError):
    """`Model.run` got no array for an input that the outputs it computes need.

    ``missing`` names that input and ``needed`` every input those outputs need, as
    `Model.inputs` names them, for a caller to say in its own words (``datamove run``: which
    ``--input`` to pass).
    """

    def __init__(self, *args: Any, missing: str, needed: Sequence[str], **kw: Any) -> None:
        self.missing, self.needed = missing, tuple(needed)
        super().__init__(*args, **kw)

    def __reduce__(self) -> tuple[Any, ...]:
        make, fields = super().__reduce__()
        return (partial(make, missing=self.missing, needed=self.needed), fields)


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
