"""``datamove split``: split a ``.npy`` file larger than memory into several ``.npy`` files.

The input is memory-mapped and each output is filled by a streaming copy in blocks of about
``CHUNK_BYTES``, so memory use stays bounded whatever the file size. The outputs are written under
temporary names beside their targets and renamed only when every one is complete: an error or
Ctrl-C leaves no partial file behind. A progress bar is drawn on stderr for long work (more than
``PROGRESS_BYTES``) when stderr is a terminal.
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, Final, TextIO

import numpy as np

from datamove._errors import ValidationError
from datamove._split import infer_split, infer_variadic_split

__all__ = ["register", "split_file"]

CHUNK_BYTES: Final = 64 * 2**20
PROGRESS_BYTES: Final = 256 * 2**20
OP: Final = "datamove split"


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
        A ``.npy`` file (never loaded whole: it is memory-mapped).
    axis : int
        The axis to split; negative counts from the end.
    outputs : list of paths
        One file per piece.
    lengths, num_splits : optional
        ``split_lengths`` (one may be -1) as for VariadicSplit, or ``num_splits`` as for Split.
    chunk_bytes : int, optional
        About how many bytes each block of the streaming copy moves.
    progress : text stream, optional
        Where to draw a progress bar.

    Returns
    -------
    list of tuple of int
        The shape of every output.

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
    try:
        src = np.load(path, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ValidationError(
            OP, "file", os.fspath(path), f"cannot be read as .npy ({exc})"
        ) from None
    if lengths is not None:
        shapes = infer_variadic_split(src.shape, axis, lengths)
    else:
        shapes = infer_split(src.shape, axis, num_splits)
    if len(outputs) != len(shapes):
        raise ValidationError(
            OP,
            "--out",
            [os.fspath(o) for o in outputs],
            f"must name {len(shapes)} files, one per piece",
        )
    targets = [Path(o) for o in outputs]
    if len({t.resolve() for t in targets}) != len(targets) or Path(path).resolve() in {
        t.resolve() for t in targets
    }:
        raise ValidationError(
            OP,
            "--out",
            [os.fspath(o) for o in outputs],
            "must be distinct files, none of them the input",
        )
    a = axis + src.ndim if axis < 0 else axis
    dims = [s.to_shape() for s in shapes]
    bar = _Progress(src.nbytes, progress if src.nbytes >= PROGRESS_BYTES else None)
    temps: list[Path] = []
    try:
        start = 0
        for shape, target in zip(dims, targets, strict=True):
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            os.close(fd)
            temps.append(Path(name))
            dst = np.lib.format.open_memmap(name, mode="w+", dtype=src.dtype, shape=shape)
            piece = src[(slice(None),) * a + (slice(start, start + shape[a]),)]
            start += shape[a]
            if piece.size:
                row = max(1, piece[0].nbytes if piece.ndim else piece.nbytes)
                step = max(1, chunk_bytes // row)
                for i in range(0, piece.shape[0], step):
                    dst[i : i + step] = piece[i : i + step]
                    bar.add(dst[i : i + step].nbytes)
            dst.flush()
            del dst
        for tmp, target in zip(temps, targets, strict=True):
            tmp.replace(target)
        temps.clear()
    except OSError as exc:  # a missing folder, no permission, a full disk
        names = [os.fspath(t) for t in temps]  # the failing file: a piece's, or the next one
        k = min(
            names.index(exc.filename) if exc.filename in names else len(temps), len(targets) - 1
        )
        raise ValidationError(
            OP, f"--out[{k}]", os.fspath(outputs[k]), f"cannot be written ({exc.strerror})"
        ) from None
    finally:
        bar.close()
        for tmp in temps:
            tmp.unlink(missing_ok=True)
    return [tuple(d) for d in dims]


_EPILOG = """\
examples:
  datamove split big.npy --axis 0 --lengths 800,100,-1 --out train.npy val.npy test.npy
  datamove split big.npy --axis 1 --num-splits 2 --out left.npy right.npy --json

The file is memory-mapped and copied in blocks, so it may be larger than memory. Outputs are
written under temporary names and renamed at the end: on an error or Ctrl-C none is left behind.
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
            n = math.prod(s)
            print(f"{f}: {list(s)} ({n} element{'' if n == 1 else 's'})")
    return 0


def register(subparsers: Any) -> None:
    """Add ``datamove split``."""
    parser = subparsers.add_parser(
        "split",
        help="split a .npy file (even one larger than memory) into several .npy files",
        description="Split a .npy file along an axis with VariadicSplit's (or Split's) rules, "
        "streaming from a memory map.",
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
