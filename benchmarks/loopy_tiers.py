"""Speed of the in-tier retrograde (solver/engine/loopy.py): positions per second per core
over a game's loopy tiers, taken from one tiered solve.

Usage: python benchmarks/loopy_tiers.py [GAME:VARIANT ...] [--symmetry] [--lean | --paged N]
       [--threads N]

Each case is solved with the tiers method into a temporary store (compile time excluded:
the kernels are loaded first). The calls of `loopy.retrograde` are timed, wall and process
CPU (all threads) while any of them runs (a level's small tiers run side by side), and
the positions each decided are counted: the reached records of its
tier range after the call (canonical positions with --symmetry). Prints the loopy tiers'
slots and positions, their wall and CPU seconds, positions/s, positions per CPU second
(per core), and the share of the whole solve's wall time they took. Default cases: the
loopy tiers issue 24 asks about (Quixo 4x4, Teeko 4x4, Morris Six's movement tiers).
`--lean` runs every loopy tier in the lean worker (solver/engine/levels.py), the one a
task takes when its tier passes its memory at full speed. `--paged N` runs every task
paged (solver/engine/paged.py), its own range in N parts and its window in N pages (the
worker a task takes past even the lean worker's memory); then the loopy tiers' time is
their fold over the pages and their levels, scratch I/O included.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

DEFAULT_CASES = ["quixo:size=4", "teeko:size=4", "morris:men=6"]


def run_case(case: str, symmetry: bool, lean: bool = False, paged: int = 0) -> dict:
    from games import get_game
    from solver.engine import loopy, manager
    from solver.kernels.numbering import Numbering

    name, _, variant = case.partition(":")
    game = Numbering(get_game(name, variant or None), symmetry)
    manager.warm_up(game)
    tally = {"calls": 0, "slots": 0, "positions": 0, "wall": 0.0, "cpu": 0.0}
    if paged:
        return _paged_case(case, game, paged, tally)
    timed = loopy.retrograde
    lock = threading.Lock()
    busy = {"calls": 0, "wall": 0.0, "cpu": 0.0}  # calls running now (side by side: worker)

    def counted(game, win, seg, lo, hi, obase, bad, _lean=False):
        # wall and CPU while any call runs, once: tiers run side by side on the pool
        with lock:
            if not busy["calls"]:
                busy["wall"], busy["cpu"] = time.perf_counter(), time.process_time()
            busy["calls"] += 1
        try:
            timed(game, win, seg, lo, hi, obase, bad, lean)
        finally:
            with lock:
                busy["calls"] -= 1
                if not busy["calls"]:
                    tally["wall"] += time.perf_counter() - busy["wall"]
                    tally["cpu"] += time.process_time() - busy["cpu"]
        with lock:
            tally["calls"] += 1
            tally["slots"] += hi - lo
            tally["positions"] += int(np.count_nonzero(win[lo + obase:hi + obase]))

    loopy.retrograde = counted
    try:
        whole = _solve(game)
    finally:
        loopy.retrograde = timed
    return _row(case + (" --symmetry" if symmetry else "") + (" --lean" if lean else ""),
                tally, whole)


def _solve(game, **options) -> float:
    """Seconds of a tiered solve of `game` into a temporary store (`options`: the tier
    manager's)."""
    from solver.engine import manager

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        manager.solve_into(game, Path(tmp) / "db", fresh=True, **options)
        return time.perf_counter() - t0


def _row(label: str, tally: dict, whole: float) -> dict:
    from solver.runtime.parallel import threads

    pos, wall, cpu = tally["positions"], tally["wall"], tally["cpu"]
    return {"case": label, "threads": threads(),
            "tiers": tally["calls"], "slots": tally["slots"], "positions": pos,
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "positions_per_s": round(pos / wall) if wall else None,
            "positions_per_cpu_s": round(pos / cpu) if cpu else None,
            "share_of_solve": round(wall / whole, 2) if whole else None}


def _paged_case(case: str, game, n: int, tally: dict) -> dict:
    """Every task's solve paged (a forced strategy), in n parts and n pages; the loopy
    tiers' calls timed."""
    from solver.engine import memory, paged
    from solver.storage.database import CHUNK

    paged.warm(game)
    saved = memory.paged_sizes, paged.PagedRun.loopy
    timed = paged.PagedRun.loopy

    def counted(run, lo, hi):
        w0, c0 = time.perf_counter(), time.process_time()
        timed(run, lo, hi)
        tally["wall"] += time.perf_counter() - w0
        tally["cpu"] += time.process_time() - c0
        tally["calls"] += 1
        tally["slots"] += hi - lo
        rec = np.empty(min(hi - lo, CHUNK), run.dtype)
        for x in range(lo, hi, rec.size):
            part = rec[:min(hi, x + rec.size) - x]
            run.sc.read("rec", x - run.task.a, part)
            tally["positions"] += int(np.count_nonzero(part))

    memory.paged_sizes = lambda game, own, slots, limit, chunk: (-(-own // n), -(-slots // n),
                                                                 -(-own // n))
    paged.PagedRun.loopy = counted
    try:
        whole = _solve(game, strategy=memory.Strategy(solve=memory.PAGED))
    finally:
        memory.paged_sizes, paged.PagedRun.loopy = saved
    label = case + (" --symmetry" if game.symmetry else "") + f" --paged {n}"
    return _row(label, tally, whole)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=DEFAULT_CASES)
    ap.add_argument("--symmetry", action="store_true", help="solve canonical positions only")
    ap.add_argument("--lean", action="store_true", help="loopy tiers in the lean worker")
    ap.add_argument("--paged", type=int, default=0, metavar="N",
                    help="every task paged, in N parts and N pages")
    ap.add_argument("--threads", type=int, help="solver threads (GSOLVE_THREADS)")
    args = ap.parse_args()
    if args.threads:
        os.environ["GSOLVE_THREADS"] = str(args.threads)
    from solver.command.bench import machine

    print(f"# {machine()}, {time.strftime('%Y-%m-%d')}")
    head = ("case", "thr", "tiers", "slots", "positions", "wall s", "CPU s", "pos/s",
            "pos/CPU s", "share")
    print("  ".join(head))
    for case in args.cases:
        r = run_case(case, args.symmetry, args.lean, args.paged)
        print("  ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in r.values()))


if __name__ == "__main__":
    main()
