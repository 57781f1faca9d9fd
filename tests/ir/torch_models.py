"""Small PyTorch modules shaped like real architectures, converted by ``openvino.convert_model``
and saved: the models the IR tests check, explain and run (``REAL``, ``convert_real``).

Each mixes data movement (Slice, Split, VariadicSplit, Concat...) with compute (MatMul, Add,
Softmax, Convolution) and shape subgraphs (ShapeOf -> Gather -> ... -> a slice bound). Built here,
never downloaded. ``torch`` and ``openvino`` are imported by the tests that use this module
(``pytest.importorskip``) before they import it.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import ov_models
import torch

ov = ov_models.ov

MOVES = (  # the types datamove checks and runs
    "Split",
    "VariadicSplit",
    "StridedSlice",
    "Slice",
    "Concat",
    "Unsqueeze",
    "Squeeze",
    "Reshape",
    "Transpose",
)


class Attention(torch.nn.Module):
    """GPT-2's attention: ``qkv.split(C, dim=2)``, heads by view and transpose, softmax."""

    def __init__(self, channels: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.channels, self.heads, self.head = channels, heads, channels // heads
        self.c_attn = torch.nn.Linear(channels, 3 * channels)
        self.c_proj = torch.nn.Linear(channels, channels)

    def forward(self, x: Any) -> Any:
        b, t, c = x.size(0), x.size(1), self.channels  # ints, not traced sizes, where they can
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, self.head).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax((q @ k.transpose(-2, -1)) * self.head**-0.5, dim=-1)
        return self.c_proj((att @ v).transpose(1, 2).contiguous().view(b, t, c))


class PatchMerging(torch.nn.Module):
    """Swin's patch merging: four strided slices, cat, LayerNorm, Linear."""

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(4 * channels)
        self.reduction = torch.nn.Linear(4 * channels, 2 * channels, bias=False)

    def forward(self, x: Any) -> Any:
        merged = torch.cat(
            [x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1
        )
        return self.reduction(self.norm(merged.flatten(1, 2)))


class GatedBlock(torch.nn.Module):
    """MatMul, Add and Softmax around chunk, a slice and cat."""

    def __init__(self, channels: int = 8) -> None:
        super().__init__()
        weights = torch.linspace(-1, 1, channels * 2 * channels).view(channels, -1)
        self.w = torch.nn.Parameter(weights)

    def forward(self, x: Any) -> Any:
        gate, value = (x @ self.w).chunk(2, dim=-1)
        y = torch.softmax(gate, dim=-1) * value + x
        return torch.cat([y[..., 1:], y[..., :1]], dim=-1)


class LstmCell(torch.nn.Module):
    """An LSTM cell's gates: ``chunk(4)`` of one Linear (its split lengths a shape subgraph)."""

    def __init__(self) -> None:
        super().__init__()
        self.gates = torch.nn.Linear(6, 16)

    def forward(self, x: Any) -> Any:
        i, f, g, o = self.gates(x).chunk(4, dim=-1)
        return torch.sigmoid(i) * torch.tanh(g) + torch.sigmoid(f) * torch.sigmoid(o)


def rotate_half(x: Any) -> Any:
    """RoPE's rotation: the last dim's halves swapped, the second negated."""
    d = x.shape[-1]
    return torch.cat((-x[..., d // 2 :], x[..., : d // 2]), dim=-1)


class Rope(torch.nn.Module):
    """Rotary position embedding: the cos/sin cache cut to the sequence, ``rotate_half``."""

    def __init__(self, dim: int = 8, max_len: int = 16) -> None:
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.float32) / dim))
        freqs = torch.outer(torch.arange(max_len, dtype=torch.float32), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x: Any) -> Any:  # x: [batch, heads, seq, dim]
        t = x.shape[2]
        return x * self.cos[:t] + rotate_half(x) * self.sin[:t]


class YoloHead(torch.nn.Module):
    """A YOLO detection head: 1x1 conv, view and permute to anchors, sigmoid, split of the
    boxes' xy, wh and scores, cat, view to one row per box."""

    def __init__(self, channels: int = 4, anchors: int = 3, classes: int = 2) -> None:
        super().__init__()
        self.na, self.no = anchors, classes + 5
        self.conv = torch.nn.Conv2d(channels, anchors * self.no, 1)

    def forward(self, x: Any) -> Any:
        b, _, h, w = x.shape
        y = self.conv(x).view(b, self.na, self.no, h, w).permute(0, 1, 3, 4, 2).sigmoid()
        xy, wh, conf = y.split((2, 2, self.no - 4), dim=-1)
        return torch.cat((xy * 2 - 0.5, (wh * 2) ** 2, conf), -1).view(b, -1, self.no)


class FlipNarrow(torch.nn.Module):
    """Flips (negative-step slices) and ``narrow``, with a constant and a shape-made length."""

    def forward(self, x: Any) -> Any:
        y = torch.flip(x, [1]).narrow(2, 1, 3)
        z = torch.flip(x.narrow(1, 1, x.shape[1] - 2), [-1, 0])
        return torch.cat([y, z[:, :, 1:4]], 1)


# name: (module, example input shape, dynamic input dims: -1 where dynamic)
REAL: dict[str, tuple[type[torch.nn.Module], tuple[int, ...], list[int]]] = {
    "gpt-2 attention": (Attention, (2, 5, 16), [-1, -1, 16]),  # Linear needs C
    "swin patch merging": (PatchMerging, (1, 4, 6, 8), [-1, -1, -1, 8]),
    "matmul add softmax": (GatedBlock, (2, 3, 8), [-1, -1, 8]),
    "lstm cell": (LstmCell, (2, 6), [-1, 6]),
    "rope": (Rope, (1, 2, 5, 8), [-1, 2, -1, 8]),
    "yolo head": (YoloHead, (1, 4, 4, 6), [-1, 4, -1, -1]),  # Conv2d needs the channels
    "flips and narrow": (FlipNarrow, (2, 5, 6), [-1, -1, -1]),
}


def convert(module: torch.nn.Module, example: tuple[int, ...], dims: Any) -> Any:
    """``openvino.convert_model`` of ``module`` traced on zeros of ``example``, input ``dims``.

    ``dims``: a list of ints, or an ``openvino.PartialShape``.
    """
    with warnings.catch_warnings():  # convert_model traces, which torch 2.13 deprecates
        warnings.filterwarnings("ignore", r"`torch\.jit\.trace", DeprecationWarning)
        warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)
        return ov.convert_model(
            module.eval(), example_input=torch.zeros(example), input=[ov.PartialShape(dims)]
        )


class Fn(torch.nn.Module):
    """A module whose forward is ``fn``: a slicing program written as a lambda."""

    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x: Any) -> Any:
        return self.fn(x)


def convert_fn(fn: Any, example: tuple[int, ...], dims: list[Any], tmp_path: Path) -> Path:
    """`convert` of ``Fn(fn)``, its input named ``x`` and its outputs ``y0``, ``y1``..., saved."""
    converted = convert(Fn(fn), example, dims)
    converted.inputs[0].get_tensor().set_names({"x"})
    for k, out in enumerate(converted.outputs):  # convert_model names none of them
        out.get_tensor().set_names({f"y{k}"})
    return ov_models.save(converted, tmp_path)


def convert_real(name: str, tmp_path: Path, *, dynamic: bool) -> Path:
    """``REAL[name]`` converted with a static or dynamic input shape, saved as ``real.xml``."""
    module, shape, dims = REAL[name]
    converted = convert(module(), shape, dims if dynamic else list(shape))
    return ov_models.save(converted, tmp_path, "real")
