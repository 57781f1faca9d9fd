"""Random OpenVINO models of the supported operators, built with openvino.opset1 and opset8.

Every graph keeps to what OpenVINO's CPU plugin computes correctly (research notes section 2.4):
masks as long as ``begin``, never new-axis and shrink in one StridedSlice, an ellipsis alone on
its index, and shrink indices in range.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np

import openvino_oracle

ov = __import__("pytest").importorskip("openvino")
ops = __import__("openvino.opset1", fromlist=["opset1"])
ops8 = __import__("openvino.opset8", fromlist=["opset8"])

DTYPES = (np.float32, np.int32, np.float16, np.uint8, np.int64, np.int8)
# Signed only: the CPU plugin fuses consecutive Slices wrongly where an unsigned index input
# meets a negative signed one (IR-4 in docs/semantics.md).
INDEX_DTYPES = (np.int64, np.int32, np.int16, np.int8)
I64, I32 = np.iinfo(np.int64), np.iinfo(np.int32)
# The layers of a random model, each drawn with this frequency. KINDS keeps the draws the seeds of
# the v1 tests were chosen with; SLICE_KINDS is what converted models are made of.
KINDS = ("split", "variadic", "slice", "slice", "concat")
SLICE_KINDS = ("split", "variadic", "slice8", "slice8", "slice8", "concat")


def _const(values: list[int], rng: random.Random) -> Any:
    dtype = rng.choice((np.int64, np.int32))
    return ops.constant(np.array(values, dtype=dtype))


def _strided_slice(
    x: Any, shape: tuple[int, ...], rng: random.Random
) -> tuple[Any, tuple[int, ...]]:
    rank = len(shape)
    flavour = rng.choice(("plain", "plain", "new", "shrink", "ellipsis"))
    m = rank if flavour != "ellipsis" else rng.randint(1, max(1, rank))
    begin, end, stride = [], [], []
    bm, em, nm, sm, el = [0] * m, [0] * m, [0] * m, [0] * m, [0] * m
    for i in range(m):
        d = shape[i] if i < rank else 1
        s = rng.choice((1, 1, 2, -1, -2, 3))
        begin.append(rng.randint(-d - 2, d + 2))
        end.append(rng.randint(-d - 2, d + 2))
        stride.append(s)
        bm[i], em[i] = rng.random() < 0.3, rng.random() < 0.3
    if flavour == "new":
        nm[rng.randrange(m)] = 1
    elif flavour == "shrink":
        i = rng.randrange(m)
        if shape[i] > 0:
            sm[i] = 1
            begin[i] = rng.randint(-shape[i], shape[i] - 1)
    elif flavour == "ellipsis":
        el[rng.randrange(m)] = 1
    node = ops.strided_slice(
        x,
        _const(begin, rng),
        _const(end, rng),
        _const(stride, rng),
        begin_mask=[int(b) for b in bm],
        end_mask=[int(e) for e in em],
        new_axis_mask=nm,
        shrink_axis_mask=sm,
        ellipsis_mask=el,
    )
    return node.output(0), tuple(node.get_output_shape(0))


def _index_const(values: list[int], rng: random.Random) -> Any:
    """A constant of a random integer type that holds every value (i32 at the least)."""
    fits = [t for t in INDEX_DTYPES if all(np.iinfo(t).min <= v <= np.iinfo(t).max for v in values)]
    return ops.constant(np.array(values, dtype=rng.choice(fits)))


def _bound(d: int, rng: random.Random) -> int:
    """A start or stop: in or near ``[-d, d]``, or an extreme (INT64 and INT32 ends)."""
    if rng.random() < 0.2:
        return rng.choice((I64.max, I64.min, I32.max, I32.min))
    return rng.randint(-d - 3, d + 3)


def slice8(x: Any, shape: tuple[int, ...], rng: random.Random) -> tuple[Any, tuple[int, ...]]:
    """A random Slice-8 of ``x``: some axes (any order, negative or not, axes input or not),
    start and stop in or past the ends, steps of either sign, each input of its own type."""
    rank = len(shape)
    axes = rng.sample(range(rank), rng.randint(1, rank))
    start, stop, step = [], [], []
    for a in axes:
        start.append(_bound(shape[a], rng))
        stop.append(_bound(shape[a], rng))
        step.append(rng.choice((1, 1, 2, -1, -1, -2, 3, -3, shape[a] + 1, -shape[a] - 1)))
    args = [x, *(_index_const(v, rng) for v in (start, stop, step))]
    if axes != list(range(len(axes))) or rng.random() < 0.5:
        listed = [a - rank if rng.random() < 0.3 else a for a in axes]
        args.append(_index_const(listed, rng))
    node = ops8.slice(*args)
    return node.output(0), tuple(node.get_output_shape(0))


def random_model(
    seed: int, *, dynamic: bool = False, n_ops: int = 6, kinds: tuple[str, ...] = KINDS
) -> tuple[Any, dict[str, np.ndarray]]:
    """A random model and inputs for it: Split, VariadicSplit, StridedSlice, Slice, Concat."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data
    rank = rng.randint(1, 4)
    shape = tuple(rng.randint(1, 6) for _ in range(rank))
    dtype = rng.choice(DTYPES)
    param = ops.parameter(list(shape), dtype, name="input")
    pool: list[tuple[Any, tuple[int, ...]]] = [(param.output(0), shape)]
    for _ in range(n_ops):
        x, s = rng.choice(pool)
        if not s:
            continue
        kind = rng.choice(kinds)
        axis = rng.randrange(len(s))
        axis_arg = axis - len(s) if rng.random() < 0.3 else axis
        if kind == "split":
            ns = [n for n in range(1, 5) if s[axis] % n == 0] if s[axis] else [1, 2]
            n = rng.choice(ns)
            node = ops.split(x, ops.constant(np.int64(axis_arg)), n)
            pool += [(node.output(k), tuple(node.get_output_shape(k))) for k in range(n)]
        elif kind == "variadic":
            k = rng.randint(1, 3)
            cuts = sorted(rng.randint(0, s[axis]) for _ in range(k - 1))
            lengths = [b - a for a, b in zip([0, *cuts], [*cuts, s[axis]], strict=True)]
            if rng.random() < 0.5:
                lengths[rng.randrange(k)] = -1
            node = ops.variadic_split(x, ops.constant(np.int64(axis_arg)), _const(lengths, rng))
            pool += [(node.output(j), tuple(node.get_output_shape(j))) for j in range(k)]
        elif kind == "slice":
            pool.append(_strided_slice(x, s, rng))
        elif kind == "slice8":
            pool.append(slice8(x, s, rng))
        else:
            partners = [
                (y, t)
                for y, t in pool
                if len(t) == len(s)
                and all(a == b for i, (a, b) in enumerate(zip(s, t, strict=True)) if i != axis)
            ]
            others = rng.sample(partners, k=min(len(partners), rng.randint(1, 3)))
            if not all(y.get_element_type() == x.get_element_type() for y, _ in others):
                continue
            node = ops.concat([x, *(y for y, _ in others)], axis_arg)
            pool.append((node.output(0), tuple(node.get_output_shape(0))))
    chosen = (
        rng.sample(pool[1:], k=min(len(pool) - 1, rng.randint(1, 4))) if len(pool) > 1 else pool
    )
    results = [ops.result(x) for x, _ in chosen]
    model = ov.Model(results, [param], f"random{seed}")
    if dynamic:  # built on static shapes, then made dynamic: OpenVINO re-infers every shape
        param.set_partial_shape(
            ov.PartialShape(
                [
                    rng.choice(
                        (ov.Dimension(-1), ov.Dimension(max(0, d - 1), d + 3), ov.Dimension(d))
                    )
                    for d in shape
                ]
            )
        )
        model.validate_nodes_and_infer_types()
    data = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape) - 3
    return model, {"input": data.astype(dtype)}


def save(model: Any, directory: Path, name: str = "model") -> Path:
    path = directory / f"{name}.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def run_openvino(xml: Path, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Compile the IR for OpenVINO's CPU plugin and run it, in the oracle's worker process (a
    crash there fails the test, not the run): outputs by get_any_name()."""
    return dict(openvino_oracle.run_ir(xml, inputs))


def openvino_shapes(xml: Path) -> dict[str, str]:
    core = ov.Core()
    model = core.read_model(str(xml))
    return {out.get_any_name(): str(out.get_partial_shape()) for out in model.outputs}


def relaxed(shape: tuple[int, ...], seed: int) -> str:
    """A dynamic shape that holds ``shape``: each dim ``?``, an interval around it, or itself."""
    rng = random.Random(seed)  # noqa: S311 - reproducible test data
    dims = [rng.choice(("?", f"{max(0, d - 1)}..{d + 3}", f"..{d + 1}", str(d))) for d in shape]
    return f"[{','.join(dims)}]"


def reshaped_openvino_shapes(xml: Path, name: str, shape: str) -> dict[str, str] | None:
    """OpenVINO's output shapes after ``reshape({name: shape})``; None where it refuses."""
    model = ov.Core().read_model(str(xml))
    try:
        model.reshape({name: ov.PartialShape(shape)})
    except RuntimeError:  # its own interval rules can refuse a graph every size runs
        return None
    return {out.get_any_name(): str(out.get_partial_shape()) for out in model.outputs}
