"""The wording of error messages: the same mistake reads the same way wherever it is made."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import datamove as dm


def _message(call: Any) -> str:
    with pytest.raises(dm.ValidationError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize(
    ("num_splits", "expected"),
    [
        (
            np.array([1, 2]),
            "Split: num_splits=array([1, 2], dtype=int64) must be a scalar, but has shape [2]",
        ),
        ([1, 2], "Split: num_splits=[1, 2] must be an integer, not list"),
    ],
)
def test_execution_and_inference_name_what_the_caller_passed(
    num_splits: Any, expected: str
) -> None:
    # The plan cache checks a snapshot (a tuple) of a list or an array; its error must name the
    # caller's value and what it is, as shape inference of the same value does.
    assert _message(lambda: dm.split(np.arange(6), 0, num_splits)) == expected
    assert _message(lambda: dm.infer_split([6], 0, num_splits)) == expected
