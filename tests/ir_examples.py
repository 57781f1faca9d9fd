"""A hand-written IR for docs/cli.md and the tests: what ``openvino.save_model`` writes, unsound.

``datamove.ir._examples`` holds the models of the docstring examples; this one no docstring
needs, so it lives with the tests (``tests/test_docs_console.py`` writes it for docs/cli.md).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

_UNSOUND = """<?xml version="1.0"?>
<net name="unsound" version="11">
  <layers>
    <layer id="0" name="x" type="Parameter" version="opset1">
      <data shape="?" element_type="f32"/>
      <output><port id="0" precision="FP32" names="x"><dim>-1</dim></port></output>
    </layer>
    <layer id="1" name="begin" type="Const" version="opset1">
      <data element_type="i64" shape="1" offset="0" size="8"/>
      <output><port id="0" precision="I64"><dim>1</dim></port></output>
    </layer>
    <layer id="2" name="end" type="Const" version="opset1">
      <data element_type="i64" shape="1" offset="8" size="8"/>
      <output><port id="0" precision="I64"><dim>1</dim></port></output>
    </layer>
    <layer id="3" name="stride" type="Const" version="opset1">
      <data element_type="i64" shape="1" offset="16" size="8"/>
      <output><port id="0" precision="I64"><dim>1</dim></port></output>
    </layer>
    <layer id="4" name="flip" type="StridedSlice" version="opset1">
      <data begin_mask="0" end_mask="0" new_axis_mask="" shrink_axis_mask="" ellipsis_mask=""/>
      <input>
        <port id="0" precision="FP32"><dim>-1</dim></port>
        <port id="1" precision="I64"><dim>1</dim></port>
        <port id="2" precision="I64"><dim>1</dim></port>
        <port id="3" precision="I64"><dim>1</dim></port>
      </input>
      <output><port id="4" precision="FP32" names="y"><dim>0</dim></port></output>
    </layer>
    <layer id="5" name="out" type="Result" version="opset1">
      <input><port id="0" precision="FP32"><dim>0</dim></port></input>
    </layer>
  </layers>
  <edges>
    <edge from-layer="0" from-port="0" to-layer="4" to-port="0"/>
    <edge from-layer="1" from-port="0" to-layer="4" to-port="1"/>
    <edge from-layer="2" from-port="0" to-layer="4" to-port="2"/>
    <edge from-layer="3" from-port="0" to-layer="4" to-port="3"/>
    <edge from-layer="4" from-port="4" to-layer="5" to-port="0"/>
  </edges>
</net>
"""


def write_unsound_example(directory: Path) -> Path:
    """Write ``unsound.xml``/``.bin``: ``x [?] f32`` -> StridedSlice ``x[-5:-3:-1]``.

    As ``openvino.save_model`` writes it: the output declared ``[0]``, though sizes 1 and 2 of
    ``x`` give one element (OpenVINO's interval inference is unsound there).

    Returns the ``.xml`` path.
    """
    xml = Path(directory) / "unsound.xml"
    xml.write_text(_UNSOUND, encoding="utf-8")
    xml.with_suffix(".bin").write_bytes(np.array([-5, -3, -1], dtype="<i8").tobytes())
    return xml
