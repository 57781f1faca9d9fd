"""Per-call cost of ``dm.Slicing`` parsing and emitting against the ``infer_*`` call it mirrors.

Issue 20's target (lower is better), as ratios measured side by side in this run:
  Slicing.from_numpy(text) + .to_onnx() of a rank-4 slicing   < 20 us, and
                                                              < 2 x dm.infer_strided_slice
                                                              (and dm.infer_slice) of the same
                                                              slicing on a rank-4 shape
Repeated arguments hit the parsers' and emitters' memos; the "cold" rows clear them before each
call, so they time the first call of a new slicing (peer c-ss: infer_strided_slice with its own
memo cleared before each call). Each row is timed twice: paired with its peer in wall-clock
time (``_timing.paired``), and alone in CPU time (``time.process_time``, the best of 7 batches):
on a machine shared with other jobs the CPU time moves far less than the wall clock.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from typing import Any

import datamove as dm
from bench._timing import paired

TEXT = "x[:, 1:-1, ::2, ::-1]"
SHAPE = (2, 8, 8, 8)


try:
    from datamove._dialect_memo import clear as _clear_memos
except ImportError:  # a version before the memos
    _clear_memos = None


def _clear() -> None:
    """Empty the Slicing memos, where this version has them (``datamove._dialect_memo``)."""
    if _clear_memos is not None:
        _clear_memos()


def _rows() -> list[tuple[str, Callable[[], Any], str, Callable[[], Any]]]:
    s = dm.Slicing.from_numpy(TEXT)
    ss = s.to_strided_slice()
    (_, sl), *_ = s.to_slice(SHAPE)
    onnx = s.to_onnx()[0][1]
    tf = s.to_tf()

    def infer_ss() -> Any:
        return dm.infer_strided_slice(SHAPE, **ss)

    def infer_sl() -> Any:
        return dm.infer_slice(SHAPE, sl["start"], sl["stop"], sl["step"], sl["axes"])

    def cold_numpy_onnx() -> Any:
        _clear()
        return dm.Slicing.from_numpy(TEXT).to_onnx()

    def cold_infer_ss() -> Any:  # the infer_* memo emptied: its first call
        dm.infer_strided_slice.cache.clear()  # type: ignore[attr-defined]
        return dm.infer_strided_slice(SHAPE, **ss)

    return [
        ("from_numpy + to_onnx()", lambda: dm.Slicing.from_numpy(TEXT).to_onnx(), "ss", infer_ss),
        ("from_numpy + to_onnx()", lambda: dm.Slicing.from_numpy(TEXT).to_onnx(), "sl", infer_sl),
        (
            "from_numpy + to_onnx(shape)",
            lambda: dm.Slicing.from_numpy(TEXT).to_onnx(SHAPE),
            "ss",
            infer_ss,
        ),
        ("cold from_numpy + to_onnx()", cold_numpy_onnx, "ss", infer_ss),
        ("cold from_numpy + to_onnx()", cold_numpy_onnx, "c-ss", cold_infer_ss),
        (
            "from_onnx + to_strided_slice()",
            lambda: dm.Slicing.from_onnx(
                onnx["starts"], onnx["ends"], onnx["axes"], onnx["steps"]
            ).to_strided_slice(),
            "ss",
            infer_ss,
        ),
        (
            "from_strided_slice + to_tf()",
            lambda: dm.Slicing.from_strided_slice(**ss).to_tf(),
            "ss",
            infer_ss,
        ),
        (
            "from_tf + to_torch(shape)",
            lambda: dm.Slicing.from_tf(**tf).to_torch(SHAPE),
            "ss",
            infer_ss,
        ),
    ]


def cpu_time(fn: Callable[[], Any], quick: bool) -> float:
    """Seconds of CPU per call: the best of 7 batches (3 with ``quick``) of about 20 ms."""
    fn()
    n = 1
    while True:
        t0 = time.process_time()
        for _ in range(n):
            fn()
        if time.process_time() - t0 >= 0.02:
            break
        n *= 2
    best = float("inf")
    gc.disable()
    try:
        for _ in range(3 if quick else 7):
            t0 = time.process_time()
            for _ in range(n):
                fn()
            best = min(best, (time.process_time() - t0) / n)
    finally:
        gc.enable()
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_dialects", description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    print(f"slicing {TEXT} on {SHAPE}; ss = infer_strided_slice, sl = infer_slice (same slicing)")
    print(f"{'':34} {'wall clock, paired':>27} | {'CPU time':>22}")
    head = f"{'us':>7} {'peer':>4} {'peer us':>8} {'ratio':>6}"
    print(f"{'datamove calls':34} {head} | {'us':>7} {'peer us':>8} {'ratio':>5}")
    for name, ours, peer_name, peer in _rows():
        a, b, ratio = paired(ours, peer, args.quick)
        ca, cb = cpu_time(ours, args.quick), cpu_time(peer, args.quick)
        print(
            f"{name:34} {a * 1e6:7.2f} {peer_name:>4} {b * 1e6:8.2f} {ratio:6.2f} | "
            f"{ca * 1e6:7.2f} {cb * 1e6:8.2f} {ca / cb:5.2f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
