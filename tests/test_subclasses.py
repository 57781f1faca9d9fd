"""NumPy subclasses through the operators: masked arrays keep their masks, np.matrix stays 2-D.

The rule (docs/backends.md, "NumPy subclasses"): a result is of the input's subclass where that
type holds NumPy's shape for it, else a plain array of the base's values. NumPy is the oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import datamove as dm

pytestmark = pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix's


# -- np.matrix ---------------------------------------------------------------------------------
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
