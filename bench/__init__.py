"""datamove's benchmarks: ``python -m bench`` (``make bench``) runs every ``bench_*.py``.

Importing this package sets ``OPENBLAS_NUM_THREADS=1`` unless it is set already, before any
benchmark imports NumPy: NumPy's idle OpenBLAS threads showed up spinning in ``perf`` (about
19 % of the samples in a process that timed copies only) and took a core from the copies
(bench/HISTORY.md, "Runs of 1-3 bytes ... as shuffle programs").
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
