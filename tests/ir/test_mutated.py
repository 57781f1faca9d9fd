"""Random models saved by OpenVINO, then damaged at random: read, check and run raise IRErrors.

Each case changes one to three things in a valid IR: an attribute or a text set to junk
(empty, negative, huge, not a number, a partial interval, a type name), an element removed, or an
element duplicated; sometimes the weights file is cut short. Reading, checking and running the
result may succeed or raise a ``datamove.ValidationError`` (``IRError`` for the file), nothing
else. A run of 1500 such files found one escape (a layer declaring fewer output ports than its
operator has, which ``run`` zipped), pinned in test_hostile.py.

`test_a_file_openvino_refuses_is_never_ok` changes such a file once where OpenVINO's verdict is
decided by the file alone, and compares check's with it (3,000 files: none differ; on the
code before the hunt that added it, a third did).
"""

from __future__ import annotations

import contextlib
import os
import random
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

import pytest

import datamove as dm
from datamove.ir import read_model
from datamove.ir._model import _FATAL_KINDS as FATAL
from strategies import examples

if TYPE_CHECKING:
    from pathlib import Path

ov_models = pytest.importorskip("ov_models")  # models built and saved by OpenVINO
openvino_oracle = pytest.importorskip("openvino_oracle")
CASES = max(1, round(120 * float(os.environ.get("DATAMOVE_EXAMPLES", "1"))))

JUNK = ["", "-1", "abc", "1e9", "99999999999999999999", "?", "1,2", "0x10", "nan", "2..", ".."]
JUNK += ["-9223372036854775809", "i64", "f32", "u1", "bf16", "0", "1,,2", " ", "4294967296", "1.5"]


def damage(xml: Path, rng: random.Random) -> None:
    tree = ET.parse(xml)  # noqa: S314 - a file this test wrote
    elements = list(tree.getroot().iter())
    parents = {child: parent for parent in elements for child in parent}
    for _ in range(rng.randint(1, 3)):
        element = rng.choice(elements)
        roll = rng.random()
        if roll < 0.5 and element.attrib:
            key = rng.choice(list(element.attrib))
            element.attrib[key] = rng.choice([*JUNK, element.attrib[key] + rng.choice(JUNK)])
        elif roll < 0.7 and element.text and element.text.strip():
            element.text = rng.choice(JUNK)
        elif element in parents:
            parent = parents[element]
            if roll < 0.85:
                parent.remove(element)
            else:
                parent.append(ET.fromstring(ET.tostring(element)))  # noqa: S314
    tree.write(xml)
    weights = xml.with_suffix(".bin")
    if rng.random() < 0.2 and weights.exists():
        data = weights.read_bytes()
        weights.write_bytes(data[: rng.randint(0, len(data))])


@pytest.mark.parametrize("seed", range(CASES))
def test_damaged_models_raise_only_irerrors(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)  # noqa: S311 - reproducible test data
    model, inputs = ov_models.random_model(seed % 40, dynamic=bool(seed % 2))
    xml = ov_models.save(model, tmp_path)
    damage(xml, rng)
    with contextlib.suppress(dm.ValidationError):  # anything else fails the test
        loaded = read_model(xml)
        loaded.check()
        loaded.run(inputs)


# -- the verdict: a file OpenVINO refuses is never OK ---------------------------------------------

VERDICT_CASES = examples(60)


def _change(xml: Path, rng: random.Random) -> str:
    """One change of a kind where OpenVINO's reader and check must agree: an output port added
    to a layer, a <dim> respelt, a Const's attribute dropped, a StridedSlice mask lengthened."""
    tree = ET.parse(xml)  # noqa: S314 - a file this test wrote
    layers = list(tree.getroot().iter("layer"))
    kind = rng.choice(["port", "dim", "const", "mask"])
    if kind == "port":
        outs = [x for x in layers if x.get("type") != "Parameter" and x.find("output") is not None]
        layer = rng.choice(outs)
        output = layer.find("output")
        assert output is not None
        port = ET.fromstring(ET.tostring(output.findall("port")[-1]))  # noqa: S314
        port.set("id", str(1 + max(int(p.get("id", "0")) for p in layer.iter("port"))))
        output.append(port)
    elif kind == "dim":
        rng.choice(list(tree.getroot().iter("dim"))).text = rng.choice(["?", "..6", " -1", "1.."])
    else:
        wanted = "Const" if kind == "const" else "StridedSlice"
        found = [x.find("data") for x in layers if x.get("type") == wanted]
        if not found:
            return "none"
        data = rng.choice(found)
        assert data is not None
    if kind == "const":
        del data.attrib[rng.choice(["shape", "element_type", "offset", "size"])]
    elif kind == "mask":
        key = rng.choice(["end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask"])
        data.set(key, ",".join(["0"] * (len(data.get("begin_mask", "").split(",")) + 1)))
    tree.write(xml)
    return kind


@pytest.mark.openvino
@pytest.mark.parametrize("seed", range(VERDICT_CASES))
def test_a_file_openvino_refuses_is_never_ok(seed: int, tmp_path: Path) -> None:
    # Random models changed once, each checked against OpenVINO's read, compile and run: it
    # refuses the file where check finds a problem run refuses, and runs it where check finds
    # none (a hunt of 3,000 such files found the rules of test_opsets.py, test_int_spellings.py,
    # test_run_refuses.py and test_attributes.py that this keeps).
    rng = random.Random(seed)  # noqa: S311 - reproducible test data
    model, inputs = ov_models.random_model(seed % 40)
    xml = ov_models.save(model, tmp_path)
    kind = _change(xml, rng)
    try:
        openvino_oracle.run_ir(xml, inputs)
        refused = False
    except openvino_oracle.OpenVINOError:
        refused = True
    try:
        fatal = [p for p in read_model(xml).check().problems if p.kind in FATAL]
    except dm.ValidationError as exc:  # refused as the file is read
        fatal = [exc]
    assert refused == bool(fatal), (kind, fatal)
