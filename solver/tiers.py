"""The tier solver: "no state: enumerate a stage, spread it out" (GamesCrafters notes).

A game with tiers splits its hash numbering into contiguous ranges (e.g. by pieces
placed). Reachability runs parents first over the tiers (one byte per position); then each
tier is solved children first with only itself and its child tiers in memory: directly from
its children when they all lie in other tiers, by in-tier sweeps to a fixed point when moves
can stay in the tier. Every finished tier is written to the store and recorded there, so an
interrupted solve resumes at the first unfinished tier. The work on a tier is a set of
independent block tasks (read child tiers, write one block): the unit a cluster would run.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, Tier, shown_remoteness
from solver.codegen import kernels
from solver.database import PartialStore, remoteness_dtype
from solver.kernels.records import (
    DRAW,
    LOSE,
    SHIFT,
    TIE,
    VISITED,
    WIN,
    record_dtype,
    split_records,
)
from solver.parallel import run_blocks
from solver.progress import Progress

TEMPLATE = "solver.kernels.tiers"


def applies(game) -> bool:
    if isinstance(game, type):  # a game class (gsolve list): does it define tiers at all?
        return game.tiers is not Game.tiers
    return game.tiers() is not None


def why_not(game) -> str:
    return (f"{game.name} does not define tiers, so the tiers method does not apply: use "
            "--method bottomup" + ("" if game.loopy else " or --method dfs"))


def check_tiers(game: Game, tiers: list[Tier]) -> list[int]:
    """Validate the tier list; return a solving order with children first."""
    pos = 0
    for i, t in enumerate(sorted(tiers, key=lambda t: t.start)):
        if t.start != pos or t.stop < t.start:
            raise GsolveError(f"{game.name}: tier {i} ({t.label}) leaves a gap or overlaps")
        pos = t.stop
    if pos != game.hash_size:
        raise GsolveError(f"{game.name}: tiers cover {pos} of {game.hash_size} positions")
    order: list[int] = []
    state = [0] * len(tiers)  # 0 new, 1 open, 2 done
    for root in range(len(tiers)):
        stack = [(root, iter(tiers[root].children))]
        if state[root]:
            continue
        state[root] = 1
        while stack:
            t, it = stack[-1]
            child = next(it, None)
            if child is None:
                state[t] = 2
                order.append(t)
                stack.pop()
            elif child == t or state[child] == 2:
                continue
            elif state[child] == 1:
                raise GsolveError(f"{game.name}: tiers {t} and {child} depend on each other")
            else:
                state[child] = 1
                stack.append((child, iter(tiers[child].children)))
    return order


def warm_up(game: Game) -> None:
    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dt = record_dtype(game.max_remoteness)
    reached = np.zeros(1, np.uint8)
    win = np.zeros(1, dt)
    seg = np.zeros(1, np.int64)
    k.forward(ctx, reached, 0, 0, 0, 0, mc, ss)
    k.mark_primitives(win, reached, 0, 0, 0)
    k.combine_tier(ctx, win, seg, seg, seg, 0, 0, 0, mc, ss, game.puzzle)
    k.winlose_tier(ctx, win, seg, seg, seg, 0, 0, 0, 1, mc, ss)
    k.reach_tier(ctx, win, seg, seg, seg, 0, 0, 0, 1, WIN, mc, ss)


def _to_records(value: np.ndarray, rem: np.ndarray, dtype) -> np.ndarray:
    rec = value.astype(dtype)
    rec |= (rem.astype(dtype) << SHIFT)
    rec[value != 0] |= VISITED
    return rec


def _solve_tier(k, game: Game, tier: Tier, loopy: bool, win: np.ndarray, seg: tuple,
                reached: np.ndarray, progress: Progress) -> None:
    """Decide the reached positions of one tier, held in win[:tier.size]."""
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    lo, hi = tier.start, tier.stop
    bad = GsolveError(f"{game.name}: a move leaves tier {tier.label} for a tier it does not "
                      "list as a child")
    run_blocks(k.mark_primitives, (win, reached[lo:hi]), lo, hi, lo)
    if not loopy:
        if run_blocks(k.combine_tier, (ctx, win, *seg), lo, hi, lo, mc, ss, game.puzzle,
                      progress=progress) < 0:
            raise bad
        return
    outside = win[tier.size:]
    longest = int((outside >> SHIFT).max()) if outside.size else 0

    def sweeps(kernel, *args):
        # sweep i decides remoteness i; past the slowest child outside the tier, a sweep
        # that decides nothing is the fixed point
        i = 1
        while True:
            n = run_blocks(kernel, (ctx, win, *seg), lo, hi, lo, i, *args, mc, ss)
            if n < 0:
                raise bad
            if n == 0 and i > longest:
                return
            i += 1

    if game.puzzle:
        sweeps(k.reach_tier, WIN)
    else:
        sweeps(k.winlose_tier)
        sweeps(k.reach_tier, TIE)
    own = win[:tier.size]
    own[own == VISITED] = VISITED | (LOSE if game.puzzle else DRAW)


def solve_into(game: Game, path: Path, progress: Progress | None = None,
               fresh: bool = False) -> dict:
    """Solve tier by tier into the database at `path` (resuming a partial one)."""
    progress = progress or Progress()
    tiers = game.tiers()
    order = check_tiers(game, tiers)
    k = kernels(game.module, TEMPLATE)
    ctx, mc, ss = game.ctx, game.max_children, game.scratch_size
    dtype = record_dtype(game.max_remoteness)
    store = PartialStore(path, game, "tiers", remoteness_dtype(game.max_remoteness), fresh)
    attrs = store.attrs
    pause = float(os.environ.get("GSOLVE_TIER_PAUSE", "0"))  # lets tests interrupt a solve

    # 1. reachability, parents first
    if attrs.get("reached_done"):
        reached = store.load_bytes("reached")
    else:
        reached = np.zeros(game.hash_size, np.uint8)
        reached[game.start] = 1
        for step, t in enumerate(reversed(order)):
            tier = tiers[t]
            while run_blocks(k.forward, (ctx, reached), tier.start, tier.stop, tier.start,
                             tier.stop, mc, ss) > 0:
                pass
            progress.update("reach", step + 1, f"tier {tier.label}")
        store.save_bytes("reached", reached)
        store.set_attrs(reached_done=True)

    # 2. solve, children first; keep solved tiers in memory while a parent still needs them
    done = set(store.attrs.get("tiers_done", []))
    parents: dict[int, set[int]] = {i: set() for i in range(len(tiers))}
    for i, t in enumerate(tiers):
        for c in t.children:
            if c != i:
                parents[c].add(i)
    memory: dict[int, np.ndarray] = {}

    def records_of(t: int) -> np.ndarray:
        if t not in memory:
            v, r = store.read(tiers[t].start, tiers[t].stop)
            memory[t] = _to_records(v, r, dtype)
        return memory[t]

    for step, t in enumerate(order):
        tier = tiers[t]
        if t in done:
            continue
        t0 = time.perf_counter()
        kids = [c for c in tier.children if c != t]
        size = tier.size
        win = np.empty(size + sum(tiers[c].size for c in kids), dtype)
        gstart, gstop, woff = [tier.start], [tier.stop], [0]
        off = size
        for c in kids:
            win[off:off + tiers[c].size] = records_of(c)
            gstart.append(tiers[c].start)
            gstop.append(tiers[c].stop)
            woff.append(off)
            off += tiers[c].size
        seg = (np.array(gstart, np.int64), np.array(gstop, np.int64), np.array(woff, np.int64))
        _solve_tier(k, game, tier, t in tier.children, win, seg, reached, progress)
        own = win[:size].copy()
        del win
        value = np.empty(size, np.uint8)
        rem = np.empty(size, dtype)
        split_records(own, value, rem)
        store.write(tier.start, value, rem)
        done.add(t)
        store.set_attrs(tiers_done=sorted(done))
        memory[t] = own
        for c in kids:
            if parents[c] <= done:
                memory.pop(c, None)
        progress.update("tier", step + 1,
                        f"{tier.label}: {size:,} positions in {time.perf_counter() - t0:.2f} s")
        if pause:
            time.sleep(pause)

    # 3. summary, then mark complete
    counts = np.zeros(8, np.int64)
    max_rem = 0
    for a in range(0, game.hash_size, 1 << 20):
        v, r = store.read(a, min(game.hash_size, a + (1 << 20)))
        counts += np.bincount(v, minlength=8)[:8]
        has = (v == WIN) | (v == LOSE) | (v == TIE)
        if has.any():
            max_rem = max(max_rem, int(r[has].max()))
    sv, sr = store.read(game.start, game.start + 1)
    sv, sr = int(sv[0]), int(sr[0])
    summary = {
        "positions": int(counts[1:5].sum()),
        "values": {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]},
        "start_value": VALUE_WORDS[sv],
        "start_remoteness": shown_remoteness(sv, sr, game.puzzle),
        "max_remoteness": max_rem,
        "tiers": len(tiers),
    }
    store.finish(summary, drop=("reached",))
    return summary


def solve(game: Game, progress: Progress | None = None) -> np.ndarray:
    """In-memory records (for benchmarks and comparisons): solve into a temporary store."""
    import tempfile

    from solver.database import Database

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / game.name / game.variant_key
        solve_into(game, path, progress, fresh=True)
        db = Database(path, game)
        rec = np.zeros(game.hash_size, record_dtype(game.max_remoteness))
        for a, v, r in db.chunks():
            rec[a:a + len(v)] = _to_records(v, r, rec.dtype)
        return rec

