"""Hostile DxDispatch JSON: clear ``ValidationError``s in time linear in the text, never a crash.

Deep nesting, integers of thousands of digits, unterminated comments and strings, through
``dml.loads`` and ``datamove dml check``.
"""

from __future__ import annotations

import pytest

import datamove
import datamove.directml as dml
from datamove.cli import main
from datamove.directml import _json

SPLIT_TEXT = (
    '{"Axis": 0, "InputTensor": {"DataType": "UINT8", "Sizes": [2]},'
    ' "OutputTensors": [{"DataType": "UINT8", "Sizes": [2]}]}'
)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        pytest.param("[" * 100_000, "nests arrays or objects more than 64 deep", id="[ x 100000"),
        pytest.param("[" * 65 + "]" * 65, "more than 64 deep", id="65 deep, parsed"),
        pytest.param(
            '{"Axis": ' + "9" * 5000 + "}", "an integer of 5000 digits", id="5000-digit integer"
        ),
        pytest.param(
            "// c\n" + '{"Axis": ' + "9" * 5000 + "}", "an integer of 5000 digits", id="lenient"
        ),
        pytest.param("/* " * 20_000, "is not JSON", id="unterminated /* x 20000"),
        pytest.param('"\\' * 30_000, "is not JSON", id="unterminated string of escapes"),
        pytest.param('{"Axis": 0} /* open', "is not JSON", id="unterminated trailing comment"),
    ],
)
def test_hostile_json_is_a_validation_error(text: str, match: str) -> None:
    with pytest.raises(datamove.ValidationError, match=match):
        dml.loads(text)


def test_loads_takes_text_and_utf8_bytes_only() -> None:
    # None and 5 were raw TypeErrors from json.loads; bytes read only without comments (a
    # TypeError from the lenient pass's str regex otherwise).
    for junk in (None, 5, ["{}"]):
        with pytest.raises(datamove.DTypeError, match=r"text=.* must be JSON text \(a str"):
            dml.loads(junk)  # type: ignore[arg-type]
    commented = "// a DxDispatch file\n" + SPLIT_TEXT
    assert dml.loads(commented.encode()).input.sizes == (2,)
    assert dml.loads(bytearray(commented.encode())).input.sizes == (2,)
    with pytest.raises(datamove.ValidationError, match=r"text=.* is not UTF-8"):
        dml.loads(b"\xff" + SPLIT_TEXT.encode())


def test_deep_json_within_the_limit_still_reads() -> None:
    nested = '{"Axis": 0, "x": ' + "[" * 60 + "]" * 60 + SPLIT_TEXT[len('{"Axis": 0,') - 1 :]
    assert dml.loads(nested).input.sizes == (2,)


@pytest.mark.parametrize(
    "text",
    ["/* " * 5, '"\\"\\"\\"\\', '"abc', '"ab\\'],
    ids=["unterminated comment", "escaped quotes", "unterminated string", "lone backslash"],
)
def test_lenient_scan_consumes_an_unterminated_token_in_one_match(text: str) -> None:
    # The linear-time guarantee: a token that never closes is one match to the end of the text,
    # not a failed scan to the end from each of its starts (quadratic: 60 KB took 4 s before).
    match = _json._COMMENTS.match(text)
    assert match is not None
    assert match.end() == len(text)


def test_comments_are_white_space_and_close_before_trailing_commas() -> None:
    text = (
        '{"Axis": 0, /* c */ "InputTensor": {"DataType": "UINT8", "Sizes": [2, /* x */]},'
        ' "OutputTensors": [{"DataType": "UINT8", "Sizes": [2], "N": "a//b /* \\" */"},],}'
    )
    assert dml.loads(text).outputs[0].sizes == (2,)
    with pytest.raises(datamove.ValidationError, match="not JSON"):
        dml.loads('{"Axis": 1/**/2}')  # a comment separates tokens: not the number 12


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("[" * 100_000, "more than 64 deep"),
        ('{"Axis": ' + "9" * 5000 + "}", "an integer of 5000 digits"),
    ],
    ids=["deep", "huge integer"],
)
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_dml_check_reports_hostile_json(
    tmp_path, capsys: pytest.CaptureFixture[str], text: str, match: str, as_json: bool
) -> None:
    path = tmp_path / "hostile.json"
    path.write_text(text)
    assert main(["dml", "check", str(path), *(["--json"] if as_json else [])]) == 1
    captured = capsys.readouterr()
    assert match in captured.out
    assert "Traceback" not in captured.out + captured.err
