"""Slicing dialects (issue 20): every parser against its own runtime, every emitter round-trips.

Runtimes: NumPy indexing (NumPy and TensorFlow's clamping), ``dm.strided_slice`` and
``dm.slice`` (pinned to OpenVINO by tests/test_differential_openvino.py), and ``onnx.reference``
where ``onnx`` is installed (the tests that need it skip otherwise).
"""

from __future__ import annotations

import contextlib
import itertools
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove._dialects import CLAMP, NUMPY, Cut, addressed
from strategies import examples, hollow, interval_dims, partial_shapes, shape_text
from strategies import numpy_indices as index_strategy

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

bounds = st.one_of(st.none(), st.integers(-9, 9), st.sampled_from([INT64_MIN, INT64_MAX]))
steps = st.one_of(st.none(), st.integers(-4, 4).filter(bool))


def numpy_indices() -> st.SearchStrategy[tuple[Any, ...]]:
    kinds = ("slice", "slice", "int", "new", "ellipsis")
    return index_strategy(bounds, steps, st.integers(-4, 3), kinds=kinds)


shapes = st.lists(st.integers(0, 6), min_size=0, max_size=4).map(tuple)


def numpy_result(x: np.ndarray, index: tuple[Any, ...]) -> np.ndarray | None:
    try:
        return np.asarray(x[index])
    except IndexError:
        return None


def slicing_from(index: tuple[Any, ...], source: str) -> dm.Slicing:
    """The slicing of a NumPy index; with ``source="strided_slice"``, the same numbers read with
    OpenVINO's clamping (``from_strided_slice``), which differs from NumPy's at the edges."""
    s = dm.Slicing.from_numpy(index)
    if source == "strided_slice":
        s = dm.Slicing.from_strided_slice(**s._strided_slice(list(s.entries)))
    return s


RANKS = range(7)  # the ranks a parameter set written for no shape is run on


def rank_shape(x: np.ndarray, rank: int) -> tuple[int, ...]:
    """``x``'s sizes cut or padded (with 3) to ``rank`` axes."""
    return (x.shape + (3,) * rank)[:rank]


def emitted_runs_as_sliced(
    s: dm.Slicing, x: np.ndarray, emit: Any, run: Any, *, refuses_repeats: bool = True
) -> None:
    """``run(x, emit(shape))`` gives ``s(x)`` for ``x``'s static shape (nothing to check where
    ``s`` refuses ``x``); what ``emit(None)`` writes (where the emitter can) gives ``s(y)`` on
    arrays ``y`` of every rank in ``RANKS``, and is refused on those of fewer axes than ``s``
    addresses, as ``s`` is (the rank a translation must keep). ``refuses_repeats=False``: the
    runtime runs a Slice axis listed twice (ONNX leaves it undefined), so only where an axis is
    out of range is a refusal asked for."""
    try:
        want = s(x)
    except dm.ValidationError:
        pass
    else:
        assert same(run(x, emit(x.shape)), want), (s, x.shape, emit(x.shape))
    try:
        emitted = emit(None)
    except dm.NotExpressible:
        return
    need = addressed(s.entries)
    for rank in RANKS:
        y = np.arange(int(np.prod(rank_shape(x, rank))), dtype=x.dtype).reshape(rank_shape(x, rank))
        if rank < need:
            if not refuses_repeats and rank >= max(_ends(s)):
                continue
            refused = False
            try:
                run(y, emitted)
            except AssertionError:  # run's own checks
                raise
            except Exception:  # noqa: BLE001 - each runtime refuses in its own words
                refused = True
            assert refused, f"{s} needs {need} axes, {emitted} ran on {y.shape}"
            continue
        try:
            want = s(y)
        except dm.ValidationError:  # an index out of range
            continue
        assert same(run(y, emitted), want), (s, y.shape, emitted)


def _ends(s: dm.Slicing) -> tuple[int, int]:
    """How many axes ``s`` addresses before its ellipsis and after it (no ellipsis: all before)."""
    cut = s.entries.index(Ellipsis) if Ellipsis in s.entries else len(s.entries)
    return addressed(s.entries[:cut]), addressed(s.entries[cut:])


def same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool((a == b).all())


def apply_ops(x: np.ndarray, ops: list[tuple[str, dict[str, Any]]]) -> np.ndarray:
    """OpenVINO Slice-8 (dm.slice), then Unsqueeze and Squeeze, in the order given."""
    for name, p in ops:
        if name == "Slice":
            x = dm.slice(x, p["start"], p["stop"], p["step"], p["axes"])
        elif name == "Unsqueeze":
            x = np.expand_dims(x, tuple(p["axes"]))
        else:
            assert name == "Squeeze"
            x = np.squeeze(x, tuple(p["axes"]))
    return x


def run_onnx(x: np.ndarray, ops: list[tuple[str, dict[str, Any]]]) -> np.ndarray:
    """The ONNX operations in onnx.reference (opset 13)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    from onnx.reference import ReferenceEvaluator

    nodes, inits, name = [], [], "x"
    for k, (op, p) in enumerate(ops):
        out = f"y{k}"
        if op == "Slice":
            ins = [name]
            for key in ("starts", "ends", "axes", "steps"):
                inits.append(
                    helper.make_tensor(f"{key}{k}", TensorProto.INT64, [len(p[key])], p[key])
                )
                ins.append(f"{key}{k}")
        else:
            inits.append(
                helper.make_tensor(f"axes{k}", TensorProto.INT64, [len(p["axes"])], p["axes"])
            )
            ins = [name, f"axes{k}"]
        nodes.append(helper.make_node(op, ins, [out]))
        name = out
    if not ops:
        return x
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.INT64, None)],
        [helper.make_tensor_value_info(name, TensorProto.INT64, None)],
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    del onnx
    return ReferenceEvaluator(model).run(None, {"x": x})[0]


# -- parsers against their runtimes ---------------------------------------------------------------
@settings(max_examples=examples(300), deadline=None)
@given(index=numpy_indices(), shape=shapes)
def test_from_numpy_selects_what_numpy_selects(
    index: tuple[Any, ...], shape: tuple[int, ...]
) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape)
    want = numpy_result(x, index)
    s = dm.Slicing.from_numpy(index)
    assert dm.Slicing.from_numpy(s.to_numpy()) == s  # the text parses back to the same form
    if want is None:
        with pytest.raises(dm.ValidationError):
            s(x)
        return
    assert same(s(x), want), (index, shape)
    assert s.infer(shape) == want.shape


@st.composite
def strided_slice_params(draw: Any) -> dict[str, Any]:
    m = draw(st.integers(0, 5))
    vec = st.lists(st.integers(-9, 9), min_size=m, max_size=m)
    mask = st.lists(st.integers(0, 1), min_size=0, max_size=m + 1)
    return {
        "begin": draw(vec),
        "end": draw(vec),
        "stride": draw(st.lists(st.integers(-4, 4).filter(bool), min_size=m, max_size=m)),
        "begin_mask": draw(mask),
        "end_mask": draw(mask),
        "new_axis_mask": draw(mask),
        "shrink_axis_mask": draw(mask),
        "ellipsis_mask": draw(st.sampled_from([[], [1], [0, 1], [0, 0, 1]])),
    }


@settings(max_examples=examples(300), deadline=None)
@given(p=strided_slice_params(), shape=shapes)
def test_from_strided_slice_selects_what_strided_slice_selects(
    p: dict[str, Any], shape: tuple[int, ...]
) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        want = dm.strided_slice(x, **p)
    except dm.ValidationError:
        with pytest.raises(dm.ValidationError):
            dm.Slicing.from_strided_slice(**p)(x)
        return
    assert same(dm.Slicing.from_strided_slice(**p)(x), want)


@st.composite
def slice_params(draw: Any) -> tuple[list[int], ...]:
    n = draw(st.integers(1, 3))
    vec = st.lists(
        st.integers(-9, 9) | st.sampled_from([INT64_MIN, INT64_MAX]), min_size=n, max_size=n
    )
    step = st.lists(st.integers(-4, 4).filter(bool), min_size=n, max_size=n)
    axes = st.lists(st.integers(-3, 2), min_size=n, max_size=n, unique=True)
    return draw(vec), draw(vec), draw(step), draw(axes)


@settings(max_examples=examples(300), deadline=None)
@given(p=slice_params(), shape=st.lists(st.integers(0, 6), min_size=1, max_size=4).map(tuple))
def test_from_slice_and_from_onnx_select_what_slice_8_selects(
    p: tuple[list[int], ...], shape: tuple[int, ...]
) -> None:
    start, stop, step, axes = p
    x = np.arange(int(np.prod(shape))).reshape(shape)
    # Given the rank, axes from the back are Slice-8's (rank + axis), however they mix.
    try:
        want = dm.slice(x, start, stop, step, axes)
    except dm.ValidationError:
        with pytest.raises(dm.ValidationError):
            dm.Slicing.from_slice(start, stop, step, axes, rank=x.ndim)(x)
    else:
        assert same(dm.Slicing.from_slice(start, stop, step, axes, rank=x.ndim)(x), want)
        assert same(dm.Slicing.from_onnx(start, stop, axes, step, rank=x.ndim)(x), want)
    front, back = sorted(a for a in axes if a >= 0), sorted(a for a in axes if a < 0)
    if front and back and front != list(range(len(front))) and back != list(range(-len(back), 0)):
        # axes=[2, -3]: axes 2 and 0 on rank 3, 2 and 3 on rank 6: no one slicing of any rank
        with pytest.raises(dm.ValidationError, match="depends on the rank"):
            dm.Slicing.from_slice(start, stop, step, axes)
        axes = [a % len(shape) for a in axes]
        if len(set(axes)) < len(axes):
            return
    # where one end lists every axis up to its last ([0, -1], [1, -1]), Slice-8 refuses every
    # rank on which an axis from the back is one from the front: so does the slicing
    try:
        want = dm.slice(x, start, stop, step, axes)
    except dm.ValidationError:
        with pytest.raises(dm.ValidationError):
            dm.Slicing.from_slice(start, stop, step, axes)(x)
        return
    assert same(dm.Slicing.from_slice(start, stop, step, axes)(x), want)
    assert same(dm.Slicing.from_onnx(start, stop, axes, step)(x), want)


def tf_params(index: tuple[Any, ...]) -> dict[str, Any]:
    """TensorFlow's Python indexing, as its _slice_helper writes it into masks."""
    p: dict[str, Any] = {
        "begin": [],
        "end": [],
        "strides": [],
        "begin_mask": 0,
        "end_mask": 0,
        "ellipsis_mask": 0,
        "new_axis_mask": 0,
        "shrink_axis_mask": 0,
    }
    for i, item in enumerate(index):
        bit = 1 << i
        b, e, s = 0, 0, 1
        if item is Ellipsis:
            p["ellipsis_mask"] |= bit
        elif item is None:
            p["new_axis_mask"] |= bit
        elif isinstance(item, slice):
            s = 1 if item.step is None else item.step
            if item.start is None:
                p["begin_mask"] |= bit
            else:
                b = item.start
            if item.stop is None:
                p["end_mask"] |= bit
            else:
                e = item.stop
        else:
            b, e = item, item + 1
            p["shrink_axis_mask"] |= bit
        p["begin"].append(b)
        p["end"].append(e)
        p["strides"].append(s)
    if not all(-(2**31) <= v < 2**31 for k in ("begin", "end", "strides") for v in p[k]):
        # TensorFlow reads a list of small ints as int32, and end and strides in it, wrapping
        p.update((k, np.int64(p[k])) for k in ("begin", "end", "strides"))
    if not index:  # x[()]: _slice_helper writes empty int32 tensors (an empty list is float32)
        p.update((k, np.int32([])) for k in ("begin", "end", "strides"))
    return p


def tf_run(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """tf.strided_slice on NumPy: TensorFlow's mask precedence (ellipsis, new axis, shrink), its
    bits past len(begin) ignored, and its clamping, NumPy's (ValidateStridedSliceOp)."""
    index: list[Any] = []
    for i, (b, e, s) in enumerate(zip(p["begin"], p["end"], p["strides"], strict=True)):
        bit = 1 << i
        assert all(type(p[k]) is int for k in p if k.endswith("_mask"))
        if p["ellipsis_mask"] & bit:
            index.append(Ellipsis)
        elif p["new_axis_mask"] & bit:
            index.append(None)
        elif p["shrink_axis_mask"] & bit:
            assert s == 1
            index.append(b)
        else:
            index.append(
                slice(None if p["begin_mask"] & bit else b, None if p["end_mask"] & bit else e, s)
            )
    return np.asarray(x[tuple(index)])


@settings(max_examples=examples(300), deadline=None)
@given(index=numpy_indices(), shape=shapes)
def test_from_tf_selects_what_numpy_selects(index: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape)
    want = numpy_result(x, index)
    s = dm.Slicing.from_tf(**tf_params(index))
    assert s == dm.Slicing.from_numpy(index)
    if want is not None:
        assert same(s(x), want)


def test_tf_documented_example_is_wrong_and_python_is_right() -> None:
    # api_def_StridedSlice.pbtxt: "foo = [1,2,3,4]; foo[-2::-1] is [4,3]"; Python gives [3, 2, 1].
    foo = np.array([1, 2, 3, 4])
    s = dm.Slicing.from_tf([-2], [0], [-1], end_mask=1)
    assert s(foo).tolist() == [3, 2, 1] == foo[-2::-1].tolist()


@pytest.mark.parametrize(
    ("args", "match"),
    [
        pytest.param(
            ({"begin": [0], "end": [1], "strides": [-1], "shrink_axis_mask": 1}),
            "only stride 1",
            id="tf-shrink-negative-stride",
        ),
        pytest.param(
            ({"begin": [0, 0], "end": [1, 1], "ellipsis_mask": 5}),
            "more than one bit",
            id="tf-two-ellipses",
        ),
        pytest.param(({"begin": [0], "end": [1], "strides": [0]}), "non-zero", id="tf-zero-stride"),
        pytest.param(
            ({"begin": [0], "end": [1], "begin_mask": 2**31}), "int32 bit field", id="tf-mask-2**31"
        ),
        pytest.param(({"begin": [], "end": []}), "float32", id="tf-empty-begin-list"),
    ],
)
def test_from_tf_rejects_what_tensorflow_rejects(args: dict[str, Any], match: str) -> None:
    with pytest.raises(dm.ValidationError, match=match):
        dm.Slicing.from_tf(**args)


@pytest.mark.parametrize(
    "text",
    [
        "x[__import__('os')]",
        "x[1.5]",
        "x[True]",
        "x[[0, 1]]",
        "x[..., ...]",
        "x[::0]",
        "x",
        "x[1](2)",
        "x[1 + 1]",
        "x[...:3]",
        "x[99999999999999999999]",  # past int64: no axis has such an index
    ],
)
def test_from_numpy_rejects_what_basic_indexing_is_not(text: str) -> None:
    with pytest.raises(dm.ValidationError, match="from_numpy"):
        dm.Slicing.from_numpy(text)


@pytest.mark.parametrize("argument", ["begin", "end", "stride"])
def test_from_strided_slice_refuses_a_value_known_only_at_run_time(argument: str) -> None:
    params: dict[str, Any] = {"begin": [0, 1], "end": [2, 3], "stride": [1, 1]}
    params[argument] = dm.Unknown(2)
    with pytest.raises(dm.ValidationError) as info:
        dm.Slicing.from_strided_slice(**params)
    assert (info.value.argument, info.value.value) == (argument, dm.Unknown(2))
    assert str(info.value).endswith("must be a concrete value to translate")


@pytest.mark.parametrize("axis", [-(2**20) - 1, 2**20, -141836999983105, 10**12, -(2**63)])
@pytest.mark.parametrize("reader", ["from_onnx", "from_slice"])
def test_an_axis_out_of_range_for_every_rank_is_refused_at_once(axis: int, reader: str) -> None:
    # axes=[-141836999983105] (a mutated ONNX Slice on data of unknown rank) built a list of
    # that many whole axes: a MemoryError after 10 s, or the memory exhausted; no rank
    # datamove takes (MAX_LENGTH) has such an axis
    read = {
        "from_onnx": lambda: dm.Slicing.from_onnx([0], [1], [axis]),
        "from_slice": lambda: dm.Slicing.from_slice([0], [1], [1], [axis]),
    }[reader]
    with pytest.raises(dm.ValidationError, match=r"out of range for every rank \(at most 2\*\*20"):
        read()
    assert dm.Slicing.from_onnx([0], [1], [-3]).to_numpy() == "x[..., :1, :, :]"


def test_a_dialect_has_one_method_name_on_slicing_and_splitting() -> None:
    # Splitting's ONNX pair was from_onnx_split / to_onnx_split: a guessed
    # Splitting(...).to_onnx() was a bare AttributeError. A Slicing has no to_openvino
    # (OpenVINO slices with two operators): asking names both.
    from datamove.cli._dialect_text import SLICING_DIALECTS, SPLIT_DIALECTS

    shared = SLICING_DIALECTS.keys() & SPLIT_DIALECTS.keys()
    assert {SLICING_DIALECTS[d][0] for d in shared} == {SPLIT_DIALECTS[d][0] for d in shared}
    split = dm.Splitting.from_onnx(0, num_outputs=2)
    assert split.to_onnx([4]) == ("Split", {"axis": 0, "outputs": 2, "num_outputs": 2})
    s = dm.Slicing.from_numpy("x[1:]")
    assert not hasattr(s, "to_openvino")
    with pytest.raises(AttributeError) as info:
        s.to_openvino()
    assert str(info.value) == (
        "'Slicing' object has no attribute 'to_openvino': OpenVINO slices with StridedSlice-1 "
        "(to_strided_slice) or Slice-8 (to_slice)"
    )


# -- emitters round-trip --------------------------------------------------------------------------
@settings(max_examples=examples(300), deadline=None)
@given(index=numpy_indices(), shape=shapes, source=st.sampled_from(["numpy", "strided_slice"]))
def test_every_emitter_round_trips_on_static_shapes(
    index: tuple[Any, ...], shape: tuple[int, ...], source: str
) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape)
    s = slicing_from(index, source)
    try:
        want = s(x)
    except dm.ValidationError:
        return
    assert same(eval(s.to_numpy(shape), {"x": x}), want)  # noqa: S307 - our own output, in a test
    assert same(dm.strided_slice(x, **s.to_strided_slice(shape)), want)
    assert dm.Slicing.from_strided_slice(**s.to_strided_slice(shape)).equivalent(s, shape)
    assert same(apply_ops(x, s.to_slice(shape)), want)
    assert same(tf_run(x, s.to_tf(shape)), want)
    assert dm.Slicing.from_tf(**s.to_tf(shape)).equivalent(s, shape)


def slice_part(s: dm.Slicing) -> dm.Slicing:
    """What ``to_slice``'s Slice node says of ``s``: its indices as cuts of one, no new axes."""
    return dm.Slicing(
        Cut.make(x, x + 1 if x != -1 else None, 1, CLAMP) if type(x) is int else x
        for x in s.entries
        if x is not None
    )


def read_slice(p: dict[str, Any], axes: list[int] | None = None) -> dm.Slicing:
    """A Slice-8 node read back; with ``axes``, only those of its axes."""
    keep = [k for k, a in enumerate(p["axes"]) if axes is None or a in axes]
    start, stop, step, listed = ([p[n][k] for k in keep] for n in ("start", "stop", "step", "axes"))
    return dm.Slicing.from_slice(start, stop, step, listed)


@settings(max_examples=examples(300), deadline=None)
@given(index=numpy_indices(), shape=shapes)
def test_slice_and_onnx_emitters_of_no_shape_read_back_and_run(
    index: tuple[Any, ...], shape: tuple[int, ...]
) -> None:
    # With no shape, axes after an ellipsis are counted from the back: x[1:, ..., ::2] is
    # axes=[0, -1]. The node lists the outermost axis the slicing addresses at each end, one
    # end in full where it has both (whole where not sliced), so that Slice-8 refuses exactly
    # the ranks the slicing refuses (an axis out of range, or two that meet), and from_slice
    # and from_onnx read it back as the slicing; no whole axis more than that, and no Slice of
    # whole axes alone where the Unsqueeze after it refuses those ranks (x[:, None]).
    s = dm.Slicing.from_numpy(index)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        ops = s.to_slice()
    except dm.NotExpressible:  # OpenVINO's clamping differs from NumPy's on some size
        return
    emitted_runs_as_sliced(s, x, s.to_slice, apply_ops)
    assert dm.Slicing.from_strided_slice(**s.to_strided_slice()).equivalent(s)
    with contextlib.suppress(dm.NotExpressible):  # NumPy's clamping differs on some size
        assert dm.Slicing.from_tf(**s.to_tf()).equivalent(s)
    try:
        onnx = dict(s.to_onnx()).get("Slice")
    except dm.NotExpressible:  # an end the ONNX runtimes read apart
        onnx = None
    nodes = [p for op, p in ops if op == "Slice"]
    unsqueezed = [op for op, _ in ops] == ["Unsqueeze"]  # its refusals checked above
    assert len(nodes) == (addressed(s.entries) > 0) or (unsqueezed and not nodes)
    for p in nodes:
        same_node = dict(zip(("starts", "ends", "steps", "axes"), p.values(), strict=True))
        if onnx is not None and onnx != same_node:
            # but for ends onnxruntime misreads, and cuts empty on every size, which to_slice
            # writes 0:0:1 (the CPU plugin refuses some of big numbers: divergence 24)
            assert onnx["axes"] == same_node["axes"]
            rows = zip(*(same_node[k] for k in ("starts", "ends", "steps")), strict=True)
            theirs = zip(*(onnx[k] for k in ("starts", "ends", "steps")), strict=True)
            changed = [
                (mine, other) for mine, other in zip(rows, theirs, strict=True) if mine != other
            ]
            assert changed
            for (a, e, c), (a2, f, c2) in changed:
                if (a, e, c) == (0, 0, 1):
                    empty = dm.Slicing.from_onnx([a2], [f], [0], [c2])
                    assert empty.is_empty("[?]"), (s, p, onnx)
                else:
                    assert (a, c) == (a2, c2)
                    assert e in {2**31 - 1, INT64_MAX}
            back = dm.Slicing.from_onnx(onnx["starts"], onnx["ends"], onnx["axes"], onnx["steps"])
            assert back.equivalent(slice_part(s))
        back = read_slice(p)
        assert back == dm.Slicing.from_onnx(p["start"], p["stop"], p["axes"], p["step"])
        assert back.equivalent(slice_part(s)), (s, p)  # on every rank and size
        try:
            node = dm.slice(x, p["start"], p["stop"], p["step"], p["axes"])
        except dm.ValidationError:
            with pytest.raises(dm.ValidationError):
                back(x)
        else:
            assert same(back(x), node)
        for k, axis in enumerate(p["axes"]):  # minimal: no whole axis can be left out
            if (p["start"][k], p["stop"][k], p["step"][k]) == (0, INT64_MAX, 1):
                fewer = [a for a in p["axes"] if a != axis]
                with contextlib.suppress(dm.ValidationError):  # axes from both ends, unread
                    assert not read_slice(p, fewer).equivalent(back), (s, p, axis)


def test_slice_of_no_shape_keeps_the_whole_axes_that_fix_the_rank() -> None:
    """``x[2:, :, ..., :, 1:]`` needs rank 4: ``axes=[0, -1]`` would run on ranks 2 and 3."""
    cases = {
        "x[2:, :, ..., :, 1:]": [0, 1, -2, -1],
        "x[:, 1:, ..., ::2, :]": [0, 1, -2],
        "x[2:, :, :]": [0, 2],
        "x[..., :, 1:]": [-2, -1],
        "x[1:, :, :, ..., ::2]": [0, 2, -1],  # the back end is listed in full: rank 3 meets
        "x[1:, ..., :, :, ::2]": [0, -3, -1],
        "x[:, :]": [1],
        "x[:, ..., :]": [0, -1],
        "x[None, ..., None]": None,
    }
    for text, axes in cases.items():
        s = dm.Slicing.from_numpy(text)
        for ops in (s.to_slice(), s.to_onnx()):
            assert [p["axes"] for op, p in ops if op == "Slice"] == ([] if axes is None else [axes])
        if axes is not None:
            assert read_slice(dict(s.to_slice())["Slice"]) == s, text
    x = np.arange(24).reshape(2, 3, 4)
    with pytest.raises(dm.ValidationError, match="more than the 3 axes"):
        apply_ops(x, dm.Slicing.from_numpy("x[2:, :, ..., :, 1:]").to_slice())


# (slicing, shape, the axes its Slice lists: None for no Slice)
AXES_CUT = [
    ("x[1:, :, :2]", [2, 3, 4], [0, 2]),
    ("x[1:, :, :2]", "[2,?,4]", [0, 2]),
    ("x[:, 0:3, ::-1]", [2, 3, 4], [2]),
    ("x[-9:, :5, 1:]", "[2,..5,4]", [2]),
    ("x[::-1, ::7, 1:]", [1, 1, 4], [2]),  # whole on a size of 1
    ("x[:]", [3], None),
    ("x[:10]", "[2..5]", None),
    ("x[:10]", "[2..12]", [0]),  # size 11 and 12: cut
    ("x[-5:]", "[..6]", [0]),
    ("x[::-1]", "[0..1]", None),  # every size 0 or 1: whole whatever the step (it was listed)
    ("x[::2]", "[..1]", None),
    ("x[5::-3, 1:]", "[..1,3]", [1]),
    ("x[::-1]", "[1..2]", [0]),  # size 2 reversed
    ("x[::2]", "[..2]", [0]),
    ("x[:-1:-1]", "[..1]", [0]),  # empty on a size of 1
    ("x[1::-1]", "[1..2]", [0]),
    ("x[0, :, 1:]", [2, 3, 4], [0, 2]),
    ("x[0, :, 0]", [1, 3, 1], None),
]


def allowed_sizes(shape: Any, span: int = 4) -> list[tuple[int, ...]]:
    """Every static shape ``shape`` allows (an unbounded size up to ``span`` past its least)."""
    if not isinstance(shape, str):
        return [tuple(shape)]
    dims = dm.PartialShape.parse(shape).dims
    return list(itertools.product(*(range(d.min, (d.max or d.min + span) + 1) for d in dims)))


def test_slice_and_onnx_list_only_the_axes_they_cut() -> None:
    # On a static shape every axis was listed (x[1:, :, :2] on [2,3,4]: axes [0, 1, 2], axis 1
    # as 0:3); an axis is left out only where its cut takes it whole on every allowed size.
    for text, shape, axes in AXES_CUT:
        s = dm.Slicing.from_numpy(text)
        for ops in (s.to_slice(shape), s.to_onnx(shape)):
            assert [p["axes"] for op, p in ops if op == "Slice"] == ([] if axes is None else [axes])
        for w in allowed_sizes(shape):  # onnxruntime: test_dialects_onnxruntime.py
            x = np.arange(int(np.prod(w))).reshape(w)
            assert same(apply_ops(x, s.to_slice(shape)), s(x)), (text, w)
            assert same(run_onnx(x, s.to_onnx(shape)), s(x)), (text, w)


@settings(max_examples=examples(150), deadline=None)
@given(index=numpy_indices(), shape=shapes)
def test_slice_lists_no_axis_it_takes_whole(index: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    s = dm.Slicing.from_numpy(index)
    try:
        ops = s.to_slice(shape)
    except dm.ValidationError:
        return
    for name, p in ops:
        if name == "Slice":
            for a, b, c, axis in zip(p["start"], p["stop"], p["step"], p["axes"], strict=True):
                d = shape[axis]
                assert range(*slice(a, b, c).indices(d)) != range(d) or (c == 1 and b == a + 1)


@settings(max_examples=examples(150), deadline=None)
@given(index=numpy_indices(), shape=partial_shapes(max_rank=3, dynamic_rank=False))
@example(index=(slice(None, None, -1),), shape=((0, 1),))
def test_slice_lists_no_bounded_axis_it_takes_whole_on_every_size(
    index: tuple[Any, ...], shape: tuple[tuple[int, int | None], ...]
) -> None:
    # x[::-1] on [0..1] was listed: whole on sizes 0 and 1 (a step other than 1 included)
    s = dm.Slicing.from_numpy(index)
    try:
        ops = s.to_slice(shape_text(shape))
    except dm.ValidationError:
        return
    for name, p in ops:
        if name == "Slice":
            for a, b, c, axis in zip(p["start"], p["stop"], p["step"], p["axes"], strict=True):
                lo, hi = shape[axis]
                if hi is not None and not (c == 1 and b == a + 1):  # (an index: its Squeeze)
                    sizes = range(lo, hi + 1)
                    assert any(range(*slice(a, b, c).indices(d)) != range(d) for d in sizes)


@settings(max_examples=examples(150), deadline=None)
@given(index=numpy_indices(), shape=shapes, source=st.sampled_from(["numpy", "strided_slice"]))
def test_onnx_emitter_round_trips_in_onnx_reference(
    index: tuple[Any, ...], shape: tuple[int, ...], source: str
) -> None:
    pytest.importorskip("onnx")
    x = np.arange(int(np.prod(shape))).reshape(shape)
    s = slicing_from(index, source)
    try:
        want = s(x)
    except dm.ValidationError:
        return
    assert same(run_onnx(x, s.to_onnx(shape)), want)
    assert same(apply_ops(x, [(n, _ov(p)) for n, p in s.to_onnx(shape)]), want)  # the spec's rule


def _ov(p: dict[str, Any]) -> dict[str, Any]:
    names = {"starts": "start", "ends": "stop", "steps": "step", "axes": "axes"}
    return {names.get(k, k): v for k, v in p.items()}


def _with_rule(s: dm.Slicing, rule: str) -> dm.Slicing:
    return dm.Slicing(
        Cut(x.start, x.stop, x.step, rule) if isinstance(x, Cut) else x for x in s.entries
    )


@settings(max_examples=examples(300), deadline=None)
@given(
    index=numpy_indices(),
    dims=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=4),
    source=st.sampled_from(["numpy", "strided_slice"]),
    dialect=st.sampled_from(["numpy", "strided_slice", "slice", "tf"]),
)
def test_interval_shapes_round_trip_for_every_size_or_raise_with_a_witness(
    index: tuple[Any, ...], dims: list[tuple[int, int]], source: str, dialect: str
) -> None:
    s = slicing_from(index, source)
    shape = dm.PartialShape([dm.Dimension(min(a, b), max(a, b)) for a, b in dims])
    emit = {
        "numpy": s.to_numpy,
        "strided_slice": s.to_strided_slice,
        "slice": s.to_slice,
        "tf": s.to_tf,
    }[dialect]
    try:
        out = emit(shape)
    except dm.NotExpressible as exc:
        # The witness is allowed, and there the dialect's reading of the same numbers differs.
        w = exc.witness
        assert w is not None
        assert all(
            d.min <= k <= (d.max if d.max is not None else k)
            for d, k in zip(shape.dims, w, strict=False)
        )
        if "S-6 and IR-6" in str(exc):
            # OpenVINO's shape inference declares a length the witness lies outside of (held
            # against OpenVINO in tests/test_dialects_openvino.py)
            assert dialect in ("slice", "strided_slice")
            return
        x = np.arange(int(np.prod(w))).reshape(w)
        other = _with_rule(s, NUMPY if dialect in ("numpy", "tf") else CLAMP)
        assert not same(s(x), other(x))
        return
    except dm.ValidationError:
        return  # the slicing cannot run on this rank
    for w in itertools.product(*(range(d.min, d.max + 1) for d in shape.dims)):
        x = np.arange(int(np.prod(w))).reshape(w)
        try:
            want = s(x)
        except dm.ValidationError:
            continue
        if dialect == "numpy":
            got = eval(out, {"x": x})  # noqa: S307 - our own output, in a test
        elif dialect == "strided_slice":
            got = dm.strided_slice(x, **out)
        elif dialect == "tf":
            got = tf_run(x, out)
            assert dm.Slicing.from_tf(**out)(x).shape == want.shape
        else:
            got = apply_ops(x, out)
        assert same(got, want), (s, shape, w, out)
        inferred = s.infer(shape)
        assert all(
            d.min <= k <= (d.max if d.max is not None else k)
            for d, k in zip(inferred.dims, want.shape, strict=False)
        )


def run_torch(x: np.ndarray, ops: list[tuple[str, dict[str, Any]]]) -> np.ndarray:
    """The emitted PyTorch calls, on a torch tensor."""
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(x)
    for name, p in ops:
        if name == "narrow":
            t = t.narrow(p["dim"], p["start"], p["length"])
        elif name == "select":
            t = t.select(p["dim"], p["index"])
        elif name == "flip":
            t = t.flip(p["dims"])
        elif name == "unsqueeze":
            t = t.unsqueeze(p["dim"])
        else:
            assert name == "getitem"
            assert p["step"] > 0
            d, cut = p["dim"], slice(p["start"], p["stop"], p["step"])
            whole = (slice(None),)
            t = t[whole * d + (cut,) if d >= 0 else (..., cut) + whole * (-d - 1)]
    return t.numpy()


@settings(max_examples=examples(300), deadline=None)
@given(
    index=numpy_indices(),
    shape=shapes,
    source=st.sampled_from(["numpy", "strided_slice"]),
    known=st.sampled_from(["static", "rank", "none"]),
)
# PyTorch flips a scalar along dim 0 or -1: x[::-1] of no shape must still refuse one
@example(index=(slice(None, None, -1),), shape=(3,), source="numpy", known="none")
@example(index=(Ellipsis, slice(None, None, -1)), shape=(3,), source="numpy", known="none")
def test_torch_calls_select_what_numpy_selects(
    index: tuple[Any, ...], shape: tuple[int, ...], source: str, known: str
) -> None:
    x = np.arange(int(np.prod(shape))).reshape(shape)
    s = slicing_from(index, source)
    if known == "none":  # on ranks 0 to 6, refused where the slicing has too few axes
        emitted_runs_as_sliced(s, x, s.to_torch, run_torch)
    try:
        want = s(x)
    except dm.ValidationError:
        return
    given_shape = {"static": shape, "rank": dm.PartialShape.dynamic(len(shape)), "none": None}
    try:
        ops = s.to_torch(given_shape[known])
    except dm.NotExpressible as exc:
        w = exc.witness
        assert known != "static"
        assert w is not None
        xw = np.arange(int(np.prod(w))).reshape(w)
        assert not same(s(xw), _with_rule(s, NUMPY)(xw))
        return
    assert same(run_torch(x, ops), want), (s, shape, ops)
    if known == "static":
        assert all(p["step"] > 0 for n, p in ops if n == "getitem")
        assert all(
            0 <= p["start"] <= p["stop"] <= shape[p["dim"]] for n, p in ops if n == "getitem"
        )


@settings(max_examples=examples(200), deadline=None)
@given(
    index=numpy_indices(),
    dims=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), max_size=4),
    source=st.sampled_from(["numpy", "strided_slice"]),
)
def test_torch_calls_on_interval_shapes_are_exact_for_every_size_or_raise(
    index: tuple[Any, ...], dims: list[tuple[int, int]], source: str
) -> None:
    s = slicing_from(index, source)
    shape = dm.PartialShape([dm.Dimension(min(a, b), max(a, b)) for a, b in dims])
    try:
        ops = s.to_torch(shape)
    except dm.NotExpressible as exc:
        w = exc.witness
        assert w is not None
        assert all(d.min <= k <= (d.max or 0) for d, k in zip(shape.dims, w, strict=True))
        xw = np.arange(int(np.prod(w))).reshape(w)
        assert not same(s(xw), _with_rule(s, NUMPY)(xw))
        return
    except dm.ValidationError:
        return  # the slicing cannot run on this rank
    for w in itertools.product(*(range(d.min, (d.max or 0) + 1) for d in shape.dims)):
        x = np.arange(int(np.prod(w))).reshape(w)
        try:
            want = s(x)
        except dm.ValidationError:
            continue
        assert same(run_torch(x, ops), want), (s, shape, w, ops)


def test_a_big_step_that_takes_two_elements_on_every_size_is_written() -> None:
    # x[::2**40] takes two elements on every size from 2**40 + 1: the step is written as it is
    # (PyTorch's (len + step - 1) / step does not overflow below 2**62, and a tensor holding two
    # has a stride whose product with the step fits). On "[?]", which also allows sizes where it
    # takes one, it was written so too, and PyTorch raises on a big stride there: now refused
    # (test_torch_steps_that_take_one_element_on_some_size_and_two_on_another).
    s = dm.Slicing.from_numpy(np.s_[:: 2**40])
    ops = s.to_torch(f"[{2**40 + 1}..]")
    assert ops == [("getitem", {"dim": 0, "start": None, "stop": None, "step": 2**40})]
    with pytest.raises(dm.NotExpressible, match="takes two elements") as info:
        s.to_torch("[?]")
    assert info.value.witness == (2**40 + 1,)


def test_torch_bounds_below_its_truncation_limit() -> None:
    # PyTorch truncates slice bounds below -2**62 (with a warning): none is written.
    s = dm.Slicing.from_numpy(np.s_[: -(2**63)])
    assert s.to_torch() == [("getitem", {"dim": 0, "start": None, "stop": 0, "step": 1})]
    t = dm.Slicing.from_numpy(np.s_[-(2**62) - 5 :])
    assert t.to_torch("[..4611686018427387909]") == []  # the whole axis on every allowed size
    with pytest.raises(dm.NotExpressible, match="truncates") as info:
        t.to_torch()
    assert info.value.witness == (2**62 + 6,)
    assert same(run_torch(np.arange(5), t.to_torch("[..9]")), np.arange(5))
    # A cut that selects nothing on every size needs no such bound (they were refused, with a
    # witness on which the cut selects nothing too): its start and stop of one sign, the start
    # not before the stop in the step's direction
    far = 2**62 + 5
    for index in (np.s_[-far : -far - 5], np.s_[far : far + 5 : -1]):
        u = dm.Slicing.from_numpy(index)
        assert u.to_torch("[?]") == [("getitem", {"dim": 0, "start": None, "stop": 0, "step": 1})]
        assert u(np.arange(4)).tolist() == []


@settings(max_examples=examples(100), deadline=None)
@given(
    start=st.one_of(st.none(), st.integers(-9, 9), st.integers(INT64_MIN, INT64_MIN + 4)),
    stop=st.one_of(st.none(), st.integers(-9, 9), st.integers(INT64_MIN, INT64_MIN + 4)),
    step=st.sampled_from([1, 2, -1, -3]),
    lo=st.integers(0, 9),
)
# The stop's bound -(INT64_MIN + 2) is INT64_MAX - 1, the largest size an unbounded axis holds:
# the stop is at or before the first element on every allowed size (it was refused, with the
# witness (INT64_MAX,), a size no unbounded axis holds)
@example(start=None, stop=INT64_MIN + 2, step=1, lo=0)
def test_torch_bounds_near_int64_min_on_unbounded_sizes(
    start: int | None, stop: int | None, step: int, lo: int
) -> None:
    s = dm.Slicing.from_numpy((slice(start, stop, step),))
    try:
        ops = s.to_torch(f"[{lo}..]")
    except dm.NotExpressible as exc:
        witness = exc.witness
        ops = None
    if ops is None:
        assert witness is not None
        (w,) = witness
        assert lo <= w <= INT64_MAX - 1, (s, lo, w)
        return
    for d in range(lo, lo + 6):
        assert same(run_torch(np.arange(d), ops), s(np.arange(d))), (s, d, ops)


def test_torch_bound_past_its_truncation_limit_names_an_allowed_size() -> None:
    # x[-2**62 - 3:1:2] on [INT64_MAX - 1..]: its start is inside the axis on every allowed size,
    # and PyTorch truncates it; the witness was (2**62 + 4,), a size the shape does not allow
    s = dm.Slicing.from_numpy(np.s_[-(2**62) - 3 : 1 : 2])
    for lo in (2**62 + 4, 2**62 + 9, INT64_MAX - 1):
        with pytest.raises(dm.NotExpressible, match="truncates") as info:
            s.to_torch(f"[{lo}..]")
        assert info.value.witness == (lo,)
    with pytest.raises(dm.NotExpressible, match="truncates") as info:
        s.to_torch("[3..]")
    assert info.value.witness == (2**62 + 4,)


@pytest.mark.parametrize("size", [2**62 + 5, INT64_MAX - 1])
def test_torch_refuses_two_elements_a_step_from_2_62_apart_on_a_static_axis(size: int) -> None:
    # On a static axis too, a getitem taking two elements with a step from 2**62 overflows
    # PyTorch's length, (len + step - 1) / step in int64: no call says x[3::2**62] on [2**62+5]
    # (it wrote getitem(3, 2**62 + 4, 2**62), which PyTorch refuses on an expanded tensor)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="overflow"):
        torch.zeros(1).expand(size)[3 : 2**62 + 4 : 2**62]
    for text in ("x[3::4611686018427387904]", "x[-1::-4611686018427387904]"):
        s = dm.Slicing.from_numpy(text)
        with pytest.raises(dm.NotExpressible, match="overflows") as info:
            s.to_torch([size])
        assert info.value.witness == (size,)
        assert len(s(hollow((size,)))) == 2  # and it takes two there
    # One element at most, it is written (narrow)
    one = dm.Slicing.from_numpy("x[3::4611686018427387904]").to_torch([2**62 + 3])
    assert one == [("narrow", {"dim": 0, "start": 3, "length": 1})]


def test_torch_steps_past_its_overflow_limit() -> None:
    # PyTorch computes a slice's length as (len + step - 1) / step and its stride as stride *
    # step, in int64: a step within the length of INT64_MAX overflows, and the CPU gives nothing
    # (torch.arange(4)[::2**63 - 1]) or raises; a step of 2**62 on an axis of stride 2 raises.
    # A big step that takes one element at most on every allowed size is left out.
    torch = pytest.importorskip("torch")
    assert torch.arange(4)[::INT64_MAX].tolist() == []  # Python: [0]
    with pytest.raises(RuntimeError):
        torch.zeros(3, 2)[:: 2**62]
    rows = dm.Slicing.from_numpy(np.s_[:: 2**62])
    assert same(run_torch(np.arange(6).reshape(3, 2), rows.to_torch("[..9,?]")), [[0, 1]])
    cases = [
        dm.Slicing.from_numpy(np.s_[::INT64_MAX]),
        dm.Slicing.from_numpy(np.s_[1 : INT64_MAX : INT64_MAX - 1]),
        dm.Slicing.from_strided_slice([0], [0], [INT64_MIN], begin_mask=[1], end_mask=[1]),
        dm.Slicing.from_numpy(np.s_[:, -2::-INT64_MAX]),
    ]
    for s in cases:
        for shape in (None, "[?,?]", "[..9,..9]"):
            ops = s.to_torch(shape)
            assert all(p["step"] <= 2**62 for n, p in ops if n == "getitem"), (s, ops)
            for rows, n in itertools.product((1, 3), range(7)):
                x = np.arange(rows * n).reshape(rows, n)
                assert same(run_torch(x, ops), s(x)), (s, shape, x.shape, ops)
    big = dm.Slicing.from_numpy(np.s_[:, :: -(2**62) - 7])  # 2 elements past 2**62 + 7
    with pytest.raises(dm.NotExpressible, match=r"::-4611686018427387911 takes two") as info:
        big.to_torch(f"[?,..{2**62 + 8}]")
    assert info.value.witness == (1, 2**62 + 8)
    ops = big.to_torch(f"[?,..{2**62 + 7}]")
    assert same(run_torch(np.arange(15).reshape(3, 5), ops), [[4], [9], [14]])
    assert dm.Slicing.from_numpy(np.s_[:, 1 :: -(2**62) - 7]).to_torch()  # one element always


def test_torch_steps_that_take_one_element_on_some_size_and_two_on_another() -> None:
    # x[:0:2, :-1:2**62] of no shape was written with the step 2**62, which PyTorch refuses on a
    # (31, 2, 7, 2) tensor: it multiplies the axis's stride (14) by the step in int64 whatever
    # the length, and raises where that passes INT64_MAX ("cannot be represented as a SymInt");
    # and wherever a step from 2**62 takes two elements, (len + step - 1) overflows. A step
    # past 2**31 - 1 is now written only where it takes two on every allowed size (and is
    # below 2**62), left out where it takes one at most on every one, refused otherwise.
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="SymInt"):
        torch.zeros(31, 2, 7, 2)[:, : -1 : 2**62]
    with pytest.raises(RuntimeError, match="SymInt"):
        torch.zeros(2, 2**23 + 1)[:: 2**40]  # 64 MiB; the step 2**31 - 1 runs on it
    assert torch.zeros(2, 2**23 + 1)[:: 2**31 - 1].shape == (1, 2**23 + 1)
    with pytest.raises(RuntimeError, match="overflow"):  # two elements of a step 2**62
        torch.zeros(1).expand(2**62 + 2)[: -1 : 2**62]
    issue = dm.Slicing.from_onnx([0, 0], [0, -1], [0, 1], [2, 2**62])
    for shape in (None, "[?,?,?,?]"):
        with pytest.raises(dm.NotExpressible, match="overflows for steps from") as info:
            issue.to_torch(shape)
        assert info.value.witness is not None
        assert info.value.witness[1] == 2**62 + 2  # x[0] and x[2**62]
    x = np.arange(31 * 2 * 7 * 2).reshape(31, 2, 7, 2)
    for shape in ([31, 2, 7, 2], f"[?,..{2**62 + 1},?,?]", "[?,1..9,2..,?]"):
        assert same(run_torch(x, issue.to_torch(shape)), issue(x)), shape
    mixed = dm.Slicing.from_numpy(np.s_[:, :: 2**40])
    with pytest.raises(dm.NotExpressible, match="no step past 2\\*\\*31 - 1 says both") as info:
        mixed.to_torch()
    assert info.value.witness == (1, 2**40 + 1)
    assert mixed.to_torch(f"[?,{2**40 + 1}..]")[-1][1]["step"] == 2**40  # two on every size
    for shape in ("[?,..9]", f"[?,..{2**40}]"):
        ops = mixed.to_torch(shape)
        assert all(p["step"] == 1 for n, p in ops if n == "getitem"), ops
        for n in range(6):
            x = np.arange(2 * n).reshape(2, n)
            assert same(run_torch(x, ops), mixed(x)), (shape, n)
    # a step up to 2**31 - 1 is written as it is: its stride overflows behind 2**32 elements
    small = dm.Slicing.from_numpy(np.s_[:: 2**31 - 1])
    assert small.to_torch() == [
        ("getitem", {"dim": 0, "start": None, "stop": None, "step": 2**31 - 1})
    ]


def test_an_index_at_the_int64_ends_is_written_in_int64() -> None:
    # x[2**63 - 1] runs on no shape; its Slice and StridedSlice end was written 2**63, which no
    # int64 input holds (dm.strided_slice refused the value, not the index; ONNX and TensorFlow
    # cannot take it), and Slicing.difference named the size 2**63, which no shape allows. Now
    # every emitter refuses an index no size below INT64_MAX holds, on every shape
    # (test_an_index_no_size_below_int64_max_holds_is_refused); x[2**63 - 3] runs on 2**63 - 2.
    s = dm.Slicing.from_numpy(f"x[{INT64_MAX - 2}]")
    for shape in (None, "[?]", "[2..]"):
        written = [s.to_strided_slice(shape), s.to_tf(shape)]
        written += [p for _, p in s.to_slice(shape) + s.to_onnx(shape)]
        for p in written:
            for v in p.values():
                assert all(INT64_MIN <= k <= INT64_MAX for k in np.ravel(v)), (shape, p)
    for text in (f"x[{INT64_MAX}]", f"x[..., {INT64_MAX}]", f"x[{INT64_MIN}]"):
        s = dm.Slicing.from_numpy(text)
        for shape in (None, "[?]", "[2..]"):
            w = s.difference(dm.Slicing.from_numpy("x[()]"), shape)
            assert w is not None
            assert w in dm.PartialShape(shape or [None] * len(w)), (text, shape, w)
        x = np.arange(4)
        with pytest.raises(dm.ValidationError, match="out of range"):
            dm.strided_slice(x, **s.to_strided_slice([5]))
        with pytest.raises(dm.ValidationError, match="out of range"):
            s(x)


def test_torch_flips_what_has_a_negative_step() -> None:
    x = np.arange(24).reshape(2, 3, 4)
    s = dm.Slicing.from_numpy("x[-1, ..., None, 2::-2]")
    for shape in (None, "[?,?,?]", "[2,3,4]", (2, 3, 4)):
        ops = s.to_torch(shape)
        assert any(n == "flip" for n, _ in ops)
        assert same(run_torch(x, ops), x[-1, ..., None, 2::-2]), shape


def test_the_issue_corner_has_its_witness() -> None:
    s = dm.Slicing.from_numpy("x[-100:-200:-1]")
    with pytest.raises(dm.NotExpressible, match=r"sizes 1\.\.99 of axis 0") as info:
        s.to_onnx()
    assert info.value.witness == (1,)
    assert info.value.op == "ONNX Slice"
    assert s(np.arange(1)).tolist() == []
    assert dm.slice(np.arange(1), [-100], [-200], [-1]).tolist() == [0]
    assert s.to_onnx("[100..]") == [
        ("Slice", {"starts": [-100], "ends": [-200], "steps": [-1], "axes": [0]})
    ]
    assert s.to_onnx("[1..50]") == [
        ("Slice", {"starts": [0], "ends": [0], "steps": [1], "axes": [0]})
    ]
    # Size 0 is empty under both rules: it does not stop the constant answer.
    assert s.to_onnx("[0..50]") == s.to_onnx("[1..50]")
    assert dm.Slicing.from_onnx([-100], [-200], steps=[-1]).to_numpy("[..50]") == "x[0:1]"


def test_to_tf_refuses_openvino_clamping_where_numpy_differs() -> None:
    s = dm.Slicing.from_onnx([-100], [-200], steps=[-1])  # x[0] on sizes 1..99; NumPy: nothing
    with pytest.raises(dm.NotExpressible, match=r"sizes 1\.\.99 of axis 0") as info:
        s.to_tf()
    assert info.value.witness == (1,)
    assert info.value.op == "tf.strided_slice"
    for shape, size in (("[1..50]", 7), ("[100..]", 150)):
        p = s.to_tf(shape)
        x = np.arange(size)
        assert same(tf_run(x, p), s(x)), (shape, p)
    assert s.to_tf("[100..]")["begin"] == [-100]


def test_too_small_a_rank_names_the_shape_given() -> None:
    # The emitters named "data=None" for the shape the caller gave them
    s = dm.Slicing.from_numpy("x[1, ..., 2]")
    rule = "has rank 1, but the slicing addresses 2 axes"
    for emit in (s.to_slice, s.to_onnx, s.to_strided_slice, s.to_tf, s.to_numpy, s.to_torch):
        with pytest.raises(dm.ValidationError, match=rf"^Slicing: shape=\[3\] {rule}$"):
            emit([3])
        with pytest.raises(dm.ValidationError, match=rf"^Slicing: shape='\[\?\]' {rule}$"):
            emit("[?]")
    with pytest.raises(dm.ValidationError, match=rf"^Slicing: data.shape=\[3\] {rule}$"):
        s(np.zeros(3))  # applied to an array: the array's shape (it named data=None)


def test_a_start_of_int64_min_on_unbounded_sizes() -> None:
    # NumPy's reading of x[INT64_MIN:-4:-2] differs from OpenVINO's below size 4: on "[?]" its
    # edge, 2**63, is past every size (it built Dimension(2**63) and failed with that
    # Dimension's error, from infer and from every emitter that explains a NotExpressible)
    s = dm.Slicing.from_numpy((slice(INT64_MIN, -4, -2),))
    assert str(s.infer("[?]")) == "[0]"
    assert str(s.infer("[2..]")) == "[0]"
    # Its start not past its stop, NumPy's reading is empty on every size: so is what is written
    assert s.to_slice("[?]") == [("Slice", {"start": [0], "stop": [0], "step": [1], "axes": [0]})]
    assert s.to_onnx("[?]") == [("Slice", {"starts": [0], "ends": [0], "steps": [1], "axes": [0]})]
    assert dm.Slicing.from_strided_slice(**s.to_strided_slice("[?]")).to_numpy() == "x[:0]"
    # On [4..] both readings are empty on every size: to_slice writes 0:0:1 (divergence 24),
    # to_onnx the numbers
    assert s.to_slice("[4..]") == s.to_slice("[?]")
    assert s.to_onnx("[4..]") == [
        ("Slice", {"starts": [INT64_MIN], "ends": [-4], "steps": [-2], "axes": [0]})
    ]


@settings(max_examples=examples(100), deadline=None)
@given(
    start=st.integers(INT64_MIN, INT64_MIN + 3),
    stop=st.one_of(st.none(), st.integers(-9, 9)),
    step=st.integers(-3, -1),
    lo=st.integers(0, 9),
)
# Its edge, -start, is INT64_MAX: no unbounded size reaches it (infer built Dimension(INT64_MAX)
# with no max, and failed with that Dimension's error)
@example(start=INT64_MIN + 1, stop=-9, step=-1, lo=0)
def test_infer_of_a_start_near_int64_min_on_unbounded_sizes(
    start: int, stop: int | None, step: int, lo: int
) -> None:
    s = dm.Slicing.from_numpy((slice(start, stop, step),))
    (dim,) = s.infer(f"[{lo}..]").dims
    # range slices as NumPy does, on every size an unbounded dimension holds (below INT64_MAX)
    for d in (*range(lo, lo + 12), INT64_MAX - 3, INT64_MAX - 2, INT64_MAX - 1):
        n = len(range(d)[start:stop:step])
        assert dim.min <= n, (s, lo, d)
        assert dim.max is None or n <= dim.max, (s, lo, d)


def test_to_tf_writes_at_most_31_positions() -> None:
    # TensorFlow refuses 32 values of begin and more (its masks are 32-bit): in TensorFlow,
    # tests/test_dialects_tensorflow.py::test_tensorflow_takes_at_most_31_positions
    s = dm.Slicing.from_numpy((0,) * 30 + (None,))
    assert s.to_tf()["new_axis_mask"] == 1 << 30
    assert s.to_tf()["shrink_axis_mask"] == (1 << 30) - 1
    for index in ((0,) * 31 + (None,), (slice(-1, 5),) * 40):
        with pytest.raises(dm.NotExpressible, match=r"needs (32|40) positions, .* at most 31"):
            dm.Slicing.from_numpy(index).to_tf()
    with pytest.raises(dm.ValidationError, match=r"begin=.* has 32 values; .* at most 31"):
        dm.Slicing.from_tf([0] * 32, [1] * 32)


def test_a_reversal_to_the_start_ends_at_int64_min_never_int64_max() -> None:
    ops = dm.Slicing.from_numpy("x[5::-2]").to_onnx()
    assert ops == [("Slice", {"starts": [5], "ends": [INT64_MIN], "steps": [-2], "axes": [0]})]
    # An end of INT64_MAX (onnxruntime: "to the first") is written one less, read alike.
    ops = dm.Slicing.from_onnx([7], [INT64_MAX], steps=[-2]).to_onnx()
    assert ops == [("Slice", {"starts": [7], "ends": [INT64_MAX - 1], "steps": [-2], "axes": [0]})]
    assert dm.Slicing.from_onnx([7], [INT64_MAX], steps=[-2]).to_onnx([2])[0][1]["ends"] == [0]


INT32_MAX = 2**31 - 1
ORT_SENTINELS = (INT32_MAX, INT64_MAX)


def ort_range(d: int, start: int | None, end: int, step: int) -> range:
    """The indices onnxruntime 1.32 (CPU) selects on a size ``d`` for one Slice axis: the spec's
    clamping, but an end of exactly INT32_MAX or INT64_MAX is "to the last" in the step's
    direction (``slice_helper.h``; pinned by tests/test_dialects_onnxruntime.py)."""
    if end in ORT_SENTINELS:
        end = INT64_MIN if step < 0 else INT64_MAX
    return Cut.make(start, end, step, CLAMP).range(d)


def ort_reads(ops: list[tuple[str, dict[str, Any]]], d: int) -> range:
    """What onnxruntime's reading of a one-axis ``to_onnx`` output selects on a size ``d``."""
    ((name, p), *rest) = ops
    assert (name, p["axes"]) == ("Slice", [0])
    assert all(n == "Squeeze" for n, _ in rest)
    return ort_range(d, p["starts"][0], p["ends"][0], p["steps"][0])


near = [INT32_MAX + k for k in range(-3, 4)] + [INT64_MAX, INT64_MAX - 1, INT64_MAX - 2]
wide_bounds = st.one_of(
    st.none(), st.integers(-4, 4), st.sampled_from(near), st.sampled_from([-v for v in near])
)
wide_steps = st.one_of(
    st.integers(-3, 3).filter(bool), st.sampled_from([2**31, -(2**31), 2**40, -(2**62), 2**62])
)
near_dims = st.sampled_from([0, 1, 2, 5, 2**31 - 3, 2**31 - 1, 2**31, 2**31 + 1, 2**31 + 4])


@settings(max_examples=examples(400), deadline=None)
@given(
    start=wide_bounds,
    stop=wide_bounds,
    step=wide_steps,
    lo=near_dims,
    span=st.one_of(st.none(), st.integers(0, 6), st.just(2**31 + 9)),
    rule=st.sampled_from([NUMPY, CLAMP]),
)
# hunt7's finding: the witness was 2**31 + 1, where the step keeps the path from index 0
@example(start=None, stop=INT32_MAX, step=-(2**62), lo=2**31 + 1, span=None, rule=NUMPY)
def test_to_onnx_never_writes_an_end_onnxruntime_misreads(
    start: int | None, stop: int | None, step: int, lo: int, span: int | None, rule: str
) -> None:
    """Ends of INT32_MAX and INT64_MAX (and indices next to them), on sizes near INT32_MAX:
    what ``to_onnx`` writes selects, read as onnxruntime reads it, what the slicing selects on
    every size checked (both ends and near the bounds); a refusal's witness is a size where
    onnxruntime's reading of the slicing's own numbers differs from the spec's."""
    shape = dm.PartialShape([dm.Dimension(lo, None if span is None else lo + span)])
    s = dm.Slicing((Cut.make(start, stop, step, rule),))
    (cut,) = s.entries
    try:
        ops = s.to_onnx(shape)
    except dm.NotExpressible as exc:
        if "onnxruntime reads the end" not in str(exc):  # the clamping corner: tested elsewhere
            return
        witness = exc.witness
        assert witness is not None
        assert witness in shape
        (w,) = witness
        assert ort_range(w, cut.start, cut.stop, step) != cut.range(w), (s, shape, w)
        return
    if not ops:  # the whole axis
        assert cut.range(lo) == range(lo)
        return
    p = ops[0][1]
    assert not any(
        e in ORT_SENTINELS and (c < 0 or e == INT32_MAX)
        for e, c in zip(p["ends"], p["steps"], strict=True)
    )
    top = INT64_MAX - 1 if shape.dims[0].max is None else shape.dims[0].max
    points = {lo, top, 1, INT32_MAX, *(abs(v) for v in (start, stop) if v is not None)}
    for d in {d + k for d in points for k in range(-3, 4)}:
        if lo <= d <= top:
            assert ort_reads(ops, d) == cut.range(d), (s, shape, d, ops)


def test_to_onnx_writes_an_index_next_to_int32_max_backwards() -> None:
    """``x[INT32_MAX - 1]`` as ``starts=[k], ends=[k + 1]`` would end at INT32_MAX, which
    onnxruntime reads as "to the last" on sizes past it: it is written backwards."""
    k = INT32_MAX - 1
    ops = dm.Slicing.from_numpy(f"x[{k}]").to_onnx("[?]")
    assert ops[0] == ("Slice", {"starts": [k], "ends": [k - 1], "steps": [-1], "axes": [0]})
    for d in (1, k, k + 1, k + 2, 2**40):
        assert ort_reads(ops, d) == range(k, k + 1)[: max(0, d - k)]


def test_to_onnx_rewrites_or_refuses_onnxruntime_sentinel_ends() -> None:
    def ends(text: str, shape: Any) -> list[int]:
        return dm.Slicing.from_numpy(text).to_onnx(shape)[0][1]["ends"]  # type: ignore[no-any-return]

    # hunt3's finding: empty on every size, written with an end one less.
    assert ends(f"x[3:{INT64_MAX}:-1]", "[?]") == [INT64_MAX - 1]
    assert ends(f"x[3:{INT32_MAX}:-1]", "[?]") == [INT32_MAX - 1]  # 3 < INT32_MAX: empty
    assert ends(f"x[:{INT32_MAX}:2]", "[?]") == [INT32_MAX + 1]  # never reaches the odd one
    assert ends(f"x[-1:{INT32_MAX}:-1]", f"[..{INT32_MAX + 1}]") == [INT32_MAX + 1]
    assert ends(f"x[-1:{INT32_MAX}:-1]", [INT32_MAX + 9]) == [-9]  # static: from the back
    for text, shape, witness in (
        (f"x[-1:{INT32_MAX}:-1]", "[?]", (1,)),  # onnxruntime: x[::-1]; the spec: nothing
        (f"x[:{INT32_MAX}]", "[3..]", (INT32_MAX + 1,)),  # onnxruntime: one more
        (f"x[-5:{INT32_MAX}:3]", "[?]", (INT32_MAX + 2,)),  # x[-5::3] reaches it there
    ):
        with pytest.raises(dm.NotExpressible, match="onnxruntime reads the end") as info:
            dm.Slicing.from_numpy(text).to_onnx(shape)
        assert info.value.witness == witness, text
    # OpenVINO reads them as the spec says: to_slice writes them as they are.
    assert dm.Slicing.from_numpy(f"x[-1:{INT32_MAX}:-1]").to_slice("[?]")[0][1]["stop"] == [
        INT32_MAX
    ]


def test_onnx_reference_reads_its_own_spec_with_numpy_rule() -> None:
    # On [0.], starts=[-3], ends=[-6], steps=[-3]: the spec (and onnxruntime, OpenVINO) give [0.],
    # onnx.reference gives [] (NumPy's rule). from_onnx follows the spec; to_onnx never writes it.
    s = dm.Slicing.from_onnx([-3], [-6], steps=[-3])
    assert s(np.array([0.0])).tolist() == [0.0]
    ops = s.to_onnx([2])  # on [1] the axis whole: no Slice
    assert ops[0][1]["starts"] == [0]
    assert ops[0][1]["ends"] == [1]
    if pytest.importorskip("onnx"):
        assert (
            run_onnx(
                np.array([0]),
                [("Slice", {"starts": [-3], "ends": [-6], "axes": [0], "steps": [-3]})],
            ).tolist()
            == []
        )
        assert run_onnx(np.array([0, 1]), ops).tolist() == [0]


# -- equivalence ----------------------------------------------------------------------------------
@settings(max_examples=examples(300), deadline=None)
@given(
    a=numpy_indices(),
    b=numpy_indices(),
    dims=st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=3),
    ov=st.booleans(),
)
def test_equivalent_decides_as_running_every_size(
    a: tuple[Any, ...], b: tuple[Any, ...], dims: list[tuple[int, int]], ov: bool
) -> None:
    s = dm.Slicing.from_numpy(a)
    t = dm.Slicing.from_numpy(b)
    if ov:
        t = dm.Slicing.from_strided_slice(**t._strided_slice(list(t.entries)))
    shape = dm.PartialShape([dm.Dimension(min(x, y), max(x, y)) for x, y in dims])
    for u in (t, _with_rule(s, CLAMP)):
        w = s.difference(u, shape)
        differs = []
        for size in itertools.product(*(range(d.min, d.max + 1) for d in shape.dims)):
            x = np.arange(int(np.prod(size))).reshape(size)
            r = [None, None]
            for k, v in enumerate((s, u)):
                with contextlib.suppress(dm.ValidationError):
                    r[k] = v(x)
            if not (r[0] is None and r[1] is None) and (
                r[0] is None or r[1] is None or not same(*r)
            ):
                differs.append(size)
        if w is not None:  # never a shape on which both refuse: on it they agree
            xw = np.arange(int(np.prod(w))).reshape(w)
            assert any(_runs(v, xw) for v in (s, u)), (s, u, shape, w)
        if w is None:  # sound: "equivalent" is never said of slicings that differ
            assert not differs, (s, u, shape, differs)
        elif all(type(x) is not int and x is not None for x in s.entries + u.entries) and all(
            d.max != 0 for d in shape.dims
        ):
            # complete where no axis is added or removed and the result is not empty
            # (documented: x[0, None] and x[()] on [1]; x[::2] and x[::-2] on [2,0])
            xw = np.arange(int(np.prod(w))).reshape(w)
            assert w in differs or s(xw).size == 0, (s, u, shape, w, differs)


def _runs(s: dm.Slicing, x: np.ndarray) -> bool:
    try:
        s(x)
    except dm.ValidationError:
        return False
    return True


def test_equivalent_on_unbounded_sizes() -> None:
    s = dm.Slicing.from_numpy("x[-3::-1]")
    t = dm.Slicing.from_onnx([-3], [INT64_MIN], steps=[-1])
    assert s.equivalent(t, "[3..]")
    assert not s.equivalent(t)
    assert s.difference(t) == (1,)
    assert dm.Slicing.from_numpy("x[::2]").equivalent(
        dm.Slicing.from_numpy("x[0:1000000:2]"), "[..1000000]"
    )
    assert dm.Slicing.from_numpy("x[::2]").difference(dm.Slicing.from_numpy("x[0:1000000:2]")) == (
        1000001,
    )
    assert dm.Slicing.from_numpy("x[...]").equivalent(dm.Slicing.from_numpy("x[:, ...]"), "[?,?]")


def test_a_slicing_that_runs_on_no_allowed_shape_is_that_error_not_a_witness() -> None:
    # Every shape [..3,0,0] allows has size 0 on the shrunk axis: nothing to translate, and no
    # witness on which two readings differ (a CI run found to_onnx naming (1, 0, 0) as one).
    # (On [..2] x[-2::-1] takes one element at most, written x[-2:-1] under both rules.)
    s = dm.Slicing.from_numpy("x[-2::-1, :, 0]")
    for emit in (s.to_onnx, s.to_slice):  # OpenVINO's clamping: they would have refused
        with pytest.raises(dm.ValidationError, match="has size 0 on axis 2, where index 0") as info:
            emit("[..3,0,0]")
        assert not isinstance(info.value, dm.NotExpressible)
    with pytest.raises(dm.NotExpressible) as refused:  # where some shape runs: the witness runs
        s.to_onnx("[..3,0,0..3]")
    w = refused.value.witness
    assert w is not None
    s(np.zeros(w))


_DIALECT = {
    "to_onnx": "ONNX Slice",
    "to_slice": "Slice",
    "to_strided_slice": "StridedSlice",
    "to_tf": "tf.strided_slice",
    "to_torch": "PyTorch",
    "to_numpy": "NumPy",
    "to_dml": "DirectML SLICE1",
    "to_webnn": "WebNN slice",
}
_EMITTERS = tuple(_DIALECT)


@settings(max_examples=examples(150), deadline=None)
@given(
    index=index_strategy(bounds, steps, st.integers(-7, 7), kinds=("int", "int", "slice", "new")),
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple),
)
def test_emitters_refuse_on_a_static_shape_exactly_where_numpy_does(
    index: tuple[Any, ...], shape: tuple[int, ...]
) -> None:
    # An index out of range of a static size was written (x[5] on [1]: Slice 5:6 and Squeeze,
    # which onnxruntime refuses and OpenVINO runs to an empty tensor); NumPy raises IndexError.
    s = dm.Slicing.from_numpy(index)
    want = numpy_result(np.zeros(shape), index)
    refused = want is None
    for name in _EMITTERS:
        if not refused:
            with contextlib.suppress(dm.NotExpressible):  # DirectML, WebNN: no empty result
                getattr(s, name)(shape)
            continue
        with pytest.raises(dm.ValidationError) as info:
            getattr(s, name)(shape)
        assert not isinstance(info.value, dm.NotExpressible), (index, shape, name)
        assert info.value.op in (_DIALECT[name], "Slicing"), info.value  # "Slicing": the rank


def test_an_index_out_of_range_of_every_allowed_size_is_refused_else_written() -> None:
    s = dm.Slicing.from_numpy("x[:, 5]")
    rule = "where index 5 of x[:, 5] is out of range"
    for name in _EMITTERS:
        emit = getattr(s, name)
        with pytest.raises(dm.ValidationError) as info:
            emit([2, 3])
        assert str(info.value) == (
            f"{_DIALECT[name]}: shape=[2, 3] has size 3 on axis 1, {rule}: it needs size 6 or "
            "more (NumPy raises IndexError)"
        )
        assert (info.value.argument, info.value.value) == ("shape", [2, 3])
        with pytest.raises(dm.ValidationError) as info:  # to_dml: not a NotExpressible of (2, 0)
            emit("[?,..5]")
        assert f"allows sizes ..5 on axis 1, {rule} on every one" in str(info.value)
        assert not isinstance(info.value, dm.NotExpressible)
        if name in ("to_dml", "to_webnn"):  # static shapes only
            continue
        for shape in ("[?,..6]", "[2,?]", "[2,1..]", None):  # some size holds it: the runtime's
            emit(shape)
    with pytest.raises(dm.ValidationError, match=r"^Slicing: data.shape=\[2, 3\] has size 3"):
        s(np.zeros((2, 3)))
    for shape in ([2, 3], "[?,..5]"):  # infer gave StridedSlice's begin[1]=5 message
        with pytest.raises(dm.ValidationError, match=f"^Slicing: shape=.* {re.escape(rule)}"):
            s.infer(shape)


def test_an_index_no_size_below_int64_max_holds_is_refused() -> None:
    # x[2**63 - 2] needs size 2**63 - 1, which no allowed size reaches: to_dml gave a witness (1,)
    # it does not run on; the other emitters wrote it for the runtime to refuse, and infer named
    # StridedSlice's begin[0], which the user never wrote. x[2**63 - 3] on [?] runs on one size
    # only, 2**63 - 2.
    for text in ("x[9223372036854775806]", "x[-9223372036854775807]", "x[-9223372036854775808]"):
        s = dm.Slicing.from_numpy(text)
        for shape in ("[?]", "[...]", "[3..]", None):
            calls = [(name, getattr(s, name)) for name in _EMITTERS]
            calls += [("Slicing", s.infer)] if shape is not None else []
            for name, call in calls:
                with pytest.raises(dm.ValidationError, match="on every one") as info:
                    call(shape)
                assert not isinstance(info.value, dm.NotExpressible), (text, name, shape)
                assert info.value.op == _DIALECT.get(name, name), (text, name, shape)
                assert info.value.hint == "an unbounded dimension holds the sizes below 2**63 - 1"
    s = dm.Slicing.from_numpy("x[9223372036854775805]")
    with pytest.raises(dm.NotExpressible) as info:
        s.to_dml("[?,?]")
    assert info.value.witness == (INT64_MAX - 1, 2)
    for shape in ("[9223372036854775806..]", [INT64_MAX - 1]):  # one size, as a static shape
        with pytest.raises(dm.NotExpressible, match="past 2") as info:
            s.to_dml(shape)
        assert info.value.witness == (INT64_MAX - 1,)


# Every entry of the slice algebra that takes a shape (or an array), with the op it names.
_S = dm.Slicing.from_numpy("x[-9223372036854775806:]")  # x[:] on every size below INT64_MAX
_SPLIT = dm.Splitting.from_numpy([INT64_MAX - 1])
_SHAPE_ENTRIES = [
    *((name, _DIALECT[name], getattr(_S, name)) for name in _EMITTERS),
    ("infer", "Slicing", _S.infer),
    ("equivalent", "Slicing.equivalent", lambda shape: _S.equivalent("x[:]", shape)),
    ("difference", "Slicing.difference", lambda shape: _S.difference("x[:]", shape)),
    *((name, f"Slicing.{name}", getattr(_S, name)) for name in ("is_identity", "is_empty")),
    ("identity_witness", "Slicing.identity_witness", _S.identity_witness),
    ("empty_witness", "Slicing.empty_witness", _S.empty_witness),
    ("canonical", "Slicing.canonical", _S.canonical),
    ("compose", "compose", lambda shape: dm.compose(_S, "x[1:]", shape)),
    ("group_into_split", "group_into_split", lambda shape: dm.group_into_split([_S], shape)),
    (
        "group_into_split_with_gaps",
        "group_into_split_with_gaps",
        lambda shape: dm.group_into_split_with_gaps([_S], shape),
    ),
    (
        "Splitting.from_slicings",
        "Splitting.from_slicings",
        lambda shape: dm.Splitting.from_slicings([_S], shape),
    ),
    ("Splitting.as_slicings", "Splitting.as_slicings", _SPLIT.as_slicings),
    *(
        (f"Splitting.{name}", op, getattr(_SPLIT, name))
        for name, op in (
            ("to_openvino", "OpenVINO"),
            ("to_numpy", "NumPy"),
            ("to_torch", "PyTorch"),
            ("to_tf", "TensorFlow"),
            ("to_onnx", "ONNX Split-18"),
            ("to_dml", "DirectML SPLIT"),
            ("to_webnn", "WebNN split"),
        )
    ),
]


@pytest.mark.parametrize(
    ("shape", "axis", "below"),
    [
        ("[9223372036854775807]", 0, "[9223372036854775806]"),
        ([INT64_MAX], 0, [INT64_MAX - 1]),
        ("[5..9223372036854775807]", 0, "[5..9223372036854775806]"),
        ((2, INT64_MAX), 1, (2, INT64_MAX - 1)),
        ("[..9223372036854775807,3]", 0, "[?,3]"),
    ],
)
@pytest.mark.parametrize(("call", "op"), [pytest.param(c, op, id=n) for n, op, c in _SHAPE_ENTRIES])
def test_every_entry_of_the_algebra_refuses_a_size_of_int64_max(
    call: Any, op: str, shape: Any, axis: int, below: Any
) -> None:
    # x[-(2**63 - 2):] is x[:] in the normal form, exact on every size below INT64_MAX (those an
    # unbounded axis holds, and all OpenVINO has: it reads INT64_MAX as unbounded), but it leaves
    # element 0 out on INT64_MAX elements, where s.infer and s(x) gave one element too many, and
    # numpy.split(x, [2**63 - 2]) two parts of INT64_MAX and 1. Each entry refuses such a size.
    with pytest.raises(dm.ValidationError) as info:
        call(shape)
    e = info.value
    assert not isinstance(e, dm.NotExpressible)
    assert (e.op, e.argument, e.value) == (op, "shape", shape)
    assert e.rule == (
        f"allows size {INT64_MAX} on axis {axis}, but a Slicing's normal form holds for sizes "
        "below INT64_MAX"
    )
    assert e.hint == (
        "dm.strided_slice and dm.slice keep the numbers and run on an axis of INT64_MAX elements"
    )
    # the sizes below: answered, or refused by another rule (DirectML's 32 bits)
    assert "normal form" not in getattr(_raised(call, below), "rule", ""), below


def test_an_array_of_int64_max_elements_is_refused_by_slicing_and_splitting() -> None:
    assert dm.Slicing.from_numpy("x[-9223372036854775806:]") == dm.Slicing.from_numpy("x[:]")
    x = hollow((INT64_MAX,))
    for call, op in ((_S, "Slicing"), (_SPLIT, "Splitting")):
        with pytest.raises(dm.ValidationError, match="normal form holds for sizes below") as info:
            call(x)
        assert (info.value.op, info.value.argument, info.value.value) == (
            op,
            "data.shape",
            [INT64_MAX],
        )
    # the operators and the lengths keep the numbers: exact there
    assert _SPLIT.lengths(INT64_MAX) == (INT64_MAX - 1, 1)
    assert dm.strided_slice(x, [-(2**63 - 2)], [0], end_mask=[1]).shape == (INT64_MAX - 1,)
    assert dm.slice(x, [-(2**63 - 2)], [INT64_MAX], [1]).shape == (INT64_MAX - 1,)
    assert dm.infer_strided_slice([INT64_MAX], [-(2**63 - 2)], [0], end_mask=[1]) == (
        INT64_MAX - 1,
    )


_FAR = (INT64_MAX, INT64_MAX - 1, INT64_MAX - 2, INT64_MIN, INT64_MIN + 1, INT64_MIN + 2)
# (a size of INT64_MAX is refused: test_every_entry_of_the_algebra_refuses_a_size_of_int64_max)
_FAR_DIMS = (
    (INT64_MAX - 2, None),
    (INT64_MAX - 1, None),
    (0, INT64_MAX - 1),
    (INT64_MAX - 2, INT64_MAX - 1),
)


def _raised(call: Any, *args: Any) -> dm.ValidationError | None:
    """The ``ValidationError`` ``call(*args)`` raises, else None."""
    try:
        call(*args)
    except dm.ValidationError as e:
        return e
    return None


def _index_rule(e: dm.ValidationError | None, op: str) -> str | None:
    """The rule of an index refusal ``e``, checked to name ``op``; else None."""
    if e is None or isinstance(e, dm.NotExpressible):
        return None
    if not e.rule.endswith("(NumPy raises IndexError)"):
        return None
    assert e.op == op, e
    return e.rule  # type: ignore[no-any-return]


@settings(max_examples=examples(300), deadline=None)
@given(
    index=index_strategy(
        bounds,
        steps,
        st.one_of(st.integers(-7, 7), st.sampled_from(_FAR)),
        kinds=("int", "slice", "new", "ellipsis"),
    ),
    shape=st.one_of(
        partial_shapes(max_rank=3),
        st.lists(st.one_of(interval_dims(), st.sampled_from(_FAR_DIMS)), max_size=3).map(tuple),
    ),
)
def test_every_witness_is_a_shape_the_slicing_runs_on(
    index: tuple[Any, ...], shape: tuple[tuple[int, int | None], ...] | None
) -> None:
    # x[:, 5] on [?,..5] was refused by to_dml with the witness (2, 0), where index 5 is out of
    # range: a witness lies inside the shape, and NumPy (and infer) run the slicing on it. Indices
    # and sizes near the int64 ends too: x[2**63 - 2] on [?] had the witness (1,).
    # An index refusal is one rule: every emitter and infer give it alike (infer named
    # StridedSlice's begin where the size is unbounded).
    s, text = dm.Slicing.from_numpy(index), shape_text(shape)
    rule = _index_rule(_raised(s.infer, text or "[...]"), "Slicing")
    for name in _EMITTERS:
        e = _raised(getattr(s, name), text)
        assert _index_rule(e, _DIALECT[name]) == rule, (name, e, rule)
        w = e.witness if isinstance(e, dm.NotExpressible) else None
        if w is None:
            continue
        if shape is not None:
            sizes = zip(w, shape, strict=True)
            assert all(lo <= d <= (d if hi is None else hi) for d, (lo, hi) in sizes), (name, w)
        s.infer(w)
        x = np.empty(w, dtype=np.dtype([]))  # no bytes: NumPy holds sizes up to INT64_MAX
        assert numpy_result(x, index) is not None, (name, w)


INT32_MIN = -(2**31)
big_negative_steps = st.sampled_from(
    [INT32_MIN, INT32_MIN - 1, -(2**40), -(2**62), -(2**62) - 7, -INT64_MAX, INT64_MIN]
)
far_bounds = st.one_of(
    st.none(), st.integers(-9, 9), st.sampled_from([2**31, -(2**31), 2**40, -(2**40), INT64_MAX])
)


def _written_cut(emitted: Any, dialect: str) -> Cut:
    """The one cut ``to_slice`` or ``to_strided_slice`` wrote for a one-axis slicing."""
    if dialect == "slice":
        if not emitted:
            return Cut(None, None, 1)
        (name, p), *_ = emitted
        assert name == "Slice"
        return dm.Slicing.from_slice(p["start"], p["stop"], p["step"], p["axes"]).entries[0]  # type: ignore[no-any-return]
    return dm.Slicing.from_strided_slice(**emitted).entries[0]  # type: ignore[no-any-return]


@settings(max_examples=examples(300), deadline=None)
@given(
    start=far_bounds,
    stop=far_bounds,
    step=big_negative_steps,
    lo=st.integers(0, 6),
    hi=st.one_of(st.none(), st.integers(0, 12), st.sampled_from([2**31 - 1, 2**31, 2**40])),
    dialect=st.sampled_from(["slice", "strided_slice"]),
)
def test_openvino_emitters_write_no_step_at_or_below_int32_min_on_a_dynamic_axis(
    start: int | None, stop: int | None, step: int, lo: int, hi: int | None, dialect: str
) -> None:
    """OpenVINO's CPU plugin kills the process on such a step (docs/semantics.md, S-3): the
    emitters write a step above it that selects alike on every size (checked at both ends and
    near the bounds, huge ones included, by the indices each cut selects), or refuse with a
    size where the cut takes two elements or the step -1 form selects otherwise."""
    shape = dm.PartialShape([dm.Dimension(lo, None if hi is None else max(lo, hi))])
    s = dm.Slicing.from_numpy((slice(start, stop, step),))
    s = dm.Slicing.from_strided_slice(**s._strided_slice(list(s.entries)))  # OpenVINO's rule
    (cut,) = s.entries
    emit = s.to_slice if dialect == "slice" else s.to_strided_slice
    try:
        written = _written_cut(emit(shape), dialect)
    except dm.NotExpressible as exc:
        witness = exc.witness
        assert witness is not None
        assert witness in shape
        if "takes two elements" in str(exc):
            assert len(cut.range(witness[0])) == 2
        return
    top = INT64_MAX - 1 if shape.dims[0].max is None else shape.dims[0].max
    assert written.step > INT32_MIN or top == lo
    points = {lo, top, *(abs(v) for v in (start, stop) if v is not None)}
    for d in {d + k for d in points for k in range(-3, 4)}:
        if lo <= d <= top:
            assert written.range(d) == cut.range(d), (s, shape, d, written)


def test_openvino_emitters_rewrite_a_step_at_or_below_int32_min() -> None:
    def written(text: str, shape: str) -> list[Any]:
        ((_, p),) = dm.Slicing.from_numpy(text).to_slice(shape)
        return [p["start"], p["stop"], p["step"]]

    # One element at most: the longest distance from start to stop as the step.
    assert written(f"x[::{INT64_MIN + 1}]", "[..5]") == [[-1], [INT64_MIN], [-5]]
    assert written(f"x[5:3:{-(2**62)}]", "[?]") == [[5], [3], [-2]]
    # Farther than INT32_MAX on some size: the start and one past it, backwards.
    assert written(f"x[::{INT64_MIN + 1}]", "[?]") == [[-1], [-2], [-1]]
    assert written(f"x[0::{-(2**40)}]", "[?]") == [[0], [INT64_MIN], [-1]]
    s = dm.Slicing.from_numpy(f"x[::{INT64_MIN + 1}]")
    assert s.to_strided_slice("[?]")["stride"] == [-1]
    assert s.to_strided_slice([7])["stride"] == [1]  # static: in range, one element
    for text, witness, why in (
        (f"x[::{-(2**62)}]", 2**62 + 1, "takes two elements"),
        (f"x[{2**40}:5:{-(2**62)}]", 7, "selects otherwise at size 7"),
    ):
        for emit in (
            dm.Slicing.from_numpy(text).to_slice,
            dm.Slicing.from_numpy(text).to_strided_slice,
        ):
            with pytest.raises(dm.NotExpressible, match=why) as info:
                emit("[?]")
            assert info.value.witness == (witness,)


def test_difference_names_a_shape_on_which_one_runs_never_one_where_both_refuse() -> None:
    # It named (1, 3), where x[1, 2] and x[0, 5] both refuse; on (2, 3) one runs. Where neither
    # runs on any allowed shape they agree (as x[2] and x[3] on [0..1] did already).
    s, t = dm.Slicing.from_numpy("x[1, 2]"), dm.Slicing.from_numpy("x[0, 5]")
    assert s.difference(t, "[1..2,3..6]") == (2, 3)
    assert t.difference(s, "[1..2,3..6]") == (1, 6)
    x = np.zeros((2, 3))
    assert s(x) == 0
    with pytest.raises(dm.ValidationError):
        t(x)
    for a, b, shape in (
        ("x[3, :1]", "x[3, :2]", "[0..3,1..5]"),
        ("x[2]", "x[5, None]", "[0..1]"),
        ("x[2]", "x[:, 5]", "[0..1,0..1]"),
        ("x[2]", "x[3]", "[0..1]"),
    ):
        assert dm.Slicing.from_numpy(a).difference(b, shape) is None
        assert dm.Slicing.from_numpy(a).equivalent(b, shape)
    assert dm.Slicing.from_numpy("x[2]").difference("x[:, 5]", "[0..3,0..1]") == (3, 1)


_S = dm.Slicing.from_numpy("x[1:]")
_BIG = dm.Slicing.from_numpy(f"x[1::{2**62}]")


@pytest.mark.parametrize(
    ("method", "call"),
    [
        ("difference", lambda shape: _S.difference(_S, shape)),
        ("equivalent", lambda shape: _S.equivalent(_S, shape)),
        ("identity_witness", _S.identity_witness),
        ("is_identity", _S.is_identity),
        ("empty_witness", _S.empty_witness),
        ("is_empty", _S.is_empty),
        ("canonical", _S.canonical),
    ],
)
@pytest.mark.parametrize(
    "shape", [42, [1.5], [-2], "[1,x]", "[5..2]"], ids=["int", "float", "negative", "text", "empty"]
)
def test_each_slicing_method_names_itself_in_its_errors(method: str, call: Any, shape: Any) -> None:
    # Slicing.difference named its shape's errors "Slicing.equivalent", identity_witness and
    # empty_witness "Slicing.is_identity" and "Slicing.is_empty" (copied from their callers);
    # a shape text that does not parse was named "PartialShape" (the parser) by every method.
    with pytest.raises(dm.ValidationError) as info:
        call(shape)
    assert (info.value.op, info.value.argument) == (f"Slicing.{method}", "shape")
    assert str(info.value).startswith(f"Slicing.{method}: shape=")


@pytest.mark.parametrize("method", ["difference", "equivalent"])
def test_each_comparison_names_itself_in_its_errors(method: str) -> None:
    for call in (
        lambda: getattr(_S, method)(3),
        lambda: getattr(_BIG, method)(f"x[1:5:{2**62}]"),  # a period past what is checked
    ):
        with pytest.raises(dm.ValidationError) as info:
            call()
        assert info.value.op == f"Slicing.{method}"


@pytest.mark.parametrize(
    ("op", "call"),
    [
        ("group_into_split", lambda a: dm.group_into_split(a, [4])),
        ("group_into_split_with_gaps", lambda a: dm.group_into_split_with_gaps(a, [4])),
        ("Splitting.from_slicings", lambda a: dm.Splitting.from_slicings(a, [4])),
    ],
)
def test_each_grouping_names_itself_in_its_errors(op: str, call: Any) -> None:
    # group_into_split_with_gaps and Splitting.from_slicings named "group_into_split"
    for bad in ([], [3]):
        with pytest.raises(dm.ValidationError) as info:
            call(bad)
        assert info.value.op == op


def test_equivalent_and_difference_take_a_numpy_expression_as_compose_does() -> None:
    # A newcomer writes s.equivalent("x[::-1]") as they write dm.compose("x[::-1]", ...).
    s = dm.Slicing.from_onnx([-1], [-(2**63)], steps=[-1])
    assert s.equivalent("x[::-1]")
    assert s.difference("x[::-1]", "[?]") is None
    assert s.difference("x[::1]", "[2..5]") == (2,)
    for method in (s.equivalent, s.difference):
        with pytest.raises(dm.ValidationError, match=r"other=3 is not a dm\.Slicing"):
            method(3)  # type: ignore[arg-type]
