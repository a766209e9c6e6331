"""The allocator setting that keeps a solve's resident memory what its chunk cache counts
(solver/runtime/allocator.py): freed chunks go back to the system, not into heap holes."""

import platform
import subprocess
import sys

import pytest

CHURN = """
import ctypes, random, sys
import numpy as np
if sys.argv[1] == "mapped":
    from solver.runtime.allocator import map_large_blocks
    assert map_large_blocks()

class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks "
                "fsmblks uordblks fordblks keepcost".split()]

libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Info
rng = random.Random(1)
held = {}
for step in range(3000):  # a cache of 1 MiB chunks, dropped in another order than taken,
    held[step] = np.ones(1 << 20, np.uint8)  # beside buffers of other sizes
    scratch = np.empty(rng.randrange(200_000, 900_000), np.uint8)
    if len(held) > 100:
        del held[rng.choice(list(held))]
info = libc.mallinfo2()
print(info.arena >> 20, info.fordblks >> 20, info.hblkhd >> 20)
"""


def churn(mode: str) -> tuple[int, int, int]:
    done = subprocess.run([sys.executable, "-c", CHURN, mode], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    heap, free, mapped = map(int, done.stdout.split())
    return heap, free, mapped


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_freed_chunks_leave_no_holes_in_the_heap():
    """By default, after the first large free, glibc serves 1 MiB chunks from the heap and
    keeps the holes freed ones leave; set, every chunk has its own mapping (100 MiB held,
    100 MiB mapped) and the heap holds almost nothing."""
    heap, free, mapped = churn("default")
    assert heap >= 100 and mapped < 10, (heap, free, mapped)
    heap, free, mapped = churn("mapped")
    assert heap < 10 and free < 10 and 100 <= mapped < 110, (heap, free, mapped)


def test_the_command_and_the_workers_set_it_first():
    """The `gsolve` process, the forkserver a LocalCluster's workers fork from, and the
    Python API's solve each set it before solving."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for path in ("solver/command/console.py", "solver/engine/forkserver.py",
                 "solver/__init__.py"):
        assert "map_large_blocks()" in (root / path).read_text(), path
