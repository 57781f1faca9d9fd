"""Dask: lazy, unknown (NaN) sizes, and a distributed cluster over a Zarr store (issue 4)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import datamove as dm
import datamove.directml as dml
from datamove import BackendError

da = pytest.importorskip("dask.array")


def _boom(block: Any) -> Any:
    raise AssertionError("computed")  # a graph that fails if anything is ever computed


def test_operators_never_compute() -> None:
    base = da.ones((8, 6, 4), chunks=(2, 3, 4), dtype=np.float32)
    x = base.map_blocks(_boom, dtype=np.float32)
    tasks = len(x.__dask_graph__())
    parts = dm.split(x, 1, 2, copy=True)
    parts += dm.variadic_split(x, 0, [1, -1])
    parts += (dm.strided_slice(x, [7, 0], [0, 0], [-2, 1], end_mask=[1, 1], new_axis_mask=[0, 0]),)
    parts += tuple(dml.split(x, 2, [1, 3]))
    parts += (dml.join([x, x], 0),)
    parts += (dm.slice(x, [5, -1], [0, 1], [-2, -1], [1, 2], copy=True), dm.concat([x, x], 1))
    assert len(x.__dask_graph__()) == tasks
    for part in parts:
        assert isinstance(part, da.Array)
        with pytest.raises(AssertionError, match="computed"):
            part.compute(scheduler="sync")


def test_unknown_sizes_kept_whole_are_lazy_and_needed_ones_raise() -> None:
    a = np.arange(6 * 4, dtype=np.int32).reshape(6, 4)
    x = da.from_array(a, chunks=(2, 4))
    y = x[x[:, 0] >= 8]  # axis 0 now has unknown (NaN) chunk sizes
    assert np.isnan(y.shape[0])
    left, right = dm.split(y, 1, 2)
    np.testing.assert_array_equal(left.compute(), a[2:, :2])
    np.testing.assert_array_equal(right.compute(), a[2:, 2:])
    tail = dm.strided_slice(y, [0, 1], [0, 4], [1, 2], ellipsis_mask=[1])
    np.testing.assert_array_equal(tail.compute(), a[2:, 1:4:2])
    # Kept whole by masks or by the bounds that clamp to the whole axis at any size: lazy too
    big, small = 2**63 - 1, -(2**63)
    for got in (
        dm.strided_slice(y, [0, 1], [0, 3], begin_mask=[1, 0], end_mask=[1, 0]),
        dm.strided_slice(y, [small, 1], [big, 3]),
        dm.strided_slice(y, [0, 1], [big, 3], [1, 1]),
        dm.slice(y, [0, 1], [big, 3], [1, 1]),
        dm.slice(y, [1, small], [3, big], [1, 1], [1, 0]),
    ):
        assert np.isnan(got.shape[0])
        np.testing.assert_array_equal(got.compute(), a[2:, 1:3])
    for cut in (  # whole only for some sizes, or reversed (Dask cannot reverse such an axis)
        lambda: dm.slice(y, [0], [6], [1], [0]),
        lambda: dm.strided_slice(y, [0], [0], [-1], begin_mask=[1], end_mask=[1]),
        lambda: dm.slice(y, [-1], [small], [-1], [0]),
    ):
        with pytest.raises(BackendError, match="unknown size \\(NaN\\) along axis 0"):
            cut()
    with pytest.raises(BackendError, match="unknown size \\(NaN\\) along axis 0") as info:
        dm.split(y, 0, 2)
    assert "compute_chunk_sizes" in str(info.value)
    with pytest.raises(BackendError, match="along axis 0"):
        dm.strided_slice(y, [1], [3])


def test_concat_needs_the_sizes_off_its_axis() -> None:
    """An unknown size off the join axis is a BackendError, not Dask's own ValueError."""
    a = np.arange(6 * 4, dtype=np.int32).reshape(6, 4)
    x = da.from_array(a, chunks=(2, 4))
    y = x[x[:, 0] >= 8]  # axis 0 now has unknown (NaN) chunk sizes
    joined = dm.concat([y, y], 0)  # the unknown axis is the join axis: lazy
    np.testing.assert_array_equal(joined.compute(), np.concatenate([a[2:], a[2:]]))
    for parts in ([y, y], [x[:4], y]):
        with pytest.raises(BackendError, match="unknown size \\(NaN\\) along axis 0") as info:
            dm.concat(parts, 1)
        assert "arrays[" in str(info.value)
        assert "compute_chunk_sizes" in str(info.value)


@pytest.mark.slow
def test_distributed_cluster_over_zarr(tmp_path: Any) -> None:
    distributed = pytest.importorskip("distributed")
    zarr = pytest.importorskip("zarr")
    a = np.arange(64 * 48 * 8, dtype=np.float32).reshape(64, 48, 8)
    store = zarr.open_array(
        str(tmp_path / "data.zarr"), mode="w", shape=a.shape, chunks=(16, 16, 8), dtype=a.dtype
    )
    store[...] = a
    x = da.from_zarr(str(tmp_path / "data.zarr"))
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            memory_limit="512MiB",
            local_directory=str(tmp_path / "workers"),
        ) as cluster,
        distributed.Client(cluster, timeout="60s") as client,
    ):
        parts = dm.split(x, 1, 3, copy=True)
        pieces = dm.variadic_split(x, 0, [10, -1, 6])
        sliced = dm.strided_slice(x, [60, 0, 7], [0, 48, 0], [-3, 5, -2], end_mask=[1, 0, 1])
        got = client.compute([*parts, *pieces, sliced], sync=True)
    for g, e in zip(got, [*np.split(a, 3, 1), a[:10], a[10:58], a[58:]], strict=False):
        np.testing.assert_array_equal(g, e)
    np.testing.assert_array_equal(got[-1], a[60::-3, 0:48:5, 7::-2])
