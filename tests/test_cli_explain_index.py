"""``datamove explain EXPR``: one NumPy index, its output shape and its identity or empty proof.

On static shapes every line is checked against NumPy running the index; on dynamic shapes
the ``identity:`` and ``empty:`` lines against NumPy at the shapes the interval allows. The
``NumPy:`` line of an index is the one every ``explain`` of the same slice prints (strided-slice,
slice, an IR's layers, an ONNX node), checked against the operators at every size up to 8.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import json
import shlex
import tempfile
from pathlib import Path
from typing import Any, Final

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove.cli import main
from strategies import Interval, examples, interval_dims, shape_text
from test_cli_convert import convert
from test_dialects import numpy_indices, numpy_result, shapes

I64_MAX, I64_MIN = 2**63 - 1, -(2**63)
Shape = tuple[Interval, ...] | None  # a drawn shape: (min, max) per dim, None: any rank


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


SIZES: Final = 8  # each size of a dim from 0 to this is run (an unbounded dim's up to it)
Params = dict[str, Any]  # the index as StridedSlice's inputs and masks, and Slice-8's
Case = tuple[Shape, str, list[str], Params]
Item = tuple[Any, ...]  # ("c", start, stop, step), ("s", index), ("n",) or ("e",)


def _sizes(dim: Interval) -> range:
    lo, hi = dim
    return range(lo, (SIZES if hi is None else min(hi, SIZES)) + 1)


def index_case(shape: Shape, items: list[Item]) -> Case:
    """The index of ``items`` on ``shape``: as a NumPy expression, as StridedSlice options, and
    as the operators' parameters (Slice-8's where it only cuts, ``None`` bounds as converters
    write them), with the dims it addresses."""
    kinds = [i[0] for i in items]
    addressed = sum(k in "cs" for k in kinds)
    dims = list(shape) if shape is not None else [(0, None)] * addressed  # any size up to SIZES
    ell = kinds.index("e") if "e" in kinds else len(kinds)
    parts, begin, end, stride = [], [], [], []
    masks: dict[str, list[int]] = {m: [] for m in ("begin", "end", "shrink_axis", "new_axis")}
    masks["ellipsis"] = [int(k == "e") for k in kinds]
    slice_params: list[list[int]] = [[], [], [], []]  # start, stop, step, axes
    axis = 0
    for i, (k, *values) in enumerate(items):
        a, b, c = None, None, 1
        if k == "s":
            (a,) = values
            parts.append(str(a))
        elif k == "c":
            a, b, c = values
            parts.append(f"{'' if a is None else a}:{'' if b is None else b}:{c}")
            start = (0 if c > 0 else I64_MAX) if a is None else a
            stop = (I64_MAX if c > 0 else I64_MIN) if b is None else b
            cut = axis if i < ell else axis - addressed  # from the back after the ellipsis
            for params, v in zip(slice_params, (start, stop, c, cut), strict=True):
                params.append(v)
        else:
            parts.append("None" if k == "n" else "...")
        axis += k in "cs"
        begin.append(a or 0)
        end.append(a + 1 if k == "s" and a is not None else b or 0)
        stride.append(c)
        bits = {"begin": k == "c" and a is None, "end": k == "c" and b is None}
        for m, bit in {**bits, "shrink_axis": k == "s", "new_axis": k == "n"}.items():
            masks[m].append(int(bit))
    ints = lambda v: ",".join(map(str, v))  # noqa: E731
    options = ["--begin", ints(begin), "--end", ints(end), "--stride", ints(stride)]
    for m, bits in masks.items():
        options += [f"--{m.replace('_', '-')}-mask", ints(bits)]
    params: Params = {
        "strided_slice": (begin, end, stride, {f"{m}_mask": v for m, v in masks.items()}),
        # Slice-8 where the index only cuts, and cuts something (it has one input at least)
        "slice": slice_params if set(kinds) <= {"c", "e"} and "c" in kinds else None,
        "dims": dims,
    }
    return shape, f"x[{', '.join(parts)}]", options, params


@st.composite
def strided_indices(draw: st.DrawFn) -> Case:
    """A shape (static, interval, ``?`` dims, or of unknown rank now and then), and an index of
    cuts (any step), shrinks, new axes and one ellipsis at most: `index_case`."""
    shape: Shape = None
    if draw(st.integers(0, 9)):
        shape = tuple(draw(st.lists(interval_dims(SIZES), min_size=1, max_size=3)))
    rank = len(shape) if shape is not None else 2
    kinds = draw(st.lists(st.sampled_from("csne"), min_size=1, max_size=rank + 2))
    kinds = [k if k != "e" or kinds.index("e") == i else "n" for i, k in enumerate(kinds)]
    while sum(k in "cs" for k in kinds) > rank:
        kinds[kinds.index("s") if "s" in kinds else kinds.index("c")] = "n"
    if shape is None:
        dims = [(0, None)] * sum(k in "cs" for k in kinds)
    else:  # the dims the shrinks and cuts take, the ellipsis the others
        addressed = [i for i, k in enumerate(kinds) if k in "cs"]
        ell = kinds.index("e") if "e" in kinds else len(kinds)
        after = sum(i > ell for i in addressed)
        dims = [shape[j] for j in range(len(addressed) - after)]
        dims += [shape[len(shape) - after + j] for j in range(after)]
    # a shrink takes an element the largest size holds: on some sizes, not always on every one
    tops = iter([_sizes(d)[-1] for d in dims])
    bound = st.none() | st.integers(-7, 7)
    items: list[Item] = []
    for k in kinds:
        top = next(tops) if k in "cs" else None
        if k == "s" and top:
            items.append(("s", draw(st.integers(-top, top - 1))))
        elif k in "cs":
            step = draw(st.integers(1, 3) | st.integers(-3, -1))
            items.append(("c", draw(bound), draw(bound), step))
        else:
            items.append((k,))
    return index_case(shape, items)


def _concrete(shape: Shape, dims: list[Interval]) -> list[tuple[int, ...]]:
    """Every shape ``shape`` allows with sizes up to `SIZES` (of unknown rank: of the ranks the
    index addresses and one more)."""
    if shape is not None:
        return list(itertools.product(*(_sizes(d) for d in shape)))
    sizes = range(SIZES + 1)
    return [d for r in (len(dims), len(dims) + 1) for d in itertools.product(sizes, repeat=r)]


def _ir(path: Path, params: Params, rank: int) -> Path:
    """An IR of ``x`` (``rank`` dims of any size) through the StridedSlice of ``params`` and,
    where it has one, their Slice-8: the layers ``explain MODEL`` lists."""
    begin, end, stride, masks = params["strided_slice"]
    port = "".join("<dim>-1</dim>" for _ in range(rank))
    layers = [
        (
            f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="'
            f'{",".join("?" * rank)}" element_type="f32"/><output><port id="0" precision="FP32" '
            f'names="x">{port}</port></output></layer>'
        )
    ]
    edges: list[str] = []
    blob = b""

    def const(values: list[int]) -> int:
        nonlocal blob
        k = len(layers)
        raw = np.asarray(values, dtype="<i8").tobytes()
        layers.append(
            f'<layer id="{k}" name="c{k}" type="Const" version="opset1"><data element_type="i64" '
            f'shape="{len(values)}" offset="{len(blob)}" size="{len(raw)}"/><output><port id="0" '
            f'precision="I64"><dim>{len(values)}</dim></port></output></layer>'
        )
        blob += raw
        return k

    def op(kind: str, version: str, inputs: list[list[int]], attrs: str) -> None:
        k = len(layers)
        ins = [f'<port id="0" precision="FP32">{port}</port>']
        edges.append(
            f'<edge from-layer="0" from-port="0" to-layer="{k + len(inputs)}" to-port="0"/>'
        )
        for j, values in enumerate(inputs, 1):
            c = const(values)
            ins.append(f'<port id="{j}" precision="I64"><dim>{len(values)}</dim></port>')
            edges.append(
                f'<edge from-layer="{c}" from-port="0" to-layer="{k + len(inputs)}" to-port="{j}"/>'
            )
        k = len(layers)
        layers.append(
            f'<layer id="{k}" name="{kind}" type="{kind}" version="{version}"><data {attrs}/>'
            f'<input>{"".join(ins)}</input><output><port id="9" precision="FP32"/></output></layer>'
        )
        layers.append(
            f'<layer id="{k + 1}" name="{kind}_out" type="Result" version="opset1"><input>'
            '<port id="0" precision="FP32"/></input></layer>'
        )
        edges.append(f'<edge from-layer="{k}" from-port="9" to-layer="{k + 1}" to-port="0"/>')

    attrs = " ".join(f'{m}="{",".join(map(str, v))}"' for m, v in masks.items())
    op("StridedSlice", "opset1", [begin, end, stride], attrs)
    if params["slice"] is not None:
        op("Slice", "opset8", list(params["slice"]), "")
    xml = (
        f'<?xml version="1.0"?>\n<net name="t" version="11"><layers>{"".join(layers)}</layers>'
        f"<edges>{''.join(edges)}</edges></net>"
    )
    path.write_text(xml, encoding="utf-8")
    path.with_suffix(".bin").write_bytes(blob)
    return path


@settings(max_examples=examples(150), deadline=None)
@given(case=strided_indices())
@example(case=index_case(((2, 2), (0, None)), [("c", None, None, 1), ("c", 5, 7, 3)]))
@example(case=index_case(((2, 10),), [("c", -1, -100, -1)]))  # ::-1 on every size
@example(case=index_case(((0, None),), [("c", -2, None, -2)]))  # no NumPy index: none
@example(case=index_case(None, [("e",), ("c", 1, 5, 2)]))
@example(case=index_case(None, [("s", 3), ("c", -2, None, -1)]))  # none, NumPy's x[3, -2::-1]
def test_every_explain_of_a_slice_prints_one_numpy_text_exact_at_every_size(case: Case) -> None:
    # On [2,?] explain strided-slice and explain slice wrote x[:, 5:7:3] and explain
    # 'x[:, 5:7:3]' wrote x[:, 5:6]: on a dynamic axis the operators' own numbers, not the
    # canonical form's. One text (numpy_answer's) for each, exact at every size.
    shape, expr, options, params = case
    given_shape = shape_text(shape)
    lines = {}
    code, out, err = explain([expr, "--shape", given_shape])
    assert (code, err) == (0, ""), expr
    lines["expr"] = _numpy_line(out)
    code, out, err = explain(["strided-slice", "--shape", given_shape, *options])
    assert (code, err) == (0, ""), options
    lines["strided-slice"] = _numpy_line(out)
    if params["slice"] is not None:
        starts, stops, steps, axes = (",".join(map(str, v)) for v in params["slice"])
        argv = ["--start", starts, "--stop", stops, "--step", steps, "--axes", axes]
        code, out, err = explain(["slice", "--shape", given_shape, *argv])
        assert (code, err) == (0, ""), argv
        lines["slice"] = _numpy_line(out)
    if shape is not None:  # a model's layers (an IR's, an ONNX Slice), on the shape given
        with tempfile.TemporaryDirectory() as tmp:
            models = {"IR": _ir(Path(tmp) / "m.xml", params, len(shape))}
            if params["slice"] is not None and importlib.util.find_spec("onnx") is not None:
                import onnx_graphs  # here: it needs onnx, which may be missing

                starts, stops, steps, axes = params["slice"]
                names = [f"d{k}" for k in range(len(shape))]  # any size: --input-shape says
                onnx_slice = onnx_graphs.one_slice(names, starts, stops, axes, steps)
                models["ONNX"] = onnx_graphs.save(onnx_slice, Path(tmp))
            for kind, path in models.items():
                argv = [str(path), "--input-shape", f"x={given_shape}", "--json"]
                code, out, err = explain(argv)
                assert (code, err) == (0, ""), (kind, argv)
                layers = json.loads(out)
                want = 2 if kind == "IR" and params["slice"] is not None else 1
                assert len(layers) == want, (kind, layers)
                for info in layers:
                    numpy = info["numpy"]
                    line = numpy if numpy is not None else f"none: {info['note']}"
                    lines[f"{kind} {info['layer_type']}"] = line
    begin, end, stride, masks = params["strided_slice"]
    ops = {"strided-slice": lambda x: dm.strided_slice(x, begin, end, stride, **masks)}
    if params["slice"] is not None:
        ops["slice"] = lambda x: dm.slice(x, *params["slice"])
    agree = True  # whether the expression (NumPy's clamping) takes what the operator does
    for dims in _concrete(shape, params["dims"]):
        x = np.arange(int(np.prod(dims))).reshape(dims)
        try:
            wants = {k: f(x) for k, f in ops.items()}
        except dm.ValidationError:  # a shrink out of range at this size: NumPy raises too
            wants = None
        try:
            mine = eval(expr, {"x": x})  # noqa: S307 - the drawn index, in a test
        except IndexError:
            mine = None
        if wants is None:
            assert mine is None, (expr, dims)
        else:
            agree = agree and mine is not None and np.array_equal(mine, wants["strided-slice"])
            assert all(np.array_equal(w, wants["strided-slice"]) for w in wants.values())
            assert all(w.shape == wants["strided-slice"].shape for w in wants.values())
        for key, text in lines.items():
            if text.startswith("none:"):
                continue
            want = mine if key == "expr" else wants and wants["strided-slice"]
            try:
                got = eval(text, {"x": x})  # noqa: S307 - our own output
            except IndexError:  # where the index (or the operator) raises, and only there
                assert want is None, (key, text, dims)
                continue
            assert want is not None, (key, text, dims)
            np.testing.assert_array_equal(got, want, err_msg=f"{key}: {text} at {dims}")
            assert got.shape == want.shape, (key, text, dims)
    ops_lines = {k: v for k, v in lines.items() if k != "expr"}
    assert len(set(ops_lines.values())) == 1, (expr, ops_lines)
    if agree:  # equivalent on every size: one text for all
        assert lines["expr"] == lines["strided-slice"], (expr, lines)


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
