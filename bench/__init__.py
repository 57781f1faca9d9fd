"""datamove's benchmarks: ``python -m bench`` (``make bench``) runs every ``bench_*.py``.

Importing this package sets ``OPENBLAS_NUM_THREADS=1`` unless it is set already, before any
benchmark imports NumPy: NumPy's idle OpenBLAS threads showed up spinning in ``perf`` (about
19 % of the samples in a process that timed copies only) and took a core from the copies
(bench/HISTORY.md, "Runs of 1-3 bytes ... as shuffle programs").
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# PyTorch's OpenMP threads spin for a while after each parallel call, on the cores the next
# method needs: in `bench concat` datamove right after torch.cat ran at 0.86-0.90 of a plain
# copy, and torch.cat itself after datamove at 4-30 GB/s instead of 43. Passive threads sleep
# at once; every method is then timed on idle cores.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
