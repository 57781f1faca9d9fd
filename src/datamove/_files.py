"""Opening the files a user names: regular files only, without waiting, up to a size bound.

Every file datamove reads by its name is opened here: the file arguments of the command line
(``check`` and ``run``'s model and ``--bin``, ``run --input``, ``split``'s input, ``dml check``'s
FILE) and the paths the library takes (`datamove.ir.read_model`'s ``.xml`` and ``.bin``). So each
behaves the same way:

- Only a regular file is read (a symbolic link is followed). A directory, a FIFO, a socket or a
  device is refused by its kind, before it is opened: opening a FIFO would wait for a writer, and
  ``/dev/zero`` never ends. The file is opened with ``O_NONBLOCK`` and checked again on the open
  descriptor, so a path swapped for a FIFO in between cannot make it wait either.
- A file read whole (`read_regular`) is read up to a bound that no real file of its kind reaches,
  so memory follows the bound, never the file.
- Data is read with ordinary reads, never memory-mapped: a file cut short while datamove reads it
  is an error (`read_exactly`), where a read from a memory map would die of ``SIGBUS``. Each
  read names its offset (``preadv``), so processes forked after a file was opened (a model's
  ``.bin``) never move each other's reads by sharing its position.

Every file datamove writes is first written under a temporary name beside it
(`temporary_beside`) and renamed onto its name when whole, so a failure leaves no partial file;
several files written together are renamed all or none (`commit`).
The temporary file has the mode the target would get from ``open(path, "w")``: an existing
file's own, else ``0o666`` less the umask (``tempfile.mkstemp``'s ``0o600`` would stay after
the rename).

Each error is the caller's: it passes ``error``, which builds the exception (a
`datamove.ValidationError` naming its operator and argument) from the rule broken, e.g.
``"is a FIFO, not a regular file"``.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Callable

    from datamove._errors import ValidationError

    ErrorFactory = Callable[[str], ValidationError]

__all__ = [
    "commit",
    "kind",
    "open_regular",
    "path_name",
    "read_exactly",
    "read_regular",
    "temporary_beside",
]

_O_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)  # POSIX: opening a FIFO must not wait
_O_BINARY: Final = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_NAME_MAX: Final = 255  # the longest file name, in bytes, on the file systems in use


def kind(mode: int) -> str:
    """What a file that is not a regular file is, in words (``st_mode`` from ``os.stat``)."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a file"


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def path_name(path: object, error: ErrorFactory) -> str:
    """``path`` as a ``str``, checked: a ``str`` or an ``os.PathLike`` of one, with no NUL.

    Raises what ``error`` builds otherwise (``bytes`` names are refused: the messages and the
    names datamove compares are text).
    """
    name = os.fspath(path) if isinstance(path, str | os.PathLike) else None
    if not isinstance(name, str):  # not a path, or an os.PathLike of bytes
        raise error("is not a path (a str or an os.PathLike)")
    if "\0" in name:
        raise error("is not a valid path (it holds a NUL character)")
    return name


def open_regular(
    path: object, error: ErrorFactory, *, max_bytes: int | None = None, what: str = "a file"
) -> tuple[io.FileIO, int]:
    """Open the regular file at ``path`` to read, without waiting; return it and its size.

    Parameters
    ----------
    path : str or os.PathLike
        The file, as the user named it.
    error : callable
        Builds the exception to raise from the rule broken (``"does not exist"``).
    max_bytes : int, optional
        The largest size accepted; ``what`` names the kind of file in the message.

    Returns
    -------
    (io.FileIO, int)
        The file, unbuffered (the caller closes it), and its size in bytes.

    Raises
    ------
    datamove.ValidationError
        What ``error`` builds: ``path`` is not a path, does not exist, is not a regular file,
        cannot be read (no permission, a loop of links), or is larger than ``max_bytes``.
    """
    name = path_name(path, error)
    try:
        mode = Path(name).stat().st_mode  # first: a FIFO or a device is never opened (may wait)
        fd = os.open(name, os.O_RDONLY | _O_NONBLOCK | _O_BINARY) if stat.S_ISREG(mode) else -1
    except FileNotFoundError:
        raise error("does not exist") from None
    except OSError as exc:  # no permission, a loop of symbolic links, a name too long
        raise error(f"cannot be read ({_reason(exc)})") from None
    if fd < 0:
        raise error(f"is {kind(mode)}, not a regular file")
    try:
        info = os.fstat(fd)
        size = _checked(info.st_mode, info.st_size, error, max_bytes, what)
        if _O_NONBLOCK:
            os.set_blocking(fd, True)
        return io.FileIO(fd, "rb"), size
    except BaseException:
        os.close(fd)
        raise


def _checked(mode: int, size: int, error: ErrorFactory, max_bytes: int | None, what: str) -> int:
    if not stat.S_ISREG(mode):  # swapped since it was checked by name
        raise error(f"is {kind(mode)}, not a regular file")
    if max_bytes is not None and size > max_bytes:
        raise error(_too_big(size, max_bytes, what))
    return size


def _too_big(size: int | str, max_bytes: int, what: str) -> str:
    return f"is {size} bytes, more than the {max_bytes} bytes datamove reads of {what}"


def read_regular(path: object, error: ErrorFactory, *, max_bytes: int, what: str) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` of them.

    A file larger than ``max_bytes`` is an error (``what`` names its kind in the message), also
    one that grows past the bound while it is read. Other errors are those of `open_regular`.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from datamove import ValidationError
    >>> def error(rule):
    ...     return ValidationError("demo", "file", "x", rule)
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (tmp / "a.json").write_text("[1, 2]")
    >>> read_regular(tmp / "a.json", error, max_bytes=100, what="a demo file")
    b'[1, 2]'
    >>> read_regular(tmp / "a.json", error, max_bytes=4, what="a demo file")
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: demo: file='x' is 6 bytes, more than the 4 bytes datamove ...
    >>> read_regular(tmp, error, max_bytes=4, what="a demo file")
    Traceback (most recent call last):
    ...
    datamove._errors.ValidationError: demo: file='x' is a directory, not a regular file
    """
    f, size = open_regular(path, error, max_bytes=max_bytes, what=what)
    with f:
        chunks, total = [], 0
        try:
            # Ask for the size fstat gave (and a byte more, to see growth), not for max_bytes:
            # FileIO.read(n) allocates n bytes first (256 MiB for a 10 KiB .xml).
            while total <= max_bytes and (
                chunk := f.read(min(max_bytes + 1 - total, max(size + 1 - total, 1 << 16)))
            ):
                chunks.append(chunk)
                total += len(chunk)
        except OSError as exc:  # an I/O error
            raise error(f"cannot be read ({_reason(exc)})") from None
    if total > max_bytes:  # it grew after it was opened
        raise error(_too_big(f"more than {max_bytes}", max_bytes, what))
    return b"".join(chunks)


_preadv: Callable[[int, list[memoryview], int], int] | None = getattr(os, "preadv", None)


def read_exactly(f: io.FileIO, into: memoryview, offset: int, error: ErrorFactory) -> None:
    """Fill ``into`` with the bytes of ``f`` from ``offset`` on, with ordinary reads.

    The caller has checked that the file holds them; if it ends first all the same (it was cut
    short since: a memory map would have died of ``SIGBUS`` here), or cannot be read (an I/O
    error), raises what ``error`` builds.
    """
    done = 0
    try:
        if _preadv is None:  # pragma: no cover - Windows: no fork shares the file position
            f.seek(offset)
        while done < len(into):
            if _preadv is None:  # pragma: no cover
                n = f.readinto(into[done:])
            else:  # at its offset: a forked child shares the file position of f with its parent
                n = _preadv(f.fileno(), [into[done:]], offset + done)
            if not n:
                raise error(
                    f"was cut short while it was being read: it is {os.fstat(f.fileno()).st_size}"
                    f" bytes now, but held at least {offset + len(into)} when it was checked"
                )
            done += n
    except OSError as exc:
        raise error(f"cannot be read ({_reason(exc)})") from None


def _temporary_name(name: str, token: str) -> str:
    """``.NAME.TOKEN.tmp``, ``NAME`` cut so that the whole fits in ``_NAME_MAX`` bytes.

    A name that the file system takes keeps a temporary name it takes too (and ``commit``'s
    ``.old`` backup, as long):

    >>> len(_temporary_name("a" * 255, "0123abcd").encode())
    255
    >>> _temporary_name("x.npy", "0123abcd")
    '.x.npy.0123abcd.tmp'
    """
    stem = name
    room = _NAME_MAX - len(f"..{token}.tmp")
    while len(os.fsencode(stem)) > room:  # by characters: never half a UTF-8 sequence
        stem = stem[:-1]
    return f".{stem}.{token}.tmp"


def temporary_beside(target: Path) -> Path:
    """Create an empty file beside ``target`` under a fresh name, to be renamed onto it.

    Its mode is ``target``'s where it exists, else ``0o666`` less the umask. ``OSError`` as the
    system raises it (a missing folder, no permission); nothing is left behind then.
    """
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        tmp = target.with_name(_temporary_name(target.name, secrets.token_hex(4)))
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_BINARY, 0o666))
            break
        except FileExistsError:
            continue
    if mode is not None:
        try:
            tmp.chmod(mode)
        except OSError:
            tmp.unlink(missing_ok=True)
            raise
    return tmp


def commit(
    temps: list[Path], reals: list[Path], unwritable: Callable[[int, OSError], ValidationError]
) -> None:
    """Rename every temporary file onto its target, or (on an error or Ctrl-C) none.

    A target that existed is kept under a hard link until all renames are done, so that undoing
    a rename puts it back; where the file system cannot link, undoing the rename removes it. A
    rename's ``OSError`` is raised as ``unwritable(k, exc)``, ``k`` the number of its target.
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
            raise unwritable(tried - 1, exc) from None
        raise
    finally:
        for _, _, backup in moves:
            with contextlib.suppress(OSError):
                backup.unlink(missing_ok=True)
