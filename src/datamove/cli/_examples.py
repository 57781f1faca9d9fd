"""The specs' own examples, run through both faces of each operator: ``datamove examples``.

Each example is transcribed from the spec text it cites (the IR ``<layer>`` snippets give the
input shape, the parameters and the expected output shapes). Where a spec leaves a parameter's
value out (the StridedSlice new-axis and shrink examples show only the masks), the value chosen
here is named in ``note``; the masks make the result independent of it.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import datamove as dm
import datamove.directml as dml  # imported with the CLI: `datamove dml` reads its descs
from datamove.cli._exit import EXIT_INVALID, EXIT_OK

__all__ = ["EXAMPLES", "Example", "register", "run_examples"]


@dataclass(frozen=True)
class Example:
    """One worked example of a spec."""

    name: str
    source: str  # the spec file (in shared/spec/) it comes from
    call: str  # the call, as a user would write it
    expected: tuple[tuple[int, ...], ...]  # the output shapes the spec shows
    execute: Callable[[np.ndarray[Any, Any]], tuple[Any, ...]]
    infer: Callable[[tuple[int, ...]], tuple[dm.PartialShape, ...]]
    shape: tuple[int, ...]
    note: str = ""


def _example(
    name: str,
    source: str,
    shape: tuple[int, ...],
    expected: tuple[tuple[int, ...], ...],
    op: str,
    *args: Any,
    note: str = "",
    **kwargs: Any,
) -> Example:
    """The example of ``dm.<op>`` and ``dm.infer_<op>`` called with ``args`` and ``kwargs``."""
    run, infer = getattr(dm, op), getattr(dm, f"infer_{op}")
    words = [*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())]

    def outputs(result: Any) -> tuple[Any, ...]:  # a split's tuple, or a slice's one output
        return result if isinstance(result, tuple) else (result,)

    return Example(
        name=name,
        source=source,
        call=f"{op}(data, {', '.join(words)})",
        expected=expected,
        execute=lambda x: outputs(run(x, *args, **kwargs)),
        infer=lambda s: outputs(infer(s, *args, **kwargs)),
        shape=shape,
        note=note,
    )


def _dml_infer(shape: tuple[int, ...], axis: int, sizes: list[int]) -> tuple[dm.PartialShape, ...]:
    """Build the DML_SPLIT descriptor the spec shows, validate it, and read its output sizes."""
    outs = [tuple(n if k == axis else d for k, d in enumerate(shape)) for n in sizes]
    desc = dml.SplitDesc(
        dml.TensorDesc("FLOAT32", shape), [dml.TensorDesc("FLOAT32", o) for o in outs], axis
    )
    desc.validate("1_0")
    return tuple(dm.PartialShape(o.sizes) for o in desc.outputs)


EXAMPLES: list[Example] = [
    _example(
        "Split: 3 chunks along axis 1",
        "Split-1.en.txt",
        (6, 12, 10, 24),
        ((6, 4, 10, 24),) * 3,
        "split",
        axis=1,
        num_splits=3,
    ),
    _example(
        "VariadicSplit: lengths [1, 2, 3] along axis 0",
        "VariadicSplit-1.en.txt, VariadicSplit-1.ja.txt",
        (6, 12, 10, 24),
        ((1, 12, 10, 24), (2, 12, 10, 24), (3, 12, 10, 24)),
        "variadic_split",
        axis=0,
        split_lengths=[1, 2, 3],
    ),
    _example(
        "VariadicSplit: lengths [-1, 2] along axis 0 (4 = 6 - 2)",
        "VariadicSplit-1.en.txt, VariadicSplit-1.ja.txt",
        (6, 12, 10, 24),
        ((4, 12, 10, 24), (2, 12, 10, 24)),
        "variadic_split",
        axis=0,
        split_lengths=[-1, 2],
    ),
    _example(
        "StridedSlice: begin_mask and end_mask",
        "StridedSlice-1.ja.txt",
        (2, 3, 4),
        ((1, 3, 2),),
        "strided_slice",
        [1, 0, 0],
        [0, 0, 2],
        [1, 1, 1],
        begin_mask=[0, 1, 1],
        end_mask=[1, 1, 0],
        note="equivalent to x[1:, :, :2]",
    ),
    _example(
        "StridedSlice: new_axis_mask",
        "StridedSlice-1.ja.txt",
        (2, 3, 4),
        ((1, 2, 3, 4),),
        "strided_slice",
        [0, 0, 0],
        [0, 0, 0],
        [1, 1, 1],
        begin_mask=[0, 1, 1],
        end_mask=[0, 1, 1],
        new_axis_mask=[1, 0, 0],
        note="the spec gives no begin/end values; zeros chosen (the masks make them irrelevant); "
        "equivalent to x[None, :, :]",
    ),
    _example(
        "StridedSlice: shrink_axis_mask",
        "StridedSlice-1.ja.txt",
        (1, 2, 384, 640, 8),
        ((1, 384, 640, 8),),
        "strided_slice",
        [0, 0, 0, 0, 0],
        [1, 0, 384, 640, 8],
        [1, 1, 1, 1, 1],
        begin_mask=[1, 0, 1, 1, 1],
        end_mask=[1, 0, 1, 1, 1],
        shrink_axis_mask=[0, 1, 0, 0, 0],
        note="the spec gives no begin/end values; begin[1] = 0 chosen; equivalent to x[:, 0]",
    ),
    Example(
        name="DML_SPLIT: axis 2 into sizes 2, 1, 3",
        source="DML_SPLIT_OPERATOR_DESC.ja.txt",
        call="datamove.directml.split(data, axis=2, sizes=[2, 1, 3])",
        shape=(1, 1, 6, 2),
        expected=((1, 1, 2, 2), (1, 1, 1, 2), (1, 1, 3, 2)),
        execute=lambda x: tuple(dml.split(x, 2, [2, 1, 3])),
        infer=lambda s: _dml_infer(s, 2, [2, 1, 3]),
        note="'inferred' is the validated DML_SPLIT descriptor's output sizes (feature level 1_0)",
    ),
    Example(
        name="DML_SPLIT: axis 3 into sizes 1, 1",
        source="DML_SPLIT_OPERATOR_DESC.ja.txt",
        call="datamove.directml.split(data, axis=3, sizes=[1, 1])",
        shape=(1, 1, 6, 2),
        expected=((1, 1, 6, 1), (1, 1, 6, 1)),
        execute=lambda x: tuple(dml.split(x, 3, [1, 1])),
        infer=lambda s: _dml_infer(s, 3, [1, 1]),
        note="DirectML's split copies into new buffers: its outputs are never views",
    ),
]


def _fmt(shapes: list[list[int]]) -> str:
    parts = ["[" + ",".join(map(str, s)) + "]" for s in shapes]
    if len(set(parts)) == 1 and len(parts) > 1:
        return f"{len(parts)} x {parts[0]}"
    return ", ".join(parts)


def run_examples() -> list[dict[str, Any]]:
    """Run every example; return one record per example with both faces' results."""
    records = []
    for ex in EXAMPLES:
        data = np.arange(int(np.prod(ex.shape)), dtype=np.float32).reshape(ex.shape)
        results = ex.execute(data)
        executed = tuple(tuple(r.shape) for r in results)
        inferred = tuple(p.to_shape() for p in ex.infer(ex.shape))
        records.append(
            {
                "name": ex.name,
                "source": ex.source,
                "call": ex.call,
                "input": list(ex.shape),
                "expected": [list(s) for s in ex.expected],
                "inferred": [list(s) for s in inferred],
                "executed": [list(s) for s in executed],
                "views": all(np.shares_memory(r, data) for r in results),
                "note": ex.note,
                "ok": executed == ex.expected and inferred == ex.expected,
            }
        )
    return records


def _cmd(args: argparse.Namespace) -> int:
    records = run_examples()
    agree = sum(r["ok"] for r in records)
    if args.json:
        print(json.dumps({"examples": records, "agree": agree, "total": len(records)}, indent=2))
        return EXIT_OK if agree == len(records) else EXIT_INVALID
    for r in records:
        print(f"{r['name']}   ({r['source']})")
        print(f"  data      : [{','.join(map(str, r['input']))}]")
        print(f"  call      : {r['call']}")
        if r["note"]:
            print(f"  note      : {r['note']}")
        for label in ("expected", "inferred", "executed"):
            tag = "spec" if label == "expected" else label
            print(f"  {tag:<10}: {_fmt(r[label])}")
        print(
            f"  verdict   : {'ok' if r['ok'] else 'MISMATCH'}"
            f"{' (outputs are views of data)' if r['views'] else ''}"
        )
        print()
    verdict = "all agree" if agree == len(records) else "MISMATCH"
    print(f"{agree} of {len(records)} spec examples agree with the specs: {verdict}")
    return EXIT_OK if agree == len(records) else EXIT_INVALID


def register(subparsers: Any) -> None:
    """Add ``datamove examples``."""
    parser = subparsers.add_parser(
        "examples",
        help="run every example of the specs and compare with the spec's expected output",
        description="Run every example of the operator specs, through shape inference and "
        "execution, and print each result beside the spec's expected output.",
        epilog="examples:\n  datamove examples\n  datamove examples --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=_cmd)
