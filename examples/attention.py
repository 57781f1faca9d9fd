"""Write attention.xml: a small attention block that OpenVINO converts from PyTorch.

    python examples/attention.py [OUT.xml]

q, k and v come from ``chunk(3)`` of one Linear, q is rotated as RoPE's ``rotate_half`` does
(``x[..., :d // 2]`` and ``x[..., d // 2:]`` joined by ``torch.cat``), and softmax attention
follows. The input ``x`` has a dynamic batch and sequence, ``[?,?,16]``, so the chunk's split
lengths and the halves' bounds are shape subgraphs (ShapeOf -> Gather -> Divide ...) in the
file, as converters write them. Needs torch and openvino (``pip install -e '.[test,backends]'``).
``datamove check`` and ``datamove explain`` on the result are shown in the README.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import openvino as ov
import torch


class Attention(torch.nn.Module):
    """q, k, v by ``chunk(3)``; q rotated by ``rotate_half``; softmax attention."""

    def __init__(self, channels: int = 16) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(channels, 3 * channels)
        self.scale = channels**-0.5

    def forward(self, x: Any) -> Any:
        """``x`` of shape ``[batch, sequence, channels]``."""
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        d = q.shape[-1]
        q = torch.cat((-q[..., d // 2 :], q[..., : d // 2]), dim=-1)  # rotate_half
        return torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1) @ v


def main(out: str = "attention.xml") -> None:
    """Convert `Attention` with a dynamic batch and sequence, save it as ``out``."""
    torch.manual_seed(0)
    with warnings.catch_warnings():  # tracing warns that shapes may be taken as constants
        warnings.simplefilter("ignore")
        model = ov.convert_model(
            Attention().eval(),
            example_input=torch.zeros(2, 5, 16),
            input=[ov.PartialShape([-1, -1, 16])],
        )
    model.set_friendly_name("attention")
    model.inputs[0].get_tensor().set_names({"x"})
    model.outputs[0].get_tensor().set_names({"y"})
    ov.save_model(model, out, compress_to_fp16=False)
    print(f"wrote {out}: x {model.inputs[0].get_partial_shape()} -> y")


if __name__ == "__main__":
    main(*sys.argv[1:])
