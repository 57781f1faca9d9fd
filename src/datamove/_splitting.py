"""Splitting dialects: one split, its uneven-size rule by name, translated between libraries.

A :class:`Splitting` is an axis and one rule with its parameter:

=================  ==============================================  ==============================
rule               read from                                       lengths on a size ``d``
=================  ==============================================  ==============================
``"even"``         OpenVINO Split-1, ``numpy.split(x, n)``,        ``n`` parts of ``d / n``; ``d``
                   ``tf.split(x, n)``                              not a multiple: refused
``"array_split"``  ``numpy.array_split(x, n)``,                    ``n`` parts; the first
                   ``torch.tensor_split(x, n)``                    ``d % n`` one longer
``"chunk"``        ``torch.chunk(x, n)``                           parts of ``ceil(d / n)``, the
                                                                   last shorter, so maybe fewer
                                                                   than ``n``; ``n`` empty on 0
``"size"``         ``torch.split(x, k)``                           parts of ``k``, the last
                                                                   shorter; one empty on 0
``"lengths"``      OpenVINO VariadicSplit-1 (one ``-1``: the       the lengths; another sum:
                   rest), ``torch.split(x, [..])``,                refused
                   ``tf.split(x, [..])`` (one ``-1``: the rest)
``"indices"``      ``numpy.split``/``numpy.array_split``/          ``x[:i0], x[i0:i1], ...,
                   ``torch.tensor_split`` with a list              x[in:]``, clamped as Python
=================  ==============================================  ==============================

Two more rules read ONNX Split-18's ``num_outputs=n`` (their uneven sizes disagree; see
docs/semantics.md): ``"onnx"``, the spec's and onnxruntime's, ``n`` parts of ``ceil(d / n)``, the
last ``d - (n - 1) * ceil(d / n)``, refused where that is negative (5 into 4 would be
``[2, 2, 2, -1]``; onnxruntime refuses it too); and ``"onnx_reference"``, ``onnx.reference``'s,
the same parts clamped to the axis (``[2, 2, 1, 0]``). Where the spec's result is valid they agree.
ONNX Split-2/11/13 without ``split`` is ``"even"`` (as many parts as the node has outputs), with
``split`` (an attribute before opset 13, an input from 13) ``"lengths"`` without ``-1``.

Emitters write one call of a library. A split that runs on no size the shape allows raises the
split's own :class:`~datamove.ValidationError` in every emitter. On a static axis every split
is expressible (its lengths). Otherwise a call is written only where the library has the same
rule; else :class:`~datamove.NotExpressible` names a witness size on which the closest call of
that library splits otherwise (or refuses where the split does not, and the other way round).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from datamove._dialects import ALGEBRA, SAME, WHOLE, Cut, Slicing, entries_text, shape_dims
from datamove._dml_webnn import (
    DML_SPLIT,
    INT32_MAX,
    UINT32_MAX,
    WEBNN_SPLIT,
    check_each,
    check_part_count,
    check_tiling,
    dml_split_call,
    listed,
    read_dml_split,
    read_webnn_split,
    static_sizes,
)
from datamove._errors import (
    AxisError,
    DTypeError,
    NotExpressible,
    ValidationError,
    pass_the_shape,
    plural,
)
from datamove._shape import INT64_MAX, MAX_LENGTH, Dimension, ShapeLike, largest, sizes_text
from datamove._split import output_count, variadic_lengths
from datamove._validation import as_int, as_int_vector, describe

__all__ = ["Splitting", "cuts_of_lengths", "onnx_split_version", "part_slicing"]

RULES: Final = (
    "even",
    "array_split",
    "chunk",
    "size",
    "lengths",
    "indices",
    "onnx",
    "onnx_reference",
)


def onnx_split_version(opset: Any) -> int:
    """The version of ONNX Split in a model of ``opset`` (its default domain's): 2, 11, 13, 18."""
    v = as_int("ONNX Split", "opset", opset)
    if v < 2:
        raise ValidationError(
            "ONNX Split", "opset", opset, "is below 2; datamove reads Split-2, 11, 13 and 18"
        )
    return 18 if v >= 18 else 13 if v >= 13 else 11 if v >= 11 else 2


# The element types of tf.split's sizes (its SplitV's Tlen).
_TF_SIZE_TYPES: Final = ("int8", "int32", "int64")


def _lengths(rule: str, value: Any, d: int) -> tuple[int, ...] | None:
    """The parts' lengths on an axis of size ``d``; ``None`` where the rule refuses the split.

    More than ``MAX_LENGTH`` parts is a ``ValidationError``, before any is made.
    """
    seq: tuple[int, ...] = value if isinstance(value, tuple) else ()
    n = 0 if isinstance(value, tuple) else int(value)
    parts = len(seq) + (rule == "indices") if seq else -(-d // n) if rule == "size" else n
    if parts > MAX_LENGTH:
        raise ValidationError(
            "Splitting",
            "size",
            d,
            f"gives {parts} parts by the {rule!r} rule with {value!r}, more than {MAX_LENGTH} "
            "(MAX_LENGTH), the most outputs datamove makes",
        )
    if rule == "lengths":
        known = sum(v for v in seq if v != -1)
        if -1 in seq:
            return None if known > d else tuple(d - known if v == -1 else v for v in seq)
        return seq if known == d else None
    if rule != "indices":  # a count: its runs, each made once
        runs = _runs(rule, value, d)
        return (
            None
            if runs is None
            else tuple(itertools.chain.from_iterable((v,) * c for v, c in runs))
        )
    points = [None, *value, None]
    return tuple(len(range(*slice(a, b).indices(d))) for a, b in itertools.pairwise(points))


Runs = tuple[tuple[int, int], ...]  # (length, how many parts in a row), merged, none empty


def _runs(rule: str, value: Any, d: int) -> Runs | None:
    """``_lengths`` as runs of equal lengths, without the parts where the rule is a count.

    Every rule but ``lengths`` and ``indices`` gives at most three runs, made in O(1) whatever
    the count, so emitters compare rules on thousands of sizes without making their parts.
    """
    raw: list[tuple[int, int]]
    if rule in ("lengths", "indices"):
        lengths = _lengths(rule, value, d)
        if lengths is None:
            return None
        raw = [(v, 1) for v in lengths]
    else:
        n = int(value)
        k = -(-d // n)
        if rule == "even":
            if d % n:
                return None
            raw = [(d // n, n)]
        elif rule == "array_split":
            q, r = divmod(d, n)
            raw = [(q + 1, r), (q, n - r)]
        elif rule in ("chunk", "size"):
            if d == 0:
                raw = [(0, n if rule == "chunk" else 1)]
            else:
                k = k if rule == "chunk" else n
                raw = [(k, d // k), (d % k, int(d % k > 0))]
        elif rule == "onnx":
            last = d - (n - 1) * k
            if last < 0:
                return None
            raw = [(k, n - 1), (last, 1)]
        else:  # onnx_reference: n parts of k, clamped to the axis
            assert rule == "onnx_reference"
            full = n if k == 0 else d // k
            raw = [(k, full), (d % k if k else 0, int(full < n)), (0, n - full - 1)]
    return _merged(raw)


def _merged(raw: Iterable[tuple[int, int]]) -> Runs:
    out: list[tuple[int, int]] = []
    for v, c in raw:
        if c <= 0:
            continue
        if out and out[-1][0] == v:
            out[-1] = (v, out[-1][1] + c)
        else:
            out.append((v, c))
    return tuple(out)


def _runs_of(rule: str, value: Any) -> Callable[[int], Runs | None]:
    """``_runs`` of one split as a function of the size, its lengths read once.

    ``lengths``: refused below their sum in O(1), the ``-1`` part between the others' runs.
    """
    if rule != "lengths":
        return lambda d: _runs(rule, value, d)
    seq: tuple[int, ...] = value
    known = sum(v for v in seq if v != -1)
    if -1 not in seq:
        whole = _merged((v, 1) for v in seq)
        return lambda d: whole if d == known else None
    k = seq.index(-1)
    before, after = _merged((v, 1) for v in seq[:k]), _merged((v, 1) for v in seq[k + 1 :])
    return lambda d: None if known > d else _merged([*before, (d - known, 1), *after])


def _candidates(splits: Iterable[tuple[str, Any]], lo: int, top: int) -> list[int]:
    """Sizes in ``[lo, top]`` that hold the smallest where two splits differ, if they differ.

    Between breakpoints set by its numbers a split's parts are affine in the size (a count
    ``n``'s in ``d // n``, on each ``d % n``), and two splits that agree on a size agree on the
    next only where both grow the same part; so they first differ at ``lo``, ``lo + 1``,
    ``lo + 2`` or just past a breakpoint from ``lo``. A count's breakpoints are its next two
    multiples and the next multiple of ``k = ceil(d / n)`` (``chunk``'s and
    ``onnx_reference``'s parts of ``k`` grow the last until it is ``k``, then one more part
    starts); ``onnx``'s also the first size off the multiples where it runs (``n*q + r``,
    ``0 < r < n``, from ``q = n - 1 - r``). Lengths' is their sum, indices' each index.
    ``tests/test_splitting.py`` checks the sizes found against every size, one by one.
    """
    out = {lo, lo + 1, lo + 2}
    for rule, value in splits:
        if rule == "lengths":
            ends = [sum(v for v in value if v != -1)]
        elif rule == "indices":
            ends = [abs(i) for i in value]
        else:
            n = int(value)
            m = -(-lo // n) * n
            k = -(-(lo + 1) // n)  # parts of k from lo + 1 to the next multiple of n
            ends = [m, m + n, -(-(lo + 1) // k) * k]
            if rule == "onnx" and n > 1:
                q, r = divmod(lo, n)
                least = max(r, 1, n - 1 - q)
                out.add(q * n + least if least < n else (q + 1) * n + max(1, n - 2 - q))
        out |= {e + i for e in ends for i in range(3)}
    return sorted(d for d in out if lo <= d <= top)


def _runs_text(runs: Runs | None) -> str:
    """The lengths as a tuple (``(2, 2, 1)``), or as runs where they are many."""
    if runs is None:
        return "None"
    if sum(c for _, c in runs) <= 16:
        return str(tuple(v for v, c in runs for _ in range(c)))
    return "(" + ", ".join(f"{v} x {c}" for v, c in runs) + ")"


def _outcome(runs: Runs | None, size: int | None = None) -> str:
    """What a split does to one size, as words: ``splits size 5 into (3, 2)``, ``refuses it``.

    With ``size`` the sentence names it (the first of two), else it says ``it``.
    """
    if runs is None:
        return "refuses it" if size is None else f"refuses size {size}"
    text = _runs_text(runs)
    return f"gives {text}" if size is None else f"splits size {size} into {text}"


def cuts_of_lengths(lengths: Sequence[int]) -> list[Cut]:
    """Cuts of consecutive parts of these lengths.

    One ``-1`` takes the rest: the cuts count from both ends, exact on every size that fits.
    """
    k = lengths.index(-1) if -1 in lengths else len(lengths)
    out: list[Cut] = []
    o = 0
    for n in lengths[:k]:
        out.append(Cut.make(o, o + n, 1, SAME))
        o += n
    if k == len(lengths):
        return out
    rest = sum(lengths[k + 1 :])
    out.append(Cut.make(o, -rest if rest else None, 1, SAME))
    for n in lengths[k + 1 :]:
        out.append(
            Cut.make(-rest, -rest + n if rest > n else None, 1, SAME) if rest else Cut(None, 0, 1)
        )
        rest -= n
    return out


def rest_indices(lengths: Sequence[int]) -> list[int]:
    """Split indices (``numpy.split``'s) of lengths with one ``-1``, the rest.

    Those before the ``-1`` count from the front, those after it from the back (the end
    ``INT64_MAX``: an index 0 is the front): exact on every size that holds the other lengths
    (``[2, -1, 1]``: ``[2, -1]``; ``[2, -1, 0]``: ``[2, INT64_MAX]``), as ``cuts_of_lengths``.
    """
    k = lengths.index(-1)
    out = list(itertools.accumulate(lengths[:k]))
    rest = sum(lengths[k + 1 :])
    for n in lengths[k + 1 :]:
        out.append(-rest if rest else INT64_MAX)
        rest -= n
    return out


def _part_cuts(rule: str, value: Any, dim: Dimension) -> list[Cut] | None:
    """Cuts of the parts of a split on an axis whose size is not static.

    Exact on every size ``dim`` allows on which the split runs; None where the parts move with
    the size.
    """
    if rule == "lengths":
        return cuts_of_lengths(value)
    if (rule in ("even", "array_split", "chunk", "onnx", "onnx_reference") and value == 1) or (
        rule == "size" and dim.max is not None and dim.max <= value
    ):
        return [WHOLE]
    return None


def _function_first(op: str, name: str, arg: Any, axis: str) -> None:
    """Refuse ``from_torch("chunk", 3)``: the function is the keyword ``function=``."""
    if isinstance(arg, str) and arg in ("split", "array_split", "chunk", "tensor_split"):
        raise DTypeError(  # a string where a number is, as any other string
            op,
            name,
            arg,
            "is a function's name, not its argument",
            hint=f"name the function as a keyword: {op}(n, {axis}, function={arg!r})",
        )


def part_slicing(axis: int, c: Cut) -> Slicing:
    """The slicing that takes the cut ``c`` of ``axis`` and keeps the other axes whole."""
    if axis >= 0:
        return Slicing((WHOLE,) * axis + (c,))
    return Slicing((Ellipsis, c) + (WHOLE,) * (-axis - 1))


@dataclass(init=False, repr=False, unsafe_hash=True)  # ==, hash: (axis, rule, value)
class Splitting:
    """A split of one axis into parts, under an uneven-size rule named by its library.

    Build one with ``from_split``, ``from_variadic_split``, ``from_numpy``, ``from_torch``,
    ``from_tf``, ``from_dml``, ``from_webnn`` or ``from_onnx``; read its parts with
    ``lengths(size)`` or ``as_slicings(shape)``; apply it with ``s(x)``; write it with
    ``to_openvino``, ``to_numpy``, ``to_torch``, ``to_tf``, ``to_webnn``, ``to_onnx``
    (each ``shape=None``) or ``to_dml(shape)``.

    Examples
    --------
    >>> import numpy as np, datamove as dm
    >>> s = dm.Splitting.from_torch(3, function="chunk")
    >>> s.lengths(4), s.lengths(5)
    ((2, 2), (2, 2, 1))
    >>> s.to_openvino([4])
    ('VariadicSplit', {'axis': 0, 'split_lengths': [2, 2]})
    >>> dm.Splitting.from_numpy(3, function="array_split").to_torch()
    ('tensor_split', {'sections': 3, 'dim': 0})
    >>> [p.tolist() for p in dm.Splitting.from_variadic_split(0, [1, -1])(np.arange(3))]
    [[0], [1, 2]]
    """

    __slots__ = ("axis", "rule", "value")

    axis: int
    rule: str
    value: Any

    def __init__(self, axis: int, rule: str, value: Any) -> None:
        if rule not in RULES:
            raise ValidationError("Splitting", "rule", rule, f"is not one of {', '.join(RULES)}")
        object.__setattr__(self, "axis", axis)
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "value", value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Splitting is immutable")

    def __repr__(self) -> str:
        return f"Splitting(axis={self.axis}, rule={self.rule!r}, value={self.value!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickle and copy through ``__init__`` (attributes cannot be set one by one)."""
        return (type(self), (self.axis, self.rule, self.value))

    # -- parsers ---------------------------------------------------------------------------
    @staticmethod
    def _count(op: str, name: str, value: Any) -> int:
        return output_count(op, name, value, "must be at least 1")

    @staticmethod
    def _lengths_arg(op: str, name: str, value: Any, rest: bool = False) -> tuple[int, ...]:
        """Parts' lengths, not none: each at least 0, or ``-1`` (once at most) where ``rest``.

        With ``rest`` (VariadicSplit), in the words ``dm.variadic_split`` uses for the same values.
        """
        if rest:
            lengths = variadic_lengths(op, name, value)
        else:
            lengths = as_int_vector(op, name, value)
            check_each(op, name, lengths, lambda v: v >= 0, "must be at least 0")
        if not lengths:
            raise ValidationError(op, name, value, "is empty")
        return lengths

    @classmethod
    def from_split(cls, axis: Any, num_splits: Any) -> Splitting:
        """OpenVINO Split-1: ``num_splits`` equal parts."""
        op = "Split"
        return cls(as_int(op, "axis", axis), "even", cls._count(op, "num_splits", num_splits))

    @classmethod
    def from_variadic_split(cls, axis: Any, split_lengths: Any) -> Splitting:
        """OpenVINO VariadicSplit-1: the lengths, one of them ``-1`` (the rest) at most."""
        op = "VariadicSplit"
        lengths = cls._lengths_arg(op, "split_lengths", split_lengths, rest=True)
        return cls(as_int(op, "axis", axis), "lengths", lengths)

    @classmethod
    def from_numpy(
        cls, indices_or_sections: Any, axis: Any = 0, *, function: str = "split"
    ) -> Splitting:
        """``numpy.split`` or ``numpy.array_split`` (``function``): a count or a list of indices.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_numpy(3, 1, function="array_split").lengths(7)
        (3, 2, 2)
        """
        if function not in ("split", "array_split"):
            raise ValidationError(
                "Splitting.from_numpy", "function", function, "is not 'split' or 'array_split'"
            )
        _function_first("Splitting.from_numpy", "indices_or_sections", indices_or_sections, "axis")
        op = f"numpy.{function}"
        ax = as_int(op, "axis", axis)
        if listed(indices_or_sections):
            return cls(ax, "indices", as_int_vector(op, "indices_or_sections", indices_or_sections))
        n = cls._count(op, "indices_or_sections", indices_or_sections)
        return cls(ax, "even" if function == "split" else "array_split", n)

    @classmethod
    def from_torch(cls, arg: Any, dim: Any = 0, *, function: str = "split") -> Splitting:
        """``torch.split``, ``torch.chunk`` or ``torch.tensor_split`` (``function``).

        ``arg`` is what the function takes: ``split_size_or_sections``, ``chunks``, or
        ``indices_or_sections``.

        Examples
        --------
        >>> import datamove as dm
        >>> s = dm.Splitting.from_torch(3, -1, function="chunk")  # torch.chunk(x, 3, dim=-1)
        >>> s.lengths(10), s.to_openvino([2, 10])
        ((4, 4, 2), ('VariadicSplit', {'axis': -1, 'split_lengths': [4, 4, 2]}))
        """
        if function not in ("split", "chunk", "tensor_split"):
            raise ValidationError(
                "Splitting.from_torch",
                "function",
                function,
                "is not 'split', 'chunk' or 'tensor_split'",
            )
        _function_first("Splitting.from_torch", "arg", arg, "dim")
        op = f"torch.{function}"
        ax = as_int(op, "dim", dim)
        if function == "chunk":
            return cls(ax, "chunk", cls._count(op, "chunks", arg))
        if function == "tensor_split":
            if listed(arg):
                return cls(ax, "indices", as_int_vector(op, "indices_or_sections", arg))
            return cls(ax, "array_split", cls._count(op, "indices_or_sections", arg))
        if not listed(arg):
            return cls(ax, "size", cls._count(op, "split_size_or_sections", arg))
        return cls(ax, "lengths", cls._lengths_arg(op, "split_size_or_sections", arg))

    @classmethod
    def from_dml(cls, axis: Any, output_sizes: Any) -> Splitting:
        """DirectML ``DML_SPLIT_OPERATOR_DESC``: the unsigned ``Axis`` and each output's ``Sizes``.

        The outputs' sizes agree off the axis; on it each is at least 1 (their sum is the
        input's size there).

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_dml(2, [[1, 1, 2, 2], [1, 1, 1, 2], [1, 1, 3, 2]]).lengths(6)
        (2, 1, 3)
        """
        ax, lengths = read_dml_split(axis, output_sizes)
        return cls(ax, "lengths", lengths)

    @classmethod
    def from_webnn(cls, splits: Any, axis: Any = 0) -> Splitting:
        """WebNN ``split(input, splits, {axis})``: a count that must divide, or sizes (each >= 1).

        The axis is unsigned; at most 8192 outputs.
        """
        ax, value = read_webnn_split(splits, axis)
        return cls(ax, "lengths", value) if isinstance(value, tuple) else cls(ax, "even", value)

    @classmethod
    def from_tf(cls, num_or_size_splits: Any, axis: Any = 0, num: Any = None) -> Splitting:
        """``tf.split(x, num_or_size_splits, axis, num)``: a count that must divide, or sizes.

        An int (Python or NumPy) is a count (the ``"even"`` rule; ``num`` is ignored, as
        TensorFlow ignores it); a 1-D list or NumPy array (int8, int32 or int64, TensorFlow's
        size types) gives the sizes (``"lengths"``): each at least 0, or one ``-1`` for the rest,
        and ``num``, where given, their count. A 0-D array, and ``[-1]`` alone (TensorFlow
        refuses one output of another size than the axis), are refused as TensorFlow refuses
        them; so are bools, which TensorFlow reads as 0 and 1.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_tf([2, -1], axis=1).lengths(5)
        (2, 3)
        >>> dm.Splitting.from_tf(3).to_openvino()
        ('Split', {'axis': 0, 'num_splits': 3})
        """
        op, name = "tf.split", "num_or_size_splits"
        ax = as_int(op, "axis", axis)
        d = describe(num_or_size_splits)
        if d is not None and not d.shape:
            raise ValidationError(
                op,
                name,
                num_or_size_splits,
                "is a 0-D tensor; tf.split takes an int (a count) or a 1-D list of sizes",
                hint="pass int(n) for a count, or [n] for one size",
            )
        if not listed(num_or_size_splits):
            return cls(ax, "even", cls._count(op, name, num_or_size_splits))
        if d is not None and d.library == "NumPy" and d.element not in _TF_SIZE_TYPES:
            raise ValidationError(
                op,
                name,
                num_or_size_splits,
                f"has element type {d.element}; tf.split's sizes are int8, int32 or int64",
            )
        lengths = cls._lengths_arg(op, name, num_or_size_splits, rest=True)
        if lengths == (-1,):
            raise ValidationError(
                op,
                name,
                num_or_size_splits,
                "is [-1]: one output must have the axis' size (tf.split reads -1 as the rest "
                "only beside other sizes)",
                hint="pass 1 for the whole axis",
            )
        if num is not None and as_int(op, "num", num) != len(lengths):
            raise ValidationError(
                op, "num", num, f"is not the count of num_or_size_splits' {len(lengths)} sizes"
            )
        return cls(ax, "lengths", lengths)

    @classmethod
    def from_onnx(
        cls,
        axis: Any = 0,
        split: Any = None,
        *,
        num_outputs: Any = None,
        outputs: Any = None,
        opset: Any = 18,
        reading: str = "spec",
    ) -> Splitting:
        """ONNX Split-2/11/13/18, as the node in a model of ``opset`` (its default domain's).

        ``split`` is the ``split`` attribute (Split-2, Split-11) or input (Split-13, Split-18):
        the parts' lengths, each at least 0, summing to the axis size. Without it, Split-2/11/13
        make ``outputs`` equal parts (the node's output count; ``"even"``), and Split-18 takes
        ``num_outputs`` instead (exactly one of ``split`` and ``num_outputs``): the ``"onnx"``
        rule, the spec's and onnxruntime's, or with ``reading="reference"`` the
        ``"onnx_reference"`` rule, ``onnx.reference``'s, which gives the same parts where the
        spec gives valid ones. ``outputs``, where given, must match the parts' count.

        Examples
        --------
        >>> import datamove as dm
        >>> s = dm.Splitting.from_onnx(0, num_outputs=4)
        >>> s.lengths(7), s.lengths(4)
        ((2, 2, 2, 1), (1, 1, 1, 1))
        >>> s.lengths(5)
        Traceback (most recent call last):
        ...
        datamove._errors.ValidationError: Splitting: size=5 cannot be split by the 'onnx' rule ...
        >>> dm.Splitting.from_onnx(0, num_outputs=4, reading="reference").lengths(5)
        (2, 2, 1, 0)
        >>> dm.Splitting.from_onnx(1, [2, 3], opset=11).to_openvino()
        ('VariadicSplit', {'axis': 1, 'split_lengths': [2, 3]})
        """
        version = onnx_split_version(opset)
        op = f"ONNX Split-{version}"
        if reading not in ("spec", "reference"):
            raise ValidationError(op, "reading", reading, "is not 'spec' or 'reference'")
        ax = as_int(op, "axis", axis)
        if version == 2 and ax < 0:
            raise ValidationError(
                op, "axis", axis, "is negative; Split-2 counts axes from the front only"
            )
        count = None if outputs is None else cls._count(op, "outputs", outputs)
        if num_outputs is not None and version < 18:
            raise ValidationError(
                op, "num_outputs", num_outputs, "is an attribute of Split-18 only"
            )
        if split is not None:
            if num_outputs is not None:
                raise ValidationError(
                    op, "num_outputs", num_outputs, "is given with split; give one of them"
                )
            lengths = cls._lengths_arg(op, "split", split)
            if count is not None and count != len(lengths):
                rule = (
                    f"has {plural(len(lengths), 'value')}, but the node has "
                    f"{plural(count, 'output')}"
                )
                raise ValidationError(op, "split", split, rule)
            return cls(ax, "lengths", lengths)
        if version >= 18:
            if num_outputs is None:
                raise ValidationError(
                    op, "num_outputs", None, "is missing; Split-18 needs split or num_outputs"
                )
            n = cls._count(op, "num_outputs", num_outputs)
            if count is not None and count != n:
                raise ValidationError(
                    op, "num_outputs", num_outputs, f"is not the node's {plural(count, 'output')}"
                )
            return cls(ax, "onnx" if reading == "spec" else "onnx_reference", n)
        if count is None:
            raise ValidationError(
                op, "outputs", None, "is missing; without split the parts are the node's outputs"
            )
        return cls(ax, "even" if reading == "spec" else "onnx_reference", count)

    @classmethod
    def from_slicings(cls, slicings: Any, shape: ShapeLike | None = None) -> Splitting:
        """The split whose parts are these slicings, in order (``dm.group_into_split``).

        Raises :class:`~datamove.ValidationError` where no split's parts are the slicings on
        every shape ``shape`` allows, saying why, with a shape that shows it where one does.

        Examples
        --------
        >>> import datamove as dm
        >>> parts = [dm.Slicing.from_numpy(t) for t in ("x[:, :2]", "x[:, 2:-3]", "x[:, -3:]")]
        >>> dm.Splitting.from_slicings(parts, "[?,5..]").to_openvino("[?,5..]")
        ('VariadicSplit', {'axis': 1, 'split_lengths': [2, -1, 3]})
        >>> dm.Splitting.from_slicings(parts, "[?,?]")
        Splitting(axis=1, rule='indices', value=(2, -3))
        >>> dm.Splitting.from_slicings(["x[:2]", "x[3:]"], "[?]")
        Traceback (most recent call last):
        ...
        datamove._errors.ValidationError: Splitting.from_slicings: ... they leave a hole, ...
        """
        items = list(slicings)
        found: Splitting | str = ALGEBRA["group_into_split"](
            items, shape, "Splitting.from_slicings"
        )
        if isinstance(found, str):
            raise ValidationError(
                "Splitting.from_slicings",
                "slicings",
                [entries_text(s.entries) if isinstance(s, Slicing) else s for s in items],
                f"are the parts of no split on every shape "
                f"{'of any rank' if shape is None else str(shape)} allows: they {found}",
                hint=None if shape is not None else "pass the shape",
            )
        return found

    # -- parts -----------------------------------------------------------------------------
    def lengths(self, size: Any) -> tuple[int, ...]:
        """The parts' lengths on an axis of ``size`` elements; raises where the rule refuses."""
        d = as_int("Splitting", "size", size)
        if d < 0:
            raise ValidationError("Splitting", "size", size, "must be at least 0")
        out = _lengths(self.rule, self.value, d)
        if out is None:
            rule = f"cannot be split by the {self.rule!r} rule with {self.value!r}"
            if self.rule == "even":
                rule += f": {d} is not a multiple of {self.value}"
            elif self.rule == "lengths":
                known = sum(v for v in self.value if v != -1)
                rule += (
                    f": they sum to {known}"
                    + (" without the -1, more than" if -1 in self.value else ", not")
                    + f" {d}"
                )
            elif self.rule == "onnx":
                k = -(-d // self.value)
                rule += (
                    f": ONNX Split-18's num_outputs makes parts of ceil({d}/{self.value}) = {k}, "
                    f"the last {d} - {self.value - 1}*{k} = {d - (self.value - 1) * k}, not a "
                    "length (onnxruntime refuses it too)"
                )
            raise ValidationError("Splitting", "size", size, rule)
        return out

    def _dim(self, shape: ShapeLike | None, op: str) -> Dimension:
        ps = shape_dims(shape, op)
        return Dimension() if ps.rank is None else ps.dims[self._front_axis(ps.rank, op)]

    def _smallest_run(self, dim: Dimension) -> int | None:
        """The smallest size ``dim`` allows on which the split runs; None where it refuses all.

        Only ``even``, ``lengths`` and ``onnx`` refuse sizes; each in closed form (an
        unbounded ``dim`` holds the sizes below ``INT64_MAX``, as in ``infer_variadic_split``).
        """
        lo, top = dim.min, largest(dim)
        if self.rule == "even":  # the first multiple of n
            d = -(-lo // self.value) * self.value
        elif self.rule == "onnx":  # parts of k = ceil(d / n), the last d - (n-1)*k >= 0
            d = max(lo, (self.value - 1) * -(-lo // self.value))
        elif self.rule == "lengths":
            known = sum(v for v in self.value if v != -1)
            d = max(lo, known) if -1 in self.value else known if known >= lo else top + 1
        else:
            d = lo
        return d if d <= top else None

    def _check_runs(self, shape: ShapeLike | None, op: str) -> Dimension:
        """The axis' sizes; the split's own ``ValidationError`` where it refuses every one.

        Every emitter calls it first, so a split no allowed size runs (``numpy.split(x, 2)`` on
        ``[?,1]``) is refused alike everywhere, as ``s(x)`` refuses it, never written.
        """
        dim = self._dim(shape, op)
        if self._smallest_run(dim) is None:
            if dim.is_static:
                self.lengths(dim.min)  # raises the error s(x) raises on that size
            raise ValidationError(
                "Splitting",
                "shape",
                shape,
                f"allows {sizes_text(dim)} on axis {self.axis}, and the {self.rule!r} rule with "
                f"{self.value!r} splits none of them",
            )
        return dim

    def as_slicings(self, shape: ShapeLike | None = None) -> list[Slicing]:
        """One :class:`Slicing` per part, exact on every allowed size on which the split runs.

        (On the other sizes the split refuses and the slicings do not; where it refuses every
        allowed size, :class:`~datamove.ValidationError`.)

        A list of indices is exact on every size (NumPy's parts are such slicings), and so are
        lengths (VariadicSplit's ``-1`` part is written from both ends: ``x[2:-3]``) and one
        part; another rule needs a static size on the axis, or raises
        :class:`~datamove.NotExpressible`. :meth:`from_slicings` goes the other way.

        Examples
        --------
        >>> import datamove as dm
        >>> [s.to_numpy() for s in dm.Splitting.from_variadic_split(1, [2, -1, 3]).as_slicings()]
        ['x[:, :2]', 'x[:, 2:-3]', 'x[:, -3:]']
        """
        dim = self._check_runs(shape, "Splitting.as_slicings")
        if self.rule == "indices":
            points = [None, *self.value, None]
            cuts = [Cut.make(a, b, 1, SAME) for a, b in itertools.pairwise(points)]
        elif not dim.is_static:
            found = _part_cuts(self.rule, self.value, dim)
            if found is None:
                w = self._count_changes(dim)
                raise NotExpressible(
                    "Slicing",
                    "shape",
                    shape,
                    f"allows {sizes_text(dim)} on axis {self.axis}, where the {self.rule!r} rule's "
                    "parts move with the size; fixed slicings cannot say them",
                    hint=pass_the_shape(shape, f"a static size of axis {self.axis}"),
                    witness=None if w is None else (w,),
                )
            cuts = found
        else:
            cuts = cuts_of_lengths(self.lengths(dim.min))
        return [part_slicing(self.axis, c) for c in cuts]

    def __call__(self, x: Any) -> list[Any]:
        """The parts of ``x`` (views where its library gives them)."""
        shape = tuple(x.shape)
        try:
            dim = self._dim(shape, "Splitting")
        except ValidationError as exc:  # x's shape, not a shape the caller gave (INT64_MAX)
            if exc.argument != "shape" or exc.value is not shape:
                raise
            raise ValidationError(
                "Splitting", "data.shape", list(shape), exc.rule, hint=exc.hint
            ) from None
        self.lengths(dim.min)
        return [s(x) for s in self.as_slicings(shape)]

    # -- emitters --------------------------------------------------------------------------
    def _witness(self, dim: Dimension, rule: str, value: Any) -> int | None:
        """The smallest size ``dim`` allows on which the split ``rule`` with ``value`` differs.

        It splits otherwise there, or refuses otherwise; None where no size differs. Exact on
        any interval, bounded or not: the sizes tried are ``_candidates``, never a scan.
        """
        mine, other = _runs_of(self.rule, self.value), _runs_of(rule, value)
        sizes = _candidates([(self.rule, self.value), (rule, value)], dim.min, largest(dim))
        return next((d for d in sizes if mine(d) != other(d)), None)

    def _rest_lengths(self, dim: Dimension) -> tuple[int, ...] | None:
        """Lengths with one ``-1`` (the rest) that split as this split on every size ``dim`` allows.

        The candidate is read on the two smallest allowed sizes the split runs on: the same
        count of parts, one of them longer on the second. ``None`` where there is none, or it
        splits otherwise on an allowed size.
        """
        first = self._smallest_run(dim)
        if first is None or first >= largest(dim):
            return None
        second = self._smallest_run(Dimension(first + 1, dim.max))
        if second is None:
            return None
        mine = _runs_of(self.rule, self.value)
        if sum(c for _, c in mine(first) or ()) != sum(c for _, c in mine(second) or ()):
            return None
        la, lb = self.lengths(first), self.lengths(second)
        moved = [i for i, (u, v) in enumerate(zip(la, lb, strict=True)) if u != v]
        if len(moved) != 1:
            return None
        k = moved[0]
        candidate = (*la[:k], -1, *la[k + 1 :])
        return None if self._witness(dim, "lengths", candidate) else candidate

    def _count_changes(self, dim: Dimension) -> int | None:
        """The smallest allowed size with another number of parts than on the smallest.

        (Or refused where that is not, or the other way round.) Exact, as ``_witness``.
        """
        mine = _runs_of(self.rule, self.value)

        def count(d: int) -> int | None:
            runs = mine(d)
            return None if runs is None else sum(c for _, c in runs)

        first = count(dim.min)
        sizes = _candidates([(self.rule, self.value)], dim.min + 1, largest(dim))
        return next((d for d in sizes if count(d) != first), None)

    def _emit(
        self,
        shape: ShapeLike | None,
        dialect: str,
        same: dict[str, Callable[[], tuple[str, dict[str, Any]]]],
        count: Callable[[int], tuple[str, dict[str, Any]]],
        count_rule: str,
        static: Callable[[tuple[int, ...]], tuple[str, dict[str, Any]]],
        rest: Callable[[tuple[int, ...]], tuple[str, dict[str, Any]]] | None = None,
        below: str = "",
        sums: bool = True,
        also: tuple[str, Callable[[int], tuple[str, dict[str, Any]]]] | None = None,
    ) -> tuple[str, dict[str, Any]]:
        """One call of a library that splits as this one on every size ``shape`` allows.

        Its count call (``count``, splitting by ``count_rule``) or a call for the rules in
        ``same``; else, on a static size, the lengths (``static``); else the closest count
        where it splits alike on every allowed size, or the library's other count call
        (``also``: its rule and call), or for ``chunk`` and ``size`` the count of their parts on
        the smallest allowed size; else, where the split runs on one allowed size alone and
        the library's lengths refuse every other size (``sums``; NumPy's indices do not), its
        lengths there (``static``); else, where the library says lengths with
        one ``-1`` for the rest (``rest``) and such lengths split alike on every allowed size
        (the split's own, or ``_rest_lengths``), those. Where the library
        does not refuse a size below the other lengths' sum, ``below`` says what it does
        there, and they are written only where every allowed size holds them: OpenVINO's CPU
        plugin reads past its input (divergence 4), NumPy's and PyTorch's indices split it.
        """
        dim = self._check_runs(shape, dialect)
        if self.rule == count_rule:
            return count(int(self.value))
        if self.rule in same:
            return same[self.rule]()
        if dim.is_static:
            lengths = self.lengths(dim.min)
            check_tiling(lengths, dim.min, self.axis, dialect, shape, self.value, empty=True)
            return static(lengths)
        if self.rule != "lengths" and _part_cuts(self.rule, self.value, dim) == [WHOLE]:
            return count(1)  # one part, the whole axis, on every size: so is a count of 1
        found = (
            None
            if rest is None
            else self.value
            if self.rule == "lengths" and -1 in self.value
            else self._rest_lengths(dim)
        )
        value = self._closest_count()
        call, rule = count(value), count_rule
        w = self._witness(dim, rule, value)
        if w is None:  # the closest call splits alike on every allowed size
            return call
        # the library's other count call, and the count of chunk's and size's parts on the
        # smallest allowed size (their count moves with the size), where they split alike
        calls = [(rule, count)] + ([] if also is None else [also])
        smallest = _runs(self.rule, self.value, dim.min) if self.rule in ("chunk", "size") else None
        for n in dict.fromkeys((value, sum(c for _, c in smallest or ()) or value)):
            for other, make in calls:
                if (other, n) != (rule, value) and self._witness(dim, other, n) is None:
                    return make(n)
        first = self._smallest_run(dim)
        assert first is not None  # _check_runs: the split runs on an allowed size
        if sums and (
            first == largest(dim) or self._smallest_run(Dimension(first + 1, dim.max)) is None
        ):
            # it runs on one allowed size alone: its lengths there, which refuse every other
            return static(self.lengths(first))
        unrun = ""  # lengths with a -1 that split alike, but do not run on every allowed size
        if found is not None:
            assert rest is not None
            least = sum(v for v in found if v != -1)
            if not below or least <= dim.min:
                return rest(found)
            unrun = f"; the lengths {list(found)} split alike, but on a size below {least} {below}"
        raise NotExpressible(
            dialect,
            "shape",
            shape,
            f"allows {sizes_text(dim)} on axis {self.axis}; {dialect} has no {self.rule!r} rule, "
            f"and the closest call {call[0]}({call[1]}) {_outcome(_runs(rule, value, w), w)} "
            f"where this split {_outcome(_runs(self.rule, self.value, w))}{unrun}",
            hint=pass_the_shape(shape, f"a static size of axis {self.axis}"),
            witness=(w,),
        )

    def to_openvino(self, shape: ShapeLike | None = None) -> tuple[str, dict[str, Any]]:
        """``("Split", {axis, num_splits})`` or ``("VariadicSplit", {axis, split_lengths})``.

        OpenVINO refuses a Split of ``n`` parts on an interval from 0 whose largest size is
        below ``n`` (``docs/semantics.md``, divergence 14), where size 0 runs: the split is
        written there as a VariadicSplit of ``n`` zeros, which runs size 0 alone, as Split does.

        On an interval a rule OpenVINO lacks is also written as a VariadicSplit with one ``-1``
        (read on the two smallest sizes, as :meth:`to_tf` reads it) where it splits alike on
        every allowed size and the other lengths fit the smallest: on a size below their sum the
        CPU plugin reads past its input (divergence 4), so such lengths are not written.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_torch(4, function="split").to_openvino("[5..8]")
        ('VariadicSplit', {'axis': 0, 'split_lengths': [4, -1]})
        """
        ax = self.axis
        dim = self._dim(shape, "OpenVINO")

        def variadic(lengths: tuple[int, ...]) -> tuple[str, dict[str, Any]]:
            return ("VariadicSplit", {"axis": ax, "split_lengths": list(lengths)})

        def split(n: int) -> tuple[str, dict[str, Any]]:
            if dim.min == 0 and dim.max is not None and dim.max < n:  # 1 to max: no multiple
                return variadic((0,) * n)
            return ("Split", {"axis": ax, "num_splits": n})

        return self._emit(
            shape,
            "OpenVINO",
            {"lengths": lambda: variadic(self.value)},
            split,
            "even",
            variadic,
            rest=variadic,
            below="OpenVINO's CPU plugin reads past the input instead of refusing it "
            "(docs/semantics.md, divergence 4)",
        )

    def to_numpy(self, shape: ShapeLike | None = None) -> tuple[str, dict[str, Any]]:
        """``("split" | "array_split", {indices_or_sections, axis})``: a ``numpy`` function."""
        ax = self.axis

        def call(name: str, arg: Any) -> tuple[str, dict[str, Any]]:
            return (name, {"indices_or_sections": arg, "axis": ax})

        return self._emit(
            shape,
            "NumPy",
            {
                "even": lambda: call("split", self.value),
                "indices": lambda: call("split", list(self.value)),
            },
            lambda n: call("array_split", n),
            "array_split",
            lambda lengths: call("split", list(itertools.accumulate(lengths[:-1]))),
            rest=lambda lengths: call("split", rest_indices(lengths)),
            below="numpy.split's indices split it, where this split refuses it",
            sums=False,
            also=("even", lambda n: call("split", n)),
        )

    def to_torch(self, shape: ShapeLike | None = None) -> tuple[str, dict[str, Any]]:
        """A ``torch`` function: ``split``, ``chunk`` or ``tensor_split``.

        ``("split", {split_size_or_sections, dim})``, ``("chunk", {chunks, dim})`` or
        ``("tensor_split", {sections | indices, dim})``: keywords PyTorch takes, so
        ``getattr(torch, name)(t, **params)`` runs (its docs' ``indices_or_sections`` is no
        keyword of ``tensor_split``).
        """
        ax = self.axis

        def split(arg: Any) -> tuple[str, dict[str, Any]]:
            return ("split", {"split_size_or_sections": arg, "dim": ax})

        def tensor_split(arg: Any) -> tuple[str, dict[str, Any]]:
            return ("tensor_split", {"indices" if listed(arg) else "sections": arg, "dim": ax})

        same: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = {
            "indices": lambda: tensor_split(list(self.value)),
            "chunk": lambda: ("chunk", {"chunks": self.value, "dim": ax}),
            "size": lambda: split(self.value),
        }
        if self.rule == "lengths" and -1 not in self.value:
            same["lengths"] = lambda: split(list(self.value))
        return self._emit(
            shape,
            "PyTorch",
            same,
            tensor_split,
            "array_split",
            lambda p: split(list(p)),
            rest=lambda p: tensor_split(rest_indices(p)),
            below="torch.tensor_split's indices split it, where this split refuses it",
            also=("chunk", lambda n: ("chunk", {"chunks": n, "dim": ax})),
        )

    def to_tf(self, shape: ShapeLike | None = None) -> tuple[str, dict[str, Any]]:
        """``("split", {num_or_size_splits, axis})``: ``tf.split``, a count or the sizes.

        The ``"even"`` rule is the count, and lengths the sizes (a ``-1`` for the rest; ``[-1]``
        alone, which TensorFlow refuses, as the count 1), on any shape; on a static axis every
        split is written by its lengths. On an interval of sizes a rule TensorFlow lacks is
        written where the count of as many parts, or the sizes with one ``-1`` (read on the
        two smallest sizes the split runs on), splits alike on every allowed size, or by its
        sizes on the one allowed size it runs on, where it runs on one alone; else
        :class:`~datamove.NotExpressible` names the count and its witness. The sizes are a
        list, or an int64 NumPy array where the axis may pass ``INT32_MAX`` (a ``-1`` on an
        axis of no such bound, sizes summing past it): TensorFlow reads a list of small ints as
        int32 and the axis' size in the sizes' type, wrapping.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_variadic_split(1, [2, -1]).to_tf("[?,2..1000]")
        ('split', {'num_or_size_splits': [2, -1], 'axis': 1})
        >>> dm.Splitting.from_variadic_split(1, [2, -1]).to_tf()
        ('split', {'num_or_size_splits': array([ 2, -1]), 'axis': 1})
        >>> dm.Splitting.from_torch(3, function="chunk").to_tf([7])
        ('split', {'num_or_size_splits': [3, 3, 1], 'axis': 0})
        >>> dm.Splitting.from_torch(4, function="split").to_tf("[5..8]")
        ('split', {'num_or_size_splits': [4, -1], 'axis': 0})
        """
        ax = self.axis

        def call(arg: Any) -> tuple[str, dict[str, Any]]:
            return ("split", {"num_or_size_splits": arg, "axis": ax})

        def sizes(lengths: tuple[int, ...]) -> tuple[str, dict[str, Any]]:
            if lengths == (-1,):  # tf.split refuses [-1]
                return call(1)
            # SplitV reads the axis' size in the sizes' type, a list of small ints int32: past
            # INT32_MAX it wraps, so where the axis may pass it the sizes are int64
            reach = sum(v for v in lengths if v != -1)
            if -1 in lengths:
                reach = largest(self._dim(shape, "TensorFlow"))
            return call(np.array(lengths, np.int64) if reach > INT32_MAX else list(lengths))

        same: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = {}
        if self.rule == "lengths":
            same["lengths"] = lambda: sizes(self.value)
        return self._emit(shape, "TensorFlow", same, call, "even", sizes, rest=sizes)

    def to_dml(self, shape: ShapeLike | None = None) -> tuple[str, dict[str, Any]]:
        """``("SPLIT", {Axis, InputSizes, OutputSizes})`` for DirectML, on one static shape.

        ``Axis`` counted from the front (DirectML's is unsigned), ``OutputSizes`` each output's
        ``Sizes``. DirectML fixes every size when the operator is built and has no empty
        parts or size-0 tensors: another shape, an empty part, or parts that overlap raise
        :class:`~datamove.NotExpressible`, naming sizes the split runs on. An axis the split
        runs on at one size alone is as good as static (``[2, 3]`` on ``[4..6]``: ``[5]``).

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_torch(2, -1, function="split").to_dml([2, 5])
        ('SPLIT', {'Axis': 1, 'InputSizes': [2, 5], 'OutputSizes': [[2, 2], [2, 2], [2, 1]]})
        """
        dim = self._check_runs(shape, DML_SPLIT)
        ps = shape_dims(shape, DML_SPLIT)
        at, other = self._fixed_sizes(dim)
        axis = -1 if ps.rank is None else self._front_axis(ps.rank, DML_SPLIT)

        def base() -> tuple[int, ...]:
            # written for sizes of 1 at least (DirectML has no size 0), where the shape allows
            # them, and on the axis for a size the split runs on
            return tuple(
                at if k == axis else 0 if d.max == 0 else max(d.min, 1)
                for k, d in enumerate(ps.dims)
            )

        if other is None:  # static, or the split runs on one size alone: as good as static
            dims = static_sizes(ps, shape, DML_SPLIT, base, {axis})
        else:
            dims = static_sizes(ps, shape, DML_SPLIT, base, others={axis: other})
        lengths = self.lengths(at)
        check_tiling(
            lengths, at, self.axis, DML_SPLIT, shape, self.value, where=self._alone(dim, at)
        )
        return dml_split_call(dims, axis, lengths, shape)

    def to_webnn(self, shape: ShapeLike | None = None) -> tuple[str, dict[str, Any]]:
        """``("split", {splits, axis})`` for WebNN: a count, or the sizes on a static axis.

        The ``"even"`` rule is WebNN's count on any size (an unknown rank needs an axis
        counted from the front); equal parts are written as a count too (the sizes form is not
        in every implementation, webnn#392). Other rules need a static size on the axis (or
        one size the split runs on alone, as :meth:`to_dml`), parts
        of at least 1 that tile it, and at most 8192 of them, else
        :class:`~datamove.NotExpressible`.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_split(0, 3).to_webnn()
        ('split', {'splits': 3, 'axis': 0})
        >>> dm.Splitting.from_numpy(3, -1, function="array_split").to_webnn([2, 7])
        ('split', {'splits': [3, 2, 2], 'axis': 1})
        """
        ps = shape_dims(shape, WEBNN_SPLIT)
        if ps.rank is None:
            if self.axis < 0:
                raise NotExpressible(
                    WEBNN_SPLIT,
                    "shape",
                    shape,
                    f"has an unknown rank, and WebNN's axis is unsigned: axis {self.axis}, "
                    "counted from the back, names another axis on each rank",
                    hint="pass the shape, or its rank"
                    if shape is None
                    else "pass a shape of known rank",
                )
            axis, dim = self.axis, Dimension()
        else:
            axis = self._front_axis(ps.rank, WEBNN_SPLIT)
            dim = ps.dims[axis]
            smallest = tuple(d.min for d in ps.dims)
            if max(smallest, default=0) > UINT32_MAX:
                raise NotExpressible(
                    WEBNN_SPLIT,
                    "shape",
                    shape,
                    "has a size past 2**32 - 1 on every allowed shape; WebNN's tensor sizes are "
                    "32-bit unsigned",
                    witness=smallest,
                )
        self._check_runs(shape, WEBNN_SPLIT)
        if self.rule == "even":  # WebNN's count is the same rule (it must divide) on every size
            check_part_count(int(self.value))
            return ("split", {"splits": int(self.value), "axis": axis})
        at, w = self._fixed_sizes(dim)
        if w is not None:
            # Sizes that tile one size tile no other: another size the split runs on shows it.
            raise NotExpressible(
                WEBNN_SPLIT,
                "shape",
                shape,
                f"allows {sizes_text(dim)} on axis {self.axis}; WebNN's sizes are fixed when the "
                f"graph is built, and the {self.rule!r} rule's parts move with the size "
                f"({_runs_text(_runs(self.rule, self.value, at))} on size {at}, not on {w})",
                hint="pass the static shape",
                witness=(w,),
            )
        lengths = self.lengths(at)
        check_tiling(
            lengths, at, self.axis, WEBNN_SPLIT, shape, self.value, where=self._alone(dim, at)
        )
        check_part_count(len(lengths))
        if len(set(lengths)) == 1:  # the count form: the sizes form is not everywhere (webnn#392)
            return ("split", {"splits": len(lengths), "axis": axis})
        return ("split", {"splits": list(lengths), "axis": axis})

    def _fixed_sizes(self, dim: Dimension) -> tuple[int, int | None]:
        """The size DirectML's or WebNN's numbers are written for, and another they would miss.

        Both are sizes ``dim`` allows that the split runs on: the smallest of 1 at least (neither
        has a size 0; 0 where the split runs on 0 alone), and the next it runs on, else 0.
        ``None`` for the other where it runs on that size alone: the axis is then as good as
        static (the numbers refuse every other size, as the split does).
        """

        def next_run(d: int) -> int | None:
            return None if d >= largest(dim) else self._smallest_run(Dimension(d + 1, dim.max))

        first = self._smallest_run(dim)
        assert first is not None  # _check_runs: the split runs on an allowed size
        if first > 0:
            return first, next_run(first)
        one = next_run(0)
        if one is None:
            return 0, None
        after = next_run(one)
        return one, 0 if after is None else after

    def _alone(self, dim: Dimension, at: int) -> str | None:
        """Where an interval axis is written for the one size ``at`` the split runs on, says so."""
        if dim.is_static:
            return None
        return (
            f"allows {sizes_text(dim)} on axis {self.axis}, and the split runs on size {at} alone"
        )

    def _front_axis(self, rank: int, op: str) -> int:
        """The axis counted from the front (DirectML's and WebNN's are unsigned)."""
        if not -rank <= self.axis < rank:
            raise AxisError(op, "axis", self.axis, f"is out of range for rank {rank}")
        return self.axis % rank

    def to_onnx(
        self, shape: ShapeLike | None = None, *, opset: Any = 18
    ) -> tuple[str, dict[str, Any]]:
        """``("Split", {axis, outputs, ...})``: an ONNX Split node of a model of ``opset``.

        ``outputs`` is the node's output count; with it ``split`` (the lengths: an attribute
        before opset 13, an input from 13) or, in opset 18, ``num_outputs``, or neither (equal
        parts, before opset 18). Opset 18 splits unevenly by the spec's rule (``"onnx"``), never
        by ``onnx.reference``'s: a split whose parts differ from the spec's on an allowed size
        is written by its lengths on a static axis, or raises
        :class:`~datamove.NotExpressible`.

        Examples
        --------
        >>> import datamove as dm
        >>> dm.Splitting.from_torch(4, function="chunk").to_onnx([7])
        ('Split', {'axis': 0, 'outputs': 4, 'split': [2, 2, 2, 1]})
        >>> dm.Splitting.from_split(1, 3).to_onnx(opset=13)
        ('Split', {'axis': 1, 'outputs': 3})
        """
        version = onnx_split_version(opset)
        dialect = f"ONNX Split-{version}"
        ax = self.axis
        if version == 2 and ax < 0:
            raise NotExpressible(
                dialect,
                "axis",
                ax,
                "is negative; Split-2 counts axes from the front only",
                hint="pass opset=11 or later",
            )

        def lengths(parts: tuple[int, ...]) -> tuple[str, dict[str, Any]]:
            return ("Split", {"axis": ax, "outputs": len(parts), "split": list(parts)})

        def even(n: int) -> tuple[str, dict[str, Any]]:
            if version >= 18:
                return ("Split", {"axis": ax, "outputs": n, "num_outputs": n})
            return ("Split", {"axis": ax, "outputs": n})

        same: dict[str, Callable[[], tuple[str, dict[str, Any]]]] = {}
        if self.rule == "lengths" and -1 not in self.value:
            same["lengths"] = lambda: lengths(self.value)
        rule = "onnx" if version >= 18 else "even"
        return self._emit(shape, dialect, same, even, rule, lengths)

    def _closest_count(self) -> int:
        """The number of parts a count-based call of another library would be given."""
        if self.rule in ("even", "array_split", "chunk", "onnx", "onnx_reference"):
            return int(self.value)
        if self.rule in ("lengths", "indices"):
            return len(self.value) + (self.rule == "indices")
        return 1  # "size": its count moves with the size
