"""Every operator on every array library, against the NumPy result (issue 4)."""

from __future__ import annotations

import itertools
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove import BackendError, DTypeError, ValidationError, ViewError
from strategies import examples, fixed_settings

if TYPE_CHECKING:
    from conftest import Lib

Op = Callable[..., Any]


def _ss(*args: Any, **kw: Any) -> Op:
    """StridedSlice as a one-output operator: ``out`` is a list of one array, as for splits."""

    def op(x: Any, out: Any = None, **extra: Any) -> tuple[Any, ...]:
        return (dm.strided_slice(x, *args, **kw, out=None if out is None else out[0], **extra),)

    return op


CASES: list[Any] = [
    pytest.param((2, 3, 4), lambda x, **k: dm.split(x, 1, 3, **k), id="split(axis=1, 3)"),
    pytest.param((2, 3, 4), lambda x, **k: dm.split(x, -1, 2, **k), id="split(axis=-1, 2)"),
    pytest.param((4, 3), lambda x, **k: dm.split(x, 0, 4, **k), id="split(axis=0, 4)"),
    pytest.param((0, 3, 4), lambda x, **k: dm.split(x, 2, 2, **k), id="split zero-size dim"),
    pytest.param(
        (2, 6, 4), lambda x, **k: dm.variadic_split(x, 1, [1, -1, 0, 2], **k), id="variadic"
    ),
    pytest.param(
        (2, 3, 0), lambda x, **k: dm.variadic_split(x, 2, [0, -1], **k), id="variadic zero-size"
    ),
    pytest.param((2, 3, 4), _ss([0, 2], [0, -4], [1, -1], begin_mask=[1]), id="ss[:, 2:-4:-1]"),
    pytest.param((7, 5), _ss([6, 4], [0, 0], [-2, -3], end_mask=[1, 1]), id="ss[6::-2, 4::-3]"),
    pytest.param(
        (2, 3, 4),
        _ss([1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0]),
        id="ss masks example",
    ),
    pytest.param(
        (2, 3, 4),
        _ss(
            [0, 1, 0],
            [0, 0, 0],
            [1, 1, -1],
            new_axis_mask=[1],
            shrink_axis_mask=[0, 1],
            end_mask=[0, 0, 1],
            begin_mask=[0, 0, 1],
        ),
        id="ss new axis, shrink, reversed last",
    ),
    pytest.param(
        (2, 3, 4),
        _ss([0, 0], [0, 0], [1, -2], ellipsis_mask=[1], begin_mask=[0, 1], end_mask=[0, 1]),
        id="ss[..., ::-2]",
    ),
    pytest.param((2, 3, 4), _ss([1, 2, 3], [0, 0, 0], shrink_axis_mask=[1, 1, 1]), id="ss 0-d"),
    pytest.param(
        (3, 0, 4),
        _ss([0, 0, 3], [0, 0, 0], [1, 1, -1], end_mask=[1, 1, 1]),
        id="ss zero-size dim, negative stride",
    ),
]


def _np_results(shape: tuple[int, ...], op: Op) -> tuple[np.ndarray, tuple[Any, ...]]:
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    return a, op(a)


def _same_library(xp: Lib, x: Any, r: Any) -> None:
    from array_api_compat import array_namespace, device

    assert array_namespace(r) is array_namespace(x)
    assert r.dtype == x.dtype
    assert device(r) == device(x)


@pytest.mark.parametrize(("shape", "op"), CASES)
@pytest.mark.parametrize("copy", [None, True])
def test_values_library_dtype_device(xp: Lib, shape: tuple[int, ...], op: Op, copy: Any) -> None:
    a, expected = _np_results(shape, op)
    x = xp.asarray(a)
    got = op(x, copy=copy)
    assert len(got) == len(expected)
    for r, e in zip(got, expected, strict=True):
        _same_library(xp, x, r)
        assert tuple(r.shape) == e.shape
        np.testing.assert_array_equal(xp.to_numpy(r), e)
    np.testing.assert_array_equal(xp.to_numpy(x), a)  # the input is never mutated


@pytest.mark.parametrize(("shape", "op"), CASES)
def test_out(xp: Lib, shape: tuple[int, ...], op: Op) -> None:
    a, expected = _np_results(shape, op)
    x = xp.asarray(a)
    if not xp.mutable:
        with pytest.raises(BackendError, match="out="):
            op(x, out=[x] * len(expected))
        return
    out = [xp.asarray(np.full(e.shape, -1, e.dtype)) for e in expected]
    got = op(x, out=out)
    for r, o, e in zip(got, out, expected, strict=True):
        assert r is o
        np.testing.assert_array_equal(xp.to_numpy(o), e)
    np.testing.assert_array_equal(xp.to_numpy(x), a)


def test_out_on_immutable_libraries_names_what_was_passed(xp: Lib) -> None:
    # It said out='<1 arrays>' for the one out of strided_slice, slice and concat, and '<? arrays>'
    # for an out that is no sequence.
    if xp.mutable:
        pytest.skip("out= is written (test_out)")
    x = xp.asarray(np.zeros((4, 3), np.float32))
    with pytest.raises(BackendError, match=r"out='<1 array>' cannot be written"):
        dm.slice(x, [0], [2], [1], out=x)
    with pytest.raises(BackendError, match=r"out='<1 array>' cannot be written"):
        dm.concat([x, x], 0, out=x)
    with pytest.raises(BackendError, match=r"out='<2 arrays>' cannot be written"):
        dm.split(x, 0, 2, out=[x, x])
    with pytest.raises(BackendError, match=rf"out='<{type(x).__name__}>' cannot be written"):
        dm.split(x, 0, 2, out=x)


# -- copy= ------------------------------------------------------------------------------------
def test_copy_none_is_a_view_where_the_library_has_views(xp: Lib) -> None:
    if xp.name in ("jax", "dask"):
        pytest.skip("no mutable views: JAX arrays are immutable; Dask slices are lazy graphs")
    x = xp.asarray(np.zeros((4, 3), np.float32))
    first, _ = dm.split(x, 0, 2)
    x[0, ...] = 7
    assert float(xp.to_numpy(first)[0, 0]) == 7


def test_copy_true_is_independent(xp: Lib) -> None:
    a = np.zeros((4, 3), np.float32)
    if xp.name == "dask":
        base = np.zeros((4, 3), np.float32)
        x = xp.module.from_array(base, chunks=(2, 3))
        (first, _) = dm.split(x, 0, 2, copy=True)
        assert not np.shares_memory(first.compute(), base)
        return
    x = xp.asarray(a)
    first, _, _ = dm.split(x, 1, 3, copy=True)
    if xp.mutable:
        x[0, ...] = 7
    assert float(xp.to_numpy(first)[0, 0]) == 0
    if xp.name in ("numpy", "torch"):
        assert first.flags.c_contiguous if xp.name == "numpy" else first.is_contiguous()


def test_copy_false(xp: Lib) -> None:
    x = xp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    if xp.name == "jax":
        with pytest.raises(ViewError, match="copy=False cannot be honoured"):
            dm.split(x, 0, 2, copy=False)
        return
    first, _ = dm.split(x, 0, 2, copy=False)
    np.testing.assert_array_equal(xp.to_numpy(first), np.arange(6).reshape(2, 3))
    reverse = dict(begin_mask=[1], end_mask=[1])
    if xp.name == "torch":
        with pytest.raises(ViewError, match="negative-step views"):
            dm.strided_slice(x, [0], [0], [-1], copy=False, **reverse)
        return
    r = dm.strided_slice(x, [0], [0], [-1], copy=False, **reverse)
    np.testing.assert_array_equal(xp.to_numpy(r), np.arange(12).reshape(4, 3)[::-1])


def test_copy_false_as_a_numpy_bool_is_copy_false(xp: Lib) -> None:
    """``np.False_`` is accepted for ``copy`` and means what ``False`` means."""
    x = xp.asarray(np.arange(12, dtype=np.float32).reshape(4, 3))
    reverse = dict(begin_mask=[1], end_mask=[1])
    if xp.name in ("jax", "torch"):
        with pytest.raises(ViewError):
            dm.strided_slice(x, [0], [0], [-1], copy=np.False_, **reverse)
    else:
        r = dm.strided_slice(x, [0], [0], [-1], copy=np.False_, **reverse)
        np.testing.assert_array_equal(xp.to_numpy(r), np.arange(12).reshape(4, 3)[::-1])


def test_torch_negative_steps_on_every_dtype() -> None:
    """torch.flip lacks uint16/32/64, float8 and complex32 on CPU: they flip as their bits."""
    torch = pytest.importorskip("torch")
    values = np.array([[1, 2, 250], [7, 0, 9]], np.uint8)
    names = ["uint8", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2", "bfloat16"]
    for name in names:
        t = torch.from_numpy(values).to(getattr(torch, name))
        got = dm.strided_slice(t, [0, -1], [0, 0], [1, -1], begin_mask=[1, 0], end_mask=[1, 1])
        assert got.dtype == t.dtype
        assert got.float().tolist() == t.float().numpy()[:, ::-1].tolist(), name


def test_torch_copies_of_dtypes_without_a_copy_kernel() -> None:
    """torch.uint1..7 and int1..7 have no copy kernel: clone() and copy_() raised PyTorch's
    NotImplementedError for copy=True and out=; they copy as bytes, as they flip."""
    torch = pytest.importorskip("torch")
    for name in ("uint1", "uint4", "int2", "int7"):
        dtype = getattr(torch, name, None)
        if dtype is None:  # pragma: no cover - an older PyTorch
            continue
        t = torch.arange(6, dtype=torch.uint8).reshape(2, 3).view(dtype)
        first, _ = dm.split(t, 0, 2, copy=True)
        assert first.dtype == dtype
        assert first.view(torch.uint8).tolist() == [[0, 1, 2]]
        assert first.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
        out = [torch.zeros(1, 3, dtype=torch.uint8).view(dtype) for _ in range(2)]
        dm.split(t, 0, 2, out=out)
        assert [o.view(torch.uint8).tolist() for o in out] == [[[0, 1, 2]], [[3, 4, 5]]]
        tail = dm.slice(t, [2], [0], [-1], [1], copy=True)  # a flip, then C order
        assert tail.view(torch.uint8).tolist() == [[2, 1], [5, 4]]


def test_torch_joins_of_dtypes_without_a_cat_kernel() -> None:
    """torch.cat has no kernel for uint1..7, int1..7 ("copy_kernel") or float4_e2m1fn_x2
    ("cat_serial_kernel") but along the first axis: ``dm.concat`` raised PyTorch's
    NotImplementedError along any other; they join as bytes, as they copy."""
    torch = pytest.importorskip("torch")
    values = np.arange(24, dtype=np.uint8).reshape(4, 6)
    for name in ("uint1", "uint4", "int2", "int7", "float4_e2m1fn_x2"):
        dtype = getattr(torch, name, None)
        if dtype is None:  # pragma: no cover - an older PyTorch
            continue
        t = torch.from_numpy(values.copy()).view(dtype)
        transposed = torch.from_numpy(values[:, 2:].T.copy()).view(dtype).T
        columns = [t[:, :2], transposed]  # neither contiguous
        rows = [t[:1], t[1:, :]]
        for parts, axis in ((columns, 1), (columns, -1), (rows, 0)):
            joined = dm.concat(parts, axis)
            assert joined.dtype == dtype, name
            assert joined.view(torch.uint8).numpy().tolist() == values.tolist(), (name, axis)
        out = torch.zeros(4, 6, dtype=torch.uint8).view(dtype)
        assert dm.concat(columns, 1, out=out) is out
        assert out.view(torch.uint8).numpy().tolist() == values.tolist(), name
        np.testing.assert_array_equal(t.view(torch.uint8).numpy(), values)  # never mutated


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_torch_negative_steps_on_conjugate_and_negative_views() -> None:
    """complex32 flips as int32 bits; a conjugate (or negative) view could not be viewed so.

    ``t.conj()`` of a complex32 tensor raised PyTorch's RuntimeError ("torch.Tensor.view is not
    supported for conjugate view tensors"), as one with the negative bit did.
    """
    torch = pytest.importorskip("torch")
    c = torch.tensor([[1 + 2j, 3 - 4j, 5j]], dtype=torch.complex64)
    reverse = dict(begin_mask=[1, 0], end_mask=[1, 1])
    for dtype in (torch.complex64, torch.complex32):
        for v in (c.to(dtype), c.to(dtype).conj()):
            got = dm.strided_slice(v, [0, -1], [0, 0], [1, -1], **reverse)
            assert got.dtype == dtype
            expected = v.to(torch.complex64).resolve_conj().numpy()[:, ::-1]
            assert got.to(torch.complex64).resolve_conj().tolist() == expected.tolist()
    negative = c.to(torch.complex32)._neg_view()  # as autograd makes them
    got = dm.strided_slice(negative, [0, -1], [0, 0], [1, -1], **reverse)
    assert got.to(torch.complex64).tolist() == [[-5j, -3 + 4j, -1 - 2j]]


def test_torch_copy_true_of_a_flip_is_c_contiguous() -> None:
    torch = pytest.importorskip("torch")
    t = torch.arange(6.0).reshape(3, 2).T  # not contiguous: flip would keep its layout
    r = dm.strided_slice(t, [-1], [0], [-1], end_mask=[1], copy=True)
    assert r.is_contiguous()
    assert r.tolist() == t.numpy()[::-1].tolist()


def test_torch_out_inside_vmap_is_written() -> None:
    """Inside ``torch.vmap`` a tensor has no storage ("Cannot access data pointer of Tensor that
    doesn't have storage", PyTorch's RuntimeError, came from the overlap check): its layout is
    not known, as on the meta device, and ``copy_`` writes each batch's out."""
    torch = pytest.importorskip("torch")
    x = torch.arange(24.0).reshape(2, 3, 4)

    def take(t: Any, a: Any, b: Any, c: Any) -> Any:
        dm.variadic_split(t, 0, [1, 2], out=[b, a[1:]])  # a[1:]: a view of an out
        dm.strided_slice(t, [-1], [-2], [-1], out=a[:1])  # a negative step: a flip
        return dm.concat([t, t], 1, out=c)

    outs = (torch.zeros(2, 3, 4), torch.zeros(2, 1, 4), torch.zeros(2, 3, 8))
    assert torch.vmap(take)(x, *outs).tolist() == torch.cat([x, x], 2).tolist()
    assert outs[0].tolist() == x[:, [2, 1, 2]].tolist()
    assert outs[1].tolist() == x[:, :1].tolist()
    assert outs[2].tolist() == torch.cat([x, x], 2).tolist()


def test_torch_out_inside_vmap_that_vmap_does_not_batch_is_refused_before_any_write() -> None:
    """An out vmap does not batch cannot take a batched result: PyTorch's RuntimeError ("vmap:
    inplace arithmetic(self, *extra_args) is not possible") came at the first copy_, after the
    outs before it were written. Every out is tried first by a write of no elements."""
    torch = pytest.importorskip("torch")
    x = torch.arange(6.0).reshape(2, 3)
    b, c = torch.zeros(1), torch.zeros(1)  # closed over: not batched

    def split(t: Any, a: Any) -> Any:
        return dm.split(t, 0, 3, out=[a, b, c])

    a = torch.zeros(2, 1)
    with pytest.raises(dm.ValidationError) as info:
        torch.vmap(split)(x, a)
    assert str(info.value).startswith(
        "Split: out[1]='<Tensor of shape [1]>' is not batched by torch.vmap, but the result "
        "written into it is"
    )
    assert a.tolist() == [[0.0], [0.0]]  # nothing written
    assert b.tolist() == c.tolist() == [0.0]
    with pytest.raises(dm.ValidationError, match=r"^Concat: out='<Tensor of shape \[6\]>' is not"):
        torch.vmap(lambda t: dm.concat([t, t], 0, out=torch.zeros(6)))(x)
    # unbatched data into batched outs, and transforms that write (torch.func.grad), still do
    torch.vmap(lambda o: dm.split(torch.ones(3), 0, 3, out=[o, b, c]))(a)
    assert a.tolist() == [[1.0], [1.0]]
    assert b.tolist() == [1.0]

    def loss(t: Any) -> Any:
        (got,) = dm.split(t, 0, 1, out=[torch.zeros(3)])
        return (got * t).sum()

    assert torch.func.grad(loss)(torch.ones(3)).tolist() == [2.0, 2.0, 2.0]  # of t * t


def test_torch_autograd_flows_through_every_result() -> None:
    """Views, flips, clones, joins and out= (written by copy_) keep the graph: no detach."""
    torch = pytest.importorskip("torch")
    import datamove.directml as dml

    x = torch.arange(6.0, requires_grad=True)
    weights = torch.arange(1.0, 13.0)
    out = torch.zeros(3)
    results = [
        *dm.split(x, 0, 2),  # views
        dm.strided_slice(x, [0], [0], [-2], begin_mask=[1], end_mask=[1]),  # a flip
        dm.slice(x, [1], [4], [1], copy=True),  # a clone
        dm.concat([x, x], 0),
        dml.join(dml.split(x, 0, [2, 4])[::-1], 0),
        dm.variadic_split(x, 0, [3, -1], out=[out, torch.zeros(3)])[0],
    ]
    for r in results:
        assert r.requires_grad
        (grad,) = torch.autograd.grad((r * weights[: r.numel()]).sum(), x)
        # x holds 0..5: each element of r is the index in x it came from
        sources = r.detach().long()
        assert grad.tolist() == torch.zeros(6).index_add_(0, sources, weights[: r.numel()]).tolist()
    with torch.inference_mode():  # no graph: inference tensors, as PyTorch's own ops give
        assert dm.split(torch.arange(6.0), 0, 2, copy=True)[0].is_inference()


def test_torch_out_tensors_torch_cannot_write_are_refused_before_any_write() -> None:
    torch = pytest.importorskip("torch")
    x = torch.arange(6.0)
    first = torch.zeros(3)
    leaf = torch.zeros(3, requires_grad=True)
    with pytest.raises(ValidationError, match=r"out\[1\].*is a leaf tensor that requires grad"):
        dm.split(x, 0, 2, out=[first, leaf])
    assert first.tolist() == [0, 0, 0]  # nothing written
    view = torch.zeros(6, requires_grad=True)[3:]
    with pytest.raises(ValidationError, match=r"is a view of a leaf tensor that requires grad"):
        dm.split(x, 0, 2, out=[first, view])
    with torch.inference_mode():
        frozen = torch.zeros(3)
    with pytest.raises(ValidationError, match=r"out\[1\].*is an inference tensor"):
        dm.split(x, 0, 2, out=[first, frozen])
    with torch.no_grad():  # where PyTorch allows the write, so does datamove
        dm.split(x, 0, 2, out=[first, leaf])
    assert leaf.tolist() == [3, 4, 5]


def test_torch_sparse_tensors_are_refused_clearly() -> None:
    torch = pytest.importorskip("torch")
    dense = torch.eye(4)
    sparse = dense.to_sparse()
    calls = [
        lambda t: dm.split(t, 0, 2),
        lambda t: dm.variadic_split(t, 1, [1, 3]),
        lambda t: dm.strided_slice(t, [3], [0], [-1]),
        lambda t: dm.strided_slice(t, [0], [2]),
    ]
    for call in calls:
        call(dense)  # the plan is now cached, and the next call takes the fast path
        with pytest.raises(BackendError, match=r"is a torch\.sparse_coo tensor; only strided"):
            call(sparse)
    with warnings.catch_warnings():  # "the PyTorch API of nested tensors is in prototype stage"
        warnings.simplefilter("ignore", UserWarning)
        nested = torch.nested.nested_tensor([torch.zeros(2, 4), torch.zeros(2, 4)])
        jagged = torch.nested.nested_tensor([dense[:2], dense[:3]], layout=torch.jagged)
    for call in calls:
        for odd in (nested, jagged):
            with pytest.raises(BackendError, match="is a nested tensor; only strided"):
                call(odd)
    with pytest.raises(BackendError, match=r"out\[0\].*is a nested tensor"):
        dm.split(dense, 0, 2, out=[nested, torch.zeros(2, 4)])
    with pytest.raises(BackendError, match=r"StridedSlice: out=.*is a nested tensor"):
        dm.strided_slice(dense, [0], [2], out=nested)
    with pytest.raises(BackendError, match=r"out\[1\].*is a torch\.sparse_coo tensor"):
        dm.split(dense, 0, 2, out=[torch.zeros(2, 4), torch.zeros(2, 4).to_sparse()])
    # Tensors without memory (the meta device) have no layout to check; the call goes through.
    meta = [torch.empty(2, 4, device="meta"), torch.empty(2, 4, device="meta")]
    assert dm.split(torch.empty(4, 4, device="meta"), 0, 2, out=meta)[1] is meta[1]


def test_copy_has_no_say_when_out_is_given(xp: Lib) -> None:
    """As on NumPy: with out=, results are written, so copy=False is no reason to refuse."""
    if not xp.mutable:
        pytest.skip("out= is refused as a whole (test_out)")
    x = xp.asarray(np.arange(4, dtype=np.float32))
    into = xp.asarray(np.zeros(2, np.float32))
    dm.strided_slice(x, [3], [1], [-1], copy=False, out=into)
    np.testing.assert_array_equal(xp.to_numpy(into), [3, 2])


class _PlainCopy(np.ndarray):
    def copy(self) -> _PlainCopy:  # type: ignore[override]  # no order argument
        return np.ndarray.copy(self).view(_PlainCopy)


def test_numpy_subclasses_keep_what_they_add_in_copies() -> None:
    odd = np.arange(6.0).view(_PlainCopy)
    first, _ = dm.split(odd, 0, 2, copy=True)
    assert type(first) is _PlainCopy
    assert first.tolist() == [0, 1, 2]
    m = np.ma.masked_array(np.arange(6), mask=[0, 1, 0, 0, 1, 0])
    a, _ = dm.split(m, 0, 2, copy=True)
    assert type(a) is np.ma.MaskedArray
    assert a.mask.tolist() == [False, True, False]
    assert not np.shares_memory(a, m)
    assert not np.shares_memory(a.mask, m.mask)


def test_torch_negative_step_with_copy_none_is_a_fresh_flip() -> None:
    torch = pytest.importorskip("torch")
    t = torch.arange(10)
    r = dm.strided_slice(t, [8], [0], [-3])
    assert r.tolist() == list(range(10))[8:0:-3]
    assert r.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()


# -- out= errors --------------------------------------------------------------------------------
def test_out_errors(xp: Lib) -> None:
    if not xp.mutable:
        pytest.skip("out= is refused as a whole (test_out)")
    x = xp.asarray(np.zeros((4, 3), np.float32))
    good = [xp.asarray(np.zeros((2, 3), np.float32)) for _ in range(2)]
    with pytest.raises(ValidationError, match="has 1 array, but there are 2 outputs"):
        dm.split(x, 0, 2, out=good[:1])
    with pytest.raises(ValidationError, match=r"has shape \[3, 2\], but the output has shape"):
        dm.split(x, 0, 2, out=[xp.asarray(np.zeros((3, 2), np.float32)), good[1]])
    with pytest.raises(DTypeError, match="values are never converted"):
        dm.split(x, 0, 2, out=[xp.asarray(np.zeros((2, 3), np.float64)), good[1]])
    with pytest.raises(DTypeError, match="must be a sequence"):
        dm.split(x, 0, 2, out=good[0])
    if xp.name != "numpy":  # another library's out: the library's array type, with its article
        name = type(x).__name__
        article = "an" if name[0] in "AEIOUaeiou" else "a"
        with pytest.raises(DTypeError, match=rf"out\[0\]='<ndarray>' must be {article} {name},"):
            dm.split(x, 0, 2, out=[np.zeros((2, 3), np.float32), good[1]])
    if xp.name in ("numpy", "torch"):
        (head,) = dm.split(x, 0, 1)
        with pytest.raises(ValidationError, match="overlaps the input"):
            dm.split(x, 0, 2, out=[head[:2], good[1]])


def test_out_arrays_must_not_share_memory(xp: Lib) -> None:
    """Every output needs elements of its own, apart from the input and from the other outputs."""
    if not xp.mutable:
        pytest.skip("out= is refused as a whole (test_out)")
    x = xp.asarray(np.arange(24, dtype=np.float32).reshape(4, 6))
    # out[0] is the input's second half: written first, it would change what output 1 reads.
    with pytest.raises(ValidationError, match=r"out\[0\].*overlaps the input"):
        dm.split(x, 0, 2, out=[x[2:, ...], xp.asarray(np.zeros((2, 6), np.float32))])
    same = xp.asarray(np.zeros((2, 6), np.float32))
    with pytest.raises(ValidationError, match=r"out\[1\].*shares memory with out\[0\]"):
        dm.split(x, 0, 2, out=[same, same])
    buf = xp.asarray(np.zeros((4, 7), np.float32))
    with pytest.raises(ValidationError, match=r"out\[2\].*shares memory with out\[1\]"):
        dm.split(x, 1, 3, out=[buf[:, 0:2], buf[:, 2:4], buf[:, 3:5]])
    assert xp.to_numpy(buf).sum() == 0  # nothing written before the error
    # The columns of one buffer are apart, although their address ranges meet: accepted.
    got = dm.split(x, 1, 3, out=[buf[:, 0:2], buf[:, 2:4], buf[:, 4:6]])
    assert got[2] is not None
    expected = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.testing.assert_array_equal(xp.to_numpy(buf)[:, :6], expected)
    # An out whose elements share memory (a stride of 0) would keep only the last write.
    if xp.name in ("numpy", "torch"):
        flat = np.zeros(6, np.float32)
        if xp.name == "numpy":
            bad = np.lib.stride_tricks.as_strided(flat, (2, 6), (0, 4), writeable=True)
        else:
            bad = xp.module.zeros(1, 6).expand(2, 6)
        with pytest.raises(ValidationError, match=r"out\[0\].*elements that share memory"):
            dm.split(x, 0, 2, out=[bad, xp.asarray(np.zeros((2, 6), np.float32))])


@pytest.mark.parametrize("n", [3, 1 << 18])  # 2 MiB: the copy engine's compiled loops
def test_out_of_interleaved_strides_whose_elements_are_apart_is_written(xp: Lib, n: int) -> None:
    """``as_strided`` strides that interleave but never meet make an ``out`` like any other.

    Element strides ``[6, 4, 1]`` on shape ``[2, n, 2]``: the rows of ``out[0, j]`` start at
    ``4j``, those of ``out[1, j]`` at ``4j + 6``; each holds 2 elements, so none meet, although
    the strides do not nest (6 is less than the 4n elements axis 1 spans). NumPy's own ``copyto``
    writes it; datamove refused it as "elements that share memory".
    """
    if xp.name not in ("numpy", "torch"):
        pytest.skip("as_strided: NumPy and PyTorch")
    x = np.arange(4 * n * 2, dtype=np.int16).reshape(4, n, 2)
    flat = np.zeros(6 + 4 * (n - 1) + 2, np.int16)
    if xp.name == "numpy":
        inter = np.lib.stride_tricks.as_strided(flat, (2, n, 2), (12, 8, 2), writeable=True)
    else:
        inter = xp.module.as_strided(xp.module.from_numpy(flat), (2, n, 2), (6, 4, 1))
    fresh = xp.asarray(np.zeros((2, n, 2), np.int16))
    got = dm.split(xp.asarray(x), 0, 2, out=[inter, fresh])
    assert got[0] is inter
    np.testing.assert_array_equal(xp.to_numpy(inter), x[:2])
    np.testing.assert_array_equal(xp.to_numpy(fresh), x[2:])
    assert flat[2::4][1:].tolist() == x[1, :, 0].tolist()  # out[1, j] starts at 4j + 6


def test_strict_out_over_a_read_only_buffer_is_refused_before_any_write() -> None:
    """array-api-strict wraps a read-only NumPy array as it is; writing it raised NumPy's own
    ValueError after the outputs before it were written."""
    xs = pytest.importorskip("array_api_strict")
    frozen = np.zeros(2)
    frozen.flags.writeable = False
    first = xs.zeros(2, dtype=xs.float64)
    x = xs.asarray(np.arange(4.0))
    with pytest.raises(ValidationError, match=r"Split: out\[1\]='<read-only array>' is read-only"):
        dm.split(x, 0, 2, out=[first, xs.asarray(frozen)])
    assert np.asarray(first._array).tolist() == [0.0, 0.0]  # nothing written
    with pytest.raises(ValidationError, match=r"StridedSlice: out='<read-only array>' is read"):
        dm.strided_slice(x, [0], [2], out=xs.asarray(frozen))
    with pytest.raises(ValidationError, match=r"Concat: out='<read-only array>' is read-only"):
        dm.concat([x[:1], x[1:2]], 0, out=xs.asarray(frozen))


class _Other:
    """An array of an array API library datamove has no backend of: NumPy inside, its own type."""

    def __init__(self, a: np.ndarray, shape: tuple[Any, ...] | None = None) -> None:
        self.a, self.dtype, self.device = a, a.dtype, "cpu"
        self.shape = a.shape if shape is None else shape

    def __array_namespace__(self, api_version: str | None = None) -> Any:
        return _OtherNamespace

    def __getitem__(self, index: Any) -> _Other:
        return _Other(self.a[index])  # a view, as most libraries' basic indexing gives


class _OtherNamespace:
    @staticmethod
    def asarray(x: _Other, copy: bool | None = None) -> _Other:
        return _Other(np.array(x.a, copy=True)) if copy else x


class _NoNamespace:
    def __array_namespace__(self, api_version: str | None = None) -> Any:
        raise TypeError("no namespace here")


def test_another_array_api_library_gets_what_its_indexing_gives() -> None:
    x = np.arange(6.0)
    parts = dm.split(_Other(x), 0, 2)
    assert [type(p) for p in parts] == [_Other, _Other]
    assert [p.a.tolist() for p in parts] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    # copy=True copies (xp.asarray(copy=True)): its indexing may give views. It returned them.
    copies = dm.split(_Other(x), 0, 2, copy=True)
    assert not any(np.shares_memory(p.a, x) for p in copies)
    assert [p.a.tolist() for p in copies] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    with pytest.raises(ViewError, match=r"^Split: copy=False cannot be honoured: datamove cannot"):
        dm.split(_Other(x), 0, 2, copy=False)
    with pytest.raises(BackendError, match=r"has a size that is not known \(None\)$"):
        dm.split(_Other(x, (None,)), 0, 2)
    with pytest.raises(
        BackendError,
        match=r"^Split: data='<_NoNamespace>' comes from an unsupported array library \(no nam",
    ):
        dm.split(_NoNamespace(), 0, 2)


def test_numpy_outs_are_refused_before_any_write() -> None:
    """NumPy's own refusals of ``out``: read-only, not an array, elements that share memory."""
    x = np.arange(6.0)
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    first = np.zeros(3)
    with pytest.raises(
        ValidationError, match=r"^Split: out\[1\]='<read-only array>' is read-only$"
    ):
        dm.split(x, 0, 2, out=[first, frozen])
    assert first.tolist() == [0.0, 0.0, 0.0]  # nothing written
    with pytest.raises(dm.DTypeError, match=r"^Concat: out=\[1\] must be a NumPy array, like"):
        dm.concat([x, x], 0, out=[1])  # type: ignore[arg-type]
    flat = np.zeros(4)
    shared = np.lib.stride_tricks.as_strided(flat, (4,), (0,), writeable=True)
    with pytest.raises(ValidationError, match=r"^Concat: out=.* has elements that share memory"):
        dm.concat([x[:2], x[2:4]], 0, out=shared)
    assert flat.tolist() == [0.0] * 4


def test_out_overlap_is_found_through_any_owner_of_the_memory() -> None:
    """Two tensors over one NumPy buffer have different storages; the memory is what counts."""
    torch = pytest.importorskip("torch")
    arr = np.arange(6.0)
    data = torch.from_numpy(arr)
    with pytest.raises(ValidationError, match=r"StridedSlice: out='<array>' overlaps the input"):
        dm.strided_slice(data, [0], [3], out=torch.from_numpy(arr[2:5]))
    np.testing.assert_array_equal(arr, np.arange(6.0))
    # Apart from the input's elements, in the same buffer: written.
    other = np.zeros(9)
    other[::3] = [1, 2, 3]
    into = torch.from_numpy(other[1::3])
    got = dm.strided_slice(torch.from_numpy(other[::3]), [0], [3], out=into)
    assert got is into
    np.testing.assert_array_equal(other, [1, 1, 0, 2, 2, 0, 3, 3, 0])
    # Empty tensors have no memory at all (data_ptr() is 0 for each): never an overlap.
    empty = [torch.empty(0, 2), torch.empty(0, 2)]
    assert dm.split(torch.empty(0, 4), 1, 2, out=empty)[1] is empty[1]


def test_numpy_many_outs_in_one_buffer_are_checked_exactly() -> None:
    """Above 64 outputs a byte map decides; it must agree with the pairwise test."""
    x = np.arange(4 * 300, dtype=np.int16).reshape(4, 300)
    buf = np.zeros((4, 301), np.int16)
    dm.split(x, 1, 300, out=[buf[:, i : i + 1] for i in range(300)])
    np.testing.assert_array_equal(buf[:, :300], x)
    outs = [buf[:, i : i + 1] for i in range(299)] + [buf[:, 7:8]]
    with pytest.raises(ValidationError, match=r"out\[299\].*shares memory with out\[7\]"):
        dm.split(x, 1, 300, out=outs)
    # Bytes, not elements: an int16 column that starts at an odd byte meets two columns.
    raw = np.zeros(4 * 301 * 2 + 1, np.uint8)[1:].view(np.int16).reshape(4, 301)
    odd = raw.view(np.uint8)[:, 1:-1].view(np.int16)[:, :1]  # bytes 1-2 of each row
    outs = [raw[:, i : i + 1] for i in range(1, 300)] + [odd]
    with pytest.raises(ValidationError, match=r"out\[299\].*shares memory with out\["):
        dm.split(x, 1, 300, out=outs)


@settings(max_examples=examples(300), deadline=None)
@given(
    rows=st.integers(1, 4),
    itemsize=st.sampled_from([1, 2, 8]),
    row_step=st.sampled_from([1, -1, 2]),
    segments=st.lists(st.tuples(st.integers(1, 6), st.integers(1, 3)), min_size=1, max_size=30),
    extra=st.none() | st.tuples(st.integers(0, 100), st.integers(-3, 3)),
)
def test_outs_apart_agrees_with_numpy_pairwise(
    rows: int,
    itemsize: int,
    row_step: int,
    segments: list[tuple[int, int]],
    extra: tuple[int, int] | None,
) -> None:
    """The lattice-and-runs test decides exactly as NumPy's shares_memory on every pair.

    Columns of one buffer, apart: each segment of columns is cut into ``k`` interleaved
    outputs (every k-th column), whose windows interleave. ``extra`` is one of them moved by a
    few columns (the same lattice, so its run or window may meet another's by one byte).
    """
    from datamove._layout import outs_apart

    cols = sum(width * k for width, k in segments) + 8
    buf = np.zeros((rows * abs(row_step), cols), f"V{itemsize}")[::row_step]
    outs, start = [], 0
    for width, k in segments:
        outs += [buf[:, start + i : start + width * k : k] for i in range(k)]
        start += width * k
    if extra is not None:
        index, shift = extra
        twin = outs[index % len(outs)]
        start = (twin.ctypes.data - buf[:, :1].ctypes.data) // itemsize + shift
        if 0 <= start <= cols - twin.shape[1] * (twin.strides[1] // itemsize):
            step = twin.strides[1] // itemsize
            outs.insert(len(outs) // 2, buf[:, start : start + twin.shape[1] * step : step])
    overlapping = any(
        np.shares_memory(outs[j], outs[k]) for k in range(len(outs)) for j in range(k)
    )
    layouts = [(o.ctypes.data, o.shape, o.strides, o.itemsize) for o in outs]
    if overlapping:
        with pytest.raises(ValidationError, match="shares memory with out"):
            outs_apart("Split", layouts)
    else:
        outs_apart("Split", layouts)


def test_out_columns_of_one_buffer_of_any_width() -> None:
    """Columns of different widths (a VariadicSplit back into one buffer), a middle axis."""
    widths = [1 + i % 5 for i in range(100)]
    cuts = np.cumsum([0, *widths])
    x = np.arange(7 * cuts[-1]).reshape(7, -1)
    into = np.zeros_like(x)[::-1]  # negative row strides too
    dm.variadic_split(x, 1, widths, out=[into[:, a:b] for a, b in itertools.pairwise(cuts)])
    np.testing.assert_array_equal(into, x)
    bad = [into[:, a:b] for a, b in itertools.pairwise(cuts)]
    bad[60] = into[:, cuts[60] - 1 : cuts[61] - 1]
    with pytest.raises(ValidationError, match=r"out\[60\].*shares memory with out\[59\]"):
        dm.variadic_split(x, 1, widths, out=bad)
    z = np.arange(2 * 40 * 3).reshape(2, 40, 3)
    mid = np.zeros_like(z)
    dm.split(z, 1, 40, out=[mid[:, i : i + 1] for i in range(40)])
    np.testing.assert_array_equal(mid, z)
    torch = pytest.importorskip("torch")
    cols = torch.zeros(3, 100)
    dm.split(torch.ones(3, 100), 1, 100, out=[cols[:, i : i + 1] for i in range(100)])
    assert bool((cols == 1).all())


def test_out_columns_on_two_interleaved_lattices() -> None:
    """Even columns take every other row, odd ones the first half: two lattices whose windows
    meet. Their 100 x 100 pairs are decided by a map of bytes, exactly."""
    n = 200
    big = np.zeros((2 * n, n))
    outs = [big[0 : 2 * n : 2, k : k + 1] if k % 2 == 0 else big[0:n, k : k + 1] for k in range(n)]
    x = np.arange(n * n, dtype=np.float64).reshape(n, n)
    dm.split(x, 1, n, out=outs)
    np.testing.assert_array_equal(np.hstack(outs), x)
    outs[151] = big[0:n, 150:151]  # an odd column's rows over an even one's
    with pytest.raises(ValidationError, match=r"out\[151\].*shares memory with out\[150\]"):
        dm.split(x, 1, n, out=outs)


def test_numpy_big_copies_go_through_the_thread_pool() -> None:
    from datamove._backends import _copy

    n = _copy.PARALLEL_MIN_BYTES // 4 + 4096  # float32 elements, just over the threshold
    a = np.arange(n * 2, dtype=np.float32).reshape(-1, 256)
    for axis, k in ((0, 2), (1, 16), (1, 2)):
        expected = np.split(a, k, axis)
        got = dm.split(a, axis, k, copy=True)
        for g, e in zip(got, expected, strict=True):
            np.testing.assert_array_equal(g, e)
            assert g.flags.c_contiguous
            assert not np.shares_memory(g, a)
        out = [np.empty_like(e) for e in expected]
        dm.split(a, axis, k, out=out)
        for o, e in zip(out, expected, strict=True):
            np.testing.assert_array_equal(o, e)
    y = np.empty((a.shape[0], 128), np.float32)
    dm.strided_slice(a, [0, 0], [0, 0], [1, -2], begin_mask=[1, 1], end_mask=[1, 1], out=y)
    np.testing.assert_array_equal(y, a[:, ::-2])
    objects = np.empty((3, 2), dtype=object)
    objects[...] = [[1, "a"], [None, 2.5], [(), []]]
    (left, _right) = dm.split(objects, 1, 2, copy=True)
    assert left[:, 0].tolist() == [1, None, ()]


# -- no backend imported by datamove ----------------------------------------------------------
def test_import_datamove_imports_no_array_library() -> None:
    code = (
        "import sys, numpy as np, datamove as dm\n"
        "dm.split(np.zeros((32 << 20) // 8), 0, 2, copy=True)\n"
        "libs = ('torch', 'jax', 'dask', 'array_api_strict', 'cupy')\n"
        "bad = [m for m in libs if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# -- JAX under jit ----------------------------------------------------------------------------
def test_jax_jit_with_static_parameters() -> None:
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    a = np.arange(2 * 6 * 4, dtype=np.float32).reshape(2, 6, 4)

    @jax.jit
    def f(x: Any) -> Any:
        parts = dm.variadic_split(x, 1, [2, -1])
        tail = dm.strided_slice(
            parts[1], [0, 0], [0, 0], [1, -2], ellipsis_mask=[1], begin_mask=[0, 1], end_mask=[0, 1]
        )
        return (*dm.split(x, -1, 2), tail)

    got = f(jnp.asarray(a))
    np.testing.assert_array_equal(np.asarray(got[0]), a[..., :2])
    np.testing.assert_array_equal(np.asarray(got[2]), a[:, 2:][..., ::-2])

    g = jax.jit(dm.split, static_argnums=(1, 2))
    np.testing.assert_array_equal(np.asarray(g(jnp.asarray(a), 1, 3)[2]), a[:, 4:])

    import datamove.directml as dml

    h = jax.jit(lambda x: dml.join(dml.split(x, 1, [1, 5])[::-1], 1))  # DirectML's forms too
    np.testing.assert_array_equal(np.asarray(h(jnp.asarray(a))), np.roll(a, -1, axis=1))


@pytest.mark.parametrize(("shape", "op"), CASES)
def test_repeated_calls_agree_with_numpy(xp: Lib, shape: tuple[int, ...], op: Op) -> None:
    # The second and later calls take the cached-plan fast paths (array type already known).
    a, expected = _np_results(shape, op)
    x = xp.asarray(a)
    for _ in range(3):
        got = op(x)
        for r, e in zip(got, expected, strict=True):
            _same_library(xp, x, r)
            np.testing.assert_array_equal(xp.to_numpy(r), e)


def test_cached_plans_follow_the_shape(xp: Lib) -> None:
    # ``[::-2]`` is one index for every length, but the elements it takes depend on the length;
    # a plan cached for one shape must not be reused for another (PyTorch converts it once).
    for n in (7, 8, 7, 8, 0, 1):
        a = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
        got = dm.strided_slice(xp.asarray(a), [0], [0], [-2], begin_mask=[1], end_mask=[1])
        np.testing.assert_array_equal(xp.to_numpy(got), a[::-2])
        parts = dm.variadic_split(xp.asarray(a), 0, [-1, min(n, 1)])
        np.testing.assert_array_equal(xp.to_numpy(parts[0]), a[: n - min(n, 1)])
    for shape in ((3, 4), (2, 3, 4), (3, 4), (4,)):  # one index, (..., 3::-1), for each rank
        a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
        got = dm.strided_slice(
            xp.asarray(a), [0, 3], [0, 0], [1, -1], ellipsis_mask=[1], end_mask=[0, 1]
        )
        np.testing.assert_array_equal(xp.to_numpy(got), a[..., ::-1])


def test_fast_paths_keep_copy_false_errors() -> None:
    torch = pytest.importorskip("torch")
    t = torch.arange(6.0)
    for _ in range(2):  # the second call finds the plan cached
        assert dm.strided_slice(t, [0], [0], [-1], begin_mask=[1], end_mask=[1]).tolist() == [
            5.0,
            4.0,
            3.0,
            2.0,
            1.0,
            0.0,
        ]
        with pytest.raises(ViewError, match="negative-step"):
            dm.strided_slice(t, [0], [0], [-1], begin_mask=[1], end_mask=[1], copy=False)
        with pytest.raises(ValidationError, match="must divide"):
            dm.split(t, 0, 4)


# -- DirectML's convenience forms ------------------------------------------------------------
def test_directml_split_and_join_on_every_library(xp: Lib) -> None:
    import datamove.directml as dml

    a = np.arange(2 * 6 * 4, dtype=np.float32).reshape(2, 6, 4)
    x = xp.asarray(a)
    parts = dml.split(x, 1, [1, 3, 2])
    expected = dml.split(a, 1, [1, 3, 2])
    assert len(parts) == len(expected) == 3
    for r, e in zip(parts, expected, strict=True):
        _same_library(xp, x, r)
        np.testing.assert_array_equal(xp.to_numpy(r), e)
    whole = dml.join(parts, -2)
    _same_library(xp, x, whole)
    np.testing.assert_array_equal(xp.to_numpy(whole), a)
    np.testing.assert_array_equal(xp.to_numpy(x), a)  # the input is never mutated
    if xp.mutable and xp.name != "numpy":  # fresh arrays, not views of the input
        parts[0][...] = -1
        np.testing.assert_array_equal(xp.to_numpy(x), a)


def test_directml_checks_other_libraries_as_numpy() -> None:
    # the descs are built and checked the same way; only the copy is the library's own
    import datamove.directml as dml

    torch = pytest.importorskip("torch")
    x = torch.zeros((2, 4))
    with pytest.raises(dml.DirectMLValidationError, match=r"\[S6\] outputs\[0\].sizes\[1\]=0"):
        dml.split(x, 1, [0, 4])
    with pytest.raises(DTypeError, match="must come from the library of the others"):
        dml.join([x, np.zeros((2, 4), np.float32)], 0)
    with pytest.raises(DTypeError, match=r"arrays\[1\]=dtype\('float64'\) must match"):
        dml.join([x, x.double()], 0)
    with pytest.raises(ValidationError, match="differs from array's own type FLOAT32"):
        dml.split(x, 1, [2, 2], data_type="UINT4")
    with pytest.raises(DTypeError, match="has no DirectML data type"):
        dml.split(x.bfloat16(), 1, [2, 2])
    assert dml.split(x, 1, [2, 2], data_type="FLOAT32")[0].dtype == torch.float32
    jnp = pytest.importorskip("jax.numpy")
    with pytest.raises(DTypeError, match="mix array libraries"):
        dml.join([x, jnp.zeros((2, 4))], 0)


# -- any layout, against NumPy ------------------------------------------------------------------
LAYOUTS = ("contiguous", "transposed", "reversed", "every other", "broadcast", "channels last")


def _laid_out(xp: Lib, a: np.ndarray, layout: str) -> Any:
    """``a``'s values in ``xp``, laid out as ``layout`` says where the library has layouts."""
    if xp.name not in ("numpy", "array_api_strict", "torch"):
        return xp.asarray(a)
    m = a.copy()
    if layout == "transposed":
        m = np.ascontiguousarray(a.T).T
    elif layout == "reversed" and xp.name != "torch":  # PyTorch has no negative strides
        m = np.ascontiguousarray(a[::-1])[::-1]
    elif layout == "every other":
        m = np.repeat(a, 2, axis=0)[::2]
    elif layout == "broadcast" and a.shape[0] > 0 and (a == a[:1]).all():
        m = np.broadcast_to(a[:1], a.shape)  # a stride of 0 (read-only)
    if xp.name == "array_api_strict":
        return xp.module.asarray(m)
    if xp.name == "numpy":
        return m
    torch = xp.module
    if not m.flags.writeable:  # torch.from_numpy warns of read-only arrays: expand() instead
        return torch.from_numpy(a[:1].copy()).expand(*a.shape)
    t = torch.from_numpy(m)  # any positive strides
    if layout == "channels last" and a.ndim == 4:
        return t.contiguous(memory_format=torch.channels_last)
    return t


@st.composite
def _layout_cases(draw: st.DrawFn) -> tuple[np.ndarray, str, str, Any]:
    shape = draw(st.lists(st.integers(0, 4), min_size=1, max_size=4).map(tuple))
    dtype = draw(st.sampled_from([np.float32, np.int8, np.uint16, np.bool_, np.complex64]))
    layout = draw(st.sampled_from(LAYOUTS))
    rank = len(shape)
    a = (np.arange(int(np.prod(shape))) % 5).astype(dtype).reshape(shape)
    if layout == "broadcast" and shape[0]:
        a = np.broadcast_to(a[:1], shape).copy()
    axis = draw(st.integers(-rank, rank - 1))
    kind = draw(st.sampled_from(["split", "variadic", "strided", "slice"]))
    if kind == "split":
        n = draw(st.sampled_from([d for d in range(1, 5) if shape[axis] % d == 0]))
        return a, layout, f"split(x, {axis}, {n})", lambda x, **k: dm.split(x, axis, n, **k)
    if kind == "variadic":
        cut = draw(st.integers(0, shape[axis]))
        lengths = [cut, -1]
        return (
            a,
            layout,
            f"variadic_split(x, {axis}, {lengths})",
            (lambda x, **k: dm.variadic_split(x, axis, lengths, **k)),
        )
    ends = st.lists(st.integers(-5, 5), min_size=rank, max_size=rank)
    begin, end = draw(ends), draw(ends)
    steps = draw(st.lists(st.sampled_from([1, 2, -1, -2]), min_size=rank, max_size=rank))
    if kind == "slice":
        return (
            a,
            layout,
            f"slice(x, {begin}, {end}, {steps})",
            (lambda x, **k: (dm.slice(x, begin, end, steps, **k),)),
        )
    mask = draw(st.lists(st.integers(0, 1), min_size=rank, max_size=rank))
    return (
        a,
        layout,
        f"strided_slice(x, {begin}, {end}, {steps}, begin_mask={mask})",
        (lambda x, **k: (dm.strided_slice(x, begin, end, steps, begin_mask=mask, **k),)),
    )


def _memory(xp: Lib, r: Any) -> int | None:
    """Where ``r``'s storage starts (NumPy: its base buffer), or None for an empty array."""
    if xp.name == "torch":
        return r.untyped_storage().data_ptr() if r.numel() else None
    arr = r._array if xp.name == "array_api_strict" else r
    while arr.base is not None and isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr.__array_interface__["data"][0] if r.size else None


# (xp is the same library for every example: nothing of it is reset between them)
@settings(fixed_settings(60), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=_layout_cases(), copy=st.sampled_from([None, True, False]))
def test_any_layout_agrees_with_numpy(xp: Lib, case: Any, copy: bool | None) -> None:
    """Transposed, reversed, strided, broadcast (stride 0) and channels-last inputs: the values
    are NumPy's; ``copy=True`` is fresh (C order on NumPy and PyTorch); ``copy=False`` views."""
    a, layout, call, op = case
    if xp.name == "array_api_strict" and a.dtype == np.float16:
        return
    expected = op(a)
    x = _laid_out(xp, a, layout)
    try:
        got = op(x, copy=copy)
    except ViewError:  # JAX has no views; PyTorch no negative-step ones
        assert copy is False, call
        assert xp.name in ("jax", "torch"), call
        return
    for r, e in zip(got, expected, strict=True):
        _same_library(xp, x, r)
        np.testing.assert_array_equal(xp.to_numpy(r), e, err_msg=f"{layout}: {call}", strict=True)
        if xp.name not in ("numpy", "array_api_strict", "torch") or not e.size:
            continue
        shared = _memory(xp, r) == _memory(xp, x)
        assert shared is (copy is not True) or (copy is None and xp.name == "torch"), call
        if copy and xp.name == "numpy":
            assert r.flags.c_contiguous, call
            assert r.flags.writeable, call
        if copy and xp.name == "torch":
            assert r.is_contiguous(), call
    np.testing.assert_array_equal(xp.to_numpy(x), a)  # never mutated
