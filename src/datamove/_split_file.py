"""``datamove split``: split a ``.npy`` file larger than memory into several ``.npy`` files.

The input is memory-mapped; each output is written with ordinary file writes in blocks of about
``CHUNK_BYTES``, so memory use stays bounded whatever the file size, and a full disk is an
``OSError`` (a write into a memory map would die of ``SIGBUS`` instead). The header is read and
checked here, not by ``np.load``, so that a file which is not a ``.npy`` is one clear error.

Every output is checked, and its temporary file created beside it, before any data is copied; the
outputs are renamed into place only when every one is complete, and if a rename fails (or Ctrl-C
lands among them), the renames already done are undone, a replaced file put back from a hard link
kept until the end: an error leaves no partial file behind and no output written. A progress bar
is drawn on stderr for long work (more than ``PROGRESS_BYTES``) when stderr is a terminal.
"""

# ruff: noqa: T201 - a command-line module: printing is its output

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import math
import os
import secrets
import stat
import struct
import sys
import tokenize
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

import numpy as np

from datamove._errors import ValidationError
from datamove._split import infer_split, infer_variadic_split

if TYPE_CHECKING:
    from collections.abc import Iterator

__all__ = ["register", "split_file"]

CHUNK_BYTES: Final = 64 * 2**20
PROGRESS_BYTES: Final = 256 * 2**20
OP: Final = "datamove split"

_MAGIC: Final = b"\x93NUMPY"
_MAX_HEADER: Final = 10_000  # characters, np.load's default max_header_size
_HEADER_KEYS: Final = {"descr", "fortran_order", "shape"}
_GROWTH_DIGITS: Final = 21  # np.save pads the header so that shape[0] can grow in place
_BRIEF: Final = 100  # the most characters of NumPy's own text an error quotes
_O_BINARY: Final = getattr(os, "O_BINARY", 0)  # Windows: no newline translation


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
        One file per piece, written as ``np.save`` writes it (C order, the input's dtype). A
        symbolic link is followed: its target is replaced, as ``np.save`` would write there. A
        new file gets mode ``0o666`` less the umask; a replaced file keeps its permission bits.
    lengths, num_splits : optional
        ``split_lengths`` (one may be -1) as for VariadicSplit, or ``num_splits`` as for Split.
    chunk_bytes : int, optional
        About how many bytes each block of the streaming copy moves (one element at least).
    progress : text stream, optional
        Where to draw a progress bar.

    Returns
    -------
    list of tuple of int
        The shape of every output.

    Raises
    ------
    ValidationError
        ``path`` cannot be read or is not a ``.npy`` file (an empty file, a ``.npz`` archive, a
        malformed header, data shorter than the header says, Python objects); the lengths do not
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
    src = _open_npy(path)
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
    reals = [Path(os.path.realpath(o)) for o in outputs]  # through a symlink, as np.save writes
    if len(set(reals)) != len(reals) or Path(os.path.realpath(path)) in reals:
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
        for k, real in enumerate(reals):  # every target is checked before any data is copied
            temps.append(_create_temp(k, outputs[k], real))
        start = 0
        for k, (shape, tmp) in enumerate(zip(dims, temps, strict=True)):
            piece = src[(slice(None),) * a + (slice(start, start + shape[a]),)]
            start += shape[a]
            try:
                _write(tmp, piece, chunk_bytes, bar)
            except OSError as exc:  # a full disk, an I/O error
                raise _unwritable(k, outputs[k], exc) from None
        _commit(temps, reals, outputs)
    finally:
        bar.close()
        for tmp in temps:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
    return [tuple(d) for d in dims]


def _open_npy(path: str | os.PathLike[str]) -> np.ndarray[Any, Any]:
    """Memory-map the array in the ``.npy`` file at ``path``, checking its header first."""
    name = os.fspath(path)

    def bad(reason: str) -> ValidationError:
        return ValidationError(OP, "file", name, f"is not a .npy file: {reason}")

    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | _O_BINARY)
    except OSError as exc:
        raise ValidationError(OP, "file", name, f"cannot be read ({exc.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ValidationError(OP, "file", name, f"is {_kind(info.st_mode)}, not a regular file")
    with os.fdopen(fd, "rb") as f:
        shape, fortran, dtype = _read_header(f, bad)
        nbytes = math.prod(shape) * dtype.itemsize
        if f.tell() + nbytes > info.st_size:
            raise bad(
                f"its header describes {nbytes} bytes of data, "
                f"but the file holds {max(0, info.st_size - f.tell())}"
            )
        if math.prod(shape) > np.iinfo(np.intp).max:
            raise bad(f"shape={shape!r} has more elements than NumPy can index")
        try:
            return np.memmap(f, dtype, "r", f.tell(), shape, "F" if fortran else "C")
        except (ValueError, TypeError, OverflowError, MemoryError, OSError) as exc:
            raise bad(f"it cannot be memory-mapped ({_brief(exc)})") from None


def _read_header(f: Any, bad: Any) -> tuple[tuple[int, ...], bool, np.dtype[Any]]:
    """Read the magic string and header of a ``.npy`` file, as ``np.load`` would, but bounded."""
    magic = f.read(len(_MAGIC) + 2)
    if not magic:
        raise bad("it is empty")
    if magic.startswith(b"PK\x03\x04"):
        raise bad("it is a zip archive (a .npz?); extract the array to split first")
    if not magic.startswith(_MAGIC):
        raise bad(f"it starts with {magic!r}, not NumPy's magic string {_MAGIC!r}")
    if len(magic) < len(_MAGIC) + 2:
        raise bad(f"it ends after {len(magic)} bytes, inside the magic string")
    version = (magic[-2], magic[-1])
    if version not in {(1, 0), (2, 0), (3, 0)}:
        raise bad(f"format version {version[0]}.{version[1]} is not 1.0, 2.0 or 3.0")
    size = f.read(2 if version == (1, 0) else 4)
    if len(size) < (2 if version == (1, 0) else 4):
        raise bad("it ends inside its header length")
    length = int.from_bytes(size, "little")
    if length > 4 * _MAX_HEADER:  # UTF-8 takes 4 bytes a character at most
        raise bad(f"its header is {length} bytes long, more than NumPy reads")
    raw = f.read(length)
    if len(raw) < length:
        raise bad(f"it ends inside its {length}-byte header")
    try:
        text = raw.decode("utf-8" if version == (3, 0) else "latin-1")
    except UnicodeDecodeError:
        raise bad("its version 3.0 header is not UTF-8") from None
    if len(text) > _MAX_HEADER:
        raise bad(f"its header is {len(text)} characters long, more than NumPy reads")
    try:
        header = ast.literal_eval(text)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        header = _legacy_header(size, raw, version, bad)
    if not isinstance(header, dict) or header.keys() != _HEADER_KEYS:
        raise bad(f"its header is not a dict of {sorted(_HEADER_KEYS)}: {_brief(text)}")
    shape, fortran, descr = header["shape"], header["fortran_order"], header["descr"]
    if not isinstance(shape, tuple) or any(type(d) is not int or d < 0 for d in shape):  # bool
        raise bad(f"shape={_brief(shape)} is not a tuple of non-negative ints")
    if not isinstance(fortran, bool):
        raise bad(f"fortran_order={_brief(fortran)} is not a bool")
    if isinstance(descr, np.dtype):  # from _legacy_header
        dtype = descr
    else:
        try:
            dtype = np.lib.format.descr_to_dtype(descr)
        except Exception as exc:  # noqa: BLE001 - NumPy's dtype parser raises many kinds
            raise bad(f"descr={_brief(descr)} is not a dtype ({_brief(exc)})") from None
    if dtype.hasobject:
        raise bad(f"descr={_brief(descr)} holds Python objects, which cannot be memory-mapped")
    return shape, fortran, dtype


def _legacy_header(size: bytes, raw: bytes, version: tuple[int, int], bad: Any) -> dict[str, Any]:
    """Parse a header Python's parser refused: NumPy still reads Python 2's ``3L`` ints in it."""
    read = {
        (1, 0): np.lib.format.read_array_header_1_0,
        (2, 0): np.lib.format.read_array_header_2_0,
    }.get(version)
    try:
        if read is None:
            raise ValueError  # noqa: TRY301 - version 3.0 has no Python 2 files
        with warnings.catch_warnings():  # "required additional header parsing"
            warnings.simplefilter("ignore", UserWarning)
            shape, fortran, dtype = read(io.BytesIO(size + raw))
    except (ValueError, tokenize.TokenError, MemoryError, RecursionError):
        raise bad(f"its header cannot be parsed: {_brief(raw)}") from None
    return {"shape": shape, "fortran_order": fortran, "descr": dtype}


def _brief(value: object) -> str:
    """``value`` (NumPy's message, a header) on one line, cut to ``_BRIEF`` characters."""
    text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    text = " ".join(text.split())
    return text if len(text) <= _BRIEF else f"{text[: _BRIEF - 20]}... ({len(text)} characters)"


def _kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a file"


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
            kind = _kind(info.st_mode)
            raise ValidationError(
                OP, f"--out[{k}]", os.fspath(out), f"is {kind}, not a regular file"
            )
        while True:
            tmp = real.with_name(f".{real.name}.{secrets.token_hex(4)}.tmp")
            try:  # 0o666 less the umask, as np.save creates a file (mkstemp's 0o600 stayed)
                os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY, 0o666))
                break
            except FileExistsError:
                continue
        if info is not None:  # np.save writes into the existing file: its mode stays
            try:
                tmp.chmod(stat.S_IMODE(info.st_mode))
            except OSError:
                tmp.unlink(missing_ok=True)
                raise
    except OSError as exc:  # a missing folder, no permission
        raise _unwritable(k, out, exc) from None
    return tmp


def _write(tmp: Path, piece: np.ndarray[Any, Any], chunk_bytes: int, bar: _Progress) -> None:
    """Write ``piece`` to ``tmp`` as ``np.save`` would, in blocks of about ``chunk_bytes``."""
    buffer = None  # for blocks that are not contiguous; zeroed: padding never shows old memory
    with tmp.open("wb") as f:  # ordinary writes: a full disk is an OSError, never a SIGBUS
        f.write(_header(piece.dtype, piece.shape))
        for block in _blocks(piece, chunk_bytes):
            flat = block.reshape(-1) if block.flags.c_contiguous else None
            if flat is None:
                if buffer is None or buffer.size < block.size:
                    buffer = np.zeros(block.size, piece.dtype)
                flat = buffer[: block.size]
                np.copyto(flat.reshape(block.shape), block)
            f.write(flat.view(np.uint8).data)
            bar.add(block.nbytes)


def _header(dtype: np.dtype[Any], shape: tuple[int, ...]) -> bytes:
    """The header ``np.save`` writes for a C-ordered array: the oldest version that holds it."""
    d = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": shape}
    text = "{" + "".join(f"'{key}': {value!r}, " for key, value in sorted(d.items())) + "}"
    text += " " * (_GROWTH_DIGITS - len(repr(shape[0])) if shape else 0)
    for version, field in (((1, 0), "<H"), ((2, 0), "<I"), ((3, 0), "<I")):
        try:
            body = text.encode("utf-8" if version == (3, 0) else "latin-1")
        except UnicodeEncodeError:
            continue
        pad = 63 - (len(_MAGIC) + 2 + struct.calcsize(field) + len(body)) % 64
        if len(body) + pad + 1 < 2 ** (8 * struct.calcsize(field)):
            size = struct.pack(field, len(body) + pad + 1)
            return np.lib.format.magic(*version) + size + body + b" " * pad + b"\n"
    raise AssertionError  # pragma: no cover - version 3.0 holds any header


def _blocks(piece: np.ndarray[Any, Any], chunk_bytes: int) -> Iterator[np.ndarray[Any, Any]]:
    """Consecutive blocks of ``piece`` in C order, each of about ``chunk_bytes`` at most."""
    if not piece.nbytes:
        return
    if piece.nbytes <= chunk_bytes:
        yield piece
        return
    inner, ax = piece.itemsize, piece.ndim - 1  # the bytes of one step along axis ax
    while ax > 0 and inner * piece.shape[ax] <= chunk_bytes:
        inner *= piece.shape[ax]
        ax -= 1
    step = max(1, chunk_bytes // inner)
    for index in np.ndindex(*piece.shape[:ax]):
        row = piece[index]
        for i in range(0, piece.shape[ax], step):
            yield row[i : i + step]


def _commit(temps: list[Path], reals: list[Path], outputs: list[str | os.PathLike[str]]) -> None:
    """Rename every temporary file onto its target, or (on an error or Ctrl-C) none.

    A target that existed is kept under a hard link until all renames are done, so that undoing
    a rename puts it back; where the file system cannot link, undoing the rename removes it.
    """
    moves = [(tmp, real, tmp.with_suffix(".old")) for tmp, real in zip(temps, reals, strict=True)]
    tried = 0
    try:
        for tmp, real, backup in moves:
            tried += 1
            with contextlib.suppress(OSError):  # no target, or no hard links here
                backup.hardlink_to(real)
            tmp.replace(real)
    except BaseException as exc:  # an error or Ctrl-C: undo the renames already done
        for tmp, real, backup in moves[:tried]:
            if tmp.exists():
                continue  # not renamed
            with contextlib.suppress(OSError):
                if backup.exists():
                    backup.replace(real)
                else:
                    real.unlink()
        if isinstance(exc, OSError):
            raise _unwritable(tried - 1, outputs[tried - 1], exc) from None
        raise
    finally:
        for _, _, backup in moves:
            with contextlib.suppress(OSError):
                backup.unlink(missing_ok=True)


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
