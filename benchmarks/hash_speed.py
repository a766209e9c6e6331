"""ns per generic-hash rank/unrank call, and Quixo children/parents per position.

Usage: python benchmarks/hash_speed.py [--n 200000]. Single thread, best of 5; numbers
vary with machine load, so compare runs taken back to back. Before/after: run this file
from a `git archive <rev> games hashing` copy with PYTHONPATH set to it, and a separate
NUMBA_CACHE_DIR (numba's cache of a caller keeps the rank it was compiled with)."""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from games.quixo import Quixo, children, parents
from hashing import HashContext
from hashing.generic import rank, unrank


@njit  # not cached: a cached copy would keep a stale rank inside it
def _rank_loop(ctx, boards, turns):
    s = 0
    for j in range(boards.shape[0]):
        s += rank(ctx, boards[j], turns[j])
    return s


@njit  # not cached: a cached copy would keep a stale rank inside it
def _unrank_loop(ctx, hs, board):
    s = 0
    for j in range(hs.shape[0]):
        s += unrank(ctx, hs[j], board)
        s += board[j % board.shape[0]]
    return s


@njit  # not cached: a cached copy would keep a stale rank inside it
def _children_loop(ctx, hs, out, moves, scratch):
    s = 0
    for j in range(hs.shape[0]):
        s += children(ctx, hs[j], out, moves, scratch)
    return s


@njit  # not cached: a cached copy would keep a stale rank inside it
def _parents_loop(ctx, hs, out, scratch):
    s = 0
    for j in range(hs.shape[0]):
        s += parents(ctx, hs[j], out, scratch)
    return s


def _time(fn, *args):
    fn(*args)  # compile / warm
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    cases = [("quixo4 (16 cells, 3 types)", HashContext(16, [(0, 16)] * 3, turn=True), 3),
             ("20 cells, 3 types", HashContext(20, [(0, 20)] * 3, turn=True), 3),
             ("12 cells, 4 types", HashContext(12, [(0, 12)] * 4, turn=True), 4),
             ("16 cells, 2 types", HashContext(16, [(0, 16)] * 2, turn=True), 2)]
    for name, ctx, k in cases:
        boards = rng.integers(0, k, size=(a.n, ctx.ncells)).astype(np.int8)
        turns = rng.integers(0, 2, size=a.n).astype(np.int64)
        hs = rng.integers(0, ctx.size, size=a.n).astype(np.int64)
        tr = _time(_rank_loop, ctx.nb, boards, turns)
        tu = _time(_unrank_loop, ctx.nb, hs, np.empty(ctx.ncells, np.int8))
        print(f"{name:28s} rank {tr / a.n * 1e9:7.1f} ns  unrank {tu / a.n * 1e9:7.1f} ns")
    g = Quixo(size=4)
    m = a.n // 10
    boards = rng.integers(0, 3, size=(m, 16)).astype(np.int8)
    hs = np.array([g.hash.rank(b, int(t)) for b, t in
                   zip(boards, rng.integers(0, 2, m), strict=True)], dtype=np.int64)
    out = np.empty(g.max_parents, np.int64)
    moves = np.empty(g.max_children, np.int64)
    scratch = np.empty(g.scratch_size, np.int8)
    tc = _time(_children_loop, g.ctx, hs, out, moves, scratch)
    tp = _time(_parents_loop, g.ctx, hs, out, scratch)
    print(f"quixo 4x4 random positions: children {tc / m * 1e6:6.2f} us  "
          f"parents {tp / m * 1e6:6.2f} us per position")


if __name__ == "__main__":
    main()
