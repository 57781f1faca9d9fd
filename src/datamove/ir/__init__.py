"""OpenVINO IR files: read, check, run and save models built from datamove's operators.

>>> import tempfile, pathlib, numpy as np
>>> from datamove import ir
>>> from datamove.ir._examples import write_example
>>> model = ir.read_model(write_example(pathlib.Path(tempfile.mkdtemp())))
>>> model.check().ok
True
>>> model.run({"x": np.ones((2, 6), np.float32)})["parts_b"].shape
(2, 4)

Supported layer types: ``Parameter``, ``Const``, ``Result``, ``Split``, ``VariadicSplit``,
``StridedSlice``, ``Concat``, ``Unsqueeze``, ``Squeeze``, ``Reshape`` and ``Transpose`` (each
version 1, as written by opset1 to opset16; Squeeze-15 too), and ``Slice`` (version 8, as
written by opset8 to opset16). A model with other layers is read; `Model.check` takes them as
declared (opaque) and checks the layers around them, and `Model.run` refuses to run the ones an
output needs. `Model.explain` writes its slicing, split, Concat, Unsqueeze and Squeeze layers,
and each Gather of constant indices on data, as NumPy.

ONNX files (``.onnx``, with the optional ``onnx`` package) are read by ``read_onnx`` to check
their Slice, Split and Concat nodes (and each Reshape of a known or bounded shape, each data
Gather of constant or bounded indices, and the parts of a SplitToSequence that a SequenceAt
takes) with ONNX's semantics (``ONNXModel.check`` returns the same ``CheckReport``), and to
explain their slicing, sequence, Concat, Unsqueeze, Squeeze and data Gather nodes
(``ONNXModel.explain``); other nodes are opaque.
"""

from datamove.ir._errors import (
    InputTypeError,
    IRError,
    MissingInputError,
    ONNXError,
    UnsupportedOperatorError,
)
from datamove.ir._model import CheckReport, Model, Problem, ShapePlanInfo, read_model
from datamove.ir._onnx import ONNXModel, read_onnx
from datamove.ir._writer import save_model

__all__ = [
    "CheckReport",
    "IRError",
    "InputTypeError",
    "MissingInputError",
    "Model",
    "ONNXError",
    "ONNXModel",
    "Problem",
    "ShapePlanInfo",
    "UnsupportedOperatorError",
    "read_model",
    "read_onnx",
    "save_model",
]
