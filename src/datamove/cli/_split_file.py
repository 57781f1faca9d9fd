"""``datamove split``: split a ``.npy`` file larger than memory into several ``.npy`` files.

The input is read with ordinary reads (never memory-mapped: a file cut short meanwhile is an
error naming it, where a read from a memory map dies of ``SIGBUS``), once, in blocks of about
``CHUNK_BYTES``; each block's part of every output is written with ordinary writes (a full disk
is an ``OSError``), so memory use stays bounded whatever the file size. The copy follows the
input's byte order: every output keeps the input's memory order (C or Fortran), so no block is
ever transposed. The header is read and checked first (`datamove.cli._npy`), so that a file which is
not a ``.npy`` is one clear error.

Every output is checked, and its temporary file created beside it, before any data is copied; the
outputs are renamed into place only when every one is complete, and if a rename fails (or Ctrl-C
lands among them), the renames already done are undone, a replaced file put back from a hard link
kept until the end: an error leaves no partial file behind and no output written. A progress bar
is drawn on stderr for long work (more than ``PROGRESS_BYTES``) when stderr is a terminal.
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import contextlib
import functools
import itertools
import json
import math
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final, TextIO

import numpy as np

from datamove._errors import ValidationError, plural
from datamove._files import commit, kind, path_name, read_exactly, temporary_beside
from datamove._split import infer_split, infer_variadic_split
from datamove.cli._exit import EXIT_OK
from datamove.cli._npy import NpyHeader, header_bytes, open_npy

if TYPE_CHECKING:
    import io
    from collections.abc import Callable, Iterator

__all__ = ["register", "split_file"]

CHUNK_BYTES: Final = 4 * 2**20  # a read of the input: small enough to stay in the CPU caches
PROGRESS_BYTES: Final = 256 * 2**20
MAX_OPEN: Final = 64  # outputs written at once; more are written in passes of this many
OP: Final = "split"  # after "datamove: error: ", as "run" and "convert" are


class _Progress:
    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total, self.done, self.stream, self.shown = total, 0, stream, -1

    def add(self, n: int) -> None:
        self.done += n
        if self.stream is None or not self.total:
            return
        pct = self.done * 100 // self.total
        if pct != self.shown:
            self.shown = pct
            bar = "#" * (pct // 4)
            gib = self.total / 2**30
            self.stream.write(f"\rsplit: [{bar:<25}] {pct:3d}% of {gib:.2f} GiB")
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None and self.shown >= 0:
            self.stream.write("\n")
            self.stream.flush()


def split_file(
    path: str | os.PathLike[str],
    axis: int,
    outputs: list[str | os.PathLike[str]],
    *,
    lengths: list[int] | None = None,
    num_splits: int | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    progress: TextIO | None = None,
) -> list[tuple[int, ...]]:
    """Split the ``.npy`` file at ``path`` along ``axis`` into ``outputs`` (VariadicSplit rules).

    Parameters
    ----------
    path : path
        A regular ``.npy`` file (never loaded whole: it is read once, in blocks).
    axis : int
        The axis to split; negative counts from the end.
    outputs : list of paths
        One file per piece, written as ``np.save`` writes it, in the input's memory order (for
        a Fortran-order input, as ``np.save(np.asfortranarray(piece))``) and dtype. A symbolic
        link is followed: its target is replaced, as ``np.save`` would write there. A new file
        gets mode ``0o666`` less the umask; a replaced file keeps its permission bits.
    lengths, num_splits : optional
        ``split_lengths`` (one may be -1) as for VariadicSplit, or ``num_splits`` as for Split.
    chunk_bytes : int, optional
        The most bytes each read of the input moves (at least one byte).
    progress : text stream, optional
        Where to draw a progress bar.

    Returns
    -------
    list of tuple of int
        The shape of every output.

    Raises
    ------
    ValidationError
        ``path`` is not a regular file, cannot be read, is not a ``.npy`` file (an empty file, a
        ``.npz`` archive, a malformed header, data shorter than the header says, Python
        objects), or is cut short while it is read; ``outputs`` is not a list or tuple of
        paths (a single ``str`` is refused, not read as one path per character); the lengths do not
        fit the shape; ``outputs`` are not one distinct file per piece, or one of them is not a
        regular file (a directory, a device) or cannot be written (a missing folder, no
        permission, a full disk). Nothing is written then, and files that existed are as they
        were (but for a rename that fails where the file system cannot hard-link: a file that an
        earlier output replaced is removed then, not put back).

    Examples
    --------
    >>> import tempfile, pathlib, numpy as np
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> np.save(tmp / "x.npy", np.arange(10))
    >>> split_file(tmp / "x.npy", 0, [tmp / "a.npy", tmp / "b.npy"], lengths=[3, -1])
    [(3,), (7,)]
    >>> np.load(tmp / "b.npy").tolist()
    [3, 4, 5, 6, 7, 8, 9]
    """
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValidationError(OP, "chunk_bytes", chunk_bytes, "must be a positive int")
    if not isinstance(outputs, list | tuple) or not all(
        isinstance(o, str | os.PathLike) for o in outputs
    ):  # a str would be read as one path per character
        raise ValidationError(
            OP, "outputs", outputs, "must be a list of paths (str or os.PathLike), one per piece"
        )
    for k, out in enumerate(outputs):
        path_name(out, functools.partial(ValidationError, OP, f"--out[{k}]", out))
    name = os.fspath(path) if isinstance(path, str | os.PathLike) else path
    in_error = functools.partial(ValidationError, OP, "file", name)
    f, head = open_npy(path, in_error)
    with f:
        if lengths is not None:
            shapes = infer_variadic_split(head.shape, axis, lengths)
        else:
            shapes = infer_split(head.shape, axis, num_splits)
        named = [os.fspath(o) for o in outputs]
        if len(outputs) != len(shapes):
            rule = f"must name {len(shapes)} files, one per piece"
            raise ValidationError(OP, "--out", named, rule)
        reals = [Path(os.path.realpath(o)) for o in outputs]  # through a link, as np.save writes
        if len(set(reals)) != len(reals) or Path(os.path.realpath(name)) in reals:
            rule = "must be distinct files, none of them the input"
            raise ValidationError(OP, "--out", named, rule)
        a = axis + len(head.shape) if axis < 0 else axis
        dims = [s.to_shape() for s in shapes]
        bar = _Progress(head.nbytes, progress if head.nbytes >= PROGRESS_BYTES else None)
        temps: list[Path] = []
        try:
            for k, real in enumerate(reals):  # every target is checked before any data is copied
                temps.append(_create_temp(k, outputs[k], real))
            for first in range(0, len(temps), MAX_OPEN):  # one pass over the input each
                group = range(first, min(first + MAX_OPEN, len(temps)))
                _copy(f, head, a, dims, group, temps, outputs, chunk_bytes, bar, in_error)
            commit(temps, reals, lambda k, exc: _unwritable(k, outputs[k], exc))
        finally:
            bar.close()
            for tmp in temps:
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
    return [tuple(d) for d in dims]


def _unwritable(k: int, out: str | os.PathLike[str], exc: OSError) -> ValidationError:
    reason = exc.strerror or type(exc).__name__
    return ValidationError(OP, f"--out[{k}]", os.fspath(out), f"cannot be written ({reason})")


def _create_temp(k: int, out: str | os.PathLike[str], real: Path) -> Path:
    """Check the target ``real`` of ``--out[k]``; create the temporary file to write it under."""
    try:
        try:
            info: os.stat_result | None = real.stat()
        except FileNotFoundError:
            info = None  # a new file (a missing folder is found creating the temporary file)
        if info is not None and not stat.S_ISREG(info.st_mode):
            rule = f"is {kind(info.st_mode)}, not a regular file"
            raise ValidationError(OP, f"--out[{k}]", os.fspath(out), rule)
        tmp = temporary_beside(real)  # np.save keeps an existing file's mode too
    except OSError as exc:  # a missing folder, no permission
        raise _unwritable(k, out, exc) from None
    return tmp


def _copy(
    f: io.FileIO,
    head: NpyHeader,
    axis: int,
    dims: list[tuple[int, ...]],
    group: range,
    temps: list[Path],
    outputs: list[str | os.PathLike[str]],
    chunk_bytes: int,
    bar: _Progress,
    in_error: Callable[[str], ValidationError],
) -> None:
    """Write the outputs numbered ``group`` to their temporary files, in one pass over ``f``.

    The file holds a C-order array (a Fortran-order file holds the reversed shape in C order).
    Seen as ``rows`` rows of ``width`` bytes, output ``k`` is bytes ``cols[k]:cols[k + 1]`` of
    every row, in the file's order: so it keeps the input's memory order, and each block read is
    written out with at most one copy that gathers its rows.
    """
    shape, b = head.shape, axis
    if head.fortran:
        shape, b = shape[::-1], len(shape) - 1 - axis
    inner = math.prod(shape[b + 1 :]) * head.dtype.itemsize
    rows, width = math.prod(shape[:b]), shape[b] * inner
    cols = list(itertools.accumulate((d[axis] * inner for d in dims), initial=0))
    lo, hi = cols[group.start], cols[group.stop]
    # the widest unsigned int that divides every column: gathering moves words, not bytes
    unit = next(u for u in (8, 4, 2, 1) if not any(c % u for c in (width, *cols)))
    span = min(chunk_bytes, (rows - 1) * width + hi - lo) if rows and hi > lo else 0
    read_buf = np.empty(span, np.uint8)
    gather_buf: np.ndarray[Any, Any] | None = None
    k = group.start  # the output being written: an OSError is its (a full disk, an I/O error)
    try:
        with contextlib.ExitStack() as stack:
            files: dict[int, BinaryIO] = {}
            for k in group:
                # as np.save(np.asfortranarray(piece)): a piece with one dimension above 1 (or
                # none, or no element) is C-contiguous too, and np.save writes it in C order
                fortran = head.fortran and sum(d > 1 for d in dims[k]) > 1 and 0 not in dims[k]
                files[k] = stack.enter_context(temps[k].open("wb"))
                files[k].write(header_bytes(head.dtype, dims[k], fortran=fortran))
            for row, n, c0, c1 in _tiles(rows, width, lo, hi, chunk_bytes):
                got = read_buf.data[: (n - 1) * width + c1 - c0]
                read_exactly(f, got, head.offset + row * width + c0, in_error)
                for k in group:
                    first, last = max(cols[k], c0), min(cols[k + 1], c1)
                    if first >= last:
                        continue
                    if n == 1 or last - first == width:  # one run of bytes
                        data = got[first - c0 : first - c0 + (n - 1) * width + last - first]
                    else:  # n rows of last - first bytes, width apart: gather them
                        word = np.dtype(f"u{unit}")
                        size = n * (last - first)
                        if gather_buf is None:
                            gather_buf = np.empty(span, np.uint8)
                        src = np.ndarray(
                            (n, (last - first) // unit), word, read_buf, first - c0, (width, unit)
                        )
                        np.copyto(gather_buf[:size].view(word).reshape(src.shape), src)
                        data = gather_buf.data[:size]
                    files[k].write(data)
                    bar.add(data.nbytes)
            for k in group:
                files[k].close()  # flushes: a full disk may show here
    except OSError as exc:
        raise _unwritable(k, outputs[k], exc) from None


def _tiles(
    rows: int, width: int, lo: int, hi: int, chunk_bytes: int
) -> Iterator[tuple[int, int, int, int]]:
    """The reads that cover bytes ``lo:hi`` of every row, in order, of ``chunk_bytes`` at most.

    Each is ``(first row, rows, first byte, end byte)``: whole rows, or a part of one row.
    """
    if not rows or hi <= lo:
        return
    if hi - lo <= chunk_bytes:
        step = max(1, (chunk_bytes - (hi - lo)) // width + 1)  # (step - 1) * width + hi - lo
        for row in range(0, rows, step):
            yield row, min(step, rows - row), lo, hi
    else:  # a row longer than a block: a part of it at a time
        for row in range(rows):
            for c in range(lo, hi, chunk_bytes):
                yield row, 1, c, min(c + chunk_bytes, hi)


_EPILOG = """\
examples:
  datamove split big.npy --axis 0 --lengths 800,100,-1 --out train.npy val.npy test.npy
  datamove split big.npy --axis 1 --num-splits 2 --out left.npy right.npy --json

The file is read once, in blocks, so it may be larger than memory; it must be a regular file.
Each output keeps the input's memory order (C or Fortran). Outputs are written under temporary
names and renamed at the end: on an error or Ctrl-C none is left behind.
"""


def _cmd(args: argparse.Namespace) -> int:
    lengths = None
    if args.lengths is not None:
        try:
            lengths = [int(p) for p in args.lengths.split(",")] if args.lengths.strip() else []
        except ValueError:
            raise ValidationError(
                OP, "--lengths", args.lengths, "must be comma-separated integers"
            ) from None
    stream = sys.stderr if sys.stderr.isatty() or args.progress else None
    try:
        shapes = split_file(
            args.file,
            args.axis,
            args.out,
            lengths=lengths,
            num_splits=args.num_splits,
            progress=stream,
        )
    except KeyboardInterrupt:
        print("datamove: interrupted; no output written", file=sys.stderr)
        return 130
    if args.json:
        print(
            json.dumps(
                [{"file": f, "shape": list(s)} for f, s in zip(args.out, shapes, strict=True)],
                indent=2,
            )
        )
    else:
        for f, s in zip(args.out, shapes, strict=True):
            print(f"{f}: {list(s)} ({plural(math.prod(s), 'element')})")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add ``datamove split``."""
    parser = subparsers.add_parser(
        "split",
        help="split a .npy file (even one larger than memory) into several .npy files",
        description="Split a .npy file along an axis with VariadicSplit's (or Split's) rules, "
        "reading it once, in blocks.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", help="the .npy file to split")
    parser.add_argument("--axis", type=int, required=True, help="the axis to split")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--lengths", help="split_lengths, comma-separated; one may be -1 (the rest)")
    how.add_argument("--num-splits", type=int, help="split into this many equal pieces")
    parser.add_argument(
        "--out", nargs="+", required=True, metavar="FILE.npy", help="one file per piece"
    )
    parser.add_argument(
        "--progress",
        action="store_true",
        help="draw the progress bar even when stderr is not a terminal",
    )
    parser.add_argument("--json", action="store_true", help="print the outputs' shapes as JSON")
    parser.set_defaults(func=_cmd)
