"""The plan of a tiered solve: the hash cut into tasks, ordered children first.

After GamesmanOne's split of the tier manager (walk the tier graph, decide what is ready
and what is done) from the tier worker (solve one tier): here the unit is a *task*, a hash
range on the store's chunk boundaries (solver/engine/task.py). Small tiers are grouped
into one task, a loop-free tier too large for the memory budget is split into several,
and a loopy tier is never split (its in-tier sweeps need all of it). Tasks depend on the
tasks that hold their child tiers; a cut that would make two tasks depend on each other
(a game whose tiers are not ordered by hash) is removed. Nothing is sized by the whole
hash: a task holds its own range and its child tiers, so a solve's memory follows its
largest task. What a task holds, and how it runs within the budget, is the memory
model's (engine/memory.py): the plan asks it, as the worker does.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from games.base import Game, GsolveError, Tier
from solver.engine import memory
from solver.engine.memory import BASE  # noqa: F401 (a process's bytes beside its tasks)
from solver.engine.task import Task, merge
from solver.storage.database import CHUNK

GIB = 1 << 30
MAX_TASK = 1 << 24  # own slots of a grouped task: more tasks side by side, little overhead
MIN_TASK = 1 << 22  # ... and at least this many, where the hash has 32 times as many
LOCAL_TASK = 1 << 23  # the largest reach task a cluster's client runs while it starts


def task_cap(hash_size: int) -> int:
    """Own slots of a grouped task: 1/32 of the hash within [MIN_TASK, MAX_TASK]. A task's
    window and the child values cached for it follow its size, and past a few million
    slots a bigger task saves no time (Connect-4 5x5 and Quixo 4x4 solve as fast with
    tasks of 2^22 slots as of 2^24, in 340 instead of 455 MiB)."""
    return min(MAX_TASK, max(MIN_TASK, hash_size // 32))


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
        if state[root]:
            continue
        stack = [(root, iter(tiers[root].children))]
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


@dataclass
class Plan:
    tiers: list[Tier]
    order: list[int]  # tiers, children first
    cuts: list[int]  # task i is [cuts[i], cuts[i + 1])
    tasks: list[Task]
    deps: list[list[int]]  # tasks holding each task's child tiers
    run_order: list[int]  # tasks, children first
    slot_bytes: int
    game: Game
    limit: int = 0  # the memory a task may hold (0: any): past it tasks run lean or paged
    terms: memory.Terms | None = None  # the game's terms of the memory model

    def strategy_of(self, i: int) -> memory.Strategy:
        """How task i runs within the plan's `limit` (memory.strategy)."""
        t = self.tasks[i]
        kids = sum(e - s for s, e in t.segments) - t.size
        return memory.strategy(self.game, t.size, kids, self.limit, terms=self.terms)

    def working_set(self, i: int) -> int:
        return self.strategy_of(i).bytes

    @property
    def largest(self) -> int:
        return max(self.working_set(i) for i in range(len(self.tasks)))

    def slowdown(self) -> float:
        """How much longer the tasks take than at full speed, weighted by their size:
        those whose solve runs paged within `limit`, the rest as timed."""
        return memory.average_slowdown((t.size, self.strategy_of(i).slowdown)
                                       for i, t in enumerate(self.tasks))


def plan(game: Game, limit: int | None = None, cuts: list[int] | None = None,
         chunk: int = CHUNK, max_task: int | None = None, spread: int = 1) -> Plan:
    """Cut the hash into tasks of at most `limit` bytes of working set and `max_task` own
    slots (default `task_cap`) where tiers allow (a single loopy tier or one chunk of a
    loop-free tier may need more: see Plan.largest), or use the `cuts` of an earlier run.

    `spread` > 1 (a cluster of that many workers): tasks never mix levels, and a level cut
    at all is cut into a multiple of `spread` tasks of about equal size, so the tasks of a
    level, which never need each other, keep every worker busy."""
    tiers = game.tiers()
    order = check_tiers(game, tiers)
    n = game.hash_size
    max_task = max_task or task_cap(n)
    chunk = max(1, min(chunk, n))
    terms = memory.Terms.of(game)
    slot = terms.slot
    starts = [t.start for t in tiers]
    loopy = [i in t.children for i, t in enumerate(tiers)]
    level = [0] * len(tiers)  # 1 + the deepest child: tiers of one level never need each other
    for t in order:
        level[t] = 1 + max((level[c] for c in tiers[t].children if c != t), default=-1)

    def fits(own, kids):  # at full speed: lean or paged only what cannot be cut
        return memory.strategy(game, own, kids, terms=terms).bytes <= (limit or 1 << 62)

    planned = cuts is None  # cuts of an earlier run are kept as they are
    by_level = spread > 1
    if planned:
        cuts = _cut(tiers, starts, loopy, n, chunk, fits, max_task, level if by_level else None,
                    spread)
    while True:
        tasks, deps = _tasks(tiers, starts, loopy, level, cuts)
        run_order, stuck = _topological(deps)
        if not stuck:
            return Plan(tiers, order, cuts, tasks, deps, run_order, slot, game, limit or 0,
                        terms)
        if planned and not by_level:
            # a game whose hash interleaves tiers of different depths (Bagh-Chal: the
            # finished tiers of every stage): tasks of one level each never need each other
            by_level = True
            cuts = _cut(tiers, starts, loopy, n, chunk, fits, max_task, level, spread)
            continue
        # tasks on a cycle: never cut between the first and last of them again
        lo, hi = min(cuts[i] for i in stuck), max(cuts[i + 1] for i in stuck)
        keep = [c for c in cuts if not lo < c < hi]
        if keep == cuts:
            raise GsolveError(f"{game.name}: its tiers cannot be ordered into tasks")
        cuts = keep


def _cut(tiers, starts, loopy, n, chunk, fits, max_task, level=None, spread=1) -> list[int]:
    """Greedy cuts at tier boundaries and at chunk boundaries inside loop-free tiers (and,
    given the tiers' `level`, wherever the level changes, a run of one level cut into
    parts of equal size, as many as a multiple of `spread`)."""

    def tier_at(h):
        return bisect.bisect_right(starts, h) - 1

    def next_cut(x):
        """The next tier boundary, or chunk boundary inside a loop-free tier."""
        t = tier_at(x)
        stop = tiers[t].stop
        return stop if loopy[t] else min(stop, (x // chunk + 1) * chunk)

    def kids_of(x, y):
        """Child tiers of the tiers meeting [x, y), other than themselves."""
        out = set()
        t = tier_at(x)
        while t < len(tiers) and tiers[t].start < y:
            out.update(c for c in tiers[t].children if c != t)
            t += 1
        return out

    def level_end(x):
        """The end of the run of tiers of x's level that starts at x."""
        t = tier_at(x)
        while t + 1 < len(tiers) and level[t + 1] == level[t]:
            t += 1
        return tiers[t].stop

    def one_part(size):
        return size <= max_task and (spread <= 1 or size < 2 * spread * chunk)

    runs: dict[int, int] = {}  # level -> its runs of tiers in hash order
    for i in range(len(tiers) if level is not None else 0):
        if i == 0 or level[i] != level[i - 1]:
            runs[level[i]] = runs.get(level[i], 0) + 1

    def run_end(x):
        """The end of the run of x's level that starts at x, and of the runs after it
        while they all fit one task, each level is in no other run, and the levels go
        one by one (Connect-4's last moves are a level each, of a few thousand slots): a
        task per level would only add a round trip each. Its levels are then a range no
        other task shares, so tasks still never need each other both ways."""
        end = level_end(x)
        step = 0
        while end < n and runs[level[tier_at(x)]] == 1:
            last, nxt = level[tier_at(end - 1)], level[tier_at(end)]
            if runs[nxt] != 1 or abs(nxt - last) != 1 or step not in (0, nxt - last):
                break
            stop = level_end(end)
            if stop <= end or not one_part(stop - x):
                break
            end, step = stop, nxt - last
        return end

    cuts = [0]
    a = 0
    end, goals = 0, []
    while a < n:
        if level is not None and a >= end:  # a new run of one level: its parts' ends
            end = run_end(a)
            parts = -(-(end - a) // max_task)
            if spread > 1 and end - a >= 2 * spread * chunk:
                parts = -(-max(parts, spread) // spread) * spread
            goals = [a + (end - a) * k // parts for k in range(parts, 0, -1)]
        goal = goals.pop() if goals else a + max_task
        b = next_cut(a)
        kids = kids_of(a, b)
        kid_slots = sum(tiers[c].size for c in kids)
        while b < n and b < goal:
            if level is not None and b >= end:
                break
            b2 = next_cut(b)
            if b2 > goal and (level is None or b2 - goal >= goal - b):
                break  # past the goal: stop at whichever cut is nearer it
            new = kids_of(b, b2) - kids
            more = kid_slots + sum(tiers[c].size for c in new)
            if not fits(b2 - a, more):
                break
            kids |= new  # (in place: a copy a step made cutting 8x4 quadratic, 53 s)
            b, kid_slots = b2, more
        cuts.append(b)
        a = b
    return cuts


def _tasks(tiers, starts, loopy, level, cuts):
    tasks, deps = [], []
    for i in range(len(cuts) - 1):
        a, b = cuts[i], cuts[i + 1]
        t0 = bisect.bisect_right(starts, a) - 1
        t1 = bisect.bisect_left(starts, b)
        mine = range(t0, t1)
        pieces = sorted(((t, max(a, tiers[t].start), min(b, tiers[t].stop), loopy[t])
                         for t in mine if tiers[t].size), key=lambda p: (level[p[0]], p[1]))
        spans = [(a, b)]
        need: set[int] = set()
        for t in mine:
            for c in tiers[t].children:
                if c != t and tiers[c].size:
                    spans.append((tiers[c].start, tiers[c].stop))
                    lo = bisect.bisect_right(cuts, tiers[c].start) - 1
                    hi = bisect.bisect_left(cuts, tiers[c].stop)
                    need.update(range(lo, hi))
        need.discard(i)
        tasks.append(Task(i, a, b, tuple(pieces), tuple(merge(spans)),
                          tuple(level[p[0]] for p in pieces)))
        deps.append(sorted(need))
    return tasks, deps


def _topological(deps: list[list[int]]) -> tuple[list[int], list[int]]:
    """(children-first order, tasks left on or behind a cycle)."""
    users: list[list[int]] = [[] for _ in deps]
    waiting = [len(d) for d in deps]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    out = []
    while ready:
        i = ready.pop()
        out.append(i)
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    left = [i for i, w in enumerate(waiting) if w > 0]
    return out, left
