"""The ``datamove`` command line: ``main(argv) -> int``.

Exit codes: 0 ok, 1 invalid input (a datamove ``ValidationError``, or problems ``check`` found),
2 usage error, 141 when a write finds that the reader of the output went away (``datamove
examples | true``), as a shell reports a program that SIGPIPE ended; 1 when stdout cannot be
written otherwise (a full disk, ``>&-``), said in one line on stderr; 130 on Ctrl-C
(``EXIT_*`` in ``_exit``, which every subcommand imports).
Each subcommand is a module of this package (``_examples``, ``_explain``, ``_convert``, ``_ir``,
``_split_file``, ``_dml``, ``_compose``) that registers itself through a
``register(subparsers)`` function setting ``func`` (taking the parsed namespace and returning the
exit code); this module only assembles them. The library never imports this package.
"""

from __future__ import annotations

import argparse
import difflib
import io
import itertools
import os
import sys
from typing import TYPE_CHECKING, Any, Final

from datamove import __version__
from datamove._errors import ValidationError
from datamove.cli import _compose, _convert, _dml, _examples, _explain, _ir, _split_file
from datamove.cli._exit import EXIT_INTERRUPTED, EXIT_INVALID, EXIT_PIPE, EXIT_USAGE

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose subcommands name what they do not know, with a suggestion.

    argparse leaves a subcommand's unknown arguments to the top parser, which prints its own
    usage (``datamove [-h] [--version] COMMAND ...``) rather than the subcommand's. Here each
    subcommand's parser (the class is inherited by ``add_parser``) refuses them itself, with
    its usage and the closest option it has: ``unrecognized arguments: --shpe (did you mean
    --shape?)``.
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if args is not None and (self.prog == _PROG or self._subparsers is None):
            # Unknown options first, named: before any command, argparse reports the missing
            # COMMAND (`datamove --bogus`) and never names the typo; in a command, it reports a
            # required option the typo was meant to be (--num-split 3: "--num-splits is
            # required") and drops the typo.
            if self.prog == _PROG:  # the options before the command's name
                given = list(itertools.takewhile(lambda a: a.startswith("-") and a != "--", args))
            else:  # the command's long options, up to a -- that ends them
                given = [a for a in itertools.takewhile(lambda a: a != "--", args) if a[:2] == "--"]
            unknown = [a for a in given if not self._knows(a.split("=", 1)[0])]
            if unknown:
                self.error(f"unrecognized arguments: {unknown[0]}{self._suggestion(unknown)}")
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and self.prog != _PROG:
            self.error(f"unrecognized arguments: {' '.join(extras)}{self._suggestion(extras)}")
        return parsed, extras

    def _knows(self, option: str) -> bool:
        """Whether ``option`` is one of this parser's, or a prefix argparse expands to one."""
        return any(o == option or o.startswith(option) for o in self._option_string_actions)

    def _suggestion(self, extras: list[str]) -> str:
        options = [o for o in self._option_string_actions if o.startswith("--")]
        for extra in extras:
            if extra.startswith("--"):
                close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1)
                if close:
                    return f" (did you mean {close[0]}?)"
        return ""


_PROG: Final = "datamove"


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every registered subcommand."""
    parser = _Parser(
        prog=_PROG,
        description="Tensor data-movement operators (OpenVINO Split-1, VariadicSplit-1, "
        "StridedSlice-1, Slice-8, Concat-1; DirectML split/join): run, infer, check and "
        "explain them.",
        epilog="examples:\n"
        "  datamove examples\n"
        "  datamove explain split --shape 6,12 --axis 1 --num-splits 3\n"
        "  datamove check model.xml\n"
        "  datamove COMMAND --help    (each command's options and examples)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"datamove {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # The subcommands, in the order ``--help`` lists them.
    for module in (_examples, _explain, _convert, _compose, _ir, _split_file, _dml):
        module.register(subparsers)
    return parser


class _StdoutError(Exception):
    """The standard output cannot be written (a full disk, an I/O error, a closed descriptor)."""


class _Stdout:
    """``sys.stdout`` while a command runs: a failed write is a `_StdoutError`.

    A closed pipe stays a ``BrokenPipeError`` (exit 141). With file descriptor 1 closed
    (``datamove examples >&-``) Python sets ``sys.stdout`` to ``None``: every write fails.
    """

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is None:
            raise _StdoutError("it is closed")
        try:
            try:
                self._stream.write(text)
            except UnicodeEncodeError:  # a name stdout's encoding lacks: escaped, as on stderr
                encoding = getattr(self._stream, "encoding", None) or "ascii"
                self._stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _StdoutError(exc.strerror or type(exc).__name__) from None
        return len(text)  # what a text stream returns (a caller's stream may return None)

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise _StdoutError(exc.strerror or type(exc).__name__) from None

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding...
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code instead of exiting."""
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = _Stdout(stdout)
    if stderr is None:  # fd 2 closed (2>&-): messages go nowhere, not to print's fallback, stdout
        sys.stderr = io.StringIO()
    try:
        code = _run(argv)
        sys.stdout.flush()  # here, not at exit, so a closed pipe is caught below
    except BrokenPipeError:
        _stdout_to_devnull(stdout)
        return EXIT_PIPE
    except KeyboardInterrupt:  # Ctrl-C: a command's files are renamed at its end, or not at all
        print("datamove: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except _StdoutError as exc:
        _stdout_to_devnull(stdout)
        print(f"datamove: error: stdout cannot be written ({exc})", file=sys.stderr)
        return EXIT_INVALID
    finally:
        sys.stdout, sys.stderr = stdout, stderr
    return code


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(_explain.model_argv(sys.argv[1:] if argv is None else argv))
        return int(args.func(args))
    except SystemExit as exc:  # argparse exits 2 on usage errors (also a command's) and 0 on --help
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    except ValidationError as exc:
        print(f"datamove: error: {exc}", file=sys.stderr)
        return EXIT_INVALID


def _stdout_to_devnull(stdout: Any) -> None:
    """The output cannot be written: send what is still buffered nowhere, quietly.

    As the Python docs' "Note on SIGPIPE" does: without it, Python's final flush of stdout
    fails again and prints "Exception ignored ... BrokenPipeError" on the way out.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is no file (replaced by a caller)
        pass
