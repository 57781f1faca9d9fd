"""Bounds on what no data bounds: the number of parts, and the length of an error's message.

DirectML states no limit on ``OutputCount`` or ``InputCount`` (both ``UINT``), so datamove caps
them at its own operators' ``MAX_LENGTH`` (2**20) parts, checked before a desc of each part is
built. A desc that breaks a rule once per part lists the first ``MAX_SHOWN`` violations in its
message and keeps them all in ``violations``.
"""

from __future__ import annotations

import json
import pickle
import tracemalloc

import numpy as np
import pytest

import datamove
import datamove.directml as dml
from datamove._shape import MAX_LENGTH
from datamove.cli import main
from datamove.directml._errors import MAX_SHOWN

ONE = dml.TensorDesc("FLOAT32", [1])
TOO_MANY = f"holds {MAX_LENGTH + 1} .*, more than {MAX_LENGTH} \\(MAX_LENGTH\\)"

# The number of parts -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("make", "match"),
    [
        pytest.param(
            lambda n: dml.SplitDesc(dml.TensorDesc("FLOAT32", [n]), [ONE] * n, 0),
            r"^DML_SPLIT: outputs='<1048577 tensors>' ",
            id="SplitDesc(outputs=2**20 + 1)",
        ),
        pytest.param(
            lambda n: dml.JoinDesc([ONE] * n, dml.TensorDesc("FLOAT32", [n]), 0),
            r"^DML_JOIN: inputs='<1048577 tensors>' ",
            id="JoinDesc(inputs=2**20 + 1)",
        ),
        pytest.param(
            lambda n: dml.split(np.zeros(n, np.float32), 0, [1] * n),
            r"^DirectML: sizes='<1048577 lengths>' ",
            id="split(sizes=[1] * (2**20 + 1))",
        ),
        pytest.param(
            lambda n: dml.split(np.zeros(n, np.float32), 0, np.ones(n, np.int64)),
            r"^DirectML: sizes='<1048577 lengths>' ",
            id="split(sizes=np.ones(2**20 + 1))",
        ),
        pytest.param(
            lambda n: dml.join([np.zeros(1, np.float32)] * n, 0),
            r"^DirectML: arrays='<1048577 arrays>' ",
            id="join(arrays=2**20 + 1)",
        ),
        pytest.param(
            lambda n: dml.desc_from_json(
                {
                    "InputTensor": {"DataType": "FLOAT32", "Sizes": [n]},
                    "Axis": 0,
                    "OutputTensors": [{"DataType": "FLOAT32", "Sizes": [1]}] * n,
                }
            ),
            r"^DirectML JSON: desc.OutputTensors='<1048577 tensors>' ",
            id="desc_from_json(OutputTensors=2**20 + 1)",
        ),
        pytest.param(
            lambda n: dml.desc_from_json(
                {
                    "type": "DML_OPERATOR_JOIN",
                    "desc": {
                        "InputTensors": [{"DataType": "FLOAT32", "Sizes": [1]}] * n,
                        "Axis": 0,
                        "OutputTensor": {"DataType": "FLOAT32", "Sizes": [n]},
                    },
                }
            ),
            r"^DirectML JSON: desc.InputTensors='<1048577 tensors>' ",
            id="desc_from_json(InputTensors=2**20 + 1)",
        ),
    ],
)
def test_more_parts_than_max_length_are_refused_before_anything_is_built(make, match) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(datamove.ValidationError, match=match + TOO_MANY):
            make(MAX_LENGTH + 1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The arguments take 8-16 MiB (a list of 2**20 references, an array); a desc per part
    # would take hundreds of MiB more.
    assert peak < 32 * 2**20


def test_max_length_parts_are_still_taken() -> None:
    desc = dml.SplitDesc(
        dml.TensorDesc("UINT8", [MAX_LENGTH]), [dml.TensorDesc("UINT8", [1])] * MAX_LENGTH, 0
    )
    desc.validate(None)
    assert len(desc.outputs) == MAX_LENGTH


def test_cli_reports_too_many_parts_as_a_json_violation(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr("datamove.directml._desc.MAX_LENGTH", 2)  # the file stays small
    one = {"DataType": "FLOAT32", "Sizes": [1]}
    desc = {"InputTensor": {"DataType": "FLOAT32", "Sizes": [3]}, "OutputTensors": [one] * 3,
            "Axis": 0}  # fmt: skip
    path = tmp_path / "many.json"
    path.write_text(json.dumps(desc))
    assert main(["dml", "check", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1] == (
        "  [JSON] OutputTensors='<3 tensors>' holds 3 tensors, more than 2 (MAX_LENGTH), "
        "the most parts datamove splits into or joins"
    )


# The length of the message -----------------------------------------------------------------------


def test_message_lists_the_first_violations_and_keeps_them_all() -> None:
    n = 10_000
    desc = dml.SplitDesc(dml.TensorDesc("FLOAT32", [n]), [dml.TensorDesc("FLOAT32", [0])] * n, 0)
    with pytest.raises(dml.DirectMLValidationError) as info:
        desc.validate(None)
    err = info.value
    lines = str(err).splitlines()
    assert lines[0] == f"DML_SPLIT: {n + 1} violations of DirectML's rules"
    assert lines[1] == "  [S6] outputs[0].sizes[0]=0 must be at least 1"
    assert len(lines) == 1 + MAX_SHOWN + 1
    assert lines[-1] == f"  ... and {n + 1 - MAX_SHOWN} more (all in .violations)"
    assert len(err.violations) == n + 1
    assert err.violations[n - 1].path == f"outputs[{n - 1}].sizes[0]"
    assert err.violations[-1].rule == "S5"
    again = pickle.loads(pickle.dumps(err))
    assert len(again.violations) == n + 1
    assert str(again) == str(err)


def test_message_of_exactly_max_shown_violations_lists_them_all() -> None:
    n = MAX_SHOWN - 1  # n empty outputs and the sum: MAX_SHOWN violations
    desc = dml.SplitDesc(dml.TensorDesc("FLOAT32", [1]), [dml.TensorDesc("FLOAT32", [0])] * n, 0)
    with pytest.raises(dml.DirectMLValidationError) as info:
        desc.validate(None)
    lines = str(info.value).splitlines()
    assert len(lines) == 1 + MAX_SHOWN
    assert "more" not in lines[-1]


def test_split_into_many_empty_parts_checks_one_desc_per_length() -> None:
    n = 100_000
    with pytest.raises(dml.DirectMLValidationError) as info:
        dml.split(np.zeros(0, np.float32), 0, [0] * n)
    err = info.value
    assert len(err.violations) == n + 1  # T5 on the input, S6 on every output
    assert [v.rule for v in err.violations[:2]] == ["T5", "S6"]
    assert len(str(err).splitlines()) == 1 + MAX_SHOWN + 1


def test_equal_parts_share_their_desc_and_still_split_right() -> None:
    data = np.arange(12, dtype=np.int16).reshape(2, 6)
    parts = dml.split(data, 1, [1, 2, 1, 2])
    assert [p.tolist() for p in parts] == [a.tolist() for a in np.split(data, [1, 3, 4], axis=1)]
    with pytest.raises(datamove.DTypeError, match=r"sizes.*2\.0"):
        dml.split(data, 1, [2, 2.0, 2])


def test_cli_human_report_lists_the_first_violations(tmp_path, capsys) -> None:
    n = 30
    zero = {"DataType": "FLOAT32", "Sizes": [0]}
    desc = {"InputTensor": {"DataType": "FLOAT32", "Sizes": [1]}, "OutputTensors": [zero] * n,
            "Axis": 0}  # fmt: skip
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(desc))
    assert main(["dml", "check", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(f": {n + 1} violations")
    assert len(out) == 1 + MAX_SHOWN + 1
    assert out[-1] == f"  ... and {n + 1 - MAX_SHOWN} more (--json lists them all)"
    assert main(["dml", "check", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert len(report["operators"][0]["violations"]) == n + 1
