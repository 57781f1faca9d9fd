"""The exceptions datamove raises, one documented hierarchy.

::

    ValueError
     └── ValidationError                 an argument breaks an operator's rule
          ├── AxisError (+IndexError)     an axis outside [-rank, rank - 1]
          ├── DTypeError (+TypeError)     a value of the wrong type (bool or float index, ...)
          ├── ViewError                   copy=False, but the result cannot be a view
          ├── BackendError                an array library that cannot do what was asked
          ├── NotExpressible              a slicing a dialect cannot say for every shape allowed
          ├── IRError                     an IR file that cannot be read, or run     (datamove.ir)
          │    ├── UnsupportedOperatorError  a layer type datamove does not implement
          │    ├── MissingInputError      no array for an input the outputs Model.run computes need
          │    └── InputTypeError (+DTypeError)  a Model.run input that is not an array of its type
          ├── ONNXError                   an ONNX file that cannot be read            (datamove.ir)
          └── DirectMLValidationError     a DirectML descriptor breaks its rules (datamove.directml)
               └── BufferSizeOverflowError (+OverflowError)  a buffer size past DirectML's integers

Every error carries data as well as a message: ``op`` (the operator, as its spec names it),
``argument`` (the argument as the caller named it), ``value`` (the offending value as the caller
passed it), ``rule`` (the rule broken, in words) and an optional ``hint``. The message is built
from them, so the wording is the same wherever the rule is checked::

    VariadicSplit: split_lengths=[1, 2] sum to 3, but data.shape[0] is 6

Catch ``datamove.ValidationError`` for any invalid input; catch ``ValueError`` if you do not
want to import datamove's names; the subclasses are there for callers who handle one kind apart.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sized
from typing import Any

import numpy as np

__all__ = [
    "AxisError",
    "BackendError",
    "DTypeError",
    "NotExpressible",
    "ValidationError",
    "ViewError",
]

_MAX_SHOWN = 160
_MAX_ITEMS = 64  # arrays and sequences longer than this show their first _HEAD_ITEMS only
_HEAD_ITEMS = 8
_MAX_DEPTH = 4  # nesting shown; deeper levels are written ...
_MAX_BITS = 10_000  # ints wider are shown by their width (Python writes 4300 digits at most)


def show(value: Any) -> str:
    """Render a value the way the caller wrote it, short enough for one line.

    NumPy arrays are shown as ``array([1, 2], dtype=int8)`` (never NumPy's multi-line form),
    NumPy scalars as NumPy writes them (``np.int64(5)``), not as 0-d arrays. The cost is bounded
    by what is shown, whatever the value's size: long arrays, sequences, sets, dicts and strings
    show their first items and their length, nesting is cut at a few levels, and another
    library's array shows only its type, shape and dtype (listing its values could copy it from
    a GPU, or compute a Dask graph). Showing never raises: a value whose ``repr`` or attributes
    fail is shown by its type.
    """
    try:
        text = _render(value, 0)
    except Exception:  # noqa: BLE001 - a broken __repr__ or .shape must not hide the error
        text = f"<{type(value).__name__}>"
    if len(text) > _MAX_SHOWN:
        text = (
            text[: _MAX_SHOWN - 5] + " ...]"
            if text.endswith("]")
            else text[: _MAX_SHOWN - 4] + " ..."
        )
    return text


def _render(value: Any, depth: int) -> str:
    if isinstance(value, str | bytes | bytearray):
        if len(value) <= _MAX_SHOWN:
            return repr(value)
        return f"{value[: _MAX_SHOWN // 2]!r}... ({len(value)} characters)"
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_BITS:
        return f"<int of {value.bit_length()} bits>"  # Python writes out 4300 digits at most
    if isinstance(value, type | np.generic):  # a class passed as a value; a NumPy scalar
        return repr(value)
    if depth > _MAX_DEPTH and isinstance(value, list | tuple | set | frozenset | dict):
        return "..."
    if isinstance(value, np.ndarray):
        if value.size <= _MAX_ITEMS:
            return f"array({_render(value.tolist(), depth + 1)}, dtype={value.dtype})"
        head = ", ".join(_render(v, depth + 1) for v in value.flat[:_HEAD_ITEMS].tolist())
        return f"array([{head}, ...], shape={list(value.shape)}, dtype={value.dtype})"
    if isinstance(value, list | tuple):
        return _render_sequence(value, depth)
    if isinstance(value, set | frozenset | dict):
        return _render_collection(value, depth)
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"<{type(value).__name__} of shape {_shape(value)} and dtype {value.dtype}>"
    if isinstance(value, Sized) and isinstance(value, Iterable) and len(value) > _MAX_ITEMS:
        # deque, array.array, UserList, dict views, ...: their repr lists every item
        head = ", ".join(_render(v, depth + 1) for v in itertools.islice(value, _HEAD_ITEMS))
        return f"<{type(value).__name__} of {len(value)} items: {head}, ...>"
    return repr(value)


def _render_sequence(value: list[Any] | tuple[Any, ...], depth: int) -> str:
    long = len(value) > _MAX_ITEMS
    items = [_render(v, depth + 1) for v in value[: _HEAD_ITEMS if long else _MAX_ITEMS]]
    if long:
        items.append(f"... ({len(value)} items)")
    elif isinstance(value, tuple) and len(value) == 1:
        items[0] += ","
    body = ", ".join(items)
    return f"[{body}]" if isinstance(value, list) else f"({body})"


def _render_collection(value: set[Any] | frozenset[Any] | dict[Any, Any], depth: int) -> str:
    if not value:
        return repr(value)
    if isinstance(value, dict):
        items = [
            f"{_render(k, depth + 1)}: {_render(v, depth + 1)}"
            for k, v in itertools.islice(value.items(), _HEAD_ITEMS)
        ]
    else:
        items = [_render(v, depth + 1) for v in itertools.islice(value, _HEAD_ITEMS)]
    if len(value) > _HEAD_ITEMS:
        items.append(f"... ({len(value)} items)")
    body = "{" + ", ".join(items) + "}"
    return body if type(value) in (set, dict) else f"{type(value).__name__}({body})"


def _shape(value: Any) -> str:
    try:
        return str(list(value.shape))
    except Exception:  # noqa: BLE001 - a shape that cannot be listed (NaN sizes are fine)
        return "?"


_KINDS = {
    bool: "a bool",
    int: "an int",
    float: "a float",
    complex: "a complex number",
    str: "a string",
    bytes: "a bytes object",
    bytearray: "a bytearray",
    list: "a list",
    tuple: "a tuple",
    dict: "a dict",
    set: "a set",
    frozenset: "a frozenset",
    type(None): "None",
    type: "a class",
    np.ndarray: "a NumPy array",
    object: "an object",
}


def a_kind(value: Any) -> str:
    """What ``value`` is, with its article, for rules such as ``must be an integer, not ...``.

    The one wording for every "not this kind" rule, so that a bool, a float or None read the
    same whichever argument or operator refuses them. NumPy scalars are named with their dtype.

    Examples
    --------
    >>> a_kind(None), a_kind(1.5), a_kind("x"), a_kind(np.float32(1)), a_kind(np.bool_(True))
    ('None', 'a float', 'a string', 'a NumPy float32', 'a NumPy bool')
    """
    kind = type(value)
    if isinstance(value, np.generic):
        return f"a NumPy {value.dtype}"
    for base in kind.__mro__:  # a subclass (IntEnum, OrderedDict) reads as its base
        if base in _KINDS and (base is not object or kind is object):
            return _KINDS[base]
    name = kind.__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``1 axis``, ``3 axes``, ``0 values``.

    Examples
    --------
    >>> plural(1, "value"), plural(2, "value"), plural(1, "axis", "axes"), plural(0, "axis", "axes")
    ('1 value', '2 values', '1 axis', '0 axes')
    """
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


class ValidationError(ValueError):
    """An argument breaks one of an operator's rules.

    Parameters
    ----------
    op : str
        The operator, named as its spec names it (``"StridedSlice"``, ``"DML_SPLIT"``).
    argument : str or None
        The argument as the caller named it (``"begin"``, ``"outputs[1].sizes[2]"``);
        ``None`` when the rule is about several arguments together.
    value : object
        The offending value, as the caller passed it.
    rule : str
        The rule broken, in words, lower-case; read after ``argument=value``.
    hint : str, optional
        What to do instead, when there is something useful to say.

    Examples
    --------
    >>> err = ValidationError("Split", "num_splits", 0, "must be greater than zero")
    >>> str(err)
    'Split: num_splits=0 must be greater than zero'
    >>> err.op, err.argument, err.value
    ('Split', 'num_splits', 0)
    """

    def __init__(
        self,
        op: str,
        argument: str | None,
        value: Any,
        rule: str,
        *,
        hint: str | None = None,
    ) -> None:
        self.op = op
        self.argument = argument
        self.value = value
        self.rule = rule
        self.hint = hint
        head = f"{op}: " if op else ""
        body = rule if argument is None else f"{argument}={show(value)} {rule}"
        tail = f" (hint: {hint})" if hint else ""
        super().__init__(f"{head}{body}{tail}")

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the structured fields (errors cross process boundaries under Dask)."""
        fields = (self.op, self.argument, self.value, self.rule)
        return (functools.partial(type(self), hint=self.hint), fields)


class AxisError(ValidationError, IndexError):
    """An axis outside ``[-rank, rank - 1]``; also an ``IndexError``, like NumPy's ``AxisError``."""


class DTypeError(ValidationError, TypeError):
    """A value of the wrong type: a bool or a float where an integer is required, and the like."""


class ViewError(ValidationError):
    """``copy=False`` was asked for, but the array library cannot return a view here."""


class BackendError(ValidationError):
    """The array's library cannot do what was asked (an unsupported library or feature)."""


class NotExpressible(ValidationError):  # noqa: N818 - the name issue 20's API gives it
    """A slicing that a dialect cannot say exactly for every shape the caller allows.

    ``op`` names the dialect (``"ONNX Slice"``), ``rule`` the reason, and ``witness`` is a static
    shape on which the closest parameters of that dialect would select other elements (``None``
    when no single shape shows it). Passing a static shape makes every slicing expressible.
    """

    def __init__(
        self,
        op: str,
        argument: str | None,
        value: Any,
        rule: str,
        *,
        hint: str | None = None,
        witness: tuple[int, ...] | None = None,
    ) -> None:
        super().__init__(op, argument, value, rule, hint=hint)
        self.witness = witness

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle with the structured fields and the witness."""
        rebuild, fields = super().__reduce__()
        return (functools.partial(rebuild, witness=self.witness), fields)


def pass_the_shape(shape: Any, lacking: str) -> str:
    """A ``NotExpressible`` hint: pass the shape where none was passed, else what it ``lacks``.

    A static shape makes every slicing expressible, so the hint names the part of a given
    shape that is not static (``"a static size of axis 1"``), never asks again for the shape.

    Examples
    --------
    >>> pass_the_shape(None, "a static size of axis 0")
    'pass the shape'
    >>> pass_the_shape("[?]", "a static size of axis 0")
    'pass a static size of axis 0'
    """
    return "pass the shape" if shape is None else f"pass {lacking}"
