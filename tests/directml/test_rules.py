"""Every checklist rule (T1-T12, S1-S10, J1-J8) has a failing case here, pinned by its id."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import datamove
import datamove.directml as dml
from datamove.directml import JoinDesc, SplitDesc, TensorDesc, ValidationOptions, _desc, _rules
from datamove.directml._buffers import check_distinct
from strategies import examples

F32 = "FLOAT32"


def t(sizes, data_type=F32, **kwargs):
    return TensorDesc(data_type, sizes, **kwargs)


def spec_split(**changes):
    """The spec's example 1 (axis 2 of [1, 1, 6, 2] into 2 + 1 + 3), with changes."""
    fields = {
        "input": t([1, 1, 6, 2]),
        "outputs": [t([1, 1, 2, 2]), t([1, 1, 1, 2]), t([1, 1, 3, 2])],
        "axis": 2,
    }
    fields.update(changes)
    return SplitDesc(**fields)


def spec_join(**changes):
    fields = {
        "inputs": [t([1, 1, 2, 2]), t([1, 1, 1, 2]), t([1, 1, 3, 2])],
        "output": t([1, 1, 6, 2]),
        "axis": 2,
    }
    fields.update(changes)
    return JoinDesc(**fields)


def found(desc, level="4_1", **options):
    return [(v.rule, v.path) for v in desc.violations(level, options=ValidationOptions(**options))]


def test_spec_examples_are_valid_at_every_level():
    for level in dml.FeatureLevel:
        assert spec_split().violations(level) == []
        assert spec_join().violations(level) == []
    example2 = SplitDesc(t([1, 1, 6, 2]), [t([1, 1, 6, 1]), t([1, 1, 6, 1])], axis=3)
    example2.validate("1_0")


INPUT_T_CASES = [
    pytest.param({"tensor_type": "INVALID"}, [("T1", "input.tensor_type")], id="T1 type invalid"),
    pytest.param({"flags": 2}, [("T3", "input.flags")], id="T3 unknown flag bit"),
    pytest.param({"strides": [12, 2, 1]}, [("T6", "input.strides")], id="T6 strides length"),
    pytest.param(
        {"total_tensor_size_in_bytes": 44},
        [("T7", "input.total_tensor_size_in_bytes")],
        id="T7 too small",
    ),
    pytest.param(
        {"guaranteed_base_offset_alignment": 24},
        [("T9", "input.guaranteed_base_offset_alignment")],
        id="T9 not a power of two",
    ),
    pytest.param(
        {"guaranteed_base_offset_alignment": 2},
        [("T9", "input.guaranteed_base_offset_alignment")],
        id="T9 below the element size",
    ),
    pytest.param(
        {"total_tensor_size_in_bytes": 50},
        [("T11", "input.total_tensor_size_in_bytes")],
        id="T11 not DWORD",
    ),
]


@pytest.mark.parametrize(("changes", "expected"), INPUT_T_CASES)
def test_tensor_rules_on_the_input(changes, expected):
    assert found(spec_split(input=t([1, 1, 6, 2], **changes))) == expected


def test_T2_unknown_type_is_never_valid():
    desc = spec_split(input=t([1, 1, 6, 2], "UNKNOWN"))
    assert ("T2", "input.data_type") in found(desc)
    assert ("T2", "input.data_type") in found(desc, level=None)


def test_T2_types_that_do_not_exist_yet():
    int4 = SplitDesc(t([4], "INT4"), [t([2], "INT4"), t([2], "INT4")], 0)
    assert ("T2", "input.data_type") in found(int4, "6_2")
    assert ("T2", "input.data_type") not in found(int4, "6_3")
    f64 = SplitDesc(t([1, 1, 1, 4], "FLOAT64"), [t([1, 1, 1, 4], "FLOAT64")], 3)
    assert ("T2", "input.data_type") in found(f64, "2_1")
    assert ("T2", "input.data_type") not in found(f64, "3_0")


def test_T4_rank_bounds():
    assert ("T4", "input.sizes") in found(SplitDesc(t([]), [t([])], 0))
    nine = [1] * 9
    assert found(SplitDesc(t(nine), [t(nine)], 0), level=None) == [
        ("T4", "input.rank"),
        ("T4", "outputs[0].rank"),
    ]
    six = [1] * 6
    assert ("T4", "input.rank") in found(SplitDesc(t(six), [t(six)], 0), "2_1")
    assert ("T4", "input.rank") not in found(SplitDesc(t(six), [t(six)], 0), "3_0")


def test_T5_zero_size_off_the_axis():
    desc = spec_split(outputs=[t([1, 0, 2, 2]), t([1, 1, 4, 2])])
    assert found(desc) == [("S4", "outputs[0].sizes[1]"), ("T5", "outputs[0].sizes[1]")]


def test_T8_element_limit_both_readings():
    # the last element lies past 2**32 - 1 (and so does the default total size)
    far = t([2, 2], strides=[2**32 - 2, 1])
    desc = SplitDesc(far, [t([1, 2]), t([1, 2])], 0)
    assert found(desc, level=None) == [
        ("T8", "input.sizes"),
        ("T8", "input.total_tensor_size_in_bytes"),
    ]
    assert found(desc, level=None, element_limit="last_element") == [("T8", "input.sizes")]
    # a packed tensor in an oversized buffer breaks only the total-size reading
    roomy = t([1, 4], total_tensor_size_in_bytes=2**34)
    desc = SplitDesc(roomy, [t([1, 2]), t([1, 2])], 1)
    assert found(desc, level=None) == [("T8", "input.total_tensor_size_in_bytes")]
    assert found(desc, level=None, element_limit="last_element") == []
    assert found(desc, level=None, element_limit="total_size") == [
        ("T8", "input.total_tensor_size_in_bytes")
    ]


def test_T11_is_a_switch():
    desc = spec_split(input=t([1, 1, 6, 2], total_tensor_size_in_bytes=50))
    assert found(desc, dword_aligned_total_size=False) == []


def test_T12_output_aliasing_rejected_input_broadcast_allowed():
    broadcast = t([1, 1, 6, 2], strides=[0, 0, 0, 1])
    assert found(spec_split(input=broadcast)) == []
    desc = spec_split(outputs=[t([1, 1, 2, 2], strides=[0, 0, 0, 1]), t([1, 1, 4, 2])])
    assert found(desc) == [("T12", "outputs[0].strides")]
    assert found(desc, reject_output_aliasing=False) == []
    # interleaved but distinct addresses are fine; overlapping windows are not
    assert found(spec_split(outputs=[t([1, 1, 3, 2], strides=[0, 0, 2, 3]), t([1, 1, 3, 2])])) == []
    overlapping = spec_split(outputs=[t([1, 1, 3, 2], strides=[0, 0, 1, 1]), t([1, 1, 3, 2])])
    assert found(overlapping) == [("T12", "outputs[0].strides")]


def test_T12_on_the_join_output():
    desc = spec_join(output=t([1, 1, 6, 2], strides=[0, 0, 1, 1]))
    assert found(desc) == [("T12", "output.strides")]


SPLIT_CASES = [
    pytest.param({"outputs": []}, [("S1", "outputs")], id="S1 no outputs"),
    pytest.param(
        {"outputs": [t([1, 1, 2, 2], "FLOAT16"), t([1, 1, 4, 2])]},
        [("S2", "outputs[0].data_type")],
        id="S2 data type",
    ),
    pytest.param(
        {"outputs": [t([1, 2, 2]), t([1, 1, 4, 2])]}, [("S2", "outputs[0].rank")], id="S2 rank"
    ),
    pytest.param({"axis": 4}, [("S3", "axis")], id="S3 axis past rank"),
    pytest.param({"axis": -2}, [("S3", "axis")], id="S3 negative axis"),
    pytest.param(
        {"outputs": [t([1, 1, 2, 3]), t([1, 1, 4, 2])]},
        [("S4", "outputs[0].sizes[3]")],
        id="S4 off-axis",
    ),
    pytest.param(
        {"outputs": [t([1, 1, 2, 2]), t([1, 1, 3, 2])]},
        [("S5", "outputs[*].sizes[2]")],
        id="S5 sum",
    ),
    pytest.param(
        {"outputs": [t([1, 1, 0, 2]), t([1, 1, 6, 2])]},
        [("S6", "outputs[0].sizes[2]")],
        id="S6 empty chunk",
    ),
    pytest.param(
        {"outputs": [t([1, 1, 6, 2], flags="OWNED_BY_DML")]},
        [("S8", "outputs[0].flags")],
        id="S8 owned output",
    ),
]


@pytest.mark.parametrize(("changes", "expected"), SPLIT_CASES)
def test_split_rules(changes, expected):
    assert found(spec_split(**changes)) == expected
    with pytest.raises(dml.DirectMLValidationError) as info:
        spec_split(**changes).validate("4_1")
    assert [(v.rule, v.path) for v in info.value.violations] == expected


def test_S7_feature_level_table():
    int8 = SplitDesc(t([1, 1, 1, 2], "INT8"), [t([1, 1, 1, 2], "INT8")], 3)
    assert found(int8, "1_0") == [("S7", "input.data_type"), ("S7", "outputs[0].data_type")]
    assert found(int8, "2_1") == []
    rank3 = SplitDesc(t([1, 6, 2]), [t([1, 6, 2])], 1)
    assert found(rank3, "2_1") == [("S7", "input.rank"), ("S7", "outputs[0].rank")]
    assert found(rank3, "3_0") == []


def test_S8_owned_by_dml_is_fine_on_the_input():
    assert found(spec_split(input=t([1, 1, 6, 2], flags="OWNED_BY_DML"))) == []


JOIN_CASES = [
    pytest.param({"inputs": []}, [("J1", "inputs")], id="J1 no inputs"),
    pytest.param(
        {"inputs": [t([1, 1, 2, 2], "INT32"), t([1, 1, 4, 2])]},
        [("J2", "inputs[0].data_type")],
        id="J2 type",
    ),
    pytest.param(
        {"inputs": [t([1, 2, 2]), t([1, 1, 4, 2])]}, [("J2", "inputs[0].rank")], id="J2 rank"
    ),
    pytest.param({"axis": 7}, [("J3", "axis")], id="J3 axis"),
    pytest.param(
        {"inputs": [t([1, 2, 2, 2]), t([1, 1, 4, 2])]},
        [("J4", "inputs[0].sizes[1]")],
        id="J4 off-axis",
    ),
    pytest.param({"inputs": [t([1, 1, 2, 2])]}, [("J4", "inputs[*].sizes[2]")], id="J4 sum"),
    pytest.param(
        {"inputs": [t([1, 1, 0, 2]), t([1, 1, 6, 2])]},
        [("J5", "inputs[0].sizes[2]")],
        id="J5 empty input",
    ),
    pytest.param(
        {"output": t([1, 1, 6, 2], flags="OWNED_BY_DML")},
        [("J7", "output.flags")],
        id="J7 owned output",
    ),
]


@pytest.mark.parametrize(("changes", "expected"), JOIN_CASES)
def test_join_rules(changes, expected):
    assert found(spec_join(**changes)) == expected


def test_J6_feature_level_table_and_the_3_1_switch():
    rank5 = JoinDesc([t([1, 1, 1, 1, 2])] * 2, t([1, 1, 1, 1, 4]), 4)
    assert found(rank5, "2_1") == [
        ("J6", "output.rank"),
        ("J6", "inputs[0].rank"),
        ("J6", "inputs[1].rank"),
    ]
    assert found(rank5, "3_0") == []
    rank6 = JoinDesc([t([1] * 5 + [2])] * 2, t([1] * 5 + [4]), 5)
    assert found(rank6, "3_1") == [
        ("J6", "output.rank"),
        ("J6", "inputs[0].rank"),
        ("J6", "inputs[1].rank"),
    ]
    assert found(rank6, "3_1", join_rank_at_3_1="history") == []
    assert found(rank6, "4_0", join_rank_at_3_1="history") == []
    assert found(rank6, "4_1") == []
    # split has no such conflict: rank 6 is fine from 3_0
    assert found(SplitDesc(t([1] * 5 + [4]), [t([1] * 5 + [2])] * 2, 5), "3_0") == []


def test_J7_owned_by_dml_is_fine_on_inputs():
    assert found(spec_join(inputs=[t([1, 1, 6, 2], flags=1)])) == []


def test_every_violation_at_once_with_paths_and_message():
    desc = SplitDesc(
        t([1, 1, 6, 2], flags=2),
        [t([1, 1, 2, 3], "INT8"), t([1, 1, 0, 2], flags="OWNED_BY_DML"), t([1, 1, 3, 2])],
        2,
    )
    with pytest.raises(dml.DirectMLValidationError) as info:
        desc.validate("1_0")
    err = info.value
    assert [(v.rule, v.path) for v in err.violations] == [
        ("T3", "input.flags"),
        ("S2", "outputs[0].data_type"),
        ("S4", "outputs[0].sizes[3]"),
        ("S7", "outputs[0].data_type"),
        ("S6", "outputs[1].sizes[2]"),
        ("S8", "outputs[1].flags"),
        ("S5", "outputs[*].sizes[2]"),
    ]
    text = str(err)
    assert (
        text.splitlines()[0] == "DML_SPLIT: 7 violations of DirectML's rules at feature level 1_0"
    )
    assert "  [S4] outputs[0].sizes[3]=3 must equal input.sizes[3]=2 (all but the axis)" in text
    assert "  [S5] outputs[*].sizes[2]=[2, 0, 3] sum to 5, but input.sizes[2] is 6" in text
    assert isinstance(err, datamove.ValidationError)
    assert err.argument == "input.flags"


def test_validation_result_does_not_leak_between_options():
    desc = spec_split(input=t([1, 1, 6, 2], total_tensor_size_in_bytes=50))
    for _ in range(2):
        assert found(desc, dword_aligned_total_size=False) == []
        assert found(desc) == [("T11", "input.total_tensor_size_in_bytes")]


@pytest.mark.parametrize(
    ("build", "error"),
    [
        pytest.param(
            lambda: SplitDesc("x", [], 0), datamove.DTypeError, id="input not a TensorDesc"
        ),
        pytest.param(
            lambda: SplitDesc(t([2]), t([2]), 0), datamove.DTypeError, id="outputs not a sequence"
        ),
        pytest.param(
            lambda: SplitDesc(t([2]), [t([2])], 0.0), datamove.DTypeError, id="float axis"
        ),
        pytest.param(lambda: JoinDesc([t([2])], t([2]), True), datamove.DTypeError, id="bool axis"),
        pytest.param(
            lambda: ValidationOptions(element_limit="some"),
            datamove.ValidationError,
            id="bad option",
        ),
    ],
)
def test_python_argument_errors(build, error):
    with pytest.raises(error):
        build()


def test_S10_overlapping_output_buffers():
    desc = SplitDesc(t([4]), [t([2]), t([2])], 0)
    shared = np.zeros(12, np.uint8)
    with pytest.raises(dml.DirectMLValidationError) as info:
        dml.run_split(desc, np.arange(4, dtype=np.float32), outputs=[shared[:8], shared[4:]])
    assert [(v.rule, v.path) for v in info.value.violations] == [("S10", "outputs[1]")]


@settings(max_examples=examples(200), deadline=None)
@given(
    spans=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 12)), min_size=0, max_size=9),
    n_written=st.integers(0, 9),
)
def test_S10_reports_what_a_pairwise_test_reports(spans, n_written):
    """The sweep over byte ranges finds every overlapping pair, in the pairwise order."""
    memory = np.zeros(64, np.uint8)
    buffers = [(f"b{k}", memory[at : at + size]) for k, (at, size) in enumerate(spans)]
    written, read = buffers[:n_written], buffers[n_written:]
    found: list = []
    check_distinct(written, read, found)
    want = [
        (name, f"overlaps {other}; DirectML's results are undefined then")
        for i, (name, buffer) in enumerate(written)
        for other, o in [*written[:i], *read]
        if np.shares_memory(buffer, o)
    ]
    assert [(v.path, v.message) for v in found] == want


def test_S10_stays_fast_with_thousands_of_outputs():
    """2,000 outputs side by side: one sweep, not every pair (1.3 s before)."""
    desc = SplitDesc(t([2000]), [t([1])] * 2000, 0)
    memory = np.zeros(2000 * 4, np.uint8)
    outputs = [memory[4 * k : 4 * k + 4] for k in range(2000)]
    dml.run_split(desc, np.arange(2000, dtype=np.float32), outputs=outputs)
    assert memory.view(np.float32).tolist() == list(range(2000))


def test_T10_buffer_smaller_than_the_total_size():
    desc = SplitDesc(t([4]), [t([2]), t([2])], 0)
    with pytest.raises(dml.DirectMLValidationError) as info:
        dml.run_split(
            desc, np.zeros(12, np.uint8), outputs=[np.zeros(8, np.uint8), np.zeros(4, np.uint8)]
        )
    assert [(v.rule, v.path) for v in info.value.violations] == [
        ("T10", "input_buffer"),
        ("T10", "outputs[1]"),
    ]


def test_repeated_validation_is_remembered_per_level_and_options():
    int8 = [t([1, 1, 2, 2], "INT8", strides=[0, 0, 0, 1]), t([1, 1, 4, 2], "INT8")]
    desc = spec_split(input=t([1, 1, 6, 2], "INT8"), outputs=int8)
    first = desc.violations("4_1")
    first.clear()  # the caller's list: the remembered one is not touched
    calls = [
        ("4_1", None),
        (dml.FeatureLevel.LEVEL_1_0, None),
        ("4_1", ValidationOptions(reject_output_aliasing=False)),
        ("4_1", None),
        (None, ValidationOptions(reject_output_aliasing=False)),
        ("1_0", None),
    ]
    for level, options in calls:
        fresh = SplitDesc(desc.input, desc.outputs, desc.axis)  # nothing remembered yet
        assert desc.violations(level, options=options) == fresh.violations(level, options=options)
    assert sorted(v.rule for v in desc.violations("1_0")) == ["S7"] * 3 + ["T12"]
    with pytest.raises(datamove.ValidationError, match="feature_level"):
        desc.violations("9_9")
    with pytest.raises(datamove.DTypeError):
        desc.violations(True)


def _options_alive() -> int:
    gc.collect()
    return sum(type(o) is ValidationOptions for o in gc.get_objects())


def test_a_new_options_object_per_call_is_not_kept_for_ever():
    """A desc validated with a fresh options object each call holds a bounded number of them
    (each verdict keeps its options object, so an unbounded memo kept every one)."""
    int8 = [t([1, 1, 2, 2], "INT8", strides=[0, 0, 0, 1]), t([1, 1, 4, 2], "INT8")]
    desc = spec_split(input=t([1, 1, 6, 2], "INT8"), outputs=int8)
    before = _options_alive()
    for k in range(1000):
        options = ValidationOptions(reject_output_aliasing=bool(k % 2))
        assert [v.rule for v in desc.violations("4_1", options=options)] == (
            ["T12"] if k % 2 else []
        )
    del options
    # a verdict of the desc and one of each tensor desc per options object, at most 64 each
    assert _options_alive() - before <= 3 * 64


def test_feature_level_texts_parse_alike_however_many_are_seen():
    """Every spelling of a level is a new text for the parse memo: it keeps a bounded number
    (20,000 texts of ~250 characters kept would be ~6 MB)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        levels = set()
        for k in range(20_000):
            levels.add(dml.FeatureLevel.parse(" " * (k % 50) + "4_1" + " " * (k // 50)))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert levels == {dml.FeatureLevel.LEVEL_4_1}
    assert grown < 1_000_000


# The fast pass agrees with the rule-by-rule evaluation -----------------------------------------


# Faults a desc is built with; a tensor's fault hits one tensor, the whole or a part.
DESC_FAULTS = [
    "data type", "level", "rank", "axis", "no parts", "sum", "zero", "part zero", "off axis",
    "part rank", "part type",
]  # fmt: skip
TENSOR_FAULTS = ["strides length", "far", "flags", "tensor type", "alignment", "total", "edge"]


@st.composite
def maybe_broken_descs(draw, fault):
    """A split or join, a level and options, built with ``fault`` and maybe one more.

    A fault may break one rule, several, or none (``flags=1`` on an input, an alignment of 16,
    4 bytes of padding); random strides may break T12 on their own.
    """
    faults = [fault, draw(st.sampled_from([None] * 8 + DESC_FAULTS + TENSOR_FAULTS))]

    def tensor(data_type, sizes, faulty):
        rank = len(sizes)
        bits = dml.TensorDataType.parse(data_type).bits
        here = faults if faulty else []
        strides = None
        if draw(st.integers(0, 3)) == 0:  # padded, broadcast or overlapping
            strides = draw(st.lists(st.integers(0, 7), min_size=rank, max_size=rank))
        if "strides length" in here:
            strides = [1] * (rank + 1)
        if "far" in here and max(sizes, default=0) > 1:  # the last element at T8's bound
            dim = next(d for d, n in enumerate(sizes) if n > 1)
            rest = sum(sizes) - rank - (sizes[dim] - 1)  # from the other dims, with strides 1
            target = 2**32 - 2 + draw(st.sampled_from([-1, 0, 1]))  # the last element's index
            strides = [1] * rank
            strides[dim] = min(2**32 - 1, (target - rest) // (sizes[dim] - 1))
        fields = {}
        if "flags" in here:
            fields["flags"] = draw(st.sampled_from([1, 2, 3]))
        if "tensor type" in here:
            fields["tensor_type"] = "INVALID"
        if "alignment" in here:
            fields["guaranteed_base_offset_alignment"] = draw(st.sampled_from([1, 2, 4, 8, 16, 24]))
        plain = TensorDesc(data_type, sizes, strides, **fields)
        total = plain.total_tensor_size_in_bytes
        if "total" in here:  # too small, not DWORD-aligned, padded, or past 2**32 - 1 elements
            total += draw(st.sampled_from([-4, -1, 1, 2, 4, 2**34, 2**35 - 3]))
        if "edge" in here and bits:  # at T8's bound on the total size
            total = max(total, 2**32 * bits // 8 + draw(st.sampled_from([-8, -4, -1, 0, 4])))
        return plain.replace(total_tensor_size_in_bytes=max(0, total))

    data_types = list(dml.TensorDataType)
    data_type = draw(st.sampled_from(["FLOAT32", "UINT16", "INT8", "INT4"]))
    if "data type" in faults:
        data_type = draw(st.sampled_from(data_types))
    rank = draw(st.integers(0, 9) if "rank" in faults else st.integers(1, 8))
    sizes = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    axis = draw(st.integers(-1, rank) if "axis" in faults else st.integers(0, max(rank - 1, 0)))
    count = 0 if "no parts" in faults else draw(st.integers(1, 4))
    lengths = draw(st.lists(st.integers(1, 3), min_size=count, max_size=count))
    victim = draw(st.integers(0, count))  # where a tensor's faults go: 0 the whole, i part i - 1
    if "part zero" in faults and victim:  # an empty part, the lengths still adding up
        lengths[victim - 1] = 0
    if 0 <= axis < rank:
        off = draw(st.sampled_from([-1, 1])) if "sum" in faults else 0
        sizes[axis] = max(0, sum(lengths) + off)
    if "zero" in faults and rank:
        sizes[draw(st.integers(0, rank - 1))] = 0
    parts = []
    for i, n in enumerate(lengths, 1):
        own = list(sizes)
        if 0 <= axis < rank:
            own[axis] = n
        if "off axis" in faults and i == victim and rank > 1:
            own[draw(st.sampled_from([d for d in range(rank) if d != axis]))] += 1
        if "part rank" in faults and i == victim:
            own = own[1:]
        part_type = data_type
        if "part type" in faults and i == victim:
            part_type = draw(st.sampled_from(data_types))
        parts.append(tensor(part_type, own, i == victim))
    whole = tensor(data_type, sizes, victim == 0)
    levels = [None, *dml.FeatureLevel]
    level = draw(st.sampled_from(levels if "level" in faults else [None, levels[-1]]))
    options = ValidationOptions(
        join_rank_at_3_1=draw(st.sampled_from(["table", "history"])),
        element_limit=draw(st.sampled_from(["both", "last_element", "total_size"])),
        dword_aligned_total_size=draw(st.booleans()),
        reject_output_aliasing=draw(st.booleans()),
    )
    if draw(st.booleans()):
        return SplitDesc(whole, parts, axis), level, options
    return JoinDesc(parts, whole, axis), level, options


@pytest.mark.parametrize("fault", [None, *DESC_FAULTS, *TENSOR_FAULTS])
@settings(max_examples=examples(60), deadline=None)
@given(data=st.data())
def test_the_fast_pass_agrees_with_the_rules(fault, data):
    """The fast passes agree with the rule-by-rule evaluation, and skipping by them changes nothing.

    ``fine`` says a desc is valid exactly when the rules find nothing; ``tensor_fine`` says so of
    each tensor in its role, so the tensors the rules skip by it would have broken none.
    """
    desc, level, options = data.draw(maybe_broken_descs(fault))
    split = isinstance(desc, SplitDesc)
    rules = _desc._SPLIT if split else _desc._JOIN
    whole, parts = (desc.input, desc.outputs) if split else (desc.output, desc.inputs)
    axis = desc.axis
    detailed = desc.violations(level, options=options)
    quick = _rules.fine(rules.op, rules.parts_are_outputs, whole, parts, axis, level, options)
    assert quick == (not detailed), detailed
    limits = _rules.LIMITS[rules.op, level, options.join_rank_at_3_1]
    table = None if level is None else _rules.table_row(rules.op, level, options.join_rank_at_3_1)
    roles = [(whole, not rules.parts_are_outputs)] + [(p, rules.parts_are_outputs) for p in parts]
    for tensor, output in roles:
        alone = _rules._check_tensor(
            tensor, output, axis, "T5", rules.owned, table, rules.op_name, level, options
        )
        assert _rules.tensor_fine(tensor, output, limits, options) == (not alone), alone
