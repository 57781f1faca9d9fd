"""Every command and subcommand of ``datamove`` prints its help and exits 0."""

from __future__ import annotations

import argparse
import importlib.util
import re
import shlex
from pathlib import Path

import numpy as np
import pytest

from datamove.cli import build_parser, main
from datamove.ir._examples import write_example, write_onnx_example


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for action in parser._actions:  # argparse keeps the subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _commands(sub, (*path, name))
    return found


COMMANDS = _commands(build_parser())


def test_every_subcommand_is_found() -> None:
    assert ("dml", "check") in COMMANDS
    assert len(COMMANDS) > 6


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "datamove")
def test_help_of_every_command(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    # argparse formats help strings with %: a bare "%" in one ("sizes % 4") made
    # `datamove dml check --help` end in a ValueError traceback
    assert main([*path, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: datamove {' '.join(path)}".rstrip())
    assert "\nexamples:\n  datamove " in out  # docs/cli.md: every command shows examples


def test_the_top_help_says_explain_takes_a_model(capsys: pytest.CaptureFixture[str]) -> None:
    # it listed only the operators: a user with a converted model.xml did not look under explain
    assert main(["--help"]) == 0
    top = " ".join(capsys.readouterr().out.split())
    assert (
        "explain a StridedSlice, Slice, Split, VariadicSplit or Concat, a NumPy index, or a "
        "model's slicing layers" in top
    )
    assert main(["explain", "--help"]) == 0
    assert "(MODEL.xml, MODEL.onnx)" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize(
    ("argv", "usage", "message"),
    [
        pytest.param(
            ["convert", "--from", "numpy", "--index", "x[1:]", "--to", "onnx", "--shpe=3"],
            "usage: datamove convert ",
            "datamove convert: error: unrecognized arguments: --shpe=3 (did you mean --shape?)",
            id="convert --shpe",
        ),
        pytest.param(
            ["explain", "split", "--shape", "6", "--axis", "0", "--num-splits", "2", "--jsno"],
            "usage: datamove explain split ",
            "unrecognized arguments: --jsno (did you mean --json?)",
            id="explain split --jsno",
        ),
        pytest.param(
            ["explain", "split", "--shape", "6,12", "--axis", "1", "--numsplits", "3"],
            "usage: datamove explain split ",
            "unrecognized arguments: --numsplits (did you mean --num-splits?)",
            id="explain split --numsplits (a required option misspelt)",
        ),
        pytest.param(
            ["dml", "check", "x.json", "--fetaure-level", "6.2"],
            "usage: datamove dml check ",
            "unrecognized arguments: --fetaure-level (did you mean --feature-level?)",
            id="dml check --fetaure-level",
        ),
        pytest.param(
            ["--verison"],
            "usage: datamove [-h] [--version] COMMAND",
            "datamove: error: unrecognized arguments: --verison (did you mean --version?)",
            id="datamove --verison (no command: argparse said only that one is required)",
        ),
        pytest.param(
            ["--bogus", "check", "x.xml"],
            "usage: datamove [-h] [--version] COMMAND",
            "datamove: error: unrecognized arguments: --bogus\n",
            id="datamove --bogus check",
        ),
        pytest.param(
            ["compose", "x[1:]", "x[1:]", "--zzz"],
            "usage: datamove compose ",
            "datamove compose: error: unrecognized arguments: --zzz\n",
            id="compose --zzz (nothing close)",
        ),
    ],
)
def test_a_subcommand_names_an_unknown_option_with_its_own_usage(
    argv: list[str], usage: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # argparse left them to the top parser, which printed `usage: datamove [-h] [--version]
    # COMMAND ...`: no help for the command the user typed, nor for the typo.
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(usage)
    assert message in err


def _parser(path: tuple[str, ...]) -> argparse.ArgumentParser:
    parser = build_parser()
    for name in path:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[name]
    return parser


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "datamove")
def test_every_option_says_what_it_does(path: tuple[str, ...]) -> None:
    # `explain split --help` listed --shape, --axis, --num-splits and --json with no word, and
    # each StridedSlice mask as "begin_mask bits"
    parser = _parser(path)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help, f"{' '.join(path)} {name} has no help"
        assert not action.help.endswith(" bits"), f"{' '.join(path)} {name}: {action.help!r}"


def _examples() -> list[object]:
    """Each ``datamove ...`` line of each command's ``--help`` examples (``\\`` lines joined)."""
    found = {}
    for path in COMMANDS:
        epilog = (_parser(path).epilog or "").replace("\\\n", " ")
        # a line's comment, from a blank and "(", is left out (a call's "(" follows no blank)
        for line in re.findall(r"^ +(datamove .*?)(?: +\(.*)?$", epilog, flags=re.MULTILINE):
            if "COMMAND" not in line:  # `datamove COMMAND --help`: a pattern, not an example
                found[" ".join(line.split())] = None  # a command's are its parent's examples too
    return [pytest.param(line, id=line[:70]) for line in found]


@pytest.mark.parametrize("line", _examples())
def test_every_example_of_the_help_is_a_valid_command(
    line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The examples' files are the docs' (model.xml is example.xml, x [2,6] f32); a line may
    # still be refused (no layer 7 there: exit 1), but argparse takes each one (no exit 2, as a
    # renamed option would give).
    monkeypatch.chdir(tmp_path)
    xml = write_example(tmp_path)
    xml.with_suffix(".bin").rename("model.bin")
    xml.rename("model.xml")
    if "model.onnx" in line and importlib.util.find_spec("onnx"):
        write_onnx_example(tmp_path).rename("model.onnx")
    np.save("x.npy", np.zeros((2, 6), np.float32))
    np.save("big.npy", np.zeros((1000, 4), np.float32))
    assert main(shlex.split(line)[1:]) in (0, 1)
    assert "usage:" not in capsys.readouterr().err


def test_the_help_has_examples_to_try() -> None:
    assert len(_examples()) > 20
