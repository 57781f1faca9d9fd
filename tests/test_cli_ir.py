"""``datamove check`` and ``datamove run``, through main([...]) and once as a subprocess."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from datamove import ir
from datamove.cli import main
from datamove.ir._examples import _XML, write_example, write_onnx_example
from ir_examples import write_unsound_example


def test_check_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(write_example(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "OK: no problems found" in out
    assert "output parts_b: [2,4] f32" in out


def test_check_json_and_input_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = write_example(tmp_path)
    assert main(["check", str(xml), "--input-shape", "x=[?,1]", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert report["problems"][0]["layer_type"] == "VariadicSplit"
    assert main(["check", str(xml), "--input-shape", "x=[?,6]", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["outputs"]["parts_b"]["shape"] == "[?,4]"
    assert (report["checked"], report["opaque"]) == ({"VariadicSplit": 1}, {})


def test_check_opaque_layers_are_counted_not_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = tmp_path / "lstm.xml"
    xml.write_text(_XML.replace('type="VariadicSplit"', 'type="LSTMCell"'))
    write_example(tmp_path)  # its .bin
    xml.with_suffix(".bin").write_bytes((tmp_path / "example.bin").read_bytes())
    assert main(["check", str(xml)]) == 0
    out = capsys.readouterr().out
    assert "\nchecked 0 layers; 1 opaque (LSTMCell 1)\nOK: no problems found\n" in out
    assert main(["check", str(xml), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["ok"], report["checked"], report["opaque"]) == (True, {}, {"LSTMCell": 1})
    npy = tmp_path / "x.npy"
    np.save(npy, np.zeros((2, 6), np.float32))
    out_dir = tmp_path / "out"
    assert main(["run", str(xml), "--input", f"x={npy}", "--output-dir", str(out_dir)]) == 1
    err = capsys.readouterr().err
    assert "(LSTMCell): cannot run: datamove does not compute LSTMCell layers" in err
    assert "Traceback" not in err
    assert not out_dir.exists()


def test_check_broken_file_is_exit_1_without_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.xml"
    bad.write_text("<net version='11'><layers>")
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("datamove: error: IR: xml=")
    assert "Traceback" not in err


def test_usage_error_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 2
    assert main(["run", "model.xml"]) == 2  # --output-dir is required
    assert main(["check", "--help"]) == 0
    assert "examples:" in capsys.readouterr().out


def test_run_writes_outputs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = write_example(tmp_path)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out"
    assert (
        main(
            [
                "run",
                str(xml),
                "--input",
                f"x={tmp_path / 'x.npy'}",
                "--output-dir",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    written = json.loads(capsys.readouterr().out)
    assert written["parts_a"]["shape"] == [2, 2]
    np.testing.assert_array_equal(np.load(out / "parts_a.npy"), x[:, :2])
    np.testing.assert_array_equal(np.load(out / "parts_b.npy"), x[:, 2:])


def test_run_refuses_outputs_whose_file_names_clash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # outputs 'a/b' and 'a_b' are both written as a_b.npy: one would overwrite the other
    xml = tmp_path / "m.xml"
    xml.write_text(
        _XML.replace('names="parts_a"', 'names="a/b"').replace('names="parts_b"', 'names="a_b"')
    )
    xml.with_suffix(".bin").write_bytes(np.array([1, 2, -1], dtype="<i8").tobytes())
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    out = tmp_path / "out"
    argv = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        "datamove: error: run: outputs=['a/b', 'a_b'] map to the same file name\n"
    )
    assert not out.exists()


def test_run_error_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    xml = tmp_path / "m.xml"
    xml.write_text(
        _XML.replace('shape="2,6"', 'shape="2,?"').replace("<dim>6</dim>", "<dim>-1</dim>")
    )
    xml.with_suffix(".bin").write_bytes(np.array([1, 2, -1], dtype="<i8").tobytes())
    np.save(tmp_path / "x.npy", np.zeros((2, 1), np.float32))
    out = tmp_path / "out"
    assert (
        main(["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]) == 1
    )
    assert "failed at run time" in capsys.readouterr().err
    assert not out.exists() or not list(out.iterdir())
    assert main(["run", str(xml), "--input", "x", "--output-dir", str(out)]) == 1
    assert (
        main(
            ["run", str(xml), "--input", f"x={tmp_path / 'missing.npy'}", "--output-dir", str(out)]
        )
        == 1
    )


def test_real_subprocess(tmp_path: Path) -> None:
    xml = write_example(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "datamove", "check", str(xml), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["ok"] is True
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "datamove",
            "explain",
            "strided-slice",
            "--shape",
            "2,3,4",
            "--begin",
            "1,0,0",
            "--end",
            "0,0,2",
            "--begin-mask",
            "0,1,1",
            "--end-mask",
            "1,1,0",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "NumPy:        x[1:, :, :2]" in done.stdout


def test_run_into_a_file_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # --output-dir naming a file once ended in a FileExistsError traceback
    xml = write_example(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    run = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir"]
    before = sorted(tmp_path.iterdir())
    assert main([*run, str(xml)]) == 1
    assert f"--output-dir={str(xml)!r} is not a writable folder (File exists)" in (
        capsys.readouterr().err
    )
    assert main([*run, str(xml / "sub")]) == 1
    assert "is not a writable folder (Not a directory)" in capsys.readouterr().err
    assert sorted(tmp_path.iterdir()) == before


def test_run_that_fails_renaming_leaves_the_folder_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The outputs are renamed into place at the end; a rename that failed once left the
    # outputs renamed before it in place: a partial output, replacing files that were there.
    xml = write_example(tmp_path)
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(2, 6))
    out = tmp_path / "out"
    out.mkdir()
    (out / "parts_a.npy").write_bytes(b"old a")
    real = Path.replace
    calls = []

    def replace(self: Path, target: Path) -> Path:
        calls.append(Path(target).name)
        if Path(target).name == "parts_b.npy":
            raise OSError(28, "No space left on device")
        return real(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    argv = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]
    assert main(argv) == 1
    assert (
        f"--output-dir={str(out)!r} cannot hold 'parts_b.npy', output 'parts_b' (No space left"
        in capsys.readouterr().err
    )
    assert "parts_a.npy" in calls  # renamed before the failing one
    assert sorted(p.name for p in out.iterdir()) == ["parts_a.npy"]
    assert (out / "parts_a.npy").read_bytes() == b"old a"


@pytest.mark.skipif(os.name != "posix", reason="umasks are POSIX")
@pytest.mark.parametrize("umask", [0o022, 0o077], ids=oct)
def test_written_files_take_the_umask_as_np_save_does(tmp_path: Path, umask: int) -> None:
    # run's outputs and save_model's files were written with mkstemp's 0o600, whatever the umask
    xml = write_example(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    out = tmp_path / "out"
    out.mkdir()
    (out / "parts_b.npy").write_bytes(b"")
    (out / "parts_b.npy").chmod(0o640)  # an existing file keeps its mode, as np.save keeps it
    old = os.umask(umask)
    try:
        args = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]
        assert main(args) == 0
        ir.save_model(ir.read_model(xml), tmp_path / "copy.xml")
    finally:
        os.umask(old)
    for path in (out / "parts_a.npy", tmp_path / "copy.xml", tmp_path / "copy.bin"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path.name
    assert stat.S_IMODE((out / "parts_b.npy").stat().st_mode) == 0o640
    assert sorted(p.name for p in out.iterdir()) == ["parts_a.npy", "parts_b.npy"]


@pytest.mark.parametrize(
    ("etype", "precision", "name"),
    [("bf16", "BF16", "bfloat16"), ("f8e4m3", "F8E4M3", "float8_e4m3fn"), ("i4", "I4", "int4")],
)
def test_run_reads_and_writes_ml_dtypes_as_np_save_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], etype: str, precision: str, name: str
) -> None:
    # np.save writes an ml_dtypes array as raw bytes ('|V2', '|V1'): NumPy's format has no name
    # for bfloat16. run reads such an input as its Parameter's type; np.load(out).view() it back.
    ml_dtypes = pytest.importorskip("ml_dtypes")
    dtype = np.dtype(getattr(ml_dtypes, name))
    write_example(tmp_path)
    xml = tmp_path / "typed.xml"
    xml.write_text(
        _XML.replace('element_type="f32"', f'element_type="{etype}"').replace(
            'precision="FP32"', f'precision="{precision}"'
        )
    )
    xml.with_suffix(".bin").write_bytes((tmp_path / "example.bin").read_bytes())
    x = (np.arange(12).reshape(2, 6) - 6).astype(dtype)
    np.save(tmp_path / "x.npy", x)
    assert np.load(tmp_path / "x.npy").dtype.kind == "V"  # what makes this test needed
    out_dir = tmp_path / "out"
    assert (
        main(["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out_dir)])
        == 0
    )
    assert f"parts_a: {dtype} [2, 2]" in capsys.readouterr().out
    back = np.load(out_dir / "parts_b.npy").view(dtype)
    assert back.dtype == dtype
    np.testing.assert_array_equal(back.astype(np.float32), x[:, 2:].astype(np.float32))
    # a void input of another size, or for a type NumPy names, is still the type error it was
    np.save(tmp_path / "v.npy", np.zeros((2, 6), "V3"))
    assert (
        main(["run", str(xml), "--input", f"x={tmp_path / 'v.npy'}", "--output-dir", str(out_dir)])
        == 1
    )
    err = capsys.readouterr().err
    assert f"dtype='|V3' is not the declared element type {etype}" in err
    assert f"(hint: convert it with .astype(ml_dtypes.{name}))" in err


def test_run_type_hint_names_numpy_types_as_np(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float64))
    xml = write_example(tmp_path)
    assert (
        main(
            [
                "run",
                str(xml),
                "--input",
                f"x={tmp_path / 'x.npy'}",
                "--output-dir",
                str(tmp_path / "o"),
            ]
        )
        == 1
    )
    assert "(hint: convert it with .astype(np.float32))" in capsys.readouterr().err


def test_run_never_writes_over_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An output named as an input file replaced it (split refuses the same); a link to an input
    # is replaced itself, so it is no input's file.
    xml = write_example(tmp_path)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    np.save(tmp_path / "parts_a.npy", x)
    (tmp_path / "sub").mkdir()
    for out_dir in (tmp_path, tmp_path / "sub" / ".."):
        argv = ["run", str(xml), "--input", f"x={tmp_path / 'parts_a.npy'}"]
        assert main([*argv, "--output-dir", str(out_dir)]) == 1
        err = capsys.readouterr().err
        assert "run: --output-dir=" in err
        assert "would replace the file of --input 'x=" in err
        np.testing.assert_array_equal(np.load(tmp_path / "parts_a.npy"), x)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "example.bin",
        "example.xml",
        "parts_a.npy",
        "sub",
    ]
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "parts_a.npy").symlink_to(tmp_path / "parts_a.npy")
    argv = ["run", str(xml), "--input", f"x={tmp_path / 'out' / 'parts_a.npy'}"]
    assert main([*argv, "--output-dir", str(tmp_path / "out")]) == 0
    np.testing.assert_array_equal(np.load(tmp_path / "parts_a.npy"), x)
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "parts_a.npy"), x[:, :2])


def test_run_refuses_an_output_file_that_is_no_regular_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A folder at DIR/parts_b.npy was "--output-dir='out' is not a writable folder (Is a
    # directory)", of a folder that is writable; a FIFO there was replaced without a word,
    # where split refuses every target but a regular file.
    xml = write_example(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    out = tmp_path / "out"
    out.mkdir()
    (out / "parts_a.npy").write_text("keep")
    argv = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]
    (out / "parts_b.npy").mkdir()
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        f"datamove: error: run: --output-dir={str(out)!r} holds 'parts_b.npy', a directory, where"
        " output 'parts_b' is to be written; only a regular file is replaced\n"
    )
    (out / "parts_b.npy").rmdir()
    if hasattr(os, "mkfifo"):
        os.mkfifo(out / "parts_b.npy")
        assert main(argv) == 1
        assert "holds 'parts_b.npy', a FIFO, where output 'parts_b'" in capsys.readouterr().err
        assert stat.S_ISFIFO((out / "parts_b.npy").lstat().st_mode)
    assert (out / "parts_a.npy").read_text() == "keep"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["parts_a.npy"] + (["parts_b.npy"] if hasattr(os, "mkfifo") else [])
    )


def test_run_names_the_output_file_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An output name too long for a file name was "--output-dir='out' is not a writable folder
    # (File name too long)", of a folder that is writable.
    write_example(tmp_path)
    xml = tmp_path / "long.xml"
    xml.write_text(_XML.replace('names="parts_a"', f'names="{"a" * 300}"'))
    xml.with_suffix(".bin").write_bytes((tmp_path / "example.bin").read_bytes())
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    out = tmp_path / "out"
    argv = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert f"--output-dir={str(out)!r} cannot hold 'aaaaaaaa" in err
    assert ".npy', output 'aaaa" in err
    assert err.endswith("' (File name too long)\n")
    assert not out.exists()  # datamove made it, and nothing was written: it was left empty


def test_run_that_fails_writing_removes_only_the_folders_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # --output-dir was created before the outputs were written, and left empty when they failed
    xml = write_example(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    real = Path.replace

    def replace(self: Path, target: Path) -> Path:
        if Path(target).name == "parts_b.npy":
            raise OSError(28, "No space left on device")
        return real(self, target)

    monkeypatch.setattr(Path, "replace", replace)
    mine = tmp_path / "mine"
    mine.mkdir()  # the user's own folder, empty: kept
    for out in (mine / "a" / "b", mine):
        argv = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]
        assert main(argv) == 1
        assert "(No space left on device)" in capsys.readouterr().err
        assert mine.is_dir()
        assert not list(mine.iterdir())
    monkeypatch.setattr(Path, "replace", real)
    out = mine / "a" / "b"
    argv = ["run", str(xml), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]
    assert main(argv) == 0
    assert sorted(p.name for p in out.iterdir()) == ["parts_a.npy", "parts_b.npy"]


def test_run_refuses_an_empty_output_dir_and_an_input_given_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # --output-dir "" (an unset variable) wrote into the current folder; a second --input of
    # one name silently replaced the first.
    monkeypatch.chdir(tmp_path)
    xml = write_example(tmp_path)
    np.save(tmp_path / "x.npy", np.zeros((2, 6), np.float32))
    np.save(tmp_path / "y.npy", np.ones((2, 6), np.float32))
    assert main(["run", str(xml), "--input", "x=x.npy", "--output-dir", ""]) == 1
    assert capsys.readouterr().err == (
        "datamove: error: run: --output-dir='' is empty; name a folder ('.' for this one)\n"
    )
    argv = ["run", str(xml), "--input", "x=x.npy", "--input", "x=y.npy", "--output-dir", "o"]
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        "datamove: error: run: --input='x=y.npy' names input 'x' a second time\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "example.bin",
        "example.xml",
        "x.npy",
        "y.npy",
    ]
    argv = ["check", str(xml), "--input-shape", "x=[2,6]", "--input-shape", "x=[?,1]"]
    assert main(argv) == 1
    assert capsys.readouterr().err == (
        "datamove: error: check: --input-shape='x=[?,1]' names input 'x' a second time\n"
    )


def refused_alike(path: Path, capsys: pytest.CaptureFixture[str], given: str) -> None:
    """``--input-shape``'s bad values: explain MODEL refuses each as check does."""
    for bad in ([f"{given}=[a]"], ["y=[2]"], [given], [f"{given}=[2]", f"{given}=[3]"]):
        argv = [a for b in bad for a in ("--input-shape", b)]
        assert main(["check", str(path), *argv]) == 1
        err = capsys.readouterr().err.replace("check: ", "explain: ")
        assert main(["explain", str(path), *argv]) == 1
        assert capsys.readouterr().err == err


def test_explain_takes_input_shapes_as_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # explain MODEL had no --input-shape (check had): x[-5:-3:-1] (StridedSlice) takes x[0] on
    # sizes 1 and 2, nothing from 3, as x[0:-3:-1] does on [?]; on [2] it is x[:1]
    xml = write_unsound_example(tmp_path)
    assert main(["explain", str(xml), "--json"]) == 0
    (layer,) = json.loads(capsys.readouterr().out)
    assert (layer["input_shape"], layer["output_shapes"], layer["numpy"]) == (
        "[?]",
        ["[..1]"],
        "x[0:-3:-1]",
    )
    assert main(["explain", str(xml), "--input-shape", "x=[2]", "--json"]) == 0
    (layer,) = json.loads(capsys.readouterr().out)
    assert (layer["input_shape"], layer["output_shapes"], layer["numpy"]) == (
        "[2]",
        ["[1]"],
        "x[:1]",
    )
    assert ir.read_model(xml).explain(input_shapes={"x": "[2]"}) == [layer]
    refused_alike(xml, capsys, "x")


def test_run_names_a_misspelt_or_missing_input_as_the_command_line_gave_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said "IR: layer 0 'x' (Parameter): inputs={} has no array for input 'x'" (the API's
    # words, not --input's) and, for --input y=x.npy, printed the array read from x.npy.
    xml = write_example(tmp_path)
    npy = tmp_path / "x.npy"
    np.save(npy, np.zeros((2, 6), np.float32))
    out_dir = tmp_path / "out"
    hint = "(hint: pass --input NAME=FILE.npy for each input: 'x')"
    argv = ["run", str(xml), "--output-dir", str(out_dir)]
    assert main([*argv, "--input", f"y={npy}"]) == 1
    err = capsys.readouterr().err
    assert err == f"datamove: error: run: --input='y={npy}' names no input of this model {hint}\n"
    assert main(argv) == 1
    assert capsys.readouterr().err == f"datamove: error: run: no --input gives input 'x' {hint}\n"
    assert main([*argv, "--input", f"y={tmp_path / 'absent.npy'}"]) == 1  # the name, first
    assert "names no input of this model" in capsys.readouterr().err
    assert not out_dir.exists()


def _example_named_27(tmp_path: Path) -> Path:
    """The example model with its input named '27' (its tensor still 'x'), as PyTorch's
    conversion names them."""
    xml = write_example(tmp_path)
    xml.write_text(
        xml.read_text().replace('name="x" type="Parameter"', 'name="27" type="Parameter"')
    )
    return xml


def test_an_unknown_input_name_hint_lists_the_other_names_taken(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A converted PyTorch model's input is '27' (or 'x'); check and run take both, but the API's
    # hint listed only '27' while the command's listed both.
    xml = _example_named_27(tmp_path)
    model = ir.read_model(xml)
    hint = "(hint: its inputs are 'x' (or '27'))"
    with pytest.raises(ir.IRError, match=re.escape(f"names no input of this model {hint}")):
        model.check({"y": "[2,6]"})
    with pytest.raises(ir.IRError, match=re.escape(f"names no input of this model {hint}")):
        model.run({"x": np.zeros((2, 6), np.float32), "y": np.zeros(1)})
    with pytest.raises(ir.IRError, match=re.escape("(hint: pass every input: 'x' (or '27'))")):
        model.run({"y": np.zeros((2, 6), np.float32)})
    assert main(["check", str(xml), "--input-shape", "y=[2,6]"]) == 1
    assert capsys.readouterr().err.endswith(f"names no input of this model {hint}\n")


def test_an_unknown_input_shape_name_shows_the_shape_given(tmp_path: Path) -> None:
    model = ir.read_model(write_example(tmp_path))
    with pytest.raises(ir.IRError) as e:  # it showed input_shapes['y']='y'
        model.check({"y": "[2,6]"})
    assert "input_shapes['y']='[2,6]' names no input of this model" in str(e.value)


@pytest.mark.parametrize("command", ["check", "explain"])
@pytest.mark.parametrize(
    ("given", "rule"),
    [
        ("x=[a]", "is not a shape in OpenVINO's notation (hint: write e.g. "),
        ("y=[2,6]", "names no input of this model (hint: its inputs are 'x')"),
    ],
    ids=["bad shape", "unknown name"],
)
def test_an_input_shape_error_is_said_in_the_option_s_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, given: str, rule: str
) -> None:
    # It said the API's words: "IR: input_shapes['x']='[a]' is not a shape ..."
    models = [write_example(tmp_path)]
    if importlib.util.find_spec("onnx") is not None:  # an ONNX model's errors alike
        models.append(write_onnx_example(tmp_path))
    for model in models:
        assert main([command, str(model), "--input-shape", given]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"datamove: error: {command}: --input-shape={given!r} {rule}"), err


def test_run_says_an_onnx_model_is_to_be_converted_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # check and explain read .onnx; run said "xml='m.onnx' is not well-formed XML"
    model = tmp_path / "m.onnx"
    model.write_bytes(b"\x08\x07")
    out_dir = tmp_path / "out"
    assert main(["run", str(model), "--input", "x=x.npy", "--output-dir", str(out_dir)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"datamove: error: run: model='{model}' is an ONNX model; run takes")
    assert "(hint: convert it first: ovc MODEL.onnx" in err
    assert not out_dir.exists()


def test_a_missing_bin_names_the_option_that_gives_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = write_example(tmp_path)
    lonely = tmp_path / "lonely.xml"
    lonely.write_bytes(xml.read_bytes())  # without lonely.bin
    assert main(["check", str(lonely)]) == 1
    err = capsys.readouterr().err
    assert "lonely.bin' does not exist" in err
    assert "--bin on the command line)" in err  # it said only "pass bin_path=", the API's name
    assert main(["check", str(lonely), "--bin", str(xml.with_suffix(".bin"))]) == 0


def test_a_value_without_its_name_is_shown_with_the_models_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xml = str(write_example(tmp_path))
    assert main(["check", xml, "--input-shape", "[?,6]"]) == 1
    assert capsys.readouterr().err == (
        "datamove: error: check: --input-shape='[?,6]' must be written NAME=VALUE "
        "(hint: e.g. --input-shape x=[?,6])\n"
    )
    assert main(["run", xml, "--input", "x.npy", "--output-dir", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err.endswith("(hint: e.g. --input x=x.npy)\n")


def test_a_name_without_its_value_is_shown_with_what_it_needs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --input-shape x hinted "e.g. --input-shape 27=x": the name taken as the value, given to
    # the first input's other name ('x' is input '27', as a PyTorch conversion names them)
    xml = _example_named_27(tmp_path)
    assert main(["check", str(xml), "--input-shape", "27"]) == 1
    assert capsys.readouterr().err.endswith("(hint: e.g. --input-shape 27=SHAPE)\n")
    assert main(["run", str(xml), "--input", "x", "--output-dir", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err.endswith("(hint: e.g. --input x=FILE.npy)\n")


def test_check_verbose_names_each_port_s_layer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # it printed "layer 3 port 2: [2,2]", to be looked up in the file by id
    assert main(["check", str(write_example(tmp_path)), "-v"]) == 0
    out = capsys.readouterr().out
    assert "\nports:\n  layer 0 'x' (Parameter) port 0: [2,6]\n" in out
    assert "\n  layer 3 'parts' (VariadicSplit) port 3: [2,2]\n" in out


def test_check_names_a_converted_input_as_run_takes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A model converted from PyTorch names its input by a number (OpenVINO's tensor name) and
    # by the argument's name: check showed "input  16: [2,6] f32" alone, while run's hints
    # listed both; each name check lists is one run takes.
    torch = pytest.importorskip("torch")
    ov = pytest.importorskip("openvino")
    import warnings

    class Cut(torch.nn.Module):  # type: ignore[misc]
        def forward(self, x: Any) -> Any:
            return x[:, 1:]

    with warnings.catch_warnings():  # convert_model traces, which torch 2.13 deprecates
        warnings.filterwarnings("ignore", r"`torch\.jit\.trace", DeprecationWarning)
        warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
        converted = ov.convert_model(Cut().eval(), example_input=torch.zeros(2, 6))
    xml = tmp_path / "cut.xml"
    ov.save_model(converted, xml)
    assert main(["check", str(xml)]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("  input  ")]
    head, _, rest = line.removeprefix("  input  ").partition(" (or ")
    others, _, shape = rest.partition("): ")
    names = [head, *others.split(", ")]
    assert "x" in names[1:]
    assert shape == "[?,?] f32"  # convert_model leaves the dims dynamic
    assert main(["check", str(xml), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["inputs"] == {
        head: {"shape": "[?,?]", "element_type": "f32", "aliases": names[1:]}
    }
    out_dir = tmp_path / "out"
    assert main(["run", str(xml), "--output-dir", str(out_dir)]) == 1
    listed = ", ".join(map(repr, names[1:]))
    assert capsys.readouterr().err.endswith(f"each input: {head!r} (or {listed}))\n")
    npy = tmp_path / "x.npy"
    np.save(npy, np.arange(12, dtype=np.float32).reshape(2, 6))
    for name in names:
        assert (
            main(["run", str(xml), "--input", f"{name}={npy}", "--output-dir", str(out_dir)]) == 0
        )
        (written,) = out_dir.iterdir()
        np.testing.assert_array_equal(np.load(written), np.arange(12).reshape(2, 6)[:, 1:])
        capsys.readouterr()


def test_check_lists_no_other_names_where_an_input_has_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = ir.read_model(write_example(tmp_path)).check()
    assert report.aliases == {}
    assert report.to_dict()["inputs"] == {
        "x": {"shape": "[2,6]", "element_type": "f32", "aliases": []}
    }
