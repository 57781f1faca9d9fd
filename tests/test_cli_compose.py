"""``datamove compose``: the composed slicing in NumPy and other dialects; errors in one line."""

from __future__ import annotations

import json

import numpy as np
import pytest

import datamove as dm
from datamove.cli import main


def test_prints_the_composition_in_numpy_form(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compose", "x[1:, ::-1]", "x[::2]"]) == 0
    assert capsys.readouterr().out == "x[1::2, ::-1]\n"


def test_as_writes_each_dialect_as_explain_does(capsys: pytest.CaptureFixture[str]) -> None:
    dialects = "onnx,tf,torch,slice,strided-slice,numpy,dml,webnn"
    argv = ["compose", "x[1:, ::-1]", "x[::2]", "--shape", "5,6", "--as", dialects]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "x[1::2, ::-1]"
    heads = [line.split(" (")[0] for line in lines[1:] if not line.startswith(" ")]
    assert heads == dialects.split(",")
    composed = dm.compose("x[1:, ::-1]", "x[::2]", (5, 6))
    assert "  " + composed.to_numpy((5, 6)) in lines  # the numpy block, as the library writes it
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["numpy"] == "x[1::2, ::-1]"
    assert list(got["as"]) == dialects.split(",")
    x = np.arange(30).reshape(5, 6)
    want = x[1:, ::-1][::2]
    assert (dm.strided_slice(x, **got["as"]["strided-slice"]["value"]) == want).all()
    assert got["as"]["onnx"]["value"][0][0] == "Slice"
    assert got["as"]["tf"]["value"]["strides"] == [2, -1]
    assert got["as"]["dml"]["value"][0][0] == "SLICE1"
    assert got["as"]["webnn"]["value"][0][0] == "slice"


def test_a_dialect_that_cannot_say_it_gets_a_reason(capsys: pytest.CaptureFixture[str]) -> None:
    # NumPy's clamping selects nothing on sizes 1..99, ONNX's (OpenVINO's) selects x[0].
    argv = ["compose", "x[:]", "x[-100:-200:-1]", "--as", "onnx,tf"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "x[-100:-200:-1]"
    assert out[1].startswith("onnx: ONNX Slice: shape=None allows sizes 1..99 of axis 0")
    assert out[1].endswith("(witness: shape [1])")
    assert out[2] == "tf (tf.strided_slice):"
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)["as"]
    assert got["onnx"]["witness"] == [1]
    assert got["tf"]["value"]["begin"] == [-100]
    assert main([*argv, "--shape", "[100..]"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("onnx (ONNX Slice-13")


def test_shape_narrows_where_the_composition_must_hold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["compose", "x[-3:]", "x[1:]"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("datamove: error: compose: ")
    assert err.count("\n") == 1
    assert "no single slicing" in err
    assert main(["compose", "x[-3:]", "x[1:]", "--shape", "[3..]"]) == 0
    assert capsys.readouterr().out == "x[-2:]\n"
    assert main(["compose", "x[::2]", "x[::-1]", "--shape", "8"]) == 0
    assert capsys.readouterr().out == "x[6::-2]\n"


def test_a_composition_numpy_reads_otherwise_is_written_for_the_shape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # x[-4:3:3] then x[3:-9:-2] on [2..5] is x[-4::-6] under OpenVINO's clamping (index 0 on
    # sizes 2..4, where NumPy's takes nothing): no NumPy text says that on every size, so the
    # one exact on the shape is printed
    a, b = "x[-4:3:3]", "x[3:-9:-2]"
    assert main(["compose", a, b, "--shape", "[2..5]"]) == 0
    assert capsys.readouterr().out == "x[-4::4]\n"
    for d in range(2, 6):
        x = np.arange(d)
        assert np.array_equal(x[-4:3:3][3:-9:-2], x[-4::4])


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["compose", "x[1:", "x[::2]"], 1, "is not an indexing expression"),
        (["compose", "x[1:]", "x[::2]", "--shape", "[2,"], 1, "shape"),
        (["compose", "x[None]", "x[2]"], 1, "index 2 of a new axis"),
        (["compose", "x[1:]", "x[::2]", "--as", "webgpu"], 2, "unknown dialect 'webgpu'"),
        (["compose", "x[1:]"], 2, "required"),
    ],
)
def test_errors_are_one_line(
    argv: list[str], code: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert message in captured.err
    if code == 1:
        assert captured.err.count("\n") == 1


def test_an_error_shows_the_shape_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    # it showed shape=PartialShape('[?]'), the Python object, on the command line
    assert main(["compose", "x[1:-1:2]", "x[::-1]", "--shape", "?"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("datamove: error: compose: shape='[?]' allows sizes of axis 0 ")
    assert "PartialShape" not in err
