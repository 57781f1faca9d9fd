"""The one thing pyproject.toml cannot say yet: datamove's optional compiled copy loop.

``datamove._kernels`` (src/datamove/_kernels.c) is optional: without a C compiler the package
installs and runs the same, on NumPy's own copy loops, only slower on strided copies
(bench/RESULTS.md). Everything else about the package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[Extension("datamove._kernels", ["src/datamove/_kernels.c"], optional=True)],
)
