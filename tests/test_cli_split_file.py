"""``datamove split``: streaming split of .npy files; no partial output on error or Ctrl-C."""

from __future__ import annotations

import errno
import functools
import io
import json
import math
import os
import socket
import stat
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any, Self

import numpy as np
import pytest

from datamove._errors import ValidationError
from datamove.cli import _split_file, main
from datamove.cli._npy import load_npy


@pytest.fixture
def big(tmp_path: Path) -> tuple[Path, np.ndarray]:
    x = np.arange(1000 * 6, dtype=np.int32).reshape(1000, 6)
    np.save(tmp_path / "x.npy", x)
    return tmp_path / "x.npy", x


def test_issue_example(big: tuple[Path, np.ndarray], capsys: pytest.CaptureFixture[str]) -> None:
    path, x = big
    outs = [str(path.parent / n) for n in ("a.npy", "b.npy", "c.npy")]
    assert (
        main(
            ["split", str(path), "--axis", "0", "--lengths", "800,100,-1", "--out", *outs, "--json"]
        )
        == 0
    )
    assert [o["shape"] for o in json.loads(capsys.readouterr().out)] == [
        [800, 6],
        [100, 6],
        [100, 6],
    ]
    for out, want in zip(outs, (x[:800], x[800:900], x[900:]), strict=True):
        np.testing.assert_array_equal(np.load(out), want)


def test_small_chunks_other_axis_and_progress(big: tuple[Path, np.ndarray], tmp_path: Path) -> None:
    path, x = big
    bar = io.StringIO()
    shapes = _split_file.split_file(
        path,
        -1,
        [tmp_path / "l.npy", tmp_path / "r.npy"],
        num_splits=2,
        chunk_bytes=7,
        progress=bar,
    )
    assert shapes == [(1000, 3), (1000, 3)]
    np.testing.assert_array_equal(np.load(tmp_path / "r.npy"), x[:, 3:])
    assert bar.getvalue() == ""  # small work: no bar


def test_progress_bar_for_long_work(
    big: tuple[Path, np.ndarray], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_split_file, "PROGRESS_BYTES", 1)
    bar = io.StringIO()
    _split_file.split_file(
        big[0], 0, [tmp_path / "a.npy"], lengths=[-1], chunk_bytes=4096, progress=bar
    )
    assert "100% of" in bar.getvalue()


def test_error_leaves_nothing(
    big: tuple[Path, np.ndarray], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = big
    before = sorted(tmp_path.iterdir())
    assert (
        main(["split", str(path), "--axis", "0", "--lengths", "800,300", "--out", "a.npy", "b.npy"])
        == 1
    )
    assert "sum to 1100" in capsys.readouterr().err
    assert (
        main(
            [
                "split",
                str(path),
                "--axis",
                "0",
                "--lengths",
                "800,-1",
                "--out",
                str(tmp_path / "a.npy"),
            ]
        )
        == 1
    )
    assert (
        main(
            [
                "split",
                str(path),
                "--axis",
                "0",
                "--lengths",
                "1,-1",
                "--out",
                str(path),
                str(tmp_path / "z.npy"),
            ]
        )
        == 1
    )
    assert (
        main(
            [
                "split",
                str(tmp_path / "none.npy"),
                "--axis",
                "0",
                "--num-splits",
                "1",
                "--out",
                "q.npy",
            ]
        )
        == 1
    )
    assert main(["split", str(path), "--axis", "0", "--out", "q.npy"]) == 2
    lengths = ["--lengths", "800,,200", "--out", str(tmp_path / "a.npy"), str(tmp_path / "b.npy")]
    assert main(["split", str(path), "--axis", "0", *lengths]) == 1  # once read as 800,200
    assert sorted(tmp_path.iterdir()) == before


def test_interrupt_leaves_nothing(
    big: tuple[Path, np.ndarray], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Interrupt:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def add(self, _n: int) -> None:
            raise KeyboardInterrupt

        def close(self) -> None:
            pass

    monkeypatch.setattr(_split_file, "_Progress", Interrupt)
    before = sorted(tmp_path.iterdir())
    outs = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy")]
    assert main(["split", str(big[0]), "--axis", "0", "--num-splits", "2", "--out", *outs]) == 130
    assert sorted(tmp_path.iterdir()) == before


def test_unwritable_output_is_an_error_naming_it(
    big: tuple[Path, np.ndarray], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a missing folder once ended in a FileNotFoundError traceback
    path, _ = big
    before = sorted(tmp_path.iterdir())
    missing = str(tmp_path / "no" / "b.npy")
    args = ["split", str(path), "--axis", "0", "--num-splits", "2"]
    assert main([*args, "--out", str(tmp_path / "a.npy"), missing]) == 1
    err = capsys.readouterr().err
    assert f"--out[1]={missing!r} cannot be written (No such file or directory)" in err
    assert sorted(tmp_path.iterdir()) == before  # the first piece's file is gone too


def test_summary_counts_elements_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    np.save(tmp_path / "one.npy", np.arange(2))
    out = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy")]
    assert (
        main(
            ["split", str(tmp_path / "one.npy"), "--axis", "0", "--num-splits", "2", "--out", *out]
        )
        == 0
    )
    assert capsys.readouterr().out.splitlines() == [
        f"{out[0]}: [1] (1 element)",
        f"{out[1]}: [1] (1 element)",
    ]


# --- outputs: checked first, written with ordinary writes, renamed all or none ---------------


posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, sockets and umasks are POSIX")


def _split(path: Path, *outs: Path | str, how: tuple[str, ...] = ("--num-splits", "2")) -> int:
    return main(["split", str(path), "--axis", "0", *how, "--out", *map(str, outs)])


def _listing(folder: Path) -> dict[str, bytes | str]:
    """Every entry of ``folder``: a file's bytes, a link's target, or its kind."""
    seen: dict[str, bytes | str] = {}
    for p in sorted(folder.iterdir()):
        if p.is_symlink():
            seen[p.name] = f"-> {p.readlink()}"
        elif p.is_file():
            seen[p.name] = p.read_bytes()
        else:
            seen[p.name] = "dir" if p.is_dir() else "other"
    return seen


class _FullDisk:
    """A file on a disk with ``room[0]`` bytes free: a write that needs more fails (ENOSPC)."""

    def __init__(self, f: Any, room: list[int]) -> None:
        self.f, self.room = f, room

    def write(self, data: Any) -> int:
        n = memoryview(data).nbytes
        if n > self.room[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room[0] -= n
        return int(self.f.write(data))

    def close(self) -> None:
        self.f.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.f.close()


def test_full_disk_is_an_error_that_leaves_nothing(
    big: tuple[Path, np.ndarray],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # each output was a sparse file filled through a memory map: a full disk killed the
    # process with SIGBUS (exit 135, no message) and left its temporary file behind
    path, _ = big
    np.save(tmp_path / "a.npy", np.arange(3))
    before = _listing(tmp_path)
    real_open, room = Path.open, [20_000]  # a piece is 12,000 bytes and a header

    def full_open(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = real_open(self, mode, *args, **kwargs)
        return _FullDisk(f, room) if "w" in mode else f

    monkeypatch.setattr(Path, "open", full_open)
    assert _split(path, tmp_path / "a.npy", tmp_path / "b.npy") == 1
    err = capsys.readouterr().err
    assert err == (
        f"datamove: error: split: --out[1]={str(tmp_path / 'b.npy')!r} "
        "cannot be written (No space left on device)\n"
    )
    assert _listing(tmp_path) == before


@posix_only
def test_every_target_is_checked_before_anything_is_written(
    big: tuple[Path, np.ndarray], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a directory as the second output once failed at its rename, after the first output
    # had replaced a.npy
    path, _ = big
    np.save(tmp_path / "a.npy", np.arange(3))
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "locked").mkdir()
    before = _listing(tmp_path)
    cases = {
        "d": "is a directory, not a regular file",
        "fifo": "is a FIFO, not a regular file",
        "no/b.npy": "cannot be written (No such file or directory)",
    }
    for name, rule in cases.items():
        target = str(tmp_path / name)
        assert _split(path, tmp_path / "a.npy", target) == 1
        assert capsys.readouterr().err == (f"datamove: error: split: --out[1]={target!r} {rule}\n")
        assert _listing(tmp_path) == before


@posix_only
def test_sockets_are_refused_as_outputs(
    big: tuple[Path, np.ndarray], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "s"))
        assert _split(big[0], tmp_path / "a.npy", tmp_path / "s") == 1
    finally:
        sock.close()
    assert "--out[1]=" in (err := capsys.readouterr().err)
    assert "is a socket, not a regular file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s", "x.npy"]


def test_a_symlink_is_written_through_as_np_save_does(
    big: tuple[Path, np.ndarray], tmp_path: Path
) -> None:
    # the link itself was replaced by a regular file
    path, x = big
    np.save(tmp_path / "a.npy", np.arange(3))
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.npy").symlink_to("a.npy")
    (tmp_path / "dangling.npy").symlink_to("sub/new.npy")
    assert _split(path, tmp_path / "link.npy", tmp_path / "dangling.npy") == 0
    assert (tmp_path / "link.npy").readlink() == Path("a.npy")
    assert (tmp_path / "dangling.npy").readlink() == Path("sub/new.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), x[:500])
    np.testing.assert_array_equal(np.load(tmp_path / "sub" / "new.npy"), x[500:])
    # a link to another output, or to the input, is the same file
    assert _split(path, tmp_path / "a.npy", tmp_path / "link.npy") == 1
    (tmp_path / "in.npy").symlink_to(path)
    assert _split(tmp_path / "in.npy", path, tmp_path / "b.npy") == 1


@posix_only
@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077, 0o002], ids=oct)
def test_new_outputs_get_the_mode_np_save_gives(
    big: tuple[Path, np.ndarray], tmp_path: Path, umask: int
) -> None:
    # mkstemp's 0o600 used to survive the rename, whatever the umask
    old = os.umask(umask)
    try:
        np.save(tmp_path / "ref.npy", np.arange(3))
        np.save(tmp_path / "kept.npy", np.arange(3))
        (tmp_path / "kept.npy").chmod(0o640)
        assert _split(big[0], tmp_path / "new.npy", tmp_path / "kept.npy") == 0
    finally:
        os.umask(old)
    mode = stat.S_IMODE((tmp_path / "ref.npy").stat().st_mode)
    assert stat.S_IMODE((tmp_path / "new.npy").stat().st_mode) == mode == 0o666 & ~umask
    assert stat.S_IMODE((tmp_path / "kept.npy").stat().st_mode) == 0o640  # as np.save keeps it


@pytest.mark.parametrize("links", [True, False], ids=["hard links", "no hard links"])
@pytest.mark.parametrize(
    "failure", [OSError(errno.EBUSY, "Device or resource busy"), None], ids=["EBUSY", "Ctrl-C"]
)
def test_a_failed_rename_undoes_the_renames_before_it(
    big: tuple[Path, np.ndarray],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    links: bool,
    failure: OSError | None,
) -> None:
    # a.npy was left written (and an existing a.npy overwritten) when a later rename failed;
    # Ctrl-C among the renames said "no output written" while some were
    path, _ = big
    np.save(tmp_path / "a.npy", np.arange(3))
    before = _listing(tmp_path)
    real_replace = Path.replace

    def replace(self: Path, target: Any) -> Path:
        if Path(target).name == "c.npy":
            raise failure if failure is not None else KeyboardInterrupt
        return real_replace(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    if not links:

        def no_links(self: Path, target: Any) -> None:
            raise OSError(errno.EPERM, "Operation not permitted")

        monkeypatch.setattr(Path, "hardlink_to", no_links)
    outs = [tmp_path / n for n in ("b.npy", "a.npy", "c.npy")]
    code = _split(path, *outs, how=("--lengths", "1,2,-1"))
    err = capsys.readouterr().err
    if failure is None:
        assert (code, err) == (130, "datamove: interrupted; no output written\n")
    else:
        assert code == 1
        assert err.endswith(
            f"--out[2]={str(outs[2])!r} cannot be written (Device or resource busy)\n"
        )
    if not links:  # the replaced a.npy cannot be put back: it is gone, as documented
        del before["a.npy"]
    assert _listing(tmp_path) == before


# --- the input: anything but a .npy file is one clear, short error ---------------------------


def _npy(header: bytes, body: bytes = b"", version: bytes = b"\x01\x00") -> bytes:
    header += b" " * (63 - (len(header) + 10) % 64) + b"\n"
    field = len(header).to_bytes(2 if version == b"\x01\x00" else 4, "little")
    return b"\x93NUMPY" + version + field + header + body


def _zip() -> bytes:
    f = io.BytesIO()
    np.savez(f, a=np.arange(4))
    return f.getvalue()


_F8 = b"{'descr': '<f8', 'fortran_order': False, 'shape': %s}"


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        pytest.param(b"", "it is empty", id="empty"),
        pytest.param(_zip(), "it is a zip archive (a .npz?)", id="npz"),
        pytest.param(b"hello world", "it starts with b'hello wo', not NumPy's magic", id="text"),
        pytest.param(b"\x93NUMPY\x01", "it ends after 7 bytes, inside the magic", id="cut magic"),
        pytest.param(b"\x93NUMPY\x01\x00", "it ends inside its header length", id="no length"),
        pytest.param(_npy(_F8 % b"(4,)")[:20], "it ends inside its 118-byte header", id="cut"),
        pytest.param(b"\x93NUMPY\x09\x00" + _npy(b"{}")[8:], "format version 9.0", id="v9"),
        pytest.param(b"\x93NUMPY\x02\x00\xff\xff\xff\x7f", "2147483647 bytes long", id="huge"),
        pytest.param(_npy(b"{'descr':"), "its header cannot be parsed: {'descr':", id="syntax"),
        pytest.param(_npy(b"[1, 2]"), "its header is not a dict of ['descr',", id="list"),
        pytest.param(_npy(_F8 % b"(True,)"), "shape=(True,) is not a tuple of non-neg", id="bool"),
        pytest.param(_npy(_F8 % b"(-4,)"), "shape=(-4,) is not a tuple of", id="negative"),
        pytest.param(_npy(_F8 % b"(4.0,)"), "shape=(4.0,) is not a tuple of", id="float"),
        pytest.param(_npy(_F8 % b"(2**62, 2**62)"), "its header cannot be parsed", id="expression"),
        pytest.param(
            _npy(_F8 % b"(4611686018427387904, 4611686018427387904)"),
            "describes 170141183460469231731687303715884105728 bytes of data, but the file holds 0",
            id="huge shape",
        ),
        pytest.param(_npy(_F8 % b"(4,)", b"\0" * 31), "32 bytes of data, but the", id="short"),
        # NumPy counts every dim but the zeros even in an empty array: np.load refuses these
        pytest.param(
            _npy(_F8 % b"(0, 4611686018427387904, 4)"),
            "shape=(0, 4611686018427387904, 4) needs 2**67 bytes or more as float64: NumPy allows",
            id="empty but huge",
        ),
        pytest.param(
            _npy(_F8 % b"(9223372036854775808, 0)"),
            "shape=(9223372036854775808, 0) needs 2**66 bytes or more as float64: NumPy allows",
            id="dim past intp",
        ),
        pytest.param(
            _npy(_F8 % (b"(" + b"1, " * 65 + b")"), b"\0" * 8),
            "characters) has rank 65, more than NumPy's limit of 64 dimensions",
            id="65 dims",
        ),
        pytest.param(
            _npy(b"{'descr': '|O', 'fortran_order': False, 'shape': (2,)}", b"\0" * 16),
            "descr=|O holds Python objects",
            id="object",
        ),
        pytest.param(
            _npy(b"{'descr': '<q9', 'fortran_order': False, 'shape': (2,)}"),
            "descr=<q9 is not a dtype (data type '<q9' not understood)",
            id="dtype",
        ),
        pytest.param(
            _npy(b"{'descr': '<f8', 'fortran_order': 1, 'shape': (2,)}", b"\0" * 16),
            "fortran_order=1 is not a bool",
            id="fortran",
        ),
        pytest.param(
            _npy(_F8 % (b"[" * 4000 + b"]" * 4000)), "its header cannot be parsed", id="deep"
        ),
        pytest.param(
            _npy(_F8 % b"(1,)" + b" " * 70_000, version=b"\x02\x00"),
            "bytes long, more than NumPy reads",
            id="long header",
        ),
    ],
)
def test_a_file_that_is_not_npy_is_one_short_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, reason: str
) -> None:
    # an empty file was an EOFError traceback, a .npz an AttributeError, a cut header a
    # tokenize.TokenError, shape (True,) a TypeError; a deep header gave an 8 KB message and a
    # huge shape a RuntimeWarning with source lines (warnings are errors in this suite)
    (tmp_path / "in.npy").write_bytes(content)
    assert _split(tmp_path / "in.npy", tmp_path / "a.npy", tmp_path / "b.npy") == 1
    err = capsys.readouterr().err
    head = f"datamove: error: split: file={str(tmp_path / 'in.npy')!r} is not a .npy file: "
    assert err.startswith(head)
    assert reason in err
    assert err.count("\n") == 1
    assert len(err) < len(head) + 250
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.npy"]
    with pytest.raises(ValidationError, match=r"is not a \.npy file"):
        _split_file.split_file(tmp_path / "in.npy", 0, [tmp_path / "a.npy"], num_splits=1)


@posix_only
def test_an_input_that_is_no_regular_file_is_refused_without_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "fifo")  # opening it to read would wait for a writer
    assert _split(tmp_path / "fifo", tmp_path / "a.npy") == 1
    assert "file=" in (err := capsys.readouterr().err)
    assert "is a FIFO, not a regular file" in err
    assert _split(tmp_path, tmp_path / "a.npy") == 1
    assert "is a directory, not a regular file" in capsys.readouterr().err


@pytest.mark.parametrize("descr", [b"<U0", b"|S0", b"|V0"])
def test_load_npy_of_zero_width_strings_is_what_np_load_returns(
    tmp_path: Path, descr: bytes
) -> None:
    # np.empty makes '<U0' a '<U1' array: load_npy returned '<U1' elements of memory it never
    # wrote (nothing is read for 0-byte items), where np.load returns '<U0' empty strings.
    path = tmp_path / "z.npy"
    path.write_bytes(_npy(b"{'descr': '%s', 'fortran_order': False, 'shape': (3, 2)}" % descr))
    want = np.load(path)
    got = load_npy(path, functools.partial(ValidationError, "t", "file", "z.npy"))
    assert (got.dtype, got.shape) == (want.dtype, want.shape) == (np.dtype(descr.decode()), (3, 2))
    assert got.tolist() == want.tolist()


def test_python_2_headers_still_read(tmp_path: Path) -> None:
    # np.load reads the ``4L`` ints Python 2 wrote; so does split
    x = np.arange(4.0)
    (tmp_path / "in.npy").write_bytes(_npy(_F8 % b"(4L,)", x.tobytes()))
    assert _split(tmp_path / "in.npy", tmp_path / "a.npy", tmp_path / "b.npy") == 0
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), x[2:])


# --- the outputs are what np.save writes ----------------------------------------------------

_DTYPES = [
    np.dtype(np.int8),
    np.dtype(">i4"),
    np.dtype("<c16"),
    np.dtype(bool),
    np.dtype("M8[s]"),
    np.dtype("U3"),
    np.dtype([("a", "<i2"), ("b", ">f4", (2,))]),
    np.dtype([("\u00e9", "<f8")]),  # latin-1: a version 1.0 header
    np.dtype([("\u20ac", "<f8")]),  # not latin-1: version 3.0
]


@pytest.mark.parametrize("dtype", _DTYPES, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_outputs_are_byte_for_byte_what_np_save_writes(
    tmp_path: Path, dtype: np.dtype[Any], order: str, version: tuple[int, int]
) -> None:
    rng = np.random.default_rng(0)
    shape = (4, 6, 2)
    raw = rng.integers(0, 256, math.prod(shape) * dtype.itemsize, dtype=np.uint8)
    x = np.asarray(raw.view(dtype).reshape(shape), order=order)
    with warnings.catch_warnings():  # "Stored array in format 3.0"
        warnings.simplefilter("ignore", UserWarning)
        with (tmp_path / "x.npy").open("wb") as f:
            try:
                np.lib.format.write_array(f, x, version=version)
            except UnicodeEncodeError:
                pytest.skip("this dtype's header needs version 3.0")
        for axis in range(x.ndim):
            for chunk in (1, 7, 2**20):
                outs = [tmp_path / "a.npy", tmp_path / "b.npy"]
                _split_file.split_file(
                    tmp_path / "x.npy", axis, outs, num_splits=2, chunk_bytes=chunk
                )
                for out, want in zip(outs, np.split(x, 2, axis=axis), strict=True):
                    ref = io.BytesIO()  # each piece keeps the input's order: never transposed
                    np.save(ref, np.asarray(want, order=order).copy(order=order))
                    assert out.read_bytes() == ref.getvalue(), (axis, chunk)
                    assert np.load(out).tobytes() == want.tobytes()


def test_padding_bytes_never_show_stale_memory(tmp_path: Path) -> None:
    # strided blocks are copied field by field into a buffer before they are written: the
    # buffer is zeroed, so the padding between fields is zeros, never memory np.empty got
    dtype = np.dtype({"names": ["x"], "formats": ["u1"], "offsets": [2], "itemsize": 5})
    x = np.zeros((4, 6), dtype)
    x["x"] = np.arange(24).reshape(4, 6)
    np.save(tmp_path / "x.npy", x)
    outs = [tmp_path / "a.npy", tmp_path / "b.npy"]
    _split_file.split_file(tmp_path / "x.npy", 1, outs, num_splits=2, chunk_bytes=7)
    for out, want in zip(outs, np.split(x, 2, axis=1), strict=True):
        expected = np.zeros(want.shape, dtype)
        expected["x"] = want["x"]
        assert np.load(out).tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    ("rows", "width", "lo", "hi", "chunk"),
    [
        (3, 1000, 0, 1000, 64),
        (10, 28, 0, 28, 1),
        (10, 28, 8, 20, 40),
        (1, 30, 0, 30, 7),
        (6, 9, 0, 9, 100),
    ],
)
def test_tiles_cover_every_row_in_order_and_stay_under_the_chunk(
    rows: int, width: int, lo: int, hi: int, chunk: int
) -> None:
    # each read (n rows from column c0 to c1) spans (n - 1) * width + c1 - c0 bytes of the file
    tiles = list(_split_file._tiles(rows, width, lo, hi, chunk))
    assert all((n - 1) * width + c1 - c0 <= chunk for _, n, c0, c1 in tiles)
    covered = [(r + i, c) for r, n, c0, c1 in tiles for i in range(n) for c in range(c0, c1)]
    assert covered == [(r, c) for r in range(rows) for c in range(lo, hi)]


def test_chunk_bytes_must_be_a_positive_int(big: tuple[Path, np.ndarray], tmp_path: Path) -> None:
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValidationError, match=r"chunk_bytes=.* must be a positive int"):
            _split_file.split_file(big[0], 0, [tmp_path / "a.npy"], lengths=[-1], chunk_bytes=bad)


def test_an_output_with_a_nul_is_a_validation_error(
    big: tuple[Path, np.ndarray], tmp_path: Path
) -> None:
    # It was a raw "ValueError: embedded null byte", where the input's NUL is this error.
    before = sorted(tmp_path.iterdir())
    outs = [tmp_path / "a.npy", f"{tmp_path}/b\0.npy"]
    with pytest.raises(ValidationError, match=r"--out\[1\]=.* is not a valid path \(it holds"):
        _split_file.split_file(big[0], 0, outs, lengths=[1, -1])
    assert sorted(tmp_path.iterdir()) == before


def test_outputs_must_be_a_list_of_paths(
    big: tuple[Path, np.ndarray], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    for bad in ("ab", b"ab", [123], [tmp_path / "a.npy", None], None):
        with pytest.raises(ValidationError, match=r"outputs=.* must be a list of paths"):
            _split_file.split_file(big[0], 0, bad, num_splits=2)  # type: ignore[arg-type]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]  # no files "a" and "b"


# --- the input cut short while it is split: an error naming it, and nothing left behind -------


_CUT = """
import functools, os, sys
from datamove.cli import _split_file
from datamove.cli import main

path = sys.argv[1]


class Cut:  # the progress bar: it truncates the input once the first block is written
    def __init__(self, *args, **kwargs):
        self.calls = 0

    def add(self, n):
        self.calls += 1
        if self.calls == 1:
            os.truncate(path, 200)

    def close(self):
        pass


_split_file._Progress = Cut
_split_file.split_file = functools.partial(_split_file.split_file, chunk_bytes=4096)
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("axis", [0, 1])
def test_split_of_an_input_cut_short_is_an_error_that_leaves_nothing(
    tmp_path: Path, axis: int, order: str
) -> None:
    # the input was memory-mapped: along axis 1, cut during the split, the process died of SIGBUS
    # (exit -7) and left .a.npy.*.tmp and .b.npy.*.tmp behind; along axis 0 it blamed the output
    # (--out[0]=... cannot be written (Bad address)). A subprocess, so that a SIGBUS is a failure.
    x = np.arange(64 * 1000, dtype=np.float64).reshape(64, 1000)
    np.save(tmp_path / "x.npy", np.asarray(x, order=order))
    outs = [str(tmp_path / "a.npy"), str(tmp_path / "b.npy")]
    argv = ["split", str(tmp_path / "x.npy"), "--axis", str(axis), "--num-splits", "2"]
    done = subprocess.run(
        [sys.executable, "-c", _CUT, str(tmp_path / "x.npy"), *argv, "--out", *outs],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert (done.returncode, done.stdout) == (1, "")
    head = f"datamove: error: split: file={str(tmp_path / 'x.npy')!r} was cut short"
    assert done.stderr.startswith(f"{head} while it was being read: it is 200 bytes now, but")
    assert done.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


def test_split_file_reads_the_input_with_ordinary_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the same, in the library: the input shrinks between two reads
    np.save(tmp_path / "x.npy", np.zeros((50, 40)))
    real = _split_file.read_exactly
    calls = []

    def shrinking(*args: Any) -> None:
        calls.append(args)
        if len(calls) == 2:
            os.truncate(tmp_path / "x.npy", 1000)
        real(*args)

    monkeypatch.setattr(_split_file, "read_exactly", shrinking)
    cut = functools.partial(
        _split_file.split_file, tmp_path / "x.npy", 1, num_splits=2, chunk_bytes=1024
    )
    with pytest.raises(ValidationError, match=r"is 1000 bytes now, but held at least \d+ when"):
        cut([tmp_path / "a.npy", tmp_path / "b.npy"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_outputs_past_max_open_are_written_in_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, axis: int, order: str
) -> None:
    # every output is written at once (the input is read once); more than MAX_OPEN would run
    # out of file descriptors, so they are written MAX_OPEN at a time
    monkeypatch.setattr(_split_file, "MAX_OPEN", 3)
    x = np.asarray(np.arange(7 * 8 * 9, dtype=np.int16).reshape(7, 8, 9), order=order)
    np.save(tmp_path / "x.npy", x)
    n = x.shape[axis]
    outs = [tmp_path / f"{k}.npy" for k in range(n)]
    for chunk in (5, 64, 2**20):
        _split_file.split_file(tmp_path / "x.npy", axis, outs, num_splits=n, chunk_bytes=chunk)
        for out, want in zip(outs, np.split(x, n, axis=axis), strict=True):
            np.testing.assert_array_equal(np.load(out), want)


def test_an_output_name_np_save_can_write_is_written(tmp_path: Path) -> None:
    # A name of 241 to 255 bytes was "cannot be written (File name too long)": its temporary
    # name, ".NAME.xxxxxxxx.tmp", is 15 bytes longer. np.save writes it.
    np.save(tmp_path / "x.npy", np.arange(6))
    long = tmp_path / ("\u00e9" * 100 + "a" * 51 + ".npy")  # 255 bytes in UTF-8
    assert len(os.fsencode(long.name)) == 255
    shapes = _split_file.split_file(tmp_path / "x.npy", 0, [long, tmp_path / "b.npy"], num_splits=2)
    assert shapes == [(3,), (3,)]
    assert np.load(long).tolist() == [0, 1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([long.name, "b.npy", "x.npy"])
