"""datamove's benchmarks: ``python -m bench`` (``make bench``) runs every ``bench_*.py``."""
