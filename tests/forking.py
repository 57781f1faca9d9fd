"""Fork tests: a thread holds locks as the process forks, and the child must still finish.

Each runs as a script in a subprocess of its own, so that no thread of the test process (JAX's,
say) is forked, and the script's parent kills a child that has not finished in time: a lock
left held in the child fails the test instead of hanging it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

__all__ = ["fork_holding"]

_SCRIPT = """
import os, sys, threading, time, traceback
{setup}
locks = {locks}
held, done = threading.Event(), threading.Event()

def hold():  # a thread inside each lock as the process forks
    for lock in locks:
        lock.acquire()
    held.set()
    done.wait()
    for lock in locks:
        lock.release()

thread = threading.Thread(target=hold)
thread.start()
held.wait()
pid = os.fork()
if pid == 0:
    try:
{child}
        code = 0
    except BaseException:
        traceback.print_exc()
        code = 2
    sys.stderr.flush()
    os._exit(code)
done.set()
thread.join()
for _ in range({polls}):  # 0.05 s each
    got, status = os.waitpid(pid, os.WNOHANG)
    if got:
        sys.exit(os.waitstatus_to_exitcode(status))
    time.sleep(0.05)
os.kill(pid, 9)
os.waitpid(pid, 0)
sys.exit("the forked child hung: a lock held as the process forked was never let go")
"""


def fork_holding(
    setup: str,
    locks: str,
    child: str,
    *argv: str,
    seconds: int = 10,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``setup``; hold the locks the expression ``locks`` lists; fork; run ``child`` there.

    The script's status is the child's (0: ``child`` ran without raising; 2: it raised, the
    traceback on stderr), or 1 where the child had not finished in ``seconds``.
    """
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this system")
    script = _SCRIPT.format(
        setup=textwrap.dedent(setup),
        locks=locks,
        child=textwrap.indent(textwrap.dedent(child), " " * 8),
        polls=seconds * 20,
    )
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=seconds + 110,
        check=False,
    )
