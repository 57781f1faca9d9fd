"""The ``.npy`` files datamove reads and writes (``datamove split``, ``datamove run --input``).

The header is read and checked here, not by ``np.load``, so that a file which is not a ``.npy`` is
one clear error, and so that the data it describes is known to be in the file before any memory
is taken for it (``np.load`` of a header that claims 745 GiB asks for 745 GiB). The file is opened
by `datamove._files.open_regular` (a regular file, never waiting) and read with ordinary reads
(a file cut short meanwhile is an error, never a ``SIGBUS``).
"""

from __future__ import annotations

import ast
import io
import math
import struct
import tokenize
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from datamove._files import open_regular, read_exactly
from datamove.ir._ops import numpy_limit

if TYPE_CHECKING:
    from datamove._files import ErrorFactory

__all__ = ["NpyHeader", "header_bytes", "load_npy", "open_npy"]

_MAGIC: Final = b"\x93NUMPY"
_MAX_HEADER: Final = 10_000  # characters, np.load's default max_header_size
_HEADER_KEYS: Final = {"descr", "fortran_order", "shape"}
_GROWTH_DIGITS: Final = 21  # np.save pads the header so that the growth axis can grow in place
_BRIEF: Final = 100  # the most characters of NumPy's own text an error quotes


@dataclass(frozen=True, slots=True)
class NpyHeader:
    """What a ``.npy`` header says, checked: ``nbytes`` of data lie in the file from ``offset``."""

    shape: tuple[int, ...]
    fortran: bool
    dtype: np.dtype[Any]
    offset: int  # where the data starts in the file

    @property
    def nbytes(self) -> int:
        """The size of the data in bytes."""
        return math.prod(self.shape) * self.dtype.itemsize


def open_npy(path: object, error: ErrorFactory) -> tuple[io.FileIO, NpyHeader]:
    """Open the ``.npy`` file at ``path`` and check its header; the caller closes the file.

    ``error`` builds the exception from the rule broken: ``"does not exist"``, ``"is a FIFO, not
    a regular file"``, ``"is not a .npy file: it is empty"``...
    """
    f, size = open_regular(path, error)
    try:
        head = _read_header(f, lambda reason: error(f"is not a .npy file: {reason}"))
        _check_size(head, size, error)
    except BaseException:
        f.close()
        raise
    return f, head


def _check_size(head: NpyHeader, size: int, error: ErrorFactory) -> None:
    if head.offset + head.nbytes > size:
        raise error(
            f"is not a .npy file: its header describes {head.nbytes} bytes of data, "
            f"but the file holds {max(0, size - head.offset)}"
        )
    why = numpy_limit(head.shape, head.dtype.itemsize, str(head.dtype))
    if why is not None:
        raise error(f"is not a .npy file: shape={_brief(head.shape)} {why}")


def load_npy(path: object, error: ErrorFactory) -> np.ndarray[Any, Any]:
    """The array in the ``.npy`` file at ``path``, as ``np.load`` returns it (errors as `open_npy`).

    Memory follows the file: the header is checked against the file's size before the array is
    allocated.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from datamove import ValidationError
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> np.save(tmp / "x.npy", np.arange(6).reshape(2, 3))
    >>> load_npy(tmp / "x.npy", lambda rule: ValidationError("demo", "file", "x.npy", rule))
    array([[0, 1, 2],
           [3, 4, 5]])
    """
    f, head = open_npy(path, error)
    with f:
        try:  # np.ndarray, not np.empty, which makes '<U0' a '<U1' array (np.load does so)
            data = np.ndarray(math.prod(head.shape), head.dtype)
        except MemoryError:
            raise error(f"cannot be loaded: its {head.nbytes} bytes do not fit in memory") from None
        if head.nbytes:
            read_exactly(f, data.view(np.uint8).data, head.offset, error)
    return data.reshape(head.shape, order="F" if head.fortran else "C")


def _read(f: io.FileIO, n: int) -> bytes:
    """Up to ``n`` bytes: fewer only at the end of the file."""
    chunks, got = [], 0
    while got < n and (chunk := f.read(n - got)):
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _read_header(f: io.FileIO, bad: ErrorFactory) -> NpyHeader:
    """Read the magic string and header of a ``.npy`` file, as ``np.load`` would, but bounded."""
    magic = _read(f, len(_MAGIC) + 2)
    if not magic:
        raise bad("it is empty")
    if magic.startswith(b"PK\x03\x04"):
        raise bad(
            "it is a zip archive (a .npz?); save each array with numpy.save, "
            "or extract it: np.load(f)[name]"
        )
    if not magic.startswith(_MAGIC):
        raise bad(f"it starts with {magic!r}, not NumPy's magic string {_MAGIC!r}")
    if len(magic) < len(_MAGIC) + 2:
        raise bad(f"it ends after {len(magic)} bytes, inside the magic string")
    version = (magic[-2], magic[-1])
    if version not in {(1, 0), (2, 0), (3, 0)}:
        raise bad(f"format version {version[0]}.{version[1]} is not 1.0, 2.0 or 3.0")
    size = _read(f, 2 if version == (1, 0) else 4)
    if len(size) < (2 if version == (1, 0) else 4):
        raise bad("it ends inside its header length")
    length = int.from_bytes(size, "little")
    if length > 4 * _MAX_HEADER:  # UTF-8 takes 4 bytes a character at most
        raise bad(f"its header is {length} bytes long, more than NumPy reads")
    raw = _read(f, length)
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
        raise bad(f"descr={_brief(descr)} holds Python objects, which datamove does not read")
    if dtype.subdtype is not None:  # np.load fails on it too: its dims belong in shape
        raise bad(f"descr={_brief(descr)} is a subarray type, which np.save never writes")
    return NpyHeader(shape, fortran, dtype, len(magic) + len(size) + length)


def _legacy_header(
    size: bytes, raw: bytes, version: tuple[int, int], bad: ErrorFactory
) -> dict[str, Any]:
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


def header_bytes(dtype: np.dtype[Any], shape: tuple[int, ...], *, fortran: bool = False) -> bytes:
    """The header ``np.save`` writes for an array in C (or Fortran) order.

    Its version is the oldest that holds it, as ``np.save`` chooses.
    """
    d = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": fortran, "shape": shape}
    text = "{" + "".join(f"'{key}': {value!r}, " for key, value in sorted(d.items())) + "}"
    text += " " * (_GROWTH_DIGITS - len(repr(shape[-1 if fortran else 0])) if shape else 0)
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
