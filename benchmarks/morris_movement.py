"""Nine Men's Morris's movement phase solved pair by pair, against an independent solve.

Usage: python benchmarks/morris_movement.py [--most N | --box WxB] [--memory GIB]
       [--store DIR [--report]]

Every board of each piece-count pair with 3..N pieces a side (or 3..W white and 3..B
black: a tier holds both sides to move, so the box 6x3 gives the ordered pairs 6-3 and
3-6), all men placed, either side to move, is solved on canonical positions (the 16
symmetries; games/morris.py numbers them) by the tier engine (solver/engine/worker.py,
the lean worker where a tier passes `--memory`). Not only the boards the opening can
reach: every canonical board of those tiers is seeded reached, as Gasser's and
eigenraum's databases hold them. A capture leads to a pair of the list or to one where
the side that lost a piece has two (it has lost): the lost boards of those tiers are
seeded too.

Prints wins, losses and draws per ordered pair "stones of the side to move - stones of
the opponent" beside eigenraum/solving-nine-mens-morris's RESULTS.md (an exhaustively
verified retrograde solve in Rust, canonical states up to the 16 symmetries, unreachable
ones kept), and exits 1 if any pair differs. The largest remoteness of each pair is
printed too (eigenraum's depths count plies to a capture, ours to the end: not compared).

--store DIR keeps the store there and records each finished task in it: the box 9x9 (all
49 pairs, 18.4 G indices) takes longer than a session, and the same command started again
goes on from its first unfinished task. With --report it solves nothing and prints the
pairs whose tiers the store holds solved so far (while a run goes on beside it). The
store of the box 9x9 also serves `gsolve solve morris -V men=9 --symmetry --borrow
DIR/db.partial`: the movement phase borrowed, the placement phase solved.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from solver.kernels.tiers import PRIMITIVE  # a reach byte: PRIMITIVE + the value
from solver.runtime.parallel import run_blocks

# eigenraum/solving-nine-mens-morris RESULTS.md, "Per-subspace table" (wins, losses,
# draws of the side to move), all 49 ordered pairs, read 2026-11-25
EIGENRAUM = {
    "3-3": (140_621, 28_736, 269), "3-4": (102_281, 0, 658_117),
    "4-3": (75_397, 3_095, 681_906), "3-5": (6_301, 9_677, 2_564_412),
    "5-3": (580_660, 0, 1_999_730), "4-4": (159, 29, 3_225_409),
    "3-6": (0, 192_000, 6_683_320), "6-3": (2_752_371, 0, 4_122_949),
    "4-5": (51, 1_510, 10_308_935), "5-4": (9_889, 8, 10_300_599),
    "3-7": (0, 6_965_784, 7_759_904), "7-3": (13_411_581, 0, 1_314_107),
    "4-6": (22, 1_649_972, 24_115_798), "6-4": (5_985_293, 4, 19_780_495),
    "5-5": (28_819, 4_289, 30_881_316), "3-8": (0, 23_397_858, 2_365_978),
    "8-3": (25_697_503, 0, 66_333), "4-7": (18, 37_626_914, 13_889_596),
    "7-4": (47_531_650, 3, 3_984_875), "5-6": (18_321, 4_806_956, 67_290_795),
    "6-5": (17_229_622, 2_052, 54_884_398), "3-9": (0, 37_197_445, 11_783),
    "9-3": (37_209_196, 0, 32), "4-8": (15, 77_883_072, 5_822_711),
    "8-4": (83_063_749, 3, 642_046), "5-7": (12_156, 80_867_010, 53_031_730),
    "7-5": (117_737_860, 1_393, 16_171_643), "6-6": (23_250_808, 5_273_162, 127_705_390),
    "4-9": (23, 111_463_785, 133_804), "9-4": (111_596_447, 4, 1_161),
    "5-8": (9_430, 175_925_821, 24_917_737), "8-5": (197_131_113, 1_000, 3_720_875),
    "6-7": (19_007_081, 99_105_562, 149_680_645),
    "7-6": (197_340_770, 3_342_246, 67_110_272), "5-9": (2_872, 241_700_295, 3_776_081),
    "9-5": (245_214_294, 191, 264_763), "6-8": (9_014_966, 259_100_308, 100_090_242),
    "8-6": (344_867_329, 1_152_604, 22_185_583),
    "7-7": (197_782_562, 63_016_948, 159_993_586),
    "6-9": (2_904_209, 382_611_312, 23_591_219), "9-6": (406_106_715, 276_492, 2_723_533),
    "7-8": (111_934_094, 221_367_411, 192_677_895),
    "8-7": (420_563_898, 22_670_392, 82_745_110),
    "7-9": (41_317_865, 401_584_464, 83_077_071),
    "9-7": (502_466_519, 5_852_417, 17_660_464),
    "8-8": (318_690_930, 107_554_848, 165_480_912),
    "8-9": (149_356_285, 247_948_155, 128_674_960),
    "9-8": (434_874_914, 34_681_537, 56_422_949),
    "9-9": (240_426_123, 91_780_175, 76_900_442),
}


# not cached: it takes the game's jitted functions as arguments, which numba cannot cache
# (solver/kernels/codegen.py): a cache file written on another CPU failed to save beside them
@njit(nogil=True)
def _seed(canonical, canonical_slot, primitive, ctx, lo, hi, base, out, only_primitive):
    """The reach bytes of indices [lo, hi) (out[i - base]) as a reach would leave them: 0
    at a gap (an index that numbers no canonical board), PRIMITIVE + value at a primitive,
    2 (expanded) elsewhere, or 0 there too when `only_primitive` (a tier where a side has
    two men: only its lost boards are reached, the rest is no game). Returns the marks."""
    scratch = np.empty(32, np.int8)
    n = 0
    for i in range(lo, hi):
        h = canonical_slot(ctx, i)
        mark = 0
        if canonical(ctx, h, scratch) == h:
            v = primitive(ctx, h, scratch)
            mark = PRIMITIVE + v if v else (0 if only_primitive else 2)
        out[i - base] = mark
        n += mark != 0
    return n


def solve_pairs(most: int, memory: float, black: int | None = None,
                store_dir: Path | None = None, say=None, men: int = 9,
                report: bool = False) -> tuple[dict, dict, float]:
    """{pair: (wins, losses, draws)}, {pair: largest remoteness}, seconds, for the tiers
    of 3..most white and 3..black (default: most) black men. With `store_dir` the store
    stays there and each finished task is recorded in it, so a run killed (a session's
    end) and started again with the same box goes on from its first unfinished task (a
    task's solve rewrites its own range from its child tiers, so redoing one is exact);
    `say(text)` hears of progress. No reach phase: every board is seeded reached, with
    its primitive value, and a task's solve reads its whole child tiers (35% of the box
    6x4's time was a reach that only confirmed the seeds). `report`: solve nothing, count
    the pairs whose tiers the store at `store_dir` holds solved (another run may be
    solving the rest)."""
    black = most if black is None else black
    from games.morris import Morris
    from solver.engine import plan, worker
    from solver.engine.task import REACHED
    from solver.kernels.numbering import Numbering
    from solver.kernels.records import DRAW, LOSE, WIN
    from solver.storage.chunks import sync_written
    from solver.storage.database import create_array, remoteness_dtype
    from solver.storage.writing import PartialStore

    game = Numbering(Morris(men=men), True)  # men=6: Six's movement phase (tests)
    v = game.compact()
    mod = importlib.import_module(game.game.module)
    label = re.compile(r"move W(\d) B(\d)$")
    pairs = {i: (int(m[1]), int(m[2])) for i, t in enumerate(v.tiers())
             if (m := label.match(t.label)) and int(m[1]) <= most and int(m[2]) <= black}
    chosen = [i for i, (w, b) in pairs.items() if min(w, b) >= 3]  # the rest: captures'
    # children, where the side down to two pieces has lost (reached from the chosen)
    limit = int(memory * (1 << 30)) - plan.BASE
    box = f"{most}x{black}"
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(store_dir) if store_dir else Path(tmp)
        store = PartialStore(root / "db", v, "tiers", remoteness_dtype(v.max_remoteness),
                             store_dir is None)
        done = store.attrs.get("box_done") if store.resumed else None
        if report and done is None:
            raise SystemExit(f"{root}: no box there to report on")
        if done is not None and store.attrs.get("box") != box:
            raise SystemExit(f"{root} holds the box {store.attrs.get('box')}, not {box}: "
                             "give another --store")
        done = done or {"seeded": [], "solve": []}
        p = plan.plan(v, limit)
        # tasks are numbered by the plan (--memory, the code): a record of another one
        # would skip the wrong tasks
        cut = hashlib.sha256(repr([t.pieces for t in p.tasks]).encode()).hexdigest()[:16]
        if done["solve"] and store.attrs.get("box_plan") != cut:
            raise SystemExit(f"{root} was made with another plan of tasks (another --memory "
                             "or code): give the same --memory, or another --store")
        if REACHED not in store.group:
            create_array(store.group, REACHED, (v.hash_size,), np.uint8)
        reached = store.group[REACHED]
        for i in sorted(pairs):  # the reach bytes of each tier (9x9: 18.4 G indices)
            if report or i in done["seeded"]:
                continue
            t = p.tiers[i]
            t1, c1 = time.perf_counter(), time.process_time()
            marks = np.empty(t.size, np.uint8)
            run_blocks(_seed, (mod.canonical, mod.canonical_slot, mod.primitive, game.ctx),
                       t.start, t.stop, t.start, marks, i not in chosen)
            reached[t.start:t.stop] = marks
            if store_dir:
                sync_written()
                done["seeded"].append(i)
                done.setdefault("seed_times", {})[str(i)] = [
                    round(time.perf_counter() - t1, 1), round(time.process_time() - c1, 1)]
                store.set_attrs(box=box, box_done=done)
        if say and not report:
            say(f"seeded {len(pairs)} tiers")
        # every board of the box is reached, so no reach phase: a task's solve reads its
        # whole child tiers (no `needs-` record), all of them seeded
        tasks = {j for j, task in enumerate(p.tasks)
                 if any(x in pairs for x, *_ in task.pieces)}
        todo = [j for j in p.run_order if j in tasks and j not in done["solve"]]
        solved = {pairs[i] for i in pairs if not any(
            x == i for j in todo for x, *_ in p.tasks[j].pieces)}  # tiers whole now
        if report:
            if say:
                say(f"report: {len(tasks) - len(todo)} of {len(tasks)} tasks solved")
            todo = []
        elif say and len(todo) < len(tasks):
            say(f"solve: {len(tasks) - len(todo)} of {len(tasks)} tasks done before")
        times = done.setdefault("times", {})  # task: [wall, CPU seconds] of its solve
        for n, j in enumerate(todo):
            t1, c1 = time.perf_counter(), time.process_time()
            worker.solve(v, store.group, p.tasks[j], limit=limit)
            if store_dir:
                sync_written()  # the task's chunks on disk before its record
                done["solve"].append(j)
                times[str(j)] = [round(time.perf_counter() - t1, 1),
                                 round(time.process_time() - c1, 1)]
                store.set_attrs(box_done=done, box_plan=cut)
            if say:
                names = ", ".join(p.tiers[x].label for x, *_ in p.tasks[j].pieces)
                say(f"solve: task {j} ({names}) in {time.perf_counter() - t1:.0f} s, "
                    f"{len(tasks) - len(todo) + n + 1} of {len(tasks)} done")
        for what, spent in (("seeding", done.get("seed_times")), ("solve", times)):
            if say and spent:  # what the store recorded, across runs
                wall, cpu = (sum(x[k] for x in spent.values()) for k in (0, 1))
                say(f"{what} times recorded for {len(spent)} tiers or tasks: {wall:,.0f} s "
                    f"wall, {cpu:,.0f} s CPU")
        istart = game.block_index
        counts: dict[str, list[int]] = {}
        deepest: dict[str, int] = {}
        for k, (stage, turn, _combo, w, b) in enumerate(game.blocks):
            if stage != game.move_stage or not (3 <= w <= most and 3 <= b <= black):
                continue
            if report and (w, b) not in solved:
                continue
            pair = f"{w}-{b}" if turn == 0 else f"{b}-{w}"
            value = store.value[int(istart[k]):int(istart[k + 1])]
            rem = store.remoteness[int(istart[k]):int(istart[k + 1])]
            tally = np.bincount(value, minlength=8)
            counts[pair] = [int(tally[WIN]), int(tally[LOSE]), int(tally[DRAW])]
            decided = (value == WIN) | (value == LOSE)
            deepest[pair] = int(rem[decided].max()) if decided.any() else 0
    return counts, deepest, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--most", type=int, default=4, help="most pieces a side (3..9)")
    ap.add_argument("--box", help="WxB: most white and most black pieces (3..9 each)")
    ap.add_argument("--memory", type=float, default=16.0, help="GiB the solve may hold")
    ap.add_argument("--store", type=Path, help="keep the store in DIR and resume from it "
                    "(default: a temporary folder, removed at the end)")
    ap.add_argument("--report", action="store_true", help="with --store: solve nothing, "
                    "print the pairs whose tiers the store holds solved so far")
    args = ap.parse_args()
    if args.report and not args.store:
        ap.error("--report reads a --store")
    from solver.command.bench import machine

    print(f"# {machine()}, {time.strftime('%Y-%m-%d')}")
    white, black = (map(int, args.box.lower().split("x")) if args.box
                    else (args.most, args.most))
    counts, deepest, seconds = solve_pairs(
        white, args.memory, black, args.store,
        lambda text: print(f"# {time.strftime('%H:%M:%S')} {text}", flush=True),
        report=args.report)
    bad = 0
    print("pair  wins  losses  draws  largest remoteness  eigenraum")
    for pair in sorted(counts, key=lambda s: (sum(map(int, s.split("-"))), s)):
        ours, theirs = tuple(counts[pair]), EIGENRAUM.get(pair)
        verdict = "-" if theirs is None else "same" if ours == theirs else f"DIFFERS {theirs}"
        bad += theirs is not None and ours != theirs
        print(f"{pair}  {ours[0]:,}  {ours[1]:,}  {ours[2]:,}  {deepest[pair]}  {verdict}")
    total = sum(sum(c) for c in counts.values())
    print(f"{total:,} canonical positions in {seconds:.1f} s "
          f"({total / seconds:,.0f} a second); {bad} pairs differ")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
