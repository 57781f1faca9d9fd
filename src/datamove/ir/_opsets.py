"""The layer types each opset holds, as OpenVINO 2026.4's IR reader reads a layer's ``version``.

OpenVINO reads a layer of ``version="opsetN"`` where its opset N holds the layer's type (case
ignored); it refuses the file where opset N does not ("Opset opset1 doesn't contain the
operation with type: Gelu") and where it has no opset N (``opset0``, ``opset01``, ``opset99``:
"from unsupported opset"). Any other version (``extension``, ``custom``, ``ie_internal_opset``)
it reads only with an extension that registers the type in that version
(``Core.add_extension``), but for the experimental layers it takes from opset6. `version_rule`
says which, for `datamove.ir._ops.unsupported_reason` and check's ``"extension"`` notes;
`most_outputs` how many output ports a layer OpenVINO reads may declare.
"""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = ["NEWEST_OPSET", "Held", "held", "most_outputs", "version_rule"]

NEWEST_OPSET: Final = 17

# The opsets holding each type ("1,3-16:" opset1 and opset3 to opset16), as OpenVINO 2026.4.1's
# openvino/opsets/opsetN_tbl.hpp list them; Const is the IR's name of Constant.
_TABLE: Final = """
1: Reverse Xor
1,3-16: RNNCell ShuffleChannels
1-16: Abs Acos Add Asin Atan AvgPool BatchNormInference BinaryConvolution Broadcast Ceiling
    Clamp Concat Const ConvertLike Convolution ConvolutionBackpropData Cos Cosh
    CTCGreedyDecoder DeformableConvolution DeformablePSROIPooling DepthToSpace DetectionOutput
    Divide Elu Equal Erf Exp FakeQuantize Floor FloorMod Gather GatherTree Greater GreaterEqual
    GRN GroupConvolution GroupConvolutionBackpropData HardSigmoid Interpolate Less LessEqual
    Log LogicalAnd LogicalNot LogicalOr LogicalXor LRN LSTMCell MatMul Maximum MaxPool Minimum
    Mod Multiply Negative NonMaxSuppression NormalizeL2 NotEqual OneHot Pad Power PRelu
    PriorBox PriorBoxClustered Proposal PSROIPooling Range ReduceLogicalAnd ReduceLogicalOr
    ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum RegionYolo Relu Reshape
    Result ReverseSequence Select Selu Sigmoid Sign Sin Sinh Softmax SpaceToDepth
    Split Sqrt SquaredDifference Squeeze StridedSlice Subtract Tan Tanh TensorIterator Tile
    TopK Transpose Unsqueeze VariadicSplit
1-17: Convert Parameter ShapeOf
2-16: BatchToSpace Gelu MVN ReorgYolo ROIPooling SpaceToBatch
3-16: Assign Bucketize CumSum EmbeddingBagOffsetsSum EmbeddingBagPackedSum EmbeddingSegmentsSum
    ExtractImagePatches GRUCell NonZero ReadValue ROIAlign ScatterElementsUpdate ScatterUpdate
4-16: Acosh Asinh Atanh CTCLoss HSwish Mish ReduceL1 ReduceL2 ScatterNDUpdate SoftPlus Swish
5-16: GatherND GRUSequence HSigmoid LogSoftmax Loop LSTMSequence RNNSequence Round
6-16: CTCGreedyDecoderSeqLen ExperimentalDetectronDetectionOutput
    ExperimentalDetectronGenerateProposalsSingleImage ExperimentalDetectronPriorGridGenerator
    ExperimentalDetectronROIFeatureExtractor ExperimentalDetectronTopKROIs GatherElements
7-16: DFT Einsum IDFT Roll
8-16: AdaptiveAvgPool AdaptiveMaxPool I420toBGR I420toRGB If MatrixNms MulticlassNms NV12toBGR
    NV12toRGB RandomUniform Slice
9-16: Eye GenerateProposals GridSample IRDFT RDFT SoftSign
10-16: IsFinite IsInf IsNaN Unique
12-16: GroupNormalization
13-16: BitwiseAnd BitwiseNot BitwiseOr BitwiseXor FakeConvert Multinomial NMSRotated
    ScaledDotProductAttention
14-16: ConvertPromoteTypes Inverse
15-16: BitwiseLeftShift BitwiseRightShift Col2Im EmbeddingBagOffsets EmbeddingBagPacked
    ROIAlignRotated SearchSorted SliceScatter STFT StringTensorPack StringTensorUnpack
16: Identity ISTFT SegmentMax SparseFillEmptyRows
17: BGRtoNV12 ErfInv GroupedMatMul RGBtoNV12
"""

# The reader's special cases, each for a type spelled so exactly: these it takes from opset2 for
# a version="opset1", and these from opset6 for a version="experimental" or "extension".
_FROM_OPSET2: Final = frozenset({"MVN", "ROIPooling", "ReorgYolo"})
_EXPERIMENTAL: Final = frozenset(
    {
        "ExperimentalDetectronDetectionOutput",
        "ExperimentalDetectronGenerateProposalsSingleImage",
        "ExperimentalDetectronPriorGridGenerator",
        "ExperimentalDetectronROIFeatureExtractor",
        "ExperimentalDetectronTopKROIs",
        "GRUCell",
        "RNNCell",
        "Proposal",
    }
)
# The types of more than one output ("2:" two; BGRtoNV12 where not `single_plane`); every other
# type has one, but those of "0:", whose outputs are their bodies' or their attribute's (which
# datamove reads). Before the opset of `_SINCE` a type has one (MaxPool-1; MaxPool-8 has two).
_MANY: Final = """
4: Unique
3: ExperimentalDetectronDetectionOutput GenerateProposals LSTMSequence MatrixNms MulticlassNms
    NMSRotated NonMaxSuppression SparseFillEmptyRows StringTensorUnpack
2: AdaptiveMaxPool BGRtoNV12 ConvertPromoteTypes CTCGreedyDecoderSeqLen
    ExperimentalDetectronGenerateProposalsSingleImage ExperimentalDetectronROIFeatureExtractor
    GRUSequence LSTMCell MaxPool Proposal RGBtoNV12 RNNSequence TopK
0: If Loop Split TensorIterator VariadicSplit
"""
_OUTPUTS: Final = {
    name.lower(): int(count)
    for line in _MANY.replace("\n    ", " ").strip().split("\n")
    for count, names in [line.split(":")]
    for name in names.split()
}
_SINCE: Final = {"maxpool": 8, "nonmaxsuppression": 5, "proposal": 4}
_NUMBERS: Final = {f"opset{n}": n for n in range(1, NEWEST_OPSET + 1)}


class Held(NamedTuple):
    """The opsets that hold one layer type: their numbers, and those in words."""

    opsets: frozenset[int]
    words: str  # "opset1 and opset3 to opset16"


def _parse(table: str) -> dict[str, Held]:
    found: dict[str, Held] = {}
    held = Held(frozenset(), "")
    for token in table.split():
        if token.endswith(":"):  # "1,3-16:" starts the types those opsets hold
            spans = [tuple(map(int, s.split("-"))) for s in token[:-1].split(",")]
            held = Held(
                frozenset(n for s in spans for n in range(s[0], s[-1] + 1)),
                " and ".join(" to ".join(f"opset{n}" for n in s) for s in spans),
            )
        else:
            found[token.lower()] = held
    return found


_HELD: Final = _parse(_TABLE)


def held(layer_type: str) -> Held | None:
    """The opsets that hold a layer type (its case ignored), or ``None`` where none does.

    >>> held("Slice")
    Held(opsets=frozenset({8, 9, 10, 11, 12, 13, 14, 15, 16}), words='opset8 to opset16')
    """
    return _HELD.get(layer_type.lower())


def version_rule(layer_type: str, version: str) -> tuple[bool, str] | None:
    """``None`` where OpenVINO reads a layer of this type (as the file spells it) and version.

    Otherwise ``(refused, why)``: ``refused`` where OpenVINO refuses the file (the version names
    no opset it has, or one without the type), else it reads the layer only with an extension.

    >>> version_rule("Relu", "opset1") is None
    True
    >>> print(version_rule("Gelu", "opset1"))
    (True, 'opset1 does not contain the operation with type Gelu, so OpenVINO refuses the ...')
    """
    found = held(layer_type)
    number = _NUMBERS.get(version)
    if (found and number in found.opsets) or (number == 1 and layer_type in _FROM_OPSET2):
        return None
    where = f"{layer_type} is in {found.words}" if found else f"no opset holds {layer_type}"
    if number is not None:
        return True, (
            f"{version} does not contain the operation with type {layer_type}, so OpenVINO "
            f"refuses the file ({where})"
        )
    digits = version.removeprefix("opset")
    if not version or (digits != version and digits.isascii() and digits.isdigit()):
        return True, (
            f"OpenVINO has no opset {version!r}, so it refuses the file (it has opset1 to "
            f"opset{NEWEST_OPSET}; {where})"
        )
    if version in {"experimental", "extension"} and layer_type in _EXPERIMENTAL:
        return None
    return False, (
        f"{version!r} is no opset: OpenVINO reads the layer only with an extension "
        f"that registers {layer_type} in it (Core.add_extension; {where})"
    )


def most_outputs(layer_type: str, version: str) -> int | None:
    """The most output ports a layer OpenVINO reads may declare, or ``None`` where not known.

    More it refuses ("node index is out of range"), fewer it reads. Not known: a version
    `version_rule` does not read, a type whose outputs are its own (Loop, Split).

    >>> [most_outputs(t, v) for t, v in [("Relu", "opset1"), ("TopK", "opset11"), ("If", "opset8")]]
    [1, 2, None]
    """
    if version_rule(layer_type, version) is not None:
        return None
    if _NUMBERS.get(version, NEWEST_OPSET) < _SINCE.get(layer_type.lower(), 0):
        return 1
    return _OUTPUTS.get(layer_type.lower(), 1) or None
