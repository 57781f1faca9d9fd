"""Concat-1: shape inference and execution; the inverse of Split, VariadicSplit and DML_SPLIT.

Inputs of one rank (at least 1) and one element type are joined along ``axis``: the axis
sizes add up, every other size must agree. On intervals the other dimensions merge as their
intersection (an error where it is empty) and the axis dimensions add. Execution writes each
input into its part of the output with the copy engine (on NumPy: one pass over all of them, on
every core): the parts are exactly the chunks of a VariadicSplit of the output, so the output's
views come from the same plan a split would make.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Final

import numpy as np

from datamove import _backends, _plan
from datamove._backends import _copy
from datamove._backends._copy import compiled_loops, copy_pairs
from datamove._backends._numpy import keeps_shape
from datamove._errors import DTypeError, ValidationError, a_kind
from datamove._shape import INT64_MAX, MAX_LENGTH, Dimension, PartialShape, as_partial_shape
from datamove._validation import as_int, normalize_axis, out_loses_mask

__all__ = ["concat", "concat_shape", "infer_concat"]

OP: Final = "Concat"


def _axis(value: Any, rank: int) -> int:
    """``axis`` in ``[0, rank)``; ``rank >= 1`` (the callers refuse scalars first)."""
    return normalize_axis(OP, "axis", value, as_int(OP, "axis", value), rank)


def _count(argument: str, value: Any) -> None:
    if not isinstance(value, list | tuple):
        rule = f"must be a sequence (a list or a tuple), not {a_kind(value)}"
        raise DTypeError(OP, argument, value, rule)
    if not value:
        raise ValidationError(OP, argument, value, "must hold at least one input")
    if len(value) > MAX_LENGTH:
        raise ValidationError(
            OP, argument, f"<{len(value)} inputs>", f"holds more than {MAX_LENGTH} inputs"
        )


def _axis_sum(argument: str, value: list[str], known: list[Dimension], a: int) -> Dimension:
    """The output's size on the axis: the sum of the inputs', each size at most ``INT64_MAX``.

    A sum past ``INT64_MAX`` is no size (OpenVINO wraps it): an error where even the smallest
    sizes sum past it, a bound of ``INT64_MAX`` where only the largest do.
    """
    lo = sum(d.min for d in known)
    if lo > INT64_MAX:
        raise ValidationError(
            OP,
            argument,
            value,
            f"have sizes on the concatenation axis {a} that sum to at least {lo}, past "
            f"INT64_MAX={INT64_MAX}: no sizes they allow can be joined",
        )
    his = [d.max for d in known]
    if len(known) < len(value) or None in his:  # an unbounded size: unbounded, as OpenVINO
        return Dimension(lo, INT64_MAX if lo == INT64_MAX else None)
    return Dimension(lo, min(sum(h or 0 for h in his), INT64_MAX))


def infer_concat(shapes: Any, axis: Any) -> PartialShape:
    """Infer the output shape of Concat-1.

    Parameters
    ----------
    shapes : sequence of shapes
        Each input's shape (``PartialShape``, sequence, or OpenVINO notation); dynamic ranks
        allowed. Every static rank must be the same, and at least 1.
    axis : int
        The axis to join along, in ``[-rank, rank - 1]``.

    Returns
    -------
    PartialShape
        The axis dimensions add up; every other dimension is the intersection of the inputs'.

    Examples
    --------
    >>> print(infer_concat(["[2,?,4]", "[1..3,5,4]"], 0))
    [3..5,5,4]
    >>> infer_concat([[2, 3], [2, 4]], 0)
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: Concat: shapes=['[2,3]', '[2,4]'] differ in dimension 1, ...
    """
    _count("shapes", shapes)
    parts = [as_partial_shape(s, OP, f"shapes[{k}]") for k, s in enumerate(shapes)]
    return concat_shape(parts, axis, "shapes")


def concat_shape(
    parts: list[PartialShape], axis: Any, argument: str, shown: list[str] | None = None
) -> PartialShape:
    """`infer_concat` of ``parts``, its errors naming the caller's ``argument``.

    ``shapes`` (`infer_concat`, ``datamove explain concat``), ``arrays`` (`concat`, with
    ``shown``, each array as the message shows it), or a model layer's ``inputs``.
    """
    _count(argument, parts)
    value = [str(s) for s in parts] if shown is None else shown
    ranks = {s.rank for s in parts if s.rank is not None}
    if len(ranks) > 1:
        raise ValidationError(OP, argument, value, "must all have the same rank")
    if not ranks:
        as_int(OP, "axis", axis)
        return PartialShape(None)
    rank = ranks.pop()
    if rank == 0:
        raise ValidationError(OP, argument, value, "are scalars; Concat needs rank 1 or more")
    a = _axis(axis, rank)
    dims: list[Dimension] = []
    for k in range(rank):
        known = [s[k] for s in parts if s.rank is not None]
        if k == a:
            dims.append(_axis_sum(argument, value, known, a))
            continue
        lo = max(d.min for d in known)
        bounded = [d.max for d in known if d.max is not None]
        hi = min(bounded) if bounded else None
        if hi is not None and hi < lo:
            raise ValidationError(
                OP,
                argument,
                value,
                f"differ in dimension {k}, which is not the concatenation axis {a}",
            )
        dims.append(Dimension(lo, hi))
    return PartialShape._of(tuple(dims))


def concat(arrays: Any, axis: Any, *, out: Any = None) -> Any:
    """Join ``arrays`` along ``axis`` (OpenVINO Concat-1): a new array, or ``out``.

    Parameters
    ----------
    arrays : sequence of arrays
        At least one array, all of one library, device, rank (1 or more) and element type,
        with the same sizes off ``axis``.
    axis : int
        The axis to join along, in ``[-rank, rank - 1]``.
    out : array, optional
        A preallocated array of the output's shape and dtype to write into. It must not share
        memory with any input. Where an input is a NumPy masked array, ``out`` must be one too,
        and gets the joined mask as well.

    Returns
    -------
    array
        The joined array (``out`` itself when given). NumPy subclasses join as NumPy joins
        them: masked arrays as ``np.ma.concatenate`` (the masks joined with the data), others
        as ``np.concatenate`` (``np.matrix``), where that keeps the output's shape.

    Raises
    ------
    ValidationError
        With the operator, the argument, the value and the rule broken.

    Examples
    --------
    >>> import numpy as np
    >>> concat([np.zeros((1, 2)), np.ones((2, 2))], 0).tolist()
    [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0]]
    >>> import datamove as dm
    >>> x = np.arange(12).reshape(3, 4)
    >>> np.array_equal(concat(dm.variadic_split(x, 1, [1, -1]), 1), x)
    True
    >>> m = np.ma.masked_array([1, 2], mask=[False, True])
    >>> concat([m, np.array([3])], 0)
    masked_array(data=[1, --, 3],
                 mask=[False,  True, False],
           fill_value=999999)
    """
    _count("arrays", arrays)
    prepared = [_prepare(k, a) for k, a in enumerate(arrays)]
    backend = prepared[0][0]
    for k, (other, _, _) in enumerate(prepared[1:], 1):
        if type(other) is not type(backend):
            raise DTypeError(
                OP,
                f"arrays[{k}]",
                f"<{type(arrays[k]).__name__}>",
                f"comes from {other.name}, but arrays[0] from {backend.name}; "
                "datamove never moves data between libraries",
            )
    shapes = [s for _, _, s in prepared]
    if len(shapes) <= _plan.MAX_PARAMS:  # the shapes and the axis: a key (the one key rule)
        plan = _plan.plan_for(_plan.CONCAT, shapes[0], (axis, *shapes[1:]), _build)
    else:
        plan = _build(*shapes[:1], axis, *shapes[1:])
    parts = [arr for _, arr, _ in prepared]
    dtype = parts[0].dtype
    if any(p.dtype != dtype for p in parts):
        dtypes = sorted({str(p.dtype) for p in parts})
        raise DTypeError(
            OP,
            "arrays",
            [f"<array of dtype {p.dtype}>" for p in parts],
            f"mix element types ({', '.join(dtypes)}); Concat never converts values",
        )
    try:
        if backend is not _backends.NUMPY:
            return backend.concat(OP, parts, plan.axis, out)
        return _numpy_concat(parts, plan, out)
    except ValidationError as exc:
        raise _backends.single_out(exc) from None


def _build(shape: tuple[int, ...], axis: Any, *others: tuple[int, ...]) -> _plan.Plan:
    """The plan of a join of inputs of these shapes: each one's part of the output (a chunk).

    `concat_shape` checks the shapes and the axis. Where a size on the axis is not known (a
    Dask array's NaN), the plan has the axis alone: such joins are not keyed, and only NumPy's
    reads the parts.
    """
    shapes = (shape, *others)
    parts = [as_partial_shape(s, OP, f"arrays[{k}]") for k, s in enumerate(shapes)]
    joined = concat_shape(parts, axis, "arrays", [f"<array of shape {list(s)}>" for s in shapes])
    a = _axis(axis, len(shape))
    if not joined[a].is_static:
        return _plan.Plan((), False, a, 0, {})
    return _plan.chunks(a, [0, *itertools.accumulate(s[a] for s in (shape, *others))])


def _prepare(k: int, value: Any) -> tuple[Any, Any, tuple[int, ...]]:
    """``_backends.prepare`` of input ``k``: its errors (each of ``data``) name ``arrays[k]``."""
    try:
        return _backends.prepare(OP, value)
    except ValidationError as exc:
        raise type(exc)(exc.op, f"arrays[{k}]", exc.value, exc.rule, hint=exc.hint) from None


def _numpy_concat(parts: list[np.ndarray], plan: _plan.Plan, out: Any) -> np.ndarray:
    """Each input copied into its part of the output, in one pass of the copy engine.

    Where every part is one contiguous block of a C-contiguous output (the axes before
    ``axis`` all have size 1), the join is one run of bytes per part: the compiled loops stream
    large ones on every thread (``bench concat``: 1.1-1.3x ``np.concatenate`` and ``torch.cat``
    with ``out=``). Without them, a fresh output of such blocks is ``np.concatenate``'s own,
    which faults the new pages in on one thread at memory speed (the copy engine's threads
    running ``np.copyto`` were 0.95-0.97 of it there). Below ``SMALL_BYTES``, where the copy
    engine takes ``np.copyto`` on one thread too, a fresh output is ``np.concatenate``'s: one C
    call (``dm.concat`` of two ``[2,3]`` arrays: 54 -> 5 us).
    """
    axis = plan.axis
    first = parts[0].shape
    shape = (*first[:axis], plan.indices[-1][axis].stop, *first[axis + 1 :])
    for p in parts:  # a loop: a third of the cost of all() over a generator (0.2 us, 2 inputs)
        if type(p) is not np.ndarray:
            return _subclass_concat(parts, plan, shape, out)
    if type(out) is not np.ndarray and isinstance(out, np.ndarray):
        return _subclass_concat(parts, plan, shape, out)
    if out is None:
        try:
            if _by_numpy(parts, shape, axis):  # its dtype: its own is native and packed
                return np.concatenate(parts, axis=axis, dtype=parts[0].dtype)
            result = np.empty(shape, parts[0].dtype)
        except (ValueError, MemoryError) as exc:  # more than NumPy can hold: say so
            raise ValidationError(
                OP,
                "arrays",
                [f"<array of shape {list(p.shape)}, {p.dtype}>" for p in parts],
                f"cannot be joined by NumPy ({exc})",
            ) from None
    else:
        result = out
        _backends.NUMPY.check_out_array(OP, out, shape, parts[0].dtype, parts)
    # The parts of the output are the chunks of a VariadicSplit by the inputs' lengths.
    copy_pairs([(result[index], p) for index, p in zip(plan.indices, parts, strict=True)])
    return result


def _by_numpy(parts: list[np.ndarray], shape: tuple[int, ...], axis: int) -> bool:
    """Whether a fresh output (of exact ndarrays) is ``np.concatenate``'s, not the engine's.

    Small ones, and blocks of a C-contiguous output where the compiled loops were not built.
    """
    if math.prod(shape) * parts[0].itemsize < _copy.SMALL_BYTES:
        return True
    blocks = all(n == 1 for n in shape[:axis]) and all(p.flags.c_contiguous for p in parts)
    return blocks and compiled_loops() is None


def _subclass_concat(
    parts: list[np.ndarray], plan: _plan.Plan, shape: tuple[int, ...], out: Any
) -> np.ndarray:
    """A join where an input or ``out`` is a NumPy subclass, as NumPy's own join gives it.

    Where an input is a masked array, the masks are joined with the data, as
    ``np.ma.concatenate`` joins them (``np.concatenate`` drops them: masked elements would
    become data); `_masked_concat`. Any other subclass comes out as ``np.concatenate`` gives it
    (``np.matrix`` 2-D), where that keeps the output's shape as its own type
    (`_numpy.keeps_shape`), else as the base arrays' join: a 3-D ``np.matrix`` (``m[None]``)
    joins to a plain array. ``out`` of a subclass takes the joined values, written as into a
    plain one.
    """
    if isinstance(out, np.ma.MaskedArray) or any(isinstance(p, np.ma.MaskedArray) for p in parts):
        return _masked_concat(parts, plan, shape, out)
    bases = [p.view(np.ndarray) for p in parts]
    if out is not None:
        _numpy_concat(bases, plan, out.view(np.ndarray))
        return out  # type: ignore[no-any-return]
    try:
        joined = np.concatenate(parts, axis=plan.axis, dtype=parts[0].dtype)
    except (ValueError, MemoryError):  # a 3-D np.matrix: "shape too large to be a matrix"
        return _numpy_concat(bases, plan, None)
    return joined if keeps_shape(joined, shape) else _numpy_concat(bases, plan, None)


def _masked_concat(
    parts: list[np.ndarray], plan: _plan.Plan, shape: tuple[int, ...], out: Any
) -> np.ndarray:
    """The join of the data and of the masks, as ``np.ma.concatenate`` gives it, or into ``out``.

    A fresh result is of the youngest masked subclass among the inputs, its mask ``nomask`` where
    no element is masked, as ``np.ma.concatenate``'s. ``out`` must be a masked array where an
    input is one (else the joined mask would be lost): its data and its whole mask are written
    (a hard mask too), its mask allocated first where it had none.
    """
    bases = [p.view(np.ndarray) for p in parts]
    masks = [np.ma.getmaskarray(p) for p in parts]
    if out is None:
        kind: type[np.ndarray] = np.ma.MaskedArray
        for p in parts:
            if issubclass(type(p), kind):
                kind = type(p)
        result: Any = _numpy_concat(bases, plan, None).view(kind)
        if any(np.ma.getmask(p) is not np.ma.nomask for p in parts):
            result.mask = _numpy_concat(masks, plan, None)
            result.shrink_mask()
        return result  # type: ignore[no-any-return]
    if not isinstance(out, np.ma.MaskedArray):
        _backends.NUMPY.check_out_array(OP, out, shape, parts[0].dtype, bases)  # as for plain
        k = next(k for k, p in enumerate(parts) if isinstance(p, np.ma.MaskedArray))
        hint = "pass a masked array as out, or join the data alone (np.ma.getdata)"
        raise out_loses_mask(OP, "out", out, f"arrays[{k}]", hint)
    data = out.view(np.ndarray)
    _backends.NUMPY.check_out_array(OP, data, shape, parts[0].dtype, bases)
    mask: Any = np.ma.getmask(out)
    if mask is not np.ma.nomask:
        full = [m for p, m in zip(parts, masks, strict=True) if m is np.ma.getmask(p)]
        try:
            _backends.NUMPY.check_out_array(OP, mask, shape, mask.dtype, full)
        except ValidationError as exc:
            raise type(exc)(OP, "out.mask", exc.value, exc.rule, hint=exc.hint) from None
    else:
        out.mask = False  # a mask of its own to write into
        mask = np.ma.getmask(out)
    pairs = zip(plan.indices, bases, masks, strict=True)
    copy_pairs([pair for i, b, m in pairs for pair in ((data[i], b), (mask[i], m))])
    return out
