"""``datamove explain``: shapes, the NumPy index (checked against NumPy), pictures."""

from __future__ import annotations

import itertools
import json
import tracemalloc

import numpy as np
import pytest

import datamove as dm
from datamove._shape import PartialShape
from datamove.cli import main
from datamove.cli._explain import (
    explain_concat,
    explain_slice,
    explain_split,
    explain_strided_slice,
)
from datamove.ir._explain import index_expression


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


def test_a_scalar_is_drawn_as_its_one_element(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "strided-slice", "--shape", "[]", "--begin", "0", "--end", "0"]
    assert main([*argv, "--new-axis-mask", "1"]) == 0
    out = capsys.readouterr().out
    assert out.endswith(
        "output shape: [1]\nNumPy:        x[None]\n"
        "elements taken (flat index; · = not taken):\n  0\noutput order: 0\n"
    )
    x = np.array(7.0)
    want = dm.strided_slice(x, [0], [0], new_axis_mask=[1])
    np.testing.assert_array_equal(x[None], want)


def test_split_and_variadic(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "split", "--shape", "6,12", "--axis", "1", "--num-splits", "3"]) == 0
    out = capsys.readouterr().out
    assert "output 2: [6,4]  = x[:, 8:]" in out
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
        ["[?,1]", "x[:, :1]"],
        ["[?,5]", "x[:, 1:]"],
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
    # items apart by spaces alone are an error (once read as one number: "1 2" as [12])
    assert (
        main(
            [
                "explain",
                "slice",
                "--shape",
                "20",
                "--start",
                "1 2",
                "--stop",
                "5,5",
                "--step",
                "1,1",
            ]
        )
        == 1
    )
    assert "--start='1 2' must be comma-separated integers" in capsys.readouterr().err
    assert (
        main(["explain", "slice", "--shape", "20", "--start", " 1", "--stop", "5 ", "--step", "1"])
        == 0
    )
    assert "x[1:5]" in capsys.readouterr().out
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
    assert info["outputs"] == [("[1]", "x[:1]"), ("[999999]", "x[1:]")]
    assert info["picture"] == []
    assert peak < 1 << 20


def test_long_axis_gets_its_shapes_and_no_picture(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "variadic-split", "--shape", "1000000,2", "--axis", "0"]
    assert main([*argv, "--lengths", "1,-1"]) == 0
    out = capsys.readouterr().out
    assert "output 1: [999999,2]  = x[1:]" in out
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


# -- Slice-8 ------------------------------------------------------------------------------------


def test_slice(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "slice", "--shape", "2,3,4", "--start", "1,-1", "--stop", "2,-5"]
    assert main([*argv, "--step", "1,-2", "--axes", "0,2"]) == 0
    out = capsys.readouterr().out
    assert "  start=[1, -1] stop=[2, -5] step=[1, -2] axes=[0, 2]\n" in out
    assert "output shape: [1,3,2]\nNumPy:        x[1:, :, ::-2]\n" in out
    assert "     · 13  · 15\n" in out
    assert "output order: 15 13 19 17 23 21\n" in out
    assert "Python:" not in out  # Python's x[1:2, :, -1:-5:-2] takes the same elements
    assert main([*argv, "--step", "1,-2", "--axes", "0,2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["taken"] == [15, 13, 19, 17, 23, 21]


def test_slice_says_where_python_takes_other_elements(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "slice", "--shape", "1", "--start", "-3", "--stop", "-6", "--step", "-3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "  start=[-3] stop=[-6] step=[-3] axes=[0] (default)\n" in out
    assert "output shape: [1]\nNumPy:        x[...]\n" in out  # the identity on [1]
    assert "Python:       x[-3:-6:-3] takes other elements" in out
    assert "output order: 0\n" in out


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            [
                "strided-slice",
                "--shape",
                "[?,2..10]",
                "--begin",
                "0,0",
                "--end",
                "0,0",
                "--begin-mask",
                "1,1",
                "--end-mask",
                "1,1",
            ],
            "identity:     the output is x unchanged on every shape [?,2..10] allows",
        ),
        (
            ["slice", "--shape", "1", "--start", "-3", "--stop", "-6", "--step", "-3"],
            "identity:     the output is x unchanged",
        ),
        (
            [
                "slice",
                "--shape",
                "[?,..3]",
                "--start",
                "3",
                "--stop",
                "100",
                "--step",
                "1",
                "--axes",
                "1",
            ],
            "empty:        the output has no element on every shape [?,..3] allows",
        ),
        # A reversal keeps the shape but is not the identity (OpenVINO PR #1177, #38240).
        (["slice", "--shape", "[2..10]", "--start", "-1", "--stop", "-100", "--step", "-1"], None),
        (["slice", "--shape", "3", "--start", "0", "--stop", "3", "--step", "1"], "identity"),
    ],
)
def test_explain_says_when_a_slicing_is_the_identity_or_empty(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str | None
) -> None:
    assert main(["explain", *argv]) == 0
    out = capsys.readouterr().out
    if line is None:
        assert "identity" not in out
        assert "empty" not in out
    else:
        assert line in out
    assert main(["explain", *argv, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (line is None) == ("algebra" not in info)
    if line is not None and ":" in line:
        # the data is a model layer's line (one writer); the text aligns its label
        label, rest = line.split(":", 1)
        assert info["algebra"] == f"{label}: {rest.lstrip()}"


def test_slice_of_a_dynamic_shape_gives_convert_s_index(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It printed the output shape alone, where convert --to numpy has an index: x[0:-4:-1]
    argv = ["explain", "slice", "--shape", "[?,4]", "--start", "-4", "--stop", "-4"]
    assert main([*argv, "--step", "-1"]) == 0
    out = capsys.readouterr().out
    assert "output shape: [..1,4]\nNumPy:        x[0:-4:-1]\n" in out
    assert "elements taken" not in out
    convert = ["convert", "--from", "slice", *argv[4:], "--step", "-1", "--to", "numpy"]
    assert main([*convert, "--shape", "[?,4]"]) == 0
    assert capsys.readouterr().out == "x[0:-4:-1]\n"


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (
            (
                "strided-slice --shape 4,6 --begin 0,5 --end 0,0 --stride 1,-1 --begin-mask 1,0 "
                "--end-mask 1,1"
            ),
            "x[:, ::-1]",
        ),
        (
            f"slice --shape 4,6 --start 0,0 --stop {2**63 - 1},{-(2**63)} --step 1,-1 --axes 0,1",
            "x[:, :1]",  # one element: step 1, as a reader takes it, not x[:, 0::-1]
        ),
    ],
)
def test_one_output_writes_a_slice_as_one_numpy_text(
    capsys: pytest.CaptureFixture[str], argv: str, text: str
) -> None:
    # The NumPy line said x[:, ::-1], --as numpy convert's x[0:4, 5::-1]; x[:, 0::-1] and
    # x[0:4, 0:1] for the Slice
    assert main(["explain", *argv.split(), "--as", "numpy"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert f"NumPy:        {text}" in lines
    assert lines[-2:] == ["numpy (NumPy basic indexing):", f"  {text}"]
    x = np.arange(24).reshape(4, 6)
    want = x[:, ::-1] if argv.startswith("strided-slice") else x[:, :1]
    np.testing.assert_array_equal(eval(text, {"x": x}), want)  # noqa: S307 - our own output


def test_slice_of_unknown_rank_gives_the_index_every_rank_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It printed the shape alone, where explain MODEL of the same layer wrote x[1:5:2]
    argv = ["explain", "slice", "--shape", "[...]", "--start", "1", "--stop", "5", "--step", "2"]
    assert main(argv) == 0
    assert capsys.readouterr().out.endswith("output shape: [...]\nNumPy:        x[1:5:2]\n")
    argv = [*argv[:4], "--start", "-3", "--stop", "-10", "--step", "-2", "--axes", "-1"]
    assert main(argv) == 0  # on sizes 1 and 2 NumPy's -3:-10:-2 is empty, OpenVINO's is not
    assert capsys.readouterr().out.endswith(
        "NumPy:        none: shape [...] allows sizes 1..2 of axis -1, where -3:-10:-2 selects 1 "
        "element(s) by OpenVINO's clamping and 0 by NumPy's; no NumPy parameters say it for "
        "every allowed size (witness: shape [1])\n"
    )


def test_slice_of_a_dynamic_shape_with_no_index_says_convert_s_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["explain", "strided-slice", "--shape", "[?]", "--begin", "-2", "--end", "0"]
    assert main([*argv, "--stride", "-2", "--end-mask", "1"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("NumPy:"))
    assert line.startswith("NumPy:        none: shape [?] allows sizes 1..1 of axis 0, where ")
    assert line.endswith("(witness: shape [1])")
    convert = ["convert", "--from", "strided-slice", *argv[4:], "--stride", "-2"]
    assert main([*convert, "--end-mask", "1", "--to", "numpy", "--shape", "[?]"]) == 1
    err = capsys.readouterr().err
    hint = "(hint: pass a static size of axis 0) "
    assert line.removeprefix("NumPy:        none: shape [?] ") in err.replace(hint, "")


I64 = np.iinfo(np.int64)
SLICES = [
    ((6,), [3], [0], [-1], None),
    ((6,), [-100], [-200], [-1], None),
    ((6,), [I64.max], [I64.min], [-2], None),
    ((6,), [I64.min], [I64.max], [4], None),
    ((2, 3, 4), [1, -1], [2, -5], [1, -2], [0, 2]),
    ((2, 3, 4), [3, 0], [0, 9], [-1, 2], [-1, -2]),
    ((5, 7), [4], [0], [-3], [1]),
    ((4, 0, 2), [0, 1], [1, 2], [1, -1], [1, 2]),
    ((3, 4), [], [], [], None),
    ((1,), [-3], [-6], [-3], None),
]


@pytest.mark.parametrize(("shape", "start", "stop", "step", "axes"), SLICES, ids=str)
def test_slice_numpy_expression_selects_what_the_operator_selects(
    shape, start, stop, step, axes
) -> None:
    info = explain_slice(PartialShape(shape), start, stop, step, axes)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    expected = dm.slice(x, start, stop, step, axes)
    got = eval(info["numpy"], {"x": x})  # noqa: S307 - our own expression, on our own array
    np.testing.assert_array_equal(got, expected)
    assert got.shape == expected.shape
    assert info["output_shape"] == str(PartialShape(expected.shape))


def test_slice_python_line_is_there_exactly_where_python_differs() -> None:
    # Every one-axis slice of sizes 0 to 4 with start and stop in -6..6, steps -3..3.
    values = range(-6, 7)
    for d, b, e, s in itertools.product(range(5), values, values, (-3, -2, -1, 1, 2, 3)):
        info = explain_slice(PartialShape([d]), [b], [e], [s])
        x = np.arange(d)
        python = x[b:e:s].tolist()
        assert (python != dm.slice(x, [b], [e], [s]).tolist()) == (info["python"] is not None)
        if info["python"] is not None:
            assert eval(info["python"], {"x": x}).tolist() == python  # noqa: S307 - ours


# -- Concat-1 ----------------------------------------------------------------------------------


def test_concat(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "concat", "--shapes", "2,3", "2,1", "--axis", "-1"]) == 0
    assert capsys.readouterr().out == (
        "Concat of 2 inputs, axis -1\n"
        "  input 0: [2,3]  -> out[:, :3]\n"
        "  input 1: [2,1]  -> out[:, 3:]\n"
        "output shape: [2,4]\n"
        "NumPy:        np.concatenate([x0, x1], axis=1)\n"
        "inverse:      dm.variadic_split(out, 1, [3, 1])\n"
        "elements by input:\n"
        "  0 0 0 1\n"
        "  0 0 0 1\n"
    )
    argv = ["explain", "concat", "--shapes", "[?,3]", "[2..4,3]", "--axis", "0", "--json"]
    assert main(argv) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["output_shape"] == "[2..,3]"
    assert info["inputs"] == [["[?,3]", "out[:x0.shape[0]]"], ["[2..4,3]", "out[x0.shape[0]:]"]]
    assert info["inverse"] is None


def test_concat_of_inputs_of_dynamic_rank_is_the_shape_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # no axis to normalise, so no NumPy line (the axis could be negative), no parts
    assert main(["explain", "concat", "--shapes", "[...]", "[...]", "--axis", "-1"]) == 0
    assert capsys.readouterr().out == (
        "Concat of 2 inputs, axis -1\n  input 0: [...]\n  input 1: [...]\noutput shape: [...]\n"
    )


@pytest.mark.parametrize(
    ("shapes", "axis"),
    [([(2, 3), (2, 1)], -1), ([(1, 2, 2), (0, 2, 2), (3, 2, 2)], 0), ([(4,)], 0)],
    ids=str,
)
def test_concat_parts_and_inverse_are_what_concat_does(shapes, axis) -> None:
    info = explain_concat([PartialShape(s) for s in shapes], axis)
    arrays = [np.full(s, k) for k, s in enumerate(shapes)]
    out = dm.concat(arrays, axis)
    assert info["output_shape"] == str(PartialShape(out.shape))
    scope = {"np": np, "dm": dm, "out": out} | {f"x{k}": a for k, a in enumerate(arrays)}
    np.testing.assert_array_equal(eval(info["numpy"], scope), out)  # noqa: S307 - ours
    for array, (_, part) in zip(arrays, info["inputs"], strict=True):
        np.testing.assert_array_equal(eval(part, scope), array)  # noqa: S307 - ours
    for array, back in zip(arrays, eval(info["inverse"], scope), strict=True):  # noqa: S307
        np.testing.assert_array_equal(back, array)


def test_slice_and_concat_errors(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "slice", "--shape", "4", "--start", "1", "--stop", "3"]
    assert main([*argv, "--step", "0"]) == 1
    assert capsys.readouterr().err == (
        "datamove: error: Slice: step[0]=0 is zero; step must be non-zero\n"
    )
    assert main([*argv, "--step", "1", "--axes", "a"]) == 1
    assert "--axes='a' must be comma-separated integers" in capsys.readouterr().err
    assert main(argv) == 2  # --step is required (Slice-8 has no default step): test_cli_convert
    err = capsys.readouterr().err
    # the usage showed [--step STEP], as if optional, above the error saying it is required
    assert " --stop STOP --step STEP " in " ".join(err.split()), err
    assert err.splitlines()[-1].startswith("datamove explain slice: error: --step is required")
    assert main(["explain", "concat", "--shapes", "2,3", "3,1", "--axis", "0"]) == 1
    assert "Concat: shapes=['[2,3]', '[3,1]'] differ in dimension 1" in capsys.readouterr().err
    assert main(["explain", "concat", "--shapes", "[]", "--axis", "0"]) == 1
    assert "are scalars; Concat needs rank 1 or more" in capsys.readouterr().err
    assert main(["explain", "concat", "--shapes", "2", "--axis", "1.5"]) == 2


def test_a_huge_concat_gets_its_parts_and_no_picture() -> None:
    tracemalloc.start()
    try:
        info = explain_concat([PartialShape([10**9]), PartialShape([5])], 0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info["inputs"] == [
        ("[1000000000]", "out[:1000000000]"),
        ("[5]", "out[1000000000:]"),
    ]
    assert info["picture"] == []
    assert peak < 1 << 20


def test_slice_of_more_axes_than_numpy_has(capsys: pytest.CaptureFixture[str]) -> None:
    ones = ",".join(["1"] * 65)
    argv = ["explain", "slice", "--shape", ones, "--start", "0", "--stop", "1", "--step", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"output shape: [{ones}]\n" in out
    assert "NumPy:        none: has rank 65, more than NumPy's limit of 64 dimensions\n" in out


@pytest.mark.parametrize(
    ("shape", "axis", "kind", "parts"),
    [
        ("[?,6]", 1, {"num_splits": 3}, ["x[:, :2]", "x[:, 2:4]", "x[:, 4:]"]),
        ("[?,2..5,6]", -1, {"lengths": [2, -1]}, ["x[:, :, :2]", "x[:, :, 2:]"]),
        ("[?,?]", 1, {"lengths": [2, 4]}, ["x[:, :2]", "x[:, 2:]"]),  # the sum fixes the axis
    ],
)
def test_split_parts_are_shown_where_every_length_on_the_axis_is_known(
    shape: str, axis: int, kind: dict[str, object], parts: list[str | None]
) -> None:
    info = explain_split(PartialShape.parse(shape), axis, **kind)  # type: ignore[arg-type]
    assert [p for _, p in info["outputs"]] == parts
    assert info["picture"] == []
    if None not in parts:  # each part is what the split takes, at sizes the shape allows
        dims = (3, 4, 6)[-(PartialShape.parse(shape).rank or 0) :]
        x = np.arange(int(np.prod(dims))).reshape(dims)
        n = kind.get("num_splits")
        want = dm.split(x, axis, n) if n else dm.variadic_split(x, axis, kind["lengths"])
        for text, w in zip(parts, want, strict=True):
            np.testing.assert_array_equal(eval(text, {"x": x}), w)  # noqa: S307


def _sizes(shape: PartialShape, axis: int) -> list[tuple[int, ...]]:
    """Shapes ``shape`` allows, of ranks 1 to 4 where its rank is unknown, sizes 0 to 12 on
    ``axis``; 3 on the other dynamic dims."""
    out = []
    for rank in [shape.rank] if shape.rank is not None else [1, 2, 3, 4]:
        if not -rank <= axis < rank:
            continue
        a = axis % rank
        dims = [None] * rank if shape.rank is None else shape.dims
        for n in range(13):
            sizes = tuple(
                n if i == a else (d.get_length() if d is not None and d.is_static else 3)
                for i, d in enumerate(dims)
            )
            if shape.rank is None or shape.compatible(PartialShape(list(sizes))):
                out.append(sizes)
    return out


@pytest.mark.parametrize(
    ("shape", "axis", "kind", "parts"),
    [
        ("[?,?,12]", 1, {"num_splits": 2}, ["x[:, :x.shape[1]//2]", "x[:, x.shape[1]//2:]"]),
        ("[?,?]", 0, {"num_splits": 2}, ["x[:x.shape[0]//2]", "x[x.shape[0]//2:]"]),
        (
            "[?,..6]",
            1,
            {"num_splits": 3},
            [
                "x[:, :x.shape[1]//3]",
                "x[:, x.shape[1]//3:x.shape[1]//3*2]",
                "x[:, x.shape[1]//3*2:]",
            ],
        ),
        ("[?,?]", 1, {"lengths": [2, -1]}, ["x[:, :2]", "x[:, 2:]"]),
        ("[?]", 0, {"lengths": [1, -1, 2, 0]}, ["x[:1]", "x[1:-2]", "x[-2:]", "x[x.shape[0]:]"]),
        ("[2,?,3,?]", 3, {"num_splits": 1}, ["x[:, :, :, :]"]),
        ("[2,?,3,?]", -3, {"lengths": [0, -1, 1]}, ["x[:, :0]", "x[:, :-1]", "x[:, -1:]"]),
        # unknown rank: counted from the back for a negative axis, the same at every rank
        ("[...]", -1, {"num_splits": 2}, ["x[..., :x.shape[-1]//2]", "x[..., x.shape[-1]//2:]"]),
        ("[...]", 1, {"lengths": [1, -1]}, ["x[:, :1]", "x[:, 1:]"]),
        ("[...]", -2, {"lengths": [3, 1]}, ["x[..., :3, :]", "x[..., 3:, :]"]),
    ],
)
def test_split_parts_on_a_dynamic_axis_are_written_with_its_size(
    shape: str, axis: int, kind: dict[str, object], parts: list[str]
) -> None:
    ps = PartialShape.parse(shape)
    info = explain_split(ps, axis, **kind)  # type: ignore[arg-type]
    assert [p for _, p in info["outputs"]] == parts
    checked = set()
    for dims in _sizes(ps, axis):
        x = np.arange(int(np.prod(dims))).reshape(dims)
        n = kind.get("num_splits")
        try:
            want = dm.split(x, axis, n) if n else dm.variadic_split(x, axis, kind["lengths"])
        except dm.ValidationError:  # a size the split refuses: no part to compare
            continue
        for text, w in zip(parts, want, strict=True):
            np.testing.assert_array_equal(eval(text, {"x": x}), w)  # noqa: S307
        checked.add(dims)
    assert len(checked) >= 2  # several sizes of the axis (or ranks, where its length is fixed)


def test_explain_split_prints_the_parts_of_a_dynamic_axis(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["explain", "split", "--shape", "[?,?,12]", "--axis", "1", "--num-splits", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1:] == [
        "  output 0: [?,?,12]  = x[:, :x.shape[1]//2]",
        "  output 1: [?,?,12]  = x[:, x.shape[1]//2:]",
    ]
    argv = ["explain", "variadic-split", "--shape", "[...]", "--axis", "-1", "--lengths", "-1,2"]
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["outputs"] == [
        ["[...]", "x[..., :-2]"],
        ["[...]", "x[..., -2:]"],
    ]
