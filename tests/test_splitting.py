"""Splitting dialects (issue 20): every rule against its library's real call, every emitter run.

Runtimes: ``numpy.split``/``numpy.array_split``, ``torch.split``/``torch.chunk``/
``torch.tensor_split`` and ``dm.split``/``dm.variadic_split`` (OpenVINO Split-1 and
VariadicSplit-1, pinned to OpenVINO by tests/test_differential_openvino.py).
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
from datamove import _splitting
from datamove._shape import MAX_LENGTH
from strategies import examples

torch = pytest.importorskip("torch")


@st.composite
def splittings(draw: Any) -> tuple[str, str, Any]:
    """(library, function, argument) of one real split call."""
    lib, fn = draw(
        st.sampled_from(
            [
                ("openvino", "Split"),
                ("openvino", "VariadicSplit"),
                ("numpy", "split"),
                ("numpy", "array_split"),
                ("torch", "split"),
                ("torch", "chunk"),
                ("torch", "tensor_split"),
            ]
        )
    )
    count = st.integers(1, 5)
    indices = st.lists(st.integers(-7, 7), max_size=4)
    if fn in ("Split", "chunk"):
        arg: Any = draw(count)
    elif fn == "VariadicSplit":
        arg = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4))
        if draw(st.booleans()):
            arg[draw(st.integers(0, len(arg) - 1))] = -1
    elif fn in ("array_split", "tensor_split") or (lib, fn) == ("numpy", "split"):
        arg = draw(count | indices)
    else:  # torch.split
        arg = draw(count | st.lists(st.integers(0, 4), min_size=1, max_size=4))
    return lib, fn, arg


def build(lib: str, fn: str, arg: Any, axis: int) -> dm.Splitting:
    if lib == "openvino":
        if fn == "Split":
            return dm.Splitting.from_split(axis, arg)
        return dm.Splitting.from_variadic_split(axis, arg)
    if lib == "numpy":
        return dm.Splitting.from_numpy(arg, axis, function=fn)
    return dm.Splitting.from_torch(arg, axis, function=fn)


def run(lib: str, fn: str, arg: Any, axis: int, x: np.ndarray) -> list[np.ndarray] | None:
    """The real call; None where it refuses."""
    try:
        if lib == "openvino":
            parts = dm.split(x, axis, arg) if fn == "Split" else dm.variadic_split(x, axis, arg)
        elif lib == "numpy":
            parts = getattr(np, fn)(x, arg, axis)
        else:
            parts = [t.numpy() for t in getattr(torch, fn)(torch.from_numpy(x), arg, axis)]
    except (ValueError, RuntimeError, IndexError):
        return None
    return [np.asarray(p) for p in parts]


def same_parts(a: list[Any] | None, b: list[Any] | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return len(a) == len(b) and all(
        np.asarray(p).shape == np.asarray(q).shape and (np.asarray(p) == np.asarray(q)).all()
        for p, q in zip(a, b, strict=True)
    )


def call(dialect: str, emitted: tuple[str, dict[str, Any]], x: np.ndarray) -> list[Any] | None:
    name, p = emitted
    if dialect == "openvino":
        arg = p["num_splits"] if name == "Split" else p["split_lengths"]
        return run("openvino", name, arg, p["axis"], x)
    # the library's own function, called with the emitted keywords (they must be its own)
    try:
        if dialect == "numpy":
            assert name in ("split", "array_split")
            return [np.asarray(a) for a in getattr(np, name)(x, **p)]
        assert name in ("split", "chunk", "tensor_split")
        return [t.numpy() for t in getattr(torch, name)(torch.from_numpy(x), **p)]
    except (ValueError, RuntimeError, IndexError):
        return None


def closest(s: dm.Splitting, dialect: str, axis: int) -> tuple[str, dict[str, Any]]:
    """The closest call a NotExpressible message names (documented in docs/dialects.md)."""
    n = s._closest_count()
    return {
        "openvino": ("Split", {"axis": axis, "num_splits": n}),
        "numpy": ("array_split", {"indices_or_sections": n, "axis": axis}),
        "torch": ("tensor_split", {"sections": n, "dim": axis}),
    }[dialect]


DIALECTS = ["openvino", "numpy", "torch"]


@settings(max_examples=examples(300), deadline=None)
@given(
    spec=splittings(),
    shape=st.lists(st.integers(0, 7), min_size=1, max_size=3).map(tuple),
    data=st.data(),
)
def test_a_splitting_splits_as_its_library_and_every_emitter_on_static_shapes(
    spec: tuple[str, str, Any], shape: tuple[int, ...], data: Any
) -> None:
    lib, fn, arg = spec
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = np.arange(int(np.prod(shape))).reshape(shape)
    s = build(lib, fn, arg, axis)
    want = run(lib, fn, arg, axis, x)
    if want is None:
        with pytest.raises(dm.ValidationError):
            s(x)
        with pytest.raises(dm.ValidationError):
            s.as_slicings(shape)
    else:
        assert same_parts(s(x), want), (s, shape)
        assert s.lengths(shape[axis]) == tuple(p.shape[axis] for p in want)
        assert same_parts([t(x) for t in s.as_slicings(shape)], want)
    for dialect in DIALECTS:
        emit = getattr(s, f"to_{dialect}")
        try:
            emitted = emit(shape)
        except dm.NotExpressible as exc:  # numpy.split's parts overlap: no tiling says them
            w = exc.witness
            assert w == (shape[axis],)
            assert want is not None
            assert sum(p.shape[axis] for p in want) != shape[axis]
            continue
        except dm.ValidationError:
            assert want is None, (s, dialect, shape)
            continue
        assert same_parts(call(dialect, emitted, x), want), (s, dialect, shape, emitted)


@settings(max_examples=examples(300), deadline=None)
@given(
    spec=splittings(),
    bounds=st.tuples(st.integers(0, 12), st.integers(0, 12)),
    dialect=st.sampled_from([*DIALECTS, "slicings"]),
)
def test_on_interval_sizes_an_emitter_is_exact_for_every_size_or_raises_with_a_witness(
    spec: tuple[str, str, Any], bounds: tuple[int, int], dialect: str
) -> None:
    lib, fn, arg = spec
    lo, hi = min(bounds), max(bounds)
    shape = dm.PartialShape([2, dm.Dimension(lo, hi)])
    s = build(lib, fn, arg, 1)
    emit = s.as_slicings if dialect == "slicings" else getattr(s, f"to_{dialect}")
    try:
        emitted = emit(shape)
    except dm.NotExpressible as exc:
        w = exc.witness
        if lo == hi:  # on a static size, only overlapping parts (numpy.split going back)
            want = run(lib, fn, arg, 1, np.zeros((2, lo)))
            assert want is not None
            assert sum(p.shape[1] for p in want) != lo
            return
        if dialect == "slicings":
            return
        assert w is not None  # the sizes are bounded: every one was checked
        assert lo <= w[0] <= hi
        x = np.arange(2 * w[0]).reshape(2, w[0])
        # the closest call of that library splits the witness otherwise than the splitting
        assert not same_parts(call(dialect, closest(s, dialect, 1), x), run(lib, fn, arg, 1, x))
        return
    except dm.ValidationError:  # the split refuses every allowed size
        assert all(run(lib, fn, arg, 1, np.zeros((2, d))) is None for d in range(lo, hi + 1))
        return
    for d in range(lo, hi + 1):
        x = np.arange(2 * d).reshape(2, d)
        want = run(lib, fn, arg, 1, x)
        got = (
            [t(x) for t in emitted] if dialect == "slicings" else call(dialect, emitted, x)  # type: ignore[arg-type]
        )
        if dialect == "slicings" and want is None:
            continue  # slicings do not refuse; they are exact where the split runs
        assert same_parts(got, want), (s, dialect, d, emitted)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize(
    "s",
    [
        dm.Splitting.from_torch(1, function="chunk"),
        dm.Splitting.from_numpy(1, function="array_split"),
        dm.Splitting.from_torch(1, function="tensor_split"),
        dm.Splitting.from_onnx(0, num_outputs=1, reading="reference"),
        dm.Splitting.from_onnx(0, num_outputs=1),
    ],
)
@pytest.mark.parametrize("shape", ["[?]", "[3..]", "[..9]"])
def test_a_one_part_split_is_written_on_any_interval(
    s: dm.Splitting, dialect: str, shape: str
) -> None:
    # torch.chunk(x, 1) on [?] raised NotExpressible ("no size up to 4096 tells the closest call
    # Split(1) from it"), though both are x whole on every size; now it is a count of 1.
    emitted = getattr(s, f"to_{dialect}")(shape)
    for d in (0, 1, 5, 9):
        x = np.arange(d)
        assert same_parts(call(dialect, emitted, x), [x]), (s, dialect, emitted)
    assert len(s.as_slicings(shape)) == 1


def test_a_witness_message_says_which_call_refuses_the_size() -> None:
    # OpenVINO's closest call (Split, 'even') refuses size 1 where tensor_split gives (1, 0)
    s = dm.Splitting.from_torch(2, function="tensor_split")
    with pytest.raises(dm.NotExpressible) as exc:
        s.to_openvino("[?]")
    assert "None" not in str(exc.value)
    assert "Split({'axis': 0, 'num_splits': 2}) refuses size 1 where this split gives (1, 0)" in (
        str(exc.value)
    )
    assert exc.value.witness == (1,)


def test_the_uneven_rules_by_name() -> None:
    # 5 elements, 3 parts: four libraries, three answers
    assert dm.Splitting.from_numpy(3, function="array_split").lengths(5) == (2, 2, 1)
    assert dm.Splitting.from_torch(3, function="tensor_split").lengths(5) == (2, 2, 1)
    assert dm.Splitting.from_torch(3, function="chunk").lengths(5) == (2, 2, 1)
    assert dm.Splitting.from_torch(3, function="chunk").lengths(4) == (2, 2)  # fewer than 3
    assert dm.Splitting.from_torch(3, function="chunk").lengths(0) == (0, 0, 0)
    assert dm.Splitting.from_torch(3, function="split").lengths(0) == (0,)
    assert dm.Splitting.from_torch(2, function="split").lengths(5) == (2, 2, 1)
    with pytest.raises(dm.ValidationError, match="'even' rule"):
        dm.Splitting.from_split(0, 3).lengths(5)
    with pytest.raises(dm.ValidationError, match="'even' rule"):
        dm.Splitting.from_numpy(3).lengths(5)
    assert dm.Splitting.from_numpy([-2, 1, 7]).lengths(5) == (3, 0, 4, 0)  # x[1:5] again
    with pytest.raises(dm.NotExpressible, match="overlapping parts") as info:
        dm.Splitting.from_numpy([-2, 1, 7]).to_openvino([5])
    assert info.value.witness == (5,)


def test_a_rule_a_library_lacks_needs_the_shape() -> None:
    s = dm.Splitting.from_torch(3, function="chunk")
    with pytest.raises(dm.NotExpressible, match="no 'chunk' rule") as info:
        s.to_numpy("[3..10]")
    assert info.value.witness == (4,)  # chunk: [2, 2]; array_split: [2, 1, 1]
    assert s.to_numpy("[5..6]") == ("array_split", {"indices_or_sections": 3, "axis": 0})
    assert s.to_numpy([10]) == ("split", {"indices_or_sections": [4, 8], "axis": 0})
    assert s.to_torch() == ("chunk", {"chunks": 3, "dim": 0})
    with pytest.raises(dm.NotExpressible, match="OpenVINO"):
        dm.Splitting.from_numpy(2, function="array_split").to_openvino()
    assert dm.Splitting.from_variadic_split(0, [2, -1]).to_torch([5]) == (
        "split",
        {"split_size_or_sections": [2, 3], "dim": 0},
    )
    with pytest.raises(dm.NotExpressible, match="parts move with the size"):
        dm.Splitting.from_split(0, 2).as_slicings()


@settings(max_examples=examples(150), deadline=None)
@given(
    lengths=st.lists(st.integers(0, 3), min_size=0, max_size=4),
    at=st.integers(0, 4),
    lo=st.integers(0, 8),
    span=st.integers(0, 6),
    dialect=st.sampled_from(["numpy", "torch"]),
)
def test_lengths_with_a_rest_are_indices_where_every_allowed_size_holds_them(
    lengths: list[int], at: int, lo: int, span: int, dialect: str
) -> None:
    # VariadicSplit [2, -1, 1] on [5..8] was refused (witness 6, against array_split), though
    # numpy.split(x, [2, -1]) and torch.tensor_split(x, [2, -1]) split it on every size.
    lengths.insert(min(at, len(lengths)), -1)
    s = dm.Splitting.from_variadic_split(1, lengths)
    known = sum(lengths) + 1
    shape = dm.PartialShape([2, dm.Dimension(lo, lo + span)])
    if span and lo < known <= lo + span and (known < lo + span or dialect == "numpy"):
        # below the other lengths' sum NumPy's and PyTorch's indices split what it refuses
        # (where it runs on the largest size alone, torch.split's lengths there refuse them)
        with pytest.raises(dm.NotExpressible, match=f"on a size below {known} "):
            getattr(s, f"to_{dialect}")(shape)
        return
    try:
        emitted = getattr(s, f"to_{dialect}")(shape)
    except dm.ValidationError:
        assert lo + span < known
        return
    for d in range(lo, lo + span + 1):
        x = np.arange(2 * d).reshape(2, d)
        want = run("openvino", "VariadicSplit", lengths, 1, x)
        assert same_parts(call(dialect, emitted, x), want), (lengths, d, emitted)


def test_rest_indices_count_from_both_ends() -> None:
    big = 2**63 - 1
    assert _splitting.rest_indices([2, -1, 1]) == [2, -1]
    assert _splitting.rest_indices([2, -1, 0]) == [2, big]  # an index 0 is the front
    assert _splitting.rest_indices([-1, 3, 0, 0]) == [-3, big, big]
    assert _splitting.rest_indices([0, 0, -1]) == [0, 0]
    assert _splitting.rest_indices([-1]) == []
    s = dm.Splitting.from_variadic_split(0, [2, -1, 1])
    assert s.to_numpy("[5..8]") == ("split", {"indices_or_sections": [2, -1], "axis": 0})
    assert s.to_torch("[3..]") == ("tensor_split", {"indices": [2, -1], "dim": 0})
    with pytest.raises(dm.NotExpressible, match=r"below 3 torch\.tensor_split's indices split it"):
        s.to_torch("[2..8]")  # size 2: x[:2], x[2:-1], x[-1:], overlapping; VariadicSplit refuses
    # a rule NumPy lacks, read as lengths with a rest (as to_tf reads it), is such indices too
    assert dm.Splitting.from_torch(4).to_numpy("[5..8]") == (
        "split",
        {"indices_or_sections": [4], "axis": 0},
    )


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: dm.Splitting.from_split(0, 0), "at least 1"),
        (lambda: dm.Splitting.from_split(0, True), "bool"),
        (
            lambda: dm.Splitting.from_variadic_split(0, [-1, -1]),
            "holds -1 at indices 0 and 1; at most one length can be inferred",
        ),
        (
            lambda: dm.Splitting.from_variadic_split(0, [1, -2]),
            "holds -2 at index 1; every length must be >= -1",
        ),
        (lambda: dm.Splitting.from_variadic_split(0, []), "empty"),
        (lambda: dm.Splitting.from_numpy(0), "at least 1"),
        (lambda: dm.Splitting.from_numpy(2, function="hsplit"), "'split' or 'array_split'"),
        (lambda: dm.Splitting.from_torch(2, function="unbind"), "'chunk'"),
        (lambda: dm.Splitting.from_torch([1, -1]), "at least 0"),
        (lambda: dm.Splitting.from_torch(0, function="chunk"), "at least 1"),
        (lambda: dm.Splitting.from_split(3, 2).lengths(-1), "at least 0"),
        (lambda: dm.Splitting.from_split(3, 2).to_numpy([4, 4]), "out of range"),
    ],
)
def test_invalid_splittings_raise_clearly(make: Any, match: str) -> None:
    with pytest.raises(dm.ValidationError, match=match):
        make()


def test_a_split_whose_first_difference_is_past_4096_sizes_names_it() -> None:
    # VariadicSplit [2 x 4097, -1] refuses every size below 8194, Split-13 with 4098 outputs
    # every size up to 4097: the first that tells them apart (4098) was past the scan, and the
    # refusal named no witness ("no size up to 4097 tells"). Against an even count the sizes
    # where they can differ are derived, not scanned (in onnxruntime:
    # tests/test_splitting_onnx.py::test_a_split_13_refusal_names_its_witness_past_4096_sizes).
    sp = dm.Splitting(0, "lengths", (2,) * 4097 + (-1,))
    with pytest.raises(dm.NotExpressible, match=r"splits size 4098 into \(1 x 4098\)") as info:
        sp.to_onnx("[1..]", opset=13)
    assert info.value.witness == (4098,)
    assert len(dm.Splitting(0, "even", 4098)(np.zeros(4098))) == 4098
    with pytest.raises(dm.ValidationError):
        sp(np.zeros(4098))


@pytest.mark.parametrize("shape", ["[4097..]", "[2..]", "[2..9000]"])
def test_a_count_that_splits_alike_past_4096_sizes_is_written(shape: str) -> None:
    # torch.chunk(x, 2) on [4097..] was refused ("no size up to 8193 tells" array_split(x, 2)
    # from it: 4096 sizes scanned, none told), a false refusal: from size 2 on both give
    # ceil(d / 2) and the rest, as torch.tensor_split(x, 2) does too.
    s = dm.Splitting.from_torch(2, function="chunk")
    emitted = s.to_numpy(shape)
    assert emitted == ("array_split", {"indices_or_sections": 2, "axis": 0})
    for d in (2, 3, 4097, 4098, 8193, 8194, 10**6 + 1):
        x = np.arange(d)
        want = run("torch", "chunk", 2, 0, x)
        assert same_parts(call("numpy", emitted, x), want), d
        assert same_parts(run("torch", "tensor_split", 2, 0, x), want), d
    with pytest.raises(dm.NotExpressible) as info:  # size 1: chunk gives (1,), not (1, 0)
        s.to_numpy("[1..]")
    assert info.value.witness == (1,)


def test_a_witness_past_4096_sizes_of_a_bounded_interval_is_named() -> None:
    # torch.split(x, 5000) on [1..6000]: one part up to 5000, two on 5001, where the closest
    # NumPy call (array_split of 1) keeps one: it said "no size up to 4097 tells", no witness
    s = dm.Splitting.from_torch(5000)
    with pytest.raises(dm.NotExpressible, match=r"size 5001 into \(5001,\)") as info:
        s.to_numpy("[1..6000]")
    assert info.value.witness == (5001,)
    ours = closest(s, "numpy", 0)
    for d in (1, 4097, 5000, 5001):  # alike below the witness, not on it
        x = np.arange(d)
        assert same_parts(call("numpy", ours, x), run("torch", "split", 5000, 0, x)) == (d < 5001)


def test_a_splitting_is_immutable() -> None:
    sp = dm.Splitting.from_split(1, 2)
    with pytest.raises(AttributeError, match="immutable"):
        sp.axis = 0
    assert sp == dm.Splitting(1, "even", 2)


@pytest.mark.parametrize(
    "make",
    [
        lambda: dm.Splitting.from_split(0, 10**12),
        lambda: dm.Splitting.from_numpy(10**12, function="array_split"),
        lambda: dm.Splitting.from_torch(10**12, function="chunk"),
        lambda: dm.Splitting.from_torch(10**12, function="tensor_split"),
        lambda: dm.Splitting.from_onnx(0, num_outputs=10**12),
        lambda: dm.Splitting.from_onnx(0, outputs=10**12, opset=13),
        lambda: dm.Splitting.from_torch(1, function="split").lengths(10**12),
        lambda: dm.Splitting.from_torch(1, function="split").to_openvino([10**12]),
        lambda: dm.Splitting(0, "even", 10**12).lengths(0),
        lambda: dm.Splitting.from_torch(1, function="split")(np.zeros(MAX_LENGTH + 1)),
    ],
)
def test_more_parts_than_max_length_are_refused_before_they_are_made(make: Any) -> None:
    # dm.split refuses num_splits past MAX_LENGTH; a Splitting of 10**12 parts was a
    # MemoryError (or minutes of allocation) at its first lengths(), as_slicings() or emitter.
    with pytest.raises(dm.ValidationError, match="MAX_LENGTH"):
        make()
    assert len(dm.Splitting.from_split(0, MAX_LENGTH).lengths(0)) == MAX_LENGTH


N = MAX_LENGTH  # parts of ONNX Split-18's num_outputs, read as onnx.reference does


@pytest.mark.parametrize(
    ("emit", "want"),
    [
        (lambda s: s.to_torch("[0..4096]"), ("tensor_split", {"sections": N, "dim": 0})),
        (lambda s: s.to_numpy("[0..4096]"), ("array_split", {"indices_or_sections": N, "axis": 0})),
        (lambda s: s.to_openvino("[5..]"), (5,)),
        (lambda s: s.to_onnx("[0..]"), (1,)),
        (lambda s: s.as_slicings("[3..]"), None),
        (lambda s: s.to_webnn("[3..]"), (4,)),
        (lambda s: s.to_tf("[5..]"), (5,)),
        (lambda s: s.to_tf("[0..4096]"), (1,)),
        (None, None),
    ],
)
def test_an_emitter_compares_rules_without_making_every_part(
    emit: Any, want: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An emitter scanned up to 4096 sizes for one where another library's call splits
    # otherwise, making both lists of lengths on each: 2**20 parts took about 20 minutes
    # (onnx.reference's rule and tensor_split agree on every size up to 2**20). It compares
    # runs, on a few sizes derived from the numbers (_candidates): no more than a few lists.
    made = [0]
    lengths = _splitting._lengths

    def counted(rule: str, value: Any, d: int) -> Any:
        out = lengths(rule, value, d)
        made[0] += len(value) if isinstance(value, tuple) else len(out or ())
        assert made[0] <= 10 * MAX_LENGTH, "the parts of every size were made"
        return out

    monkeypatch.setattr(_splitting, "_lengths", counted)
    s = dm.Splitting.from_onnx(0, num_outputs=N, reading="reference")
    if emit is None:  # VariadicSplit of N lengths: sizes below N refused
        # N ones run on N alone, as good as static there: N outputs, past WebNN's cap
        with pytest.raises(dm.NotExpressible, match="at most 8192"):
            dm.Splitting.from_variadic_split(0, [1] * N).to_webnn("[0..]")
        with pytest.raises(dm.NotExpressible, match="parts move with the size"):
            dm.Splitting.from_variadic_split(0, [1] * (N - 1) + [-1]).to_webnn("[0..]")
        return
    if isinstance(want, tuple) and isinstance(want[0], str):
        assert emit(s) == want
        return
    with pytest.raises(dm.NotExpressible) as info:
        emit(s)
    assert info.value.witness == want


@pytest.mark.parametrize(
    ("make", "error", "message"),
    [
        pytest.param(
            lambda: dm.Splitting(0, "bogus", [1, 2]),
            dm.ValidationError,
            "Splitting: rule='bogus' is not one of even, array_split",
            id="a rule of no library",
        ),
        pytest.param(
            lambda: dm.Splitting.from_numpy(3, 5).to_dml([6]),
            dm.AxisError,
            "DirectML SPLIT: axis=5 is out of range for rank 1",
            id="to_dml(axis past the rank)",
        ),
        pytest.param(
            lambda: dm.Splitting.from_webnn([], axis=0),
            dm.ValidationError,
            "WebNN split: splits=[] is empty",
            id="from_webnn(splits=[])",
        ),
        pytest.param(
            lambda: dm.Slicing.from_onnx([0, 0], [1, 1], [0, 0]),
            dm.ValidationError,
            "ONNX Slice: axes=[0, 0] lists axis 0 twice",
            id="from_onnx(axes twice)",
        ),
    ],
)
def test_splittings_and_slicings_refuse_with_the_rule_broken(
    make: Any, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        make()


_S = dm.Slicing.from_numpy


@pytest.mark.parametrize(
    ("make", "given", "hint"),
    [
        (lambda s: _S("x[-100:-200:-1]").to_onnx(s), "[?]", "pass a static size of axis 0"),
        (
            lambda s: dm.Slicing.from_onnx([-100], [-200], steps=[-1]).to_numpy(s),
            "[?]",
            "pass a static size of axis 0",
        ),
        (lambda s: _S(f"x[{-(2**62) - 5}:]").to_torch(s), "[?]", "pass a static size of axis 0"),
        (lambda s: _S(f"x[::{-(2**62 + 7)}]").to_torch(s), "[?]", "pass a static size of axis 0"),
        (
            lambda s: dm.Splitting.from_split(0, 2).as_slicings(s),
            "[?]",
            "pass a static size of axis 0",
        ),
        (
            lambda s: dm.Splitting.from_torch(2, 1, function="chunk").to_openvino(s),
            "[2,?]",
            "pass a static size of axis 1",
        ),
        (
            lambda s: dm.Splitting.from_split(-1, 2).to_webnn(s),
            "[...]",
            "pass a shape of known rank",
        ),
        (
            lambda s: dm.compose(_S("x[..., 1:]"), _S("x[:, :, 0]"), s),
            "[...]",
            "pass a shape of known rank",
        ),
    ],
)
def test_the_hint_to_pass_the_shape_only_where_none_was_passed(
    make: Any, given: str, hint: str
) -> None:
    # "(hint: pass the shape)" was written where a shape had been passed (datamove explain
    # slice --shape '[?]'): with a shape, the hint names what it lacks.
    with pytest.raises(dm.NotExpressible) as info:
        make(given)
    assert info.value.hint == hint
    with pytest.raises(dm.NotExpressible) as info:
        make(None)
    assert info.value.hint in ("pass the shape", "pass the shape, or its rank")


EMITTERS: dict[str, Any] = {
    "to_openvino": lambda s, shape: s.to_openvino(shape),
    "to_numpy": lambda s, shape: s.to_numpy(shape),
    "to_torch": lambda s, shape: s.to_torch(shape),
    "to_tf": lambda s, shape: s.to_tf(shape),
    "to_onnx(opset=18)": lambda s, shape: s.to_onnx(shape),
    "to_onnx(opset=13)": lambda s, shape: s.to_onnx(shape, opset=13),
    "to_onnx(opset=11)": lambda s, shape: s.to_onnx(shape, opset=11),
    "to_webnn": lambda s, shape: s.to_webnn(shape),
    "to_dml": lambda s, shape: s.to_dml(shape),
    "as_slicings": lambda s, shape: s.as_slicings(shape),
}


@st.composite
def any_rule(draw: Any) -> dm.Splitting:
    """A splitting of axis 1 under any rule, ONNX's two readings of ``num_outputs`` included."""
    if draw(st.booleans()):
        lib, fn, arg = draw(splittings())
        return build(lib, fn, arg, 1)
    n = draw(st.integers(1, 5))
    reading = draw(st.sampled_from(["spec", "reference"]))
    return dm.Splitting.from_onnx(1, num_outputs=n, reading=reading)


def refused(s: dm.Splitting, size: int) -> str | None:
    """The split's own refusal of ``size`` (what ``s(x)`` raises), or None where it runs."""
    try:
        s.lengths(size)
    except dm.ValidationError as exc:
        return str(exc)
    return None


def library_calls(
    dialect: str, parts: tuple[int, ...], most: int
) -> list[tuple[str, dict[str, Any]]]:
    """Calls of one library (axis 1) an emitter could write: every count up to ``most`` with
    each of its count functions; ``parts``, the split's lengths on one size, as its lengths (one
    of them a ``-1``, or none) and as its indices (each from the front or from the back)."""
    counts = range(1, most + 1)
    lengths = [parts] + [(*parts[:k], -1, *parts[k + 1 :]) for k in range(len(parts))]
    points = list(itertools.accumulate(parts[:-1]))
    total = sum(parts)
    indices = [
        [p - total if back else p for p, back in zip(points, ends, strict=True)]
        for ends in itertools.product((False, True), repeat=len(points))
    ]
    if dialect == "openvino":
        return [("Split", {"axis": 1, "num_splits": n}) for n in counts] + [
            ("VariadicSplit", {"axis": 1, "split_lengths": list(v)}) for v in lengths
        ]
    if dialect == "numpy":
        return [
            (name, {"indices_or_sections": n, "axis": 1})
            for name in ("split", "array_split")
            for n in counts
        ] + [("split", {"indices_or_sections": i, "axis": 1}) for i in indices]
    keywords = {"split": "split_size_or_sections", "chunk": "chunks", "tensor_split": "sections"}
    return (
        [(name, {k: n, "dim": 1}) for name, k in keywords.items() for n in counts]
        + [("split", {"split_size_or_sections": list(parts), "dim": 1})]
        + [("tensor_split", {"indices": i, "dim": 1}) for i in indices]
    )


def writable(dialect: str, emitted: tuple[str, dict[str, Any]], lo: int, hi: int) -> bool:
    """Whether the library builds ``emitted`` on ``[lo..hi]`` and runs it as its spec says.

    OpenVINO refuses to build a Split of more parts than the largest size (divergence 14), and
    its CPU plugin reads past the input for a VariadicSplit ``-1`` on a size below the other
    lengths' sum (divergence 4): neither is a call to write.
    """
    name, p = emitted
    if dialect != "openvino":
        return True
    if name == "Split":
        return not (lo == 0 and hi < p["num_splits"])
    rest = p["split_lengths"]
    return -1 not in rest or sum(rest) + 1 <= lo


@settings(max_examples=examples(300), deadline=None)
@given(
    s=any_rule(),
    bounds=st.tuples(st.integers(0, 12), st.integers(0, 12)),
    dialect=st.sampled_from(DIALECTS),
)
@example(  # runs on 4 alone: torch.split(x, [2, 2], 1), which refuses 5 (it was refused)
    s=dm.Splitting.from_numpy(2, 1), bounds=(4, 5), dialect="torch"
)
@example(  # runs on 2 alone, (2, 0): torch.split(x, [2, 0], 1) (it was refused)
    s=dm.Splitting.from_variadic_split(1, [2, -1]), bounds=(0, 2), dialect="torch"
)
@example(  # (2, 2) on 4, refused on 3 and 5: numpy.split(x, 2, 1) (it was refused)
    s=dm.Splitting.from_variadic_split(1, [2, 2]), bounds=(3, 5), dialect="numpy"
)
@example(  # Split-18's 3 parts are chunk's 3 on 5..9: torch.chunk(x, 3, 1) (it was refused)
    s=dm.Splitting.from_onnx(1, num_outputs=3), bounds=(5, 9), dialect="torch"
)
def test_on_interval_sizes_a_refusal_has_no_call_of_the_library_that_splits_alike(
    s: dm.Splitting, bounds: tuple[int, int], dialect: str
) -> None:
    lo, hi = min(bounds), max(bounds)
    shape = dm.PartialShape([2, dm.Dimension(lo, hi)])
    try:
        getattr(s, f"to_{dialect}")(shape)
    except dm.NotExpressible:
        pass
    except dm.ValidationError:  # the split runs on no allowed size
        return
    else:
        return  # what is written is run at every size by the test above
    sizes = range(lo, hi + 1)
    xs = [np.arange(2 * d).reshape(2, d) for d in sizes]
    want = [None if refused(s, d) else s(x) for d, x in zip(sizes, xs, strict=True)]
    first = next(d for d in sizes if not refused(s, d))
    for emitted in library_calls(dialect, s.lengths(first), hi + 2):
        if writable(dialect, emitted, lo, hi):
            runs = [call(dialect, emitted, x) for x in xs]
            assert not all(map(same_parts, runs, want)), (s, shape, dialect, emitted)


@settings(max_examples=examples(300), deadline=None)
@given(
    s=any_rule(),
    bounds=st.tuples(st.integers(0, 12), st.integers(0, 12)),
    emitter=st.sampled_from(sorted(EMITTERS)),
)
def test_every_emitter_refuses_a_split_that_runs_on_no_allowed_size(
    s: dm.Splitting, bounds: tuple[int, int], emitter: str
) -> None:
    # numpy.split(x, 2) on [?,1] was written to OpenVINO (and NumPy, WebNN) as it is, where
    # to_torch and to_onnx raised the split's own ValidationError; a VariadicSplit [1, 1]
    # on [?,1] was written to OpenVINO, PyTorch and ONNX. Now every emitter raises it.
    lo, hi = min(bounds), max(bounds)
    shape = dm.PartialShape([2, dm.Dimension(lo, hi)])
    refusals = [refused(s, d) for d in range(lo, hi + 1)]
    if None not in refusals:
        with pytest.raises(dm.ValidationError) as info:
            EMITTERS[emitter](s, shape)
        if lo == hi:  # the very error the split raises on that size
            assert str(info.value) == refusals[0]
        else:
            assert f"allows sizes {shape.dims[1]} on axis 1, and the {s.rule!r} rule" in str(
                info.value
            )
        return
    with contextlib.suppress(dm.NotExpressible):  # its witness: the tests above
        EMITTERS[emitter](s, shape)


@pytest.mark.parametrize("emitter", sorted(EMITTERS))
@pytest.mark.parametrize(
    ("s", "shape", "match"),
    [
        pytest.param(
            dm.Splitting.from_numpy(2, 1),
            "[?,1]",
            "Splitting: size=1 cannot be split by the 'even' rule with 2: 1 is not a multiple of 2",
            id="numpy.split(x, 2, 1) on [?,1]",
        ),
        pytest.param(
            dm.Splitting.from_variadic_split(1, [2, 4]),
            "[?,5]",
            "Splitting: size=5 cannot be split by the 'lengths' rule with (2, 4): they sum to 6, "
            "not 5",
            id="VariadicSplit [2, 4] on [?,5]",
        ),
        pytest.param(
            dm.Splitting.from_variadic_split(1, [2, -1, 4]),
            "[?,5]",
            "Splitting: size=5 cannot be split by the 'lengths' rule with (2, -1, 4): they sum "
            "to 6 without the -1, more than 5",
            id="VariadicSplit [2, -1, 4] on [?,5]",
        ),
        pytest.param(
            dm.Splitting.from_variadic_split(-1, [1, 1]),
            "[3..5,3..5]",
            "Splitting: shape='[3..5,3..5]' allows sizes 3..5 on axis -1, and the 'lengths' "
            "rule with (1, 1) splits none of them",
            id="VariadicSplit [1, 1] on [3..5,3..5]",
        ),
        pytest.param(
            dm.Splitting.from_variadic_split(1, [1, 1]),
            "[2,3..]",
            "Splitting: shape='[2,3..]' allows sizes 3.. on axis 1",
            id="VariadicSplit [1, 1] on [2,3..]",
        ),
        pytest.param(
            dm.Splitting.from_variadic_split(0, [4, -1]),
            "[..3]",
            "Splitting: shape='[..3]' allows sizes ..3 on axis 0",
            id="VariadicSplit [4, -1] on [..3]",
        ),
        pytest.param(
            dm.Splitting.from_split(0, 4),
            "[5..7]",
            "Splitting: shape='[5..7]' allows sizes 5..7 on axis 0",
            id="Split 4 on [5..7]",
        ),
        pytest.param(
            dm.Splitting.from_onnx(0, num_outputs=4),
            "[5]",
            "Splitting: size=5 cannot be split by the 'onnx' rule with 4",
            id="Split-18 num_outputs=4 on [5]",
        ),
        pytest.param(
            dm.Splitting.from_onnx(0, num_outputs=4),
            "[5..5]",
            "Splitting: size=5 cannot be split by the 'onnx' rule with 4",
            id="Split-18 num_outputs=4 on [5..5]",
        ),
    ],
)
def test_a_split_refused_on_every_allowed_size_raises_in_every_emitter(
    s: dm.Splitting, shape: str, match: str, emitter: str
) -> None:
    with pytest.raises(dm.ValidationError, match=re.escape(match)):
        EMITTERS[emitter](s, shape)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(
            lambda: dm.Splitting.from_torch("chunk", 3),
            "Splitting.from_torch: arg='chunk' is a function's name, not its argument (hint: "
            "name the function as a keyword: Splitting.from_torch(n, dim, function='chunk'))",
            id="from_torch('chunk', 3)",
        ),
        pytest.param(
            lambda: dm.Splitting.from_numpy("array_split", 3),
            "Splitting.from_numpy: indices_or_sections='array_split' is a function's name",
            id="from_numpy('array_split', 3)",
        ),
    ],
)
def test_a_function_name_in_the_first_place_is_told_to_be_a_keyword(
    make: Any, message: str
) -> None:
    # from_torch("chunk", 3) said "torch.split: split_size_or_sections='chunk' must be an
    # integer, not a string": right, but not what to write
    with pytest.raises(dm.DTypeError) as e:
        make()
    assert message in str(e.value)


_COUNT_RULES = ("even", "array_split", "chunk", "size", "onnx", "onnx_reference")


@st.composite
def _split_rules(draw: Any) -> tuple[str, Any]:
    rule = draw(st.sampled_from((*_COUNT_RULES, "lengths", "lengths-rest", "indices")))
    if rule in _COUNT_RULES:
        return rule, draw(st.integers(1, 12))
    if rule == "indices":
        return rule, tuple(draw(st.lists(st.integers(-9, 9), max_size=4)))
    values = draw(st.lists(st.integers(0, 6), max_size=5))
    if rule == "lengths-rest":
        values.insert(draw(st.integers(0, len(values))), -1)
    return "lengths", tuple(values)


# Past every breakpoint of the numbers drawn here (a count n's last is n * (n - 1) < 132): an
# unbounded interval's witness, if any, is below it.
_FAR = 200


def _brute_witness(mine: Any, other: Any, lo: int, top: int) -> int | None:
    return next((d for d in range(lo, top + 1) if mine(d) != other(d)), None)


_COUNTS = [(rule, n) for rule in _COUNT_RULES for n in range(1, 7)]


@st.composite
def _wide_split_rules(draw: Any) -> tuple[str, Any]:
    """A split whose numbers reach 2**62: counts, lengths (with a -1 or not), indices."""
    big = st.integers(0, 2**62) | st.integers(0, 12)
    rule = draw(st.sampled_from((*_COUNT_RULES, "lengths", "indices")))
    if rule in _COUNT_RULES:
        return rule, draw(st.integers(1, 2**62) | st.integers(1, 12))
    if rule == "indices":
        return rule, tuple(draw(st.lists(big | big.map(lambda v: -v), max_size=3)))
    values = draw(st.lists(big, max_size=3))
    if draw(st.booleans()):
        values.insert(draw(st.integers(0, len(values))), -1)
    return "lengths", tuple(values)


@settings(max_examples=examples(200), deadline=None)
@given(
    split=_wide_split_rules(),
    other=_wide_split_rules(),
    lo=st.integers(0, 2**62) | st.integers(2**63 - 200, 2**63 - 1) | st.integers(0, 200),
    span=st.integers(0, 150),
)
def test_the_witness_is_exact_on_windows_of_huge_sizes(
    split: tuple[str, Any], other: tuple[str, Any], lo: int, span: int
) -> None:
    # Sizes and numbers near 2**62 and INT64_MAX (the tests above reach 200): on a window of
    # them the witness, and the first size with another count of parts, against each size
    top = min(lo + span, 2**63 - 1)
    s, dim = dm.Splitting(0, *split), dm.Dimension(lo, top)
    mine, theirs = _splitting._runs_of(*split), _splitting._runs_of(*other)
    assert s._witness(dim, *other) == _brute_witness(mine, theirs, lo, top)

    def count(d: int) -> int | None:
        runs = mine(d)
        return None if runs is None else sum(c for _, c in runs)

    changes = next((d for d in range(lo + 1, top + 1) if count(d) != count(lo)), None)
    assert s._count_changes(dim) == changes


@pytest.mark.parametrize(
    "other",
    [(r, n) for r in ("even", "array_split", "onnx") for n in range(1, 7)],
    ids=lambda o: f"{o[0]}({o[1]})",
)
def test_the_witness_against_a_count_is_the_smallest_size_that_differs(other: Any) -> None:
    # Exact on any interval, bounded or not, against every count a library calls (OpenVINO
    # Split, numpy.array_split/torch.tensor_split, Split-18's num_outputs): every pair of count
    # rules, every smallest size, against each size run one by one. Against array_split and
    # num_outputs the first 4096 sizes were scanned: torch.chunk(x, 2) on [4097..] was refused
    # ("no size up to 8193 tells"), though array_split(x, 2) splits alike on every size from 2.
    theirs = _splitting._runs_of(*other)
    for rule, value in _COUNTS:
        s = dm.Splitting(0, rule, value)
        mine = _splitting._runs_of(rule, value)
        diff = [mine(d) != theirs(d) for d in range(_FAR + 1)]
        want: int | None = None
        for lo in range(_FAR, -1, -1):  # each size's witness from the next one's
            want = lo if diff[lo] else want
            if lo > 40:
                continue
            assert s._witness(dm.Dimension(lo, None), *other) == want, (rule, value, lo)
            bounded = want if want is not None and want <= lo + 9 else None
            assert s._witness(dm.Dimension(lo, lo + 9), *other) == bounded, (rule, value, lo)


@settings(max_examples=examples(400), deadline=None)
@given(
    split=_split_rules(),
    other=_split_rules(),
    lo=st.integers(0, 60),
    span=st.none() | st.integers(0, 60),
)
def test_the_witness_is_the_smallest_size_that_differs_for_any_two_splits(
    split: tuple[str, Any], other: tuple[str, Any], lo: int, span: int | None
) -> None:
    # Lengths and indices too, against any split (a count of another number, lengths with a
    # -1 as _rest_lengths tries), and the two searches that scanned as _witness did: lengths
    # with a -1 that split alike (_rest_lengths), the first size with another count of parts
    # (_count_changes). Each against every size of the interval, or up to _FAR.
    s = dm.Splitting(0, *split)
    mine, theirs = _splitting._runs_of(*split), _splitting._runs_of(*other)
    top = _FAR if span is None else lo + span
    dim = dm.Dimension(lo, None if span is None else top)
    assert s._witness(dim, *other) == _brute_witness(mine, theirs, lo, top)

    def count(d: int) -> int | None:
        runs = mine(d)
        return None if runs is None else sum(c for _, c in runs)

    changes = next((d for d in range(lo + 1, top + 1) if count(d) != count(lo)), None)
    assert s._count_changes(dim) == changes
    if split[0] == "lengths":
        return
    runs = [d for d in range(lo, top + 1) if mine(d) is not None][:2]
    rest = None
    if len(runs) == 2 and count(runs[0]) == count(runs[1]):
        a, b = s.lengths(runs[0]), s.lengths(runs[1])
        moved = [k for k in range(len(a)) if a[k] != b[k]]
        if len(moved) == 1:  # lengths read off the split, alike on its two smallest sizes
            rest = (*a[: moved[0]], -1, *a[moved[0] + 1 :])
            w = _brute_witness(mine, _splitting._runs_of("lengths", rest), lo, top)
            assert s._witness(dim, "lengths", rest) == w
            rest = rest if w is None else None
    assert s._rest_lengths(dim) == rest
