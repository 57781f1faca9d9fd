"""``datamove convert`` of a split: a call (``torch.chunk(x, 3, 1)``) or ``--from split ...``.

What it prints (``--json``) is applied with the real library (NumPy, PyTorch) or read back by
``Splitting.from_*``, and must give the parts the original call gives, with NumPy and PyTorch,
on every size of the axis the shape allows (both refuse, or both give the same parts).
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import numpy as np
import pytest

import datamove as dm
from datamove.cli import main
from datamove.cli._convert import split_call

torch = pytest.importorskip("torch")


def convert(argv: list[str]) -> tuple[int, str, str]:
    """``datamove convert ARGV``: the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["convert", *argv])
    return code, out.getvalue(), err.getvalue()


def run_call(text: str, x: np.ndarray[Any, Any]) -> list[list[Any]] | None:
    """The parts the call ``text`` gives on ``x`` with its own library; None where it refuses.

    The tests' own texts, evaluated here (the command line never evaluates).
    """
    data = x if text.startswith("np.") else torch.from_numpy(x)
    try:
        parts = eval(text, {"np": np, "torch": torch, "x": data})  # noqa: S307 - our texts
    except (ValueError, RuntimeError, TypeError):
        return None
    return [np.asarray(p).tolist() for p in parts]


def apply(target: str, value: Any, x: np.ndarray[Any, Any]) -> list[list[Any]] | None:
    """The parts the emitted ``value`` gives on ``x``: run by NumPy or PyTorch, else read back."""
    try:
        if target == "numpy":
            name, params = value
            return [p.tolist() for p in getattr(np, name)(x, **params)]
        if target == "torch":
            name, params = value
            parts = getattr(torch, name)(torch.from_numpy(x), **params)  # its own keywords
            return [p.numpy().tolist() for p in parts]
        if target == "slice":
            return [
                dm.Slicing.from_slice(**params)(x).tolist()
                for ((_, params),) in value  # one Slice per part
            ]
        name, params = value
        if target == "openvino":
            s = (dm.Splitting.from_split if name == "Split" else dm.Splitting.from_variadic_split)(
                **params
            )
        elif target == "onnx":
            s = dm.Splitting.from_onnx(**params)
        else:
            assert target == "webnn"
            s = dm.Splitting.from_webnn(**params)
        return [p.tolist() for p in s(x)]
    except (ValueError, RuntimeError):
        return None


CALLS = [
    "torch.chunk(x, 3, 1)",
    "torch.split(x, 2, dim=1)",
    "torch.split(x, [1, 2, 3], 1)",
    "torch.tensor_split(x, 3, 1)",
    "torch.tensor_split(x, [1, 4], dim=1)",
    "x.chunk(4, -1)",
    "np.split(x, 2, axis=1)",
    "np.array_split(x, 4, 1)",
    "np.split(x, [2, 5], axis=-1)",
]


@pytest.mark.parametrize("shape", ["[2,6]", "[2,7]", "[?,..9]", "[2,?]"])
@pytest.mark.parametrize("target", ["numpy", "torch", "openvino", "onnx", "webnn", "slice"])
@pytest.mark.parametrize("call", CALLS)
def test_a_call_converted_splits_as_the_call(call: str, target: str, shape: str) -> None:
    code, out, err = convert([call, "--to", target, "--shape", shape, "--json"])
    ps = dm.PartialShape.parse(shape)
    sizes = [ps[1].get_length()] if ps[1].is_static else range(ps[1].max or 12)
    if code == 1:  # not expressible (a witness), or the call runs on no size the shape allows
        assert out == ""
        assert err.startswith("datamove: error: ")
        assert err.count("\n") == 1
        if "(witness: " not in err and "(hint: pass a static size of axis 1)" not in err:
            assert all(run_call(call, np.zeros((2, d))) is None for d in sizes), err
        return
    assert (code, err) == (0, "")
    value = json.loads(out)
    for d in sizes:
        x = np.arange(2 * d).reshape(2, d)
        want = run_call(call, x)
        if want is None:
            continue  # the call refuses this size: an emitter is exact where it runs
        assert apply(target, value, x) == want, (d, value)


def test_plain_output_is_the_emitters_value_as_explain_as_writes_it() -> None:
    assert convert(["torch.chunk(x, 3, 1)", "--to", "onnx", "--shape", "[?,10]"]) == (
        0,
        "Split(axis=1, outputs=3, split=[4, 4, 2])\n",
        "",
    )
    assert convert(["x.chunk(3, dim=1)", "--to", "torch"])[1] == "chunk(chunks=3, dim=1)\n"
    code, out, _ = convert(["np.split(x, 2)", "--to", "slice", "--shape", "4"])
    assert (code, out) == (
        0,
        (
            "output 0: Slice(start=[0], stop=[2], step=[1], axes=[0])\n"
            "output 1: Slice(start=[2], stop=[4], step=[1], axes=[0])\n"
        ),
    )


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("torch.chunk(x, 3, 1)", dm.Splitting.from_torch(3, 1, function="chunk")),
        (
            "torch.chunk(input=x, chunks=3, dim=-1)",
            dm.Splitting.from_torch(3, -1, function="chunk"),
        ),
        ("torch.split(t, [1, 2])", dm.Splitting.from_torch([1, 2])),
        ("x.tensor_split((1, 4), 2)", dm.Splitting.from_torch([1, 4], 2, function="tensor_split")),
        (
            "torch.tensor_split(x, sections=3, dim=1)",  # the keywords torch takes
            dm.Splitting.from_torch(3, 1, function="tensor_split"),
        ),
        (
            "x.tensor_split(indices=[1, 4])",
            dm.Splitting.from_torch([1, 4], function="tensor_split"),
        ),
        ("numpy.array_split(a, 3)", dm.Splitting.from_numpy(3, function="array_split")),
        ("np.split(x, indices_or_sections=[2], axis=1)", dm.Splitting.from_numpy([2], 1)),
        ("tf.split(x, [2, -1], 1, name='s')", dm.Splitting.from_tf([2, -1], 1)),
        ("tensorflow.split(x, 3, axis=1, num=3)", dm.Splitting.from_tf(3, 1)),
    ],
)
def test_a_call_is_read_as_its_library_s_signature(text: str, want: dm.Splitting) -> None:
    assert split_call(text) == want
    assert split_call(f"  {text}\n") == want


def test_options_give_the_same_split_as_the_api() -> None:
    def out(argv: list[str]) -> str:
        code, text, err = convert([*argv, "--to", "openvino", "--json"])
        assert (code, err) == (0, ""), err
        return text

    assert out(["--from", "split", "--axis", "1", "--num-splits", "3"]) == (
        '["Split", {"axis": 1, "num_splits": 3}]\n'
    )
    assert out(["--from", "variadic-split", "--axis", "-1", "--lengths", "2,-1"]) == (
        '["VariadicSplit", {"axis": -1, "split_lengths": [2, -1]}]\n'
    )
    assert out(["--from", "onnx-split", "--split", "2,3"]) == (
        '["VariadicSplit", {"axis": 0, "split_lengths": [2, 3]}]\n'
    )
    assert (
        convert(["--from", "onnx-split", "--num-outputs", "3", "--to", "numpy"])[0] == 1
    )  # ONNX's uneven rule: NumPy has none
    argv = ["--from", "onnx-split", "--num-outputs", "3", "--to", "numpy", "--shape", "7"]
    assert convert(argv)[1] == "split(indices_or_sections=[3, 6], axis=0)\n"


def test_not_expressible_is_one_line_with_the_size_where_it_differs() -> None:
    code, out, err = convert(["torch.chunk(x, 3)", "--to", "tf"])
    assert (code, out) == (1, "")
    assert err == (
        "datamove: error: TensorFlow: shape=None allows any size on axis 0; TensorFlow has no "
        "'chunk' rule, and the closest call split({'num_or_size_splits': 3, 'axis': 0}) refuses "
        "size 1 where this split gives (1,) (hint: pass the shape) (witness: size 1 of the split "
        "axis)\n"
    )
    assert convert(["torch.chunk(x, 3)", "--to", "tf", "--shape", "9"])[1] == (
        "split(num_or_size_splits=[3, 3, 3], axis=0)\n"
    )


def test_tf_sizes_are_int64_where_the_axis_may_pass_int32_max() -> None:
    # a list of small ints is int32 to TensorFlow, and SplitV reads the axis in the sizes' type
    argv = ["tf.split(x, [2, -1])", "--to", "tf"]
    assert convert(argv)[1] == "split(num_or_size_splits=tf.constant([2, -1], tf.int64), axis=0)\n"
    assert json.loads(convert([*argv, "--json"])[1]) == [
        "split",
        {"num_or_size_splits": [2, -1], "axis": 0},
    ]
    assert convert([*argv, "--shape", "[2..2147483647]"])[1] == (
        "split(num_or_size_splits=[2, -1], axis=0)\n"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["torch.chunk(x, 3)", "--from", "numpy"], "--from is not for a call ('torch.chunk(x, 3)"),
        (["torch.chunk(x, 3)", "--axis", "1"], "--axis is not for a call ('torch.chunk(x, 3)'):"),
        (["torch.chunk(x, 3)", "--index", "x[1]"], "--index is not for a call"),
        (["x[1]", "--axis", "1"], "--axis is not a parameter of --from numpy"),
        (["--from", "split", "--axis", "1"], "--from split needs --num-splits"),
        (["--from", "variadic-split", "--lengths", "1,2"], "--from variadic-split needs --axis"),
        (["--from", "split", "--axis", "x", "--num-splits", "2"], "invalid int value: 'x'"),
        (
            ["--from", "split", "--axis", "0", "--num-splits", "2", "--starts", "1"],
            "--starts is not a parameter of --from split (its parameters: --axis, --num-splits)",
        ),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str) -> None:
    code, out, err = convert([*argv, "--to", "numpy"])
    assert (code, out) == (2, "")
    assert err.startswith("usage: datamove convert")
    assert message in err.splitlines()[-1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["x[1:]", "--to", "openvino"], "--to openvino does not write a slicing; the dialects"),
        (["torch.chunk(x, 3)", "--to", "strided-slice", "--shape", "6"], None),  # a split's too
        (["np.split(x, 2)", "--to", "tf"], None),
    ],
)
def test_to_names_a_dialect_of_the_operation(argv: list[str], message: str | None) -> None:
    code, _, err = convert(argv)
    if message is None:
        assert code == 0
    else:
        assert code == 2
        assert message in err.splitlines()[-1]


E = "datamove: error: convert: EXPR="


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (
            "foo.bar(x, 3)",
            (
                f"{E}'foo.bar(x, 3)' calls foo.bar, which is no split datamove reads; those are "
                "numpy.split, numpy.array_split, torch.split, torch.chunk, torch.tensor_split, "
                "tf.split, x.split, x.chunk, x.tensor_split"
            ),
        ),
        ("np.chunk(x, 3)", f"{E}'np.chunk(x, 3)' calls np.chunk, which is no split"),
        ("split(x, 3)", f"{E}'split(x, 3)' calls split, which is no split"),
        ("torch.chunk(x, y)", f"{E}'torch.chunk(x, y)' passes a name as chunks; every argument"),
        (
            "torch.chunk(x, z=3)",
            (
                f"{E}'torch.chunk(x, z=3)' does not match torch.chunk(input, chunks, dim=0): "
                "missing a required argument: 'chunks'"
            ),
        ),
        ("torch.chunk(x, 3, 1, 2)", "does not match torch.chunk(input, chunks, dim=0): too many"),
        ("torch.chunk(x, 3, dim=1, dim=2)", "passes dim twice"),
        ("torch.chunk(1, 3)", f"{E}'torch.chunk(1, 3)' splits input=1; the data is a name, such"),
        (
            "torch.chunk(x, 3, __import__('os').getpid())",
            "passes __import__('os').getpid(), which is no literal (nothing is evaluated)",
        ),
        ("torch.chunk(x, *a)", "unpacks arguments (* or **); write each one"),
        ("torch.chunk(x, **a)", "unpacks arguments (* or **); write each one"),
        ("torch.chunk(x, 0)", "datamove: error: torch.chunk: chunks=0 must be at least 1"),
        ("torch.chunk(x, '3')", "datamove: error: torch.chunk: chunks='3'"),
        ("tf.split(x, [-1])", "datamove: error: tf.split: num_or_size_splits=[-1] is [-1]"),
        ("np.split(x, 2, axis=1.5)", "datamove: error: numpy.split: axis=1.5"),
        ("torch.chunk(x, 1" + "0" * 5000 + ")", None),  # Python cannot parse: not an index
    ],
)
def test_a_call_that_cannot_be_read_is_one_line_exit_1(expr: str, message: str | None) -> None:
    code, out, err = convert([expr, "--to", "numpy"])
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert (message or "datamove: error: Slicing.from_numpy: index=") in err


_ITS_FORM = "torch.tensor_split's "  # sections=/indices= of the other form
_NO_KEYWORD = "a keyword torch.tensor_split does not take (PyTorch refuses it)"


@pytest.mark.parametrize(
    ("expr", "says"),
    [
        ("torch.tensor_split(x, indices=3)", _ITS_FORM),
        ("torch.tensor_split(x, sections=[2], dim=0)", _ITS_FORM),
        ("x.tensor_split(sections=(1, 4))", _ITS_FORM),
        ("x.tensor_split(indices=2, dim=1)", _ITS_FORM),
        ("torch.tensor_split(x, indices_or_sections=3)", _NO_KEYWORD),
        ("torch.tensor_split(x, indices_or_sections=[1, 4], dim=1)", _NO_KEYWORD),
        ("x.tensor_split(indices_or_sections=(2,))", _NO_KEYWORD),
    ],
)
def test_tensor_split_keywords_of_the_other_form_are_refused_as_pytorch_refuses_them(
    expr: str, says: str
) -> None:
    # PyTorch's tensor_split takes sections= as a count and indices= as a list only: given the
    # other it raises a TypeError. The call was read as if the keyword were right
    # (indices=3 as array_split(x, 3)), so convert wrote a split PyTorch never ran. So too of
    # indices_or_sections=, the name its docs give the argument but no keyword PyTorch takes
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        eval(expr, {"torch": torch, "x": torch.zeros(2, 6)})  # noqa: S307 - our texts
    code, out, err = convert([expr, "--to", "numpy"])
    assert (code, out) == (1, "")
    assert err.count("\n") == 1
    assert says in err, err


def test_a_call_is_parsed_never_evaluated(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    expr = "torch.chunk(x, open('made', 'w').write('1'))"
    assert convert([expr, "--to", "numpy"])[0] == 1
    assert not (tmp_path / "made").exists()
