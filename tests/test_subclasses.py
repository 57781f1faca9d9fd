"""NumPy subclasses through the operators: masked arrays keep their masks, np.matrix stays 2-D.

The rule (docs/backends.md, "NumPy subclasses"): a result is of the input's subclass where that
type holds NumPy's shape for it, else a plain array of the base's values. ``dm.concat`` joins a
masked array's mask with its data, as ``np.ma.concatenate`` does (``np.concatenate`` drops the
mask, turning masked elements into data), and other subclasses as ``np.concatenate`` joins them.
NumPy is the oracle throughout; a test of the IR's Concat on a masked input is in
``tests/ir/test_run_inputs.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, note
from hypothesis import strategies as st

import datamove as dm
from strategies import fixed_settings

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix's


class _Tagged(np.ma.MaskedArray):  # a masked subclass: np.ma.concatenate keeps the youngest
    pass


def _assert_masked_equal(got: Any, want: Any) -> None:
    """The same type, data, mask, and ``nomask`` where np.ma's has none."""
    assert type(got) is type(want)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(np.ma.getdata(got), np.ma.getdata(want), strict=True)
    np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(want), strict=True)
    assert (np.ma.getmask(got) is np.ma.nomask) == (np.ma.getmask(want) is np.ma.nomask)


@st.composite
def masked_joins(draw: st.DrawFn) -> tuple[list[Any], int]:
    """1 to 4 inputs of one rank (1 to 3) joinable along an axis: plain, masked (no mask, an
    all-False mask, a drawn mask) or a masked subclass, of int16 or float32."""
    rank = draw(st.integers(1, 3))
    axis = draw(st.integers(-rank, rank - 1))
    dims = draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    dtype = draw(st.sampled_from([np.int16, np.float32]))
    arrays = []
    for k in range(draw(st.integers(1, 4))):
        shape = list(dims)
        shape[axis] = draw(st.integers(0, 3))
        data = (np.arange(int(np.prod(shape))) + 100 * k).astype(dtype).reshape(shape)
        kind = draw(st.sampled_from(["plain", "nomask", "false", "drawn", "tagged"]))
        if kind == "plain":
            arrays.append(data)
            continue
        cls = _Tagged if kind == "tagged" else np.ma.MaskedArray
        if kind == "nomask":
            arrays.append(cls(data))
            continue
        bits = draw(st.lists(st.booleans(), min_size=data.size, max_size=data.size))
        mask = np.array(bits, bool).reshape(shape) if kind != "false" else np.zeros(shape, bool)
        arrays.append(cls(data, mask=mask))
    return arrays, axis


@fixed_settings(300)
@given(case=masked_joins())
def test_concat_joins_masks_as_np_ma_concatenate(case: tuple[list[Any], int]) -> None:
    # Fixed: dm.concat gave a plain array of the data alone (the masked elements became data),
    # where np.ma.concatenate keeps the mask.
    arrays, axis = case
    note(f"dm.concat({arrays!r}, {axis})")
    before = [(np.ma.getdata(a).copy(), np.ma.getmaskarray(a).copy()) for a in arrays]
    want = np.ma.concatenate(arrays, axis)
    got = dm.concat(arrays, axis)
    if not any(isinstance(a, np.ma.MaskedArray) for a in arrays):
        assert type(got) is np.ndarray
        np.testing.assert_array_equal(got, np.concatenate(arrays, axis), strict=True)
        return
    _assert_masked_equal(got, want)
    for a, (data, mask) in zip(arrays, before, strict=True):  # inputs never changed or shared
        np.testing.assert_array_equal(np.ma.getdata(a), data, strict=True)
        np.testing.assert_array_equal(np.ma.getmaskarray(a), mask, strict=True)
        assert not np.shares_memory(np.ma.getdata(got), np.ma.getdata(a))
        if np.ma.getmask(got) is not np.ma.nomask:
            assert not np.shares_memory(np.ma.getmask(got), np.ma.getmask(a))


@fixed_settings(150)
@given(case=masked_joins(), old=st.sampled_from(["nomask", "masked", "hard"]))
def test_concat_into_a_masked_out_writes_data_and_mask(
    case: tuple[list[Any], int], old: str
) -> None:
    # out= takes what the fresh join gives, its mask written whole: a stale mask (all True
    # here, a hard one too) is overwritten, a missing one is made.
    arrays, axis = case
    want = np.ma.concatenate(arrays, axis)
    data = np.full(want.shape, 7, want.dtype)
    if old == "nomask":
        out = np.ma.MaskedArray(data)
    else:
        out = np.ma.MaskedArray(data, mask=True, hard_mask=old == "hard")
    assert dm.concat(arrays, axis, out=out) is out
    np.testing.assert_array_equal(out.data, np.ma.getdata(want), strict=True)
    np.testing.assert_array_equal(np.ma.getmaskarray(out), np.ma.getmaskarray(want), strict=True)


@pytest.mark.parametrize("axis", [0, 1])
def test_a_large_masked_join_into_a_view_of_a_masked_out(axis: int) -> None:
    # 4 MiB inputs: the copy engine (threads, compiled loops) writes data and mask pairs of
    # two item sizes in one pass; out a view of a bigger masked array, whose mask it writes.
    rng = np.random.default_rng(0)
    arrays = [
        np.ma.masked_array(rng.random((512, 1024)), mask=rng.random((512, 1024)) < p)
        for p in (0.3, 0.6)
    ]
    want = np.ma.concatenate(arrays, axis)
    _assert_masked_equal(dm.concat(arrays, axis), want)
    whole = np.ma.masked_array(np.zeros((2, *want.shape)), mask=True)
    out = whole[1]
    assert dm.concat(arrays, axis, out=out) is out
    np.testing.assert_array_equal(whole.data[1], want.data, strict=True)
    np.testing.assert_array_equal(whole.mask[1], want.mask, strict=True)
    assert whole.mask[0].all()


def test_a_masked_input_needs_a_masked_out() -> None:
    # The mask has nowhere to go in a plain out: refused before anything is written.
    a = np.ma.masked_array([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]])
    out = np.zeros((2, 4), a.dtype)
    message = (
        r"^Concat: out='<ndarray of shape \[2, 4\]>' is not a masked array, but arrays\[1\] is "
        r"one: its mask would be lost \(hint: pass a masked array as out, or join the data "
        r"alone \(np\.ma\.getdata\)\)$"
    )
    with pytest.raises(dm.DTypeError, match=message):
        dm.concat([a.data, a], 1, out=out)
    assert not out.any()
    with pytest.raises(dm.DTypeError, match=r"out='<matrix of shape \[2, 4\]>' is not a masked"):
        dm.concat([a, a], 1, out=np.asmatrix(out))
    assert dm.concat([np.ma.getdata(a)] * 2, 1, out=out) is out  # the hint's way
    assert out.tolist() == [[1, 2, 1, 2], [3, 4, 3, 4]]


def test_a_masked_out_is_checked_as_a_plain_one_and_its_mask_too() -> None:
    a = np.ma.masked_array(np.arange(4.0), mask=[0, 1, 0, 0])
    with pytest.raises(dm.ValidationError, match=r"^Concat: out=.* has shape \[4\], but the"):
        dm.concat([a, a], 0, out=np.ma.masked_array(np.zeros(4)))
    with pytest.raises(dm.DTypeError, match=r"^Concat: out=.* has dtype float32, but the output"):
        dm.concat([a, a], 0, out=np.ma.masked_array(np.zeros(8, np.float32)))
    # Data apart, but the mask is a's own mask: writing it would change an input.
    shared = np.ma.MaskedArray(np.zeros(4), mask=a.mask, copy=False)
    assert np.shares_memory(shared.mask, a.mask)
    with pytest.raises(dm.ValidationError, match=r"^Concat: out\.mask=.* overlaps an input"):
        dm.concat([a], 0, out=shared)
    assert a.mask.tolist() == [False, True, False, False]
    assert not shared.data.any()
    # A masked out over an input's data is refused as a plain one is.
    buf = np.ma.masked_array(np.zeros(8), mask=np.zeros(8, bool))
    with pytest.raises(dm.ValidationError, match=r"^Concat: out=.* overlaps an input"):
        dm.concat([a, buf[4:]], 0, out=buf)


def test_a_plain_join_into_a_masked_out_unmasks_it() -> None:
    x = np.arange(6).reshape(2, 3)
    out = np.ma.masked_array(np.zeros((4, 3), x.dtype), mask=True)
    assert dm.concat([x, x], 0, out=out) is out
    _assert_masked_equal(out, np.ma.masked_array(np.concatenate([x, x]), mask=np.zeros((4, 3))))


def test_the_operators_views_and_copies_of_a_masked_array_agree_with_concat() -> None:
    # Split is Concat's inverse on masked arrays too: each part keeps its part of the mask.
    x = np.ma.masked_array(np.arange(12).reshape(3, 4), mask=np.arange(12).reshape(3, 4) % 5 == 1)
    for copy in (None, True):
        parts = dm.variadic_split(x, 1, [1, -1], copy=copy)
        _assert_masked_equal(dm.concat(parts, 1), np.ma.concatenate(parts, 1))
        _assert_masked_equal(dm.concat(parts, 1), x)


@st.composite
def masked_takes(draw: st.DrawFn) -> tuple[Any, str, Any]:
    """A masked (or plain) input of int16 or float32 and a split or slice of it."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    size = int(np.prod(shape))
    data = np.arange(size).astype(draw(st.sampled_from([np.int16, np.float32]))).reshape(shape)
    kind = draw(st.sampled_from(["plain", "nomask", "drawn"]))
    if kind == "plain":
        x: Any = data
    elif kind == "nomask":
        x = np.ma.MaskedArray(data)
    else:
        bits = draw(st.lists(st.booleans(), min_size=size, max_size=size))
        x = np.ma.MaskedArray(data, mask=np.array(bits).reshape(shape))
    axis = draw(st.integers(0, len(shape) - 1))
    op = draw(st.sampled_from(["split", "variadic", "reverse"]))
    if op == "split":
        return x, f"split(x, {axis}, 1)", lambda x, **k: dm.split(x, axis, 1, **k)
    if op == "variadic":
        cut = draw(st.integers(0, shape[axis]))
        return (
            x,
            f"variadic_split(x, {axis}, [{cut}, -1])",
            lambda x, **k: dm.variadic_split(x, axis, [cut, -1], **k),
        )
    return x, "x[::-1]", lambda x, **k: (dm.slice(x, [-1], [-(2**63)], [-1], [0], **k),)


@fixed_settings(150)
@given(case=masked_takes(), old=st.sampled_from(["nomask", "masked", "hard"]))
def test_the_operators_write_data_and_mask_into_masked_outs(
    case: tuple[Any, str, Any], old: str
) -> None:
    # Fixed: split, variadic_split, slice and strided_slice wrote the data alone into a masked
    # out, so a stale mask stayed (values written, shown as masked) and the input's masked
    # elements came out as data; concat writes both (test_concat_into_a_masked_out_...).
    x, call, op = case
    note(call)
    want = op(x, copy=True)
    out = [
        np.ma.MaskedArray(np.full(w.shape, 7, w.dtype))
        if old == "nomask"
        else np.ma.MaskedArray(np.full(w.shape, 7, w.dtype), mask=True, hard_mask=old == "hard")
        for w in want
    ]
    before = (np.ma.getdata(x).copy(), np.ma.getmaskarray(x).copy())
    if call == "x[::-1]":
        assert op(x, out=out[0])[0] is out[0]
    else:
        assert all(g is o for g, o in zip(op(x, out=out), out, strict=True))
    for o, w in zip(out, want, strict=True):
        np.testing.assert_array_equal(o.data, np.ma.getdata(w), strict=True)
        np.testing.assert_array_equal(np.ma.getmaskarray(o), np.ma.getmaskarray(w), strict=True)
    np.testing.assert_array_equal(np.ma.getdata(x), before[0], strict=True)
    np.testing.assert_array_equal(np.ma.getmaskarray(x), before[1], strict=True)


def test_the_operators_need_masked_outs_for_a_masked_input() -> None:
    # Fixed: the mask was dropped without a word (concat refuses, as here).
    a = np.ma.masked_array([[1, 2], [3, 4]], mask=[[0, 1], [0, 0]])
    outs = [np.ma.masked_array(np.zeros((1, 2), a.dtype)), np.zeros((1, 2), a.dtype)]
    message = (
        r"^Split: out\[1\]='<ndarray of shape \[1, 2\]>' is not a masked array, but data is "
        r"one: its mask would be lost \(hint: pass masked arrays as out, or take the data alone "
        r"\(np\.ma\.getdata\)\)$"
    )
    with pytest.raises(dm.DTypeError, match=message):
        dm.split(a, 0, 2, out=outs)
    assert not outs[0].data.any()  # nothing written
    assert not outs[1].any()
    with pytest.raises(dm.DTypeError, match=r"^StridedSlice: out='<ndarray of shape \[2, 2\]>"):
        dm.strided_slice(a, [0], [0], end_mask=[1], out=np.zeros((2, 2), a.dtype))
    plain = [np.zeros((1, 2), a.dtype) for _ in range(2)]
    assert dm.split(np.ma.getdata(a), 0, 2, out=plain)[0] is plain[0]  # the hint's way
    assert [p.tolist() for p in plain] == [[[1, 2]], [[3, 4]]]


def test_a_masked_outs_mask_is_checked_too() -> None:
    a = np.ma.masked_array(np.arange(4.0), mask=[0, 1, 0, 0])
    shared = np.ma.MaskedArray(np.zeros(4), mask=a.mask, copy=False)  # data apart, mask a's
    assert np.shares_memory(shared.mask, a.mask)
    with pytest.raises(dm.ValidationError, match=r"^Slice: out\.mask=.* overlaps the input"):
        dm.slice(a, [0], [4], [1], out=shared)
    assert a.mask.tolist() == [False, True, False, False]
    assert not shared.data.any()
    mask = np.zeros(4, bool)
    twins = [np.ma.MaskedArray(np.zeros(2), mask=mask[:3:2], copy=False) for _ in range(2)]
    shared = r"^Split: out\[1\]\.mask=.* shares memory with out\[0\]\.mask"
    with pytest.raises(dm.ValidationError, match=shared):
        dm.split(a, 0, 2, out=twins)
    assert not mask.any()


def test_a_large_masked_split_into_views_of_a_masked_out() -> None:
    # 4 MiB: the copy engine (threads, compiled loops) writes data and mask pairs in one pass.
    rng = np.random.default_rng(0)
    x = np.ma.masked_array(rng.random((512, 1024)), mask=rng.random((512, 1024)) < 0.3)
    whole = np.ma.masked_array(np.zeros((512, 2048)), mask=True)
    out = [whole[:, :512], whole[:, 1024:1536]]
    dm.split(x, 1, 2, out=out)
    np.testing.assert_array_equal(whole.data[:, 1024:1536], x.data[:, 512:], strict=True)
    np.testing.assert_array_equal(whole.mask[:, :512], x.mask[:, :512], strict=True)
    assert whole.mask[:, 512:1024].all()


# -- np.matrix ---------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("kinds", ["matrix, matrix", "matrix, plain", "plain, matrix"])
def test_concat_of_np_matrix_is_numpy_s_join(axis: int, kinds: str) -> None:
    # Fixed: dm.concat of matrices gave a plain array; np.concatenate gives a matrix.
    a = np.arange(6).reshape(2, 3)
    arrays = [
        np.asmatrix(a + 10 * k) if kind == "matrix" else a + 10 * k
        for k, kind in enumerate(kinds.split(", "))
    ]
    want = np.concatenate(arrays, axis)
    got = dm.concat(arrays, axis)
    assert type(got) is type(want) is np.matrix
    np.testing.assert_array_equal(got, want, strict=True)
    out = np.asmatrix(np.zeros(want.shape, want.dtype))
    assert dm.concat(arrays, axis, out=out) is out
    np.testing.assert_array_equal(out, want, strict=True)


def test_concat_of_3d_matrices_is_the_base_arrays_join() -> None:
    # m[None] is a 3-D np.matrix (NumPy's __getitem__ lets it through); np.concatenate of two
    # turns the result 2-D, or fails: "shape too large to be a matrix".
    m = np.asmatrix(np.arange(6).reshape(2, 3))
    for arrays, shape in (([m[None], m[None]], (2, 2, 3)), ([m[:1][None]] * 2, (2, 1, 3))):
        plain = [np.asarray(x) for x in arrays]
        got = dm.concat(arrays, 0)
        assert type(got) is np.ndarray
        assert got.shape == shape
        np.testing.assert_array_equal(got, np.concatenate(plain, 0), strict=True)
    with pytest.raises(ValueError, match="shape too large to be a matrix"):
        np.concatenate([m[None], m[None]], 0)
    assert np.concatenate([m[:1][None]] * 2, 0).shape == (2, 3)


@pytest.mark.parametrize(
    ("index", "args"),
    [
        pytest.param((None,), ([0], [1], [1]), id="m[None]"),
        pytest.param((slice(None), None), ([0, 0], [2, 1], [1, 1]), id="m[:, None]"),
        pytest.param((Ellipsis, None), ([0, 0], [0, 1], [1, 1]), id="m[..., None]"),
    ],
)
@pytest.mark.parametrize("copy", [None, False, True])
def test_a_new_axis_on_np_matrix_is_a_plain_array(index: Any, args: Any, copy: Any) -> None:
    # NumPy's own m[None] is a 3-D np.matrix, which np.matrix cannot hold: any view of it is
    # 2-D again, and its copy too, or fails (m[:, None]: "could not broadcast input array from
    # shape (2,1,3) into shape (2,3)"). datamove gives the base array's 3-D view, for every
    # copy= (fixed: copy=None and False gave the 3-D matrix, copy=True a plain array).
    m = np.asmatrix(np.arange(6).reshape(2, 3))
    mine = m[index]
    assert type(mine) is np.matrix
    assert mine.ndim == 3
    assert mine.view(np.matrix).ndim == 2
    try:
        assert mine.copy().ndim == 2
    except ValueError as exc:
        assert "could not broadcast" in str(exc)  # noqa: PT017 - NumPy's own, not ours
    want = np.asarray(m)[index]
    begin, end, stride = args
    masks = {"new_axis_mask": [1 if x is None else 0 for x in index]}
    if Ellipsis in index:
        masks["ellipsis_mask"] = [1, 0]
    got = dm.strided_slice(m, begin, end, stride, copy=copy, **masks)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, want, strict=True)
    assert np.shares_memory(got, m) is (copy is not True)
    inferred = dm.infer_strided_slice(list(m.shape), begin, end, stride, **masks)
    assert inferred.to_shape() == want.shape


def test_np_matrix_keeps_its_type_where_results_are_2d() -> None:
    m = np.asmatrix(np.arange(12).reshape(3, 4))
    got = dm.slice(m, [1], [3], [1], [0])
    assert type(got) is np.matrix
    np.testing.assert_array_equal(got, m[1:3], strict=True)
    got = dm.strided_slice(m, [0, 3], [3, 0], [1, -1])
    assert type(got) is np.matrix
    np.testing.assert_array_equal(got, m[0:3, 3:0:-1], strict=True)
