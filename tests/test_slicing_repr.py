"""``repr(Slicing)`` is an evaluable, true spelling: ``eval(repr(s)) == s`` for every slicing.

A cut read under OpenVINO's clamping (StridedSlice-1, Slice-8, ONNX) printed as NumPy's text alone
read another slicing: ``Slicing.from_onnx([-5], [-3], steps=[-1])`` printed
``Slicing.from_numpy('x[-5:-3:-1]')``, which selects nothing on a size where the ONNX cut selects
``x[0]``. The repr now names the clamping where a cut needs it (docs/dialects.md, "Printing").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove as dm
from strategies import examples
from test_dialects import numpy_indices, slice_params, strided_slice_params, tf_params

SCOPE = {"Slicing": dm.Slicing}


@st.composite
def windows(draw: Any) -> tuple[list[int], list[int], list[int]]:
    """DirectML window numbers: offsets, sizes (at least 1), signed strides."""
    n = draw(st.integers(1, 3))
    offsets = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n))
    sizes = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    strides = draw(st.lists(st.integers(-3, 3).filter(bool), min_size=n, max_size=n))
    return offsets, sizes, strides


@st.composite
def read_slicings(draw: Any) -> dm.Slicing:
    """A slicing read from one dialect's numbers (or composed, or made canonical)."""
    source = draw(
        st.sampled_from(
            ["numpy", "strided_slice", "slice", "onnx", "tf", "dml", "webnn", "compose"]
        )
    )
    try:
        if source == "numpy":
            return dm.Slicing.from_numpy(draw(numpy_indices()))
        if source == "strided_slice":
            return dm.Slicing.from_strided_slice(**draw(strided_slice_params()))
        if source in ("slice", "onnx"):
            start, stop, step, axes = draw(slice_params())
            if source == "slice":
                return dm.Slicing.from_slice(start, stop, step, axes)
            return dm.Slicing.from_onnx(start, stop, axes, step)
        if source == "tf":
            return dm.Slicing.from_tf(**tf_params(draw(numpy_indices())))
        if source in ("dml", "webnn"):
            offsets, sizes, strides = draw(windows())
            if source == "dml":
                return dm.Slicing.from_dml(offsets, sizes, strides)
            return dm.Slicing.from_webnn(offsets, sizes, [abs(t) for t in strides])
        a, b = draw(read_slicings()), draw(read_slicings())
        return dm.compose(a, b, draw(st.sampled_from([None, "[?,?,?,?]", "[..9,3..,?,2..5]"])))
    except (dm.ValidationError, dm.NotExpressible):
        return dm.Slicing.from_numpy("x[::-1]")


@settings(max_examples=examples(400), deadline=None)
@given(s=read_slicings(), canonical=st.booleans())
def test_repr_evaluates_to_the_same_slicing(s: dm.Slicing, canonical: bool) -> None:
    if canonical:
        s = s.canonical()
    text = repr(s)
    assert eval(text, SCOPE) == s, text  # noqa: S307 - a repr, in the tests
    assert str(s) == text
    # the readers skip the normalising constructor (Slicing._made): their cuts are normal
    assert dm.Slicing(s.entries).entries == s.entries


def test_a_cut_read_under_openvino_clamping_prints_its_clamping() -> None:
    s = dm.Slicing.from_onnx([-5], [-3], steps=[-1])
    assert repr(s) == "Slicing.from_numpy('x[-5:-3:-1]', clamping='openvino')"
    x = np.arange(2)
    assert s(x).tolist() == [0]  # OpenVINO's clamping: the start below the axis is index 0
    assert dm.Slicing.from_numpy("x[-5:-3:-1]")(x).tolist() == []  # NumPy's: nothing
    assert repr(dm.Slicing.from_numpy("x[-5:-3:-1]")) == "Slicing.from_numpy('x[-5:-3:-1]')"
    # a cut the two rules read alike prints NumPy's text alone, whatever it was read from
    assert repr(dm.Slicing.from_onnx([1], [-1], steps=[2])) == "Slicing.from_numpy('x[1:-1:2]')"


def test_a_slicing_of_both_clampings_names_each_cuts() -> None:
    a = dm.Slicing.from_onnx([-5], [-3], steps=[-1])
    b = dm.Slicing.from_numpy("x[:, -5::-1, 1:]")
    s = dm.compose(a, b)
    text = "Slicing.from_numpy('x[-5:-3:-1, -5::-1, 1:]', clamping=['openvino', 'numpy', 'numpy'])"
    assert repr(s) == text
    assert eval(text, SCOPE) == s  # noqa: S307 - as above


@pytest.mark.parametrize(
    ("clamping", "match"),
    [
        ("onnx", "clamping='onnx' is not 'numpy' or 'openvino'"),
        (["openvino"], r"clamping=\['openvino'\] has 1 value, but the index has 2 slices"),
        (["numpy", 1], r"clamping\[1\]=1 is not 'numpy' or 'openvino'"),
        (None, "clamping=None is not 'numpy' or 'openvino'"),
        (np.array(["numpy"] * 2), r"clamping=array\(\['numpy', 'numpy'\], dtype=<U5\) is"),
    ],
)
def test_from_numpy_refuses_another_clamping(clamping: Any, match: str) -> None:
    with pytest.raises(dm.ValidationError, match=match):
        dm.Slicing.from_numpy("x[::-1, 1, 2:]", clamping=clamping)


def test_one_cut_has_one_spelling_whoever_builds_it() -> None:
    # compose built x[0:0] where from_numpy reads x[:0]: one cut, two unequal slicings, and a
    # repr that read back as the other one
    s = dm.compose("x[1:]", "x[3:1]")
    assert s == dm.Slicing.from_numpy("x[:0]")
    assert repr(s) == "Slicing.from_numpy('x[:0]')"
