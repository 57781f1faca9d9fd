"""Layers OpenVINO's CPU plugin runs wrong: the ``"openvino-cpu"`` notes of `Model.check`.

docs/semantics.md ("Divergences from the OpenVINO runtime") lists the valid layers that
OpenVINO 2026.4.1's CPU plugin runs otherwise than its specification and its reference
``evaluate`` (which datamove follows): garbage values, other elements, an error, a crash.
`RULES` holds those a file decides: each names its divergence, the layer type, the test on one
layer (its masks, its constant index values, the bounds datamove infers for run-time ones) and
what the plugin does there. A layer is noted only where its configuration is the documented
one; `cpu_notes` is the one entry. A layer datamove takes as the file declares it (a Gather:
IR-27, IR-38) is seen with its declared output.

A *constant* index input is one a Const layer feeds; a *run-time* one is one whose value
datamove does not know (it depends on the model's inputs, so OpenVINO cannot fold it either).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NamedTuple

import numpy as np

from datamove._dialects import CLAMP, Cut, openvino_refused
from datamove._shape import Dimension, PartialShape
from datamove._strided_slice import MASKS, NEW, SLICE, axis_walk
from datamove.ir._errors import IRError
from datamove.ir._fold import batch_dims, int_or_none, opset_number
from datamove.ir._graph import Layer, parse_shape_attr
from datamove.ir._ops import Info, bounds_of

__all__ = ["KIND", "RULES", "Seen", "cpu_notes"]

KIND: Final = "openvino-cpu"  # Problem.kind of these notes
INT32_MIN: Final = -(2**31)
INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
# S-8: the CPU plugin reads a data axis's size in 32 bits; from this size on it runs wrong.
AXIS_PAST_INT32: Final = 2**31


class Seen(NamedTuple):
    """What a rule sees of one checked layer, after datamove inferred it."""

    layer: Layer
    ins: Sequence[Info]
    out: PartialShape  # its output 0, as inferred (a layer not modelled: as declared)
    # (any layer, one of its inputs) -> the layer feeding that input, and what it feeds there
    feeder: Callable[[Layer, int], tuple[Layer, Info]]
    assigned: frozenset[str | None] = frozenset()  # the variable_id of each Assign
    # The model's input shapes: "declared", the file's own (its ports declare OpenVINO's
    # inference of them); "static", check's new ones (input_shapes), each input static, which
    # OpenVINO's reshape infers as datamove does; "dynamic", new ones not all static, whose
    # ports OpenVINO's reshape may infer otherwise (its intervals: `[?,2]` for `x[0:-1:-1]`)
    inputs: str = "declared"

    def const(self, k: int) -> bool:
        """Whether a Const layer feeds input ``k``."""
        return self.feeder(self.layer, k)[0].type == "Const"


class Rule(NamedTuple):
    """One documented divergence: ``meets`` returns the message's fields, or ``None``."""

    number: str  # as docs/semantics.md numbers it
    type: str  # the layer type it concerns
    meets: Callable[[Seen], dict[str, Any] | None]
    says: str  # what the CPU plugin does; what the spec and evaluate give ({out}: the shape)
    empty: bool = False  # whether it is noted where the output is known to be empty too


# -- what the rules read -------------------------------------------------------------------------
def _count(seen: Seen) -> int | None:
    """``len(begin)``, where begin's length is static."""
    shape = seen.ins[1].shape
    return shape[0].get_length() if shape.rank == 1 and shape[0].is_static else None


def _masks(seen: Seen, n: int | None = None) -> dict[str, tuple[int, ...]]:
    """The five masks by name, zero-padded to ``n`` (or to the longest) and cut there if given."""
    masks = {key: seen.layer.int_list_attr(key) for key in MASKS}
    width = n if n is not None else max(map(len, masks.values()))
    return {key: (m + (0,) * width)[:width] for key, m in masks.items()}


def _rest_wide(seen: Seen, m: dict[str, tuple[int, ...]], n: int) -> bool:
    """Whether input axes are left to the implicit rest, each of a size of 2 or more.

    None is left where an ellipsis bit lies below ``len(begin)``. The plugin misreads begin,
    end and stride on those axes; where one of them has size 1 its misreading can land on the
    right elements, so such layers are not noted.
    """
    shape = seen.ins[0].shape
    if shape.rank is None or any(m["ellipsis_mask"][:n]):
        return False
    addressed = n - sum(1 for bit in m["new_axis_mask"][:n] if bit)
    rest = shape.dims[max(addressed, 0) :]
    return bool(rest) and all(d.min >= 2 for d in rest)


def _known(info: Info) -> list[int] | None:
    return None if info.value is None else [int(v) for v in np.asarray(info.value).reshape(-1)]


# -- the rules' tests (each over one layer) ------------------------------------------------------
def _bits_past_begin(seen: Seen) -> dict[str, Any] | None:
    """#2: a mask bit at ``len(begin)`` or past it that the plugin reads.

    An ellipsis bit anywhere there; a new-axis or shrink bit below the larger of the input and
    output ranks (the plugin's own mask length); where the axes left to the implicit rest are
    all of size 2 or more (`_rest_wide`). Begin and end mask bits there it ignores too.
    """
    n, rank, out = _count(seen), seen.ins[0].shape.rank, seen.out.rank
    if n is None:
        return None
    m = _masks(seen)
    if rank is None or out is None or not _rest_wide(seen, m, n):
        return None
    for i in range(n, len(m["ellipsis_mask"])):
        named = "an ellipsis" if m["ellipsis_mask"][i] else None
        if named is None and i < max(rank, out):
            named = "a new-axis" if m["new_axis_mask"][i] else None
            named = named or ("a shrink" if m["shrink_axis_mask"][i] else None)
        if named is not None:
            return {"bit": named, "i": i, "n": n}
    return None


def _shrink_with_begin_mask(seen: Seen) -> dict[str, Any] | None:
    """#11: a shrunk index with its begin_mask bit set, and begin there not element 0.

    Begin's value must be known; a negative one counts only where no size the axis can have
    is ``-begin`` (a static size, or an interval without it), so element 0 is never the one.
    """
    n, begin, rank = _count(seen), _known(seen.ins[1]), seen.ins[0].shape.rank
    if n is None or begin is None or len(begin) != n:
        return None
    m = _masks(seen, n)
    new, shrink, ellipsis = m["new_axis_mask"], m["shrink_axis_mask"], m["ellipsis_mask"]
    axes: dict[int, int] = {}
    if rank is not None:  # (valid: the layer was inferred with these masks, cut to len(begin))
        walk = axis_walk(rank, n, new, shrink, ellipsis)
        axes = {step.i: step.axis for step in walk if step.kind != NEW and step.i >= 0}
    for i in range(n):
        if not (shrink[i] and m["begin_mask"][i]) or new[i] or ellipsis[i]:
            continue
        b, axis = begin[i], axes.get(i)
        dim = seen.ins[0].shape[axis] if axis is not None else None
        counts_back = dim is None or (dim.min <= -b and (dim.max is None or -b <= dim.max))
        if b > 0 or (b < 0 and not counts_back):
            return {"i": i, "b": b}
    return None


def _new_axis_shrink_implicit_rest(seen: Seen) -> dict[str, Any] | None:
    """#23 (#18c with run-time values): a new axis and a shrink, the rest implicit.

    No ellipsis, and fewer begin values than input axes plus new axes: axes left to the
    implicit rest, all of size 2 or more (`_rest_wide`).
    """
    n = _count(seen)
    if n is None:
        return None
    m = _masks(seen, n)
    new, shrink = m["new_axis_mask"], m["shrink_axis_mask"]
    if not _rest_wide(seen, m, n):
        return None
    if any(new[i] and not shrink[i] for i in range(n)) and any(
        shrink[i] and not new[i] for i in range(n)
    ):
        return {}
    return None


# 10: the layers OpenVINO folds into a constant where each of their inputs is one (of those tried)
_FOLDED_THROUGH: Final = frozenset(
    ("Concat", "Reshape", "Split", "VariadicSplit", "Slice", "StridedSlice", "Squeeze",
     "Unsqueeze", "Transpose", "Broadcast")
)  # fmt: skip


def _folded(seen: Seen, layer: Layer, info: Info) -> bool:
    """#10: whether OpenVINO folds ``layer``'s output ``info`` into a constant.

    A Const; a Concat of 2 inputs or more whose output OpenVINO declares static and empty (it
    then makes it an empty constant): static and empty as datamove infers it, and as the file
    declares it, or under new input shapes (`Seen.inputs`) as datamove infers it alone, where
    they are all static (OpenVINO's ``reshape`` infers it again; not where one is not: not
    known); a layer of `_FOLDED_THROUGH` whose every input it folds.
    """
    todo, done = [(layer, info)], set()
    while todo:
        x, out = todo.pop()
        if x.index in done or x.type == "Const":
            continue
        done.add(x.index)
        port = x.outputs[0] if x.type == "Concat" and len(x.sources) > 1 else None
        declared = port is not None and port.has_dims and port.shape.is_static
        static = seen.inputs == "static" or (seen.inputs == "declared" and declared)
        if port is not None and static and out.shape.is_static and 0 in out.shape.to_shape():
            continue
        if x.type not in _FOLDED_THROUGH:
            return False
        todo += [seen.feeder(x, k) for k in range(len(x.sources))]
    return True


def _reversed_over_empty(seen: Seen) -> dict[str, Any] | None:
    """#10: a constant reversal over an axis of size 0 of data OpenVINO folds (`_folded`).

    A constant stride negative on a sliced index whose end is negative or its end mask bit
    set; constant begin and end, or run-time ones whose mask bits are all set (unread): OpenVINO
    folds the layer with ``evaluate``, which gives 1 element there (an end of 0 or more, none).
    """
    n = _count(seen)
    if n is None or len(seen.ins) != 4 or not seen.const(3):
        return None
    m = _masks(seen, n)
    if not all(seen.const(k) or all(m[key]) for k, key in ((1, "begin_mask"), (2, "end_mask"))):
        return None
    end, stride, shape = _known(seen.ins[2]) or [0] * n, _known(seen.ins[3]), seen.ins[0].shape
    if stride is None or len(stride) != n or len(end) != n or shape.rank is None:
        return None
    walk = axis_walk(shape.rank, n, m["new_axis_mask"], m["shrink_axis_mask"], m["ellipsis_mask"])
    for step in walk:
        i = step.i
        if step.kind != SLICE or shape[step.axis] != Dimension(0) or stride[i] >= 0:
            continue
        if (m["end_mask"][i] or end[i] < 0) and _folded(seen, *seen.feeder(seen.layer, 0)):
            error = "" if seen.const(1) and seen.const(2) else ", and the model then fails to run"
            return {"i": i, "s": stride[i], "axis": step.axis, "error": error}
    return None


def _stride_int64_min(seen: Seen) -> dict[str, Any] | None:
    """#9: a constant stride of INT64_MIN on a sliced index."""
    if len(seen.ins) < 4 or not seen.const(3):
        return None
    stride, n = _known(seen.ins[3]), _count(seen)
    if stride is None or n is None:
        return None
    m = _masks(seen, n)
    for i, s in enumerate(stride):
        if s == INT64_MIN and not (m["new_axis_mask"][i] or m["shrink_axis_mask"][i]):
            return {"i": i}
    return None


def _slice_step_int32_min(seen: Seen) -> dict[str, Any] | None:
    """S-3: a constant step of INT32_MIN or below."""
    step = _known(seen.ins[3]) if seen.const(3) else None
    if step is None:
        return None
    found = [(i, s) for i, s in enumerate(step) if s <= INT32_MIN]
    return {"i": found[0][0], "s": found[0][1]} if found else None


def _run_time_empty(seen: Seen) -> dict[str, Any] | None:
    """S-5: run-time start, stop and step, each of no values (no axis sliced)."""
    index = seen.ins[1:4]
    if all(i.value is None and i.shape.rank == 1 and i.shape[0].max == 0 for i in index):
        return {}
    return None


def _boolean_and_back(seen: Seen) -> dict[str, Any] | None:
    """IR-9: an index input ``Convert(Convert(v, boolean), ...)``, ``v`` never 0 or 1.

    ``v`` is a run-time value whose bounds exclude 0 and 1 (so the spec's value is 1).
    """
    for k, name in enumerate(("start", "stop", "step"), start=1):
        outer, _ = seen.feeder(seen.layer, k)
        if outer.type != "Convert" or len(outer.sources) != 1:
            continue
        inner, _ = seen.feeder(outer, 0)
        if inner.type != "Convert" or inner.data.get("destination_type") != "boolean":
            continue
        if len(inner.sources) != 1:
            continue
        v = seen.feeder(inner, 0)[1]
        bounds = bounds_of(v) if v.value is None else None
        if bounds is None or bounds[0].dtype.kind not in "iu":
            continue
        los, his = bounds[0].reshape(-1).tolist(), bounds[1].reshape(-1).tolist()
        if any(lo > 1 or hi < 0 for lo, hi in zip(los, his, strict=True)):
            return {"arg": name}
    return None


def _axis_past_int32(seen: Seen) -> dict[str, Any] | None:
    """S-8: a data axis of ``2**31`` elements or more, static or by its interval's upper bound.

    Any axis of the data counts: the sliced one, an index (shrink) and one left whole alike
    (``x[1:2]`` on ``[2, 2**31]`` gives other elements). Unknown rank is not noted: the CPU
    plugin compiles no input of dynamic rank. Nor is an axis without an upper bound (``?``,
    ``2..``): every model with a dynamic batch axis would carry the note, drowning the others.
    """
    shape = seen.ins[0].shape
    if shape.rank is None:
        return None
    for axis, dim in enumerate(shape.dims):
        if dim.is_static and dim.min >= AXIS_PAST_INT32:
            return {"axis": axis, "size": f"has {dim.min} elements, 2**31 or more"}
        if dim.max is not None and dim.max >= AXIS_PAST_INT32:
            return {"axis": axis, "size": f"can have 2**31 elements or more ({dim})"}
    return None


def _cuts(seen: Seen) -> list[tuple[int, Cut]] | None:
    """Each sliced axis and its cut, from constant index inputs, else ``None``.

    A Slice's ``start``, ``stop``, ``step`` (and ``axes``); a StridedSlice's ``begin``, ``end``
    and ``stride``, its begin and end mask bits as a start or stop left out, and no new-axis,
    shrink or ellipsis bit. The layer was inferred (its input count, and the lengths, steps and
    axes of constant index inputs, are valid).
    """
    rank, layer, count = seen.ins[0].shape.rank, seen.layer, len(seen.ins)
    if rank is None or not all(seen.const(k) for k in range(1, count)):
        return None
    known = [v for v in (_known(info) for info in seen.ins[1:]) if v is not None]
    if len(known) != count - 1:
        return None
    start, stop = known[0], known[1]
    if layer.type == "Slice":
        step = known[2]
        axes = known[3] if count == 5 else list(range(len(start)))
        begin_out = end_out = [0] * len(start)
    else:
        step = known[2] if count == 4 else [1] * len(start)
        axes = list(range(len(start)))
        m = _masks(seen, len(axes))
        if any(any(m[k]) for k in ("new_axis_mask", "shrink_axis_mask", "ellipsis_mask")):
            return None
        begin_out, end_out = list(m["begin_mask"]), list(m["end_mask"])
    return [
        (a % rank, Cut(None if bo else b, None if eo else e, c, CLAMP))
        for a, b, e, c, bo, eo in zip(axes, start, stop, step, begin_out, end_out, strict=True)
    ]


def _declared_otherwise(seen: Seen) -> dict[str, Any] | None:
    """IR-6 (S-6): a cut on an interval axis whose length OpenVINO declares otherwise.

    OpenVINO's shape inference takes the lengths at the interval's ends
    (`datamove._dialects.openvino_declared`); a size whose length lies outside, and is not
    0 (an empty result of a declared interval the plugin runs), it refuses, or, where it
    declares the cut empty, runs a Concat of it without it. The smallest such size is the
    witness.
    """
    cuts = _cuts(seen)
    for axis, cut in cuts or []:
        dim = seen.ins[0].shape.dims[axis]
        if dim.is_static:
            continue
        refused = openvino_refused(cut, dim, seen.layer.type, nonempty=True)
        if refused is not None:
            declared, size = refused
            said = "an empty interval" if declared is None else f"[{Dimension(*declared)}]"
            n = len(cut.range(size, CLAMP))
            concat = _LEFT_OUT if declared == (0, 0) else ""
            found = {"axis": axis, "cut": cut.text(), "dim": dim, "said": said, "w": size, "n": n}
            return found | {"concat": concat}
    return None


# The layers before an Abs of constants alone that OpenVINO 2026.4.1's CPU plugin drops it after
# (IR-13), of those tried; it keeps one of a Const (and of a Concat of one Const, a Reshape or a
# Broadcast of a Const, which fold first). Of an integer value a ShapeOf enters, it drops the
# Abs after any layer tried (Concat, Unsqueeze, Squeeze, Reshape, Divide, Minimum, Select,
# Broadcast, ReduceProd, Mod, Slice, StridedSlice, Tile, Split, Power too); a float Abs after
# a Floor it keeps.
_ABS_DROPPED_AFTER: Final = frozenset(
    ("Abs", "Add", "Convert", "Gather", "Maximum", "Multiply", "Negative", "Subtract")
)


def _back(seen: Seen, layer: Layer) -> list[Layer]:
    """``layer`` and every layer on the paths back from it, each once, none past a ShapeOf."""
    todo, done = [layer], {}
    while todo:
        x = todo.pop()
        if x.index not in done:
            done[x.index] = x
            if x.type != "ShapeOf":
                todo += [seen.feeder(x, k)[0] for k in range(len(x.sources))]
    return list(done.values())


def _of_shapes_and_constants(seen: Seen, layer: Layer) -> bool | None:
    """Whether every path back from ``layer`` ends at a ShapeOf or a Const layer (`_back`).

    ``None`` where they do and none is a ShapeOf (constants alone). A Parameter, or any other
    layer of no inputs, on the way is not such an end.
    """
    back = _back(seen, layer)
    if any(not x.sources and x.type != "Const" for x in back):
        return False
    return True if any(x.type == "ShapeOf" for x in back) else None


def _passed_by_gather(seen: Seen, gather: Layer, i: int) -> int | None:
    """The element of its data that element ``i`` of a Gather is, where it passes one on.

    On axis 0 of 1-D data of a static length, at known indices in range; else ``None``.
    """
    if len(gather.sources) != 3:
        return None
    index, axis = (_known(seen.feeder(gather, j)[1]) for j in (1, 2))
    data = seen.feeder(gather, 0)[1].shape
    if axis != [0] or index is None or i >= len(index) or data.rank != 1:
        return None
    # (batch_dims -1 of 1-D indices is 0; OpenVINO refuses a positive one on axis 0)
    if batch_dims(gather) not in (0, -1) or not data.is_static:
        return None
    size = data[0].get_length()
    return index[i] % size if -size <= index[i] < size else None


Origin = tuple[Layer, Info, int]  # a layer, its output, an element of it


def _origin(seen: Seen, k: int, i: int) -> Origin | None:
    """The layer element ``i`` of input ``k`` comes from, its output and the element there.

    Back through the layers that pass an element on unchanged: a Convert to i32 or i64,
    a Reshape, Squeeze or Unsqueeze (the same flat index), a Concat of 1-D parts on axis 0
    (the part it lies in, those before it of static lengths) and a Gather that passes one on
    (`_passed_by_gather`). ``None`` where which element it is is not known.
    """
    layer = seen.layer
    while True:  # each step an earlier layer: the graph has no cycle
        source, info = seen.feeder(layer, k)
        integer = source.data.get("destination_type") in _INTEGERS
        if source.type in ("Reshape", "Squeeze", "Unsqueeze") or (
            source.type == "Convert" and integer
        ):
            k = 0
        elif source.type == "Concat" and int_or_none(source, "axis") in (0, -1):
            for k in range(len(source.sources)):  # the part it lies in (the parts before: static)
                part = seen.feeder(source, k)[1].shape
                if part.rank != 1:
                    return None
                if i < part[0].min:
                    break
                if not part[0].is_static:
                    return None
                i -= part[0].min
            else:
                return None
        elif source.type == "Gather" and (passed := _passed_by_gather(seen, source, i)) is not None:
            i, k = passed, 0
        else:
            return source, info, i
        layer = source


_INTEGERS: Final = frozenset(("i32", "i64"))  # a narrower or unsigned type may wrap the value


def _slice_ends(seen: Seen) -> Iterator[tuple[str, int, int, Dimension, Origin]]:
    """Each element of a Slice's start or stop whose other end and step (1) are known.

    Its argument's name, the element, the other end's value there (the stop for a start,
    the start for a stop), the size of the axis the known axes name and where the element
    comes from (`_origin`). A StridedSlice's begin or end alike, where it has no new-axis,
    shrink or ellipsis bit: an element whose begin or end mask bit is set is not read (the
    other end's value there is 0 for a begin, ``INT64_MAX`` for an end).
    """
    shape = seen.ins[0].shape
    known = [_known(info) for info in seen.ins[1:]]  # start, stop, step, axes
    names = ("start", "stop")
    masked: tuple[tuple[int, ...], ...] = ((), ())  # a StridedSlice's begin and end masks
    if seen.layer.type == "StridedSlice":
        n = _count(seen)
        m = _masks(seen, n)
        if n is None or any(any(m[key]) for key in MASKS[2:]):  # new axis, shrink, ellipsis
            return
        names, masked = ("begin", "end"), (m["begin_mask"], m["end_mask"])
        known[2:] = known[2:] or [[1] * n]  # (no stride input: 1)
        for k, whole in ((0, 0), (1, INT64_MAX)):
            v = known[k]
            if v is not None and len(v) == n:
                known[k] = [whole if bit else x for x, bit in zip(v, masked[k], strict=True)]
            else:
                known[k] = None
    if shape.rank is None:
        return
    for k, name in ((1, names[0]), (2, names[1])):
        other, step = known[2 - k], known[2]
        if other is None or step is None:
            continue
        count = min(len(other), len(step))
        axes = known[3] if len(known) > 3 else list(range(count))
        for i in range(min(count, len(axes or []))):
            assert axes is not None
            read = not masked[k - 1] or not masked[k - 1][i]
            found = _origin(seen, k, i) if step[i] == 1 and read else None
            if found is not None:  # (the axis in range: the layer was inferred)
                yield name, i, other[i], shape[axes[i] % shape.rank], found


def _abs_of_a_negative(seen: Seen) -> dict[str, Any] | None:
    """IR-13: a Slice's stop or start fed by a 1-D Abs of a negative value of shapes and constants.

    The Abs is the element's origin (`_slice_ends`); every path back from its input ends at a
    ShapeOf or a Const (`_of_shapes_and_constants`), and it is an integer a ShapeOf enters, or
    comes from one of `_ABS_DROPPED_AFTER`; its bounds (or its known value) say the element is
    negative in every run. That element slices a prefix or a suffix: a stop after a known start
    of 0, or a start before a known stop past the axis's largest size. There the plugin's
    ``d - |v|`` elements and the spec's ``|v|`` differ at every size ``d`` but 0 and ``2|v|``.
    """
    for name, i, other, dim, (found, out, j) in _slice_ends(seen):
        if found.type != "Abs" or out.shape.rank != 1 or len(found.sources) != 1:
            continue
        if other != 0 if name == "stop" else not (dim.max is not None and other >= dim.max):
            continue
        source, v = seen.feeder(found, 0)
        bounds = bounds_of(v)
        if bounds is None or bounds[1].dtype.kind not in "iuf":
            continue
        ends = _of_shapes_and_constants(seen, source)
        listed = source.type in _ABS_DROPPED_AFTER  # else an integer Abs a shape enters
        if ends is False or (not listed and (ends is None or bounds[1].dtype.kind not in "iu")):
            continue
        upper = bounds[1].reshape(-1).tolist()
        hi = upper[j] if j < len(upper) else 0
        if hi < 0:
            return {"arg": name, "i": i, "hi": hi}
    return None


def _never_0(lo: int, hi: int, d: int) -> bool:
    """Whether an index in ``lo..hi``, clamped into any size from ``d`` (1 or more), is never 0."""
    return lo >= 1 or (hi <= -1 and d + lo >= 1)


def _gather_out_of_range(seen: Seen) -> dict[str, Any] | None:
    """IR-25: a Slice's start or StridedSlice's begin a Gather-8 of one index out of range of 1.

    The Gather is the element's origin (`_slice_ends`); its one index (a scalar or ``[1]``),
    known, is neither 0 nor -1, on a data axis of static size 1 (one element), with
    ``batch_dims`` 0. The spec's start is 0; the plugin takes the data's element ``v`` there
    (by its bounds or known value; no Abs before it, which the plugin may drop: IR-13). Noted
    where, at every size of the axis but 0, the known stop (end) and ``v`` are not element 0
    (`_never_0`): the spec's output is not empty, and the plugin's starts elsewhere.
    """
    for name, i, stop, dim, (gather, _, j) in _slice_ends(seen):
        if name not in ("start", "begin") or gather.type != "Gather" or opset_number(gather) < 8:
            continue
        if len(gather.sources) != 3 or batch_dims(gather) != 0:
            continue
        data, index, axis = (seen.feeder(gather, m)[1] for m in range(3))
        at, on, rank = _known(index), _known(axis), data.shape.rank
        if at is None or on is None or len(at) != 1 or len(on) != 1:
            continue
        if index.shape.rank not in (0, 1) or not rank or not -rank <= on[0] < rank:
            continue
        bounds = bounds_of(data)
        if data.shape[on[0] % rank] != Dimension(1) or -1 <= at[0] <= 0 or bounds is None:
            continue
        if any(x.type == "Abs" for x in _back(seen, seen.feeder(gather, 0)[0])):
            continue  # the plugin may drop it (IR-13), and take another value
        if bounds[0].dtype.kind not in "iu" or j >= bounds[0].size:
            continue
        lo, hi = (int(b.reshape(-1)[j]) for b in bounds)
        d = max(dim.min, 1)
        if _never_0(stop, stop, d) and _never_0(lo, hi, d):
            return {"arg": name, "i": i, "index": at[0], "v": lo if lo == hi else f"{lo}..{hi}"}
    return None


# IR-27: the element types OpenVINO's CPU plugin gathers as 4 bytes a value (f16, i64 and u64
# converted), of which its vector Gather kernel takes 2 to 8 after the axis too (AVX2)
_GATHER_4_BYTES: Final = frozenset(("f32", "f16", "i32", "u32", "i64", "u64"))


def _gather_batch_of_one(seen: Seen) -> dict[str, Any] | None:
    """IR-27: a Gather (7 or 8) of ``batch_dims`` 1 or more, every data dim before the axis 1.

    Data and indices of static shapes (a layer datamove takes as declared: `Seen.out` is the
    file's), a known axis, and 1 element after the axis (the data's dims past it) and fewer
    than 8 indices past the batch dims, or 2 to 8 elements of `_GATHER_4_BYTES`: the plugin's
    vector kernel, which then reads and writes out of place. Whatever the indices' values and
    type, constant or run-time; but for indices ``[0]`` (``batch_dims`` 1, known) on an axis
    of size 1 (OpenVINO makes that Gather a Squeeze, which runs right), and an axis of size 0:
    there the plugin neither dies nor writes (IR-38's note, of Gather-8; Gather-7's spec leaves
    that output undefined).
    """
    if opset_number(seen.layer) < 7 or len(seen.ins) != 3:
        return None
    data, indices, axis = seen.ins[0].shape, seen.ins[1].shape, _known(seen.ins[2])
    if not (data.is_static and indices.is_static) or axis is None or len(axis) != 1:
        return None
    batch = batch_dims(seen.layer)
    if batch is None:
        return None
    dims, rank = [d.get_length() for d in data.dims], len(data.dims)
    batch += len(indices.dims) if batch < 0 else 0
    at = axis[0] + rank if axis[0] < 0 else axis[0]
    if not 1 <= batch <= at < rank or any(d != 1 for d in dims[:at]) or dims[at] == 0:
        return None
    after, taken = math.prod(dims[at + 1 :]), [d.get_length() for d in indices.dims[batch:]]
    etype = seen.ins[0].etype
    if after == 1:
        kernel = math.prod(taken) < 8
    else:
        kernel = after <= 8 and etype is not None and etype.name in _GATHER_4_BYTES
    if not kernel or (batch == 1 and not taken and dims[at] == 1 and _known(seen.ins[1]) == [0]):
        return None  # (the last: OpenVINO makes that Gather a Squeeze)
    return {"batch": batch, "axis": at, "data": data, "after": after}


def _gathers_data(seen: Seen) -> int | None:
    """A Gather of 3 inputs whose data's value is not known: its ``batch_dims``, normalised.

    One whose data is known OpenVINO folds (a shape subgraph's, of static shapes): the plugin
    never runs it. A negative ``batch_dims`` counts from the indices' rank; ``None`` where
    that is not known or the Gather is not one such.
    """
    if len(seen.ins) != 3 or seen.ins[0].value is not None:
        return None
    batch, rank = batch_dims(seen.layer), seen.ins[1].shape.rank
    if batch is None or (batch < 0 and rank is None):
        return None
    return batch + rank if batch < 0 and rank is not None else batch


def _gather_of_an_empty_axis(seen: Seen) -> dict[str, Any] | None:
    """IR-38: a Gather-8 on a data axis of size 0, of indices not empty.

    Every index is out of range there, which Gather-8's spec fills with zeros; the CPU plugin
    writes nothing. The axis known (a Const) and of size 0 in every run (its dim's upper
    bound 0), each indices dim at least 1 in every run; constant or run-time indices, any
    ``batch_dims`` (surveyed 0, 1, 2 and -1: alike). Not where another data dim is 0 in every
    run (no element to write), nor Gather-1 and -7, which leave an index out of range
    undefined. The output's shape is the spec's (a Gather is taken as declared: `Seen.out`
    may say less).
    """
    batch = _gathers_data(seen)
    if opset_number(seen.layer) < 8 or batch is None:
        return None
    data, indices, axis = seen.ins[0].shape, seen.ins[1].shape, _known(seen.ins[2])
    if data.rank is None or indices.rank is None or axis is None or len(axis) != 1:
        return None
    if not -data.rank <= axis[0] < data.rank:
        return None
    at = axis[0] % data.rank
    if not 0 <= batch <= min(at, indices.rank) or data[at].max != 0:
        return None
    if any(d.min == 0 for d in indices.dims):
        return None
    if any(d.max == 0 for k, d in enumerate(data.dims) if k != at):
        return None
    shape = PartialShape([*data.dims[:at], *indices.dims[batch:], *data.dims[at + 1 :]])
    return {"axis": at, "data": data, "shape": shape}


def _gather_to_nothing(seen: Seen) -> dict[str, Any] | None:
    """IR-39: a Gather (1, 7 or 8) of static data and indices whose output is empty.

    Where a dim the plugin's kernel divides by is 0: past the ``batch_dims`` (negative:
    counted from the indices' rank), a data dim other than the axis or an indices dim; with
    a known axis. Not where only a batch dim is 0 (the kernel has no work). But for known
    indices (a Const, or a shape subgraph's value, which OpenVINO folds on static shapes:
    ``x[x.shape[0] - 1]``) of one element in range of the axis, every data dim before it 1,
    ``batch_dims`` 0: that Gather runs (the plugin takes it as a slice, it seems). And a
    Gather of ``batch_dims`` 1 on an axis of size 1 of known indices of no dims past the
    batch, whose first value OpenVINO reads: 0, it makes the Gather a Squeeze, which runs
    (``[2,1,0]`` at ``[0, 1]``); none (a batch dim 0), the process dies (SIGSEGV).
    """
    batch = _gathers_data(seen)
    if batch is None:
        return None
    data, indices, axis = seen.ins[0].shape, seen.ins[1].shape, _known(seen.ins[2])
    if not (data.is_static and indices.is_static) or axis is None or len(axis) != 1:
        return None
    dims, taken = data.to_shape(), indices.to_shape()
    if not -len(dims) <= axis[0] < len(dims):
        return None
    at = axis[0] % len(dims)
    if not 0 <= batch <= min(at, len(taken)):
        return None
    shape = (*dims[:at], *taken[batch:], *dims[at + 1 :])
    if 0 not in shape:
        return None
    index = _known(seen.ins[1])
    if batch == 1 and len(taken) == 1 and dims[at] == 1 and index is not None:
        if not index:  # (it reads the first index of none)
            return {"shape": PartialShape(list(shape)), "signal": "SIGSEGV"}
        if index[0] == 0:
            return None  # (OpenVINO makes it a Squeeze)
    if 0 not in (*dims[batch:at], *taken[batch:], *dims[at + 1 :]):
        return None
    sliced = index is not None and len(index) == 1 and -dims[at] <= index[0] < dims[at]
    if batch == 0 and sliced and all(d == 1 for d in dims[:at]):
        return None
    return {"shape": PartialShape(list(shape)), "signal": "SIGFPE"}


def _lengths_of_unknown_length(seen: Seen) -> dict[str, Any] | None:
    """IR-15: a VariadicSplit whose split_lengths OpenVINO reads as of unknown length.

    It then reads the layer's outputs as of dynamic rank, which the CPU plugin does not
    compile. What OpenVINO infers is the port's declared ``[?]`` (datamove's shape subgraph
    rules can know the length), where no Const feeds the port.
    """
    if len(seen.ins) != 3 or seen.const(2):
        return None
    port = seen.layer.inputs[2]
    if not port.has_dims or port.shape.rank != 1 or port.shape[0].is_static:
        return None
    return {"shape": port.shape}


def _input_of_dynamic_rank(seen: Seen) -> dict[str, Any] | None:
    """IR-35: a Parameter of dynamic rank (``shape="..."``), read by a layer or not.

    The CPU plugin compiles no model with one.
    """
    return {} if seen.out.rank is None else None


def _read_value_not_compiled(seen: Seen) -> dict[str, Any] | None:
    """IR-36: a ReadValue of a variable no Assign writes, or (ReadValue-6) of dynamic rank.

    (A ReadValue-3's variable has its input's shape: of dynamic rank, a Parameter's, IR-35.)
    """
    variable = seen.layer.data.get("variable_id")
    if variable not in seen.assigned:
        why = "a ReadValue without its Assign"
        return {"what": f"no Assign writes its variable {variable!r}", "why": why}
    if (text := seen.layer.data.get("variable_shape")) is None:
        return None
    try:
        shape = parse_shape_attr(text, "variable_shape")
    except IRError:  # (another problem)
        return None
    if shape.rank is not None:
        return None
    return {"what": "a variable of dynamic rank", "why": "a ReadValue of dynamic rank"}


def _view_of_dynamic_rank(seen: Seen) -> dict[str, Any] | None:
    """IR-34: an Unsqueeze or Squeeze the CPU plugin refuses to compile, on data of known rank.

    Where OpenVINO reads the output as of dynamic rank: an Unsqueeze of run-time axes; a
    Squeeze (1, or 15 without ``allow_axis_skip``, which the plugin makes a Squeeze-1) of
    run-time axes that are not one element (a scalar or ``[1]``) or on a scalar, or of no axes
    (none listed) on data with a dim that may be 1 or another size; a Squeeze-15 with
    ``allow_axis_skip`` (and axes) of run-time axes that are not one element or beside a dim of 1.
    That Squeeze on data of a shape not static the plugin does not infer ("not implemented").
    """
    data, axes = seen.ins[0].shape, (seen.ins[1] if len(seen.ins) > 1 else None)
    if data.rank is None:
        return None
    values = None if axes is None else _known(axes)
    run_time = axes is not None and values is None
    if seen.layer.type == "Unsqueeze":
        return {"what": "run-time axes", "why": _DYNAMIC_RANK} if run_time else None
    skip = axes is not None and opset_number(seen.layer) >= 15  # (of one input: a Squeeze-1)
    skip = skip and seen.layer.data.get("allow_axis_skip") == "true"
    if skip and not data.is_static:
        why = "its shape inference of that Squeeze is not implemented"
        return {"what": f"allow_axis_skip on data {data}", "why": why}
    count = math.prod(axes.shape.to_shape()) if axes is not None and axes.shape.is_static else 0
    one_kept = count == 1 and data.rank and not (skip and 1 in data.to_shape())
    if axes is not None and values is None and not one_kept:
        what = f"run-time axes of shape {axes.shape}" + (", allow_axis_skip" if skip else "")
        return {"what": what, "why": _DYNAMIC_RANK}
    if not run_time and not values and any(not d.is_static and 1 in d for d in data.dims):
        return {"what": f"no axes on data {data}", "why": _DYNAMIC_RANK}
    return None


# -- the table -----------------------------------------------------------------------------------
_ABS_SAYS: Final = (
    "{arg} is a 1-D Abs of a value computed from shapes and constants whose element {i} is "
    "negative in every run (at most {hi}): OpenVINO's CPU plugin drops the Abs and uses the "
    "negative value; the spec and evaluate use its absolute value and give {out}"
)
_PAST_INT32_SAYS: Final = (
    "axis {axis} of the data {size}: OpenVINO's CPU plugin reads its size in 32 bits and "
    "gives other elements, or kills the process (SIGSEGV); the spec and evaluate give {out}"
)
_DECLARED_SAYS: Final = (
    "OpenVINO's shape inference declares {said} for {cut} on axis {axis} of sizes {dim} (the "
    "lengths at the interval's ends): the CPU plugin refuses sizes whose length lies outside"
    "{concat} (size {w} on axis {axis} gives {n} element(s)); the spec and evaluate give {out}"
)
# Declared empty, the cut is left out of a Concat that takes it: that size runs, wrong.
_LEFT_OUT: Final = ", or leaves its elements out of a Concat that takes it"

_GATHER_SAYS: Final = (
    "{arg}[{i}] is a Gather of index {index} out of range of a data axis of 1 element ({v}): "
    "OpenVINO's CPU plugin takes that element; the spec and evaluate take 0 and give {out}"
)
_DYNAMIC_RANK: Final = "OpenVINO reads its output as of dynamic rank"
_GARBAGE: Final = "garbage values, or an error where begin, end or stride is a run-time input"
RULES: Final = (
    Rule(
        "2",
        "StridedSlice",
        _bits_past_begin,
        "{bit} bit at index {i}, past len(begin) = {n}: OpenVINO's CPU plugin reads it ("
        + _GARBAGE
        + "); the spec and evaluate ignore it and give {out}",
    ),
    Rule(
        "9",
        "StridedSlice",
        _stride_int64_min,
        "constant stride[{i}] is INT64_MIN: OpenVINO's CPU plugin returns garbage values or "
        "kills the process (SIGFPE); the spec and evaluate give {out}",
    ),
    Rule(
        "10",
        "StridedSlice",
        _reversed_over_empty,
        "stride[{i}] = {s} reverses axis {axis} of size 0 of data OpenVINO folds (an empty "
        "Concat, a Const): OpenVINO's CPU plugin folds the layer too, with evaluate, which gives "
        "1 element of garbage there{error}; the spec gives {out}",
        empty=True,
    ),
    Rule(
        "11",
        "StridedSlice",
        _shrink_with_begin_mask,
        "shrink_axis_mask and begin_mask both set at index {i}: OpenVINO's CPU plugin takes "
        "element 0; the spec and evaluate take begin[{i}] = {b}",
    ),
    Rule(
        "23",
        "StridedSlice",
        _new_axis_shrink_implicit_rest,
        "a new axis and a shrink, input axes left to the implicit rest (no ellipsis): "
        "OpenVINO's CPU plugin reads the wrong elements (an error where begin, end or stride is "
        "a run-time input; #18c); the spec and evaluate give {out}",
    ),
    Rule(
        "S-3",
        "Slice",
        _slice_step_int32_min,
        "constant step[{i}] = {s} is INT32_MIN or below: OpenVINO's CPU plugin kills the process "
        "(SIGFPE) or returns garbage values; the spec and evaluate give {out}",
    ),
    Rule(
        "S-5",
        "Slice",
        _run_time_empty,
        "run-time start, stop and step of no values: OpenVINO's CPU plugin fails to run it; the "
        "spec and evaluate give the data whole, {out}",
    ),
    Rule(
        "IR-9",
        "Slice",
        _boolean_and_back,
        "{arg} converts a run-time value that is never 0 or 1 to boolean and back: OpenVINO's "
        "CPU plugin drops the Convert to boolean and uses the value; the spec and evaluate use 1",
    ),
    Rule(
        "IR-13",
        "Slice",
        _abs_of_a_negative,
        _ABS_SAYS,
    ),
    *(Rule("IR-25", op, _gather_out_of_range, _GATHER_SAYS) for op in ("Slice", "StridedSlice")),
    Rule(
        "IR-27",
        "Gather",
        _gather_batch_of_one,
        "batch_dims {batch} on axis {axis} of static data {data}, every dim before it 1, "
        "{after} element(s) after it: OpenVINO's CPU plugin kills the process (SIGSEGV) or "
        "gives garbage values; the spec and evaluate give {out}",
    ),
    Rule(
        "IR-38",
        "Gather",
        _gather_of_an_empty_axis,
        "a Gather-8 on axis {axis} of size 0 of data {data}, where every index is out of range: "
        "OpenVINO's CPU plugin leaves its output unwritten (garbage values, run to run); the "
        "spec and evaluate give {shape} of zeros",
    ),
    Rule(
        "IR-39",
        "Gather",
        _gather_to_nothing,
        "a Gather of static shapes whose output {shape} is empty: OpenVINO's CPU plugin kills "
        "the process ({signal}); the spec and evaluate give {shape}, no element",
        empty=True,
    ),
    Rule(
        "IR-15",
        "VariadicSplit",
        _lengths_of_unknown_length,
        "split_lengths of unknown length {shape}: OpenVINO reads the layer's outputs as of "
        "dynamic rank, and its CPU plugin refuses to compile the model; the spec and evaluate "
        "give one output per length, the first {out}",
    ),
    *(
        Rule(
            "IR-34",
            op,
            _view_of_dynamic_rank,
            "{what}: OpenVINO's CPU plugin refuses to compile the model ({why}); the spec and "
            "evaluate give {out}",
        )
        for op in ("Unsqueeze", "Squeeze")
    ),
    Rule(
        "IR-35",
        "Parameter",
        _input_of_dynamic_rank,
        "an input of dynamic rank: OpenVINO's CPU plugin refuses to compile the model (it "
        "takes no Parameter of dynamic rank); evaluate, and datamove, run it at any rank",
    ),
    Rule(
        "IR-36",
        "ReadValue",
        _read_value_not_compiled,
        "{what}: OpenVINO's CPU plugin refuses to compile the model ({why}); read_model reads it",
    ),
    *(Rule("S-8", op, _axis_past_int32, _PAST_INT32_SAYS) for op in ("Slice", "StridedSlice")),
    *(Rule("IR-6", op, _declared_otherwise, _DECLARED_SAYS) for op in ("Slice", "StridedSlice")),
)

_RULES_OF: Final[dict[str, list[Rule]]] = {}  # each layer type's rules, in table order
for _rule in RULES:
    _RULES_OF.setdefault(_rule.type, []).append(_rule)


def cpu_notes(seen: Seen) -> list[str]:
    """The message of each rule of `RULES` this layer meets (one line each), in table order.

    Where the output is known to be empty, only those of `Rule.empty` (#10, IR-39): of the
    others, no element can come out wrong.
    """
    found: list[str] = []
    empty = seen.out.rank is not None and any(d.max == 0 for d in seen.out.dims)
    for rule in _RULES_OF.get(seen.layer.type, ()):
        fields = None if empty and not rule.empty else rule.meets(seen)
        if fields is not None:
            text = rule.says.format(out=seen.out, **fields)
            found.append(f"divergence {rule.number} (docs/semantics.md): {text}")
    return found
