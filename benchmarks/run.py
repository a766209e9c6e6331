"""Benchmark runner: `python benchmarks/run.py [GAME[:VARIANT[:METHOD]] ...] [--cold]`.

Each case runs `gsolve bench` in a fresh process (so timings include no warm state) and
prints positions, compile/load seconds, solve seconds, positions per second, bytes per hash
slot (peak solver memory / hash size) and bytes per position (the peak / reachable
positions). With --cold every case first runs with an empty
kernel cache, to show the one-time compile cost next to the cached load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from solver.command.bench import format_rows, machine

DEFAULT_CASES = [
    "tictactoe::bottomup",
]


def run_case(case: str, cache: str | None) -> dict:
    game, _, rest = case.partition(":")
    variant, _, method = rest.partition(":")
    cmd = [sys.executable, "-m", "solver", "bench", game, "--json"]
    if variant:
        cmd += ["--variant", variant]
    if method:
        cmd += ["--method", method]
    env = dict(os.environ)
    if cache:
        env["GSOLVE_CACHE"] = cache
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark {case} failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=DEFAULT_CASES,
                    help="GAME[:VARIANT[:METHOD]], e.g. connect4:width=5,height=4:tiers")
    ap.add_argument("--cold", action="store_true", help="also time a compile from scratch")
    args = ap.parse_args()
    print(f"machine: {machine()}")
    rows = []
    for case in args.cases:
        if args.cold:
            with tempfile.TemporaryDirectory() as tmp:
                row = run_case(case, tmp)
                row["method"] += " (cold)"
                rows.append(row)
        rows.append(run_case(case, None))
    print(format_rows(rows))


if __name__ == "__main__":
    main()
