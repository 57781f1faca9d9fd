"""Running split and join on byte buffers, and the logical values a buffer holds.

:func:`run_split` and :func:`run_join` validate the desc and the buffers bound to it (every
violation at once), then carry out its :class:`~._moves.MovePlan`: whole-byte copies go to the
package's copy engine, 4-bit copies that start or step mid-byte to :mod:`._nibbles`. Element
bits are moved, not values, so NaN payloads and ``-0.0`` survive. :func:`read_tensor` and
:func:`write_tensor` turn a buffer laid out as a ``TensorDesc`` says into NumPy values and back
(4-bit types one value per byte).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from datamove._backends import as_numpy
from datamove._backends._copy import copy_pairs
from datamove._errors import DTypeError, ValidationError
from datamove.directml._buffers import (
    Bytes,
    as_bytes,
    check_bindings,
    check_distinct,
    elements,
    new_buffer,
    pack_nibbles,
)
from datamove.directml._desc import JoinDesc, SplitDesc
from datamove.directml._enums import FeatureLevel, TensorDataType
from datamove.directml._errors import DirectMLValidationError, Violation
from datamove.directml._moves import MovePlan, copy_views, plan_moves
from datamove.directml._nibbles import Region, move_nibbles
from datamove.directml._rules import ValidationOptions
from datamove.directml._tensor import TensorDesc

__all__ = [
    "NUMPY_OF",
    "cast_values",
    "read_tensor",
    "run_join",
    "run_split",
    "write_tensor",
    "write_values",
]

NUMPY_OF: dict[TensorDataType, np.dtype[Any]] = {
    t: np.dtype(t.name.lower()) for t in TensorDataType if t.bits > 4
}
# 4-bit values are handed out one per byte (the wider type that holds them).
NUMPY_OF[TensorDataType.UINT4] = np.dtype(np.uint8)
NUMPY_OF[TensorDataType.INT4] = np.dtype(np.int8)
_RANGE = {TensorDataType.UINT4: (0, 15), TensorDataType.INT4: (-8, 7)}


def run_split(
    desc: SplitDesc,
    input_buffer: Any,
    *,
    outputs: Sequence[Any] | None = None,
    feature_level: FeatureLevel | str | int | None = None,
    options: ValidationOptions | None = None,
) -> list[Bytes]:
    """Run ``DML_SPLIT`` on a byte buffer; return one byte buffer per output.

    Parameters
    ----------
    desc : SplitDesc
        The operator; validated first (all violations at once).
    input_buffer : buffer
        Bytes laid out as ``desc.input`` says, at least ``total_tensor_size_in_bytes`` long
        (T10). Stride-0 dimensions broadcast.
    outputs : sequence of writable buffers, optional
        Where to write. Bytes the output tensors do not cover (padding) are left as they
        were; DirectML itself may overwrite anything within ``total_tensor_size_in_bytes``.
        By default new zeroed buffers of ``total_tensor_size_in_bytes`` are made.
    feature_level : FeatureLevel or str or int, optional
        Also check the feature-level rules of this level. By default only the level-free
        rules are checked, so 4-bit and 64-bit types run anywhere.
    options : ValidationOptions, optional
        The validation switches.

    Returns
    -------
    list of numpy.ndarray
        One 1-D ``uint8`` array per output (the given ``outputs``, viewed as bytes).

    Raises
    ------
    DirectMLValidationError
        When the desc breaks a rule, a buffer is too small (T10) or outputs overlap (S10).

    Examples
    --------
    >>> import numpy as np
    >>> data = np.arange(1, 13, dtype=np.float32)
    >>> desc = SplitDesc(TensorDesc("FLOAT32", [1, 1, 6, 2]),
    ...                  [TensorDesc("FLOAT32", [1, 1, 6, 1])] * 2, axis=3)
    >>> [b.view(np.float32).tolist() for b in run_split(desc, data)]
    [[1.0, 3.0, 5.0, 7.0, 9.0, 11.0], [2.0, 4.0, 6.0, 8.0, 10.0, 12.0]]
    """
    if not isinstance(desc, SplitDesc):
        raise DTypeError("DML_SPLIT", "desc", desc, "must be a SplitDesc")
    found = desc.violations(feature_level, options=options)
    source = as_bytes(input_buffer, "input_buffer", writable=False)
    names = [f"outputs[{i}]" for i in range(len(desc.outputs))]
    if outputs is None:
        targets = [new_buffer(t) for t in desc.outputs]
    else:
        _check_buffers("DML_SPLIT", "outputs", outputs, ", one per output", len(names), "output")
        targets = [as_bytes(b, name, writable=True) for b, name in zip(outputs, names, strict=True)]
        check_distinct(list(zip(names, targets, strict=True)), [("input_buffer", source)], found)
    paths = ["input_buffer", *names]
    check_bindings("DML_SPLIT", [desc.input, *desc.outputs], [source, *targets], paths, found)
    _move(plan_moves(desc), source, targets)
    return targets


def run_join(
    desc: JoinDesc,
    input_buffers: Sequence[Any],
    *,
    output: Any | None = None,
    feature_level: FeatureLevel | str | int | None = None,
    options: ValidationOptions | None = None,
) -> Bytes:
    """Run ``DML_JOIN`` on byte buffers; return the output byte buffer.

    Parameters
    ----------
    desc : JoinDesc
        The operator; validated first (all violations at once).
    input_buffers : sequence of buffers
        One per input, laid out as its ``TensorDesc`` says (T10: long enough).
    output : writable buffer, optional
        Where to write; padding bytes are left as they were. By default a new zeroed buffer.
    feature_level, options
        As for :func:`run_split`.

    Returns
    -------
    numpy.ndarray
        The output as a 1-D ``uint8`` array.

    Raises
    ------
    DirectMLValidationError
        When the desc breaks a rule, a buffer is too small (T10) or the output overlaps an
        input (S10's rule, applied to join).

    Examples
    --------
    >>> import numpy as np
    >>> parts = [TensorDesc("INT32", [2]), TensorDesc("INT32", [3])]
    >>> desc = JoinDesc(parts, TensorDesc("INT32", [5]), axis=0)
    >>> run_join(desc, [np.array([1, 2], np.int32), np.array([3, 4, 5], np.int32)]).view(np.int32)
    array([1, 2, 3, 4, 5], dtype=int32)
    """
    if not isinstance(desc, JoinDesc):
        raise DTypeError("DML_JOIN", "desc", desc, "must be a JoinDesc")
    names = [f"input_buffers[{i}]" for i in range(len(desc.inputs))]
    _check_buffers("DML_JOIN", "input_buffers", input_buffers, "", len(names), "input")
    found = desc.violations(feature_level, options=options)
    sources = [
        as_bytes(b, name, writable=False) for b, name in zip(input_buffers, names, strict=True)
    ]
    if output is None:
        target = new_buffer(desc.output)
    else:
        target = as_bytes(output, "output", writable=True)
        check_distinct([("output", target)], list(zip(names, sources, strict=True)), found)
    paths = ["output", *names]
    check_bindings("DML_JOIN", [desc.output, *desc.inputs], [target, *sources], paths, found)
    _move(plan_moves(desc), target, sources)
    return target


def _check_buffers(op: str, name: str, value: Any, per: str, count: int, noun: str) -> None:
    """``value`` is a sequence of ``count`` buffers, one per ``noun`` (not a buffer itself)."""
    if isinstance(value, bytes | bytearray | memoryview | np.ndarray) or not isinstance(
        value, Sequence
    ):
        raise DTypeError(op, name, value, f"must be a sequence of buffers{per}")
    if len(value) != count:
        raise ValidationError(op, name, value, f"must hold {count} buffers, one per {noun}")


def _move(plan: MovePlan, whole: Bytes, parts: Sequence[Bytes]) -> None:
    """Carry out a plan: copy each part to its slice of the whole (split) or from it (join)."""

    def sides(part: int) -> tuple[Bytes, Bytes]:
        return (parts[part], whole) if plan.split else (whole, parts[part])

    # never a byte shared between whole-byte copies and nibble copies: no element straddles
    copies = [copy_views(c, *sides(c.part)) for c in plan.copies]
    if plan.parallel:
        copy_pairs(copies)  # inline below its thresholds; the row loop and threads above
    else:
        for dst, src in copies:
            np.copyto(dst, src, casting="no")
    if plan.nibbles:
        pairs = [
            (
                Region(dst, p.dst_offset, p.shape, p.dst_strides),
                Region(src, p.src_offset, p.shape, p.src_strides),
            )
            for p in plan.nibbles
            for dst, src in [sides(p.part)]
        ]
        move_nibbles(pairs, plan.lead, parallel=plan.parallel)


# Logical values <-> buffers ---------------------------------------------------------------


def read_tensor(desc: TensorDesc, buffer: Any) -> np.ndarray[Any, Any]:
    """The logical values of a tensor stored in ``buffer``, as a new NumPy array of ``desc.sizes``.

    4-bit types come back one value per byte: ``uint8`` in [0, 15] for UINT4, ``int8`` in
    [-8, 7] for INT4.

    Examples
    --------
    >>> read_tensor(TensorDesc("UINT4", [5]), bytes([0x21, 0x43, 0x05, 0]))
    array([1, 2, 3, 4, 5], dtype=uint8)
    """
    _check_layout(desc)
    data = as_bytes(buffer, "buffer", writable=False)
    check_bindings("DirectML", [desc], [data], ["buffer"], [])
    values = elements(desc, data)[0].copy()
    if desc.data_type is TensorDataType.INT4:
        return ((values ^ 8).astype(np.int8) - 8).astype(np.int8)
    return values.view(NUMPY_OF[desc.data_type])


def write_tensor(desc: TensorDesc, values: Any, out: Any | None = None) -> Bytes:
    """Store ``values`` (broadcast to ``desc.sizes``) in a buffer laid out as ``desc`` says.

    Parameters
    ----------
    desc : TensorDesc
        The layout. Its strides must not make two elements share an address (T12, as for
        outputs: exact up to 2**22 elements; past that, a layout that the sorted-strides
        test cannot prove free of overlap is refused).
    values : array_like
        Cast to the tensor's type by NumPy's ``same_kind`` rule, with no value changed beyond
        a float's rounding: integers must be in the type's range (4-bit ones too), and finite
        values must not overflow a float type to infinity. ml_dtypes' ``int4`` and ``uint4``
        arrays count as the integers they hold.
    out : writable buffer, optional
        Where to write; bytes the tensor does not cover are left as they were. By default a
        new zeroed buffer of ``total_tensor_size_in_bytes``.

    Returns
    -------
    numpy.ndarray
        The buffer, as 1-D ``uint8``.

    Raises
    ------
    DirectMLValidationError
        When the layout breaks T2, T4 to T7 or T12, or ``out`` is too small (T10).
    datamove.ValidationError
        When ``values`` do not broadcast to the sizes or cannot be stored unchanged
        (a ``DTypeError``).

    Examples
    --------
    >>> write_tensor(TensorDesc("UINT4", [5]), [1, 2, 3, 4, 5]).tolist()
    [33, 67, 5, 0]
    >>> write_tensor(TensorDesc("UINT8", [2, 2], strides=[4, 1]), [[1, 2], [3, 4]]).tolist()
    [1, 2, 0, 0, 3, 4, 0, 0]
    """
    return write_values(desc, values, out, "values")


def write_values(desc: TensorDesc, values: Any, out: Any | None, name: str) -> Bytes:
    """:func:`write_tensor`, its errors naming the caller's argument ``name`` for ``values``."""
    _check_layout(desc)
    if desc.self_overlapping:  # one address, several values: only the last would be kept
        raise DirectMLValidationError(
            "DirectML",
            [Violation("T12", "desc.strides", desc.strides,
                       f"make two elements of sizes {list(desc.sizes)} share an address, so "
                       "write_tensor cannot store a value for each")],
        )  # fmt: skip
    array = as_numpy("DirectML", name, values)
    try:
        np.broadcast_shapes(array.shape, desc.sizes)
    except ValueError:
        raise ValidationError(
            "DirectML",
            name,
            values,
            f"has shape {list(array.shape)}, which does not broadcast to the tensor's sizes"
            f" {list(desc.sizes)}",
        ) from None
    typed = cast_values(array, desc.data_type, values, name)  # before any buffer is touched
    target = new_buffer(desc) if out is None else as_bytes(out, "out", writable=True)
    check_bindings("DirectML", [desc], [target], ["out"], [])
    typed = np.broadcast_to(typed, desc.sizes)
    if desc.data_type.bits == 4:  # the nibbles, one a byte: -1 is 0xF
        typed = typed.view(np.uint8) & 0x0F
    view, over = elements(desc, target)
    np.copyto(view, typed.view(view.dtype))
    if over is not target:  # 4-bit: the nibbles, packed back
        pack_nibbles(over, target[: over.size // 2])
    return target


def cast_values(
    array: np.ndarray[Any, Any], data_type: TensorDataType, values: Any, name: str = "values"
) -> np.ndarray[Any, Any]:
    """``array`` as ``data_type``'s NumPy dtype (``NUMPY_OF``), with no value changed.

    Integers (and bools) must fit an integer type, 4-bit ones included (ml_dtypes' ``int4``
    and ``uint4`` count as the integers they hold); anything NumPy casts ``same_kind`` goes to
    a float type, except finite values that would become infinite. Everything else is a
    ``DTypeError`` naming the caller's argument ``name``, whose value was ``values``.
    """
    op = "DirectML"
    dtype = NUMPY_OF[data_type]
    if array.dtype == np.bool_ and dtype.kind in "iu":  # 0 and 1: every integer type has them
        return array.astype(dtype)  # not a view: a True's byte may be 2 (uint8 2 viewed as bool)
    if array.dtype.name in {"int4", "uint4"}:  # ml_dtypes: the integers they hold
        held = _RANGE[TensorDataType.parse(array.dtype.name)]
        array = array.astype(np.int8 if array.dtype.name == "int4" else np.uint8)
    elif array.dtype.kind in "iu":
        info = np.iinfo(array.dtype)
        held = (int(info.min), int(info.max))
    if array.dtype.kind in "iu" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        low, high = _RANGE.get(data_type) or (int(info.min), int(info.max))
        # Only where the array's dtype holds values past the type's range are they looked at.
        if array.size and not low <= held[0] <= held[1] <= high:
            least, most = int(array.min()), int(array.max())
            if least < low or most > high:
                bad = least if least < low else most
                shown = data_type.name if data_type.bits == 4 else str(dtype)
                raise DTypeError(
                    op, name, values, f"holds {bad}, outside {shown}'s range [{low}, {high}]"
                )
        return array.astype(dtype, copy=False)
    if dtype.kind == "f" and np.can_cast(array.dtype, dtype, casting="same_kind"):
        try:
            with np.errstate(over="raise", invalid="ignore"):
                return array.astype(dtype, copy=False)
        except FloatingPointError:
            big = float(np.finfo(dtype).max)
            with np.errstate(all="ignore"):
                lost = np.isinf(array.astype(dtype)) & ~np.isinf(array)
            bad = array.ravel()[np.flatnonzero(lost)[0]]
            raise DTypeError(
                op, name, values,
                f"holds {bad.item()!r}, beyond {dtype}'s largest finite value {big!r}; it would"
                " become infinite",
            ) from None  # fmt: skip
    shown = data_type.name if data_type.bits == 4 else str(dtype)
    raise DTypeError(
        op, name, values,
        f"has element type {array.dtype}, which cannot be stored as {shown} without changing"
        " values",
    )  # fmt: skip


def _check_layout(desc: TensorDesc) -> None:
    if not isinstance(desc, TensorDesc):
        raise DTypeError("DirectML", "desc", desc, "must be a TensorDesc")
    found = [v for v in desc.intrinsic_violations if v.rule in {"T2", "T4", "T5", "T6", "T7"}]
    if found:
        raise DirectMLValidationError("DirectML", found)
