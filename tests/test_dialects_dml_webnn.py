"""DirectML and WebNN slicing and splitting (issue 20), run on their documented semantics.

Neither runtime exists here: ``dialect_refs`` holds a small reference of each, written from the
documentation (and refusing what the dialect refuses); DirectML's SPLIT is checked and run by
``datamove.directml``'s own model of it.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
import datamove.directml as dml
from dialect_refs import run_dml, run_webnn, webnn_split
from strategies import examples
from test_dialects import numpy_indices, numpy_result, same, shapes, slicing_from


@settings(max_examples=examples(300), deadline=None)
@given(index=numpy_indices(), shape=shapes, source=st.sampled_from(["numpy", "strided_slice"]))
def test_dml_and_webnn_ops_select_what_the_slicing_selects(
    index: tuple[Any, ...], shape: tuple[int, ...], source: str
) -> None:
    s = slicing_from(index, source)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        want = s(x)
    except dm.ValidationError:
        for emit in (s.to_dml, s.to_webnn):
            with pytest.raises(dm.ValidationError):
                emit(shape)
        return
    if want.size == 0:
        for emit in (s.to_dml, s.to_webnn):
            with pytest.raises(dm.NotExpressible, match="non-empty") as info:
                emit(shape)
            assert info.value.witness == shape
        return
    ops = s.to_webnn(shape)
    assert same(run_webnn(x, ops), want), (s, shape, ops)
    try:
        ops = s.to_dml(shape)
    except dm.NotExpressible as exc:  # DirectML has no tensor of rank 0 (or past 8)
        message = str(exc)
        assert "1 to 8 dimensions" in message
        assert not 1 <= len(shape) <= 8 or not 1 <= want.ndim <= 8
        return
    assert same(run_dml(x, ops), want), (s, shape, ops)


@settings(max_examples=examples(200), deadline=None)
@given(index=numpy_indices(), shape=shapes.filter(lambda s: len(s) >= 1 and min(s) >= 1))
def test_dml_and_webnn_windows_read_back_as_the_same_slicing(
    index: tuple[Any, ...], shape: tuple[int, ...]
) -> None:
    s = dm.Slicing.from_numpy(index)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        dml_ops, webnn_ops = s.to_dml(shape), s.to_webnn(shape)
    except dm.ValidationError:
        return
    for name, p in dml_ops:
        if name == "SLICE1":
            t = dm.Slicing.from_dml(**p)
            assert same(t(x), run_dml(x, [(name, p)]))
            assert t.to_dml(shape) == [(name, p)]  # the windows are tight: the same numbers
    for name, p in webnn_ops:
        if name == "slice":
            t = dm.Slicing.from_webnn(**p)
            assert same(t(x), run_webnn(x, [(name, p)]))
            assert t.to_webnn(shape) == [(name, p)]


@st.composite
def windows(draw: Any) -> tuple[tuple[int, ...], list[tuple[int, int, int, int]]]:
    """A static shape and one valid window per axis: (offset, size, stride, output size)."""
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=1, max_size=3)))
    out = []
    for d in shape:
        offset = draw(st.integers(0, d - 1))
        size = draw(st.integers(1, d - offset))
        stride = draw(st.integers(1, 4)) * draw(st.sampled_from([1, -1]))
        out.append((offset, size, stride, draw(st.integers(1, 1 + (size - 1) // abs(stride)))))
    return shape, out


@settings(max_examples=examples(200), deadline=None)
@given(w=windows())
def test_from_dml_and_from_webnn_select_what_the_windows_select(w: Any) -> None:
    shape, axes = w
    x = np.arange(int(np.prod(shape))).reshape(shape)
    offsets, sizes, strides, counts = (list(v) for v in zip(*axes, strict=True))
    p = {"InputWindowOffsets": offsets, "InputWindowSizes": sizes, "InputWindowStrides": strides}
    full = run_dml(x, [("SLICE1", p)])
    assert same(dm.Slicing.from_dml(**p)(x), full)
    assert same(
        dm.Slicing.from_dml(**p, output_sizes=counts)(x),
        run_dml(x, [("SLICE1", {**p, "OutputSizes": counts})]),
    )
    q = {"starts": offsets, "sizes": sizes, "strides": [abs(t) for t in strides]}
    assert same(dm.Slicing.from_webnn(**q)(x), run_webnn(x, [("slice", q)]))


@settings(max_examples=examples(200), deadline=None)
@given(
    index=numpy_indices(),
    dims=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), max_size=4),
)
def test_dml_and_webnn_need_a_static_shape(
    index: tuple[Any, ...], dims: list[tuple[int, int]]
) -> None:
    s = dm.Slicing.from_numpy(index)
    shape = dm.PartialShape([dm.Dimension(min(a, b), max(a, b)) for a, b in dims])
    top = tuple(d.max or 0 for d in shape.dims)
    for emit in (s.to_dml, s.to_webnn):
        ops, w = None, None
        with contextlib.suppress(dm.ValidationError):
            try:
                ops = emit(shape)
            except dm.NotExpressible as exc:
                w = exc.witness
        if ops is not None:  # every axis static, or one an index needs whole (x[5] on [5..6])
            assert ops == emit(top)
            for k, d in enumerate(shape.dims):
                if not d.is_static:
                    less = (*top[:k], top[k] - 1, *top[k + 1 :])
                    assert numpy_result(np.zeros(less), index) is None, (shape, less)
        elif w is not None and not shape.is_static:
            assert all(d.min <= k <= (d.max or 0) for d, k in zip(shape.dims, w, strict=True))
            assert numpy_result(np.zeros(w), index) is not None, w  # a shape it runs on
    with pytest.raises(dm.NotExpressible, match="unknown rank"):
        s.to_webnn(None)


@pytest.mark.parametrize(
    ("index", "shape", "dml", "webnn"),
    [
        pytest.param(
            "x[::-1]",
            [4],
            [
                (
                    "SLICE1",
                    {
                        "InputWindowOffsets": [0],
                        "InputWindowSizes": [4],
                        "InputWindowStrides": [-1],
                    },
                )
            ],
            [("reverse", {"axes": [0]})],
            id="reverse: a negative stride starts at offset + size - 1",
        ),
        pytest.param(
            "x[-5::-1]",
            [4],
            None,
            None,
            id="y[-5::-1] on 4 is empty (NumPy): not expressible",
        ),
        pytest.param(
            "x[-2::-3]",
            [7],
            [
                (
                    "SLICE1",
                    {
                        "InputWindowOffsets": [2],
                        "InputWindowSizes": [4],
                        "InputWindowStrides": [-3],
                    },
                )
            ],
            [
                ("slice", {"starts": [2], "sizes": [4], "strides": [3]}),
                ("reverse", {"axes": [0]}),
            ],
            id="a tight window: 5, 2",
        ),
        pytest.param(
            "x[1]",
            [3, 2],
            [
                (
                    "SLICE1",
                    {
                        "InputWindowOffsets": [1, 0],
                        "InputWindowSizes": [1, 2],
                        "InputWindowStrides": [1, 1],
                    },
                ),
                ("RESHAPE", {"sizes": [2]}),
            ],
            [
                ("slice", {"starts": [1, 0], "sizes": [1, 2], "strides": [1, 1]}),
                ("reshape", {"newShape": [2]}),
            ],
            id="an index is a reshape",
        ),
        pytest.param(
            "x[1:2, None]",
            [3, 2],
            [
                (
                    "SLICE1",
                    {
                        "InputWindowOffsets": [1, 0],
                        "InputWindowSizes": [1, 2],
                        "InputWindowStrides": [1, 1],
                    },
                ),
                ("RESHAPE", {"sizes": [1, 1, 2]}),
            ],
            [
                ("slice", {"starts": [1, 0], "sizes": [1, 2], "strides": [1, 1]}),
                ("reshape", {"newShape": [1, 1, 2]}),
            ],
            id="a new axis is a reshape",
        ),
        pytest.param(
            "x[1, None]",
            [3, 2],
            [
                (
                    "SLICE1",
                    {
                        "InputWindowOffsets": [1, 0],
                        "InputWindowSizes": [1, 2],
                        "InputWindowStrides": [1, 1],
                    },
                )
            ],
            [("slice", {"starts": [1, 0], "sizes": [1, 2], "strides": [1, 1]})],
            id="an index and a new axis in its place: no reshape",
        ),
        pytest.param("x[...]", [2, 3], [], [], id="nothing to do"),
    ],
)
def test_dml_and_webnn_examples(index: str, shape: list[int], dml: Any, webnn: Any) -> None:
    s = dm.Slicing.from_numpy(index)
    if dml is None:
        for emit in (s.to_dml, s.to_webnn):
            with pytest.raises(dm.NotExpressible, match="selects no element"):
                emit(shape)
        return
    assert s.to_dml(shape) == dml
    assert s.to_webnn(shape) == webnn


def test_dml_refuses_a_rank_it_has_no_tensor_for() -> None:
    with pytest.raises(dm.NotExpressible, match=r"rank 0 .* 1 to 8 dimensions"):
        dm.Slicing.from_numpy("x[0]").to_dml([3])
    with pytest.raises(dm.NotExpressible, match="rank 9"):
        dm.Slicing.from_numpy("x[0]").to_dml([2] * 9)
    with pytest.raises(dm.NotExpressible, match="rank 9; DirectML tensors have 1 to 8"):
        dm.Splitting.from_split(0, 2).to_dml([2] * 9)
    assert dm.Slicing.from_numpy("x[0]").to_webnn([3]) == [
        ("slice", {"starts": [0], "sizes": [1], "strides": [1]}),
        ("reshape", {"newShape": []}),
    ]


def test_dml_refuses_a_stride_past_its_signed_32_bits() -> None:
    # InputWindowStrides are INT: a step of 2**31 has no SLICE1; WebNN's strides are unsigned.
    top = [2**32 - 1]
    with pytest.raises(dm.NotExpressible, match=r"InputWindowStrides\[0\]=2147483648 is outside"):
        dm.Slicing.from_numpy("x[::2147483648]").to_dml(top)
    # The witness: the static shape the number was written for (it had none).
    with pytest.raises(dm.NotExpressible) as info:
        dm.Slicing.from_numpy("x[:, ::-2147483649]").to_dml([3, *top])
    assert str(info.value) == (
        "DirectML SLICE1: InputWindowStrides[1]=-2147483649 is outside [-2147483648, "
        "2147483647], the range of DirectML SLICE1's InputWindowStrides, on shape "
        "[3, 4294967295] (writing x[:, ::-2147483649])"
    )
    assert (info.value.argument, info.value.value) == ("InputWindowStrides[1]", -(2**31) - 1)
    assert info.value.witness == (3, *top)
    assert dm.Slicing.from_numpy("x[::2147483647]").to_dml(top)[0][1]["InputWindowStrides"] == [
        2**31 - 1
    ]
    assert dm.Slicing.from_numpy("x[::2147483648]").to_webnn(top)[0][1]["strides"] == [2**31]


def test_webnn_split_refuses_an_input_of_sizes_past_32_bits() -> None:
    # to_dml refused [2**33]; to_webnn wrote a split of it (its count holds on every size).
    even = dm.Splitting.from_split(0, 2)
    for shape in ([2**33], [2, 2**33], "[2,8589934592..]"):
        with pytest.raises(dm.NotExpressible, match=r"2\*\*32 - 1") as info:
            even.to_webnn(shape)
        assert info.value.witness in dm.PartialShape(shape)
    assert even.to_webnn([2**32 - 2]) == ("split", {"splits": 2, "axis": 0})
    assert even.to_webnn(f"[{2**32 - 1}..]") == ("split", {"splits": 2, "axis": 0})


def test_dml_and_webnn_slices_refuse_an_input_of_sizes_past_32_bits() -> None:
    # Both describe a tensor by 32-bit unsigned sizes (DirectML's tensor Sizes, WebNN's shape),
    # as to_dml refuses for SPLIT. The slices checked the window's numbers only: x[1:3] on
    # [2**33] was written, x[None] refused naming a SLICE1 field it does not write, and
    # WebNN refused x[...] (nothing to write) where DirectML wrote nothing.
    big = [2, 2**33]
    for text in ("x[1:3]", "x[:, 1:3]", "x[None]", "x[::-1]", "x[0]", "x[:, 5]"):
        s = dm.Slicing.from_numpy(text)
        for emit in (s.to_dml, s.to_webnn):
            with pytest.raises(dm.NotExpressible, match=r"2\*\*32 - 1") as info:
                emit(big)
            assert info.value.witness == tuple(big)
    assert dm.Slicing.from_numpy("x[...]").to_dml(big) == []
    assert dm.Slicing.from_numpy("x[...]").to_webnn(big) == []
    top = [2**32 - 1]
    assert dm.Slicing.from_numpy("x[1:3]").to_dml(top)[0][1]["InputWindowSizes"] == [2]
    assert dm.Slicing.from_numpy("x[-1]").to_webnn(top)[0][1]["starts"] == [2**32 - 2]


@pytest.mark.parametrize(
    ("call", "match"),
    [
        pytest.param(lambda: dm.Slicing.from_dml([-1], [1]), "unsigned", id="dml-negative-offset"),
        pytest.param(lambda: dm.Slicing.from_dml([0], [0]), "non-empty", id="dml-empty-window"),
        pytest.param(lambda: dm.Slicing.from_dml([0], [2], [0]), "non-zero", id="dml-zero-stride"),
        pytest.param(
            lambda: dm.Slicing.from_dml([0], [2], [1, 1]), "one per axis", id="dml-lengths"
        ),
        pytest.param(
            lambda: dm.Slicing.from_dml([0], [5], [2], output_sizes=[4]),
            "MaxCopiedElements",
            id="dml-output-too-long",
        ),
        pytest.param(
            lambda: dm.Slicing.from_webnn([0], [2], [-1]), "reverse", id="webnn-negative-stride"
        ),
        pytest.param(lambda: dm.Slicing.from_webnn([0], [0]), "non-empty", id="webnn-empty"),
        pytest.param(
            lambda: dm.Splitting.from_dml(-1, [[2], [3]]), "unsigned", id="dml-split-axis"
        ),
        pytest.param(
            lambda: dm.Splitting.from_dml(0, [[0, 2], [3, 2]]), "at least 1", id="dml-split-zero"
        ),
        pytest.param(
            lambda: dm.Splitting.from_dml(0, [[1, 2], [3, 3]]),
            "must equal",
            id="dml-split-off-axis",
        ),
        pytest.param(
            lambda: dm.Splitting.from_webnn([2, 0]), "splits\\[1\\]", id="webnn-split-zero"
        ),
        pytest.param(lambda: dm.Splitting.from_webnn(0), "splits=0", id="webnn-split-count-0"),
        pytest.param(lambda: dm.Splitting.from_webnn(8193), "8192", id="webnn-split-count-cap"),
        pytest.param(lambda: dm.Splitting.from_webnn(2, -1), "unsigned", id="webnn-split-axis"),
        pytest.param(
            lambda: dm.Splitting.from_webnn([1] * 8193),
            "more than 8192",
            id="webnn-split-sizes-cap",
        ),
        pytest.param(
            lambda: dm.Splitting.from_dml(0, 5), "non-empty list", id="dml-split-not-a-list"
        ),
        pytest.param(lambda: dm.Splitting.from_dml(0, []), "non-empty list", id="dml-split-none"),
    ],
)
def test_dml_and_webnn_parsers_reject_what_their_dialect_rejects(call: Any, match: str) -> None:
    with pytest.raises(dm.ValidationError, match=match):
        call()


def test_from_dml_reads_a_shorter_output_and_a_backward_window() -> None:
    x = np.arange(10)
    # Window [1, 8), stride -3: copies from index 7 back: 7, 4, 1; output_sizes=2 keeps 7, 4.
    assert dm.Slicing.from_dml([1], [7], [-3])(x).tolist() == [7, 4, 1]
    assert dm.Slicing.from_dml([1], [7], [-3], output_sizes=[2])(x).tolist() == [7, 4]
    assert dm.Slicing.from_webnn([1], [7], [3])(x).tolist() == [1, 4, 7]
    assert dm.Slicing.from_webnn([1], [6], [3])(x).tolist() == [1, 4]  # ceil(6 / 3)


# -- splits --------------------------------------------------------------------------------------
@st.composite
def splittings(draw: Any) -> dm.Splitting:
    axis = draw(st.integers(-2, 1))
    kind = draw(
        st.sampled_from(["split", "variadic", "array_split", "indices", "chunk", "torch", "onnx"])
    )
    count = st.integers(1, 5)
    if kind == "split":
        return dm.Splitting.from_split(axis, draw(count))
    if kind == "onnx":
        return dm.Splitting.from_onnx(axis, num_outputs=draw(count))
    if kind == "variadic":
        lengths = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
        if draw(st.booleans()):
            lengths[draw(st.integers(0, len(lengths) - 1))] = -1
        return dm.Splitting.from_variadic_split(axis, lengths)
    if kind == "array_split":
        return dm.Splitting.from_numpy(draw(count), axis, function="array_split")
    if kind == "indices":
        return dm.Splitting.from_numpy(draw(st.lists(st.integers(-7, 7), max_size=3)), axis)
    return dm.Splitting.from_torch(draw(count), axis, function="split" if kind == "torch" else kind)


@settings(max_examples=examples(300), deadline=None)
@given(sp=splittings(), shape=st.lists(st.integers(0, 7), min_size=2, max_size=3).map(tuple))
def test_dml_and_webnn_splits_give_the_splittings_parts(
    sp: dm.Splitting, shape: tuple[int, ...]
) -> None:
    x = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    try:
        want = sp(x)
    except dm.ValidationError:
        with pytest.raises(dm.ValidationError):
            sp.to_dml(shape)
        try:
            call = sp.to_webnn(shape)
        except dm.ValidationError:
            return
        with pytest.raises(AssertionError):  # the same rule: WebNN refuses it too
            webnn_split(x, call[1])
        return
    tiles = sum(p.shape[sp.axis] for p in want) == shape[sp.axis]
    empty = any(p.shape[sp.axis] == 0 for p in want)
    # DirectML: run the emitted descriptor through datamove.directml's own model of SPLIT.
    if not tiles or empty or 0 in shape:
        with pytest.raises(dm.NotExpressible):
            sp.to_dml(shape)
    else:
        name, p = sp.to_dml(shape)
        assert name == "SPLIT"
        assert p["Axis"] >= 0
        desc = dml.SplitDesc(
            dml.TensorDesc("INT32", p["InputSizes"]),
            [dml.TensorDesc("INT32", o) for o in p["OutputSizes"]],
            axis=p["Axis"],
        )
        desc.validate()
        got = [
            dml.read_tensor(t, b).reshape(t.sizes)
            for t, b in zip(desc.outputs, dml.run_split(desc, x.ravel()), strict=True)
        ]
        assert len(got) == len(want)
        assert all(same(a, b) for a, b in zip(got, want, strict=True))
        back = dm.Splitting.from_dml(p["Axis"], p["OutputSizes"])
        assert back.lengths(shape[sp.axis]) == sp.lengths(shape[sp.axis])
    # WebNN: the reference split; the "even" rule is WebNN's own count on every shape.
    if 0 in shape:
        return  # no WebNN tensor has a size 0
    if not tiles or empty:
        with pytest.raises(dm.NotExpressible):
            sp.to_webnn(shape)
        return
    name, p = sp.to_webnn(shape)
    assert name == "split"
    got = webnn_split(x, p)
    assert len(got) == len(want)
    assert all(same(a, b) for a, b in zip(got, want, strict=True))
    assert dm.Splitting.from_webnn(**p).lengths(shape[sp.axis]) == sp.lengths(shape[sp.axis])


def test_webnn_split_on_shapes_that_are_not_static() -> None:
    assert dm.Splitting.from_split(1, 4).to_webnn() == ("split", {"splits": 4, "axis": 1})
    assert dm.Splitting.from_split(-1, 4).to_webnn("[2,?]") == ("split", {"splits": 4, "axis": 1})
    with pytest.raises(dm.NotExpressible, match="unsigned"):
        dm.Splitting.from_split(-1, 4).to_webnn()
    chunk = dm.Splitting.from_torch(3, 0, function="chunk")
    with pytest.raises(dm.NotExpressible, match="fixed when the graph is built") as info:
        chunk.to_webnn("[3..10]")
    assert info.value.witness == (4,)
    assert chunk.to_webnn("[7]") == ("split", {"splits": [3, 3, 1], "axis": 0})
    assert chunk.to_webnn("[6]") == ("split", {"splits": 3, "axis": 0})
    with pytest.raises(dm.NotExpressible, match="fixes every size"):
        chunk.to_dml("[3..10]")


def _runs(sp: dm.Splitting, shape: tuple[int, ...]) -> bool:
    try:
        sp(np.zeros(shape))
    except dm.ValidationError:
        return False
    return True


@settings(max_examples=examples(300), deadline=None)
@given(sp=splittings(), bounds=st.tuples(st.integers(0, 9), st.integers(0, 9)))
def test_dml_and_webnn_splits_on_an_interval_are_written_for_or_name_sizes_it_runs_on(
    sp: dm.Splitting, bounds: tuple[int, int]
) -> None:
    # VariadicSplit [2, 3] on [4..6] runs on 5 alone; the 'onnx' rule with 4 on [5..8] refuses 5:
    # to_dml said "the numbers written for (4,) do not describe (5,)" and "(5,) ... (6,)",
    # naming sizes the split refuses. The sizes named are sizes it runs on, and an axis it runs
    # on at one size alone is as good as static (as an index's, x[5] on [5..6]).
    lo, hi = sorted(bounds)
    shape = dm.PartialShape([2, dm.Dimension(lo, hi)])
    runs = [d for d in range(lo, hi + 1) if _runs(sp, (2, d))]
    for emit in (sp.to_dml, sp.to_webnn):
        written: Any = None
        try:
            written = emit(shape)
        except dm.ValidationError as exc:
            written = exc
        if isinstance(written, tuple):
            assert runs
            if len(runs) == 1:
                assert written == emit((2, runs[0]))
            continue
        if not runs:
            continue
        assert isinstance(written, dm.NotExpressible), (sp, emit, written)
        witness = written.witness
        assert witness is not None
        w = list(witness) if len(witness) == 2 else [2, hi]  # or the axis' size alone
        if len(witness) == 1:
            w[sp.axis] = witness[0]
        assert tuple(w) in shape
        assert _runs(sp, tuple(w)), (sp, emit, str(written))
        if len(runs) == 1:  # refused where it runs, not for the sizes it refuses
            assert tuple(w) == (2, runs[0]), (sp, emit, str(written))


def test_a_dml_split_on_an_interval_names_sizes_it_runs_on() -> None:
    onnx = dm.Splitting.from_onnx(0, num_outputs=4)  # parts of ceil(d / 4): refuses 5
    with pytest.raises(dm.NotExpressible, match=r"written for \(6,\) do not describe \(7,\)"):
        onnx.to_dml("[5..8]")
    with pytest.raises(dm.NotExpressible, match=r"\(2, 2, 2, 0\) on size 6, not on 7"):
        onnx.to_webnn("[5..8]")
    for emit in (onnx.to_dml, onnx.to_webnn):
        with pytest.raises(
            dm.NotExpressible,
            match=r"runs on size 6 alone, where part 3 of \[2, 2, 2, 0\] is empty",
        ) as info:
            emit("[5..6]")
        assert info.value.witness == (6,)
    with pytest.raises(dm.NotExpressible, match=r"written for \(4,\) do not describe \(8,\)"):
        dm.Splitting.from_split(0, 4).to_dml("[4..9]")
    five = dm.Splitting.from_variadic_split(0, [2, 3])  # runs on 5 alone, as a static 5
    assert five.to_dml("[4..6]") == (
        "SPLIT",
        {"Axis": 0, "InputSizes": [5], "OutputSizes": [[2], [3]]},
    )
    assert five.to_webnn("[4..6]") == ("split", {"splits": [2, 3], "axis": 0})


def test_dml_split_witness_lies_inside_the_shape() -> None:
    # [?,0] had the witness (2, 1): the sizes were written with 1 for the static 0
    split = dm.Splitting.from_torch(1, 0, function="split")
    for shape, witness in (("[?,0]", (2, 0)), ("[0,?]", (0, 2)), ("[..3,2]", (2, 2))):
        with pytest.raises(dm.NotExpressible, match="fixes every size") as info:
            split.to_dml(shape)
        assert info.value.witness == witness
        assert witness in dm.PartialShape.parse(shape)


def test_webnn_split_output_count_cap() -> None:
    ok = dm.Splitting.from_split(0, 8192)
    assert ok.to_webnn() == ("split", {"splits": 8192, "axis": 0})
    with pytest.raises(dm.NotExpressible, match="at most 8192"):
        dm.Splitting.from_split(0, 8193).to_webnn()
    with pytest.raises(dm.NotExpressible, match="at most 8192"):
        dm.Splitting.from_torch(1, 0, function="split").to_webnn([8193])
    # DirectML documents no cap on OutputCount.
    assert (
        len(dm.Splitting.from_torch(1, 0, function="split").to_dml([8193])[1]["OutputSizes"])
        == 8193
    )


def test_every_emitter_takes_shape_none_and_says_what_is_missing() -> None:
    # Slicing.to_dml(), .to_webnn() and Splitting.to_dml() were a TypeError ("missing 1
    # required positional argument: 'shape'") where every other emitter, and
    # Splitting.to_webnn, defaults shape=None and names what is missing
    s, t = dm.Slicing.from_numpy("x[1:]"), dm.Splitting.from_split(0, 2)
    for emit in (s.to_dml, s.to_webnn, t.to_dml):
        with pytest.raises(dm.NotExpressible, match=r"hint: pass the static shape"):
            emit()
