"""`gsolve verify` speed: `python benchmarks/verify_speed.py [CASE ...] [--db DIR]`.

Each case is `GAME:VARIANT:MEMORY` (GiB, the check's `--memory`; `whole` for no limit).
The variant is solved once with tiers into DIR (default a temporary folder; an existing
database there is used as it is), then each case's check runs in a fresh process and
prints its mode, tasks, reachable positions, wall seconds (the process's start and
compile included), positions a second and its peak resident set (getrusage) in bytes a
reachable position. Default: Connect-4 6x4
whole, and a task at a time within 0.25 GiB and 0.05 GiB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CASES = [
    "connect4:width=6,height=4:whole",
    "connect4:width=6,height=4:0.25",
    "connect4:width=6,height=4:0.05",
]


def solve(game: str, variant: str, db: Path) -> None:
    cmd = [sys.executable, "-m", "solver", game, "-V", variant, "--method", "tiers",
           "--db", str(db), "-q"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"solving {game} {variant} failed: {proc.stderr.strip()}")


# runs one command and prints its peak resident set: a wrapper a check, so that each peak is
# that check's own (RUSAGE_CHILDREN is the largest of all the children so far)
PEAK = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:]); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
        "sys.exit(p.returncode)")


def check(game: str, variant: str, memory: str, db: Path) -> dict:
    cmd = [sys.executable, "-c", PEAK, sys.executable, "-m", "solver", "verify", game, "-V",
           variant, "--db", str(db), "--json"]
    if memory != "whole":
        cmd += ["--memory", memory]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"verify {game} {variant} failed: {proc.stdout}{proc.stderr}")
    report = json.loads(proc.stdout)
    if not report["sound"]:
        raise SystemExit(f"verify {game} {variant}: not sound")
    peak = int(proc.stderr.strip().splitlines()[-1]) * 1024
    n = report["reachable"]
    return {"case": f"{game}:{variant}:{memory}", "mode": report["mode"],
            "tasks": report.get("tasks", 0), "reachable": n, "seconds": wall,
            "per_second": n / wall, "bytes_per_position": peak / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=DEFAULT_CASES, help="GAME:VARIANT:MEMORY")
    ap.add_argument("--db", type=Path, help="where the databases are (or are solved)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp)
        solved = set()
        print(f"{'case':<36} {'mode':<6} {'tasks':>6} {'positions':>14} {'s':>8} "
              f"{'positions/s':>14} {'B/position':>10}")
        for case in args.cases:
            game, variant, memory = case.split(":")
            if (game, variant) not in solved:
                from games import get_game
                from solver.storage.database import group_path

                if not (group_path(db, get_game(game, variant)) / "zarr.json").exists():
                    solve(game, variant, db)
                solved.add((game, variant))
            r = check(game, variant, memory, db)
            print(f"{r['case']:<36} {r['mode']:<6} {r['tasks']:>6} {r['reachable']:>14,} "
                  f"{r['seconds']:>8.1f} {r['per_second']:>14,.0f} "
                  f"{r['bytes_per_position']:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
