"""``datamove explain EXPR``: one NumPy index, its output shape and its identity or empty proof.

On static shapes every line is checked against NumPy running the index; on dynamic shapes
the ``identity:`` and ``empty:`` lines against NumPy at the shapes the interval allows.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import shlex
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove.cli import main
from strategies import examples
from test_cli_convert import convert
from test_dialects import numpy_indices, numpy_result, shapes


def explain(argv: list[str]) -> tuple[int, str, str]:
    """``datamove explain ARGV``: the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["explain", *argv])
    return code, out.getvalue(), err.getvalue()


def text(index: tuple[Any, ...]) -> str:
    """``index`` as written: every bound as given, nothing tidied."""

    def item(i: Any) -> str:
        if isinstance(i, slice):
            parts = ["" if v is None else str(v) for v in (i.start, i.stop, i.step)]
            return ":".join(parts)
        return "..." if i is Ellipsis else str(i)

    return f"x[{', '.join(map(item, index)) or '...'}]"  # x[] is no Python


@settings(max_examples=examples(150), deadline=None)
@given(index=numpy_indices(), shape=shapes)
def test_a_static_shape_is_explained_as_numpy_runs_it(
    index: tuple[Any, ...], shape: tuple[int, ...]
) -> None:
    expr = text(index)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    want = numpy_result(x, index)
    code, out, err = explain([expr, "--shape", ",".join(map(str, shape)) or "[]", "--json"])
    if want is None:  # NumPy raises IndexError: one line, exit 1
        assert (code, out) == (1, "")
        assert err.startswith("datamove: error: ")
        assert err.count("\n") == 1
        return
    assert (code, err) == (0, ""), expr
    info = json.loads(out)
    assert info["output_shape"] == str(dm.PartialShape(list(want.shape)))
    assert np.array_equal(eval(info["numpy"], {"x": x}), want)  # noqa: S307 - our own output
    identity = want.shape == x.shape and np.array_equal(want, x)
    assert (info.get("algebra", "").startswith("identity:")) == identity, expr
    assert (info.get("algebra", "").startswith("empty:")) == (want.size == 0 and not identity)
    if "taken" in info:
        assert info["taken"] == want.reshape(-1).tolist()


CASES = [
    ("x[::1]", "[?]"),
    ("x[::1]", "[...]"),
    ("x[...]", "[...]"),
    ("x[0:9223372036854775807, ::1]", "[?,2..10]"),
    ("x[:5]", "[..5]"),
    ("x[:5]", "[..6]"),
    ("x[::-1]", "[0..1]"),
    ("x[::-1]", "[0..2]"),
    ("x[:, -100:-200:-1]", "[?,1..99]"),
    ("x[:, -100:-200:-1]", "[?,1..100]"),
    ("x[3:]", "[..3]"),
    ("x[1:, None]", "[2..4]"),
]


@pytest.mark.parametrize(("expr", "shape"), CASES)
def test_identity_and_empty_hold_on_every_shape_allowed(expr: str, shape: str) -> None:
    code, out, err = explain([expr, "--shape", shape, "--json"])
    assert (code, err) == (0, "")
    info = json.loads(out)
    ps = dm.PartialShape.parse(shape)
    # every static shape allowed, up to rank 2 and size 12 where unbounded
    ranks = [ps.rank] if ps.rank is not None else [0, 1, 2]
    results = []
    for rank in ranks:
        dims = ps.dims if ps.rank is not None else [dm.Dimension()] * rank
        ranges = [range(d.min, (d.max if d.max is not None else 12) + 1) for d in dims]
        for dims_ in itertools.product(*ranges):
            x = np.arange(int(np.prod(dims_))).reshape(dims_)
            try:
                results.append((x, eval(expr, {"x": x})))  # noqa: S307 - our own texts
            except IndexError:
                results.append((x, None))
    identity = all(
        y is not None and y.shape == x.shape and np.array_equal(x, y) for x, y in results
    )
    empty = all(y is not None and y.size == 0 for _, y in results)
    algebra = info.get("algebra", "")
    assert algebra.startswith("identity:") == identity
    assert algebra.startswith("empty:") == (empty and not identity)
    assert info["output_shape"] == str(dm.Slicing.from_numpy(expr).infer(ps))


def test_an_expression_alone_is_explain_numpy() -> None:
    argv = ["x[0:9223372036854775807, ::1]", "--shape", "[?,2..10]"]
    code, out, err = explain(argv)
    assert (code, err) == (0, "")
    assert out == (
        "x[0:9223372036854775807, ::1] on x of shape [?,2..10]\n"
        "output shape: [?,2..10]\n"
        "NumPy:        x[...]\n"
        "identity:     the output is x unchanged on every shape [?,2..10] allows\n"
    )
    assert explain(["numpy", *argv]) == (code, out, err)


def _numpy_line(out: str) -> str:
    return (
        next(x for x in out.splitlines() if x.startswith("NumPy:")).removeprefix("NumPy:").strip()
    )


@pytest.mark.parametrize(
    ("shape", "begin", "want"),
    [
        ("[4,5]", [-1], "x[3]"),
        ("[4,5]", [-4, -1], "x[0, 4]"),
        ("[4,5]", [2, 1], "x[2, 1]"),
        # on an axis that is not static only the negative index says it for every size
        ("[?,5]", [-1, -2], "x[-1, 3]"),
        ("[2..4,5]", [-1, -2], "x[-1, 3]"),
    ],
)
def test_a_shrunk_index_is_written_as_explain_writes_the_numpy_index(
    shape: str, begin: list[int], want: str
) -> None:
    # explain strided-slice wrote x[-1] on [4,5] where explain 'x[-1]' wrote x[3]
    ints = ",".join(map(str, begin))
    expr = f"x[{', '.join(map(str, begin))}]"
    code, out, err = explain([expr, "--shape", shape])
    assert (code, err, _numpy_line(out)) == (0, "", want)
    argv = ["strided-slice", "--shape", shape, "--begin", ints, "--end", ",".join("0" * len(begin))]
    code, out, err = explain([*argv, "--shrink-axis-mask", ",".join("1" * len(begin))])
    assert (code, err, _numpy_line(out)) == (0, "", want)


@st.composite
def strided_indices(draw: st.DrawFn) -> tuple[tuple[int, ...], str, list[str]]:
    """A static shape, and an index of cuts (positive steps: NumPy's clamping and OpenVINO's
    agree), shrinks, new axes and one ellipsis at most, as a NumPy expression and as
    StridedSlice options."""
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=1, max_size=3)))
    kinds = draw(st.lists(st.sampled_from("csne"), min_size=1, max_size=len(shape) + 2))
    kinds = [k if k != "e" or kinds.index("e") == i else "n" for i, k in enumerate(kinds)]
    while sum(k in "cs" for k in kinds) > len(shape):
        kinds[kinds.index("s") if "s" in kinds else kinds.index("c")] = "n"
    ell = kinds.index("e") if "e" in kinds else len(kinds)
    parts, begin, end, stride = [], [], [], []
    masks: dict[str, list[int]] = {m: [] for m in ("begin", "end", "shrink-axis", "new-axis")}
    masks["ellipsis"] = [int(k == "e") for k in kinds]
    bound = st.none() | st.integers(-7, 7)
    axes = [sum(k in "cs" for k in kinds[:i]) for i in range(len(kinds))]
    axes = [
        a if i <= ell else a - sum(k in "cs" for k in kinds) + len(shape)
        for i, a in enumerate(axes)
    ]
    kinds = [k if k != "s" or shape[a] else "c" for k, a in zip(kinds, axes, strict=True)]
    for k, axis in zip(kinds, axes, strict=True):
        a, b, c = None, None, 1
        if k == "s":
            a = draw(st.integers(-shape[axis], shape[axis] - 1))
            parts.append(str(a))
        elif k == "c":
            a, b, c = draw(bound), draw(bound), draw(st.integers(1, 3))
            parts.append(f"{'' if a is None else a}:{'' if b is None else b}:{c}")
        else:
            parts.append("None" if k == "n" else "...")
        begin.append(a or 0)
        end.append(a + 1 if k == "s" and a is not None else b or 0)
        stride.append(c)
        bits = {"begin": k == "c" and a is None, "end": k == "c" and b is None}
        for m, bit in {**bits, "shrink-axis": k == "s", "new-axis": k == "n"}.items():
            masks[m].append(int(bit))
    ints = lambda v: ",".join(map(str, v))  # noqa: E731
    options = ["--begin", ints(begin), "--end", ints(end), "--stride", ints(stride)]
    for m, bits in masks.items():
        options += [f"--{m}-mask", ints(bits)]
    return shape, f"x[{', '.join(parts)}]", options


@settings(max_examples=examples(100), deadline=None)
@given(case=strided_indices())
def test_explain_strided_slice_and_explain_expr_print_one_numpy_text_on_a_static_shape(
    case: tuple[tuple[int, ...], str, list[str]],
) -> None:
    shape, expr, options = case
    given_shape = ",".join(map(str, shape))
    code, out, err = explain([expr, "--shape", given_shape])
    assert (code, err) == (0, "")
    code2, out2, err2 = explain(["strided-slice", "--shape", given_shape, *options])
    assert (code2, err2) == (0, "")
    text = _numpy_line(out)
    assert _numpy_line(out2) == text, (expr, options)
    x = np.arange(int(np.prod(shape))).reshape(shape)
    want = eval(expr, {"x": x})  # noqa: S307 - the drawn index, in a test
    np.testing.assert_array_equal(eval(text, {"x": x}), want)  # noqa: S307 - our own output


def test_without_a_shape_every_rank_is_allowed() -> None:
    # x[:] cannot run on a scalar, x[...] can: only the second is the identity on any shape
    assert "identity:" not in explain(["x[:]"])[1]
    assert explain(["x[...]"])[1].endswith(
        "identity:     the output is x unchanged on every shape [...] allows\n"
    )


def test_as_writes_the_index_in_other_dialects() -> None:
    code, out, _ = explain(["x[1:, ::-1]", "--shape", "[?,3]", "--as", "torch", "--json"])
    assert code == 0
    assert json.loads(out)["as"] == {
        "torch": {
            "value": [
                ["getitem", {"dim": 0, "start": 1, "stop": None, "step": 1}],
                ["flip", {"dims": [1]}],
            ]
        }
    }


def test_as_onnx_lists_the_axes_cut_and_an_index_a_size_may_hold() -> None:
    # x[1:, :, :2] on [2,3,4] listed axes [0, 1, 2], axis 1 as 0:3; x[5] on [1] was written
    # (Slice 5:6, Squeeze: onnxruntime refuses it), on [?] it still is: the runtime decides.
    code, out, _ = explain(["x[1:, :, :2]", "--shape", "2,3,4", "--as", "onnx,slice", "--json"])
    assert code == 0
    written = json.loads(out)["as"]
    assert written["onnx"]["value"] == [
        ["Slice", {"starts": [1, 0], "ends": [2, 2], "steps": [1, 1], "axes": [0, 2]}]
    ]
    assert written["slice"]["value"][0][1]["axes"] == [0, 2]
    code, out, _ = explain(["x[5]", "--shape", "[?]", "--as", "onnx"])
    assert code == 0
    assert out.endswith(
        "onnx (ONNX Slice-13, Unsqueeze, Squeeze, in order):\n"
        "  Slice(starts=[5], ends=[6], steps=[1], axes=[0])\n"
        "  Squeeze(axes=[0])\n"
    )


@pytest.mark.parametrize(
    ("shape", "sizes"),
    [("1", "has size 1 on axis 0"), ("[..3]", "allows sizes ..3 on axis 0")],
)
@pytest.mark.parametrize(
    ("dialects", "op"),
    [([], "Slicing"), (["--as", "onnx"], "ONNX Slice"), (["--as", "dml,onnx"], "DirectML SLICE1")],
)
def test_an_index_out_of_range_is_refused_as_convert_refuses_it(
    shape: str, sizes: str, dialects: list[str], op: str
) -> None:
    # explain named StridedSlice (its view of a static shape, built first) and on [..3] gave
    # infer's begin[0]=5 message; one rule, one message: convert's, naming the --as dialect.
    code, out, err = explain(["x[5]", "--shape", shape, *dialects])
    assert (code, out) == (1, "")
    on_every = "" if shape == "1" else " on every one"
    want = (
        f"{op}: shape='{dm.PartialShape.parse(shape)}' {sizes}, where index 5 of x[5] is out of "
        f"range{on_every}: it needs size 6 or more (NumPy raises IndexError)"
    )
    assert err == f"datamove: error: {want}\n"
    if dialects:
        to = dialects[1].split(",")[0]
        assert convert(["x[5]", "--shape", shape, "--to", to]) == (code, out, err)


@pytest.mark.parametrize(("dialects", "op"), [([], "Slicing"), (["--as", "onnx"], "ONNX Slice")])
def test_an_index_no_unbounded_size_holds_is_refused_as_convert_refuses_it(
    dialects: list[str], op: str
) -> None:
    # On [?] explain gave infer's "StridedSlice: begin[0]=... shrink_axis_mask[0]" message, and
    # convert wrote the index: an unbounded size holds those below 2**63 - 1, none this one.
    index = "x[9223372036854775806]"
    code, out, err = explain([index, "--shape", "?", *dialects])
    assert (code, out) == (1, "")
    assert err == (
        f"datamove: error: {op}: shape='[?]' allows any size on axis 0, where index "
        f"9223372036854775806 of {index} is out of range on every one: it needs size "
        "9223372036854775807 or more (NumPy raises IndexError) (hint: an unbounded dimension "
        "holds the sizes below 2**63 - 1)\n"
    )
    if dialects:
        assert convert([index, "--shape", "?", "--to", "onnx"]) == (code, out, err)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["x[1.5]"], "datamove: error: Slicing.from_numpy: index='1.5' is not an int, a slice"),
        (["numpy", "x[y]"], "datamove: error: Slicing.from_numpy: index='y' is not an int"),
        (["numpy", "__import__('os')"], "is not a name indexed once"),
        (
            ["x[5]", "--shape", "3"],
            (
                "datamove: error: Slicing: shape='[3]' has size 3 on axis 0, where index 5 "
                "of x[5] is out of range: it needs size 6 or more (NumPy raises IndexError)"
            ),
        ),
        (["x[1, 2]", "--shape", "[?]"], "datamove: error: Slicing: "),
        (["x[1:]", "--shape", "2,x"], "datamove: error: PartialShape: shape='2,x' is not a shape"),
    ],
)
def test_an_index_that_cannot_be_explained_is_one_line_exit_1(
    argv: list[str], message: str
) -> None:
    code, out, err = explain(argv)
    assert (code, out) == (1, "")
    assert err.startswith("datamove: error: ")
    assert message in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["numpy"], "the following arguments are required: EXPR"),
        (["x[1:]", "--as", "caffe"], "unknown dialect 'caffe'"),
        (["x[1:]", "--shpe", "3"], "unrecognized arguments: --shpe (did you mean --shape?)"),
    ],
)
def test_usage_errors_exit_2(argv: list[str], message: str) -> None:
    code, out, err = explain(argv)
    assert (code, out) == (2, "")
    assert message in err.splitlines()[-1]


@pytest.mark.parametrize("call", ["torch.chunk(x,3,1)", "np.split(x, [2], axis=1)", "x.chunk(3)"])
def test_a_library_call_is_a_usage_error_that_names_convert(call: str) -> None:
    code, out, err = explain([call, "--shape", "2,6"])
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert f"{call!r} is a call" in err
    hint = shlex.split(err.split("datamove convert ")[1].removesuffix(")\n"))
    assert hint == [call, "--to", "numpy", "--shape", "SHAPE"]
    code, out, _ = convert([*hint[:-1], "2,6"])  # the hint runs, with a shape for SHAPE
    assert code == 0
    assert out.startswith(("split(", "array_split("))


@pytest.mark.parametrize(
    ("call", "named"),
    [("x.flip(1)", "x.flip"), ("tf.strided_slice(x, [1], [2])", "tf.strided_slice")],
)
def test_a_call_convert_refuses_too_is_not_sent_to_convert(call: str, named: str) -> None:
    # The hint named `datamove convert CALL --to numpy`, which refuses these calls too: it
    # now gives convert's refusal, after the NumPy index a slicing is explained as
    code, out, err = explain([call])
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert f"{call!r} is a call" in err
    assert "datamove convert" not in err
    assert "give a slicing as a NumPy index, e.g. 'x[:, ::-1]'" in err
    assert f"calls {named}, which is no split datamove reads" in err
    assert convert([call, "--to", "numpy"])[0] == 1


def test_as_takes_the_library_names_of_dialects() -> None:
    expected = explain(["x[1:]", "--as", "torch,tf,dml"])
    assert expected[0] == 0
    assert explain(["x[1:]", "--as", "pytorch,tensorflow,directml"]) == expected
