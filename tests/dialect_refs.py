"""Small reference runtimes for the dialects that have none here: DirectML and WebNN.

Each follows its documentation literally and refuses what the dialect refuses (an
``AssertionError``, so an emitter that writes invalid numbers fails its test):

- DirectML ``DML_SLICE1_OPERATOR_DESC``: ``CopyStart = InputWindowOffsets``, plus
  ``InputWindowSizes - 1`` where the stride is negative; ``Output[c] = Input[CopyStart +
  InputWindowStrides * c]``; ``MaxCopiedElements = 1 + (size - 1) / |stride|``; windows non-empty
  and inside the tensor (no clamping); offsets and sizes UINT, strides INT; tensors of 1 to 8
  dimensions, each at least 1. ``DML_SPLIT_OPERATOR_DESC`` is checked and run by
  ``datamove.directml`` itself (``SplitDesc.validate``, ``run_split``).
- WebNN ``slice(input, starts, sizes, {strides})``: ``starts < d``, ``sizes >= 1``,
  ``starts + sizes <= d``, ``strides >= 1``, output ``ceil(sizes / strides)``; ``reverse(input,
  {axes})`` (axes unique, in range); ``reshape(input, newShape)`` (same element count, every
  size at least 1); ``split(input, splits, {axis})`` (a count that divides, or sizes >= 1 that
  sum to the size; at most 8192 outputs; unsigned axis).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

UINT32_MAX = 2**32 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def _unsigned(values: list[int], lo: int = 0) -> None:
    assert all(type(v) is int and lo <= v <= UINT32_MAX for v in values), values


def dml_slice1(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    offsets, sizes = p["InputWindowOffsets"], p["InputWindowSizes"]
    strides = p["InputWindowStrides"]
    assert 1 <= x.ndim <= 8
    assert len(offsets) == len(sizes) == len(strides) == x.ndim
    assert all(d >= 1 for d in x.shape), x.shape
    _unsigned(offsets)
    _unsigned(sizes, 1)
    assert all(type(t) is int and t != 0 and INT32_MIN <= t <= INT32_MAX for t in strides)
    most = [1 + (z - 1) // abs(t) for z, t in zip(sizes, strides, strict=True)]
    counts = p.get("OutputSizes", most)  # 1 <= OutputSizes[i] <= MaxCopiedElements[i]
    assert all(1 <= n <= m for n, m in zip(counts, most, strict=True))
    index = []
    for d, o, z, t, n in zip(x.shape, offsets, sizes, strides, counts, strict=True):
        assert o + z <= d, ("window past the end", o, z, d)  # no out-of-bounds reads
        start = o + (z - 1 if t < 0 else 0)
        index.append(start + t * np.arange(n))
    return x[np.ix_(*index)] if index else x


def dml_reshape(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    sizes = p["sizes"]
    assert 1 <= len(sizes) <= 8
    _unsigned(sizes, 1)
    assert math.prod(sizes) == x.size
    return x.reshape(sizes)


def run_dml(x: np.ndarray, ops: list[tuple[str, dict[str, Any]]]) -> np.ndarray:
    for name, p in ops:
        x = dml_slice1(x, p) if name == "SLICE1" else dml_reshape(x, p)
        assert name in ("SLICE1", "RESHAPE")
    return x


def webnn_slice(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    starts, sizes = p["starts"], p["sizes"]
    strides = p.get("strides", [1] * x.ndim)
    assert len(starts) == len(sizes) == len(strides) == x.ndim
    _unsigned(starts)
    _unsigned(sizes, 1)
    _unsigned(strides, 1)
    index = []
    for d, a, z, t in zip(x.shape, starts, sizes, strides, strict=True):
        assert a < d
        assert a + z <= d
        index.append(a + t * np.arange(-(-z // t)))  # ceil(size / stride)
    return x[np.ix_(*index)] if index else x


def webnn_reverse(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    axes = p["axes"]
    assert len(set(axes)) == len(axes)
    assert all(type(a) is int and 0 <= a < x.ndim for a in axes)
    return np.flip(x, tuple(axes))


def webnn_reshape(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    shape = p["newShape"]
    _unsigned(shape, 1)
    assert math.prod(shape) == x.size
    return x.reshape(shape)


def run_webnn(x: np.ndarray, ops: list[tuple[str, dict[str, Any]]]) -> np.ndarray:
    assert all(d >= 1 for d in x.shape), x.shape  # WebNN has no size-0 tensors
    run = {"slice": webnn_slice, "reverse": webnn_reverse, "reshape": webnn_reshape}
    for name, p in ops:
        x = run[name](x, p)
    return x


def webnn_split(x: np.ndarray, p: dict[str, Any]) -> list[np.ndarray]:
    splits, axis = p["splits"], p["axis"]
    assert type(axis) is int
    assert 0 <= axis < x.ndim
    d = x.shape[axis]
    assert d >= 1
    if isinstance(splits, int):
        assert 1 <= splits <= 8192
        assert d % splits == 0
        return np.split(x, splits, axis)
    _unsigned(splits, 1)
    assert 1 <= len(splits) <= 8192
    assert sum(splits) == d
    return np.split(x, np.cumsum(splits)[:-1].tolist(), axis)
