"""Speed of the in-tier retrograde (solver/engine/loopy.py): positions per second per core
over a game's loopy tiers, taken from one tiered solve.

Usage: python benchmarks/loopy_tiers.py [GAME:VARIANT ...] [--symmetry] [--lean]
       [--threads N]

Each case is solved with the tiers method into a temporary store (compile time excluded:
the kernels are loaded first). Every call of `loopy.retrograde` is timed, wall and process
CPU (all threads), and the positions it decided are counted: the reached records of its
tier range after the call (canonical positions with --symmetry). Prints the loopy tiers'
slots and positions, their wall and CPU seconds, positions/s, positions per CPU second
(per core), and the share of the whole solve's wall time they took. Default cases: the
loopy tiers issue 24 asks about (Quixo 4x4, Teeko 4x4, Morris Six's movement tiers).
`--lean` runs every loopy tier in the lean worker (solver/engine/lean.py), the one a
task takes when its tier passes its memory at full speed.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

DEFAULT_CASES = ["quixo:size=4", "teeko:size=4", "morris:men=6"]


def run_case(case: str, symmetry: bool, lean: bool = False) -> dict:
    from games import get_game
    from solver.engine import loopy
    from solver.kernels.symmetry import apply
    from solver.methods import tiers
    from solver.runtime.parallel import threads

    name, _, variant = case.partition(":")
    game = apply(get_game(name, variant or None), symmetry)
    tiers.warm_up(game)
    tally = {"calls": 0, "slots": 0, "positions": 0, "wall": 0.0, "cpu": 0.0}
    timed = loopy.retrograde

    def counted(game, win, seg, lo, hi, obase, bad, _lean=False):
        w0, c0 = time.perf_counter(), time.process_time()
        timed(game, win, seg, lo, hi, obase, bad, lean)
        tally["wall"] += time.perf_counter() - w0
        tally["cpu"] += time.process_time() - c0
        tally["calls"] += 1
        tally["slots"] += hi - lo
        tally["positions"] += int(np.count_nonzero(win[lo + obase:hi + obase]))

    loopy.retrograde = counted
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            tiers.solve_into(game, Path(tmp) / "db", fresh=True)
            whole = time.perf_counter() - t0
    finally:
        loopy.retrograde = timed
    pos, wall, cpu = tally["positions"], tally["wall"], tally["cpu"]
    return {"case": case + (" --symmetry" if symmetry else "") + (" --lean" if lean else ""),
            "threads": threads(),
            "tiers": tally["calls"], "slots": tally["slots"], "positions": pos,
            "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "positions_per_s": round(pos / wall) if wall else None,
            "positions_per_cpu_s": round(pos / cpu) if cpu else None,
            "share_of_solve": round(wall / whole, 2) if whole else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=DEFAULT_CASES)
    ap.add_argument("--symmetry", action="store_true", help="solve canonical positions only")
    ap.add_argument("--lean", action="store_true", help="loopy tiers in the lean worker")
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
        r = run_case(case, args.symmetry, args.lean)
        print("  ".join(f"{v:,}" if isinstance(v, int) else str(v) for v in r.values()))


if __name__ == "__main__":
    main()
