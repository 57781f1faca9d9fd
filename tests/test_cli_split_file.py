"""``datamove split``: streaming split of .npy files; no partial output on error or Ctrl-C."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import numpy as np
import pytest

from datamove import _split_file
from datamove._cli import main
from datamove._errors import ValidationError


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


posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs, sockets and umasks are POSIX")


def _split(path: Path, *outs: Path | str, how: tuple[str, ...] = ("--num-splits", "2")) -> int:
    return main(["split", str(path), "--axis", "0", *how, "--out", *map(str, outs)])


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
    head = (
        f"datamove: error: datamove split: file={str(tmp_path / 'in.npy')!r} is not a .npy file: "
    )
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


def test_python_2_headers_still_read(tmp_path: Path) -> None:
    # np.load reads the ``4L`` ints Python 2 wrote; so does split
    x = np.arange(4.0)
    (tmp_path / "in.npy").write_bytes(_npy(_F8 % b"(4L,)", x.tobytes()))
    assert _split(tmp_path / "in.npy", tmp_path / "a.npy", tmp_path / "b.npy") == 0
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), x[2:])
