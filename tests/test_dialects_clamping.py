"""Cuts whose clamping rule differs from the dialect's, on dynamic and interval sizes.

A negative step whose start lies before a small axis is index 0 under OpenVINO's clamping (and
the ONNX spec's) and nothing under NumPy's (and TensorFlow's, PyTorch's). Each emitter writes a
form that selects alike on every allowed size, or refuses where none does: there, parameters in
a range around the cut's are searched under the dialect's rule, and none selects alike.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import datamove as dm
from datamove._dialects import CLAMP, NUMPY, Cut
from strategies import examples
from test_dialects import apply_ops, run_torch

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # its own import-time deprecations; the tests warn as errors
    tf = pytest.importorskip(
        "tensorflow", reason="TensorFlow (tensorflow-cpu, in the test extra) is not installed"
    )

# The parameters searched for a form that selects alike, where an emitter refuses.
_BOUNDS = [None, *range(-12, 13)]
_STEPS = [s for s in range(-12, 13) if s]


def run_tf(x: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    vectors = {k: np.array(p[k], dtype=np.int64).reshape(-1) for k in ("begin", "end", "strides")}
    masks = {k: v for k, v in p.items() if k.endswith("_mask")}
    with tf.device("/CPU:0"):
        return tf.strided_slice(tf.constant(x), **vectors, **masks).numpy()


def source(rule: str, a: int, b: int | None, c: int) -> dm.Slicing:
    if rule == NUMPY:
        return dm.Slicing.from_numpy((slice(a, b, c),))
    return dm.Slicing.from_strided_slice([a], [b or 0], [c], end_mask=[int(b is None)])


def picks(x: Cut, d: int, rule: str) -> list[int]:
    return list(x.range(d, rule))


def some_form(want: dict[int, list[int]], rules: tuple[str, ...]) -> Cut | None:
    """Parameters in the searched range that select ``want`` under each of ``rules``."""
    for a in _BOUNDS:
        for b in _BOUNDS:
            for c in _STEPS:
                y = Cut(a, b, c)
                if all(picks(y, d, r) == v for d, v in want.items() for r in rules):
                    return y
    return None


def emitted(name: str, s: dm.Slicing, shape: str, d: int) -> list[int]:
    x = np.arange(d)
    if name == "numpy":
        return np.asarray(eval(s.to_numpy(shape), {"x": x})).tolist()  # noqa: S307 - our text
    if name == "tf":
        return run_tf(x, s.to_tf(shape)).tolist()
    if name == "torch":
        return run_torch(x, s.to_torch(shape)).tolist()
    if name == "slice":
        return apply_ops(x, s.to_slice(shape)).tolist()
    assert name == "strided_slice"
    return dm.strided_slice(x, **s.to_strided_slice(shape)).tolist()


def onnx_picks(s: dm.Slicing, shape: str, d: int) -> list[list[int]]:
    """What ``to_onnx``'s Slice selects on size ``d`` under each rule (it is written for both).

    No Slice: the cut takes the whole axis on every allowed size.
    """
    ops = s.to_onnx(shape)
    if not ops:
        return [list(range(d))] * 2
    ((_, p),) = ops
    (a,), (b,), (c,) = p["starts"], p["ends"], p["steps"]
    y = Cut(a, b, c)
    return [picks(y, d, r) for r in (NUMPY, CLAMP)]


@settings(max_examples=examples(150), deadline=None)
@given(
    rule=st.sampled_from([NUMPY, CLAMP]),
    a=st.integers(-9, -2),
    b=st.none() | st.integers(-9, -2),
    c=st.integers(-4, -1),
    lo=st.integers(0, 10),
    span=st.none() | st.integers(0, 10),
)
@example(rule=CLAMP, a=-5, b=-3, c=-1, lo=0, span=None)  # x[-5:-3:-1] is x[0:-3:-1]
@example(rule=CLAMP, a=-5, b=-7, c=-3, lo=0, span=None)  # one element at most: x[-5::5]
@example(rule=NUMPY, a=-5, b=-7, c=-3, lo=0, span=None)  # NumPy's x[-5:-4] under both
@example(rule=NUMPY, a=-5, b=-3, c=-1, lo=0, span=None)  # NumPy's: empty on every size
@example(rule=CLAMP, a=-5, b=None, c=-1, lo=0, span=5)  # index 0 alone on sizes to 5
@example(rule=CLAMP, a=-3, b=-6, c=-1, lo=1, span=4)  # x[0] x[0] x[0] x[1,0] x[2,1]: refused
@example(rule=NUMPY, a=-9, b=None, c=-4, lo=0, span=None)  # two elements from size 13 on
def test_a_cut_of_the_other_rule_is_written_or_refused_where_no_form_selects_alike(
    rule: str, a: int, b: int | None, c: int, lo: int, span: int | None
) -> None:
    s = source(rule, a, b, c)
    (x,) = s.entries
    assert x.rule == rule, x
    hi = None if span is None else lo + span
    shape = f"[{lo}..{'' if hi is None else hi}]"
    # unbounded: up to a size past where two elements are taken (d + a >= -c), which the
    # emitter's refusals rest on (a form can match every size short of it)
    sizes = sorted(
        {lo, *range(lo, (max(lo + 12, -a - c + 1) if hi is None else hi) + 1)}
        | {k for k in (0, 1, 2) if k >= lo and (hi is None or k <= hi)}
    )
    want = {d: picks(x, d, rule) for d in sizes}
    others = ("numpy", "tf", "torch") if rule == CLAMP else ("slice", "strided_slice")
    for name in (*others, "onnx"):
        try:
            if name == "onnx":
                got = {d: onnx_picks(s, shape, d) for d in sizes}
                assert got == {d: [v, v] for d, v in want.items()}, (s, shape, got)
            else:
                got = {d: emitted(name, s, shape, d) for d in sizes}
                assert got == want, (name, s, shape)
        except dm.NotExpressible as exc:
            (w,) = exc.witness
            assert lo <= w
            assert hi is None or w <= hi
            assert picks(x, w, NUMPY) != picks(x, w, CLAMP)  # the two readings differ there
            rules = (NUMPY, CLAMP) if name == "onnx" else (CLAMP if rule == NUMPY else NUMPY,)
            assert some_form(want, rules) is None, (name, s, shape)


def test_a_negative_step_from_past_the_axis_to_its_stop_is_written_from_0() -> None:
    # OpenVINO's x[-5:-3:-1] is index 0 on sizes 1 and 2, else nothing: NumPy's x[0:-3:-1]
    s = dm.Slicing.from_onnx([-5], [-3], steps=[-1])
    assert s.to_numpy("[?]") == "x[0:-3:-1]"
    assert s.to_tf("[?]")["begin"] == [0]
    for d in range(6):
        x = np.arange(d)
        assert x[0:-3:-1].tolist() == s(x).tolist() == ([0] if d in (1, 2) else [])
    # NumPy's is nothing on every size; OpenVINO's index 0 on sizes 1 and 2
    t = dm.Slicing.from_numpy("x[-5:-3:-1]")
    assert dm.Slicing.from_strided_slice(**t.to_strided_slice("[?]")).to_numpy() == "x[:0]"


def test_one_element_at_most_is_written_with_a_forward_step() -> None:
    # OpenVINO's x[-5:-7:-3] takes index max(d - 5, 0) alone on every size from 1
    s = dm.Slicing.from_onnx([-5], [-7], steps=[-3])
    assert s.to_numpy("[?]") == "x[-5::5]"
    assert s.to_torch("[?]") == [("getitem", {"dim": 0, "start": -5, "stop": None, "step": 5})]
    # NumPy's takes index d - 5 from size 5: x[-5:-4] under both rules
    t = dm.Slicing.from_numpy("x[-5:-7:-3]")
    assert t.to_onnx("[?]") == [
        ("Slice", {"starts": [-5], "ends": [-4], "steps": [1], "axes": [0]})
    ]


def test_two_elements_past_the_corner_are_refused_with_its_witness() -> None:
    # OpenVINO's x[-3:-6:-1]: x[0] on sizes 1 to 3, then x[1, 0], x[2, 1, 0]: the first index
    # is 0 on two sizes and grows after; no NumPy start does that
    s = dm.Slicing.from_onnx([-3], [-6], steps=[-1])
    for emit in (s.to_numpy, s.to_tf, s.to_torch):
        with pytest.raises(dm.NotExpressible, match=r"allows sizes 1\.\.2 of axis 0") as info:
            emit("[1..5]")
        assert info.value.witness == (1,)
    assert s.to_numpy("[1..3]") == "x[-3::3]"
