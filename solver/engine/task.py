"""A task of a tiered solve: what the manager hands a worker (plain data, so it pickles to a
cluster), and the hash ranges it reads: its own range and the parts of its child tiers,
laid end to end in one window array."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Task:
    """What the manager hands a worker: plain data, so it pickles to a cluster."""

    index: int
    a: int  # own range [a, b)
    b: int
    pieces: tuple[tuple[int, int, int, bool], ...]  # (tier, lo, hi, loopy), children first
    segments: tuple[tuple[int, int], ...]  # window intervals, sorted, own range included
    levels: tuple[int, ...] = ()  # each piece's depth in the tier graph (pieces sorted by it)

    @property
    def size(self) -> int:
        return self.b - self.a


def runs(task: Task) -> list[tuple[int, int, bool, list]]:
    """(lo, hi, loopy, pieces) of the task, children first: adjacent loop-free pieces of
    one level (which never need each other) merged into one range, so thousands of small
    tiers (Connect-4's height vectors) make a few ranges large enough for the thread pool."""
    out: list[tuple[int, int, bool, list]] = []
    for k, piece in enumerate(task.pieces):
        _, lo, hi, loopy = piece
        level = task.levels[k] if task.levels else None
        if (out and level is not None and not loopy and not out[-1][2]
                and out[-1][1] == lo and out[-1][3][-1][1] == level):
            last = out[-1]
            last[3].append((piece, level))
            out[-1] = (last[0], hi, False, last[3])
        else:
            out.append((lo, hi, loopy, [(piece, level)]))
    return [(lo, hi, loopy, [p for p, _ in ps]) for lo, hi, loopy, ps in out]


def parents_first(task: Task, step, after=None) -> None:
    """`step(lo, hi)` over the task's runs, parents first, repeated on a loopy run until it
    marks nothing new (its fixed point); `after()` once each run is done."""
    for lo, hi, in_tier, _ in reversed(runs(task)):
        while True:
            new = step(lo, hi)
            if not in_tier or new == 0:
                break
        if after is not None:
            after()


def side_by_side(task: Task, rs: list, small: int, parts: int) -> list[list]:
    """`rs` (the task's `runs`, in order) as groups to run in turn: each level's loopy runs
    of at most `small` slots (which never need each other) in one group, largest first, to
    run on `parts` threads, one each; any other run alone, as is a run larger than a
    thread's share of its group (it would run on long after the others)."""
    level = dict(zip(task.pieces, task.levels, strict=True)) if task.levels else None
    out: list[list] = []
    block: list = []  # adjacent loopy runs of one level

    def flush():
        out.extend([r] for r in block if r[1] - r[0] > small)
        group = sorted((r for r in block if r[1] - r[0] <= small), key=lambda r: r[0] - r[1])
        while group and parts * (group[0][1] - group[0][0]) > sum(r[1] - r[0] for r in group):
            out.append([group.pop(0)])
        if group:
            out.append(group)
        block.clear()

    for r in rs:
        if block and not (r[2] and level[r[3][0]] == level[block[-1][3][0]]):
            flush()
        if r[2] and level is not None:
            block.append(r)
        else:
            out.append([r])
    flush()
    return out


def window(task: Task, segments=None) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """(gstart, gstop, woff, obase, slots) of a window over `segments` (sorted, disjoint,
    the task's own range among them; default: the task's whole child tiers)."""
    segments = task.segments if segments is None else segments
    gstart = np.array([s for s, _ in segments], np.int64)
    gstop = np.array([e for _, e in segments], np.int64)
    sizes = gstop - gstart
    woff = np.zeros(len(sizes), np.int64)
    woff[1:] = np.cumsum(sizes)[:-1]
    s = int(np.searchsorted(gstart, task.a, side="right")) - 1
    obase = int(woff[s] - gstart[s])
    return gstart, gstop, woff, obase, int(sizes.sum())


def outside(task: Task, segments=None):
    """(window offset, start, stop) of each window part that is not the task's own range."""
    gstart, gstop, woff, _, _ = window(task, segments)
    for s, e, w in zip(gstart.tolist(), gstop.tolist(), woff.tolist(), strict=True):
        for x, y in ((s, min(e, task.a)), (max(s, task.b), e)):
            if x < y:
                yield w + x - s, x, y


def needs(group, task: Task) -> tuple[tuple[int, int], ...]:
    """The window the solve phase of `task` reads: its own range and the child ranges its
    reach phase recorded (all of its child tiers if none were recorded)."""
    try:
        raw = group[f"needs-{task.index}"][:]
    except KeyError:
        return task.segments
    m = int(raw[0])
    spans = [(task.a, task.b)] + list(zip(raw[2:2 + 2 * m:2].tolist(),
                                          raw[3:3 + 2 * m:2].tolist(), strict=True))
    return tuple(merge(spans))


def merge(spans):
    """Sorted disjoint intervals covering `spans`."""
    out: list[list[int]] = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [(s, e) for s, e in out]
