"""Nine Men's Morris's movement phase solved pair by pair, against an independent solve.

Usage: python benchmarks/morris_movement.py [--most N | --box WxB] [--memory GIB]

Every board of each piece-count pair with 3..N pieces a side (or 3..W white and 3..B
black: a tier holds both sides to move, so the box 6x3 gives the ordered pairs 6-3 and
3-6), all men placed, either side to move, is solved on canonical positions (the 16
symmetries; games/morris.py numbers them) by the tier engine (solver/engine/worker.py,
the lean worker where a tier passes `--memory`). Not only the boards the opening can
reach: every canonical board of those tiers is seeded reached, as Gasser's and
eigenraum's databases hold them. A capture leads to a pair of the list or to one where
the side that lost a piece has two (it has lost): those tiers are solved too, from what
the seeded ones reach.

Prints wins, losses and draws per ordered pair "stones of the side to move - stones of
the opponent" beside eigenraum/solving-nine-mens-morris's RESULTS.md (an exhaustively
verified retrograde solve in Rust, canonical states up to the 16 symmetries, unreachable
ones kept), and exits 1 if any pair differs. The largest remoteness of each pair is
printed too (eigenraum's depths count plies to a capture, ours to the end: not compared).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

# eigenraum/solving-nine-mens-morris RESULTS.md, "Per-subspace table" (wins, losses,
# draws of the side to move), read 2026-11-25
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
    "9-3": (37_209_196, 0, 32), "6-6": (23_250_808, 5_273_162, 127_705_390),
}


@njit(cache=True)
def _seed(canonical, canonical_slot, ctx, lo, hi, out):
    """out[i - lo] = 1 where index i numbers a canonical board (not a gap)."""
    scratch = np.empty(32, np.int8)
    n = 0
    for i in range(lo, hi):
        h = canonical_slot(ctx, i)
        ok = canonical(ctx, h, scratch) == h
        out[i - lo] = ok
        n += ok
    return n


def solve_pairs(most: int, memory: float, black: int | None = None
                ) -> tuple[dict, dict, float]:
    """{pair: (wins, losses, draws)}, {pair: largest remoteness}, seconds, for the tiers
    of 3..most white and 3..black (default: most) black men."""
    black = most if black is None else black
    from games.morris import Morris
    from solver.engine import plan, worker
    from solver.kernels.compact import view
    from solver.kernels.records import DRAW, LOSE, WIN
    from solver.kernels.symmetry import apply
    from solver.storage.database import create_array, remoteness_dtype
    from solver.storage.partial import PartialStore

    game = apply(Morris(men=9), True)
    v = view(game)
    mod = importlib.import_module(type(game).module)
    label = re.compile(r"move W(\d) B(\d)$")
    pairs = {i: (int(m[1]), int(m[2])) for i, t in enumerate(v.tiers())
             if (m := label.match(t.label)) and int(m[1]) <= most and int(m[2]) <= black}
    chosen = [i for i, (w, b) in pairs.items() if min(w, b) >= 3]  # the rest: captures'
    # children, where the side down to two pieces has lost (reached from the chosen)
    limit = int(memory * (1 << 30)) - plan.BASE
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        store = PartialStore(Path(tmp) / "db", v, "tiers",
                             remoteness_dtype(v.max_remoteness), True)
        reached = create_array(store.group, worker.REACHED, (v.hash_size,), np.uint8)
        p = plan.plan(v, limit)
        for i in chosen:
            t = p.tiers[i]
            marks = np.empty(t.size, np.uint8)
            _seed(mod.canonical, mod.canonical_slot, game.ctx, t.start, t.stop, marks)
            reached[t.start:t.stop] = marks
        v.start = p.tiers[chosen[0]].start  # the engine marks a start: one of these
        tasks = {j for j, task in enumerate(p.tasks)
                 if any(x in pairs for x, *_ in task.pieces)}
        for j in p.run_order[::-1]:
            if j in tasks:
                worker.reach(v, store.group, p.tasks[j], limit=limit)
        for j in p.run_order:
            if j in tasks:
                worker.solve(v, store.group, p.tasks[j], limit=limit)
        istart = game.block_index
        counts: dict[str, list[int]] = {}
        deepest: dict[str, int] = {}
        for k, (stage, turn, _combo, w, b) in enumerate(game.blocks):
            if stage != game.move_stage or not (3 <= w <= most and 3 <= b <= black):
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
    args = ap.parse_args()
    from solver.command.bench import machine

    print(f"# {machine()}, {time.strftime('%Y-%m-%d')}")
    white, black = (map(int, args.box.lower().split("x")) if args.box
                    else (args.most, args.most))
    counts, deepest, seconds = solve_pairs(white, args.memory, black)
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
