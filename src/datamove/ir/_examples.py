"""Tiny IR v11 models written by hand, for the docstring examples (no OpenVINO needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["write_example", "write_onnx_example"]

_XML = """<?xml version="1.0"?>
<net name="example" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="2,6" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>2</dim><dim>6</dim></port></output>
    </layer>
    <layer id="1" name="axis" type="Const" version="opset1">
      <data element_type="i64" shape="" offset="0" size="8"/>
      <output><port id="0" precision="I64"/></output>
    </layer>
    <layer id="2" name="lengths" type="Const" version="opset1">
      <data element_type="i64" shape="2" offset="8" size="16"/>
      <output><port id="0" precision="I64"><dim>2</dim></port></output>
    </layer>
    <layer id="3" name="parts" type="VariadicSplit" version="opset1">
      <input>
        <port id="0" precision="FP32"><dim>2</dim><dim>6</dim></port>
        <port id="1" precision="I64"/>
        <port id="2" precision="I64"><dim>2</dim></port>
      </input>
      <output>
        <port id="3" precision="FP32" names="parts_a"><dim>2</dim><dim>2</dim></port>
        <port id="4" precision="FP32" names="parts_b"><dim>2</dim><dim>4</dim></port>
      </output>
    </layer>
    <layer id="4" name="out_a" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>2</dim></port></input>
    </layer>
    <layer id="5" name="out_b" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>2</dim><dim>4</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="3" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="3" to-port="1"/>
    <edge from-layer="2" from-port="0" to-layer="3" to-port="2"/>
    <edge from-layer="3" from-port="3" to-layer="4" to-port="0"/>
    <edge from-layer="3" from-port="4" to-layer="5" to-port="0"/>
  </edges>
</net>
"""


def write_example(directory: Path) -> Path:
    """Write ``example.xml``/``.bin``: ``x [2,6] f32`` -> VariadicSplit(axis 1, [2, -1]).

    Returns the ``.xml`` path.
    """
    xml = Path(directory) / "example.xml"
    xml.write_text(_XML, encoding="utf-8")
    xml.with_suffix(".bin").write_bytes(np.array([1, 2, -1], dtype="<i8").tobytes())
    return xml


def write_onnx_example(directory: Path) -> Path:
    """Write ``example.onnx`` (opset 13; needs the ``onnx`` package) and return its path.

    ``x [2,6] f32``: Relu (opaque), a Slice ``cut`` (``starts=[-1], ends=[INT64_MIN], axes=[1],
    steps=[-2]``), a Split ``parts`` (axis 1, ``split=[2, 4]``) to outputs ``a`` and ``b``, and a
    Concat of ``cut`` with itself to output ``c``.
    """
    from onnx import TensorProto, helper, save_model  # noqa: PLC0415 - the optional 'onnx' extra

    def ints(name: str, values: list[int]) -> Any:
        return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)

    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Slice", ["r", "starts", "ends", "axes", "steps"], ["s"], name="cut"),
        helper.make_node("Split", ["x", "split"], ["a", "b"], name="parts", axis=1),
        helper.make_node("Concat", ["s", "s"], ["c"], name="join", axis=1),
    ]
    f32 = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes,
        "example",
        [helper.make_tensor_value_info("x", f32, [2, 6])],
        [
            helper.make_tensor_value_info(n, f32, s)
            for n, s in (("a", [2, 2]), ("b", [2, 4]), ("c", [2, 6]))
        ],
        initializer=[
            ints("starts", [-1]),
            ints("ends", [-(2**63)]),
            ints("axes", [1]),
            ints("steps", [-2]),
            ints("split", [2, 4]),
        ],
        value_info=[helper.make_tensor_value_info("s", f32, [2, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = Path(directory) / "example.onnx"
    save_model(model, path)
    return path
