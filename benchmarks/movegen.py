"""ns per position of a game's move generation on random hashes of its largest tier.

Usage: python benchmarks/movegen.py [quixo] [-V size=4] [--n 200000] [--played A-B].
Times the game's jitted primitive, children, expand, parents and parents_in_tier (where
the game defines them, and their `_canonical` and `_indexed` forms) and canonical, ns per
call, single thread, best of 3.
Positions are uniform over the largest tier's hash range, so some are unreachable (the
`_indexed` forms take the canonical indices of the same positions); with `--played A-B`,
positions of random play instead, A to B moves from the start, none primitive: what a
solve expands (Connect-4's largest tier is the full board, which has no children). Compare
runs of the same command taken back to back (numbers vary with load).
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np
from numba import njit

from games import get_game


@njit  # not cached: a cached copy would keep stale game functions inside it
def _prim_loop(f, ctx, hs, scratch):
    s = 0
    for j in range(hs.shape[0]):
        s += f(ctx, hs[j], scratch)
    return s


@njit
def _kids_loop(f, ctx, hs, out, moves, scratch):
    s = 0
    for j in range(hs.shape[0]):
        n = f(ctx, hs[j], out, moves, scratch)
        s += n
        if n > 0:
            s += out[0]
    return s


@njit
def _parents_loop(f, ctx, hs, out, scratch):
    s = 0
    for j in range(hs.shape[0]):
        n = f(ctx, hs[j], out, scratch)
        s += n
        if n > 0:
            s += out[0]
    return s


@njit
def _index_loop(canonical, canonical_index, ctx, hs, scratch):
    out = np.empty_like(hs)
    for j in range(hs.shape[0]):
        out[j] = canonical_index(ctx, canonical(ctx, hs[j], scratch))
    return out


def _time(fn, *args):
    fn(*args)  # compile / warm
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        r = fn(*args)
        best = min(best, time.perf_counter() - t)
    return best, r


def _moves_range(text: str) -> tuple[int, int]:
    lo, _, hi = text.partition("-")
    if not (lo.isdigit() and (hi or lo).isdigit() and int(lo) <= int(hi or lo)):
        raise argparse.ArgumentTypeError(f"'{text}' is not A-B (whole numbers, A <= B)")
    return int(lo), int(hi or lo)


def played(game, n: int, lo: int, hi: int, rng) -> np.ndarray:
    """n hashes of random play, lo..hi moves from the start, none of them primitive (a
    walk ending early starts again)."""
    hs: list[int] = []
    while len(hs) < n:
        h = game.start
        for _ in range(int(rng.integers(lo, hi + 1))):
            moves = game.moves(h)
            if not moves or game.primitive_value(h):
                break
            h = moves[int(rng.integers(len(moves)))][1]
        else:
            if not game.primitive_value(h):
                hs.append(h)
    return np.array(hs, np.int64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("game", nargs="?", default="quixo")
    ap.add_argument("-V", "--variant", action="append", default=[])
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--played", default=None, metavar="A-B", type=_moves_range,
                    help="positions of random play, A to B moves from the start")
    a = ap.parse_args()
    variant = {}
    for v in a.variant or (["size=4"] if a.game == "quixo" else []):
        k, _, val = v.partition("=")
        variant[k] = int(val)
    g = get_game(a.game, variant)
    mod = importlib.import_module(type(g).__module__)
    out = np.empty(max(g.max_children, getattr(g, "max_parents", 0)), np.int64)
    moves = np.empty(g.max_children, np.int64)
    scratch = np.empty(g.scratch_size, np.int8)
    if a.played:
        lo, hi = a.played
        hs = played(g, a.n, lo, hi, np.random.default_rng(1))
        print(f"{a.game} {variant}: {a.n:,} positions of random play, {lo}-{hi} moves")
    else:
        big = max(g.tiers(), key=lambda t: t.stop - t.start)
        hs = np.random.default_rng(1).integers(big.start, big.stop, a.n).astype(np.int64)
        print(f"{a.game} {variant} tier '{big.label}' ({big.stop - big.start:,} hashes), "
              f"{a.n:,} random positions")
    t, s = _time(_prim_loop, mod.primitive, g.ctx, hs, scratch)
    print(f"  primitive {t / a.n * 1e9:8.1f} ns/pos   (checksum {s})")
    indices = (_index_loop(mod.canonical, mod.canonical_index, g.ctx, hs, scratch)
               if hasattr(mod, "canonical_index") else None)
    for name in ("children", "expand", "parents", "parents_in_tier"):
        # the second and third: for symmetric solves, the third on canonical indices
        for form in (name, f"{name}_canonical", f"{name}_indexed"):
            if not hasattr(mod, form):
                continue
            at = indices if form.endswith("_indexed") else hs
            if name.startswith("parents"):
                t, s = _time(_parents_loop, getattr(mod, form), g.ctx, at, out, scratch)
            else:
                t, s = _time(_kids_loop, getattr(mod, form), g.ctx, at, out, moves, scratch)
            print(f"  {form:18} {t / a.n * 1e9:8.1f} ns/call  (checksum {s})")
    if hasattr(mod, "canonical"):
        t, s = _time(_prim_loop, mod.canonical, g.ctx, hs, scratch)
        print(f"  {'canonical':18} {t / a.n * 1e9:8.1f} ns/call  (checksum {s})")


if __name__ == "__main__":
    main()
