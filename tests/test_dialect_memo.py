"""The memos of ``dm.Slicing``'s parsers and emitters, and ``from_numpy``'s fast reading of text.

A memo must never change an answer: type-exact keys (``1`` is not ``True``, a list is not a
tuple), fresh copies out, errors never kept, bounded. The fast text reader must read what
``ast`` reads, and leave everything else to it.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove import _dialect_memo, _dialects
from strategies import examples


def _outcome(text: str) -> Any:
    try:
        return dm.Slicing.from_numpy(text).entries
    except dm.ValidationError as exc:
        return ("error", str(exc))


# Mostly the common spellings, now and then an odd one.
blank = st.sampled_from(["", "", "", "", " ", " ", "  ", "\t", "\n", "\u00a0", "\r"])
number = st.integers(0, 9).flatmap(
    lambda k: (
        st.integers(-12, 12).map(str)
        if k < 8
        else st.sampled_from(
            ["+3", "- 3", "--1", "00", "007", "1_0", "-0", "2**63", str(2**70), "1.0"]
        )
    )
)


@st.composite
def index_texts(draw: Any) -> str:
    items = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["int", "slice", "slice", "slice", "None", "...", "odd"]))
        if kind == "int":
            items.append(draw(number))
        elif kind == "slice":
            parts = [draw(st.one_of(st.just(""), number)) for _ in range(3)]
            sep = draw(blank) + ":" + draw(blank)
            items.append(sep.join(parts[: draw(st.integers(2, 3))]))
        elif kind == "odd":
            items.append(draw(st.sampled_from(["Ellipsis", "(1)", "()", "x", "True", "[1]", ""])))
        else:
            items.append(kind)
    inner = ("," + draw(blank)).join(draw(blank) + i + draw(blank) for i in items)
    inner += draw(st.sampled_from(["", "", "", "", ",", " ,"]))
    name = draw(st.sampled_from(["x", "x", "x", "arr_2", "None", "if", "_", "x.y", "é", "x[0]"]))
    return draw(blank) + name + draw(st.sampled_from(["", " ", "\n"])) + f"[{inner}]" + draw(blank)


@settings(max_examples=examples(400), deadline=None)
@given(text=index_texts())
def test_the_fast_reader_reads_what_ast_reads(text: str) -> None:
    _dialect_memo.clear()
    fast = _outcome(text)
    original = _dialects._simple_items
    _dialects._simple_items = lambda _text: None  # ast only
    try:
        _dialect_memo.clear()
        slow = _outcome(text)
    finally:
        _dialects._simple_items = original
        _dialect_memo.clear()
    assert fast == slow


def test_the_fast_reader_takes_the_common_spellings() -> None:
    assert _dialects._simple_items("x[:, 1:-1, ::2, ::-1]") is not None
    assert _dialects._simple_items("x[1, ..., None, -2: :+3]") is not None
    for text in ("x[()]", "x[1,]", "None[1]", "x\n[1]", "x[00]", "x[1_0]", "x[(1)]", "x[1][2]"):
        assert _dialects._simple_items(text) is None, text


def test_an_emitters_value_is_the_callers_own() -> None:
    s = dm.Slicing.from_numpy("x[1:, None, ::-2]")
    first = s.to_onnx()
    first[0][1]["starts"].append(99)
    first.append(("Squeeze", {}))
    assert s.to_onnx() == dm.Slicing.from_numpy("x[1:, None, ::-2]").to_onnx()
    assert s.to_onnx() is not s.to_onnx()
    p = s.to_strided_slice((4, 5))
    p["begin"][0] = 7
    assert s.to_strided_slice((4, 5))["begin"][0] == 1


def test_parsers_return_one_immutable_slicing() -> None:
    assert dm.Slicing.from_numpy("x[1:]") is dm.Slicing.from_numpy("x[1:]")
    assert dm.Slicing.from_onnx([1], [2]) is dm.Slicing.from_onnx([1], [2])
    with pytest.raises(AttributeError):
        dm.Slicing.from_numpy("x[1:]").entries = ()  # type: ignore[misc]


@pytest.mark.parametrize(
    ("accepted", "refused"),
    [
        ((1,), (True,)),  # bool is an int to hash, a mask to NumPy
        (((1, 2),), ([1, 2],)),  # a tuple is basic indexing, a list fancy indexing
        ((slice(1, 2),), (slice(True, 2),)),
    ],
)
def test_keys_are_type_exact(accepted: tuple[Any, ...], refused: tuple[Any, ...]) -> None:
    dm.Slicing.from_numpy(*accepted)
    dm.Slicing.from_numpy(*accepted)
    with pytest.raises(dm.ValidationError):
        dm.Slicing.from_numpy(*refused)


def test_values_that_are_not_keyed_are_computed_afresh() -> None:
    s = dm.Slicing.from_numpy((np.int64(1), slice(np.int64(0), None)))
    assert s == dm.Slicing.from_numpy((1, slice(0, None)))
    assert s.to_onnx(np.array([3, 4])) == s.to_onnx((3, 4)) == s.to_onnx(dm.PartialShape([3, 4]))


def test_an_emitter_takes_its_shape_as_the_method_does() -> None:
    s = dm.Slicing.from_numpy("x[1:3]")
    assert s.to_numpy(shape="[4]") == s.to_numpy("[4]") == s.to_numpy(shape="[4]") == "x[1:3]"
    with pytest.raises(TypeError, match=r"to_numpy\(\) takes from 1 to 2 positional arguments"):
        s.to_numpy("[4]", 5)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'shap'"):
        s.to_numpy(shap="[4]")  # type: ignore[call-arg]
    wide = dm.PartialShape([4] * 70)  # more dims than a key holds: computed afresh, the same
    assert s.to_strided_slice(wide) == s.to_strided_slice(wide) == s.to_strided_slice((4,) * 70)


def test_errors_are_never_kept() -> None:
    s = dm.Slicing.from_numpy("x[-100:-200:-1]")
    for _ in range(2):
        with pytest.raises(dm.NotExpressible, match=r"sizes 1\.\.99") as info:
            s.to_onnx("[?]")
        assert info.value.witness == (1,)
    assert s.to_onnx("[1..50]") == [
        ("Slice", {"starts": [0], "ends": [0], "steps": [1], "axes": [0]})
    ]
    for _ in range(2):
        with pytest.raises(dm.ValidationError, match="step 0"):
            dm.Slicing.from_numpy("x[::0]")


def test_memos_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_dialect_memo, "_MAX_ENTRIES", 8)
    _dialect_memo.clear()
    for k in range(50):
        dm.Slicing.from_numpy(f"x[{k}:]").to_numpy((100,))
    assert all(len(memo) <= 8 for memo in _dialect_memo._MEMOS)
    long = dm.Slicing.from_numpy("x[" + ", ".join(["1:"] * 65) + "]")  # more than _MAX_ITEMS
    assert long.to_numpy() == long.to_numpy()
    assert all(not any(long in key for key in memo) for memo in _dialect_memo._MEMOS)
    assert dm.Slicing.from_numpy("x[" + "1" * 2000 + ":]").to_numpy() == (f"x[{2**63 - 1}:]")


def test_a_subclass_gets_its_own_slicings() -> None:
    class Mine(dm.Slicing):
        __slots__ = ()

    assert type(Mine.from_numpy("x[1:]")) is Mine
    assert type(dm.Slicing.from_numpy("x[1:]")) is dm.Slicing


@pytest.mark.parametrize(
    "value",
    [
        dm.Slicing.from_numpy("x[1:, ..., None, ::-2]"),
        dm.Splitting.from_torch(3, function="chunk"),
        dm.Splitting.from_variadic_split(1, [2, -1]),
    ],
    ids=repr,
)
def test_slicings_and_splittings_pickle_and_copy(value: Any) -> None:
    # Both refused to be rebuilt ("is immutable"); a Slicing's kept hash, made of string
    # hashes, must not travel to another process.
    hash(value)
    for twin in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert twin == value
        assert hash(twin) == hash(value)
    if isinstance(value, dm.Slicing):
        assert "_hash" not in str(pickle.dumps(value))
