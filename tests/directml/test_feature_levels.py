"""The feature-level tables of split and join, checked at every level, rank and data type."""

from __future__ import annotations

import pytest

import datamove as dm
import datamove.directml as dml
from datamove.directml import FeatureLevel, JoinDesc, SplitDesc, TensorDataType, TensorDesc

T = TensorDataType
A = {T.FLOAT32, T.FLOAT16, T.INT32, T.INT16, T.UINT32, T.UINT16}
B = A | {T.INT8, T.UINT8}
C = B | {T.FLOAT64, T.INT64, T.UINT64}
# The research report's reference algorithm, written out independently of the package.
SPLIT = [
    (0x1000, range(4, 5), A),
    (0x2100, range(4, 5), B),
    (0x3000, range(1, 9), B),
    (0x4100, range(1, 9), C),
]
JOIN = [
    (0x1000, range(4, 5), A),
    (0x2100, range(4, 5), B),
    (0x3000, range(4, 6), B),
    (0x4100, range(1, 9), C),
]
JOIN_HISTORY = [*JOIN[:3], (0x3100, range(4, 9), B), JOIN[3]]


def supported(table, level, rank, dtype):
    rows = [r for r in table if r[0] <= level]
    return bool(rows) and rank in rows[-1][1] and dtype in rows[-1][2]


def table_rules(desc, level, **options):
    opts = dml.ValidationOptions(**options)
    return {v.path for v in desc.violations(level, options=opts) if v.rule in {"S7", "J6"}}


def make(op, rank, dtype):
    whole = TensorDesc(dtype, [1] * (rank - 1) + [2]) if rank else TensorDesc(dtype, [])
    part = TensorDesc(dtype, [1] * (rank - 1) + [1]) if rank else TensorDesc(dtype, [])
    axis = max(rank - 1, 0)
    if op == "split":
        return SplitDesc(whole, [part, part], axis)
    return JoinDesc([part, part], whole, axis)


DTYPES = [d for d in TensorDataType if d is not T.UNKNOWN]


@pytest.mark.parametrize("level", list(FeatureLevel), ids=str)
@pytest.mark.parametrize("op", ["split", "join"])
def test_table_at_every_level(op, level):
    table = SPLIT if op == "split" else JOIN
    for rank in range(1, 10):
        for dtype in DTYPES:
            bad = table_rules(make(op, rank, dtype), level)
            ok = supported(table, level, rank, dtype)
            assert (not bad) == ok, (op, str(level), rank, dtype.name, bad)
            if not ok:  # every tensor is reported
                assert len({path.split(".")[0] for path in bad}) == 3


@pytest.mark.parametrize("level", list(FeatureLevel), ids=str)
def test_join_history_switch_at_every_level(level):
    for rank in range(1, 10):
        for dtype in (T.FLOAT32, T.INT8, T.FLOAT64):
            bad = table_rules(make("join", rank, dtype), level, join_rank_at_3_1="history")
            assert (not bad) == supported(JOIN_HISTORY, level, rank, dtype), (
                str(level),
                rank,
                dtype,
            )


@pytest.mark.parametrize("level", list(FeatureLevel), ids=str)
def test_tensor_support_rows(level):
    for op, table in (("SPLIT", SPLIT), ("JOIN", JOIN)):
        row = dml.tensor_support(op, level)
        since, ranks, types = next(r for r in reversed(table) if r[0] <= level)
        assert (row.since, row.min_rank, row.max_rank, set(row.data_types)) == (
            since,
            ranks[0],
            ranks[-1],
            types,
        )


@pytest.mark.parametrize(
    ("value", "error"),
    [
        pytest.param("bogus", dm.ValidationError, id="a str"),
        pytest.param("History", dm.ValidationError, id="case"),
        pytest.param(None, dm.DTypeError, id="None"),
    ],
)
def test_tensor_support_refuses_a_join_reading_it_does_not_know(value, error):
    # Any text was taken (as "table") and kept by table_row's cache, one row per text.
    with pytest.raises(error) as info:
        dml.tensor_support("JOIN", "3_1", join_rank_at_3_1=value)
    assert str(info.value) == (
        f'tensor_support: join_rank_at_3_1={value!r} must be "table" or "history"'
    )


def test_four_bit_types_are_never_in_the_tables():
    for level in FeatureLevel:
        for op in ("split", "join"):
            assert table_rules(make(op, 4, T.INT4), level)
            assert table_rules(make(op, 4, T.UINT4), level)


def test_golden_cases_of_the_report():
    assert not table_rules(make("split", 1, T.FLOAT32), "3_0")
    assert table_rules(make("split", 1, T.FLOAT32), "2_1")
    assert not table_rules(make("join", 1, T.FLOAT32), "4_1")
    assert table_rules(make("join", 1, T.FLOAT32), "4_0")
    assert not table_rules(make("split", 4, T.FLOAT64), "4_1")
    assert table_rules(make("split", 4, T.FLOAT64), "4_0")
    assert not table_rules(make("split", 4, T.INT8), "2_1")
    assert table_rules(make("split", 4, T.INT8), "2_0")
