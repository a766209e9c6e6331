"""`GSOLVE_COMPILE_REPORT=DIR pytest ...`: every numba compile of the suite's processes
(a kernel or rule, its seconds with and without the compiles nested in it, the test that
caused it), one JSON file a process, for a cold suite's time to be taken apart
(benchmarks/suite_compiles.py sums them)."""

import json
import os
import threading
import time
from pathlib import Path

from numba.core import event

_rows: list[dict] = []
_now = threading.local()
_test = ["(collection)"]


class _Compiles(event.Listener):
    """Nested compiles (a kernel compiling the rules it calls) are timed apart: each row's
    `own` seconds leave out the compiles inside it."""

    def on_start(self, ev):
        stack = getattr(_now, "stack", None)
        if stack is None:
            stack = _now.stack = []
        stack.append([time.perf_counter(), 0.0])

    def on_end(self, ev):
        t0, inner = _now.stack.pop()
        took = time.perf_counter() - t0
        if _now.stack:
            _now.stack[-1][1] += took
        f = ev.data["dispatcher"].py_func
        _rows.append({"test": _test[0], "module": f.__module__, "function": f.__qualname__,
                      "seconds": round(took, 4), "own": round(took - inner, 4),
                      "depth": len(_now.stack)})


def start(where: str) -> None:
    event.register("numba:compile", _Compiles())
    name = os.environ.get("PYTEST_XDIST_WORKER", "main")
    path = Path(where) / f"compiles-{name}-{os.getpid()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)

    def save():
        path.write_text(json.dumps(_rows))

    import atexit

    atexit.register(save)


def at_test(nodeid: str) -> None:
    _test[0] = nodeid
