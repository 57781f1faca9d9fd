"""Run every benchmark module ``bench/bench_*.py`` (its ``main(argv)``), in one process each.

``python -m bench [--quick] [NAME ...]``: NAME picks modules (``core``, ``ir`` ...).
Speed is reported as ratios against peers run side by side in the same process; nothing here
asserts a timing.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, few repeats")
    parser.add_argument("names", nargs="*", help="benchmark modules to run (default: all)")
    args = parser.parse_args(argv)
    here = Path(__file__).parent
    found = sorted(
        m.name[len("bench_") :]
        for m in pkgutil.iter_modules([str(here)])
        if m.name.startswith("bench_")
    )
    names = args.names or found
    unknown = sorted(set(names) - set(found))
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)}; there are {', '.join(found)}")
    status = 0
    for name in names:
        print(f"\n=== bench_{name} ===", flush=True)
        # One process per module: the peers they load (torch, OpenVINO ...) do not interfere.
        cmd = [
            sys.executable,
            "-c",
            (
                f"import sys, bench.bench_{name} as b; "
                f"sys.exit(b.main({['--quick'] if args.quick else []!r}) or 0)"
            ),
        ]
        status |= subprocess.run(cmd, cwd=here.parent, check=False).returncode
    importlib.invalidate_caches()
    return status


if __name__ == "__main__":
    sys.exit(main())
