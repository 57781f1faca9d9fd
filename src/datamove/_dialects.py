"""Slicing dialects: one exact translator between the dialects of basic slicing.

NumPy, OpenVINO, ONNX, TensorFlow and PyTorch are here; DirectML and WebNN in ``_dml_webnn``.

A :class:`Slicing` holds one normal form, a tuple of entries, one per index position:

- ``None``: a new axis of length 1;
- ``Ellipsis``: the input axes no other entry addresses, kept whole (one at most; without one,
  the trailing axes are kept);
- an ``int``: the element at that index, the axis removed (negative counts from the end; it
  must be in range);
- a :class:`Cut`: ``start:stop:step`` (``None`` for "from the first" / "to the last" in the
  step's direction) under one of two clamping rules, ``"numpy"`` (NumPy, Python, TensorFlow,
  ``onnx.reference``) or ``"clamp"`` (OpenVINO StridedSlice-1 and Slice-8, the ONNX spec,
  onnxruntime). The rules differ on one corner only: a negative step whose start lies before
  the first element (``start < -size``) selects nothing in NumPy, while OpenVINO clamps it to
  index 0 and selects ``x[0]`` when the stop also lies before it (``stop < -size`` or none). A
  cut that cannot reach that corner is stored as ``"same"``.

Execution and inference go through StridedSlice-1 (``dm.strided_slice``,
``dm.infer_strided_slice``), whose builder holds the masks and OpenVINO's clamping
(``clamp_bounds``); NumPy's clamping is Python's own ``slice.indices``. Emitters write each
dialect's parameters; for a shape that is not static they write parameters exact for every
allowed size, or raise :class:`~datamove.NotExpressible` with a witness shape. An index out of
range on every size the shape allows (``x[5]`` on ``[1]`` or ``[..3]``) is refused, as NumPy
refuses it, with a ``ValidationError`` naming the dialect (an unbounded size holds those below
``INT64_MAX``); where some allowed size may hold it, the index is written and the runtime decides.
The normal form holds for the sizes below ``INT64_MAX`` (``x[-(2**63 - 2):]`` is ``x[:]``), so a
shape or array that allows a size of ``INT64_MAX`` is refused (``shape_dims``).
"""

from __future__ import annotations

import ast
import itertools
import keyword
import math
import operator
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, NoReturn

import numpy as np

from datamove import _backends
from datamove import _dialect_memo as _memo
from datamove._dml_webnn import (
    DML_SLICE,
    WEBNN_SLICE,
    check_each,
    check_lengths,
    dml_slice_ops,
    read_dml_window,
    read_webnn_window,
    static_sizes,
    webnn_slice_ops,
)
from datamove._errors import (
    DTypeError,
    NotExpressible,
    ValidationError,
    a_kind,
    pass_the_shape,
    plural,
)
from datamove._shape import (
    INT64_MAX,
    INT64_MIN,
    MAX_LENGTH,
    Dimension,
    PartialShape,
    ShapeLike,
    as_partial_shape,
    largest,
    sizes_text,
)
from datamove._strided_slice import (
    Params,
    checked_params,
    clamp_bounds,
    infer_strided_slice,
    range_length,
    strided_slice,
    takes_whole,
)
from datamove._validation import as_int, as_int_vector, normalize_axis

__all__ = ["Cut", "Slicing"]

NUMPY: Final = "numpy"
CLAMP: Final = "clamp"
SAME: Final = "same"
# ONNX's runtimes read both rules (onnxruntime and the spec OpenVINO's, onnx.reference NumPy's):
# its emitter keeps a cut only where the two agree on every allowed size.
BOTH: Final = "both"

# onnxruntime (1.32) reads an end of exactly INT32_MAX or INT64_MAX as "to the last" in the
# step's direction (with a negative step: through index 0), where the spec and onnx.reference
# read an index, clamped: to_onnx never writes them where the two readings differ.
_INT32_MAX: Final = 2**31 - 1

# OpenVINO's CPU plugin (2026.4.1) kills the process (SIGFPE) on a constant Slice-8 step or
# StridedSlice-1 stride at or below INT32_MIN wherever the output has elements
# (docs/semantics.md, S-3 and divergence 9): its emitters write none on an axis that is not
# static (on a static one the numbers are in range, such a step only where it takes two).
_OV_MIN_STEP: Final = -(2**31)
_OPENVINO: Final = ("Slice", "StridedSlice")
# OpenVINO's shape inference (2026.4.1) of a constant Slice-8 or StridedSlice-1 cut on an axis
# that is not static takes the lengths at the interval's two ends alone (a formula of its own at
# an unbounded one), and its CPU plugin refuses a size whose length lies outside what it
# declared, or runs it wrong (docs/semantics.md, S-6 and IR-6): its emitters write no such cut.

# PyTorch truncates slice bounds below this one (with a warning); it computes a slice's length
# as (len + step - 1) / step in int64, so a step past -_TORCH_MIN overflows on every length
# that step would take a second element of.
_TORCH_MIN: Final = -(2**62)
# PyTorch multiplies a stride by the step in int64 whatever the length, and raises past INT64_MAX
# (a stride past 2**32 overflows with this step): a step past this one is left out where the cut
# takes one element at most on every allowed size, and refused where it takes one on some.
_TORCH_BIG_STEP: Final = 2**31 - 1

# Deciding two cuts on an interval checks, between breakpoints, three periods of sizes.
_MAX_PERIOD: Final = 1024

# dm.strided_slice's keyword arguments, in its order; tf.strided_slice's masks, in its.
_STRIDED_SLICE_KEYS: Final = tuple(k for k in Params._fields if k != "addressed")
_TF_MASKS: Final = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")

Selection = tuple[int, int, int]  # (first, count, step): (0, 0, 0) empty, (first, 1, 0) one


@dataclass(frozen=True)
class Cut:
    """One sliced axis: ``start:stop:step`` under a clamping rule (``"numpy"``, ``"clamp"``)."""

    start: int | None
    stop: int | None
    step: int
    rule: str = SAME

    @staticmethod
    def make(start: int | None, stop: int | None, step: int, rule: str) -> Cut:
        """The cut, its rule ``"same"`` where NumPy's and OpenVINO's clamping cannot differ.

        Bounds that mean "from the first" or "to the last" on every size below ``INT64_MAX``
        (``0`` or ``-1`` at the start, an ``INT64`` extreme at either end) become ``None``. A
        ``"same"`` cut the two rules can read otherwise is ``"clamp"``, the rule ``range`` reads
        it by.
        """
        return Cut(*_normal(start, stop, step, rule))

    def normal(self) -> Cut:
        """The cut as ``make`` writes it: ``self`` where it is already so."""
        parts = _normal(self.start, self.stop, self.step, self.rule)
        return self if parts == (self.start, self.stop, self.step, self.rule) else Cut(*parts)

    def range(self, d: int, rule: str | None = None) -> range:
        """The indices selected on an axis of size ``d`` (under ``rule``, by default its own)."""
        rule = rule or self.rule
        if d == 0:
            return range(0)
        if rule == NUMPY:
            return range(*slice(self.start, self.stop, self.step).indices(d))
        a, b = self.start, self.stop
        begin, end = clamp_bounds(d, a or 0, b or 0, self.step, int(a is None), int(b is None))
        return range(begin, end, self.step)

    def text(self) -> str:
        """NumPy's spelling: ``1:``, ``::-2``, ``:``."""
        a = "" if self.start is None else str(self.start)
        b = "" if self.stop is None else str(self.stop)
        return f"{a}:{b}" if self.step == 1 else f"{a}:{b}:{self.step}"


WHOLE: Final = Cut(None, None, 1)


def _normal(
    start: int | None, stop: int | None, step: int, rule: str
) -> tuple[int | None, int | None, int, str]:
    """``Cut.make``'s normal form of these numbers (see there)."""
    # Beyond every size, the same for every axis: from_numpy's numbers, and those compose and
    # canonical compute past int64 (a stop of INT64_MIN - 1), which repr would write and
    # from_numpy read back as another cut.
    start = None if start is None else max(INT64_MIN, min(start, INT64_MAX))
    stop = None if stop is None else max(INT64_MIN, min(stop, INT64_MAX))
    step = max(-INT64_MAX, min(step, INT64_MAX))
    big = INT64_MAX - 1
    if step > 0:
        start = None if start is not None and (start == 0 or start <= -big) else start
        stop = None if stop is not None and stop >= big else stop
    else:
        start = None if start is not None and (start == -1 or start >= big) else start
        # past the first element on every size: INT64_MIN + 2 counts back to index 0 on
        # INT64_MAX - 1, the largest size an unbounded axis holds
        stop = None if stop is not None and stop < -big else stop
    if step > 0 or start is None or start >= -1 or (stop is not None and stop >= -1):
        return start, stop, step, SAME
    return start, stop, step, CLAMP if rule == SAME else rule


_ANY_DIM: Final = Dimension()  # built once: emitters ask for it per cut


def addressed(entries: Iterable[Any]) -> int:
    """The number of input axes these entries address (indices and cuts)."""
    return sum(1 for x in entries if x is not None and x is not Ellipsis)


def dim_at(ps: PartialShape, axis: int) -> Dimension:
    """The size of ``axis`` of ``ps``; any size where the rank is unknown."""
    return _ANY_DIM if ps.rank is None else ps.dims[axis]


def selection(r: range) -> Selection:
    n = len(r)
    if n == 0:
        return (0, 0, 0)
    if n == 1:
        return (r.start, 1, 0)
    return (r.start, n, r.step)


def _resolved(r: range) -> tuple[int, int | None, int]:
    """In-range parameters for the indices ``r``, on which every dialect's runtime agrees."""
    n = len(r)
    if n == 0:
        return (0, 0, 1)
    if n == 1:
        return (r.start, r.start + 1, 1)
    last = r[-1]
    if r.step > 0:
        return (r.start, last + 1, r.step)
    return (r.start, last - 1 if last >= 1 else None, r.step)


# -- parsing ---------------------------------------------------------------------------------------
def _index_int(op: str, where: str, value: Any) -> int:
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise ValidationError(op, where, value, "is a bool; NumPy reads bools as a mask")
    try:
        v = operator.index(value)
    except TypeError:
        raise ValidationError(
            op, where, value, "is not an int, a slice, None or Ellipsis (basic indexing only)"
        ) from None
    return v


def _bound(op: str, where: str, value: Any) -> int | None:
    """A slice's bound or step as an int (``Cut.make`` clamps it to int64)."""
    return value if value is None or type(value) is int else _index_int(op, where, value)


def _from_items(op: str, items: Iterable[Any]) -> tuple[Any, ...]:
    entries: list[Any] = []
    for k, item in enumerate(items):
        where = f"index[{k}]"
        if item is None or item is Ellipsis:
            if item is Ellipsis and Ellipsis in entries:
                raise ValidationError(op, where, item, "is a second ellipsis; one at most")
            entries.append(item)
        elif isinstance(item, slice):
            step = _bound(op, where + ".step", item.step)
            if step == 0:
                raise ValidationError(op, where, item, "has step 0; a step must be non-zero")
            start = _bound(op, where + ".start", item.start)
            stop = _bound(op, where + ".stop", item.stop)
            entries.append(Cut.make(start, stop, 1 if step is None else step, NUMPY))
        else:
            v = _index_int(op, where, item)
            if not INT64_MIN <= v <= INT64_MAX:
                raise ValidationError(op, where, item, "is out of range for every axis")
            entries.append(v)
    return tuple(entries)


# from_numpy's clamping names, and the name repr writes for each cut's rule.
_CLAMPINGS: Final = {"numpy": NUMPY, "openvino": CLAMP}
_CLAMPING_NAMES: Final = {NUMPY: "numpy", SAME: "numpy", CLAMP: "openvino"}


def _clamped(op: str, entries: tuple[Any, ...], clamping: Any) -> tuple[Any, ...]:
    """The entries, each cut read under its ``clamping`` (a name, or one per cut)."""
    words = "is not 'numpy' or 'openvino'"
    count = sum(1 for x in entries if isinstance(x, Cut))
    if type(clamping) is str and clamping in _CLAMPINGS:
        rules = [_CLAMPINGS[clamping]] * count
    elif isinstance(clamping, list | tuple):
        if len(clamping) != count:
            rule = (
                f"has {plural(len(clamping), 'value')}, but the index has {plural(count, 'slice')}"
            )
            raise ValidationError(op, "clamping", clamping, rule)
        for k, v in enumerate(clamping):
            if type(v) is not str or v not in _CLAMPINGS:
                raise ValidationError(op, f"clamping[{k}]", v, words)
        rules = [_CLAMPINGS[v] for v in clamping]
    else:
        raise ValidationError(op, "clamping", clamping, words)
    it = iter(rules)
    return tuple(
        Cut.make(x.start, x.stop, x.step, next(it)) if isinstance(x, Cut) else x for x in entries
    )


def _literal(op: str, node: ast.expr) -> Any:
    """An int, None or Ellipsis written as a literal (``-3`` included); nothing is evaluated."""
    if isinstance(node, ast.Constant) and (
        node.value is None or node.value is Ellipsis or type(node.value) is int
    ):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and type(node.operand.value) is int
    ):
        return -node.operand.value if isinstance(node.op, ast.USub) else node.operand.value
    raise ValidationError(
        op, "index", ast.unparse(node), "is not an int, a slice, None or ... (basic indexing only)"
    )


# The common spellings, read without the parser (a few times faster than ast.parse): a name,
# then items of ints, None, ... and slices of ints, ASCII blanks between; anything else is
# left to ast, which reads these the same.
_INT_TEXT: Final = r"[-+]?(?:0|[1-9][0-9]*)"
_SIMPLE_INDEX: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*\[(.*)\]", re.DOTALL)
_SIMPLE_ITEM: Final = re.compile(
    rf"[ \t\n]*(?:(?P<int>{_INT_TEXT})|(?P<none>None)|(?P<dots>\.\.\.)"
    rf"|(?P<a>{_INT_TEXT})?[ \t\n]*:[ \t\n]*(?P<b>{_INT_TEXT})?"
    rf"(?:[ \t\n]*:[ \t\n]*(?P<c>{_INT_TEXT})?)?)[ \t\n]*"
)


def _simple_items(text: str) -> list[Any] | None:
    """The items of ``text`` in the common spellings; ``None``: leave it to ``ast``."""
    m = _SIMPLE_INDEX.fullmatch(text)
    if m is None or keyword.iskeyword(m.group(1)):
        return None
    items: list[Any] = []
    match = _SIMPLE_ITEM.fullmatch
    for part in m.group(2).split(","):
        p = match(part)
        if p is None:
            return None
        i, none, dots, a, b, c = p.groups()
        if i is not None:
            items.append(int(i))
        elif none is not None:
            items.append(None)
        elif dots is not None:
            items.append(Ellipsis)
        else:
            # A group is None or digits: ``and`` keeps None and reads the digits.
            items.append(slice(a and int(a), b and int(b), c and int(c)))
    return items


def _parse(op: str, text: str) -> tuple[Any, ...]:
    simple = _simple_items(text.strip())
    if simple is not None:
        return _from_items(op, simple)
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        raise ValidationError(
            op, "index", text, "is not an indexing expression such as 'x[1:, ..., None, ::-2]'"
        ) from None
    if not isinstance(tree, ast.Subscript) or not isinstance(tree.value, ast.Name):
        raise ValidationError(
            op, "index", text, "is not a name indexed once, such as 'x[1:, ..., None, ::-2]'"
        )
    nodes = tree.slice.elts if isinstance(tree.slice, ast.Tuple) else [tree.slice]
    items: list[Any] = []
    for node in nodes:
        if isinstance(node, ast.Slice):
            parts = [
                None if n is None else _literal(op, n) for n in (node.lower, node.upper, node.step)
            ]
            if any(p is Ellipsis for p in parts):
                raise ValidationError(op, "index", text, "has ... inside a slice")
            items.append(slice(*parts))
        else:
            items.append(_literal(op, node))
    return _from_items(op, items)


def _slice_entries(
    op: str,
    names: tuple[str, str, str, str],
    start: Any,
    stop: Any,
    step: Any,
    axes: Any,
    rank: Any,
) -> tuple[Any, ...]:
    """Slice-8 / ONNX Slice: per listed axis, in the normal form (clamping: OpenVINO's).

    With a ``rank``, each listed axis must be in ``[-rank, rank)``, and one from the back is
    the axis ``rank + axis`` (both operators' rule).
    """
    b = as_int_vector(op, names[0], start)
    e = as_int_vector(op, names[1], stop)
    s = (1,) * len(b) if step is None else as_int_vector(op, names[2], step)
    a = tuple(range(len(b))) if axes is None else as_int_vector(op, names[3], axes)
    others = ((names[1], stop, e), (names[2], step, s), (names[3], axes, a))
    check_lengths(op, names[0], len(b), others, "; they need the same number of values")
    check_each(op, names[2], s, lambda x: x != 0, "is zero; a step must be non-zero")
    if rank is not None:
        r = as_int(op, "rank", rank)
        if not 0 <= r <= MAX_LENGTH:
            raise ValidationError(op, "rank", rank, f"must be in [0, {MAX_LENGTH}] (MAX_LENGTH)")
        if axes is not None:
            a = tuple(normalize_axis(op, f"{names[3]}[{i}]", v, v, r) for i, v in enumerate(a))
    if len(set(a)) != len(a):
        first = next(v for v in a if a.count(v) > 1)
        raise ValidationError(op, names[3], axes, f"lists axis {first} twice")
    far = next((v for v in a if not -MAX_LENGTH <= v < MAX_LENGTH), None)
    if far is not None:  # else a whole axis for each one up to it: unbounded memory
        rule = f"holds {far}, out of range for every rank (at most 2**20, MAX_LENGTH)"
        raise ValidationError(op, names[3], axes, rule)
    cuts = {ax: Cut.make(b[i], e[i], s[i], CLAMP) for i, ax in enumerate(a)}
    front = [cuts.get(k, WHOLE) for k in range(max(a, default=-1) + 1)]
    if not any(ax < 0 for ax in a):
        return tuple(front)
    back = [cuts.get(k, WHOLE) for k in range(min(a), 0)]
    # Axes from both ends are the entries front, ..., back where that is exact: on a rank of
    # fewer than len(front) + len(back) axes, some axis from the back is one from the front
    # (Slice refuses the repeat, as NumPy refuses too many indices) when either end lists every
    # axis up to its last (axes=[0, -1], or [0, 1, -3]); otherwise ([2, -3] names axes 2 and 0
    # on rank 3) which axes they are depends on the rank, which was not given.
    listed_back = sum(1 for ax in a if ax < 0)
    if len(a) - listed_back < len(front) and listed_back < len(back):
        raise ValidationError(
            op,
            names[3],
            axes,
            "mixes axes counted from the front and from the back, neither listing every axis "
            "up to its last; which axes they are depends on the rank, which was not given",
            hint="pass the data's rank (or shape), or normalise the axes for it first",
        )
    return (*front, Ellipsis, *back)


# TensorFlow (2.21, eager and graph) gives tf.strided_slice one index type: begin's, converted
# alone (a list: int32 where every value fits, else int64; a NumPy array: its dtype, int16,
# int32 or int64), and converts end and strides to it, wrapping silently: [0], [2**32 + 3]
# reads the end 3. from_tf refuses a value TensorFlow would read wrapped; to_tf writes int64
# arrays where a value does not fit in int32.
_TF_INDEX_BITS: Final = {"int16": 16, "int32": 32, "int64": 64}
# The most positions (values of begin) TensorFlow slices with: it refuses 32 and more
# ("Expected begin, end, and strides to be 1D equal size tensors").
_TF_POSITIONS: Final = 31


def _fits(v: int, bits: int) -> bool:
    return -(1 << bits - 1) <= v < 1 << bits - 1


def _tf_index_bits(op: str, begin: Any, b: tuple[int, ...]) -> int:
    """The bits of the index type TensorFlow reads ``begin``, ``end`` and ``strides`` in."""
    if not hasattr(begin, "dtype"):  # a list or tuple, of ints or NumPy integers alike
        return 32 if all(_fits(v, 32) for v in b) else 64
    bits = _TF_INDEX_BITS.get(str(begin.dtype))
    if bits is None:
        rule = "tf.strided_slice's indices are int16, int32 or int64"
        raise DTypeError(op, "begin", begin, f"has element type {begin.dtype}; {rule}")
    return bits


def _tf_unwrapped(op: str, name: str, v: int, bits: int) -> None:
    if not _fits(v, bits):
        wrapped = (v + (1 << bits - 1)) % (1 << bits) - (1 << bits - 1)
        raise ValidationError(
            op,
            name,
            v,
            f"does not fit in int{bits}, begin's type, which TensorFlow converts {name[:-3]} "
            f"to: it would read {wrapped}",
            hint="pass begin, end and strides as int64 NumPy arrays, np.int64([...])",
        )


def _tf_mask(op: str, name: str, value: Any) -> int:
    try:  # a NumPy array of one element has __index__, and refuses it
        v = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        v = None
    if v is None:
        raise DTypeError(op, name, value, f"must be an int bit field, not {a_kind(value)}")
    if not _fits(v, 32):  # TensorFlow's mask attributes are int32: -1 sets every bit
        raise ValidationError(op, name, value, "must be an int32 bit field, in [-2**31, 2**31)")
    return v & 0xFFFFFFFF


# -- the slicing -----------------------------------------------------------------------------------
# The slice algebra (src/datamove/_canonical.py) registers its functions here by name: it imports
# this module, so this one cannot import it (tests/test_architecture.py forbids import cycles).
ALGEBRA: dict[str, Callable[..., Any]] = {}


# A normal form's bounds stand for the sizes below INT64_MAX, those an unbounded axis holds
# (``x[-(2**63 - 2):]`` is ``x[:]``, which takes one element more on INT64_MAX elements), and
# OpenVINO reads a size of INT64_MAX as unbounded (docs/semantics.md, divergence 20).
BELOW_INT64_MAX: Final = "a Slicing's normal form holds for sizes below INT64_MAX"
AT_INT64_MAX: Final = (
    "dm.strided_slice and dm.slice keep the numbers and run on an axis of INT64_MAX elements"
)


def shape_dims(shape: ShapeLike | None, op: str) -> PartialShape:
    """``shape`` read as a shape (any shape where None), refused where it allows ``INT64_MAX``.

    Every entry of the slice algebra that takes a shape or an array reads it here.
    """
    if shape is None:
        return PartialShape(None)
    ps = as_partial_shape(shape, op, "shape")
    if ps.rank is not None:
        axis = next((k for k, d in enumerate(ps.dims) if d.max == INT64_MAX), None)
        if axis is not None:
            rule = f"allows size {INT64_MAX} on axis {axis}, but {BELOW_INT64_MAX}"
            raise ValidationError(op, "shape", shape, rule, hint=AT_INT64_MAX)
    return ps


class Slicing:
    """A basic slicing of an array, in one normal form, translated exactly between dialects.

    Build one with ``from_numpy``, ``from_strided_slice``, ``from_slice``, ``from_onnx``,
    ``from_tf``, ``from_dml`` or ``from_webnn``; apply it with ``s(x)``; infer with
    ``s.infer(shape)``; write it in another dialect with ``to_numpy``, ``to_strided_slice``,
    ``to_slice``, ``to_onnx``, ``to_tf``, ``to_torch``, ``to_dml(shape)`` or
    ``to_webnn(shape)`` (DirectML and WebNN: static shapes only).
    ``==`` compares the normal forms; :meth:`equivalent` decides whether two slicings select
    the same elements.

    Examples
    --------
    >>> import numpy as np, datamove as dm
    >>> s = dm.Slicing.from_numpy("x[1:, ..., None, ::-2]")
    >>> s(np.arange(24).reshape(2, 3, 4)).shape
    (1, 3, 1, 2)
    >>> s.to_strided_slice()["ellipsis_mask"]
    [0, 1, 0, 0]
    >>> dm.Slicing.from_onnx([-1], [-2**63], [0], [-1]).to_numpy()
    'x[::-1]'
    """

    __slots__ = ("_hash", "entries")

    entries: tuple[Any, ...]
    _hash: int

    def __init__(self, entries: Iterable[Any]) -> None:
        # Each cut in Cut.make's normal form, so that == and repr see one spelling per meaning
        # (compose and canonical build cuts of their own).
        object.__setattr__(
            self, "entries", tuple(x.normal() if type(x) is Cut else x for x in entries)
        )

    @classmethod
    def _made(cls, entries: Iterable[Any]) -> Slicing:
        """The slicing of entries whose cuts all come from ``Cut.make``, as the readers' do.

        They are normal already, so not checked again (2.2 us of a first ``from_numpy`` of four
        cuts).
        """
        s = object.__new__(cls)
        object.__setattr__(s, "entries", tuple(entries))
        return s

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Slicing is immutable")

    @property
    def to_openvino(self) -> NoReturn:
        """Not an emitter: OpenVINO slices with two operators, each its own (an AttributeError)."""
        raise AttributeError(
            "'Slicing' object has no attribute 'to_openvino': OpenVINO slices with "
            "StridedSlice-1 (to_strided_slice) or Slice-8 (to_slice)"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Slicing) and self.entries == other.entries

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:  # first asked: kept, as the memos ask on every call
            h = hash(self.entries)
            object.__setattr__(self, "_hash", h)
            return h

    def __repr__(self) -> str:
        """``Slicing.from_numpy(...)``, with the clamping its cuts are read under where needed.

        NumPy's text alone where every cut reads alike under NumPy's clamping; else
        ``clamping='openvino'`` (every cut OpenVINO's), or one clamping per cut where they mix.
        """
        text = repr(entries_text(self.entries))
        rules = [x.rule for x in self.entries if isinstance(x, Cut)]
        if CLAMP not in rules:
            return f"Slicing.from_numpy({text})"
        if NUMPY not in rules:
            return f"Slicing.from_numpy({text}, clamping='openvino')"
        each = [_CLAMPING_NAMES[r] for r in rules]
        return f"Slicing.from_numpy({text}, clamping={each!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy by the entries alone (the kept hash is this process's own)."""
        return (type(self), (self.entries,))

    # -- parsers ---------------------------------------------------------------------------
    @classmethod
    @_memo.parser
    def from_numpy(cls, index: Any, *, clamping: Any = "numpy") -> Slicing:
        """Read NumPy basic indexing.

        ``index`` is a string such as ``"x[1:, ..., None, ::-2]"`` (parsed, never evaluated)
        or an index such as ``np.s_[1:, ..., None, ::-2]`` (ints, slices, None and
        Ellipsis only).

        ``clamping`` is the rule its slices are read under: ``"numpy"`` (Python's), or
        ``"openvino"`` (StridedSlice-1's, Slice-8's and the ONNX spec's, which differ with a
        negative step from a start before the first element: NumPy's selects nothing, OpenVINO's
        starts at index 0); or a list of them, one per slice in ``index``. ``repr`` writes it
        where a slicing needs it.

        Examples
        --------
        >>> import numpy as np, datamove as dm
        >>> s = dm.Slicing.from_onnx([-5], [-3], steps=[-1])
        >>> s
        Slicing.from_numpy('x[-5:-3:-1]', clamping='openvino')
        >>> s(np.arange(2)).tolist(), dm.Slicing.from_numpy("x[-5:-3:-1]")(np.arange(2)).tolist()
        ([0], [])
        """
        op = "Slicing.from_numpy"
        if isinstance(index, str):
            entries = _parse(op, index)
        else:
            entries = _from_items(op, index if isinstance(index, tuple) else (index,))
        if type(clamping) is not str or clamping != "numpy":
            entries = _clamped(op, entries, clamping)
        return cls._made(entries)

    @classmethod
    @_memo.parser
    def from_strided_slice(
        cls,
        begin: Any,
        end: Any,
        stride: Any = None,
        *,
        begin_mask: Any = (),
        end_mask: Any = (),
        new_axis_mask: Any = (),
        shrink_axis_mask: Any = (),
        ellipsis_mask: Any = (),
    ) -> Slicing:
        """OpenVINO StridedSlice-1 parameters, as ``dm.strided_slice`` takes them."""
        p = checked_params(
            begin, end, stride, begin_mask, end_mask, new_axis_mask, shrink_axis_mask, ellipsis_mask
        )
        for name, v in (("begin", p.begin), ("end", p.end), ("stride", p.stride)):
            if not isinstance(v, tuple):
                raise ValidationError(
                    "StridedSlice", name, v, "must be a concrete value to translate"
                )
        assert isinstance(p.begin, tuple)
        assert isinstance(p.end, tuple)
        assert isinstance(p.stride, tuple)
        assert p.addressed is not None
        entries: list[Any] = []
        for i in range(p.addressed):
            if p.ellipsis_mask[i]:
                entries.append(Ellipsis)
            elif p.new_axis_mask[i]:
                entries.append(None)
            elif p.shrink_axis_mask[i]:
                entries.append(p.begin[i])
            elif p.stride[i] == 0:
                raise ValidationError(
                    "StridedSlice",
                    f"stride[{i}]",
                    0,
                    "is zero on a sliced axis; stride must be non-zero",
                )
            else:
                entries.append(
                    Cut.make(
                        None if p.begin_mask[i] else p.begin[i],
                        None if p.end_mask[i] else p.end[i],
                        p.stride[i],
                        CLAMP,
                    )
                )
        return cls._made(entries)

    @classmethod
    @_memo.parser
    def from_slice(
        cls, start: Any, stop: Any, step: Any, axes: Any = None, *, rank: Any = None
    ) -> Slicing:
        """OpenVINO Slice-8 parameters, as ``dm.slice`` takes them.

        An axis from the back (``axes=[-1]``) is the axis ``rank + axis`` of the data. Without
        ``rank`` (the data's, where known) axes from both ends are read where one end lists
        every axis up to its last (``[0, -1]``: ``x[a, ..., b]``); otherwise (``[-2, 1]``) which
        axes they are depends on the rank, and a ``ValidationError`` asks for it. With ``rank``,
        each axis must be in ``[-rank, rank)`` (an ``AxisError`` otherwise).

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Slicing.from_slice([0, 0], [1, 2], [1, 1], axes=[-2, 1], rank=2).to_numpy()
        'x[:1, :2]'
        >>> dm.Slicing.from_slice([1, 0], [2, 3], [1, 1], axes=[0, -1]).to_numpy()
        'x[1:2, ..., :3]'
        """
        names = ("start", "stop", "step", "axes")
        return cls._made(_slice_entries("Slice", names, start, stop, step, axes, rank))

    @classmethod
    @_memo.parser
    def from_onnx(
        cls, starts: Any, ends: Any, axes: Any = None, steps: Any = None, *, rank: Any = None
    ) -> Slicing:
        """ONNX Slice-10/11/13 inputs (the spec's clamping, OpenVINO's; onnxruntime's).

        ``axes`` and ``rank`` as in `from_slice`: the spec counts a negative axis from the
        back, ``rank + axis``, and accepts ``[-rank, rank)``.
        """
        names = ("starts", "ends", "steps", "axes")
        return cls._made(_slice_entries("ONNX Slice", names, starts, ends, steps, axes, rank))

    @classmethod
    @_memo.parser
    def from_tf(
        cls,
        begin: Any,
        end: Any,
        strides: Any = None,
        *,
        begin_mask: Any = 0,
        end_mask: Any = 0,
        ellipsis_mask: Any = 0,
        new_axis_mask: Any = 0,
        shrink_axis_mask: Any = 0,
    ) -> Slicing:
        """``tf.strided_slice`` arguments: masks are int bit fields, clamping is NumPy's.

        TensorFlow reads ``end`` and ``strides`` in ``begin``'s integer type (a list's: int32
        where every value fits), wrapping silently; a value it would read wrapped is refused,
        and so is what TensorFlow refuses: an empty ``begin`` list (float32 to it), more than
        31 positions, a mask outside int32 (a negative one sets bits by two's complement).
        """
        op = "tf.strided_slice"
        b = as_int_vector(op, "begin", begin)
        if not b and not hasattr(begin, "dtype"):
            raise DTypeError(
                op,
                "begin",
                begin,
                "is an empty list, which TensorFlow reads as float32; its index types are "
                "int16, int32 and int64",
                hint="pass np.int64([]) for no positions",
            )
        if len(b) > _TF_POSITIONS:
            raise ValidationError(
                op,
                "begin",
                begin,
                f"has {len(b)} values; TensorFlow takes at most {_TF_POSITIONS} (its masks are "
                "32-bit)",
            )
        e = as_int_vector(op, "end", end)
        s = (1,) * len(b) if strides is None else as_int_vector(op, "strides", strides)
        bits = _tf_index_bits(op, begin, b)
        check_lengths(op, "begin", len(b), (("end", end, e), ("strides", strides, s)))
        given = (begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask)
        bm, em, el, nm, sm = (_tf_mask(op, n, v) for n, v in zip(_TF_MASKS, given, strict=True))
        if el & (el - 1):
            raise ValidationError(
                op,
                "ellipsis_mask",
                ellipsis_mask,
                "sets more than one bit; multiple ellipses in slice spec not allowed",
            )
        for i in range(len(b)):  # the values TensorFlow reads, in begin's type
            if not (el | nm) & 1 << i:
                if strides is not None:
                    _tf_unwrapped(op, f"strides[{i}]", s[i], bits)
                if not (em | sm) & 1 << i:
                    _tf_unwrapped(op, f"end[{i}]", e[i], bits)
        entries: list[Any] = []
        for i in range(len(b)):
            bit = 1 << i
            if el & bit:
                entries.append(Ellipsis)
            elif nm & bit:
                entries.append(None)
            elif s[i] == 0:
                raise ValidationError(op, f"strides[{i}]", 0, "is zero; a stride must be non-zero")
            elif sm & bit:
                if s[i] < 0:
                    raise ValidationError(
                        op,
                        f"strides[{i}]",
                        s[i],
                        "is negative on an axis shrunk by shrink_axis_mask; only stride 1 "
                        "allowed on non-range indexing",
                    )
                entries.append(b[i])
            else:
                entries.append(
                    Cut.make(None if bm & bit else b[i], None if em & bit else e[i], s[i], NUMPY)
                )
        return cls._made(entries)

    @classmethod
    @_memo.parser
    def from_dml(
        cls,
        InputWindowOffsets: Any,  # noqa: N803 - DirectML's field names
        InputWindowSizes: Any,  # noqa: N803
        InputWindowStrides: Any = None,  # noqa: N803
        *,
        output_sizes: Any = None,
    ) -> Slicing:
        """DirectML ``DML_SLICE1_OPERATOR_DESC``: one window per input axis.

        Offsets and sizes are unsigned, sizes at least 1, strides signed and non-zero (a negative
        one copies from the window's end, ``offset + size - 1``). Each axis gives
        ``output_sizes[i]`` elements, by default all the window reaches,
        ``1 + (size - 1) // |stride|``. The slicing selects what DirectML selects on every shape
        DirectML accepts (the window inside the axis, the rank the number of windows).

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Slicing.from_dml([1, 0], [3, 4], [1, -2]).to_numpy()
        'x[1:4, 3:0:-2]'
        """
        bounds = read_dml_window(
            InputWindowOffsets, InputWindowSizes, InputWindowStrides, output_sizes
        )
        return cls._made(Cut.make(*b, SAME) for b in bounds)

    @classmethod
    @_memo.parser
    def from_webnn(cls, starts: Any, sizes: Any, strides: Any = None) -> Slicing:
        """WebNN ``slice(input, starts, sizes, {strides})``: one window per input axis.

        Starts and sizes are unsigned, sizes at least 1, strides at least 1 (a reversal is a
        separate ``reverse``); an axis gives ``ceil(size / stride)`` elements.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Slicing.from_webnn([1, 0], [3, 4], [1, 2]).to_numpy()
        'x[1:4, :3:2]'
        """
        return cls._made(Cut.make(*b, SAME) for b in read_webnn_window(starts, sizes, strides))

    # -- the layout on a given rank --------------------------------------------------------
    def _cuts(
        self, shape: ShapeLike | None, dialect: str, rule: str
    ) -> tuple[PartialShape, list[Any]]:
        """The entries, each cut rewritten to be exact under ``rule`` on every allowed size."""
        ps = shape_dims(shape, dialect)
        axes = self._indices_fit(ps, dialect, shape)  # first: a cut's NotExpressible would hide it
        out: list[Any] = []
        for x, axis in zip(self.entries, axes, strict=True):
            if not isinstance(x, Cut):
                out.append(x)
                continue
            assert axis is not None
            try:
                y = self._cut_for(x, ps, axis, dialect, rule, shape)
                dim = dim_at(ps, axis)
                if dialect in _OPENVINO and not dim.is_static:
                    if _empty_on(y, dim):
                        # 0:0:1, as on a static size: the CPU plugin refuses an empty Slice of
                        # bounds from 2**31 beside an Unsqueeze or Squeeze (divergence 24)
                        out.append(Cut(0, 0, 1, SAME))
                        continue
                    if y.step <= _OV_MIN_STEP:
                        y = self._openvino_step(y, ps, axis, dialect, shape)
                    y = self._openvino_declares(y, ps, axis, dialect, shape)
                out.append(y)
            except NotExpressible:
                self.infer(ps)  # a slicing that runs on no allowed shape: that error instead
                raise
        return ps, out

    def _indices_fit(self, ps: PartialShape, dialect: str, shape: Any) -> list[int | None]:
        """The axes of the entries on ``ps`` (`axes_of`), each index checked against its size.

        An index is refused where no allowed size holds it, as NumPy refuses it (an unbounded
        size holds those below ``INT64_MAX``, `largest`); where some allowed size holds it, it
        is written, and the runtime decides.
        """
        axes = axes_of(self, ps.rank, shape)
        for x, axis in zip(self.entries, axes, strict=True):
            if type(x) is not int:
                continue
            assert axis is not None
            dim, need = dim_at(ps, axis), index_need(x)
            if need > largest(dim):
                sizes = f"has size {dim}" if dim.is_static else f"allows {sizes_text(dim)}"
                rule = (
                    f"{sizes} on axis {axis}, where index {x} of {entries_text(self.entries)} is "
                    f"out of range{'' if dim.is_static else ' on every one'}: it needs size "
                    f"{need} or more (NumPy raises IndexError)"
                )
                hint = (
                    None
                    if dim.max is not None
                    else "an unbounded dimension holds the sizes below 2**63 - 1"
                )
                raise ValidationError(dialect, "shape", shape, rule, hint=hint)
        return axes

    def _cut_for(
        self, x: Cut, ps: PartialShape, axis: int, dialect: str, rule: str, shape: Any
    ) -> Cut:
        dim = dim_at(ps, axis)
        if dim.is_static:
            a, b, c = _resolved(x.range(dim.min))
            return Cut(a, b, c, SAME)
        if x.rule in (SAME, rule):
            return x
        both = rule == BOTH
        if both:  # read under both rules: exact where the other agrees with its own
            rule = CLAMP if x.rule == NUMPY else NUMPY
        # The rules differ on the sizes [1, m], those both the start and the stop lie before.
        assert x.start is not None  # Cut.make gives a cut a rule only where it has a start
        m = -x.start - 1 if x.stop is None else min(-x.start, -x.stop) - 1
        top = largest(dim)
        bad_lo, bad_hi = max(1, dim.min), min(m, top)
        if bad_lo > bad_hi:
            return x
        if top <= m:  # every allowed size is in the corner (or 0, empty either way): one answer
            return Cut(*_resolved(x.range(max(dim.min, 1))), SAME)
        a, b, c = x.start, x.stop, x.step
        if b is not None and a <= b:
            # The start not past the stop: NumPy's reading is empty on every size (where the
            # start is inside the axis, so is the stop, not before it); OpenVINO's takes index 0
            # where the stop counts back past the axis, as a start of 0 does under both rules.
            return Cut.make(0, b, c, CLAMP) if x.rule == CLAMP else Cut.make(0, 0, 1, SAME)
        if len(x.range(top)) <= 1:
            # One element at most on every size (the count grows with the size): a step > 0
            # reads alike under both rules. NumPy's takes index d + start where it is inside
            # the axis, OpenVINO's max(d + start, 0) on every size from 1 (a step of -start
            # takes no second: it lies at d or past).
            if x.rule == NUMPY:
                return Cut.make(a, a + 1, 1, SAME)
            return Cut.make(a, None, min(-a, INT64_MAX), SAME)
        # Else a size in the corner, size -start and one past it (where two are taken) all
        # select: no parameters under the other rule give their first indices.
        w = bad_lo
        mine, theirs = len(x.range(w)), len(x.range(w, rule))
        names = {NUMPY: "NumPy's", CLAMP: "OpenVINO's"}
        why = (
            f"allows sizes {bad_lo}..{bad_hi} of axis {axis}, where {x.text()} selects {mine} "
            f"element(s) by {names[x.rule]} clamping and {theirs} by "
            + (
                f"{names[rule]} (onnxruntime and the ONNX spec clamp as OpenVINO, "
                "onnx.reference as NumPy)"
                if both
                else f"{dialect}'s"
            )
            + f"; no {dialect} parameters say it for every allowed size"
        )
        raise self._unsayable(dialect, shape, ps, axis, w, why)

    def _unsayable(
        self, dialect: str, shape: Any, ps: PartialShape, axis: int, size: int, rule: str
    ) -> NotExpressible:
        """``dialect`` cannot say a cut of ``axis`` on every allowed size: ``size`` shows it."""
        hint = pass_the_shape(shape, f"a static size of axis {axis}")
        witness = witness_of(self, ps, {axis: size})
        return NotExpressible(dialect, "shape", shape, rule, hint=hint, witness=witness)

    def _openvino_step(self, x: Cut, ps: PartialShape, axis: int, dialect: str, shape: Any) -> Cut:
        """``x`` (a step at or below ``INT32_MIN``) with a step OpenVINO's CPU plugin runs.

        Where ``x`` takes one element at most on every allowed size, the same bounds with a
        step of the longest distance from the clamped start to the clamped stop take the same
        (that distance is piecewise affine in the size, its breakpoints at the bounds: its
        largest is at one of them or at an end of the allowed sizes). Where that distance
        passes ``INT32_MAX``, the start and a stop one past it with a step of -1
        (``x[a:a-1:-1]``) where that selects alike on every allowed size. Else
        :class:`~datamove.NotExpressible`, its witness the smallest size on which ``x`` takes
        two elements (no step above ``INT32_MIN`` takes both), or one on which the step -1
        form selects otherwise.
        """
        dim = dim_at(ps, axis)
        lo, top = dim.min, largest(dim)
        bounds = [abs(v) for v in (x.start, x.stop) if v is not None]
        points = {lo, top} | {v + k for v in bounds for k in (-1, 0, 1, 2)}
        far, at = max((_distance(x, d), d) for d in points if lo <= d <= top)
        pair = _first_pair((x,), edges(lo, top, breakpoints((x.start, x.stop))), top)
        if pair is None and far <= -_OV_MIN_STEP - 1:
            return Cut(x.start, x.stop, -max(1, far), x.rule)
        reason = f"takes two elements at size {pair}, where no step above it takes both"
        if pair is None:
            a = x.start
            stop = -2 if a is None else None if a == 0 else a - 1
            y = Cut.make(a, stop, -1, CLAMP)
            w = decide(same_cut(x, y), dim, (a, x.stop, stop), abs(x.step), (x, y))
            if w is None:
                return y
            pair = w
            reason = (
                f"selects one element at most, but {far} from its stop at size {at} (a step "
                f"above it would take two there), and {y.text()} selects otherwise at size {w}"
            )
        why = (
            f"allows {sizes_text(dim)} on axis {axis}, where {x.text()} {reason}; OpenVINO's CPU "
            f"plugin kills the process on a step at or below {_OV_MIN_STEP} (docs/semantics.md, "
            "S-3)"
        )
        raise self._unsayable(dialect, shape, ps, axis, pair, why)

    def _openvino_declares(
        self, x: Cut, ps: PartialShape, axis: int, dialect: str, shape: Any
    ) -> Cut:
        """``x``, or a cut that selects alike, whose length OpenVINO's shape inference holds.

        OpenVINO declares the lengths at the interval's two ends (`openvino_declared`; an
        empty interval where the first is the longer), and its CPU plugin refuses a size whose
        length lies outside, or runs it wrong (docs/semantics.md, S-6 and IR-6). Every cut
        that selects alike has the same length at the smallest size and at a bounded largest
        one. At an unbounded end OpenVINO computes from the bounds, too short only for a
        negative step whose start and stop both count from the end, the start not past the
        stop (``x[-2:-2:-1]``: ``[0]`` on ``[?]``, one element at size 1): that cut selects
        what a start of 0 selects on every size, which OpenVINO declares unbounded. Else
        :class:`~datamove.NotExpressible`, its witness the smallest size whose length lies
        outside what OpenVINO declares.
        """
        dim = dim_at(ps, axis)
        refused = openvino_refused(x, dim, dialect)
        if refused is None:
            return x
        a, b, c = x.start, x.stop, x.step
        if c < 0 and a is not None and b is not None and a <= b < 0:
            # Where the start counts back past the axis it is index 0, as a start of 0 is;
            # elsewhere the cut is empty, and so is the other, whose stop is then past 0.
            y = Cut.make(0, b, c, CLAMP)
            if openvino_refused(y, dim, dialect) is None:
                return y
        declared, w = refused
        said = "an empty interval" if declared is None else f"[{Dimension(*declared)}]"
        why = (
            f"allows {sizes_text(dim)} on axis {axis}, where OpenVINO's shape inference declares "
            f"{said} for {x.text()} (from the lengths at the interval's ends), but size {w} "
            f"gives {len(x.range(w, CLAMP))} element(s), which its CPU plugin refuses or runs "
            "wrong (docs/semantics.md, S-6 and IR-6); every cut that selects alike is declared "
            "so"
        )
        raise self._unsayable(dialect, shape, ps, axis, w, why)

    # -- execution and inference -----------------------------------------------------------
    def __call__(self, x: Any) -> Any:
        """Apply the slicing to an array (through ``dm.strided_slice``).

        An axis of ``INT64_MAX`` elements is a ``ValidationError``: the normal form holds for
        the sizes below it (``dm.strided_slice`` itself runs there).
        """
        _, _, shape = _backends.prepare("Slicing", x)
        try:
            params = self.to_strided_slice(shape)
        except ValidationError as exc:  # the rank of x, not a shape the caller gave
            if exc.argument != "shape" or exc.value is not shape:
                raise
            raise ValidationError(
                "Slicing", "data.shape", list(shape), exc.rule, hint=exc.hint
            ) from None
        return strided_slice(x, **params)

    def infer(self, shape: ShapeLike) -> PartialShape:
        """The output shape on a static or interval shape (through ``dm.infer_strided_slice``).

        A shape that allows a size of ``INT64_MAX`` is a ``ValidationError``, as in ``s(x)``.

        Examples
        --------
        >>> import datamove as dm
        >>> print(dm.Slicing.from_numpy("x[-3::-1]").infer("[1..5]"))
        [..3]
        >>> print(dm.Slicing.from_strided_slice([-3], [0], [-1], end_mask=[1]).infer("[1..5]"))
        [1..3]
        """
        ps = shape_dims(shape, "Slicing")
        self._indices_fit(ps, "Slicing", shape)  # as the emitters check (not StridedSlice's begin)
        params = self._strided_slice(self.entries)
        out = infer_strided_slice(ps, **params)
        if ps.rank is None or out.rank is None:
            return out
        dims = list(out.dims)
        axes = axes_of(self, ps.rank)
        k = 0
        for x, axis in zip(self.entries, axes, strict=True):
            if x is Ellipsis:
                k += ps.rank - addressed(self.entries)
            elif type(x) is not int:  # an output axis
                if isinstance(x, Cut) and x.rule == NUMPY:
                    assert axis is not None
                    dims[k] = self._numpy_length(x, ps.dims[axis])
                k += 1
        return PartialShape._of(tuple(dims))

    @staticmethod
    def _numpy_length(x: Cut, dim: Dimension) -> Dimension:
        """NumPy's lengths: OpenVINO's on sizes ``>= -start``, none on the smaller ones.

        A start of ``INT64_MIN`` lies before every size: no size reaches its edge, 2**63; nor
        does an unbounded size reach ``INT64_MAX``, ``INT64_MIN + 1``'s edge.
        """
        assert x.start is not None
        edge = -x.start
        hull: Dimension | None = None
        if dim.min < edge:
            hull = Dimension(0)
        if edge <= (INT64_MAX - 1 if dim.max is None else dim.max):
            rest = range_length(
                Dimension(max(dim.min, edge), dim.max),
                x.start,
                x.stop,
                x.step,
                0,
                int(x.stop is None),
            )
            hull = rest if hull is None else hull.union(rest)
        assert hull is not None
        return hull

    # -- emitters --------------------------------------------------------------------------
    @_memo.emitter
    def to_numpy(self, shape: ShapeLike | None = None) -> str:
        """NumPy's indexing expression, exact on every shape ``shape`` allows."""
        _, entries = self._cuts(shape, "NumPy", NUMPY)
        return entries_text(entries)

    @staticmethod
    def _strided_slice(entries: Iterable[Any]) -> dict[str, Any]:
        rows: list[tuple[int, ...]] = []
        for x in entries:
            if x is Ellipsis:
                rows.append((0, 0, 1, 0, 0, 0, 0, 1))
            elif x is None:
                rows.append((0, 0, 1, 0, 0, 1, 0, 0))
            elif type(x) is int:  # -1 + 1 is the end 0: with end_mask, "to the end"
                rows.append((x, min(x + 1, INT64_MAX), 1, 0, int(x == -1), 0, 1, 0))
            else:
                a, b = x.start, x.stop
                rows.append((a or 0, b or 0, x.step, int(a is None), int(b is None), 0, 0, 0))
        return {k: [r[j] for r in rows] for j, k in enumerate(_STRIDED_SLICE_KEYS)}

    @_memo.emitter
    def to_strided_slice(self, shape: ShapeLike | None = None) -> dict[str, Any]:
        """Write ``dm.strided_slice`` / OpenVINO StridedSlice-1 keyword arguments.

        Begin, end, stride and the five masks. A slicing with both a new axis and an integer
        index (a shrink) and no ellipsis gets one at the end, which keeps the axes it does not
        address whole, as they are kept anyway: OpenVINO's CPU plugin runs such a StridedSlice
        wrong, reading past its input, unless those axes are addressed (``docs/semantics.md``,
        divergence 23). No stride at or below ``INT32_MIN`` is written on an axis of dynamic
        size, and no cut whose length OpenVINO's shape inference declares wrong there, as
        :meth:`to_slice` writes none; a cut empty on every allowed size is ``0:0:1``, as there.
        """
        _, entries = self._cuts(shape, "StridedSlice", CLAMP)  # a new list, ours to extend
        if (
            Ellipsis not in entries
            and any(x is None for x in entries)
            and any(type(x) is int for x in entries)
        ):
            entries.append(Ellipsis)
        return self._strided_slice(entries)

    def to_tf(self, shape: ShapeLike | None = None) -> dict[str, Any]:
        """Write ``tf.strided_slice`` keyword arguments: the masks as int bit fields.

        ``begin``, ``end``, ``strides`` and the five masks; ``begin``, ``end`` and ``strides``
        are lists where every value fits in int32, else int64 NumPy arrays, as they are where
        there are none (TensorFlow reads a list of small ints as int32, an empty list as
        float32, which it refuses, and ``end`` and ``strides`` in ``begin``'s type, wrapping:
        ``tf.strided_slice(x, **p)`` runs right either way). TensorFlow slices with at most 31
        positions (its masks are 32-bit); more raise :class:`~datamove.NotExpressible`.
        TensorFlow clamps as NumPy does, so a cut written under OpenVINO's clamping is kept
        only where the two agree on every size ``shape`` allows (else
        :class:`~datamove.NotExpressible` with a witness). An index is
        ``begin`` with its ``shrink_axis_mask`` bit (``end`` is ``begin + 1``, stride 1, as
        TensorFlow's own ``x[i]`` writes it).

        Examples
        --------
        >>> import datamove as dm
        >>> p = dm.Slicing.from_numpy("x[1:, ..., None, ::-2]").to_tf()
        >>> p["begin"], p["end"], p["strides"]
        ([1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, -2])
        >>> p["begin_mask"], p["end_mask"], p["ellipsis_mask"], p["new_axis_mask"]
        (8, 9, 2, 4)
        """
        p = self._tf_lists(shape)
        # an empty list is float32 to TensorFlow, which it refuses
        if not p["begin"] or not all(
            _fits(v, 32) for k in ("begin", "end", "strides") for v in p[k]
        ):
            p.update((k, np.array(p[k], np.int64)) for k in ("begin", "end", "strides"))
        return p

    @_memo.emitter
    def _tf_lists(self, shape: ShapeLike | None = None) -> dict[str, Any]:
        dialect = "tf.strided_slice"
        _, entries = self._cuts(shape, dialect, NUMPY)
        p = self._strided_slice(entries)
        p["end_mask"] = [  # an index: no end bit, end = begin + 1 as TensorFlow's own x[i]
            0 if type(x) is int else v for x, v in zip(entries, p["end_mask"], strict=True)
        ]
        if len(entries) > _TF_POSITIONS:
            raise NotExpressible(
                dialect,
                "begin",
                entries_text(self.entries),
                f"needs {len(entries)} positions, but TensorFlow takes at most {_TF_POSITIONS} "
                "(its masks are 32-bit)",
                hint="index fewer positions, or slice in two steps",
            )
        tf = {"begin": p["begin"], "end": p["end"], "strides": p["stride"]}
        tf.update((name, sum(v << i for i, v in enumerate(p[name]))) for name in _TF_MASKS)
        return tf

    @_memo.emitter
    def to_torch(self, shape: ShapeLike | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Write PyTorch calls, applied in order to ``x``; PyTorch has no negative steps.

        ``("narrow", {dim, start, length})``: ``x.narrow(dim, start, length)``;
        ``("getitem", {dim, start, stop, step})``: ``x[start:stop:step]`` on axis ``dim``
        (``step > 0``; a negative ``dim`` counts from the back), ``("flip", {dims})``,
        ``("select", {dim, index})``, ``("unsqueeze", {dim})``. On a static axis the numbers
        are in range (``narrow`` for unit steps); a negative step is a ``flip`` (after the
        elements are picked on a static axis, before on another). Clamping is NumPy's (PyTorch's
        for positive steps). PyTorch truncates slice bounds below ``-2**62``; such a bound is
        written as "from the first" or "empty", and refused where an allowed size tells the two
        apart (a cut that selects nothing on every size is written as empty). It computes a
        slice's length and stride with the step in int64, which overflows for big steps (the
        stride whatever the length, on small tensors too): a step past ``2**31 - 1`` that takes
        one element at most on every allowed size is written as a cut of step 1, then its first
        element; one that takes two on every allowed size as it is, below ``2**62``; any other
        is refused. With no shape a whole ``getitem`` of axis ``k - 1`` comes first
        where the slicing addresses ``k`` axes and no call on the input's rank names axis
        ``k - 1`` or ``-k``: PyTorch refuses it on the ranks the slicing refuses (fewer than
        ``k`` axes), where the other calls could run (``x[1, ..., ::-2]`` on a vector).

        Examples
        --------
        >>> import datamove as dm
        >>> for op in dm.Slicing.from_numpy("x[1, ..., None, ::-2]").to_torch():
        ...     print(op)
        ('getitem', {'dim': 1, 'start': None, 'stop': None, 'step': 1})
        ('flip', {'dims': [-1]})
        ('getitem', {'dim': -1, 'start': None, 'stop': None, 'step': 2})
        ('select', {'dim': 0, 'index': 1})
        ('unsqueeze', {'dim': -2})
        >>> for op in dm.Slicing.from_numpy("x[1:, ::-2]").to_torch([4, 5]):
        ...     print(op)
        ('narrow', {'dim': 0, 'start': 1, 'length': 3})
        ('getitem', {'dim': 1, 'start': 0, 'stop': 5, 'step': 2})
        ('flip', {'dims': [1]})
        """
        dialect = "PyTorch"
        ps, entries = self._cuts(shape, dialect, NUMPY)
        axes = axes_of(self, ps.rank)
        ops: list[tuple[str, dict[str, Any]]] = []
        for x, axis in zip(entries, axes, strict=True):
            if not isinstance(x, Cut) or x == WHOLE:
                continue
            assert axis is not None
            dim = dim_at(ps, axis)
            if dim.is_static:
                r = x.range(dim.min)
                if len(r) > 1 and abs(r.step) >= -_TORCH_MIN:
                    why = (
                        f"has size {dim.min} on axis {axis}, where {r.start}::{r.step} takes two "
                        "elements; PyTorch computes a slice's length as (len + step - 1) / step "
                        f"in int64, which overflows for steps from {-_TORCH_MIN}"
                    )
                    witness = witness_of(self, ps, {axis: dim.min})
                    raise NotExpressible(dialect, "shape", shape, why, witness=witness)
                ops.extend(_torch_static(r, axis, dim.min))
                continue
            y = x
            if x.step < 0:  # flipped, index i is -1 - i; NumPy's clamping becomes step > 0's
                y = Cut(
                    None if x.start is None else -1 - x.start,
                    None if x.stop is None else -1 - x.stop,
                    -x.step,
                )
            if _never_selects(y) and min(y.start or 0, y.stop or 0) < _TORCH_MIN:
                # nothing on every size: no bound PyTorch would truncate is needed to say so
                ops.append(("getitem", {"dim": axis, "start": None, "stop": 0, "step": 1}))
                continue
            if x.step < 0:
                ops.append(("flip", {"dims": [axis]}))
            a, b = (
                self._torch_bound(v, first, dim, axis, ps, shape)
                for v, first in ((y.start, True), (y.stop, False))
            )
            step = y.step
            if step > _TORCH_BIG_STEP and self._torch_step(x, y, dim, axis, ps, shape):
                step = 1  # one element at most: x[a:b][:1]
            if Cut(a, b, step) != WHOLE:
                ops.append(("getitem", {"dim": axis, "start": a, "stop": b, "step": step}))
            if step != y.step:
                ops.append(("getitem", {"dim": axis, "start": None, "stop": 1, "step": 1}))
        shrunk = [a for x, a in zip(entries, axes, strict=True) if type(x) is int]
        front = sorted((a for a in shrunk if a is not None and a >= 0), reverse=True)
        back = sorted(a for a in shrunk if a is not None and a < 0)
        ops.extend(("select", {"dim": a, "index": entries[axes.index(a)]}) for a in front + back)
        need = addressed(self.entries)
        if ps.rank is None and need and not _torch_needs(ops, need):
            # PyTorch runs calls from both ends on a rank they meet on (x[2:, ..., 1:] on a
            # vector), and none on a scalar for x[:]: a whole axis need - 1 refuses the ranks
            # the slicing refuses, those of fewer axes than it addresses.
            ops.insert(0, ("getitem", {"dim": need - 1, "start": None, "stop": None, "step": 1}))
        cut = self.entries.index(Ellipsis) if Ellipsis in self.entries else len(self.entries)
        kept = [x is not Ellipsis and type(x) is not int for x in self.entries]
        # New axes: those before the ellipsis from the front, those after it from the back.
        ops.extend(
            ("unsqueeze", {"dim": sum(kept[:k])}) for k in range(cut) if self.entries[k] is None
        )
        ops.extend(
            ("unsqueeze", {"dim": -sum(kept[k:])})
            for k in range(len(self.entries) - 1, cut, -1)
            if self.entries[k] is None
        )
        return ops

    def _torch_bound(
        self, v: int | None, first: bool, dim: Dimension, axis: int, ps: PartialShape, shape: Any
    ) -> int | None:
        """A bound PyTorch takes as given (it truncates those below ``-2**62``)."""
        if v is None or v >= _TORCH_MIN:
            return v
        if largest(dim) <= -v:  # before the first element on every allowed size
            return None if first else 0
        why = (
            f"allows sizes past {-v} on axis {axis}, where the bound {v} is inside the axis; "
            f"PyTorch truncates slice bounds below {_TORCH_MIN}"
        )
        raise self._unsayable("PyTorch", shape, ps, axis, max(-v + 1, dim.min), why)

    def _torch_step(
        self, x: Cut, y: Cut, dim: Dimension, axis: int, ps: PartialShape, shape: Any
    ) -> bool:
        """Whether the cut ``x`` (a big step) takes one element at most on every allowed size.

        ``y`` is ``x`` as written: flipped where its step is negative, with Python's clamping.
        PyTorch multiplies the axis's stride by the step in int64 whatever the length it
        takes, and raises where that passes ``INT64_MAX`` (``torch.zeros(2, 2**23 + 1)[::2**40]``);
        it computes the length as ``(len + step - 1) / step``, also in int64, which overflows
        wherever a step from ``2**62`` takes two elements. So the cut is written without its
        step where it takes one element at most on every allowed size (``True``), with it
        where it takes two on every one and the step is below ``2**62`` (``False``: a stride
        that overflows would not fit in memory there), and refused otherwise: no call says it
        on both. ``y`` spans ``stop - start`` indices, piecewise affine in the size with
        breakpoints at its bounds: its longest and shortest spans are at one of them or at an
        end of the allowed sizes.
        """
        top = largest(dim)
        bends = {abs(v) for v in (y.start, y.stop) if v is not None}
        points = sorted({dim.min, top} | {p for p in bends if dim.min < p < top})
        spans = [len(range(*slice(y.start, y.stop).indices(d))) for d in points]
        if max(spans) <= y.step:
            return True
        if min(spans) > y.step and y.step < -_TORCH_MIN:
            return False
        # the smallest size on which it takes two: spans grow by one per size between points
        d = next(
            p if n > y.step else p + y.step + 1 - n
            for p, n, m in zip(points, spans, [*spans[1:], 0], strict=True)
            if max(n, m) > y.step
        )
        if y.step >= -_TORCH_MIN:
            why = (
                f"allows size {d} on axis {axis}, where {x.text()} takes two elements; PyTorch "
                f"computes a slice's length as (len + step - 1) / step in int64, which "
                f"overflows for steps from {-_TORCH_MIN} there"
            )
        else:
            one = points[spans.index(min(spans))]
            why = (
                f"allows size {d} on axis {axis}, where {x.text()} takes two elements, and size "
                f"{one}, where it takes one at most; PyTorch multiplies the axis's stride by the "
                f"step in int64, and raises where that passes {INT64_MAX} (a stride from "
                f"{-(-(2**63) // y.step)} there), so no step past 2**31 - 1 says both"
            )
        raise self._unsayable("PyTorch", shape, ps, axis, d, why)

    def _ops(
        self,
        shape: ShapeLike | None,
        dialect: str,
        names: tuple[str, str, str, str],
        rule: str = CLAMP,
    ) -> list[tuple[str, dict[str, Any]]]:
        ps, entries = self._cuts(shape, dialect, rule)
        axes = axes_of(self, ps.rank)
        starts: list[int] = []
        stops: list[int] = []
        steps: list[int] = []
        sliced: list[int] = []
        for x, axis in zip(entries, axes, strict=True):
            if axis is None:
                continue
            d = dim_at(ps, axis)
            if type(x) is int:
                if d.is_static and d.min == 1:
                    continue  # x[0] of a size of 1 takes all of it: the Squeeze alone
                a, b, c = x, (min(x + 1, INT64_MAX) if x != -1 else INT64_MAX), 1
                if rule == BOTH and b == _INT32_MAX:  # onnxruntime: "to the last"
                    a, b, c = x, x - 1, -1  # the same element backwards, on every size
            else:
                assert isinstance(x, Cut)
                a, b, c = _slice_numbers(x, d, "Slice")
                if takes_whole(a, b, c, 0, 0) or _whole_on(x, d):
                    continue  # all of the axis, in order, on every allowed size: no cut
                if rule == BOTH and (b == _INT32_MAX or (b == INT64_MAX and c < 0)):
                    b = self._ort_end(x, ps, axis, shape)
            starts.append(a)
            stops.append(b)
            steps.append(c)
            sliced.append(axis)
        # Positions in the tensor that has both the new axes and the shrunk ones: after the
        # ellipsis, counted from the back (from the front where the rank is known).
        n = len(self.entries)
        cut = self.entries.index(Ellipsis) if Ellipsis in self.entries else n
        shift = 0 if ps.rank is None else ps.rank + sum(1 for x in self.entries if x is None)
        new = [k if k < cut else k - n + shift for k, x in enumerate(self.entries) if x is None]
        shrunk = [
            k if k < cut else k - n + shift for k, x in enumerate(self.entries) if type(x) is int
        ]
        need = len(axes) - axes.count(None)  # the least rank the slicing runs on
        if ps.rank is None and (sliced or not (new and _unsqueeze_needs(new, need))):
            # The rank is the slicing's to require (as many axes as it addresses): list the
            # outermost axis it addresses at each end, and where it addresses both ends, every
            # axis up to the last at one of them (the end that needs fewer whole ones added), so
            # that the node reads back as the slicing (_slice_entries) and refuses exactly the
            # ranks it refuses: an axis out of range, or one from the back that is one from the
            # front. Those not sliced are written whole. Not where nothing is cut and the
            # Unsqueeze refuses every rank the slicing refuses (x[:, None]); with a shape the
            # rank is known, and an axis taken whole is left out (x[0, :, 0] on [1,3,1] is one
            # Squeeze).
            whole = _whole_axes(axes, sliced)
            if whole:
                rows = sorted(
                    [*zip(sliced, starts, stops, steps, strict=True)]
                    + [(k, 0, INT64_MAX, 1) for k in whole],
                    key=lambda row: (row[0] < 0, row[0]),  # from the front, then from the back
                )
                sliced, starts, stops, steps = ([row[j] for row in rows] for j in range(4))
        ops: list[tuple[str, dict[str, Any]]] = []
        if sliced:
            ops.append(
                ("Slice", {names[0]: starts, names[1]: stops, names[2]: steps, names[3]: sliced})
            )
        if new:
            ops.append(("Unsqueeze", {"axes": new}))
        if shrunk:
            ops.append(("Squeeze", {"axes": shrunk}))
        return ops

    def _ort_end(self, x: Cut, ps: PartialShape, axis: int, shape: Any) -> int:
        """An end for ``x`` that onnxruntime reads as the spec does, on every allowed size.

        ``x.stop`` is ``INT32_MAX`` or ``INT64_MAX``, which onnxruntime reads as "to the last" in
        the step's direction. One more or one less is read as the spec says; a cut with either
        selects what ``x`` selects but where some allowed size puts the element between the two
        ends (``t``) on its path (`_reaching`). Where both do, no end at or past ``t`` and none
        before it can say ``x`` either: on a static axis the end counted from the back does,
        else :class:`~datamove.NotExpressible` with a size where the readings differ.
        """
        e, c = x.stop, x.step
        assert e is not None
        dim = dim_at(ps, axis)
        lo, top = dim.min, largest(dim)
        for end in (e - 1, e + 1):
            t = max(end, e) if c < 0 else min(end, e)
            if end <= INT64_MAX and _reaching(x.start, c, t, lo, top) is None:
                return end
        if dim.is_static:
            return e - lo
        if c < 0:
            # onnxruntime takes the path's indices down to 0, the spec those above e: they
            # differ where the path's last index, the start modulo the step, is e or less. The
            # start grows by 0 or 1 a size: past the first size, that is first where the path
            # reaches 0 (a big step can keep it from 0 on small sizes: x[:INT32_MAX:-2**62]).
            d1 = max(lo, 1)
            w = d1 if _start_at(x.start, c, d1) % -c <= e else _reaching(x.start, c, 0, d1, top)
        else:
            w = _reaching(x.start, c, e, lo, top)
        assert w is not None  # the path reaches e (where e - 1 fails), which both differ on
        why = (
            f"allows size {w} of axis {axis}, where onnxruntime reads the end {e} of "
            f'{x.text()} as "to the {"first" if c < 0 else "last"}" and the ONNX spec and '
            "onnx.reference as the index; no other end selects alike on every allowed size"
        )
        raise self._unsayable("ONNX Slice", shape, ps, axis, w, why)

    @_memo.emitter
    def to_slice(self, shape: ShapeLike | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Write OpenVINO operations, applied in order.

        ``("Slice", {start, stop, step, axes})`` (Slice-8), ``("Unsqueeze", {axes})``,
        ``("Squeeze", {axes})``; those with nothing to do are left out (a Slice of whole axes
        alone before an Unsqueeze or Squeeze, on a known rank or where the Unsqueeze refuses the
        same ranks: ``x[:, None]``). The Slice lists only the axes it cuts: an axis it takes
        whole, in order, on every size the shape allows (a static one, ``x[:10]`` on
        ``[2..5]``, or a cut of no bounds) is left out. With no shape the
        Slice also lists, whole, the axes it needs to refuse the ranks the slicing refuses
        (fewer axes than it addresses): the outermost it addresses at each end and, where it
        addresses both, every axis up to the last at one of them; it then reads back
        (``from_slice``) as the slicing. Axes after the ellipsis count from the back.

        OpenVINO's CPU plugin kills the process on a constant step at or below ``INT32_MIN``
        (``docs/semantics.md``, S-3): on an axis of dynamic size such a step is written as
        another that selects alike on every allowed size (one element at most: the longest
        distance from start to stop, or a step of -1 from the start to one past it), else
        :class:`~datamove.NotExpressible` with a witness size. On such an axis OpenVINO's shape
        inference declares the lengths at the interval's ends alone (``docs/semantics.md``,
        S-6 and IR-6): no cut is written whose length on an allowed size lies outside what it
        declares (one that selects alike, or :class:`~datamove.NotExpressible` with the size).
        A cut empty on every size the shape allows is written ``0:0:1``, as on a static size: the
        CPU plugin refuses an empty Slice of numbers from ``2**31`` beside an Unsqueeze or
        Squeeze (``docs/semantics.md``, divergence 24).
        An index out of range on every size ``shape`` allows raises ``ValidationError``, as
        NumPy's ``IndexError``; where some allowed size may hold it, it is written (a Slice of
        one element, then Squeeze) and the runtime decides.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Slicing.from_numpy("x[2:, :, ..., :, 1:]").to_slice()[0][1]["axes"]  # rank >= 4
        [0, 1, -2, -1]
        >>> dm.Slicing.from_numpy("x[2:, :, ..., :, 1:]").to_slice("[?,?,?,?]")[0][1]["axes"]
        [0, 3]
        >>> dm.Slicing.from_numpy("x[1:, :, :2]").to_slice([2, 3, 4])[0][1]["axes"]
        [0, 2]
        """
        return self._ops(shape, "Slice", ("start", "stop", "step", "axes"))

    @_memo.emitter
    def to_onnx(self, shape: ShapeLike | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Write ONNX operations (opset 13), applied in order.

        ``("Slice", {starts, ends, steps, axes})``, ``("Unsqueeze", {axes})``,
        ``("Squeeze", {axes})``, as :meth:`to_slice` writes them (with no shape, the Slice
        lists the whole axes that fix the rank; no Slice of whole axes alone comes before an
        Unsqueeze that fixes it, nor before an Unsqueeze or Squeeze on a known rank:
        ``x[:, None]`` is one Unsqueeze).
        Parameters are never ones on which onnxruntime, the ONNX spec and ``onnx.reference``
        disagree (but on a rank too small for a slicing of no shape, where two axes meet: the
        spec leaves that undefined, onnxruntime refuses it and ``onnx.reference`` runs it;
        ``docs/dialects.md``): no end of exactly ``INT32_MAX`` or ``INT64_MAX`` that onnxruntime
        would read otherwise (it reads them as "to the last" in the step's direction; such an
        end is written one less or one more, or from the back on a static axis, where that
        selects alike on every allowed size), and a cut read under one clamping rule is kept
        only where the other rule (OpenVINO's for onnxruntime and the spec, NumPy's for
        ``onnx.reference``) gives the same on every allowed size; else
        :class:`~datamove.NotExpressible` with a witness. An index out of range on every
        size ``shape`` allows raises ``ValidationError`` (onnxruntime would refuse the node, or
        run it empty), as :meth:`to_slice`.

        Examples
        --------
        >>> import datamove as dm
        >>> s = dm.Slicing.from_strided_slice([-3], [0], [-1], end_mask=[1])  # OpenVINO's clamping
        >>> s.to_onnx("[3..]")
        [('Slice', {'starts': [-3], 'ends': [-9223372036854775808], 'steps': [-1], 'axes': [0]})]
        >>> s.to_onnx("[1..5]")
        Traceback (most recent call last):
          ...
        datamove._errors.NotExpressible: ONNX Slice: shape='[1..5]' allows sizes 1..2 of axis 0, ...
        """
        return self._ops(shape, "ONNX Slice", ("starts", "ends", "steps", "axes"), BOTH)

    @_memo.emitter
    def to_dml(self, shape: ShapeLike | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Write DirectML operations for one static shape, applied in order.

        ``("SLICE1", {InputWindowOffsets, InputWindowSizes, InputWindowStrides})``, one tight
        window per input axis (a negative stride for a negative step: DirectML copies from the
        window's end), then ``("RESHAPE", {sizes})`` where axes are added or removed (a new
        tensor description over the same buffer). DirectML fixes every size when the operator
        is built, has no clamping and no empty windows or size-0 tensors, and tensors of 1 to 8
        dimensions: another shape, an empty result or such a rank raises
        :class:`~datamove.NotExpressible` (for a shape that is not static, with a static shape
        the numbers would not describe).

        Examples
        --------
        >>> import datamove as dm
        >>> (name, p), reshape = dm.Slicing.from_numpy("x[1:, ..., None, ::-2]").to_dml([3, 5])
        >>> name, p["InputWindowOffsets"], p["InputWindowSizes"], p["InputWindowStrides"]
        ('SLICE1', [1, 0], [2, 5], [1, -2])
        >>> reshape
        ('RESHAPE', {'sizes': [2, 1, 3]})
        """
        return dml_slice_ops(
            *self._static_ranges(shape, DML_SLICE), entries_text(self.entries), shape
        )

    @_memo.emitter
    def to_webnn(self, shape: ShapeLike | None = None) -> list[tuple[str, dict[str, Any]]]:
        """Write WebNN operations for one static shape, applied in order.

        ``("slice", {starts, sizes, strides})``, one tight window per input axis with strides
        ``>= 1``; ``("reverse", {axes})`` for the axes a negative step walks backwards;
        ``("reshape", {newShape})`` where axes are added or removed. As for :meth:`to_dml`,
        the shape must be static and the result non-empty, else
        :class:`~datamove.NotExpressible`.

        Examples
        --------
        >>> import datamove as dm
        >>> for op in dm.Slicing.from_numpy("x[1:, ..., None, ::-2]").to_webnn([3, 5]):
        ...     print(op)
        ('slice', {'starts': [1, 0], 'sizes': [2, 5], 'strides': [1, 2]})
        ('reverse', {'axes': [1]})
        ('reshape', {'newShape': [2, 1, 3]})
        """
        return webnn_slice_ops(
            *self._static_ranges(shape, WEBNN_SLICE), entries_text(self.entries), shape
        )

    def _static_ranges(
        self, shape: ShapeLike | None, dialect: str
    ) -> tuple[tuple[int, ...], list[range], tuple[int, ...]]:
        """On a static shape: its sizes, the indices each input axis keeps, the output shape."""
        ps = shape_dims(shape, dialect)
        axes = self._indices_fit(ps, dialect, shape)  # the rank, the indices
        # An index fixes an axis whose largest size alone holds it (x[5] on [5..6]).
        fixed = {
            a
            for x, a in zip(self.entries, axes, strict=True)
            if type(x) is int and a is not None and index_need(x) == largest(dim_at(ps, a))
        }
        dims = static_sizes(ps, shape, dialect, lambda: witness_of(self, ps, {}), fixed)
        # refuses what s(x) refuses, naming the caller's shape as they wrote it
        out = tuple(d.min for d in self.infer(ps if shape is None else shape).dims)
        ranges = [range(d) for d in dims]
        for x, axis in zip(self.entries, axes, strict=True):
            if axis is None:
                continue
            d = dims[axis]
            # An index is in range: infer refused the others.
            ranges[axis] = range(x % d, x % d + 1) if type(x) is int else x.range(d)
        return dims, ranges, out

    # -- equivalence -----------------------------------------------------------------------
    def difference(
        self, other: Slicing | str, shape: ShapeLike | None = None
    ) -> tuple[int, ...] | None:
        """A static shape, allowed by ``shape``, on which the two differ.

        On it they select other elements, or one of them cannot run; ``None`` when they agree
        on every allowed shape (where neither can run, they agree: both refuse). ``other`` is
        a :class:`Slicing` or a NumPy expression.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Slicing.from_numpy("x[1, 2]").difference("x[0, 5]", "[1..2,3..6]")
        (2, 3)
        >>> dm.Slicing.from_numpy("x[3, :1]").difference("x[3, :2]", "[0..3,1..5]") is None
        True
        """
        return self._difference(other, shape, "Slicing.difference")

    def _difference(
        self, other: Slicing | str, shape: ShapeLike | None, op: str
    ) -> tuple[int, ...] | None:
        other = as_slicing(op, "other", other)
        ps = shape_dims(shape, op)
        k = addressed(self.entries + other.entries)
        return over_ranks(ps, k, lambda p: _first_difference(self, other, p, op))

    def equivalent(self, other: Slicing | str, shape: ShapeLike | None = None) -> bool:
        """Whether the two select the same elements on every shape ``shape`` allows.

        ``other`` is a :class:`Slicing` or a NumPy expression such as ``'x[::-1]'``.

        Decided axis by axis: the same output axes from the same input axes, each selecting
        the same indices. Slicings that agree only through axes of size 1 (``x[0, None]`` and
        ``x[()]`` on ``[1]``; ``x[None, :]`` and ``x[:, None]``), or only because the result is
        empty (``x[::2]`` and ``x[::-2]`` on ``[2,0]``, ``x[:0]`` and ``x[:0, ::-1]``), are
        reported as different;
        ``True`` is never said of slicings that select other elements.

        Examples
        --------
        >>> import datamove as dm
        >>> s = dm.Slicing.from_numpy("x[-3::-1]")
        >>> t = dm.Slicing.from_onnx([-3], [-2**63], steps=[-1])
        >>> s.equivalent(t, "[3..10]"), s.difference(t, "[1..10]")
        (True, (1,))
        >>> s.equivalent("x[-3::-1]")
        True
        """
        return self._difference(other, shape, "Slicing.equivalent") is None

    # -- algebra (src/datamove/_canonical.py, docs/algebra.md) ------------------------------
    def identity_witness(self, shape: ShapeLike | None = None) -> tuple[int, ...] | None:
        """A static shape, allowed by ``shape``, on which ``s(x)`` is not ``x`` unchanged.

        On it the output has another shape, other elements or another order, or the slicing
        cannot run (an index out of range, fewer axes than it addresses); ``None`` when the
        slicing returns its input unchanged on every allowed shape.
        """
        return ALGEBRA["identity_witness"](  # type: ignore[no-any-return]
            self, shape, "Slicing.identity_witness"
        )

    def is_identity(self, shape: ShapeLike | None = None) -> bool:
        """Whether ``s(x)`` is ``x`` unchanged (shape, elements, order) on every allowed shape.

        A proof, exact on static and interval shapes: a reversal whose output shape equals its
        input shape is not the identity (only on sizes 0 and 1); with ``shape=None`` (any rank)
        ``x[:]`` is not either, as it cannot run on a scalar, while ``x[...]`` is.
        :meth:`identity_witness` gives a shape on which it is not.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Slicing.from_numpy("x[0:9223372036854775807]").is_identity("[?]")
        True
        >>> s = dm.Slicing.from_numpy("x[::-1]")
        >>> s.is_identity("[2..10]"), s.identity_witness("[2..10]"), s.is_identity("[0..1]")
        (False, (2,), True)
        """
        return ALGEBRA["identity_witness"](self, shape, "Slicing.is_identity") is None

    def empty_witness(self, shape: ShapeLike | None = None) -> tuple[int, ...] | None:
        """A static shape, allowed by ``shape``, on which ``s(x)`` has an element (or cannot run).

        ``None`` when the result is empty on every allowed shape.
        """
        return ALGEBRA["empty_witness"](  # type: ignore[no-any-return]
            self, shape, "Slicing.empty_witness"
        )

    def is_empty(self, shape: ShapeLike | None = None) -> bool:
        """Whether ``s(x)`` has no element on every allowed shape.

        A proof, exact on static and interval shapes; :meth:`empty_witness` gives a shape on
        which it has one.

        Examples
        --------
        >>> import datamove as dm
        >>> s = dm.Slicing.from_numpy("x[:, -100:-200:-1]")
        >>> s.is_empty("[?,1..99]"), s.is_empty("[?,1..100]"), s.empty_witness("[?,1..100]")
        (True, False, (1, 100))
        """
        return ALGEBRA["empty_witness"](self, shape, "Slicing.is_empty") is None

    def canonical(self, shape: ShapeLike | None = None) -> Slicing:
        """One normal form: slicings equivalent on ``shape`` get equal ones, printed the same.

        On a shape of known rank the form addresses every axis from the front (no ellipsis),
        drops trailing whole axes (``x[...]`` when nothing is left), writes each index as it
        counts from the front where the size is static, and each cut on a static axis by the
        indices it selects: in-range bounds, ``None`` where they reach an end, ``:0`` when
        empty. On an axis of interval size a bound is dropped where it clamps to the end on every
        allowed size, an always-empty or always-whole cut is written ``:0`` or ``:``, and a cut
        that takes one element at most on every allowed size is written with step 1 where a
        step-1 cut takes the same element, else with its smallest such step. With
        ``shape=None`` whole axes next to the ellipsis are moved before it. The form is
        equivalent to ``s`` on the shapes ``shape`` allows only; emit it with the same
        ``shape``. ``a.canonical(shape) == b.canonical(shape)`` if and only if
        ``a.equivalent(b, shape)`` on static shapes (where both run); on other shapes equal
        forms imply equivalence. The form is its own form.

        Examples
        --------
        >>> import datamove as dm
        >>> [dm.Slicing.from_numpy(t).canonical([5, 4]).to_numpy()
        ...  for t in ("x[0:9223372036854775807]", "x[:]", "x[...]", "x[::1]", "x[4::-1, :4]")]
        ['x[...]', 'x[...]', 'x[...]', 'x[...]', 'x[::-1]']
        """
        return ALGEBRA["canonical"](self, shape)  # type: ignore[no-any-return]


def _whole_on(x: Cut, dim: Dimension) -> bool:
    """Whether ``x`` takes all of a bounded ``dim``, in order, on every size it allows.

    On an unbounded one a cut is whole on every size only where its bounds are the sentinels
    ``Cut.make`` writes ``None`` (`takes_whole`).
    """
    top = dim.max
    if top is None or x.range(top) != range(top):
        return False
    # Whole on a size of 2 or more is a step of 1 (affine between breakpoints: a period of 1);
    # another step is whole where every size is 0 or 1 (x[::-1] on [0..1]), which decide scans.
    return (
        dim.is_static or decide(lambda d: x.range(d) == range(d), dim, (x.start, x.stop), 1) is None
    )


def _empty_on(x: Cut, dim: Dimension) -> bool:
    """Whether ``x`` selects nothing on every size ``dim`` allows.

    Emptiness compares the clamped start and stop, affine in the size between the breakpoints:
    no period to cover, whatever the step.
    """
    return decide(lambda d: not x.range(d), dim, (x.start, x.stop), 1) is None


def _distance(x: Cut, d: int) -> int:
    """How far the clamped start of ``x`` (a negative step) lies past its clamped stop on ``d``."""
    r = x.range(d, CLAMP)
    return r.start - r.stop


def _slice_numbers(x: Cut, dim: Dimension, dialect: str) -> tuple[int, int, int]:
    """The start, stop and step ``x`` is written with in ``dialect``, as OpenVINO reads them.

    Slice-8's and ONNX Slice's numbers (``"Slice"``: `_ops` writes them), or for StridedSlice-1
    a mask's own defaults (from the interval's largest size, ``INT64_MAX`` where unbounded).
    """
    c = x.step
    if dialect == "Slice":
        a = (0 if c > 0 else -1) if x.start is None else x.start
        b = (INT64_MAX if c > 0 else INT64_MIN) if x.stop is None else x.stop
        return a, b, c
    top = INT64_MAX if dim.max is None else dim.max
    a = (0 if c > 0 else top) if x.start is None else x.start
    b = (top if c > 0 else -1 - top) if x.stop is None else x.stop
    return a, b, c


def _ov_length(d: int | None, a: int, b: int, c: int) -> int | None:
    """The length OpenVINO's shape inference gives ``a:b:c`` at one end ``d`` of an interval.

    The length on an axis of size ``d``; at an unbounded end (``None``, or ``INT64_MAX``)
    from the bounds alone where their signs differ or one is an ``INT64`` extreme (a reverse
    step: unbounded where the start is negative, else ``start + 1`` long; a forward one:
    ``stop`` or ``-start`` long where the start is negative, else unbounded), and unbounded
    (``None``) where it is ``INT64_MAX`` or more. Checked against OpenVINO itself by
    ``tests/test_dialects_openvino.py``.
    """
    n = INT64_MAX if d is None else d
    huge = n == INT64_MAX
    if huge and ((a < 0) != (b < 0) or INT64_MAX in (a, b) or a == INT64_MIN):
        first = 0
        if c < 0:
            last = -1 if a < 0 or INT64_MAX in (a, b) else -1 - a
        elif INT64_MIN < a < 0:
            last = -a if b == INT64_MAX else b
        else:
            last = -1
    else:
        first = min(max(a + n if a < 0 else a, 0), n - 1 if c < 0 else n)
        last = min(max(b + n if b < 0 else b, -1 if c < 0 else 0), n)
    if huge and first == 0 and last == -1:  # OpenVINO's mark for "unbounded"
        return None
    span = max(0, first - last) if c < 0 else max(0, last - first)
    count = 0 if span == 0 else (span - 1) // abs(c) + 1
    return None if count >= INT64_MAX else count


def openvino_declared(x: Cut, dim: Dimension, dialect: str) -> tuple[int, int | None] | None:
    """The length OpenVINO's shape inference declares for ``x`` on ``dim`` in ``dialect``.

    ``dialect`` is ``"Slice"`` or ``"StridedSlice"``; the lengths at the interval's two ends,
    ``(least, most)``, ``most`` ``None`` where unbounded; ``None`` where the first is the
    longer: OpenVINO's empty interval, which holds no length.
    """
    a, b, c = _slice_numbers(x, dim, dialect)
    low = _ov_length(dim.min, a, b, c)
    high = _ov_length(dim.max, a, b, c)
    assert low is not None  # a finite size gives a finite length
    return None if high is not None and low > high else (low, high)


def openvino_refused(
    x: Cut, dim: Dimension, dialect: str, *, nonempty: bool = False
) -> tuple[tuple[int, int | None] | None, int] | None:
    """What OpenVINO declares for ``x`` on ``dim`` (`openvino_declared`) and a size it refuses.

    The size is the smallest in ``dim`` whose length of ``x`` lies outside the declared
    interval (an empty interval holds none), with ``nonempty`` the smallest whose length is
    also not 0 (OpenVINO's CPU plugin runs an empty result of a declared interval, S-6);
    ``None`` where no size's does.
    """
    declared = openvino_declared(x, dim, dialect)
    lo, top = dim.min, largest(dim)
    if declared is not None:
        exact = range_length(
            dim, x.start, x.stop, x.step, int(x.start is None), int(x.stop is None)
        )
        # range_length's hull is unbounded where a huge length grows to the last size
        longest = len(x.range(top, CLAMP)) if exact.max is None else exact.max
        low, high = declared
        if exact.min >= low and (high is None or longest <= high):
            return None
    w = _first_refused(x, declared, edges(lo, top, breakpoints((x.start, x.stop))), top, nonempty)
    return None if w is None else (declared, w)


def _first_refused(
    x: Cut, declared: tuple[int, int | None] | None, starts: list[int], top: int, nonempty: bool
) -> int | None:
    """The smallest size up to ``top`` where the length of ``x`` lies outside ``declared``.

    ``None`` (an empty interval) holds no length; with ``nonempty`` a length of 0 is not
    counted. Between breakpoints (``starts``) the clamped bounds are affine in the size, so the
    length is monotone there and each test below holds on a run of sizes at one end of the
    piece: the first size where all of a condition's tests hold is the last of their firsts
    (found by bisection), where it holds there at all.
    """

    def length(d: int) -> int:
        return len(x.range(d, CLAMP))

    some: list[Callable[[int], bool]] = [lambda n: n > 0] if nonempty else []
    conditions: list[list[Callable[[int], bool]]] = [some]
    if declared is not None:
        low, high = declared
        conditions = [[lambda n: n < low, *some]]
        if high is not None:
            conditions.append([lambda n: n > high])

    def first(test: Callable[[int], bool], a: int, b: int) -> int | None:
        if test(length(a)):
            return a
        if not test(length(b)):
            return None
        return bisect_first(lambda d: test(length(d)), a, b)

    for u, nxt in itertools.pairwise([*starts, top + 1]):
        found = []
        for tests in conditions:
            firsts = [first(test, u, nxt - 1) for test in tests]
            if any(f is None for f in firsts):
                continue
            w = max([u, *(f for f in firsts if f is not None)])
            if all(test(length(w)) for test in tests):
                found.append(w)
        if found:
            return min(found)
    return None


def _start_at(a: int | None, c: int, d: int) -> int:
    """The start of ``a::c`` on a size ``d >= 1``, clamped as the ONNX spec (and OpenVINO) clamp."""
    return clamp_bounds(d, a or 0, 0, c, int(a is None), 1)[0]


def _reaching(a: int | None, c: int, t: int, lo: int, top: int) -> int | None:
    """The smallest size in ``[lo, top]`` on which ``a::c`` reaches the index ``t >= 0``.

    Its end aside: ``t`` lies inside the axis, at or past the clamped start in the step's
    direction, a multiple of the step from it. From size ``t + 1`` on, the clamped start
    grows by 0 or 1 a size, so it takes every value between its first and its last: the
    first of them on ``t``'s path is reached, at the first size it is the start.
    """
    m, d0 = abs(c), max(lo, t + 1)
    if d0 > top:
        return None
    first, last = _start_at(a, c, d0), _start_at(a, c, top)
    if c < 0:
        v = max(t, first)
        v += (t - v) % m
        if v > last:
            return None
    else:
        v = first + (t - first) % m
        if v > min(t, last):
            return None
    return bisect_first(lambda d: _start_at(a, c, d) >= v, d0, top)  # the first start at v


def _unsqueeze_needs(new: list[int], need: int) -> bool:
    """Whether an Unsqueeze of axes ``new`` refuses every rank below ``need`` by their range.

    ONNX and OpenVINO refuse an axis out of range of the output's rank (the input's plus one
    per axis listed); two that are one axis ONNX refuses and OpenVINO reads as one, so only the
    range is counted on. A slicing whose cuts are all whole needs no Slice then: ``x[:, None]``
    is ``Unsqueeze(axes=[1])``, which refuses a scalar as the slicing does.
    """
    return not any(all(-r - len(new) <= a < r + len(new) for a in new) for r in range(need))


def _whole_axes(axes: list[int | None], sliced: list[int]) -> list[int]:
    """The axes a Slice of no shape adds, whole, to ``sliced`` to require the slicing's rank.

    ``axes`` (from ``axes_of`` with no rank) holds ``0 .. f-1`` from the front and ``-b .. -1``
    from the back. Slice refuses an axis out of range and two that meet, so axes whose largest
    from the front is ``f - 1`` and smallest from the back ``-b``, one end listing every axis up
    to its last, run on exactly the ranks ``>= f + b``.
    """
    b = sum(a < 0 for a in axes if a is not None)
    f = len(axes) - axes.count(None) - b
    if not b:  # from the front alone (the usual slicing): its outermost axis, if whole
        return [f - 1] if f and f - 1 not in sliced else []
    if not f:
        return [] if -b in sliced else [-b]
    have = set(sliced)
    front = [k for k in range(f) if k not in have]  # whole ones, missing from the list
    back = [k for k in range(-b, 0) if k not in have]
    outer_front = front[-1:] if f - 1 in front else []
    outer_back = back[:1] if -b in back else []
    # Both ends: one listed in full, the other to its outermost axis; the fewer added the better.
    return min(front + outer_back, outer_front + back, key=len)


def _torch_needs(ops: list[tuple[str, dict[str, Any]]], need: int) -> bool:
    """Whether PyTorch refuses these calls on every rank below ``need``.

    It does where one of those that run on the input's rank (up to the first ``select``) names
    axis ``need - 1`` or ``-need``, but for a ``flip`` of axis 0 or -1: PyTorch flips a scalar
    there (it wraps a scalar's dims as a vector's), so ``x[::-1]`` would run on one.
    """
    for name, p in ops:  # no unsqueeze yet: to_torch adds those after asking
        dims = p["dims"] if name == "flip" else [p["dim"]]
        if {need - 1, -need} & set(dims) and (name != "flip" or need > 1):
            return True
        if name == "select":
            break
    return False


def _never_selects(y: Cut) -> bool:
    """Whether ``y`` (a step > 0, Python's clamping) selects nothing on every size.

    Its start and stop of one sign, the start not before the stop: clamped alike (both into
    ``[0, d]``, from the front or from the back), the start stays not before the stop.
    """
    a, b = y.start, y.stop
    return a is not None and b is not None and (a < 0) == (b < 0) and a >= b


def _torch_static(r: range, axis: int, size: int) -> list[tuple[str, dict[str, Any]]]:
    """PyTorch calls picking the indices ``r`` of an axis of ``size``, in range."""
    n = len(r)
    if n == 0:
        return [("narrow", {"dim": axis, "start": 0, "length": 0})]
    lo, step = (r.start, 1) if n == 1 else (min(r.start, r[-1]), abs(r.step))
    ops: list[tuple[str, dict[str, Any]]] = []
    if step == 1:
        if n != size:
            ops.append(("narrow", {"dim": axis, "start": lo, "length": n}))
    else:
        ops.append(
            ("getitem", {"dim": axis, "start": lo, "stop": lo + (n - 1) * step + 1, "step": step})
        )
    if n > 1 and r.step < 0:
        ops.append(("flip", {"dims": [axis]}))
    return ops


# -- deciding equality ---------------------------------------------------------------------------
def expand(s: Slicing, rank: int) -> list[tuple[str, Any, int]] | None:
    """Per output or removed axis: ("new"|"index"|"cut", entry, input axis); None: cannot run."""
    try:
        axes = axes_of(s, rank)
    except ValidationError:
        return None
    out: list[tuple[str, Any, int]] = []
    used: set[int] = set()
    for x, axis in zip(s.entries, axes, strict=True):
        if x is Ellipsis:
            n = rank - addressed(s.entries)
            start = sum(1 for y in s.entries[: s.entries.index(Ellipsis)] if y is not None)
            out.extend(("cut", WHOLE, start + h) for h in range(n))
            used.update(range(start, start + n))
        elif x is None:
            out.append(("new", None, -1))
        else:
            assert axis is not None
            out.append(("index" if type(x) is int else "cut", x, axis))
            used.add(axis)
    out.extend(("cut", WHOLE, k) for k in range(rank) if k not in used)
    return out


def as_slicing(op: str, name: str, s: Any) -> Slicing:
    """``s`` as a :class:`Slicing`: one already, or a NumPy expression such as ``'x[1:, ::-1]'``."""
    if isinstance(s, str):
        return Slicing.from_numpy(s)
    if not isinstance(s, Slicing):
        raise ValidationError(
            op, name, s, "is not a dm.Slicing or a NumPy expression such as 'x[1:, ::-1]'"
        )
    return s


def over_ranks(
    ps: PartialShape, k: int, ranked: Callable[[PartialShape], tuple[int, ...] | None]
) -> tuple[int, ...] | None:
    """``ranked(ps)``, or on an unknown rank its first witness on ranks 0 to ``k + 1``."""
    if ps.rank is not None:
        return ranked(ps)
    # Past the k axes addressed, ranks add whole axes in the ellipsis: one shows every case.
    for rank in range(k + 2):
        w = ranked(PartialShape.dynamic(rank))
        if w is not None:
            return w
    return None


def _first_difference(s: Slicing, t: Slicing, ps: PartialShape, op: str) -> tuple[int, ...] | None:
    assert ps.rank is not None
    rank = ps.rank
    a, b = expand(s, rank), expand(t, rank)
    if a is None and b is None:
        return None
    if a is None or b is None or [(k, ax) for k, _, ax in a] != [(k, ax) for k, _, ax in b]:
        return _one_runs(s, t, ps, witness_of(t if a is None else s, ps, {}))
    for (kind, x, axis), (_, y, _) in zip(a, b, strict=True):
        if kind == "new" or x == y:  # the same cut or index selects alike on every size
            continue
        dim = ps.dims[axis]
        if kind == "index":
            w = decide(_same_index(x, y), dim, (x, y), 1, op=op)
        else:
            bounds = (x.start, x.stop, y.start, y.stop)
            w = decide(same_cut(x, y), dim, bounds, math.lcm(x.step, y.step), (x, y), op=op)
        if w is not None:
            return _one_runs(s, t, ps, witness_of(s, ps, {axis: w}))
    return None


def _runs_on(s: Slicing, shape: tuple[int, ...]) -> bool:
    """Whether ``s`` runs on this static shape: its rank fits, and every index is in range."""
    ex = expand(s, len(shape))
    return ex is not None and all(
        index_at(x, shape[axis]) is not None for kind, x, axis in ex if kind == "index"
    )


def _one_runs(
    s: Slicing, t: Slicing, ps: PartialShape, w: tuple[int, ...]
) -> tuple[int, ...] | None:
    """``w``, or where neither runs there, an allowed shape on which one of them runs.

    None where neither runs on any allowed shape of this rank (they agree there: both refuse).
    An index needs a size at least ``index_need``: on a rank, a slicing runs on an allowed
    shape if and only if it runs on its smallest sizes that hold its indices (``witness_of``),
    and the other runs wherever it does if it runs there too.
    """
    if _runs_on(s, w) or _runs_on(t, w):
        return w
    for u, v in ((s, t), (t, s)):
        m = witness_of(u, ps, {}) if expand(u, len(w)) is not None else w
        if _runs_on(u, m) and not _runs_on(v, m):
            return m
    return None


def _same_index(x: int, y: int) -> Callable[[int], bool]:
    return lambda d: index_at(x, d) == index_at(y, d)


def same_cut(x: Cut, y: Cut) -> Callable[[int], bool]:
    return lambda d: selection(x.range(d)) == selection(y.range(d))


def breakpoints(values: Iterable[int | None]) -> set[int]:
    """Sizes where a clamped bound or a count of these parameters may change form."""
    known = [abs(v) for v in values if v is not None] + [0, 1]
    out: set[int] = set()
    for v in known:
        for w in known:
            out.update((v, abs(v - w), v + w))
    return out


def edges(lo: int, top: int, points: set[int]) -> list[int]:
    """The sizes in ``[lo, top]`` within 2 of a breakpoint, and ``lo``: where pieces start."""
    return sorted({p + k for p in points for k in (-2, -1, 0, 1, 2) if lo <= p + k <= top} | {lo})


def index_at(k: int, d: int) -> int | None:
    j = k + d if k < 0 else k
    return j if 0 <= j < d else None


def decide(
    same: Callable[[int], bool],
    dim: Dimension,
    values: tuple[int | None, ...],
    period: int,
    cuts: tuple[Cut, ...] = (),
    *,
    op: str = "Slicing.difference",
) -> int | None:
    """The smallest size in ``dim`` where ``same`` fails, or None (``op`` names the caller).

    Each side's clamped start and stop are piecewise affine in the size, with breakpoints within
    2 of ``|v|`` for a parameter ``v`` or ``|v ± w|`` for two (where a count crosses zero).
    Between breakpoints, on each residue class modulo the period (the steps' lcm), counts and
    starts are affine in the size: checking three periods of sizes decides the whole piece.

    A period past `_MAX_PERIOD` is decided where ``same`` compares ``cuts`` of different steps:
    below the first size where a cut takes two elements (`_first_pair`) each takes one or none,
    whose start and count are affine between breakpoints (a period of 1); at that size the
    steps tell them apart.
    """
    lo = dim.min
    if dim.is_static:  # one size: no period to cover
        return None if same(lo) else lo
    top = largest(dim)
    starts = edges(lo, top, breakpoints(values))
    pair = None
    if abs(period) > _MAX_PERIOD and cuts:
        pair = _first_pair(cuts, starts, top)
        w = _scan(same, starts, top if pair is None else pair - 1, 1)
        if w is not None or pair is None or len({c.step for c in cuts}) > 1:
            return pair if w is None else w
    if abs(period) > _MAX_PERIOD:
        past = "" if pair is None else f" (on sizes from {pair})"
        raise ValidationError(
            op,
            "shape",
            str(dim),
            f"cannot be decided for every size{past}: the steps repeat every {abs(period)} "
            f"sizes, more than the {_MAX_PERIOD} checked",
            hint="pass a static shape",
        )
    return _scan(same, starts, top, period)


def bisect_first(holds: Callable[[int], bool], lo: int, hi: int) -> int:
    """The smallest size in ``[lo, hi]`` where ``holds``, which holds from there to ``hi``."""
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if holds(mid) else (mid + 1, hi)
    return lo


def _scan(same: Callable[[int], bool], starts: list[int], top: int, period: int) -> int | None:
    """The smallest size up to ``top`` where ``same`` fails: three periods from each start."""
    for u, nxt in itertools.pairwise([*(u for u in starts if u <= top), top + 1]):
        for d in range(u, min(nxt, u + 3 * abs(period) + 1)):
            if not same(d):
                return d
    return None


def _first_pair(cuts: tuple[Cut, ...], starts: list[int], top: int) -> int | None:
    """The smallest size up to ``top`` where one of ``cuts`` takes two elements or more.

    Between breakpoints (``starts``) a cut's clamped bounds are affine in the size, so whether
    their distance passes the step is monotone there: bisection finds where it first does.
    """
    found = None
    for u, nxt in itertools.pairwise([*starts, top + 1]):
        for c in cuts:
            if len(c.range(nxt - 1)) < 2 and len(c.range(u)) < 2:
                continue
            a = bisect_first(lambda d: len(c.range(d)) >= 2, u, nxt - 1)  # noqa: B023 - at once
            found = a if found is None else min(found, a)
        if found is not None:
            return found
    return None


# The layout on a rank and the text, shared with the slice algebra (_canonical.py, _compose.py).
def axes_of(s: Slicing, rank: int | None, shape: Any = None) -> list[int | None]:
    """The input axis each entry of ``s`` addresses on ``rank``.

    Negative after the ellipsis when the rank is unknown; ``None`` for new axes and the
    ellipsis. Too small a rank is a ``ValidationError`` naming ``shape``, the caller's
    argument of that rank (where given).
    """
    entries = s.entries
    cut = entries.index(Ellipsis) if Ellipsis in entries else len(entries)
    before = sum(1 for x in entries[:cut] if x is not None)
    after = sum(1 for x in entries[cut + 1 :] if x is not None)
    if rank is not None and before + after > rank:
        raise ValidationError(
            "Slicing",
            "data" if shape is None else "shape",
            shape,
            f"has rank {rank}, but the slicing addresses {plural(before + after, 'axis', 'axes')}",
        )
    out: list[int | None] = []
    j = 0
    for k, x in enumerate(entries):
        if x is None or x is Ellipsis:
            out.append(None)
        elif k < cut:
            out.append(j)
            j += 1
        else:
            after -= 1
            out.append(-after - 1 if rank is None else rank - after - 1)
    return out


def witness_of(s: Slicing, ps: PartialShape, fixed: dict[int, int]) -> tuple[int, ...]:
    """A static shape ``ps`` allows that ``s`` runs on, with the sizes in ``fixed`` (axis: size)."""
    if ps.rank is None:
        rank = addressed(s.entries)
        dims = [Dimension()] * rank
        fixed = {(k % rank if rank else k): v for k, v in fixed.items()}
    else:
        dims = list(ps.dims)
    need = [1] * len(dims)
    for x, axis in zip(s.entries, axes_of(s, len(dims)), strict=True):
        if type(x) is int and axis is not None:
            need[axis] = index_need(x)
    return tuple(fixed[k] if k in fixed else some_size(d, need[k]) for k, d in enumerate(dims))


def some_size(d: Dimension, low: int = 1) -> int:
    """An allowed size, ``low`` or more where the dimension allows it, else its smallest.

    An unbounded dimension holds the sizes below ``INT64_MAX`` (an index of ``INT64_MAX`` or
    ``INT64_MIN`` is in range on none).
    """
    want = max(d.min, low)
    return want if want <= largest(d) else d.min


def index_need(k: int) -> int:
    """The smallest size on which index ``k`` is in range."""
    return k + 1 if k >= 0 else -k


def entries_text(entries: Iterable[Any]) -> str:
    """The NumPy text ``x[...]`` of a slicing's entries."""
    parts = [
        "None"
        if x is None
        else "..."
        if x is Ellipsis
        else x.text()
        if isinstance(x, Cut)
        else str(x)
        for x in entries
    ]
    return f"x[{', '.join(parts) or '()'}]"
