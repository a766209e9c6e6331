"""Timing one solve in memory: compile (or cache load) time, solve time, memory (the peak
the solve allocated, per hash slot and per reachable position)."""

from __future__ import annotations

import platform
import resource
import tempfile
import time
import tracemalloc
from pathlib import Path

from games import get_game


def machine() -> str:
    import os

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def run_benchmark(game: str, variant: str | None = None, method: str | None = None,
                  symmetry: bool = False) -> dict:
    """One solve timed; with `symmetry`, on canonical positions only (its positions and
    bytes/pos then count canonical positions)."""
    from games.base import GsolveError
    from solver.kernels.numbering import Numbering
    from solver.methods.estimate import check_fits, default_method
    from solver.methods.registry import applicable_methods, method_module
    from solver.methods.speed import record_speed
    from solver.runtime.parallel import threads

    g = Numbering(get_game(game, variant), symmetry)
    method = method or default_method(g)
    module = method_module(method)
    if method not in applicable_methods(g):
        raise GsolveError(module.why_not(g))
    check_fits(g, method)  # the same refusal as a solve: never a MemoryError
    t0 = time.perf_counter()
    module.warm_up(g)
    t1 = time.perf_counter()
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with tempfile.TemporaryDirectory() as tmp:
        tracemalloc.start()
        t2 = time.perf_counter()
        if module.WRITES_AS_IT_GOES:  # streams tiers through a store: measure that
            positions = module.solve_into(g, Path(tmp) / "db", fresh=True)["positions"]
        else:
            rec = module.solve(g)
        t3 = time.perf_counter()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    if not module.WRITES_AS_IT_GOES:
        positions = int(((rec & 7) != 0).sum())
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    solve_s = t3 - t2
    record_speed(g, method, solve_s)
    return {
        "game": g.name, "variant": g.variant_key, "method": method, "symmetry": symmetry,
        "threads": threads(),
        "hash_size": g.hash_size, "positions": positions,
        "compile_seconds": round(t1 - t0, 4), "solve_seconds": round(solve_s, 4),
        "positions_per_second": round(positions / solve_s) if solve_s > 0 else None,
        # peak memory the solve allocated, per hash slot (unreachable slots included) and
        # per reachable position
        "bytes_per_slot": round(peak / g.hash_size, 3),
        "bytes_per_position": round(peak / positions, 3) if positions else None,
        "peak_rss_growth_mib": round(max(0, rss1 - rss0) / 1024, 1),
    }


COLUMNS = [("game", "game"), ("variant", "variant"), ("method", "method"),
           ("threads", "thr"), ("positions", "positions"), ("compile_seconds", "compile s"),
           ("solve_seconds", "solve s"), ("positions_per_second", "positions/s"),
           ("bytes_per_slot", "bytes/slot"), ("bytes_per_position", "bytes/pos")]


def format_rows(rows: list[dict]) -> str:
    def cell(v):
        if isinstance(v, int) and not isinstance(v, bool):
            return f"{v:,}"
        return str(v)

    def value(r, k):  # a solve on canonical positions says so beside its method
        return f"{r[k]}, symmetry" if k == "method" and r.get("symmetry") else r.get(k)

    table = [[h for _, h in COLUMNS]] + [[cell(value(r, k)) for k, _ in COLUMNS] for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True))
                     for row in table)
