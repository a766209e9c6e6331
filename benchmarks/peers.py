"""gsolve side by side with the C solvers: `python benchmarks/peers.py --peers DIR [PAIR ...]`.

DIR is where `benchmarks/build_peers.sh DIR` built GamesmanOne and GamesmanClassic. Each
pair runs gsolve and its peer alternately, `--runs` times each, as whole processes in fresh
folders (so no run finds another's database), and prints the median wall time, CPU time
and peak memory of each, and the ratio gsolve / peer. Thread counts are set through
GSOLVE_THREADS for gsolve and OMP_NUM_THREADS for GamesmanOne; GamesmanClassic is
single-threaded. Run it on a quiet machine: every other heavy process skews the ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Pair:
    name: str
    gsolve: list[str]  # arguments after `gsolve`
    peer: str  # "one" or "classic"
    peer_args: list[str]  # arguments; the first is the binary, relative to its bin/
    compare: str  # "wall" or "cpu": what the target ratio is about
    target: float  # the ratio gsolve / peer to reach (with absolute: gsolve's own seconds)
    absolute: bool = False


PAIRS = [
    Pair("tictactoe", ["tictactoe", "--force"], "classic",
         ["mttt", "--nodb", "--notiers", "--solve"], "wall", 1.0, absolute=True),
    Pair("connect4-5x4-bottomup",
         ["connect4", "-V", "width=5,height=4", "--method", "bottomup"], "classic",
         ["mwin4_5x4", "--nodb", "--notiers", "--lowmem", "--nobpdb", "--solve"], "cpu", 0.25),
    Pair("connect4-5x4", ["connect4", "-V", "width=5,height=4"], "classic",
         ["mwin4_5x4", "--nodb", "--notiers", "--solve"], "wall", 0.5),
    Pair("connect4-5x5", ["connect4", "-V", "width=5,height=5", "--method", "tiers"],
         "classic", ["mwin4_5x5", "--nodb", "--notiers", "--solve"], "wall", 0.5),
    # GamesmanOne solves canonical positions of Quixo and Teeko: gsolve too (--symmetry)
    Pair("quixo-4x4", ["quixo", "-V", "size=4", "--method", "tiers", "--symmetry"], "one",
         ["gamesman", "solve", "quixo", "1"], "wall", 0.4),  # issue 24
    Pair("teeko", ["teeko", "-V", "size=5", "--method", "tiers", "--symmetry"], "one",
         ["gamesman", "solve", "teeko"], "wall", 0.5),
]


@dataclass
class Run:
    wall: float
    cpu: float
    rss: int  # bytes
    ok: bool
    tail: str


def measure(cmd: list[str], env: dict, cwd: str) -> Run:
    """Wall, CPU and peak RSS of one whole process (os.wait4 gives the child's own usage)."""
    t0 = time.perf_counter()
    with open(os.path.join(cwd, "out.txt"), "wb") as out:
        proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    tail = Path(cwd, "out.txt").read_text(errors="replace")[-300:]
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024,
               os.waitstatus_to_exitcode(status) == 0, tail)


def gsolve_cmd(pair: Pair, db: str) -> list[str]:
    exe = shutil.which("gsolve")
    base = [exe] if exe else [sys.executable, "-m", "solver"]
    return [*base, *pair.gsolve, "--db", db, "--quiet"]


def peer_cmd(pair: Pair, peers: Path) -> list[str] | None:
    home = peers / ("GamesmanOne" if pair.peer == "one" else "GamesmanClassic") / "bin"
    exe = home / pair.peer_args[0]
    return [str(exe), *pair.peer_args[1:]] if exe.exists() else None


def gsolve_has(game: str) -> bool:
    from games import available

    return game in available()


def machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, nproc {os.cpu_count()}, Python {platform.python_version()}"


def run_pair(pair: Pair, peers: Path, threads: int, runs: int) -> dict | None:
    peer = peer_cmd(pair, peers)
    if peer is None or not gsolve_has(pair.gsolve[0]):
        missing = "peer binary" if peer is None else f"gsolve game {pair.gsolve[0]}"
        print(f"skip {pair.name}: no {missing}", file=sys.stderr)
        return None
    env = dict(os.environ, GSOLVE_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    ours: list[Run] = []
    theirs: list[Run] = []
    # one untimed run first: it compiles the kernels into the cache (as a user's first
    # solve does), so every timed run loads them like any later solve
    with tempfile.TemporaryDirectory(prefix="gsolve-peers-") as tmp:
        warm = measure(gsolve_cmd(pair, os.path.join(tmp, "db")), env, tmp)
    if not warm.ok:
        raise SystemExit(f"{pair.name}: gsolve failed: {warm.tail}")
    for _ in range(runs):
        for side in ("gsolve", "peer"):
            with tempfile.TemporaryDirectory(prefix="gsolve-peers-") as tmp:
                cmd = gsolve_cmd(pair, os.path.join(tmp, "db")) if side == "gsolve" else peer
                run = measure(cmd, env, tmp)
            if not run.ok:
                raise SystemExit(f"{pair.name}: {side} failed: {' '.join(cmd)}\n{run.tail}")
            (ours if side == "gsolve" else theirs).append(run)

    def med(rs, key):
        return statistics.median(getattr(r, key) for r in rs)

    row = {"pair": pair.name, "threads": threads, "peer": pair.peer,
           "gsolve_wall": med(ours, "wall"), "peer_wall": med(theirs, "wall"),
           "gsolve_cpu": med(ours, "cpu"), "peer_cpu": med(theirs, "cpu"),
           "gsolve_rss": med(ours, "rss"), "peer_rss": med(theirs, "rss"),
           "compare": pair.compare, "target": pair.target, "absolute": pair.absolute}
    row["ratio"] = row[f"gsolve_{pair.compare}"] / max(row[f"peer_{pair.compare}"], 1e-9)
    got = row[f"gsolve_{pair.compare}"] if pair.absolute else row["ratio"]
    row["met"] = got <= pair.target
    return row


def table(rows: list[dict]) -> str:
    head = ("| pair | threads | gsolve wall | gsolve CPU | gsolve RSS | peer | peer wall "
            "| peer CPU | peer RSS | ratio | target | met |")
    lines = [head, "|" + "---|" * 12]
    mib = 1 << 20
    for r in rows:
        peer = "GamesmanOne" if r["peer"] == "one" else "GamesmanClassic"
        target = (f"gsolve {r['compare']} <= {r['target']:.2f} s" if r["absolute"]
                  else f"<= {r['target']:.2f}")
        lines.append(
            f"| {r['pair']} | {r['threads']} | {r['gsolve_wall']:.2f} s | {r['gsolve_cpu']:.2f} s"
            f" | {r['gsolve_rss'] / mib:,.0f} MiB | {peer} | {r['peer_wall']:.2f} s"
            f" | {r['peer_cpu']:.2f} s | {r['peer_rss'] / mib:,.0f} MiB"
            f" | {r['ratio']:.2f} ({r['compare']}) | {target} | {'yes' if r['met'] else 'no'} |")
    return "\n".join(lines)


def calibration() -> float:
    """Seconds of a fixed pure-Python loop: this box's speed drifts by tens of percent
    between (and within) sessions, which the tables' absolute times carry; ratios of one
    run do not."""
    t0 = time.perf_counter()
    s = 0
    for i in range(10_000_000):
        s += i
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs", nargs="*", help=f"pairs to run (default all): "
                    f"{', '.join(p.name for p in PAIRS)}")
    ap.add_argument("--peers", required=True, type=Path, help="folder given to build_peers.sh")
    ap.add_argument("--runs", type=int, default=3, help="runs of each side (median shown)")
    ap.add_argument("--threads", default="1,2", help="thread counts, e.g. 1,2")
    args = ap.parse_args()
    known = {p.name: p for p in PAIRS}
    unknown = [n for n in args.pairs if n not in known]
    if unknown:
        raise SystemExit(f"unknown pair(s) {', '.join(unknown)} (pairs: {', '.join(known)})")
    chosen = [known[n] for n in args.pairs] if args.pairs else PAIRS
    print(f"machine: {machine()}; {time.strftime('%Y-%m-%d %H:%M')}; "
          f"loop calibration {calibration():.2f} s")
    rows = []
    for pair in chosen:
        for t in [int(x) for x in args.threads.split(",")]:
            if pair.peer == "classic" and t > 1 and pair.compare == "cpu":
                continue  # a CPU-time comparison needs one thread count
            row = run_pair(pair, args.peers, t, args.runs)
            if row:
                rows.append(row)
                print(table([row]).splitlines()[-1], flush=True)
    print(f"\nloop calibration at the end: {calibration():.2f} s")
    print(table(rows))


if __name__ == "__main__":
    main()
