"""The sizes at which a slicing layer can change form, and the static shapes to try there.

A slice's length on an axis is piecewise affine in the axis's size, with breakpoints where the
clamping of its bounds changes (``_strided_slice.range_length``): near 0 and near ``|v|`` for each
index value ``v``. Past the largest breakpoint every piece is affine, so trying a layer at these
sizes (and one past them) tries every form it takes. `datamove explain` uses them to verify that
one NumPy index fits every size of a dynamic shape; `Model.check` to find an input shape at which
a layer gives a dim its file declares impossible (a *witness*).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from datamove._shape import PartialShape

__all__ = ["breakpoints", "diagonal_shapes", "witness_shapes"]

_INT64_MAX: Final = 2**63 - 1


def breakpoints(shape: PartialShape, values: list[int]) -> set[int]:
    """Sizes at which slicing with these values can change form (as ``range_length``'s)."""
    points = {0, 1, 2}
    for v in values:
        points.update((abs(v) - 1, abs(v), abs(v) + 2, abs(v) + 1))
    lo = min((d.min for d in shape.dims), default=0)
    top = max(points) + 1
    his = [d.max for d in shape.dims if d.max is not None]
    out = {p for p in points | {lo, top} if 0 <= p < _INT64_MAX}  # no size reaches INT64_MAX
    return out | {h for h in his if h < top}


def diagonal_shapes(shape: PartialShape, values: list[int]) -> Iterator[tuple[int, ...]]:
    """``shape`` with every dynamic dim at one breakpoint size, for each size it allows."""
    dynamic = [dim for dim in shape.dims if not dim.is_static]
    for d in sorted(breakpoints(shape, values)):
        if all(d in dim for dim in dynamic):
            yield tuple(dim.get_length() if dim.is_static else d for dim in shape.dims)


def witness_shapes(shape: PartialShape, values: list[int]) -> Iterator[tuple[int, ...]]:
    """Static shapes of ``shape`` to look for a witness at, smallest sizes first.

    The diagonal (`diagonal_shapes`), then each dynamic dim alone at each breakpoint it allows,
    the others at their smallest breakpoint: a slicing layer's output dim depends on one input
    dim, so every form of each output dim is met.
    """
    yield from diagonal_shapes(shape, values)
    points = sorted(breakpoints(shape, values))
    low = [
        dim.get_length() if dim.is_static else next((p for p in points if p in dim), dim.min)
        for dim in shape.dims
    ]
    for a, dim in enumerate(shape.dims):
        if dim.is_static:
            continue
        for d in points:
            if d in dim and d != low[a]:
                yield (*low[:a], d, *low[a + 1 :])
