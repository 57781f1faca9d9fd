"""PyTorch's slices of a run-time start ``s`` and a constant length 4 (``dynamic_slice``).

Converted by ``openvino.convert_model`` (tests/ir/test_dynamic_slice.py) and exported by
``torch.onnx.export`` (tests/test_onnx_dynamic_slice.py).
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")


class Narrow(torch.nn.Module):
    """``x.narrow(1, s, 4)``: torch refuses a start that leaves fewer than 4 elements."""

    def forward(self, x: Any, s: Any) -> Any:
        return x.narrow(1, s, 4)


class Sliced(torch.nn.Module):
    """``x[:, s:s+4]``: NumPy's clamping, any start."""

    def forward(self, x: Any, s: Any) -> Any:
        return x[:, s : s + 4]
