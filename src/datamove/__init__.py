"""datamove: exact, fast tensor data-movement operators.

OpenVINO Split-1, VariadicSplit-1, StridedSlice-1, Slice-8 and Concat-1, each with two faces:
execution on arrays (``split``, ``variadic_split``, ``strided_slice``, ``slice``, ``concat``) and
shape inference on static or dynamic shapes (``infer_split``, ``infer_variadic_split``,
``infer_strided_slice``, ``infer_slice``, ``infer_concat``). ``Slicing`` and ``Splitting``
translate one slicing or split exactly between NumPy, OpenVINO, ONNX, TensorFlow, PyTorch,
DirectML and WebNN; ``compose``, ``group_into_split`` and ``group_into_split_with_gaps`` are the
slice algebra (docs/dialects.md, docs/algebra.md). DirectML's split and join live in
:mod:`datamove.directml`; OpenVINO IR files (and ONNX files to check and explain) in
:mod:`datamove.ir`.

>>> import numpy as np, datamove as dm
>>> x = np.arange(24).reshape(2, 3, 4)
>>> dm.strided_slice(x, [1, 0, 0], [0, 0, 2], begin_mask=[0, 1, 1], end_mask=[1, 1, 0]).tolist()
[[[12, 13], [16, 17], [20, 21]]]
>>> print(dm.infer_strided_slice("[?,2..10,12]", [0, -3], [0, 0],
...                              begin_mask=[1, 0], end_mask=[1, 1]))
[?,2..3,12]
"""

from datamove._canonical import group_into_split, group_into_split_with_gaps
from datamove._compose import compose
from datamove._concat import concat, infer_concat
from datamove._dialects import Slicing
from datamove._errors import (
    AxisError,
    BackendError,
    DTypeError,
    NotExpressible,
    ValidationError,
    ViewError,
)
from datamove._plan import CacheInfo, cache_clear, cache_info
from datamove._shape import UNKNOWN, Dimension, PartialShape, Unknown
from datamove._slice import infer_slice, slice  # noqa: A004 - the spec's name
from datamove._split import infer_split, infer_variadic_split, split, variadic_split
from datamove._splitting import Splitting
from datamove._strided_slice import infer_strided_slice, strided_slice

__version__ = "0.1.0"

__all__ = [
    "UNKNOWN",
    "AxisError",
    "BackendError",
    "CacheInfo",
    "DTypeError",
    "Dimension",
    "NotExpressible",
    "PartialShape",
    "Slicing",
    "Splitting",
    "Unknown",
    "ValidationError",
    "ViewError",
    "__version__",
    "cache_clear",
    "cache_info",
    "compose",
    "concat",
    "group_into_split",
    "group_into_split_with_gaps",
    "infer_concat",
    "infer_slice",
    "infer_split",
    "infer_strided_slice",
    "infer_variadic_split",
    "slice",
    "split",
    "strided_slice",
    "variadic_split",
]
