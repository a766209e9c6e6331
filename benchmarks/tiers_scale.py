"""Tier engine at scale: `python benchmarks/tiers_scale.py [CASE ...]`.

Each case runs `gsolve GAME -V VARIANT --method tiers [OPTIONS]` in a fresh process into a
temporary store and reports wall time, the solve time and peak memory the summary prints
(getrusage), and the start value; cases of the same variant are compared byte for byte.
A case is `GAME:VARIANT[:OPTION ...]`, options separated by spaces, e.g.
`connect4:width=5,height=5:--workers 2`. Default: the issue's numbers that fit this box
(connect4 6x4 within 1 GiB; connect4 5x5 threaded and on a 2-worker LocalCluster).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_CASES = [
    "connect4:width=6,height=4:--memory 1",
    "connect4:width=5,height=5",
    "connect4:width=5,height=5:--workers 2",
]


def run_case(case: str, root: Path) -> dict:
    game, variant, *opts = case.split(":")
    db = root / re.sub(r"\W+", "_", case)
    cmd = [sys.executable, "-m", "solver", game, "-V", variant, "--method", "tiers",
           "--db", str(db), "-q", *(" ".join(opts).split())]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{case} failed: {proc.stderr.strip()}")
    out = proc.stdout

    def field(name):
        m = re.search(rf"{name}\s+(.*)", out)
        return m.group(1).strip() if m else ""

    return {"case": case, "db": db, "game": game, "variant": variant, "wall_s": round(wall, 1),
            "solve": field("time").split(",")[0], "peak": field("peak memory").split(" (")[0],
            "start": field("start").split("  ")[-1], "positions": field("reachable positions")}


def same_bytes(a: dict, b: dict) -> bool:
    import numpy as np

    from games import get_game
    from solver.storage.database import Database

    g = get_game(a["game"], a["variant"])
    x, y = Database.open(g, a["db"]), Database.open(g, b["db"])
    return (np.array_equal(x.value_array[:], y.value_array[:])
            and np.array_equal(x.remoteness_array[:], y.remoteness_array[:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=DEFAULT_CASES)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = [run_case(c, Path(tmp)) for c in args.cases]
        print("| case | wall s | solve | peak memory | start | positions | same bytes as |")
        print("|---|---|---|---|---|---|---|")
        for i, r in enumerate(rows):
            twins = [q["case"] for q in rows[:i]
                     if (q["game"], q["variant"]) == (r["game"], r["variant"])
                     and same_bytes(q, r)]
            print(f"| {r['case']} | {r['wall_s']} | {r['solve']} | {r['peak']} | {r['start']} "
                  f"| {r['positions']} | {', '.join(twins) or '-'} |")


if __name__ == "__main__":
    main()
