"""Shapes for inference: ``Dimension`` intervals, ``PartialShape`` and the ``UNKNOWN`` sentinel.

Pure value objects; no array library is imported here. Printing and parsing use OpenVINO's
notation: ``5`` (static), ``2..10`` (interval), ``..6`` (0 to 6), ``3..`` (3 or more), ``?``
(anything), and ``[...]`` for a shape of dynamic rank.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Final, overload

from datamove._errors import DTypeError, ValidationError, a_kind

__all__ = [
    "MAX_LENGTH",
    "UNKNOWN",
    "Dimension",
    "PartialShape",
    "ShapeLike",
    "Unknown",
    "as_partial_shape",
]

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1  # OpenVINO computes indices in int64; datamove never wraps them

# A bound of an unbounded dimension's output (a slice's length, a split's chunk) reached only at
# sizes near INT64_MAX is reported unbounded when it is at least this; smaller ones are exact.
HUGE_LENGTH: Final = 2**50

MAX_LENGTH: Final = 2**20
"""The most outputs and the longest 1-D parameter any operator takes (1,048,576).

It bounds what no data bounds: ``num_splits``, the length of ``split_lengths``, of ``begin``,
``end``, ``stride`` and the masks, ``n`` in ``Unknown(n)`` and the rank in
``PartialShape.dynamic(rank)``. Past it a call would allocate for minutes before failing (OpenVINO
fails too, building the node), so datamove raises a ``ValidationError`` first.
"""

# Values that iterate like sequences but are no vector of integers or dimensions.
NOT_A_SEQUENCE: Final = (str, bytes, bytearray, memoryview, set, frozenset, dict, type)

_SAME: Final[Any] = object()


class Dimension:
    """One dimension of a shape: a static size or an interval ``min..max``.

    Parameters
    ----------
    min : int, default 0
        Smallest possible size, at least 0.
    max : int or None, optional
        Largest possible size; ``None`` means unbounded. Left out, it equals ``min`` (a static
        dimension); ``Dimension()`` alone is fully dynamic (``?``), as in OpenVINO.

    Examples
    --------
    >>> Dimension(5), Dimension(2, 10), Dimension(3, None), Dimension()
    (Dimension(5), Dimension(2, 10), Dimension(3, None), Dimension(0, None))
    >>> print(Dimension(5), Dimension(2, 10), Dimension(0, 6), Dimension(3, None), Dimension())
    5 2..10 ..6 3.. ?
    >>> Dimension.parse("2..10") == Dimension(2, 10)
    True
    >>> 7 in Dimension(2, 10)
    True
    """

    __slots__ = ("_max", "_min")
    _min: int
    _max: int | None

    def __init__(self, min: int = _SAME, max: int | None = _SAME) -> None:  # noqa: A002
        if min is _SAME:  # Dimension() is '?', as in OpenVINO
            min, max = 0, (None if max is _SAME else max)  # noqa: A001
        elif max is _SAME:  # Dimension(5) is static
            max = min  # noqa: A001
        lo = _dim_int(min, "min")
        hi = None if max is None else _dim_int(max, "max")
        if hi is not None and hi < lo:
            raise ValidationError(
                "Dimension", "max", max, f"is smaller than min={lo}", hint="an interval is min..max"
            )
        if hi is None and lo == INT64_MAX:
            rule = f"with no max {UNBOUNDED_FROM_INT64_MAX}"
            raise ValidationError("Dimension", "min", min, rule, hint=AT_INT64_MAX)
        object.__setattr__(self, "_min", lo)
        object.__setattr__(self, "_max", hi)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def dynamic(cls) -> Dimension:
        """The fully unknown dimension ``?``."""
        return cls(0, None)

    @classmethod
    def parse(cls, text: str) -> Dimension:
        """Parse OpenVINO's notation: ``5``, ``2..10``, ``..6``, ``3..``, ``?`` or ``-1``."""
        if not isinstance(text, str):
            raise DTypeError("Dimension", "text", text, "must be a string such as '2..10'")
        return _parse_dim(text)

    # -- value-object protocol ----------------------------------------------------------------
    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Dimension is immutable; cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Dimension):
            return self._min == other._min and self._max == other._max
        if isinstance(other, int) and not isinstance(other, bool):
            return self._min == self._max == other
        return NotImplemented

    def __hash__(self) -> int:
        # A static dimension equals its int, so it hashes as the int does.
        return hash(self._min) if self._max == self._min else hash((self._min, self._max))

    def __repr__(self) -> str:
        if self._max == self._min:
            return f"Dimension({self._min})"
        return f"Dimension({self._min}, {self._max})"

    def __str__(self) -> str:
        lo, hi = self._min, self._max
        if hi == lo:
            return str(lo)
        if hi is None:
            return "?" if lo == 0 else f"{lo}.."
        return f"..{hi}" if lo == 0 else f"{lo}..{hi}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Dimension, (self._min, self._max))

    # -- queries ------------------------------------------------------------------------------
    @property
    def min(self) -> int:
        """Smallest possible size."""
        return self._min

    @property
    def max(self) -> int | None:
        """Largest possible size, or ``None`` when unbounded."""
        return self._max

    @property
    def is_static(self) -> bool:
        """Whether the size is known exactly."""
        return self._max == self._min

    @property
    def is_dynamic(self) -> bool:
        """Whether the size is not known exactly."""
        return self._max != self._min

    def get_length(self) -> int:
        """The size of a static dimension (raises for a dynamic one)."""
        if self._max != self._min:
            raise ValidationError("Dimension", None, self, f"{self} is not static")
        return self._min

    def __contains__(self, size: object) -> bool:
        """Whether a concrete size (or a whole interval) lies inside this one."""
        if isinstance(size, Dimension):
            return size._min >= self._min and (
                self._max is None or (size._max is not None and size._max <= self._max)
            )
        if not isinstance(size, int) or isinstance(size, bool):
            return False
        return size >= self._min and (self._max is None or size <= self._max)

    def compatible(self, other: Dimension | int) -> bool:
        """Whether some size is possible for both (OpenVINO's ``compatible``)."""
        o = other if isinstance(other, Dimension) else Dimension(other)
        return (self._max is None or o._min <= self._max) and (
            o._max is None or self._min <= o._max
        )

    def union(self, other: Dimension | int) -> Dimension:
        """The smallest interval holding both."""
        o = other if isinstance(other, Dimension) else Dimension(other)
        hi = None if self._max is None or o._max is None else max(self._max, o._max)
        return Dimension(min(self._min, o._min), hi)


def _index(value: object, op: str, name: str, kinds: str) -> int:
    """A value not an int read by ``__index__`` (NumPy integers), else a `DTypeError`.

    A bool, or anything else, ``must be {kinds}``.
    """
    if not isinstance(value, bool) and hasattr(type(value), "__index__"):
        try:
            return value.__index__()  # type: ignore[attr-defined,no-any-return]
        except TypeError:  # a NumPy array of one element has __index__ and refuses
            pass
    raise DTypeError(op, name, value, f"must be {kinds}, not {a_kind(value)}")


def _dim_int(value: object, name: str) -> int:
    v = value if type(value) is int else _index(value, "Dimension", name, "an integer")
    if v < 0 or v > INT64_MAX:
        raise ValidationError("Dimension", name, value, f"must be in [0, {INT64_MAX}]")
    return v


# As OpenVINO reads them: "2..10", not "2 .. 10"; ASCII digits only; "-0" is 0.
_DIM_RE = re.compile(
    r"^\s*(?:(\?)|(-1)|(-?[0-9]+)|((?:-?[0-9]+)?)\.\.((?:-?[0-9]+)?))\s*$", re.ASCII
)
_NEGATIVE = re.compile(r"-0*[1-9]")  # a negative number other than -1 alone: rejected


UNBOUNDED_FROM_INT64_MAX: Final = (
    "is an empty interval: no size is INT64_MAX or more, as an unbounded dimension holds the "
    "sizes below INT64_MAX (OpenVINO's mark for unbounded)"
)
AT_INT64_MAX: Final = "write 9223372036854775807 for that size, or ? for any size"


def largest(d: Dimension) -> int:
    """The largest size ``d`` holds: an unbounded dimension holds the sizes below ``INT64_MAX``."""
    return INT64_MAX - 1 if d.max is None else d.max


def sizes_text(d: Dimension) -> str:
    """``sizes 2..10``, or ``any size`` for ``?``: the sizes ``d`` allows, as messages say them."""
    return "any size" if d.min == 0 and d.max is None else f"sizes {d}"


class _EmptyIntervalError(ValidationError):
    """A dim written ``5..2``: OpenVINO reads it as an empty interval, which no size fits."""


def _parse_dim(text: str) -> Dimension:
    m = _DIM_RE.match(text)
    if m is None or _NEGATIVE.search(m.group(0) if m.group(2) is None else ""):
        raise ValidationError(
            "PartialShape",
            "dimension",
            text,
            "is not a dimension",
            hint="write 5, 2..10, ..6, 3.., ? or -1",
        )
    q, minus_one, static, lo, hi = m.groups()
    if q or minus_one:
        return Dimension(0, None)
    if static is not None:
        return Dimension(_int(static))
    low, high = _int(lo) if lo else 0, _int(hi) if hi else None
    if high is not None and high < low:  # OpenVINO reads it as an empty interval no size fits
        raise _EmptyIntervalError(
            "PartialShape",
            "dimension",
            text,
            f"is an empty interval: its lower bound {low} is above its upper bound {high}",
            hint="an interval is min..max, min <= max",
        )
    if high is None and low == INT64_MAX:  # OpenVINO reads it as ?, the mark it is
        raise _EmptyIntervalError(
            "PartialShape",
            "dimension",
            text,
            UNBOUNDED_FROM_INT64_MAX,
            hint=AT_INT64_MAX,
        )
    return Dimension(low, high)


def _int(digits: str) -> int:
    """``int(digits)``; past 19 digits, INT64_MAX + 1 (out of range, as the value is).

    Python refuses to read more than 4300 digits (leading zeros included), and the range check
    needs no more. The only negative number read here is -0 (others are refused before).
    """
    significant = digits.lstrip("-").lstrip("0")
    return INT64_MAX + 1 if len(significant) > 19 else int(significant or "0")


DimensionLike = int | str | Dimension


def _as_dim(value: object) -> Dimension:
    if isinstance(value, Dimension):
        return value
    if isinstance(value, str):
        return _parse_dim(value)
    if value is None or (isinstance(value, float) and value != value):  # noqa: PLR0124
        return Dimension(0, None)  # an unknown size: None (array API), NaN (Dask)
    if type(value) is int:
        v = value
    else:
        kinds = "an int, a Dimension or a string like '2..10'"
        v = _index(value, "PartialShape", "dimension", kinds)
    if v == -1:
        return Dimension(0, None)
    return Dimension(v)


class PartialShape:
    """A shape whose rank and dimensions may be only partly known.

    Parameters
    ----------
    dims : iterable of int, str or Dimension, or None
        The dimensions; ``None`` gives a shape of dynamic rank (``[...]``). An int ``-1`` or the
        string ``"?"`` is a fully dynamic dimension.

    Examples
    --------
    >>> s = PartialShape.parse("[?,2..10,12]")
    >>> s.rank, str(s), s[2]
    (3, '[?,2..10,12]', Dimension(12))
    >>> PartialShape([6, 12, 10, 24]).to_shape()
    (6, 12, 10, 24)
    >>> print(PartialShape(None))
    [...]
    >>> (5, 12) in PartialShape("[?,12]")
    True
    """

    __slots__ = ("_dims",)
    _dims: tuple[Dimension, ...] | None

    def __init__(self, dims: Iterable[DimensionLike] | str | None) -> None:
        if isinstance(dims, str):
            value = _parse_shape(dims)._dims
        elif dims is None:
            value = None
        else:
            value = tuple(_as_dim(d) for d in _items(dims, "PartialShape", "shape"))
        object.__setattr__(self, "_dims", value)

    @classmethod
    def dynamic(cls, rank: int | None = None) -> PartialShape:
        """A shape of unknown rank, or of known ``rank`` with every dimension ``?``.

        ``rank`` may be ``None`` or ``-1`` (OpenVINO's dynamic rank) for ``[...]``, or
        ``0..MAX_LENGTH``.
        """
        if rank is None:
            return cls(None)
        try:
            index = None if isinstance(rank, bool) else operator.index(rank)  # NumPy ints too
        except TypeError:  # floats, strings; NumPy bools refuse too
            index = None
        if index is None:
            raise DTypeError("PartialShape.dynamic", "rank", rank, "must be an int or None")
        rank = index
        if rank == -1:
            return cls(None)
        if not 0 <= rank <= MAX_LENGTH:
            raise ValidationError(
                "PartialShape.dynamic",
                "rank",
                rank,
                f"must be in [0, {MAX_LENGTH}], or -1 or None for a dynamic rank",
            )
        return cls._of((Dimension(0, None),) * rank)

    @classmethod
    def parse(cls, text: str) -> PartialShape:
        """Parse OpenVINO's notation: ``[?,2..10,12]``, ``1,3,224,224``, ``[]`` or ``[...]``."""
        return _parse_shape(text)

    @classmethod
    def _of(cls, dims: tuple[Dimension, ...] | None) -> PartialShape:
        obj = cls.__new__(cls)
        object.__setattr__(obj, "_dims", dims)
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"PartialShape is immutable; cannot set {name!r}")

    def __reduce__(self) -> tuple[Any, ...]:
        return (PartialShape._of, (self._dims,))

    # -- queries ------------------------------------------------------------------------------
    @property
    def rank(self) -> int | None:
        """The number of dimensions, or ``None`` when the rank is dynamic."""
        return None if self._dims is None else len(self._dims)

    @property
    def is_static(self) -> bool:
        """Whether the rank and every dimension are known exactly."""
        return self._dims is not None and all(d.is_static for d in self._dims)

    @property
    def is_dynamic(self) -> bool:
        """Whether anything about the shape is unknown."""
        return not self.is_static

    @property
    def dims(self) -> tuple[Dimension, ...]:
        """The dimensions (raises for a shape of dynamic rank)."""
        if self._dims is None:
            raise ValidationError("PartialShape", None, self, "[...] has a dynamic rank")
        return self._dims

    def to_shape(self) -> tuple[int, ...]:
        """The concrete shape, as a tuple of ints (raises unless static)."""
        if not self.is_static:
            raise ValidationError("PartialShape", None, str(self), f"{self} is not static")
        assert self._dims is not None
        return tuple(d.min for d in self._dims)

    def __len__(self) -> int:
        return len(self.dims)

    def __iter__(self) -> Iterator[Dimension]:
        return iter(self.dims)

    @overload
    def __getitem__(self, index: int) -> Dimension: ...
    @overload
    def __getitem__(self, index: slice) -> PartialShape: ...
    def __getitem__(self, index: int | slice) -> Dimension | PartialShape:
        if isinstance(index, slice):
            return PartialShape._of(self.dims[index])
        return self.dims[index]

    def __eq__(self, other: object) -> bool:
        # A tuple or list equals the shape when its items equal the dimensions one by one:
        # ints equal static dimensions, so PartialShape([2, 3]) == (2, 3) and both hash alike.
        if isinstance(other, PartialShape):
            return self._dims == other._dims
        if isinstance(other, (tuple, list)):
            return self._dims is not None and self._dims == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._dims)  # a Dimension hashes as the int it equals: as a tuple of ints

    def __repr__(self) -> str:
        return f"PartialShape({str(self)!r})"

    def __str__(self) -> str:
        if self._dims is None:
            return "[...]"
        return "[" + ",".join(map(str, self._dims)) + "]"

    def __contains__(self, shape: object) -> bool:
        """Whether a concrete shape (or a narrower partial shape) lies inside this one."""
        if self._dims is None:
            return True
        other = shape if isinstance(shape, PartialShape) else None
        if other is None:
            if not isinstance(shape, (tuple, list)):
                return False
            try:
                other = PartialShape(shape)
            except ValidationError:
                return False
        if other._dims is None or len(other._dims) != len(self._dims):
            return False
        return all(o in s for o, s in zip(other._dims, self._dims, strict=True))

    def compatible(self, other: PartialShape | Sequence[DimensionLike]) -> bool:
        """Whether some concrete shape fits both (OpenVINO's ``compatible``)."""
        o = other if isinstance(other, PartialShape) else PartialShape(other)
        if self._dims is None or o._dims is None or self is o:
            return True
        if len(self._dims) != len(o._dims):
            return False
        # a dim is compatible with itself (the ports of an IR share their parsed dims)
        return all(a is b or a.compatible(b) for a, b in zip(self._dims, o._dims, strict=True))


# Brackets both or neither; white space is ASCII's only (OpenVINO refuses "\xa0[2]").
_SHAPE_RE = re.compile(r"^\s*(?:\[([^\[\]]*)\]|([^\[\]]*))\s*$", re.ASCII)
_SPACE = " \t\n\r\v\f"


def _not_a_shape(text: str) -> ValidationError:
    return ValidationError(
        "PartialShape",
        "shape",
        text,
        "is not a shape in OpenVINO's notation",
        hint="write e.g. '[?,2..10,12]', '1,3,224,224', '[]' or '[...]'",
    )


def _parse_shape(text: str) -> PartialShape:
    if not isinstance(text, str):
        raise DTypeError("PartialShape", "shape", text, "must be a string")
    stripped = text.strip(_SPACE)
    if stripped == "..." or (
        stripped[:1] == "[" and stripped[-1:] == "]" and stripped[1:-1].strip(_SPACE) == "..."
    ):
        return PartialShape._of(None)
    m = _SHAPE_RE.match(stripped)
    if m is None:  # unbalanced or nested brackets
        raise _not_a_shape(text)
    body = m.group(1) if m.group(1) is not None else m.group(2)
    if not body.strip(_SPACE):
        return PartialShape._of(())
    try:
        return PartialShape._of(tuple(_parse_dim(part) for part in body.split(",")))
    except _EmptyIntervalError as exc:  # a dim whose bounds are the wrong way round
        raise ValidationError(
            "PartialShape", "shape", text, f"has dim {exc.value!r}, which {exc.rule}", hint=exc.hint
        ) from None
    except ValidationError:
        raise _not_a_shape(text) from None


ShapeLike = PartialShape | str | Sequence[DimensionLike]


def _items(shape: object, op: str, argument: str) -> tuple[Any, ...]:
    """The dimensions of a shape given as a sequence (never a set, a mapping or bytes)."""
    if type(shape) is tuple:
        return shape
    if not isinstance(shape, NOT_A_SEQUENCE):
        try:
            return tuple(shape)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise DTypeError(
        op,
        argument,
        shape,
        f"must be a PartialShape, a sequence of dimensions or a string, not {a_kind(shape)}",
    )


def as_partial_shape(shape: object, op: str = "", argument: str = "shape") -> PartialShape:
    """Coerce what a caller passed as a shape into a ``PartialShape``."""
    if isinstance(shape, PartialShape):
        return shape
    if shape is None:
        return PartialShape._of(None)
    try:  # the caller's operator and argument, not the parser's, name a fault
        if isinstance(shape, str):
            return _parse_shape(shape)
        return PartialShape._of(tuple(_as_dim(d) for d in _items(shape, op, argument)))
    except ValidationError as exc:
        raise type(exc)(op or exc.op, argument, shape, exc.rule, hint=exc.hint) from None


class Unknown:
    """A parameter whose value is only known at run time (a non-constant input in OpenVINO).

    ``UNKNOWN`` stands for a value of unknown length; ``Unknown(n)`` for a 1-D value of known
    length ``n`` (which fixes, for instance, how many outputs VariadicSplit has, or how many
    axes StridedSlice addresses).

    Examples
    --------
    >>> UNKNOWN, Unknown(3)
    (UNKNOWN, Unknown(3))
    >>> Unknown(3).length
    3
    """

    __slots__ = ("_length",)
    _length: int | None

    def __init__(self, length: int | None = None) -> None:
        if length is not None and (
            isinstance(length, bool) or not isinstance(length, int) or length < 0
        ):
            raise ValidationError("Unknown", "length", length, "must be a non-negative int or None")
        if length is not None and length > MAX_LENGTH:
            raise ValidationError(
                "Unknown",
                "length",
                length,
                f"is more than {MAX_LENGTH} (MAX_LENGTH), the longest parameter datamove takes",
            )
        object.__setattr__(self, "_length", length)

    @property
    def length(self) -> int | None:
        """The length of the 1-D value, when known."""
        return self._length

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Unknown is immutable; cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unknown) and other._length == self._length

    def __hash__(self) -> int:
        return hash(("Unknown", self._length))

    def __repr__(self) -> str:
        return "UNKNOWN" if self._length is None else f"Unknown({self._length})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Unknown, (self._length,))


UNKNOWN: Final = Unknown()
