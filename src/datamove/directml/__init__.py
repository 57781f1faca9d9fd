"""DirectML's split and join (``DML_SPLIT_OPERATOR_DESC``, ``DML_JOIN_OPERATOR_DESC``), anywhere.

Build DirectML descriptors, validate them against DirectML's rules at any feature level (every
violation at once, each with its checklist id and field path), and run them on byte buffers laid
out exactly as the descriptors say, with NumPy. See ``docs/directml.md``.
"""

from __future__ import annotations

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
from datamove.directml._execute import join, read_tensor, run_join, run_split, split, write_tensor
from datamove.directml._rules import TensorSupport, ValidationOptions, tensor_support
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
    "join",
    "packed_strides",
    "read_tensor",
    "run_join",
    "run_split",
    "split",
    "tensor_support",
    "write_tensor",
]
