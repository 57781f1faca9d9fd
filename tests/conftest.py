"""The two switches the tests turn: ``xp`` (the array library) and ``plan_path`` (the plan path).

``xp`` runs a test over every installed array library (missing ones are skipped, never passed).
Each parameter is a small ``Lib``: how to make an array of that library from a NumPy array, and
how to read one back. CuPy needs a GPU; it is skipped when absent, like any missing library.

``plan_path`` runs a test on both plan paths: the compiled key and hit of ``datamove._kernels``
(skipped where it was not built) and their Python twins, with an empty cache either way.

pytest's default ("prepend") import mode puts this file's folder on ``sys.path``, so ``tests/``
modules (``strategies``, ``openvino_oracle``) import from ``tests/ir`` and the other folders too,
also when a file there runs alone.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import settings

from strategies import examples

# Every property test draws the same examples on every run (CI is reproducible: a random draw
# never decides whether a commit lands) unless DATAMOVE_RANDOM=1, which draws afresh to find
# new inputs (pin each as an @example). A test's own @settings keep this unless they say.
# DATAMOVE_EXAMPLES scales every test's example count: Hypothesis's default 100 here, and each
# test's own count through ``strategies.examples`` (``max_examples=examples(N)``, never a bare
# number: test_architecture holds that).
_RANDOM = os.environ.get("DATAMOVE_RANDOM", "") == "1"
settings.register_profile(
    "datamove",
    derandomize=not _RANDOM,
    max_examples=examples(100),
    **({} if _RANDOM else {"database": None}),
)
settings.load_profile("datamove")

# `import openvino` and `openvino.convert_model` send telemetry from a forked child. A fork in a
# process where JAX (imported by the backend tests) runs threads warns (an error here) and can
# deadlock; OpenVINO falls back to a stub where the package cannot be imported.
sys.modules.setdefault("openvino_telemetry", None)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Lib:
    name: str
    module: Any
    views: bool  # writes to the input show through copy=None results
    mutable: bool  # out= and __setitem__ work

    def asarray(self, a: np.ndarray) -> Any:
        if self.name == "dask":
            return self.module.from_array(a.copy(), chunks=2)
        if self.name == "torch":
            return self.module.from_numpy(a.copy())
        return self.module.asarray(a.copy())

    def to_numpy(self, x: Any) -> np.ndarray:
        if self.name == "dask":
            return np.asarray(x.compute())
        if self.name == "torch":
            return x.numpy()
        if self.name == "cupy":
            return x.get()
        if self.name == "array_api_strict":
            return np.asarray(x._array)
        return np.asarray(x)


_LIBS = {
    "numpy": ("numpy", True, True),
    "array_api_strict": ("array_api_strict", True, True),
    "torch": ("torch", True, True),
    "jax": ("jax.numpy", False, False),
    "dask": ("dask.array", True, False),
    "cupy": ("cupy", True, True),
}


@pytest.fixture(params=list(_LIBS))
def xp(request: pytest.FixtureRequest) -> Lib:
    module_name, views, mutable = _LIBS[request.param]
    top = module_name.split(".")[0]
    pytest.importorskip(top)
    if request.param == "cupy":
        cupy = importlib.import_module("cupy")
        if cupy.cuda.runtime.getDeviceCount() == 0:  # pragma: no cover - GPU machines only
            pytest.skip("CuPy is installed but no GPU is visible")
    return Lib(request.param, importlib.import_module(module_name), views, mutable)


@pytest.fixture(params=["compiled", "python"])
def plan_path(request: pytest.FixtureRequest) -> Iterator[str]:
    """Both plan paths: the compiled key and hit (where built), and their Python twins."""
    from datamove import _plan

    try:
        switch = _plan.plan_path(request.param)
        switch.__enter__()
    except ValueError:
        pytest.skip("the compiled part (datamove._kernels) was not built")
    try:
        yield request.param
    finally:
        switch.__exit__(None, None, None)
