"""Faults against resumable solves: `python benchmarks/faults.py [SCENARIO ...] [--points N]`.

Each scenario is a tiered solve cut into small chunks and tasks (so that it has hundreds
of fault points). It is solved once cleanly to count its chunk writes and renames, and
against a reference solved by another method (dfs or retrograde, which share no code with
the tier engine's writer). Then, at N points spread over its writes and renames, a solve
is broken there (tests/hooked.py --fault, through solver/storage/chunks.py's fault hook:
ENOSPC half-way through a chunk write, EIO on a rename, SIGKILL in the middle of either;
or SIGTERM and SIGKILL at random times),
twice over where `--twice`, and resumed with no fault. Every resume must be byte-identical
to the reference or refuse with one line (exit 2, no traceback): never "complete" and
wrong. Prints one line per fault and a table of counts.

The tests (tests/test_faults.py) run a few points of each scenario; this runs them all.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

REF = "{reference}"  # in a scenario's arguments: the reference database's folder
# (gsolve arguments, reference method, chunk slots, task slots)
SCENARIOS = {
    "connect4-5x4": (["connect4", "-V", "width=5,height=4"], "dfs", 1 << 16, 1 << 16),
    "quixo-3x3": (["quixo", "-V", "size=3"], "retrograde", 1 << 12, 1 << 12),
    "connect4-5x4-workers2": (["connect4", "-V", "width=5,height=4", "--workers", "2"],
                              "dfs", 1 << 17, 1 << 17),
    # compact, numbered by the game (games/baghchal.py canonical_index)
    "baghchal-4x4-symmetry": (["baghchal", "-V", "size=4", "--symmetry"], "retrograde",
                              1 << 16, 1 << 16),
    # every loopy tier in the lean mode (solver/engine/levels.py), and every task's store
    # written a chunk at a time, as a task past its memory writes
    "morris-6-symmetry-lean": (["morris", "-V", "men=6", "--symmetry"], "retrograde",
                               1 << 14, 1 << 16, {"FAULTS_LEAN": "1"}),
    "quixo-3x3-lean": (["quixo", "-V", "size=3"], "retrograde", 1 << 10, 1 << 12,
                       {"FAULTS_LEAN": "1"}),
    # every task's reach and solve paged (solver/engine/paged.py) in parts
    # and pages of these sizes: their scratch writes are fault points too
    "quixo-3x3-paged": (["quixo", "-V", "size=3"], "retrograde", 1 << 10, 1 << 12,
                        {"FAULTS_PAGED": "1000,3000"}),
    "morris-6-symmetry-paged": (["morris", "-V", "men=6", "--symmetry"], "retrograde",
                                1 << 14, 1 << 16, {"FAULTS_PAGED": "65536,200000"}),
    # every task's records taken from the reference database (solver/engine/borrowing.py)
    "morris-6-symmetry-borrow": (["morris", "-V", "men=6", "--symmetry", "--borrow", REF],
                                 "retrograde", 1 << 14, 1 << 16),
}
KINDS = ("write:{n}:ENOSPC", "rename:{n}:EIO", "kill-write:{n}", "kill-rename:{n}")


@dataclass
class Outcome:
    fault: str
    broke: int  # exit status of the broken solve (-9: killed)
    resumed: int  # exit status of the resume
    verdict: str  # identical, refused, or what went wrong


def gsolve(args: list[str], db: str, chunk: int, task: int, fault: str = "",
           counts: str = "", timeout: float = 300, signal_after: tuple | None = None,
           env_extra: dict | None = None):
    """Run a solve in a fresh process with small chunks and tasks; (exit status, stderr)."""
    env = dict(os.environ, **(env_extra or {}))
    hooks = [*(["--fault", fault] if fault else []), *(["--counts", counts] if counts else [])]
    cmd = [sys.executable, __file__, "solve", str(chunk), str(task), *hooks, "--", *args,
           "--method", "tiers", "--quiet", "--db", db]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if signal_after is not None:
        sig, delay = signal_after
        try:
            proc.wait(delay)
        except subprocess.TimeoutExpired:
            proc.send_signal(sig)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, err


def arrays(game_args: list[str], db: str):
    """(value, remoteness) of the solved database, whole."""
    import numpy as np

    from games import get_game
    from solver.storage.database import Database

    name = game_args[0]
    variant = game_args[game_args.index("-V") + 1] if "-V" in game_args else ""
    d = Database.open(get_game(name, variant), db)
    vs, rs = zip(*[(v, r.astype(np.uint32)) for _, v, r in d.chunks()], strict=True)
    return np.concatenate(vs), np.concatenate(rs)


def reference(game_args: list[str], method: str, db: str):
    plain = [a for a in game_args if a not in ("--workers", "2", "--borrow", REF)]
    subprocess.run([sys.executable, "-m", "solver", *plain, "--method", method,
                    "--quiet", "--db", db], check=True, capture_output=True)
    return arrays(game_args, db)


def reference_folder(game_args: list[str], db: str) -> str:
    """The folder of the reference database under `db` (what REF stands for)."""
    from games import get_game
    from solver.storage.database import group_path

    variant = game_args[game_args.index("-V") + 1] if "-V" in game_args else ""
    return str(group_path(db, get_game(game_args[0], variant)))


def judge(code: int, err: str, game_args, db: str, ref) -> str:
    import numpy as np

    if "Traceback" in err:
        return "traceback: " + err.strip().splitlines()[-1]
    if code == 2:
        lines = [x for x in err.strip().splitlines() if x]
        return "refused" if len(lines) == 1 else f"refused in {len(lines)} lines"
    if code != 0:
        return f"exit {code}: {err.strip()[-200:]}"
    v, r = arrays(game_args, db)
    if np.array_equal(v, ref[0]) and np.array_equal(r, ref[1]):
        return "identical"
    return f"WRONG: {int(np.count_nonzero((v != ref[0]) | (r != ref[1])))} positions differ"


def sweep(name: str, points: int, twice: bool = False, timed: int = 0, seed: int = 0,
          log=print) -> list[Outcome]:
    """Break the scenario at `points` points of each kind (and `timed` random SIGKILLs and
    SIGTERMs), resume each, and judge every resume."""
    game_args, method, chunk, task, *extra = SCENARIOS[name]
    env_extra = extra[0] if extra else {}
    work = tempfile.mkdtemp(prefix=f"gsolve-faults-{name}-")
    try:
        ref = reference(game_args, method, os.path.join(work, "ref"))
        game_args = [reference_folder(game_args, os.path.join(work, "ref")) if a == REF
                     else a for a in game_args]
        counts = os.path.join(work, "counts.json")
        t0 = time.perf_counter()
        code, err = gsolve(game_args, os.path.join(work, "clean"), chunk, task, counts=counts,
                           env_extra=env_extra)
        clean_seconds = time.perf_counter() - t0
        verdict = judge(code, err, game_args, os.path.join(work, "clean"), ref)
        if verdict != "identical":
            raise SystemExit(f"{name}: the clean tiered solve is {verdict}")
        with open(counts) as f:
            total = json.load(f)
        rng = random.Random(seed)
        faults: list[tuple[str, tuple | None]] = []
        for kind in KINDS:
            steps = total["rename" if "rename" in kind else "write"]
            for n in sorted({1 + (steps - 1) * j // max(1, points - 1)
                             for j in range(points)}):
                faults.append((kind.format(n=n), None))
        for _ in range(timed):
            sig = rng.choice((signal.SIGKILL, signal.SIGTERM))
            faults.append(("", (sig, rng.uniform(0.3, clean_seconds))))
        out = []
        for fault, timer in faults:
            db = os.path.join(work, "db")
            shutil.rmtree(db, ignore_errors=True)
            broke, err = gsolve(game_args, db, chunk, task, fault=fault, signal_after=timer,
                                env_extra=env_extra)
            label = fault or f"{signal.Signals(timer[0]).name} after {timer[1]:.2f} s"
            if twice and fault:  # a second fault, earlier in the resumed run
                again = fault.replace(f":{fault.split(':')[1]}",
                                      f":{max(1, int(fault.split(':')[1]) // 2)}", 1)
                gsolve(game_args, db, chunk, task, fault=again, env_extra=env_extra)
                label += f" then {again}"
            code, err = gsolve(game_args, db, chunk, task, env_extra=env_extra)
            outcome = Outcome(label, broke, code, judge(code, err, game_args, db, ref))
            log(f"{name:24} {outcome.fault:40} broke {outcome.broke:4}  resume "
                f"{outcome.resumed:3}  {outcome.verdict}")
            out.append(outcome)
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _solve(argv: list[str]) -> None:
    """`faults.py solve CHUNK TASK [--fault SPEC] [--counts FILE] -- GSOLVE ARGS`: gsolve
    with chunks and tasks of that many slots, through tests/hooked.py (which breaks the
    write SPEC names and writes the counts of chunk writes and renames to FILE)."""
    chunk, task = int(argv[0]), int(argv[1])
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "tests"))
    import hooked

    from solver.command import console

    console.end_at_interrupt()  # before the imports below, as gsolve's console script
    if os.environ.get("FAULTS_LEAN") or os.environ.get("FAULTS_PAGED"):
        import functools

        from solver.engine import manager
        from solver.engine import task as engine_task
        from solver.engine.memory import LEAN, PAGED, Strategy

        engine_task.WRITE = chunk  # the task's writes a chunk at a time
        forced = Strategy(solve=LEAN)  # every task's solve in the lean mode
        if os.environ.get("FAULTS_PAGED"):  # ... or paged, and every reach too
            part, page, *level = map(int, os.environ["FAULTS_PAGED"].split(","))
            forced = Strategy(PAGED, PAGED, parts=(part, page, *(level or [2 * part])))
        manager.solve_into = functools.partial(manager.solve_into, strategy=forced)
    hooked.run(["--chunk", str(chunk), "--task", str(task), *argv[2:]])


def main() -> None:
    if sys.argv[1:2] == ["solve"]:
        return _solve(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenarios", nargs="*", metavar="SCENARIO",
                    help=f"some of {', '.join(SCENARIOS)} (default: all)")
    ap.add_argument("--points", type=int, default=12, help="fault points of each kind")
    ap.add_argument("--timed", type=int, default=8, help="SIGKILL/SIGTERM at random times")
    ap.add_argument("--twice", action="store_true", help="a second fault before the resume")
    args = ap.parse_args()
    unknown = [s for s in args.scenarios if s not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario {unknown[0]!r} (scenarios: {', '.join(SCENARIOS)})")
    rows = []
    for name in args.scenarios or SCENARIOS:
        got = sweep(name, args.points, args.twice, args.timed)
        verdicts: dict[str, int] = {}
        for o in got:
            key = o.verdict if o.verdict in ("identical", "refused") else "BAD"
            verdicts[key] = verdicts.get(key, 0) + 1
        rows.append((name, len(got), verdicts))
    print(f"\n{'scenario':24} {'faults':>6} {'identical':>9} {'refused':>7} {'bad':>4}")
    for name, n, v in rows:
        print(f"{name:24} {n:6} {v.get('identical', 0):9} {v.get('refused', 0):7} "
              f"{v.get('BAD', 0):4}")
    if any(v.get("BAD") for _, _, v in rows):
        sys.exit(1)


if __name__ == "__main__":
    main()
