"""``datamove convert`` and ``datamove explain ... --as``: parameters that read back exactly.

What the command line prints (``--json``) is fed back through ``Slicing.from_*`` and must be
equivalent to the input on the shape given; the PyTorch calls are run.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove.cli import main
from datamove.cli._convert import _EPILOG
from datamove.cli._dialect_text import ALIASES, translate
from datamove.ir._examples import write_example, write_onnx_example
from dialect_refs import run_dml, run_webnn
from ir_examples import write_unsound_example
from strategies import examples
from test_dialects import apply_ops, numpy_indices, run_torch, same, shapes

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def _csv(values: list[int]) -> str:
    return ",".join(map(str, values))


def _written(emit: Any, shape: tuple[int, ...]) -> Any:
    """An emitter's parameters for every shape, or where it cannot say them, for ``shape``."""
    try:
        return emit()
    except dm.NotExpressible:
        return emit(shape)


def source_argv(source: str, s: dm.Slicing, shape: tuple[int, ...]) -> list[str]:
    """``s``'s parameters on ``shape`` as ``--from source`` options (from its own emitters).

    For every shape where its emitter says them so, else for ``shape``: ``source_slicing``
    reads them back.
    """
    if source == "numpy":
        return ["--from", "numpy", "--index", _written(s.to_numpy, shape)]
    if source == "strided-slice":
        p = _written(s.to_strided_slice, shape)
        argv = ["--from", "strided-slice", "--begin", _csv(p["begin"]), "--end", _csv(p["end"])]
        argv += ["--stride", _csv(p["stride"])]
        for mask in ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask"):
            argv += ["--" + mask.replace("_", "-"), _csv(p[mask])]
        return [*argv, "--ellipsis-mask", _csv(p["ellipsis_mask"])]
    if source == "tf":
        p = _written(s.to_tf, shape)
        argv = ["--from", "tf", "--begin", _csv(p["begin"]), "--end", _csv(p["end"])]
        argv += ["--strides", _csv(p["strides"])]
        for mask in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask"):
            argv += ["--" + mask.replace("_", "-"), str(p[mask])]
        return [*argv, "--shrink-axis-mask", hex(p["shrink_axis_mask"])]
    raise AssertionError(source)


def source_slicing(argv: list[str]) -> dm.Slicing:
    """The slicing ``source_argv``'s options describe, read by the library."""
    opts = {k[2:].replace("-", "_"): v for k, v in zip(argv[::2], argv[1::2], strict=True)}
    source = opts.pop("from")
    if source == "numpy":
        return dm.Slicing.from_numpy(opts["index"])
    if source == "strided-slice":
        return dm.Slicing.from_strided_slice(
            **{k: [int(v) for v in t.split(",") if v] for k, t in opts.items()}
        )
    p = {
        k: int(t, 0) if k.endswith("_mask") else [int(v) for v in t.split(",") if v]
        for k, t in opts.items()
    }
    return dm.Slicing.from_tf(**{**p, "begin": np.int64(p["begin"])})  # read as int64


def read_back(target: str, value: Any, rank: int | None = None) -> dm.Slicing | None:
    """The slicing a target's printed value describes; ``None`` where it has Unsqueeze/Squeeze.

    A Slice's axes counted from both ends (which the emitters write for ``x[:1, ..., :1]`` and
    the parsers refuse without a rank) are read on ``rank``.
    """
    if target == "numpy":
        return dm.Slicing.from_numpy(value)
    if target == "strided-slice":
        return dm.Slicing.from_strided_slice(**value)
    if target == "tf":  # JSON has lists: read as int64, as convert --from tf reads them
        return dm.Slicing.from_tf(**{**value, "begin": np.int64(value["begin"])})
    if target in ("dml", "webnn") and len(value) == 1:  # one window, no reverse or reshape
        (op, p), read = value[0], dm.Slicing.from_dml if target == "dml" else dm.Slicing.from_webnn
        return read(**p) if op in ("SLICE1", "slice") else None
    names = {
        "onnx": ("starts", "ends", "axes", "steps"),
        "slice": ("start", "stop", "axes", "step"),
    }
    if target in names and [op for op, _ in value] == ["Slice"]:
        p = value[0][1]
        a, b, axes, c = (p[k] for k in names[target])
        if target == "onnx":
            return dm.Slicing.from_onnx(a, b, axes, c, rank=rank)
        return dm.Slicing.from_slice(a, b, c, axes, rank=rank)
    return None


def convert(argv: list[str]) -> tuple[int, str, str]:
    """``datamove convert ARGV``: the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["convert", *argv])
    return code, out.getvalue(), err.getvalue()


@settings(max_examples=examples(200), deadline=None)
@given(
    index=numpy_indices(),
    shape=shapes,
    source=st.sampled_from(["numpy", "strided-slice", "tf"]),
    target=st.sampled_from(
        ["numpy", "strided-slice", "tf", "slice", "onnx", "torch", "dml", "webnn"]
    ),
    given_shape=st.booleans(),
)
def test_printed_parameters_read_back_equivalent(
    index: tuple[Any, ...],
    shape: tuple[int, ...],
    source: str,
    target: str,
    given_shape: bool,
) -> None:
    s = dm.Slicing.from_numpy(index)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    try:
        want = s(x)
    except dm.ValidationError:
        return  # the slicing does not run on this shape
    given = source_argv(source, s, shape)
    argv = [*given, "--to", target, "--json"]
    if given_shape:
        argv += ["--shape", ",".join(map(str, shape)) or "[]"]
    code, out, err = convert(argv)
    if code == 1:  # only where no parameters of the target say it for every shape allowed
        assert err.startswith("datamove: error: ")
        assert err.count("\n") == 1
        emit = getattr(source_slicing(given), "to_" + target.replace("-", "_"))
        with pytest.raises(dm.NotExpressible):
            emit(shape if given_shape else None)
        return
    assert (code, err) == (0, "")
    assert out.count("\n") == 1  # one JSON value, on one line
    value = json.loads(out)
    if target in ("torch", "dml", "webnn"):  # run: a window may drop a size-1 axis unseen
        run = {"torch": run_torch, "dml": run_dml, "webnn": run_webnn}[target]
        assert same(run(x, [(op, p) for op, p in value]), want)
        return
    back = read_back(target, value, len(shape))
    if back is not None:  # on the shape the slicing runs on (a Slice cannot ask for a rank)
        assert back.equivalent(s, shape)
    if target in ("onnx", "slice"):
        names = ("start", "stop", "step", "axes")
        onnx = ("starts", "ends", "steps", "axes")
        ops = [
            (op, dict(zip(names, (p[k] for k in onnx), strict=True)) if op == "Slice" else p)
            if target == "onnx"
            else (op, p)
            for op, p in value
        ]
        assert same(apply_ops(x, ops), want)


@pytest.mark.parametrize(
    ("argv", "read"),
    [
        (
            ["--from", "onnx", "--starts", "-1,1", "--ends", "-5,4", "--axes", "1,0"],
            lambda: dm.Slicing.from_onnx([-1, 1], [-5, 4], [1, 0]),
        ),
        (
            ["--from", "onnx", "--starts", "-1", "--ends", str(INT64_MIN), "--steps", "-1"],
            lambda: dm.Slicing.from_onnx([-1], [INT64_MIN], steps=[-1]),
        ),
        (
            ["--from", "slice", "--start", "1,-1", "--stop", "2,-5", "--step", "1,-2"],
            lambda: dm.Slicing.from_slice([1, -1], [2, -5], [1, -2]),
        ),
        (
            ["--from", "slice", "--start", "0", "--stop", "3", "--step", "1", "--axes", "-1"],
            lambda: dm.Slicing.from_slice([0], [3], [1], [-1]),
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
@pytest.mark.parametrize("target", ["numpy", "strided-slice", "tf", "onnx", "slice"])
@pytest.mark.parametrize("shape", [None, "4,6", "[?,?]", "[2..9,8]"])
def test_slice_and_onnx_sources_read_back_equivalent(
    argv: list[str], read: Any, target: str, shape: str | None
) -> None:
    want = read()
    extra = [] if shape is None else ["--shape", shape]
    code, out, err = convert([*argv, "--to", target, "--json", *extra])
    if code == 1:
        assert "NotExpressible" not in err
        assert "witness" in err
        return
    assert (code, err) == (0, "")
    back = read_back(target, json.loads(out))
    assert back is not None
    assert back.equivalent(want, shape)


@pytest.mark.parametrize(
    ("command", "fixed"),
    [
        (
            "explain slice --shape [2,?] --start 1,-1 --stop 3,2 --json",
            "datamove explain slice --shape '[2,?]' --start 1,-1 --stop 3,2 --step 1,1 --json",
        ),
        (
            "convert --from slice --start 0 --stop 3 --axes -1 --to tf",
            "datamove convert --from slice --start 0 --stop 3 --step 1 --axes -1 --to tf",
        ),
    ],
    ids=["explain", "convert"],
)
def test_slice_8_needs_its_step_in_explain_and_convert_alike(
    command: str, fixed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # convert --from slice took steps of 1 where explain slice refused: one rule, the spec's
    # (Slice-8's step is a required input; dm.slice takes no default), the fix shown
    assert main(command.split()) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.endswith(
        f"error: --step is required: Slice-8 has no default step (with steps of 1: {fixed})"
    )
    assert main(shlex.split(fixed)[1:]) == 0


def test_plain_output_is_the_emitters_value() -> None:
    argv = ["--from", "onnx", "--starts", "1,-1", "--ends", f"{INT64_MAX},{INT64_MIN}"]
    argv += ["--steps", "1,-2"]
    assert convert([*argv, "--to", "numpy"]) == (0, "x[1:, ::-2]\n", "")
    code, out, _ = convert([*argv, "--to", "tf"])
    assert code == 0
    assert out == (
        "tf.strided_slice(x, begin=[1, 0], end=[0, 0], strides=[1, -2], begin_mask=2, end_mask=3)\n"
    )
    code, out, _ = convert([*argv, "--to", "strided-slice", "--shape", "3,4"])
    assert out == "StridedSlice(begin=[1, 3], end=[3, 0], stride=[1, -2])\n"
    code, out, _ = convert(["--from", "numpy", "--index", "x[1, None]", "--to", "onnx"])
    assert out == (
        "Slice(starts=[1], ends=[2], steps=[1], axes=[0])\nUnsqueeze(axes=[1])\nSqueeze(axes=[0])\n"
    )
    code, out, _ = convert(["--from", "numpy", "--index", "x[...]", "--to", "onnx"])
    assert out == "(no operation: x itself)\n"


def test_not_expressible_is_one_line_with_its_witness() -> None:
    argv = ["--from", "slice", "--start", "-100", "--stop", "-200", "--step", "-1", "--to", "numpy"]
    code, out, err = convert(argv)
    assert (code, out) == (1, "")
    assert err.startswith("datamove: error: NumPy: shape=None allows sizes 1..99 of axis 0")
    assert err.endswith("(witness: shape [1])\n")
    assert err.count("\n") == 1
    assert convert([*argv, "--shape", "[1..50]"]) == (0, "x[0:1]\n", "")
    assert convert([*argv, "--shape", "[100..]"])[1] == "x[-100:-200:-1]\n"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from", "onnx", "--starts", "1", "--to", "numpy"], "--from onnx needs --ends"),
        (
            ["--from", "onnx", "--starts", "1", "--ends", "2", "--begin", "1", "--to", "numpy"],
            (
                "--begin is not a parameter of --from onnx (its parameters: --starts, --ends, "
                "--axes, --steps)"
            ),
        ),
        (["--from", "numpy", "--index", "x[1]", "--to", "jax"], "invalid choice: 'jax'"),
        (["--from", "caffe", "--index", "x[1]", "--to", "numpy"], "invalid choice: 'caffe'"),
        (["--from", "numpy", "--to", "numpy"], "--from numpy needs --index"),
        (["--to", "numpy"], "--from DIALECT is required, or an expression such as"),
        (["x[1:]", "--from", "onnx", "--to", "tf"], "('x[1:]') is --from numpy --index EXPR"),
        (["x[1:]", "--index", "x[2:]", "--to", "tf"], "give it once"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str) -> None:
    code, out, err = convert(argv)
    assert (code, out) == (2, "")
    assert err.startswith("usage: datamove convert")
    assert message in err.splitlines()[-1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--from", "onnx", "--starts", "1,x", "--ends", "2"], "convert: --starts='1,x' must be"),
        (["--from", "onnx", "--starts", "1", "--ends", "2", "--steps", "0"], "steps[0]=0"),
        (["--from", "tf", "--begin", "1", "--end", "2", "--end-mask", "1.5"], "--end-mask='1.5'"),
        (["--from", "numpy", "--index", "x[1.5]"], "index='1.5'"),
        (["--from", "numpy", "--index", "__import__('os')"], "from_numpy"),
        (["--from", "numpy", "--index", "x[1]", "--shape", "2,x"], "2,x"),
        (["--from", "strided-slice", "--begin", "0", "--end", "1", "--stride", "0"], "stride"),
        (  # it was Slice 5:6 and Squeeze, which onnxruntime refuses
            ["x[5]", "--shape", "[..3]"],
            (
                "ONNX Slice: shape='[..3]' allows sizes ..3 on axis 0, where index 5 of x[5] is "
                "out of range on every one: it needs size 6 or more (NumPy raises IndexError)"
            ),
        ),
    ],
)
def test_invalid_input_is_one_line_exit_1(argv: list[str], message: str) -> None:
    code, out, err = convert([*argv, "--to", "onnx"])
    assert (code, out) == (1, "")
    assert err.startswith("datamove: error: ")
    assert err.count("\n") == 1
    assert message in err


_MIXED = ["--start", "0,1", "--stop", "1,3", "--step", "1,1", "--axes", "-2,1", "--to", "numpy"]
_UNKNOWN_RANK = (
    "Slice: axes=[-2, 1] mixes axes counted from the front and from the back, neither listing "
    "every axis up to its last; which axes they are depends on the rank, which was not given "
    "(hint: pass the data's rank (or shape), or normalise the axes for it first)"
)


@pytest.mark.parametrize(
    ("shape", "want"),
    [
        # --shape gives the rank: axis -2 is axis 0, as Slice-8 and ONNX Slice count it
        (["--shape", "[?,?]"], (0, "x[:1, 1:3]\n", "")),
        (["--shape", "2,5"], (0, "x[0:1, 1:3]\n", "")),
        ([], (1, "", f"datamove: error: {_UNKNOWN_RANK}\n")),
        (["--shape", "[...]"], (1, "", f"datamove: error: {_UNKNOWN_RANK}\n")),
        (
            ["--shape", "[?]"],
            (1, "", "datamove: error: Slice: axes[0]=-2 is out of the tensor rank range [-1, 0]\n"),
        ),
        (
            ["--shape", "[?,?,?]"],
            (1, "", "datamove: error: Slice: axes=[-2, 1] lists axis 1 twice\n"),
        ),
    ],
    ids=["[?,?]", "2,5", "no shape", "[...]", "rank 1", "rank 3"],
)
def test_axes_from_both_ends_count_from_the_back_on_the_rank_of_the_shape(
    shape: list[str], want: tuple[int, str, str]
) -> None:
    # fixed: convert refused axes=[-2, 1] on [?,?], whose rank says they are axes 0 and 1
    # (explain read them so); without a rank it refuses them as before
    assert convert(["--from", "slice", *_MIXED, *shape]) == want


def test_a_numpy_expression_alone_is_from_numpy_index() -> None:
    # The first thing a newcomer types, as `datamove compose "x[1:]" "x[::2]"` takes it.
    for target in ("onnx", "tf", "numpy"):
        long = convert(["--from", "numpy", "--index", "x[..., 1:-1:2]", "--to", target])
        assert convert(["x[..., 1:-1:2]", "--to", target]) == long
        assert long[0] == 0
    assert convert(["x[1:-1:2]", "--from", "numpy", "--to", "onnx", "--json"]) == (
        0,
        '[["Slice", {"starts": [1], "ends": [-1], "steps": [2], "axes": [0]}]]\n',
        "",
    )


def test_a_target_this_version_lacks_is_said_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(dm.Slicing, "to_dml", raising=False)
    code, out, err = convert(["--from", "numpy", "--index", "x[1:]", "--to", "dml"])
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].endswith("--to dml is not available in this version of datamove")


def test_the_help_examples_run(capsys: pytest.CaptureFixture[str]) -> None:
    text = re.sub(r"\\\n\s*", "", _EPILOG.split("\n\n")[0])
    lines = [line.strip() for line in text.splitlines()[1:]]
    assert len(lines) == 7
    for line in lines:
        assert main(shlex.split(line)[1:]) == 0, line
        assert capsys.readouterr().out


# -- explain --as ---------------------------------------------------------------------------------
ALL = "onnx,tf,torch,dml,webnn,numpy,slice,strided-slice"


def test_explain_as_writes_a_block_per_dialect(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(dm.Slicing, "to_dml", raising=False)
    monkeypatch.delattr(dm.Slicing, "to_webnn", raising=False)
    argv = ["explain", "slice", "--shape", "2,3,4", "--start", "1,-1", "--stop", "2,-5"]
    argv += ["--step", "1,-2", "--axes", "0,2", "--as", ALL]
    assert main(argv) == 0
    out = capsys.readouterr().out
    head, _, blocks = out.partition("in other dialects:\n")
    assert "NumPy:        x[1:, :, ::-2]" in head
    assert blocks == (
        "onnx (ONNX Slice-13, Unsqueeze, Squeeze, in order):\n"
        "  Slice(starts=[1, 3], ends=[2, 0], steps=[1, -2], axes=[0, 2])\n"
        "tf (tf.strided_slice):\n"
        "  tf.strided_slice(x, begin=[1, 0, 3], end=[2, 3, 0], strides=[1, 1, -2])\n"
        "torch (PyTorch calls on x, in order):\n"
        "  narrow(dim=0, start=1, length=1)\n"
        "  getitem(dim=2, start=1, stop=4, step=2)\n"
        "  flip(dims=[2])\n"
        "dml: not available in this version\n"
        "webnn: not available in this version\n"
        "numpy (NumPy basic indexing):\n"
        "  x[1:, :, ::-2]\n"  # the NumPy line; convert writes x[1:2, 0:3, 3:0:-2]
        "slice (OpenVINO Slice-8, Unsqueeze, Squeeze, in order):\n"
        "  Slice(start=[1, 3], stop=[2, 0], step=[1, -2], axes=[0, 2])\n"
        "strided-slice (OpenVINO StridedSlice-1):\n"
        "  StridedSlice(begin=[1, 0, 3], end=[2, 3, 0], stride=[1, 1, -2])\n"
    )


def test_explain_as_says_why_a_dialect_cannot_say_it(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "strided-slice", "--shape", "[?]", "--begin", "-100", "--end", "-200"]
    argv += ["--stride", "-1", "--as", "slice,numpy"]
    assert main(argv) == 0
    blocks = capsys.readouterr().out.partition("in other dialects:\n")[2].splitlines()
    assert blocks[:2] == [
        "slice (OpenVINO Slice-8, Unsqueeze, Squeeze, in order):",
        "  Slice(start=[-100], stop=[-200], step=[-1], axes=[0])",
    ]
    assert blocks[2].startswith("numpy: NumPy: shape='[?]' allows sizes 1..99 of axis 0")
    assert blocks[2].endswith("(witness: shape [1])")
    assert len(blocks) == 3
    assert main([*argv, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["as"]["slice"] == {
        "value": [["Slice", {"start": [-100], "stop": [-200], "step": [-1], "axes": [0]}]]
    }
    assert info["as"]["numpy"]["witness"] == [1]


def test_explain_as_the_printed_parameters_read_back(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["explain", "strided-slice", "--shape", "2,3,4", "--begin", "1,0,0", "--end", "0,0,2"]
    argv += ["--begin-mask", "0,1,1", "--end-mask", "1,1,0", "--as", ALL, "--json"]
    assert main(argv) == 0
    info = json.loads(capsys.readouterr().out)
    want = dm.Slicing.from_strided_slice(
        [1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0]
    )
    for target, entry in info["as"].items():
        if "error" in entry:
            assert target in ("dml", "webnn")
            continue
        back = read_back(target, entry["value"])
        if back is not None:
            assert back.equivalent(want, (2, 3, 4)), target


def test_explain_split_as(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delattr(dm.Splitting, "to_onnx", raising=False)
    argv = ["explain", "split", "--shape", "2,12", "--axis", "1", "--num-splits", "3"]
    assert main([*argv, "--as", "numpy,torch,openvino,onnx,slice"]) == 0
    blocks = capsys.readouterr().out.partition("in other dialects:\n")[2]
    assert blocks == (
        "numpy (a numpy function):\n"
        "  split(indices_or_sections=3, axis=1)\n"
        "torch (a torch function):\n"
        "  split(split_size_or_sections=[4, 4, 4], dim=1)\n"
        "openvino (OpenVINO Split-1 or VariadicSplit-1):\n"
        "  Split(axis=1, num_splits=3)\n"
        "onnx: not available in this version\n"
        "slice (each part as OpenVINO Slice-8, in order):\n"
        "  output 0: Slice(start=[0], stop=[4], step=[1], axes=[1])\n"
        "  output 1: Slice(start=[4], stop=[8], step=[1], axes=[1])\n"
        "  output 2: Slice(start=[8], stop=[12], step=[1], axes=[1])\n"
    )
    argv = ["explain", "variadic-split", "--shape", "[2,?]", "--axis", "1", "--lengths", "-1,2"]
    assert main([*argv, "--as", "openvino,torch"]) == 0
    blocks = capsys.readouterr().out.partition("in other dialects:\n")[2].splitlines()
    assert blocks[:2] == [
        "openvino (OpenVINO Split-1 or VariadicSplit-1):",
        "  VariadicSplit(axis=1, split_lengths=[-1, 2])",
    ]
    assert blocks[2].startswith("torch: PyTorch: shape='[2,?]'")
    assert blocks[2].endswith("(witness: size 0 of the split axis)")


def test_explain_split_as_tf_writes_tf_split(capsys: pytest.CaptureFixture[str]) -> None:
    # "tf: not available in this version": SPLIT_DIALECTS named Splitting.to_tf, which was missing
    argv = ["explain", "variadic-split", "--shape", "[2,?]", "--axis", "1", "--lengths", "2,-1"]
    assert main([*argv, "--as", "tf"]) == 0
    blocks = capsys.readouterr().out.partition("in other dialects:\n")[2]
    assert blocks == (  # int64: on sizes past INT32_MAX TensorFlow would read int32 sizes wrapped
        "tf (a TensorFlow function):\n"
        "  split(num_or_size_splits=tf.constant([2, -1], tf.int64), axis=1)\n"
    )
    argv = ["explain", "split", "--shape", "[2,3..6]", "--axis", "1", "--num-splits", "3"]
    assert main([*argv, "--as", "tf", "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)["as"]["tf"]
    assert entry == {"value": ["split", {"num_or_size_splits": 3, "axis": 1}]}
    assert dm.Splitting.from_tf(**entry["value"][1]) == dm.Splitting.from_split(1, 3)


def test_explain_split_as_says_which_side_refuses_the_witness(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Split refuses size 1 into 2 parts; ONNX's and PyTorch's closest calls give (1, 0)
    argv = ["explain", "split", "--shape", "[...]", "--axis", "1", "--num-splits", "2"]
    assert main([*argv, "--as", "onnx,torch"]) == 0
    blocks = capsys.readouterr().out.partition("in other dialects:\n")[2].splitlines()
    assert len(blocks) == 2
    for line in blocks:
        assert "None" not in line
        assert "splits size 1 into (1, 0) where this split refuses it" in line
        assert line.endswith("(witness: size 1 of the split axis)")


@pytest.mark.parametrize(
    ("argv", "valid"),
    [
        (["slice", "--shape", "2", "--start", "0", "--stop", "1", "--step", "1"], ALL),
        (["split", "--shape", "2", "--axis", "0", "--num-splits", "2"], "openvino"),
    ],
)
def test_explain_as_an_unknown_dialect_is_a_usage_error(
    argv: list[str], valid: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", *argv, "--as", "numpy,jax"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert "argument --as: unknown dialect 'jax'; the dialects are numpy, " in err
    assert all(name in err for name in valid.split(","))


def test_negative_lists_are_values(capsys: pytest.CaptureFixture[str]) -> None:
    # argparse takes "-5,2" for an option unless told otherwise
    argv = ["explain", "variadic-split", "--shape", "5", "--axis", "-1", "--lengths", "-1,2"]
    assert main(argv) == 0
    assert "output 1: [2]  = x[3:]" in capsys.readouterr().out
    argv = ["explain", "slice", "--shape", "-1,3", "--start", "-2,0", "--stop", "-1,3"]
    assert main([*argv, "--step", "1,1"]) == 0
    assert "output shape: [..1,3]" in capsys.readouterr().out


def test_explain_model_as_writes_each_layer(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_example(tmp_path)
    write_unsound_example(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["explain", "example.xml", "--as", "openvino,numpy,strided-slice"]) == 0
    assert capsys.readouterr().out.splitlines()[3:] == [
        "  in other dialects:",
        "    openvino (OpenVINO Split-1 or VariadicSplit-1):",
        "      VariadicSplit(axis=1, split_lengths=[2, -1])",
        "    numpy (a numpy function):",
        "      split(indices_or_sections=[2], axis=1)",
        "    strided-slice (each part as OpenVINO StridedSlice-1):",
        "      output 0: StridedSlice(begin=[0, 0], end=[2, 2], stride=[1, 1])",
        "      output 1: StridedSlice(begin=[0, 2], end=[2, 6], stride=[1, 1])",
    ]
    assert main(["explain", "unsound.xml", "--as", "openvino,slice,numpy", "--json"]) == 0
    (layer,) = json.loads(capsys.readouterr().out)
    assert layer["as"]["openvino"]["error"].startswith("not a dialect of this operation")
    # x[-5:-3:-1] on [?], declared [0] by OpenVINO as it is (S-6): x[0:-3:-1] selects alike
    # on every size, and OpenVINO declares it [?]
    assert layer["as"]["slice"]["value"] == [
        ["Slice", {"start": [0], "stop": [-3], "step": [-1], "axes": [0]}]
    ]
    # NumPy's x[0:-3:-1] selects alike too (it was refused, witness [1])
    assert layer["as"]["numpy"]["value"] == "x[0:-3:-1]"
    # A layer's shape is the model's, which explain takes no option to change: no hint to pass
    # one ("(hint: pass a static size of axis 0)") on a cut still refused.
    refused = dm.Slicing.from_onnx([-3], [-6], steps=[-1])  # x[0] x[0] x[0] x[1, 0] ...
    (numpy,) = translate(refused, ["numpy"], "[?]", shape_hints=False).values()
    assert numpy["witness"] == (1,)
    assert numpy["error"].endswith("for every allowed size")
    assert main(["explain", "example.xml", "--as", "caffe"]) == 2
    assert "unknown dialect 'caffe'" in capsys.readouterr().err


def test_explain_onnx_model_as_reads_its_nodes_as_onnx(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pytest.importorskip("onnx")
    path = write_onnx_example(tmp_path)
    assert main(["explain", str(path), "--as", "onnx,openvino", "--json"]) == 0
    cut, parts, join = json.loads(capsys.readouterr().out)
    assert join["as"]["onnx"]["error"].startswith("Concat: layer='3' joins its inputs")
    ((op, p),) = cut["as"]["onnx"]["value"]
    assert op == "Slice"
    back = dm.Slicing.from_onnx(p["starts"], p["ends"], p["axes"], p["steps"])
    assert back.equivalent(dm.Slicing.from_numpy(cut["numpy"]), (2, 6))
    assert parts["as"]["onnx"]["value"] == ["Split", {"axis": 1, "outputs": 2, "split": [2, 4]}]
    assert parts["as"]["openvino"]["value"] == [
        "VariadicSplit",
        {"axis": 1, "split_lengths": [2, 4]},
    ]
    assert cut["as"]["openvino"]["error"].startswith("not a dialect of this operation")


@pytest.mark.parametrize("command", ["convert", "explain"])
def test_a_bit_field_for_a_strided_slice_mask_is_shown_as_its_list(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # --begin-mask 6 (TensorFlow's form) said "begin_mask=[6] holds 6 at index 0; all masks of
    # StridedSlice must be 0 or 1", without the list it stands for
    args = ["--begin", "0,0,0", "--end", "1,1,1", "--begin-mask", "6"]
    if command == "convert":
        argv = ["convert", "--from", "strided-slice", *args, "--to", "numpy"]
    else:
        argv = ["explain", "strided-slice", "--shape", "2,3,4", *args]
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        f"datamove: error: {command}: --begin-mask='6' is a list of 0/1, one per index of "
        "begin, not TensorFlow's bit field (hint: the bit field 6 is --begin-mask 0,1,1)\n"
    )
    argv[argv.index("6")] = "0,1,1"
    assert main(argv) == 0


def test_a_list_for_a_tf_mask_is_shown_as_its_bit_field(capsys: pytest.CaptureFixture[str]) -> None:
    # the converse of the above: --from tf --begin-mask 0,1,1 said only "must be an int bit field"
    argv = ["convert", "--from", "tf", "--begin", "0,0,0", "--end", "1,1,1", "--to", "numpy"]
    assert main([*argv, "--begin-mask", "0,1,1"]) == 1
    assert capsys.readouterr().err == (
        "datamove: error: convert: --begin-mask='0,1,1' must be an int bit field, e.g. 6 or 0b110 "
        "(hint: the list 0,1,1 is --begin-mask 6)\n"
    )
    assert main([*argv, "--begin-mask", "6"]) == 0
    assert main([*argv, "--begin-mask", "0,2"]) == 1  # not a list of 0/1: no hint
    assert capsys.readouterr().err.endswith("e.g. 6 or 0b110\n")


def test_tf_indices_past_int32_are_written_and_read_as_int64() -> None:
    # TensorFlow reads a pasted list of small ints as int32, and end and strides in begin's
    # type, wrapping: [0], [2**32 + 3] would read the end 3 (docs/dialects.md).
    code, out, err = convert(["x[:4294967299]", "--to", "tf"])
    assert (code, err) == (0, "")
    assert out == (
        "tf.strided_slice(x, begin=tf.constant([0], tf.int64), end=tf.constant([4294967299], "
        "tf.int64), strides=tf.constant([1], tf.int64), begin_mask=1)\n"
    )
    code, out, _ = convert(["x[:4294967299]", "--to", "tf", "--json"])
    assert json.loads(out)["end"] == [4294967299]
    code, out, err = convert(
        ["--from", "tf", "--begin", "0", "--end", "4294967299", "--to", "numpy"]
    )
    assert (code, out, err) == (0, "x[:4294967299]\n", "")
    assert convert(["x[:5]", "--to", "tf"])[1] == (
        "tf.strided_slice(x, begin=[0], end=[5], strides=[1], begin_mask=1)\n"
    )


@pytest.mark.parametrize(
    ("argv", "alias"),
    [
        (["x[1:, ::-1]", "--to", "tf"], "tensorflow"),
        (["x[1:, ::-1]", "--to", "torch"], "pytorch"),
        (["torch.chunk(x, 3, 1)", "--shape", "[2,6]", "--to", "dml"], "directml"),
        (
            ["--from", "tf", "--begin", "1", "--end", "0", "--end-mask", "1", "--to", "onnx"],
            "tensorflow",
        ),
    ],
)
def test_a_library_name_is_an_alias_of_its_dialect(argv: list[str], alias: str) -> None:
    name = ALIASES[alias]
    expected = convert(argv)
    assert expected[0] == 0
    assert convert([alias if a == name else a for a in argv]) == expected


@pytest.mark.parametrize("name", ["torch", "pytorch"])
def test_from_torch_says_how_pytorch_is_given(name: str) -> None:
    code, out, err = convert(["--from", name, "--begin", "1", "--to", "numpy"])
    assert (code, out) == (2, "")
    assert err.splitlines()[-1].endswith(
        "argument --from: PyTorch's slicing is a NumPy index, its split a call: give either as "
        "EXPR, e.g. 'x[1:, ::-1]' or 'torch.chunk(x, 3, 1)', without --from"
    )
