"""Damaged ``.npy`` files: datamove reads what ``np.load`` reads, and refuses the rest clearly.

Each example is a file ``np.save`` wrote (bool, float16, bfloat16, int4, non-native byte order,
0-d, empty, Fortran order, structured), then damaged: cut short, bytes overwritten, a token
pushed into the header, a dim made huge. `load_npy` must return exactly what ``np.load``
returns, or raise one short `ValidationError` where ``np.load`` fails too; ``split_file``
must give the pieces ``np.split`` gives, byte for byte as ``np.save`` writes them.
"""

from __future__ import annotations

import functools
import io
import warnings
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from datamove._errors import ValidationError
from datamove.cli._npy import load_npy
from datamove.cli._split_file import split_file
from strategies import examples

DTYPES = [
    np.dtype(bool),
    np.dtype(np.float16),
    np.dtype(">i4"),
    np.dtype("<f8"),
    np.dtype(">c8"),
    np.dtype("S3"),
    np.dtype(ml_dtypes.bfloat16),
    np.dtype(ml_dtypes.int4),
    np.dtype([("a", "<i2"), ("b", "u1")]),
]
TOKENS = [
    b"9",
    b"99999999999",
    b"-",
    b",",
    b"(",
    b"L",
    b"0,",
    b"True",
    b"'",
    b"4611686018427387904,",
]
HUGE = [b"0, 4611686018427387904, ", b"9223372036854775808, 0, ", b"1, " * 65]


@st.composite
def saved(draw: st.DrawFn) -> tuple[np.ndarray[Any, Any], bytes]:
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), max_size=3)))
    raw = draw(st.binary(min_size=dtype.itemsize * int(np.prod(shape)), max_size=64 * 8))
    array = np.frombuffer(raw[: dtype.itemsize * int(np.prod(shape))], dtype).reshape(shape)
    if len(shape) > 1 and draw(st.booleans()):
        array = np.asfortranarray(array)
    f = io.BytesIO()
    np.save(f, array)
    return array, f.getvalue()


@st.composite
def damaged(draw: st.DrawFn) -> bytes:
    _, data = draw(saved())
    content = bytearray(data)
    kind = draw(st.sampled_from(["none", "cut", "bytes", "token", "dims"]))
    if kind == "cut":
        del content[draw(st.integers(0, len(content))) :]
    elif kind == "bytes":
        for _ in range(draw(st.integers(1, 4))):
            content[draw(st.integers(0, len(content) - 1))] = draw(st.integers(0, 255))
    elif kind == "token":
        end = content.index(b"}")
        at = draw(st.integers(10, end))
        content[at:at] = draw(st.sampled_from(TOKENS))
    elif kind == "dims":  # dims NumPy cannot hold, even in an empty array, or more than 64
        dims = draw(st.sampled_from(HUGE))
        content = bytearray(bytes(content).replace(b"'shape': (", b"'shape': (" + dims, 1))
    return bytes(content)


def _np_load(path: Path) -> np.ndarray[Any, Any] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.load(path, allow_pickle=False)
    except Exception:  # noqa: BLE001 - any refusal of NumPy's
        return None


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=damaged())
def test_load_npy_reads_what_np_load_reads(tmp_path_factory: Any, content: bytes) -> None:
    path = tmp_path_factory.mktemp("npy") / "x.npy"
    path.write_bytes(content)
    want = _np_load(path)
    try:
        got = load_npy(path, functools.partial(ValidationError, "t", "file", "x.npy"))
    except ValidationError as exc:
        refused = str(exc)
    else:
        refused = None
    if refused is not None:
        assert "\n" not in refused
        assert len(refused) < 400
        assert want is None, f"np.load reads what datamove refuses: {refused}"
        return
    assert want is not None, "datamove read a file np.load refuses"
    assert (got.dtype, got.shape) == (want.dtype, want.shape)
    assert got.tobytes(order="A") == want.tobytes(order="A")
    assert got.flags.f_contiguous == want.flags.f_contiguous


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=saved(),
    axis=st.integers(-3, 2),
    parts=st.integers(1, 3),
    chunk=st.sampled_from([1, 3, 64, 4096]),
)
def test_split_file_gives_np_split_as_np_save_writes_it(
    tmp_path_factory: Any,
    case: tuple[np.ndarray[Any, Any], bytes],
    axis: int,
    parts: int,
    chunk: int,
) -> None:
    folder = tmp_path_factory.mktemp("split")
    (folder / "x.npy").write_bytes(case[1])
    array = np.load(folder / "x.npy")  # bfloat16 and int4 come back as raw bytes ('|V2')
    outs = [folder / f"o{k}.npy" for k in range(parts)]
    try:
        split_file(folder / "x.npy", axis, outs, num_splits=parts, chunk_bytes=chunk)
    except ValidationError:
        assert array.ndim == 0 or not -array.ndim <= axis < array.ndim or array.shape[axis] % parts
        assert not any(o.exists() for o in outs)
        return
    fortran = array.flags.f_contiguous and not array.flags.c_contiguous
    for out, piece in zip(outs, np.split(array, parts, axis=axis), strict=True):
        f = io.BytesIO()
        np.save(f, np.asfortranarray(piece) if fortran else np.ascontiguousarray(piece))
        assert out.read_bytes() == f.getvalue()
