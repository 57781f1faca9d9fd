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
from hypothesis import event, given, note

import datamove as dm
import openvino_oracle as oracle
from strategies import drawn_tilings, fixed_settings

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
            (f"Split-18 num_outputs={n}", dm.Splitting.from_onnx(num_outputs=n), None),
        ]
    for lengths in ([2, 2], [1, 2], [0, 3]):
        split = dm.Splitting.from_torch(lengths)
        out.append((f"torch.split(x, {lengths})", split, _torch(torch.split, lengths)))
    return out


SHAPES = [
    "[0..1]",
    "[..2]",
    "[0..6]",
    "[1..6]",
    "[2..8]",
    "[3..9]",
    "[4..]",
    "[?]",
    "[1..3]",
    "[5..8]",
    "[6..8]",
]


def build(op: str, p: dict[str, Any], shape: str) -> oracle.Inferred:
    if op == "Split":
        return oracle.split(shape, p["axis"], p["num_splits"])
    return oracle.variadic_split(shape, p["axis"], np.array(p["split_lengths"], dtype=np.int64))


def test_what_to_openvino_writes_on_an_interval_runs_as_the_source_at_every_size() -> None:
    written, rests = 0, 0
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
            rests += s.rule != "lengths" and -1 in p.get("split_lengths", ())
            node = build(op, p, shape)
            # One compiled model for every size, as a node of dynamic input shape is run
            xs = [np.arange(d, dtype=np.float32) for d in sizes]
            for d, ran in zip(sizes, oracle.run_cpu_each(node, xs), strict=True):
                # OpenVINO builds it, or refuses it where the source refuses every size
                got = None if isinstance(ran, oracle.OpenVINOError) else [a.tolist() for a in ran]
                assert got == want(s, ref, d), (name, shape, op, p, d)
    assert written > 80
    assert rests >= 3  # a VariadicSplit with a -1 for rules OpenVINO lacks (torch.split ...)


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
    s = dm.Splitting.from_onnx(num_outputs=3)
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


def test_a_rule_openvino_lacks_is_a_rest_length_where_it_splits_alike_on_every_size() -> None:
    # torch.split(x, 4) on 5..8 is [4, 1] .. [4, 4]: no Split count, but VariadicSplit [4, -1]
    s = dm.Splitting.from_torch(4)
    assert s.to_openvino("[5..8]") == ("VariadicSplit", {"axis": 0, "split_lengths": [4, -1]})
    assert s.to_tf("[5..8]") == ("split", {"num_or_size_splits": [4, -1], "axis": 0})
    node = oracle.variadic_split("[5..8]", 0, np.array([4, -1]))
    for d in range(5, 9):
        got = [a.tolist() for a in oracle.run_cpu(node, np.arange(d, dtype=np.float32))]
        assert got == [a.tolist() for a in torch.split(torch.arange(d, dtype=torch.float32), 4)]
    # ONNX's 4 parts on 6..8 are [2, 2, 2, 0] .. [2, 2, 2, 2]: [2, 2, 2, -1], valid on each
    s = dm.Splitting.from_onnx(num_outputs=4)
    assert s.to_openvino("[6..8]") == (
        "VariadicSplit",
        {"axis": 0, "split_lengths": [2, 2, 2, -1]},
    )
    # on 5..8 the same lengths split alike (both refuse 5), and tf.split gets them; OpenVINO's
    # CPU plugin reads past the input at 5 (divergence 4, above): not written, the witness named
    assert s.to_tf("[5..8]") == ("split", {"num_or_size_splits": [2, 2, 2, -1], "axis": 0})
    with pytest.raises(dm.NotExpressible, match="refuses size 6") as e:
        s.to_openvino("[5..8]")
    assert e.value.witness == (6,)
    assert "the lengths [2, 2, 2, -1] split alike, but on a size below 6 OpenVINO's CPU" in str(
        e.value
    )


@pytest.mark.parametrize(
    ("s", "shape", "lengths", "ref"),
    [
        (dm.Splitting.from_numpy([2]), "[2..]", [2, -1], lambda x: np.split(x, [2])),
        (dm.Splitting.from_numpy([2]), "[2..9000]", [2, -1], lambda x: np.split(x, [2])),
        (
            dm.Splitting.from_torch([2, 3], function="tensor_split"),
            "[3..]",
            [2, 1, -1],
            _torch(torch.tensor_split, [2, 3]),
        ),
    ],
)
def test_indices_are_a_rest_length_past_4096_sizes(
    s: dm.Splitting, shape: str, lengths: list[int], ref: Callable[[np.ndarray], list[Any]]
) -> None:
    # numpy.split(x, [2]) to OpenVINO on [2..] or [2..9000] was refused: the lengths [2, -1]
    # were checked on the first 4096 sizes only, and none of those said "every size"
    assert s.to_openvino(shape) == ("VariadicSplit", {"axis": 0, "split_lengths": lengths})
    assert list(s.to_tf(shape)[1]["num_or_size_splits"]) == lengths
    sizes = [dm.PartialShape(shape).dims[0].min, 4097, 4098, 9000]
    node = build("VariadicSplit", {"axis": 0, "split_lengths": lengths}, shape)
    xs = [np.arange(d, dtype=np.float32) for d in sizes]
    for x, ran in zip(xs, oracle.run_cpu_each(node, xs), strict=True):
        assert [a.tolist() for a in ran] == [a.tolist() for a in ref(x)], len(x)


@fixed_settings(150)
@given(case=drawn_tilings(4, 5))
def test_grouped_slicings_run_as_openvino_splits(case: tuple[int, int, list[slice]]) -> None:
    # A grouping that is an OpenVINO Split or VariadicSplit (dm.group_into_split's "even" and
    # "lengths"), written by to_openvino for the interval and run by OpenVINO's reference on
    # every size of it, gives the slices' parts. The brute force over every rule is
    # tests/test_canonical.py::test_group_into_split_agrees_with_the_brute_force.
    lo, hi, slices = case
    shape = f"[{lo}..{hi}]"
    texts = [
        f"x[{s.start if s.start is not None else ''}:{s.stop if s.stop is not None else ''}]"
        for s in slices
    ]
    note(f"dm.group_into_split({texts!r}, {shape!r})")
    found = dm.group_into_split(texts, shape)
    event(f"rule {None if found is None else found.rule}")
    if found is None or found.rule not in ("even", "lengths"):
        return
    name, params = found.to_openvino(shape)
    xs = [np.arange(d, dtype=np.float32) for d in range(lo, hi + 1)]
    nodes = [
        oracle.split([len(x)], 0, params["num_splits"])
        if name == "Split"
        else oracle.variadic_split([len(x)], 0, np.array(params["split_lengths"], np.int64))
        for x in xs
    ]
    answers = oracle.evaluate_all([(node, x, ()) for node, x in zip(nodes, xs, strict=True)])
    for x, ran in zip(xs, answers, strict=True):
        assert not isinstance(ran, Exception), (name, params, len(x), ran)
        assert [a.tolist() for a in ran] == [x[s].tolist() for s in slices], (name, params, len(x))
