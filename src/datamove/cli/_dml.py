"""``datamove dml check FILE``: validate the DirectML split/join descs of a JSON file."""
# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import functools
import json
from pathlib import Path
from typing import Any, Final

from datamove._errors import ValidationError, plural
from datamove._files import read_regular
from datamove.cli._exit import EXIT_INVALID, EXIT_OK
from datamove.directml._desc import JoinDesc, SplitDesc
from datamove.directml._enums import FeatureLevel, OperatorType
from datamove.directml._errors import MAX_SHOWN, DirectMLValidationError, Violation
from datamove.directml._json import desc_from_json, json_violations, parse_json_text, read_operator
from datamove.directml._rules import ValidationOptions

__all__ = ["register"]

OP: Final = "dml check"  # after "datamove: error: ", as "run" and "convert" are
# The largest FILE read. DxDispatch model files are kilobytes (weights live in files they name);
# parsing JSON takes up to about 50 times its size in memory.
MAX_JSON_BYTES: Final = 16 * 2**20


def _level(text: str) -> FeatureLevel:
    try:
        return FeatureLevel.parse(text)
    except ValidationError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a DirectML feature level (1_0, 2_0, 2_1, 3_0, ... 6_4, or 0x4100)"
        ) from None


_EPILOG = """\
examples:
  datamove dml check model.json
  datamove dml check split.json --feature-level 4_1 --json"""


def register(subparsers: Any) -> None:
    """Add ``dml`` (with ``check``) to the ``datamove`` command line."""
    dml = subparsers.add_parser(
        "dml",
        help="DirectML split/join descriptors",
        description="DirectML DML_SPLIT / DML_JOIN descriptors.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = dml.add_subparsers(dest="dml_command", metavar="COMMAND", required=True)
    check = commands.add_parser(
        "check",
        help="validate the split/join descs of a DxDispatch-style JSON file",
        description=(
            "Validate every DML_OPERATOR_SPLIT / DML_OPERATOR_JOIN in FILE against DirectML's "
            "rules at a feature level, listing every violation with its rule id and field path. "
            "FILE is a DxDispatch model (its dispatchables), one dispatchable "
            '({"type": ..., "desc": ...}) or a bare desc. Exit 0 when all are valid, 1 when not.'
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("file", metavar="FILE", type=Path, help="JSON file")
    check.add_argument(
        "--feature-level",
        type=_level,
        default=FeatureLevel.LEVEL_6_4,
        metavar="LEVEL",
        help="the device's DML_FEATURE_LEVEL, e.g. 4_1 or 0x4100 (default: 6_4)",
    )
    check.add_argument("--json", action="store_true", help="print a JSON report for programs")
    check.add_argument(
        "--join-rank-at-3-1",
        choices=("table", "history"),
        default="table",
        help="JOIN's ranks at 3_1/4_0: the JOIN page's table (4-5) or the history page (4-8)",
    )
    check.add_argument(
        "--element-limit",
        choices=("both", "last_element", "total_size"),
        default="both",
        help="which reading of the 2^32-1 element limit (T8) to check",
    )
    check.add_argument(
        "--no-dword-total-size",
        action="store_true",
        help="do not require total sizes %% 4 == 0 (T11)",
    )
    check.add_argument(
        "--allow-output-aliasing", action="store_true", help="accept self-overlapping outputs (T12)"
    )
    check.set_defaults(func=_check)


def _entries(data: Any) -> tuple[list[tuple[str, Any, str]], list[dict[str, str]]]:
    """The (name, dispatchable, its JSON path) to check, and the dispatchables skipped."""
    if isinstance(data, dict) and isinstance(data.get("dispatchables"), dict):
        found, skipped = [], []
        for name, item in data["dispatchables"].items():
            kind = item.get("type") if isinstance(item, dict) else None
            try:
                OperatorType.parse(kind)
            except ValidationError:
                skipped.append({"name": name, "type": str(kind)})
                continue
            key = f".{name}" if name.isidentifier() else f"[{json.dumps(name)}]"
            found.append((name, item, f"dispatchables{key}"))
        return found, skipped
    return [("desc", data, "")], []


def _report(
    name: str, item: Any, path: str, level: FeatureLevel, options: ValidationOptions
) -> dict[str, Any]:
    """The report on one dispatchable, at JSON ``path`` in the file; paths as the file has them."""
    violations: list[Violation]
    kind = "?"  # where the operator cannot be told
    try:
        kind = read_operator(item, path)[0].dml_name  # even where the rest is broken
        desc: SplitDesc | JoinDesc = desc_from_json(item, path)
        violations = json_violations(desc.violations(level, options=options), item, path)
    except DirectMLValidationError as exc:
        violations = exc.violations
    except ValidationError as exc:
        violations = [Violation("JSON", exc.argument or path or name, exc.value, exc.rule)]
    return {"name": name, "type": kind, "valid": not violations, "violations": violations}


def _check(args: argparse.Namespace) -> int:
    level: FeatureLevel = args.feature_level
    error = functools.partial(ValidationError, OP, "file", str(args.file))
    data = read_regular(args.file, error, max_bytes=MAX_JSON_BYTES, what="a DxDispatch JSON file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error("is not a UTF-8 text file") from None
    options = ValidationOptions(
        join_rank_at_3_1=args.join_rank_at_3_1,
        element_limit=args.element_limit,
        dword_aligned_total_size=not args.no_dword_total_size,
        reject_output_aliasing=not args.allow_output_aliasing,
    )
    skipped: list[dict[str, str]] = []
    try:
        entries, skipped = _entries(parse_json_text(text))
    except ValidationError as exc:
        bad = Violation("JSON", "file", str(args.file), exc.rule)
        reports: list[dict[str, Any]] = [
            {"name": str(args.file), "type": "?", "valid": False, "violations": [bad]}
        ]
    else:
        reports = [_report(name, item, path, level, options) for name, item, path in entries]
    valid = bool(reports) and all(r["valid"] for r in reports)
    if args.json:
        payload = {
            "file": str(args.file),
            "feature_level": level.dml_name,
            "valid": valid,
            "operators": [
                {**r, "violations": [v.to_dict() for v in r["violations"]]} for r in reports
            ],
            "skipped": skipped,
        }
        print(json.dumps(payload, indent=2))
    else:
        _print_human(args.file, level, reports, skipped)
    return EXIT_OK if valid else EXIT_INVALID


def _print_human(
    file: Path, level: FeatureLevel, reports: list[dict[str, Any]], skipped: list[dict[str, str]]
) -> None:
    for report in reports:
        head = f"{file}: {report['name']} ({report['type']}) at feature level {level}"
        violations: list[Violation] = report["violations"]
        if not violations:
            print(f"{head}: valid")
            continue
        count = len(violations)
        print(f"{head}: {plural(count, 'violation')}")
        for v in violations[:MAX_SHOWN]:
            print(f"  {v}")
        if count > MAX_SHOWN:
            print(f"  ... and {count - MAX_SHOWN} more (--json lists them all)")
    for item in skipped:
        print(f"{file}: {item['name']} ({item['type']}) skipped: not a split or a join")
    if not reports:
        print(f"{file}: no DML_OPERATOR_SPLIT or DML_OPERATOR_JOIN to check")
