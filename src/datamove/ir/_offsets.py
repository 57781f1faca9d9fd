"""Values that are another run-time value plus a constant: a slice's ``stop = start + c``.

A converter writes a slice of a run-time start and a constant length (``x.narrow(1, s, 4)``,
``x[:, s:s+4]``, JAX's ``dynamic_slice``) as a Slice whose stop is an Add of its start and a
constant. Bounds (`datamove.ir._bounds`) see two unknown values there, so the slice's length is
any the dim allows; but the two are related, and the length is at most ``ceil(c / |step|)`` at
every size and every start. The walks (`datamove.ir._model`, `datamove.ir._onnx`) keep a *link*
per one-element integer value, ``(root, offset)``: the value is its root's plus ``offset``.
A value of no rule here is its own root (offset 0).

The rules, on one-element i64 values only (an i32 value wraps where a dim of more than 2**31
elements could still be sliced):

- Add of a constant (either input) adds it; Subtract of a constant (input 1) subtracts it.
- Unsqueeze, Squeeze, Reshape (ONNX: Identity too) keep their input's link; Convert (ONNX:
  Cast) to i64 of an i64 value too, and Gather of index 0 or -1.
- An offset past ``2**32`` in size ends the link (the value is its own root again).

Where a slice's start and stop are links of one root, `length_bound` gives the most elements it
takes. Worked through with OpenVINO's and ONNX's clamping (``stop - start = c``, ``c >= 0`` and a
step ``k > 0``; the negative step is the mirror image):

- start and stop on one side of 0: both are read on one scale (with the size added, or not),
  and clamping to ``0..d`` never moves two values further apart: at most ``c`` apart.
- ``start < 0 <= stop``: ``stop < c``, so the stop read is at most ``stop``; the start read is at
  least ``start + d`` or 0: at most ``c - d`` or ``stop`` apart, each below ``c``.
- ``start + c`` wrapping past INT64_MAX (the Add as the runtime computes it): the start is past
  ``INT64_MAX - c``, past any dim, and reads as ``d``: nothing is taken. Past INT64_MIN likewise.

So the length is at most ``ceil(c / |k|)``: exact as an upper bound (a start of 0 on a dim of
``c`` or more takes that many), and the lower bound stays what the start's and stop's own bounds
give (a start past the dim takes nothing). Where ``c`` and ``k`` differ in sign, the stop is
behind the start but may be read across 0 (``start = 1``, ``stop = -1``): no bound then.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Final

import numpy as np

from datamove._shape import Dimension, PartialShape

__all__ = [
    "IR_KINDS",
    "ONNX_KINDS",
    "REACH",
    "Link",
    "bounded_slice",
    "length_bound",
    "link_of",
    "linked",
    "one_element",
]

REACH: Final = 2**32  # the largest offset kept
_VIEWS: Final = ("Unsqueeze", "Squeeze", "Reshape", "Identity", "Convert", "Cast")
# the types with a rule, each walk's own names (the IR reader knows no ONNX-only name)
IR_KINDS: Final = frozenset(
    ("Unsqueeze", "Squeeze", "Reshape", "Convert", "Gather", "Add", "Subtract")
)
ONNX_KINDS: Final = frozenset(
    ("Unsqueeze", "Squeeze", "Reshape", "Identity", "Cast", "Gather", "Add", "Sub")
)
Link = tuple[Hashable, int]  # (root, offset)


def link_of(links: Mapping[Any, Link], key: Hashable) -> Link:
    """The link of the value ``key``: its own root, offset 0, where no rule gave one."""
    return links.get(key, (key, 0))


def one_element(value: np.ndarray[Any, Any] | None) -> int | None:
    """The integer of a one-element integer constant (a step, an axis, a ``c``), else ``None``."""
    if value is None or value.size != 1 or value.dtype.kind not in "iu":
        return None
    return int(value.reshape(-1)[0])


def linked(
    op: str,
    sources: Sequence[Hashable],
    values: Sequence[Any],
    int64: Sequence[bool],
    links: Mapping[Any, Link],
) -> Link | None:
    """The link of a one-element i64 output of ``op`` by the rules above, or ``None``.

    ``sources`` names each input; ``values`` holds each input's constant (``None`` where not
    known); ``int64`` says which inputs are one-element i64 values (the caller checks the
    output).
    """
    if op in _VIEWS or op == "Gather":
        if not sources or not int64[0] or values[0] is not None:
            return None
        index = one_element(values[1]) if len(values) > 1 else None
        return link_of(links, sources[0]) if op != "Gather" or index in (0, -1) else None
    if op not in ("Add", "Subtract", "Sub") or len(sources) != 2 or not all(int64):
        return None
    consts = [one_element(v) for v in values]
    if consts[0] is not None and consts[1] is None and op == "Add":
        k, c = 1, consts[0]
    elif consts[1] is not None and consts[0] is None:
        k, c = 0, consts[1] if op == "Add" else -consts[1]
    else:
        return None
    root, offset = link_of(links, sources[k])
    offset += c
    return (root, offset) if abs(offset) <= REACH else None


def length_bound(start: Link, stop: Link, step: int) -> int | None:
    """The most elements a slice of this start, stop and step takes, at any size and value.

    ``None`` where the two are not of one root, or the stop is behind the start.
    """
    if start[0] != stop[0] or step == 0:
        return None
    span = stop[1] - start[1]
    if span != 0 and (span > 0) != (step > 0):
        return None
    return -(-abs(span) // abs(step))


def bounded_slice(
    shape: PartialShape,
    ends: tuple[PartialShape, PartialShape],
    links: tuple[Link, Link],
    step: int | None,
    axis: int | None,
) -> PartialShape:
    """A Slice's output ``shape``, its sliced dim at most as long as a stop = start + c allows.

    ``ends``: the start's and stop's shapes (one element each, else unchanged); ``links``:
    theirs; ``step`` and ``axis``: the one step and axis where known.
    """
    rank = shape.rank
    if rank is None or step is None or axis is None or not -rank <= axis < rank:
        return shape
    if any(not (e.is_static and e.to_shape() == (1,)) for e in ends):
        return shape
    most = length_bound(links[0], links[1], step)
    return shape if most is None else _narrowed(shape, axis % rank, most)


def _narrowed(shape: PartialShape, axis: int, most: int) -> PartialShape:
    """``shape`` with dim ``axis`` (counted from the front, in range) at most ``most`` long."""
    dims = list(shape.dims)
    dim = dims[axis]
    top = most if dim.max is None else min(dim.max, most)
    dims[axis] = Dimension(min(dim.min, top), top)
    return PartialShape(dims)
