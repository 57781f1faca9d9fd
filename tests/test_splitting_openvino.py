"""``Splitting.to_openvino`` on interval shapes, built and run in OpenVINO (the CPU plugin).

The call written for a dynamic or interval axis is built on a ``Parameter`` of that shape, so
OpenVINO's shape inference sees the interval, and run at every allowed size up to a few past the
smallest (0, 1, 2 and the ends included): its parts are the source library's (``numpy.split``,
``numpy.array_split``, ``torch.chunk``, ``torch.split``, ONNX Split-18 ``num_outputs``, as
datamove models it), and it refuses the sizes that library refuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import datamove as dm
import openvino_oracle as oracle

torch = pytest.importorskip("torch")
pytest.importorskip("openvino", reason="openvino (the test extra) is not installed")

Source = tuple[str, dm.Splitting, Callable[[np.ndarray], list[Any]] | None]


def _torch(fn: Callable[..., Any], arg: Any) -> Callable[[np.ndarray], list[Any]]:
    return lambda x: [t.numpy() for t in fn(torch.from_numpy(x), arg)]


def sources() -> list[Source]:
    out: list[Source] = []
    for n in (1, 2, 3, 4):
        out += [
            (f"numpy.split(x, {n})", dm.Splitting.from_numpy(n), lambda x, n=n: np.split(x, n)),
            (
                f"numpy.array_split(x, {n})",
                dm.Splitting.from_numpy(n, function="array_split"),
                lambda x, n=n: np.array_split(x, n),
            ),
            (
                f"torch.chunk(x, {n})",
                dm.Splitting.from_torch(n, function="chunk"),
                _torch(torch.chunk, n),
            ),
            (f"torch.split(x, {n})", dm.Splitting.from_torch(n), _torch(torch.split, n)),
            (f"Split-18 num_outputs={n}", dm.Splitting.from_onnx_split(num_outputs=n), None),
        ]
    for lengths in ([2, 2], [1, 2], [0, 3]):
        split = dm.Splitting.from_torch(lengths)
        out.append((f"torch.split(x, {lengths})", split, _torch(torch.split, lengths)))
    return out


SHAPES = ["[0..1]", "[..2]", "[0..6]", "[1..6]", "[2..8]", "[3..9]", "[4..]", "[?]", "[1..3]"]


def build(op: str, p: dict[str, Any], shape: str) -> oracle.Inferred:
    if op == "Split":
        return oracle.split(shape, p["axis"], p["num_splits"])
    return oracle.variadic_split(shape, p["axis"], np.array(p["split_lengths"], dtype=np.int64))


def test_what_to_openvino_writes_on_an_interval_runs_as_the_source_at_every_size() -> None:
    written = 0
    for name, s, ref in sources():
        for shape in SHAPES:
            (dim,) = dm.PartialShape(shape).dims
            top = dim.min + 8 if dim.max is None else dim.max
            sizes = range(dim.min, top + 1)
            try:
                op, p = s.to_openvino(shape)
            except dm.NotExpressible:
                continue  # the witness is checked in tests/test_splitting.py
            except dm.ValidationError:  # the source refuses every allowed size
                assert all(want(s, ref, d) is None for d in sizes), (name, shape)
                continue
            written += 1
            node = build(op, p, shape)
            for d in sizes:
                x = np.arange(d, dtype=np.float32)
                try:  # OpenVINO builds it, or refuses it where the source refuses every size
                    got = [a.tolist() for a in oracle.run_cpu(node, x)]
                except oracle.OpenVINOError:
                    got = None
                assert got == want(s, ref, d), (name, shape, op, p, d)
    assert written > 80


def want(s: dm.Splitting, ref: Callable[[np.ndarray], list[Any]] | None, d: int) -> Any:
    """The source's parts of ``d`` elements as lists; None where it refuses them."""
    x = np.arange(d, dtype=np.float32)
    try:
        return [a.tolist() for a in (s(x) if ref is None else ref(x))]
    except (ValueError, RuntimeError, dm.ValidationError):
        return None


def test_a_split_of_more_parts_than_the_largest_size_is_written_as_zero_lengths() -> None:
    # OpenVINO refuses Split(num_splits=2) on [..1] ("The interval maximum ... must be greater
    # or equal to 'num_splits'"), where size 0 runs as numpy.split does: two empty parts
    s = dm.Splitting.from_numpy(2)
    assert s.to_openvino("[..1]") == ("VariadicSplit", {"axis": 0, "split_lengths": [0, 0]})
    # ONNX's 3 parts run size 0 alone on [..1] (size 1 would be [1, 0, -1]): written so too
    s = dm.Splitting.from_onnx_split(num_outputs=3)
    assert s.to_openvino("[..1]") == ("VariadicSplit", {"axis": 0, "split_lengths": [0, 0, 0]})
    assert not oracle.split("[..1]", 0, 2).ok
    node = oracle.variadic_split("[..1]", 0, np.array([0, 0]))
    assert [a.shape for a in oracle.run_cpu(node, np.zeros(0, np.float32))] == [(0,), (0,)]
    with pytest.raises(oracle.OpenVINOError):
        oracle.run_cpu(node, np.zeros(1, np.float32))
    assert dm.Splitting.from_numpy(2).to_openvino("[..2]") == (
        "Split",
        {"axis": 0, "num_splits": 2},
    )


def test_cpu_plugin_runs_a_rest_of_negative_length_past_its_input() -> None:
    # docs/semantics.md, divergence 4: VariadicSplit [2, -1] on [?] at one element is refused
    # by the spec and datamove; the CPU plugin gives a part of two elements, reading past it
    s = dm.Splitting.from_variadic_split(0, [2, -1])
    assert s.to_openvino("[?]") == ("VariadicSplit", {"axis": 0, "split_lengths": [2, -1]})
    with pytest.raises(dm.ValidationError):
        s(np.zeros(1, np.float32))
    node = oracle.variadic_split("[?]", 0, np.array([2, -1]))
    parts = oracle.run_cpu(node, np.zeros(1, np.float32))
    assert [a.shape for a in parts] == [(2,), (0,)]
