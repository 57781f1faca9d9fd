"""A bounded, thread-safe memo for the pure ``infer_*`` functions.

Shape inference is pure: the same shape and parameters always give the same (immutable) result.
The memo key is *type-exact* (``True``, ``1.0`` and ``1`` hash alike in Python, so every value
is tagged with its type): a call that would be rejected never reuses an accepted call's result.
Arguments that cannot be keyed cheaply (arrays, odd types) bypass the memo.

The memo is bounded by what it holds, by estimate (``_ITEM_BYTES`` per value of the key and per
dimension of the result): at most ``_MAX_BYTES`` in all and ``_MAX_ENTRIES`` results, cleared
whole when either is reached, and a call whose key and result would take more than
``_MAX_ENTRY_BYTES`` (a split into a million outputs) is not kept. A store (a miss) changes the
dict and its byte count together under the memo's lock, so threads cannot make the count drift;
a hit reads the dict alone, without the lock.

`keep` is the store of the other bounded caches (the slicing memos, the IR's dims, shapes and
shape plans, DirectML's feature-level texts, the Python plan key's memo): one entry more, and
all dropped when full. It counts and stores under one lock, so no bound is passed however many
threads store at once; their hits read the dicts alone. A forked child gets fresh locks
(a parent's thread may have held one as it forked), as `datamove._plan`'s cache and the copy
engine's pool do.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import Any, Final, TypeVar

from datamove._shape import Dimension, PartialShape, Unknown

__all__ = ["clear", "keep", "memoize"]

F = TypeVar("F", bound=Callable[..., Any])
K = TypeVar("K")
V = TypeVar("V")

_MAX_ENTRIES: Final = 4096
_ITEM_BYTES: Final = 64
_MAX_BYTES: Final = 16 << 20
_MAX_ENTRY_BYTES: Final = 256 << 10
_ATOMS: Final = frozenset({int, str, type(None), PartialShape, Unknown, Dimension})
_CLEARS: Final[list[Callable[[], None]]] = []  # each memo's own clear
_AFTER_FORK: Final[list[Callable[[], None]]] = []  # each memo's own reset in a forked child
_KEEP_LOCK = threading.Lock()  # every keep() store (a new one in a forked child)


def clear() -> None:
    """Empty every memo."""
    for clear_one in _CLEARS:
        clear_one()


def _after_fork_in_child() -> None:
    """Fresh locks in a forked child: a parent's thread may have held one as it forked.

    That thread does not exist in the child, so its lock would never be let go, and the
    child's first store would wait forever. Each memo counts again what it holds, which a
    store cut short by the fork may have left apart from its count.
    """
    global _KEEP_LOCK  # noqa: PLW0603
    _KEEP_LOCK = threading.Lock()
    for after_fork in _AFTER_FORK:
        after_fork()


if hasattr(os, "register_at_fork"):  # not on Windows, which has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)


def keep(cache: dict[K, V], key: K, value: V, limit: int = _MAX_ENTRIES) -> None:
    """Store ``value`` under ``key``, dropping them all first when ``limit`` others are held.

    A bound: a file of endless distinct dims, or endless input shapes, cannot grow a cache.
    The count is checked and the entry stored under one lock, so threads storing at once
    cannot each find room for one more; only stores take it (a store follows a miss).
    """
    with _KEEP_LOCK:
        if len(cache) >= limit and key not in cache:
            cache.clear()
        cache[key] = value


def _freeze(value: Any) -> Any:
    # Only these types may appear: among them no two unequal values compare equal (bool and
    # float are left out on purpose), so the value itself is a type-exact key.
    t = type(value)
    if t in _ATOMS:
        return value
    if t is list or t is tuple:
        items = tuple(value)
        if set(map(type, items)) <= _ATOMS:
            return items
    raise TypeError  # not memoizable: the caller computes afresh


def _items(value: Any) -> int:
    """Values in a key part, or dimensions in a result, by count."""
    if isinstance(value, PartialShape):
        return 1 if value.rank is None else value.rank + 1
    if isinstance(value, tuple):
        return 1 + sum(map(_items, value))
    return 1


def memoize(fn: F) -> F:
    """Memoize a pure function of shapes and parameters (bounded; cleared whole when full)."""
    cache: dict[Any, Any] = {}
    held = 0  # bytes of what ``cache`` holds, by estimate: changed with it, under ``lock``
    lock = threading.Lock()

    def clear_one() -> None:
        nonlocal held
        with lock:
            cache.clear()
            held = 0

    def after_fork() -> None:
        nonlocal lock, held
        lock = threading.Lock()
        held = sum(_ITEM_BYTES * (_items(k) + _items(v)) for k, v in cache.items())

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            key = (*map(_freeze, args), *[(k, _freeze(v)) for k, v in kwargs.items()])
            return cache[key]
        except TypeError:
            return fn(*args, **kwargs)
        except KeyError:
            pass
        result = fn(*args, **kwargs)
        nonlocal held
        size = _ITEM_BYTES * (_items(key) + _items(result))
        if size > _MAX_ENTRY_BYTES:
            return result
        with lock:  # the miss path only: a hit reads the dict alone
            if key in cache:  # stored by another thread meanwhile: counted once
                return cache[key]
            if len(cache) >= _MAX_ENTRIES or held + size > _MAX_BYTES:
                cache.clear()
                held = 0
            cache[key] = result
            held += size
        return result

    _CLEARS.append(clear_one)
    _AFTER_FORK.append(after_fork)
    wrapper.cache = cache  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]
