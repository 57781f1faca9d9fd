"""``datamove split``: streaming split of .npy files; no partial output on error or Ctrl-C."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from datamove import _split_file
from datamove._cli import main


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
