"""The one thing pyproject.toml cannot say yet: datamove's optional compiled part.

``datamove._kernels`` (the C in csrc/; csrc/kernels.h says what each file holds) is optional:
without a C compiler the package installs and runs the same, on NumPy's own copy loops and
Python's plan caches, only slower on strided copies and repeated calls (bench/RESULTS.md). The
C lives outside src/ so that it is never found as a package: a ``_kernels`` directory in
src/datamove would be imported as a namespace package in place of a missing extension.
Everything else about the package is in pyproject.toml.

A build that fails must not leave an older build in use: the old module is deleted before the
compiler runs (in ``src/datamove`` for editable installs, and in ``build/``), so a failed build
means no extension, never a stale one. ``DATAMOVE_REQUIRE_KERNELS=1`` makes a failed build an
error instead of a warning.
"""

import os
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class BuildExt(build_ext):
    """``build_ext`` that removes the previous build of an extension before compiling it."""

    in_source = False

    def run(self) -> None:
        """Build, noting first whether the build goes to the sources.

        setuptools clears ``inplace`` while the extensions compile, and copies them over after.
        """
        self.in_source = bool(self.inplace) or getattr(self, "editable_mode", False)
        super().run()

    def build_extension(self, ext: Extension) -> None:
        """Delete the previous build, then build (failing, if DATAMOVE_REQUIRE_KERNELS)."""
        stale = [Path(self.get_ext_fullpath(ext.name))]
        if self.in_source:  # the copy in the sources
            here = Path(__file__).resolve().parent / "src" / "datamove"
            stale += [*here.glob("_kernels*.so"), *here.glob("_kernels*.pyd")]
        for path in stale:
            path.unlink(missing_ok=True)
        if os.environ.get("DATAMOVE_REQUIRE_KERNELS"):
            ext.optional = False
        super().build_extension(ext)


KERNELS = Extension(
    "datamove._kernels",
    [f"csrc/{name}.c" for name in ("module", "rows", "nibbles", "shuffle_vbmi", "plans")],
    depends=["csrc/kernels.h"],
    optional=True,
)

setup(
    ext_modules=[KERNELS],
    cmdclass={"build_ext": BuildExt},
)
