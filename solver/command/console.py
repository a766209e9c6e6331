"""The `gsolve` console script: solver/command/cli.py's command, started with Python's cyclic
garbage collector kept off the objects that imports build.

A small solve's time is mostly imports and exit. numba, numpy and zarr build about a
million objects at import, none ever garbage; the collector's passes over them while they
load, and the interpreter's final collections at exit, cost tic-tac-toe 0.1 s and 0.3 s of a
1.3 s solve. So the command is imported with collection off, and what it built is frozen
out of the collector's sight (gc.freeze) before the run and again after it; collection is
on during the run, which may be a long solve. A query runs without collection and leaves
at once: it has nothing to clean up (output flushed, nothing written).
"""

from __future__ import annotations

import gc
import os
import signal
import sys


def _interrupted_while_loading(signum, frame) -> None:
    os.write(2, b"gsolve: interrupted\n")
    os._exit(130)


def end_at_interrupt() -> None:
    """Ctrl-C before main's own handlers ends the process at once: nothing is written yet.
    A handler rather than `except KeyboardInterrupt` around the imports, which an exception
    landing in a finalizer (swallowed: the Ctrl-C lost) or in importlib's module-lock
    callback (the import lock left held: a hang at exit) would escape."""
    signal.signal(signal.SIGINT, _interrupted_while_loading)


def entry() -> None:
    end_at_interrupt()
    from solver.runtime.allocator import map_large_blocks

    map_large_blocks()  # before anything is allocated: a solve's RSS stays what it holds
    gc.disable()
    from solver.command.cli import main

    gc.freeze()
    quick = sys.argv[1:2] == ["query"]
    if not quick:
        gc.enable()
    code = main()
    if quick:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    gc.freeze()
    _end_within(EXIT_GRACE, code)
    sys.exit(code)


EXIT_GRACE = 5.0  # seconds the interpreter's exit may take (joining threads, atexit)


def _end_within(seconds: float, code: int) -> None:
    """End the process `seconds` from now if its exit has not: a thread a failed solve left
    behind (a Dask client's, a store's writer) must not hold the exit for ever. What a
    solve wrote is on disk by now; the exit only joins threads and runs atexit hooks."""
    import threading
    import time

    from solver.command.stopping import end_now

    def end():
        time.sleep(seconds)
        end_now(code)

    threading.Thread(target=end, name="gsolve-exit", daemon=True).start()
