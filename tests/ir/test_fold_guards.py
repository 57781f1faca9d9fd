"""Shape-subgraph folds (``datamove.ir._fold``) leave a value unknown, never guessed, wherever
OpenVINO's exact answer is not theirs to give: an attribute they do not read or that is broken,
inputs OpenVINO refuses (shapes that do not broadcast, an axis out of range, a dim other than 1
squeezed), what its specification leaves undefined (a Gather-1 index out of range, an overflow, a
step of 0), an element type they do not fold, or a result past `SMALL` elements.

Each case calls `fold_layer` on a layer and input values made here, as `Model.check` does once
every input of the layer is known. What the folds do give is compared with OpenVINO's own
constant folding in test_shape_subgraphs.py. No OpenVINO needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from ir_layers import bare_layer

from datamove._shape import PartialShape
from datamove.ir._fold import fold_layer
from datamove.ir._ops import SMALL, Info
from datamove.ir._types import ELEMENT_TYPES


def _layer(kind: str, data: dict[str, str], inputs: int, version: str) -> Any:
    return bare_layer(kind, data, inputs, version=version or "opset13")


def _v(values: Any, etype: str = "i64") -> Info:
    t = ELEMENT_TYPES[etype]
    value = np.array(values, dtype=t.dtype)
    return Info(PartialShape(list(value.shape)), t, value)


def _c(kind: str, *ins: Info, version: str = "", **data: str) -> tuple[Any, list[Info]]:
    return _layer(kind, data, len(ins), version), list(ins)


def I(values: Any) -> Info:  # noqa: E743 - an i64 input, the common case
    return _v(values)


def F(values: Any) -> Info:
    return _v(values, "f32")


def B(values: Any) -> Info:
    return _v(values, "boolean")


BIG = np.zeros(SMALL + 1, dtype=np.int64)

# name -> (layer, its inputs); fold_layer gives None for each
UNKNOWN: dict[str, tuple[Any, list[Info]]] = {
    # inputs: a count the layer does not take, a type not folded, too many elements, a value
    # whose dtype is not its port's
    "gather of 2 inputs": _c("Gather", I([1, 2]), I([0])),
    "convert of f16": _c("Convert", _v([1.0], "f16"), destination_type="i64"),
    "an input past SMALL": _c("Add", I(BIG), I(1)),
    "a value of another dtype": _c(
        "Add", Info(PartialShape([1]), ELEMENT_TYPES["i64"], np.array([1], np.int32)), I([1])
    ),
    # auto_broadcast
    "none, shapes differ": _c("Add", I([1, 2]), I([1]), auto_broadcast="none"),
    "pdpd": _c("Add", I([1, 2]), I([1]), auto_broadcast="pdpd"),
    "shapes that do not broadcast": _c("Add", I([1, 2]), I([1, 2, 3])),
    "broadcast past SMALL": _c("Add", I(np.zeros((SMALL, 1))), I([1, 2])),
    # Gather
    "gather float indices": _c("Gather", I([1, 2]), F([0.0]), I(0)),
    "gather batch_dims not a number": _c("Gather", I([1, 2]), I([0]), I(0), batch_dims="x"),
    "gather of no opset": _c("Gather", I([1, 2]), I([0]), I(0), version="experimental"),
    "gather axis out of range": _c("Gather", I([1, 2]), I([0]), I(1)),
    "gather batches differ": _c("Gather", I([[1], [2]]), I([[0]]), I(1), batch_dims="1"),
    "gather-1 index out of range": _c("Gather", I([1, 2]), I([2]), I(0), version="opset1"),
    "gather-1 negative index": _c("Gather", I([1, 2]), I([-1]), I(0), version="opset1"),
    "gather past SMALL": _c("Gather", I(np.zeros((64, 64))), I(np.zeros(65)), I(1)),
    # Reshape
    "reshape special_zero missing": _c("Reshape", I([1, 2]), I([2])),
    "reshape 2-D target": _c("Reshape", I([1, 2]), I([[2]]), special_zero="false"),
    "reshape 0 past the rank": _c("Reshape", I([1, 2]), I([2, 0]), special_zero="true"),
    "reshape two -1": _c("Reshape", I([1, 2]), I([-1, -1]), special_zero="false"),
    "reshape -1 with a 0": _c("Reshape", I([1, 2]), I([0, -1]), special_zero="false"),
    "reshape -1 not dividing": _c("Reshape", I([1, 2, 3]), I([2, -1]), special_zero="false"),
    "reshape of 3 inputs": _c("Reshape", I([1, 2]), I([2]), I([2]), special_zero="false"),
    # Squeeze, Unsqueeze
    "squeeze of 3 inputs": _c("Squeeze", I([[1]]), I([0]), I([0])),
    "squeeze a dim of 2": _c("Squeeze", I([[1, 2]]), I([1])),
    "squeeze float axes": _c("Squeeze", I([[1]]), F([0.0])),
    "squeeze 2-D axes": _c("Squeeze", I([[1]]), I([[0]])),
    "squeeze an axis twice": _c("Squeeze", I([[1]]), I([0, -2])),
    "squeeze an axis out of range": _c("Squeeze", I([[1]]), I([2])),
    "unsqueeze of 1 input": _c("Unsqueeze", I([1])),
    "unsqueeze an axis out of range": _c("Unsqueeze", I([1]), I([3])),
    "unsqueeze past NumPy's rank": _c("Unsqueeze", I(1), I(list(range(70)))),
    # Convert
    "convert to f16": _c("Convert", I([1]), destination_type="f16"),
    "convert of 2 inputs": _c("Convert", I([1]), I([1]), destination_type="i32"),
    "convert f64 to f32 inexact": _c("Convert", _v([0.1], "f64"), destination_type="f32"),
    # arithmetic, comparisons, Select
    "add of mixed types": _c("Add", I([1]), _v([1], "i32")),
    "add of booleans": _c("Add", B([True]), B([True])),
    "multiply f32 overflow": _c("Multiply", F([3e38]), F([10.0])),
    "divide of 1 input": _c("Divide", I([1])),
    "divide m_pythondiv broken": _c("Divide", I([1]), I([1]), m_pythondiv="maybe"),
    "mod of f32": _c("Mod", F([1.0]), F([2.0])),
    "floor of a boolean": _c("Floor", B([True])),
    "greater of mixed types": _c("Greater", I([1]), _v([1], "i32")),
    "select on i64": _c("Select", I([1]), I([1]), I([2])),
    # Broadcast, Range, ReduceProd
    "broadcast explicit": _c("Broadcast", I([1]), I([2]), mode="explicit"),
    "broadcast-1 bidirectional": _c(
        "Broadcast", I([1]), I([2]), mode="bidirectional", version="opset1"
    ),
    "broadcast 2-D target": _c("Broadcast", I([1]), I([[2]])),
    "broadcast negative target": _c("Broadcast", I([1]), I([-2])),
    "broadcast bidirectional past SMALL": _c(
        "Broadcast", I(np.zeros((SMALL, 1))), I([1, 2]), mode="bidirectional"
    ),
    "broadcast to a shape it does not fit": _c("Broadcast", I([1, 2, 3]), I([2])),
    "range of floats": _c("Range", F(0.0), F(4.0), F(1.0), output_type="f32"),
    "range-1 of mixed types": _c("Range", I(0), _v(4, "i32"), I(1), version="opset1"),
    "range of no opset": _c("Range", I(0), I(4), I(1), version="experimental"),
    "range-4 to f32": _c("Range", I(0), I(4), I(1), output_type="f32"),
    "range step 0": _c("Range", I(0), I(4), I(0), output_type="i64"),
    "reduceprod keep_dims broken": _c("ReduceProd", I([1, 2]), I([0]), keep_dims="maybe"),
    "reduceprod empty axes": _c("ReduceProd", I([1, 2]), _v(np.zeros(0), "i64")),
}


@pytest.mark.parametrize("name", list(UNKNOWN))
def test_the_value_stays_unknown(name: str) -> None:
    layer, ins = UNKNOWN[name]
    assert fold_layer(layer, ins) is None


def test_convert_f64_to_f32_where_exactly_held() -> None:
    # OpenVINO's ConstantFolding gives [0.5, -3.0] (f32); a value not held exactly (0.1) is
    # rounded there, and left unknown here
    layer, ins = _c("Convert", _v([0.5, -3.0], "f64"), destination_type="f32")
    got = fold_layer(layer, ins)
    assert got is not None
    assert got.value is not None
    assert got.value.dtype == np.float32
    assert got.value.tolist() == [0.5, -3.0]
