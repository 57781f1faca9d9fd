"""DirectML's split and join (``DML_SPLIT_OPERATOR_DESC``, ``DML_JOIN_OPERATOR_DESC``), anywhere.

Build DirectML descriptors, validate them against DirectML's rules at any feature level (every
violation at once, each with its checklist id and field path), and run them on byte buffers laid
out exactly as the descriptors say, with NumPy. `split` and `join` build the descriptors for
an array of any library the backends take; OpenVINO's splits become descriptors (or say why
not), and descriptors read and write DxDispatch's JSON. See ``docs/directml.md``.
"""

from __future__ import annotations

from datamove.directml._arrays import join, split
from datamove.directml._desc import JoinDesc, SplitDesc
from datamove.directml._enums import (
    DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT,
    DML_TENSOR_DIMENSION_COUNT_MAX,
    DML_TENSOR_DIMENSION_COUNT_MAX1,
    FeatureLevel,
    OperatorType,
    TensorDataType,
    TensorFlags,
    TensorType,
)
from datamove.directml._errors import BufferSizeOverflowError, DirectMLValidationError, Violation
from datamove.directml._json import (
    desc_from_json,
    desc_to_json,
    dumps,
    loads,
    tensor_from_json,
    tensor_to_json,
)
from datamove.directml._openvino import explain_openvino_split, split_desc_from_openvino
from datamove.directml._rules import TensorSupport, ValidationOptions, tensor_support
from datamove.directml._run import read_tensor, run_join, run_split, write_tensor
from datamove.directml._tensor import TensorDesc, calc_buffer_tensor_size, packed_strides

__all__ = [
    "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT",
    "DML_TENSOR_DIMENSION_COUNT_MAX",
    "DML_TENSOR_DIMENSION_COUNT_MAX1",
    "BufferSizeOverflowError",
    "DirectMLValidationError",
    "FeatureLevel",
    "JoinDesc",
    "OperatorType",
    "SplitDesc",
    "TensorDataType",
    "TensorDesc",
    "TensorFlags",
    "TensorSupport",
    "TensorType",
    "ValidationOptions",
    "Violation",
    "calc_buffer_tensor_size",
    "desc_from_json",
    "desc_to_json",
    "dumps",
    "explain_openvino_split",
    "join",
    "loads",
    "packed_strides",
    "read_tensor",
    "run_join",
    "run_split",
    "split",
    "split_desc_from_openvino",
    "tensor_from_json",
    "tensor_support",
    "tensor_to_json",
    "write_tensor",
]
