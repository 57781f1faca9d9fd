"""Every command and subcommand of ``datamove`` prints its help and exits 0."""

from __future__ import annotations

import argparse

import pytest

from datamove.cli import build_parser, main


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
