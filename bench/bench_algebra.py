"""The slice algebra (issue 21): the cost of ``dm.compose``, and of running what it returns.

Also the cost of the proofs on one slicing (``is_identity``, ``is_empty``, ``canonical``; no
target). The issue's targets (nothing here asserts a timing):
  dm.compose of two rank-4 slicings with masks   < 50 us per call
  the composed slicing on a 256 MiB array         <= 1 x the two steps in sequence, each
                                                  with copy=True (one pass, not two)
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import datamove as dm
from bench._timing import paired, per_call

S = dm.Slicing.from_numpy
# Rank 4 with a new axis, an index, an ellipsis and negative steps on both sides.
A, B = S("x[1:, None, ..., ::-1, 2]"), S("x[::2, 0, ..., None, 1:]")
# The copy: a then b keeps a quarter of the array, reversed on one axis.
COPY_A, COPY_B = S("x[1:, :, ::-1, :]"), S("x[::2, 1:, :, ::2]")


# Rank 4 with a new axis, an index and a negative step, for the proofs.
P = S("x[1:, :, None, ::-2, 0]")
SHAPES = (
    ("any shape (shape=None)", None),
    ("static [8,16,32,64]", (8, 16, 32, 64)),
    ('intervals "[?,2..10,32,64]"', "[?,2..10,32,64]"),
)


def proofs(quick: bool) -> None:
    """Print the cost of is_identity, is_empty and canonical on ``P`` per call."""
    print(f"\ns.is_identity, s.is_empty, s.canonical of s = {P.to_numpy()} (no target):")
    for label, shape in SHAPES:
        times = [
            per_call(lambda shape=shape, f=f: f(P, shape), quick)
            for f in (dm.Slicing.is_identity, dm.Slicing.is_empty, dm.Slicing.canonical)
        ]
        print(f"  {label:<30}" + "".join(f"{t * 1e6:8.2f} us" for t in times))


def _run(s: dm.Slicing, x: Any) -> Any:
    return dm.strided_slice(x, **s.to_strided_slice(x.shape), copy=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench_algebra")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    q = args.quick
    print("dm.compose of two rank-4 slicings with masks (target < 50 us):")
    print(f"  a = {A.to_numpy()}, b = {B.to_numpy()} -> {dm.compose(A, B).to_numpy()}")
    for label, shape in (
        ("any shape (shape=None)", None),
        ("static [8,16,32,64]", (8, 16, 32, 64)),
        ('intervals "[?,2..10,?,?]"', "[?,2..10,?,?]"),
    ):
        t = per_call(lambda shape=shape: dm.compose(A, B, shape), q)
        print(f"  {label:<28} {t * 1e6:8.2f} us")
    proofs(q)
    # 256 MiB of float32
    x = np.arange(64 * 64 * 128 * 128, dtype=np.float32).reshape(64, 64, 128, 128)
    f = dm.compose(COPY_A, COPY_B, x.shape)
    assert np.array_equal(_run(f, x), _run(COPY_B, _run(COPY_A, x)))
    print(f"\nexecuting {COPY_A.to_numpy()} then {COPY_B.to_numpy()} on float32 {list(x.shape)}")
    print(f"  (256 MiB) as one slicing, {f.to_numpy()}, copy=True (target <= 1 x two steps):")
    t_one, t_two, ratio = paired(
        lambda: _run(f, x), lambda: _run(COPY_B, _run(COPY_A, x)), q, repeats=9
    )
    print(f"  composed {t_one * 1e3:8.2f} ms   two steps {t_two * 1e3:8.2f} ms   ratio {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
