"""Memos for ``dm.Slicing``'s parsers and emitters: pure functions of small arguments.

A parser (``Slicing.from_*``) returns an immutable ``Slicing``: its memo returns the same object.
An emitter (``Slicing.to_*``) returns lists and dicts the caller may change: its memo keeps the
value marshalled and returns a fresh copy on each call (``marshal.loads`` rebuilds lists,
dicts, tuples, ints, strings and ``None`` in C, in about the time a dict lookup takes).

Keys are *type-exact*: ``True`` and ``1`` hash alike, as do ``[1, 2]`` and ``(1, 2)`` (a list is
fancy indexing to ``from_numpy``, a tuple is not), so each value is tagged with its type, and
only these are keyed: ``int``, ``None``, ``Ellipsis``, ``str`` (at most ``_MAX_TEXT``
characters), ``slice`` of those, ``PartialShape``, and lists or tuples of at most
``_MAX_ITEMS`` of the atoms. Any other argument (a NumPy array, a NumPy integer, a ``bool``) is
not keyed: the call is computed afresh, as is every call that raises (errors are never kept).
Each memo holds at most ``_MAX_ENTRIES`` results, of at most ``_MAX_BLOB`` bytes each, and is
cleared whole when full.
"""

from __future__ import annotations

import functools
import inspect
import marshal
from collections.abc import Callable
from typing import Any, Final, TypeVar

from datamove._memo import keep
from datamove._shape import PartialShape

__all__ = ["clear", "emitter", "parser"]

F = TypeVar("F", bound=Callable[..., Any])

_MAX_ENTRIES: Final = 4096
_MAX_ITEMS: Final = 64
_MAX_TEXT: Final = 1024
_MAX_BLOB: Final = 16 << 10

_MEMOS: list[dict[Any, Any]] = []
_EMPTY: Final = inspect.Parameter.empty


def clear() -> None:
    """Empty every memo (benchmarks time first calls with it)."""
    for memo in _MEMOS:
        memo.clear()


def _atom(value: Any) -> Any:
    t = type(value)
    if t is int or value is None or value is Ellipsis:
        return value
    if t is slice:  # of atoms (a call with a slice of slices or of ... raises: never kept)
        return ("slice", _atom(value.start), _atom(value.stop), _atom(value.step))
    raise TypeError


def _freeze(value: Any) -> Any:
    """A hashable, type-exact key for ``value``; ``TypeError`` where it has none."""
    t = type(value)
    if t is str:
        if len(value) <= _MAX_TEXT:
            return value
        raise TypeError
    if t is list or t is tuple:
        if len(value) <= _MAX_ITEMS:
            return (t.__name__, *map(_atom, value))
        raise TypeError
    if t is PartialShape:
        if value.rank is None or value.rank <= _MAX_ITEMS:
            return value
        raise TypeError
    return _atom(value)


def parser(fn: F) -> F:
    """Memoize a classmethod that builds an immutable object from its arguments."""
    memo: dict[Any, Any] = {}
    _MEMOS.append(memo)

    @functools.wraps(fn)
    def wrapper(cls: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            key = (cls, *map(_freeze, args), *[(k, _freeze(v)) for k, v in kwargs.items()])
        except TypeError:
            return fn(cls, *args, **kwargs)
        hit = memo.get(key)
        if hit is None:
            hit = fn(cls, *args, **kwargs)
            keep(memo, key, hit, _MAX_ENTRIES)
        return hit

    return wrapper  # type: ignore[return-value]


def emitter(fn: F) -> F:
    """Memoize ``fn(self, shape)`` of an immutable, hashable ``self``: fresh copies out.

    ``shape`` is passed by position or by name, and keeps its default where ``fn`` has one (a
    call without it where ``fn`` has none goes to ``fn``, which refuses it).
    """
    memo: dict[Any, bytes] = {}
    _MEMOS.append(memo)
    default = inspect.signature(fn).parameters["shape"].default

    @functools.wraps(fn)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not kwargs and len(args) == 1:
            shape = args[0]
        elif not kwargs and not args and default is not _EMPTY:
            shape = default
        elif not args and len(kwargs) == 1 and "shape" in kwargs:
            shape = kwargs["shape"]
        else:  # fn's own error for a call it does not take
            return fn(self, *args, **kwargs)
        if len(getattr(self, "entries", ())) > _MAX_ITEMS:
            return fn(self, shape)
        try:
            key = (self, _freeze(shape))
        except TypeError:
            return fn(self, shape)
        blob = memo.get(key)
        if blob is not None:
            return marshal.loads(blob)  # noqa: S302 - bytes this module wrote
        out = fn(self, shape)
        blob = marshal.dumps(out)  # str, ints, None, lists, tuples, dicts: what emitters write
        if len(blob) <= _MAX_BLOB:
            keep(memo, key, blob, _MAX_ENTRIES)
        return out

    return wrapper  # type: ignore[return-value]
