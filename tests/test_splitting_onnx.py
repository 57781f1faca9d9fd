"""ONNX Split-2/11/13/18 in ``dm.Splitting``, against onnxruntime and ``onnx.reference``.

Each case builds one Split node with ``onnx.helper`` and runs it in both runtimes. The spec's
rule (``"onnx"``, and ``"even"``/``"lengths"`` before opset 18) is onnxruntime's, refusals
included; ``onnx.reference`` splits by its own rule (``"onnx_reference"``) and does not check
``split``'s sum. The peers' answers are tabled in docs/semantics.md ("ONNX Split").
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import datamove as dm
from strategies import examples
from test_splitting import any_rule, build, run, same_parts, splittings

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
torch = pytest.importorskip("torch")
from onnx import TensorProto, helper  # noqa: E402 - after the skip
from onnx.reference import ReferenceEvaluator  # noqa: E402

import onnx_graphs  # noqa: E402 - needs onnx


def split_model(
    shape: tuple[int, ...],
    axis: int,
    outputs: int,
    *,
    split: list[int] | None = None,
    num_outputs: int | None = None,
    opset: int = 18,
) -> Any:
    """One Split node of a model of ``opset``: ``split`` an attribute before 13, else an input."""
    x = helper.make_tensor_value_info("x", TensorProto.INT64, list(shape))
    names = [f"y{k}" for k in range(outputs)]
    ys = [helper.make_tensor_value_info(n, TensorProto.INT64, None) for n in names]
    inputs, inits, attrs = ["x"], [], {"axis": axis}
    if split is not None and opset >= 13:
        inits.append(helper.make_tensor("split", TensorProto.INT64, [len(split)], split))
        inputs.append("split")
    elif split is not None:
        attrs["split"] = split
    if num_outputs is not None:
        attrs["num_outputs"] = num_outputs
    node = helper.make_node("Split", inputs, names, **attrs)
    graph = helper.make_graph([node], "split", [x], ys, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run_ort(model: Any, x: np.ndarray) -> list[np.ndarray] | None:
    """onnxruntime's parts; None where it refuses (at load or at run time)."""
    try:
        session = onnx_graphs.ort_session(model)
        return list(session.run(None, {"x": x}))
    except Exception:  # noqa: BLE001 - onnxruntime's errors have no common base we can import
        return None


def run_reference(model: Any, x: np.ndarray) -> list[np.ndarray] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return list(ReferenceEvaluator(model).run(None, {"x": x}))
    except Exception:  # noqa: BLE001 - as above
        return None


def splits(s: dm.Splitting, x: np.ndarray) -> list[np.ndarray] | None:
    try:
        return [np.asarray(p) for p in s(x)]
    except dm.ValidationError:
        return None


@st.composite
def onnx_splits(draw: Any) -> dict[str, Any]:
    """A Split node's parameters: opset, outputs, and split or num_outputs or neither."""
    opset = draw(st.sampled_from([2, 11, 13, 18]))
    n = draw(st.integers(1, 5))
    params: dict[str, Any] = {"opset": opset, "outputs": n}
    if opset == 18 and draw(st.booleans()):
        params["num_outputs"] = n
    elif opset == 18 or draw(st.booleans()):
        params["split"] = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return params


@settings(max_examples=examples(200), deadline=None)
@given(
    params=onnx_splits(),
    shape=st.lists(st.integers(0, 9), min_size=1, max_size=3).map(tuple),
    data=st.data(),
)
def test_onnx_split_splits_as_onnxruntime_and_onnx_reference(
    params: dict[str, Any], shape: tuple[int, ...], data: Any
) -> None:
    low = 0 if params["opset"] == 2 else -len(shape)
    axis = data.draw(st.integers(low, len(shape) - 1))
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    model = split_model(shape, axis, **params)
    spec = dm.Splitting.from_onnx(axis, **params)
    assert same_parts(splits(spec, x), run_ort(model, x)), (spec, shape)
    reference = dm.Splitting.from_onnx(axis, **params, reading="reference")
    got = run_reference(model, x)
    if "split" not in params:
        assert same_parts(splits(reference, x), got), (reference, shape)
    elif splits(spec, x) is not None:  # onnx.reference does not check split's sum
        assert same_parts(splits(spec, x), got)
    # the spec's parts, where it gives any, are the reference's
    if splits(spec, x) is not None:
        assert same_parts(splits(spec, x), splits(reference, x))


@settings(max_examples=examples(200), deadline=None)
@given(
    spec=splittings(),
    shape=st.lists(st.integers(0, 7), min_size=1, max_size=3).map(tuple),
    opset=st.sampled_from([2, 11, 13, 18]),
    data=st.data(),
)
def test_every_splitting_written_as_onnx_split_runs_alike_in_onnxruntime(
    spec: tuple[str, str, Any], shape: tuple[int, ...], opset: int, data: Any
) -> None:
    lib, fn, arg = spec
    axis = data.draw(st.integers(0 if opset == 2 else -len(shape), len(shape) - 1))
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    s = build(lib, fn, arg, axis)
    want = run(lib, fn, arg, axis, x)
    try:
        name, p = s.to_onnx(shape, opset=opset)
    except dm.NotExpressible as exc:  # numpy.split's parts overlap: no tiling says them
        w = exc.witness
        assert w == (shape[axis],)
        return
    except dm.ValidationError:
        assert want is None
        return
    assert name == "Split"
    model = split_model(shape, p["axis"], p["outputs"], opset=opset, **_optional(p))
    assert same_parts(run_ort(model, x), want), (s, shape, p)
    back = dm.Splitting.from_onnx(p["axis"], opset=opset, **_optional(p, True))
    assert same_parts(splits(back, x), want)


def _optional(p: dict[str, Any], outputs: bool = False) -> dict[str, Any]:
    keys = ("split", "num_outputs", "outputs") if outputs else ("split", "num_outputs")
    return {k: p[k] for k in keys if k in p}


@settings(max_examples=examples(150), deadline=None)
@given(
    spec=splittings(),
    bounds=st.tuples(st.integers(0, 10), st.integers(0, 10)),
    opset=st.sampled_from([13, 18]),
)
def test_on_interval_sizes_onnx_split_is_exact_for_every_size_or_raises_with_a_witness(
    spec: tuple[str, str, Any], bounds: tuple[int, int], opset: int
) -> None:
    lib, fn, arg = spec
    lo, hi = min(bounds), max(bounds)
    s = build(lib, fn, arg, 1)
    try:
        _, p = s.to_onnx(dm.PartialShape([2, dm.Dimension(lo, hi)]), opset=opset)
    except dm.NotExpressible as exc:
        if lo == hi:
            return  # overlapping numpy.split parts
        w = exc.witness
        assert w is not None
        assert lo <= w[0] <= hi
        return
    except dm.ValidationError:  # the split refuses every allowed size
        assert all(run(lib, fn, arg, 1, np.zeros((2, d))) is None for d in range(lo, hi + 1))
        return
    for d in range(lo, hi + 1):
        x = np.arange(2 * d, dtype=np.int64).reshape(2, d)
        model = split_model((2, d), 1, p["outputs"], opset=opset, **_optional(p))
        assert same_parts(run_ort(model, x), run(lib, fn, arg, 1, x)), (s, d, p)


@settings(max_examples=examples(100), deadline=None)
@given(
    s=any_rule(),
    bounds=st.tuples(st.integers(0, 10), st.integers(0, 10)),
    opset=st.sampled_from([13, 18]),
)
@example(  # torch.chunk(x, 4) is 3 parts on 5..6: num_outputs=3 (it was refused)
    s=dm.Splitting.from_torch(4, 1, function="chunk"), bounds=(5, 6), opset=18
)
@example(  # torch.split(x, 3) is 4 parts on 11..12: num_outputs=4 (it was refused)
    s=dm.Splitting.from_torch(3, 1), bounds=(11, 12), opset=18
)
@example(  # numpy.split(x, 2) runs on 4 alone: split=[2, 2], refused on 5 (it was refused)
    s=dm.Splitting.from_numpy(2, 1), bounds=(4, 5), opset=18
)
def test_on_interval_sizes_an_onnx_refusal_has_no_split_node_that_splits_alike(
    s: dm.Splitting, bounds: tuple[int, int], opset: int
) -> None:
    lo, hi = min(bounds), max(bounds)
    try:
        s.to_onnx(dm.PartialShape([2, dm.Dimension(lo, hi)]), opset=opset)
    except dm.NotExpressible:
        pass
    except dm.ValidationError:  # the split runs on no allowed size
        return
    else:
        return  # what is written is run in onnxruntime at every size by the test above
    xs = [np.arange(2 * d, dtype=np.int64).reshape(2, d) for d in range(lo, hi + 1)]
    want = [splits(s, x) for x in xs]
    first = next(p for p in want if p is not None)
    # every count up to hi + 2, and the lengths on the smallest size the split runs on
    nodes: list[tuple[int, dict[str, Any]]] = [
        (n, {"num_outputs": n} if opset == 18 else {}) for n in range(1, hi + 3)
    ]
    nodes.append((len(first), {"split": [p.shape[1] for p in first]}))
    for outputs, params in nodes:
        model = split_model((2, None), 1, outputs, opset=opset, **params)  # type: ignore[arg-type]
        runs = [run_ort(model, x) for x in xs]
        assert not all(map(same_parts, runs, want)), (s, lo, hi, opset, params)


def test_split_18_num_outputs_on_an_uneven_dim_has_four_answers() -> None:
    # 5 into 4 (docs/semantics.md, "ONNX Split"): the spec's rule gives [2, 2, 2, -1], which
    # onnx's own shape inference writes; onnxruntime refuses; onnx.reference gives [2, 2, 1, 0];
    # numpy.array_split [2, 1, 1, 1]; torch.chunk three parts [2, 2, 1]. datamove refuses, naming
    # the rule, and reads onnx.reference's rule where asked.
    x = np.arange(5, dtype=np.int64)
    model = split_model((5,), 0, 4, num_outputs=4)
    inferred = onnx.shape_inference.infer_shapes(model).graph.output
    assert [o.type.tensor_type.shape.dim[0].dim_value for o in inferred] == [2, 2, 2, -1]
    assert run_ort(model, x) is None
    ref = run_reference(model, x)
    assert ref is not None
    assert [len(p) for p in ref] == [2, 2, 1, 0]
    assert [len(p) for p in np.array_split(x, 4)] == [2, 1, 1, 1]
    assert [len(p) for p in torch.chunk(torch.from_numpy(x), 4)] == [2, 2, 1]
    s = dm.Splitting.from_onnx(0, num_outputs=4)
    with pytest.raises(dm.ValidationError, match=r"ceil\(5/4\) = 2, the last 5 - 3\*2 = -1"):
        s(x)
    assert dm.Splitting.from_onnx(0, num_outputs=4, reading="reference").lengths(5) == (
        2,
        2,
        1,
        0,
    )
    # 4 into 3: the spec's last part is empty, valid: every ONNX runtime agrees; torch.chunk not
    model = split_model((4,), 0, 3, num_outputs=3)
    assert [len(p) for p in run_ort(model, np.arange(4)) or []] == [2, 2, 0]
    assert s.from_onnx(0, num_outputs=3).lengths(4) == (2, 2, 0)
    assert dm.Splitting.from_torch(3, function="chunk").lengths(4) == (2, 2)


def test_split_without_split_before_18_is_even_in_onnxruntime_not_in_onnx_reference() -> None:
    x = np.arange(5, dtype=np.int64)
    for opset in (2, 11, 13):
        model = split_model((5,), 0, 2, opset=opset)
        assert run_ort(model, x) is None
        assert [len(p) for p in run_reference(model, x) or []] == [3, 2]
        with pytest.raises(dm.ValidationError, match="'even' rule"):
            dm.Splitting.from_onnx(0, outputs=2, opset=opset)(x)
        reference = dm.Splitting.from_onnx(0, outputs=2, opset=opset, reading="reference")
        assert reference.lengths(5) == (3, 2)
        # onnx.reference does not check split's sum either: it slices and clamps
        model = split_model((5,), 0, 2, split=[2, 4], opset=opset)
        assert run_ort(model, x) is None
        assert [len(p) for p in run_reference(model, x) or []] == [2, 3]
        # nor a negative length: onnxruntime refuses it, as datamove does
        model = split_model((4,), 0, 2, split=[-1, 5], opset=opset)
        assert run_ort(model, np.arange(4)) is None
        assert [len(p) for p in run_reference(model, np.arange(4)) or []] == [3, 1]
        with pytest.raises(dm.ValidationError, match=r"split\[0\]=-1 must be at least 0"):
            dm.Splitting.from_onnx(0, [-1, 5], opset=opset)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"num_outputs": 2, "opset": 13}, "attribute of Split-18 only", id="13+num"),
        pytest.param({"split": [1], "num_outputs": 1}, "give one of them", id="both"),
        pytest.param({}, "Split-18 needs split or num_outputs", id="18 neither"),
        pytest.param({"opset": 11}, "without split the parts are the node's", id="11 neither"),
        pytest.param({"split": [1, -1]}, r"split\[1\]=-1 must be at least 0", id="-1"),
        pytest.param({"split": []}, "is empty", id="empty"),
        pytest.param({"split": [1, 2], "outputs": 3}, "has 2 values, but the node has 3", id="n"),
        pytest.param({"num_outputs": 2, "outputs": 3}, "is not the node's 3 outputs", id="n18"),
        pytest.param({"num_outputs": 0}, "must be at least 1", id="0"),
        pytest.param({"opset": 1, "outputs": 2}, "is below 2", id="opset 1"),
        pytest.param({"axis": -1, "opset": 2, "outputs": 2}, "Split-2 counts axes", id="-axis"),
        pytest.param({"num_outputs": 2, "reading": "ort"}, "'spec' or 'reference'", id="read"),
    ],
)
def test_from_onnx_refuses_what_the_spec_refuses(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(dm.ValidationError, match=match):
        dm.Splitting.from_onnx(**kwargs)


def test_to_onnx_per_opset() -> None:
    s = dm.Splitting.from_onnx(0, num_outputs=3)
    assert s.to_onnx() == ("Split", {"axis": 0, "outputs": 3, "num_outputs": 3})
    want = ("Split", {"axis": 0, "outputs": 3, "split": [3, 3, 1]})
    assert s.to_onnx([7], opset=13) == want
    with pytest.raises(dm.NotExpressible, match="ONNX Split-13") as info:
        s.to_onnx("[6..8]", opset=13)  # Split-13 without split: equal parts only
    assert info.value.witness == (7,)
    with pytest.raises(dm.NotExpressible, match="Split-2 counts axes"):
        dm.Splitting.from_split(-1, 2).to_onnx(opset=2)
    even = dm.Splitting.from_split(0, 2)
    assert even.to_onnx(opset=11) == ("Split", {"axis": 0, "outputs": 2})
    with pytest.raises(dm.NotExpressible) as info:  # num_outputs=2 splits 5; Split-1 refuses it
        even.to_onnx("[4..6]")
    assert info.value.witness == (5,)


@pytest.mark.parametrize(
    ("split", "witness"),
    [
        # VariadicSplit [2 x 4097, -1] refuses every size below 8194; Split-13's 4098 equal
        # parts run on 4098 first (it was "no size up to 4097 tells", no witness)
        (dm.Splitting(0, "lengths", (2,) * 4097 + (-1,)), 4098),
        (dm.Splitting(0, "size", 5000), 5001),  # one part up to 5000, then two
        (dm.Splitting(0, "onnx", 5000), 4999),  # Split-18's rule runs on 4999: 4999 x 1, 0
    ],
    ids=["lengths-rest", "size", "onnx"],
)
def test_a_split_13_refusal_names_its_witness_past_4096_sizes(
    split: dm.Splitting, witness: int
) -> None:
    with pytest.raises(dm.NotExpressible) as info:
        split.to_onnx("[1..]", opset=13)
    assert info.value.witness == (witness,)
    # the witness is real: onnxruntime runs the closest call (even parts; refused off the
    # multiples) otherwise than the split there (onnx.reference reads Split-13 by its own
    # rule, test_split_without_split_before_18_is_even_in_onnxruntime_not_in_onnx_reference)
    x = np.arange(witness, dtype=np.int64)
    n = split._closest_count()
    got, want = run_ort(split_model((witness,), 0, n, opset=13), x), splits(split, x)
    assert (got is None) == (witness % n != 0)
    assert got is not None or want is not None
    assert got is None or want is None or not same_parts(got, want)


def test_split_13_says_exactly_when_no_size_tells_the_count_from_the_split() -> None:
    # Split-18's rule of 5000 parts refuses 5001..9997 (the last part would be negative), as
    # Split-13's count does, and gives its parts on 5000: alike on every allowed size, which
    # spans more than 4096 (it raised "no size up to 9096 tells", no witness). One more size
    # and they differ there (onnxruntime: 9998 refused, where the split runs).
    s = dm.Splitting(0, "onnx", 5000)
    assert s.to_onnx("[5000..9997]", opset=13) == ("Split", {"axis": 0, "outputs": 5000})
    model = split_model((None,), 0, 5000, opset=13)  # type: ignore[arg-type]
    for d in (5000, 5001, 9997):
        x = np.arange(d, dtype=np.int64)
        assert same_parts(run_ort(model, x), splits(s, x)), d
    with pytest.raises(dm.NotExpressible) as info:
        s.to_onnx("[5000..9998]", opset=13)
    assert info.value.witness == (9998,)
    x = np.arange(9998, dtype=np.int64)
    assert run_ort(model, x) is None
    assert splits(s, x) is not None


@pytest.mark.parametrize("reading", ["spec", "reference"])
def test_split_18_of_two_outputs_is_array_split_on_every_size(reading: str) -> None:
    # Split-18's num_outputs=2 to NumPy or PyTorch on [1..] was refused (4096 sizes scanned,
    # none told): on every size it gives ceil(d / 2) and the rest, in onnxruntime and
    # onnx.reference alike ((1, 0) on 1), as numpy.array_split and torch.tensor_split do.
    s = dm.Splitting.from_onnx(0, num_outputs=2, reading=reading)
    numpy_call, torch_call = s.to_numpy("[1..]"), s.to_torch("[1..]")
    assert numpy_call == ("array_split", {"indices_or_sections": 2, "axis": 0})
    assert torch_call == ("tensor_split", {"sections": 2, "dim": 0})
    model = split_model((None,), 0, 2, num_outputs=2)  # type: ignore[arg-type]
    for d in (0, 1, 2, 3, 4097, 8193, 10**5 + 1):
        x = np.arange(d, dtype=np.int64)
        got = run_ort(model, x)
        assert got is not None
        assert same_parts(got, run_reference(model, x)), d
        assert same_parts(got, np.array_split(x, 2)), d
        assert same_parts(got, [t.numpy() for t in torch.tensor_split(torch.from_numpy(x), 2)])
