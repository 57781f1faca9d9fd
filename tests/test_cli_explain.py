"""``datamove explain``: shapes, the NumPy index (checked against NumPy), pictures."""

from __future__ import annotations

import json
import tracemalloc

import numpy as np
import pytest

import datamove as dm
from datamove._cli import main
from datamove._explain import explain_split, explain_strided_slice, index_expression
from datamove._shape import PartialShape


def test_issue_example(capsys: pytest.CaptureFixture[str]) -> None:
    argv = [
        "explain",
        "strided-slice",
        "--shape",
        "2,3,4",
        "--begin",
        "1,0,0",
        "--end",
        "0,0,2",
        "--begin-mask",
        "0,1,1",
        "--end-mask",
        "1,1,0",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "output shape: [1,3,2]" in out
    assert "NumPy:        x[1:, :, :2]" in out
    assert "    12 13  ·  ·" in out
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["taken"] == [12, 13, 16, 17, 20, 21]


CASES = [
    ((6,), [3], [0], [-1], {"end_mask": [1]}),
    ((6,), [-100], [-200], [-1], {}),
    ((2, 3, 4), [0, 1], [0, 0], None, {"shrink_axis_mask": [0, 1], "new_axis_mask": [1, 0]}),
    ((2, 3, 4), [0, 1], [0, 2], None, {"ellipsis_mask": [1, 0]}),
    (
        (2, 3, 4),
        [1, 0, -1],
        [0, 0, 0],
        None,
        {"shrink_axis_mask": [1, 0, 1], "ellipsis_mask": [0, 1, 0]},
    ),
    ((5, 7), [4, 6], [0, 0], [-2, -3], {}),
    ((4, 5), [1, 1], [3, 3], None, {"shrink_axis_mask": [1, 1]}),
]


@pytest.mark.parametrize(("shape", "begin", "end", "stride", "masks"), CASES, ids=str)
def test_numpy_expression_selects_what_the_operator_selects(
    shape, begin, end, stride, masks
) -> None:
    info = explain_strided_slice(PartialShape(shape), begin, end, stride, masks)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    expected = dm.strided_slice(x, begin, end, stride, **masks)
    got = eval(info["numpy"], {"x": x})  # noqa: S307 - our own expression, on our own array
    np.testing.assert_array_equal(np.asarray(got), expected)
    assert np.shape(got) == expected.shape


def test_index_expression_reverse_and_newaxis() -> None:
    assert index_expression((slice(5, None, -1),), (6,)) == "x[::-1]"
    assert index_expression((None, slice(0, 2, 2)), (6,)) == "x[None, :2:2]"


def test_split_and_variadic(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "split", "--shape", "6,12", "--axis", "1", "--num-splits", "3"]) == 0
    out = capsys.readouterr().out
    assert "output 2: [6,4]  = x[:, 8:12]" in out
    assert "  0 0 0 0 1 1 1 1 2 2 2 2" in out
    assert (
        main(
            [
                "explain",
                "variadic-split",
                "--shape",
                "?,6",
                "--axis",
                "1",
                "--lengths",
                "1,-1",
                "--json",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["outputs"] == [
        ["[?,1]", "x[:, 0:1]"],
        ["[?,5]", "x[:, 1:6]"],
    ]


def test_errors_are_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "split", "--shape", "6", "--axis", "0", "--num-splits", "4"]) == 1
    assert "Split: num_splits=4" in capsys.readouterr().err
    assert main(["explain", "strided-slice", "--shape", "6", "--begin", "a", "--end", "1"]) == 1
    assert capsys.readouterr().err == (
        "datamove: error: explain: --begin='a' must be comma-separated integers, e.g. 1,0,-1\n"
    )
    # an empty item is an error, not skipped (",," once read as no lengths at all)
    assert (
        main(["explain", "variadic-split", "--shape", "4", "--axis", "0", "--lengths", ",,"]) == 1
    )
    assert "--lengths=',,' must be comma-separated integers" in capsys.readouterr().err
    assert main(["explain", "strided-slice", "--shape", "6"]) == 2


def test_memory_is_bounded_by_what_is_printed() -> None:
    # The picture's labels were built for the whole axis before its 512-element limit was
    # checked: a length of 10**7 took 1 GB (and 10**9 hung) to print two lines.
    tracemalloc.start()
    try:
        info = explain_split(PartialShape([10**6]), 0, lengths=[1, -1])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info["outputs"] == [("[1]", "x[0:1]"), ("[999999]", "x[1:1000000]")]
    assert info["picture"] == []
    assert peak < 1 << 20


def test_long_axis_gets_its_shapes_and_no_picture(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "variadic-split", "--shape", "1000000,2", "--axis", "0"]
    assert main([*argv, "--lengths", "1,-1"]) == 0
    out = capsys.readouterr().out
    assert "output 1: [999999,2]  = x[1:1000000]" in out
    assert "elements by output" not in out


def new_axes(count: int) -> list[str]:
    zeros = ",".join(["0"] * (count + 1))
    mask = ",".join(["1"] * count + ["0"])
    return ["--begin", zeros, "--end", zeros, "--new-axis-mask", mask]


def test_more_axes_than_numpy_has(capsys: pytest.CaptureFixture[str]) -> None:
    # 65 new axes on a rank-1 input: inference gives the rank-66 shape; NumPy's 64 dimensions
    # cannot index it (its IndexError escaped as a traceback), so there is no index to print.
    assert main(["explain", "strided-slice", "--shape", "2", *new_axes(65)]) == 0
    captured = capsys.readouterr()
    assert f"output shape: [{','.join(['1'] * 65)},0]" in captured.out
    assert "elements taken" not in captured.out
    assert captured.err == ""
    ones = ",".join(["1"] * 70)  # an input of rank 70, one axis shrunk: rank 69 out
    argv = ["explain", "strided-slice", "--shape", ones, "--begin", "0", "--end", "1"]
    assert main([*argv, "--shrink-axis-mask", "1", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["output_shape"] == f"[{','.join(['1'] * 69)}]"
    assert info["picture"] == []
    assert "taken" not in info
