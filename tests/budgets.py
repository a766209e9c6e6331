"""Memory budgets to fuzz a tiered solve with: from the least the plan allows to the full
size, dense around each budget where a task's mode or a size changes (issue 44: a tight
--memory once wrote complete, wrong databases, and no test budget had met the threshold).

The thresholds are read off the plan at each budget, from the memory model the worker asks
(solver/engine/memory.py, solver/engine/manager.py): a task's reach in a window of its child
tiers or with far children as hashes or paged; its solve at full speed, lean or paged; the
chunk cache and the write queue, what is left beside the largest task, crossing a chunk's
bytes. Each is tried a byte below, at, and a byte above, plus random budgets between.
"""

from __future__ import annotations

import numpy as np

from games.base import GsolveError
from solver.engine import memory, plan
from solver.engine.memory import BASE, FAN
from solver.engine.task import window
from solver.methods import estimate
from solver.runtime.parallel import threads
from solver.storage.database import CHUNK


def fits(game, budget: int) -> bool:
    """Whether `gsolve --method tiers --memory` takes this budget (else it refuses)."""
    try:
        estimate.check_solve(game, "tiers", budget, 0, True, None)
    except GsolveError:
        return False
    return True


STEP = 1 << 12  # how near `least` comes: a budget STEP below it is refused


def least(game, step: int = STEP) -> int:
    """The least budget a tiered solve of `game` takes, to `step` bytes."""
    lo, hi = BASE // 2, BASE + 2 * game.hash_size * memory.slot_bytes(game) + (64 << 20)
    while hi - lo > step:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(game, mid) else (mid, hi)
    return hi


def full(game) -> int:
    """A budget past every threshold: each task at full speed, everything cached."""
    p = plan.plan(game)
    return BASE + 2 * p.largest + 4 * game.hash_size * memory.slot_bytes(game)


def task_thresholds(game, p) -> set[int]:
    """Per-task limits at which the worker changes how it runs a task of plan `p`."""
    slot = memory.slot_bytes(game)
    out = set()
    for t in p.tasks:
        slots = window(t)[4]
        kids = slots - t.size
        far = min(kids, FAN * t.size)
        reach_far = t.size + 8 * far + memory.block_bytes(game) * threads()
        out |= {2 * slots, reach_far, slots * slot,
                memory.strategy(game, t.size, kids).bytes,
                memory.lean_bytes(game, t.size, kids)}
    if memory.can_page(game):
        out.add(memory.paged_least_bytes(game))
    return out


def thresholds(game, lo: int, hi: int, probes: int = 6) -> set[int]:
    """Budgets in [lo, hi] where a mode or a size changes, from the plans at `probes`
    budgets spread between (a tighter budget cuts the tasks differently)."""
    out = set()
    for b in np.unique(np.geomspace(lo, hi, probes).astype(np.int64)).tolist():
        p = plan.plan(game, max(1, b - BASE))
        out |= {BASE + x for x in task_thresholds(game, p)}
        spare = BASE + p.largest
        # the cache (3/4 of what the largest task leaves) and the queue crossing chunks
        out |= {spare + k * CHUNK * 4 // 3 for k in (0, 1, 2, 3, 8)}
        out |= {spare + 4 * CHUNK * k for k in (1, 2)}
    return {b for b in out if lo <= b <= hi}


def budgets(game, n: int, seed: int = 0) -> list[int]:
    """At least `n` budgets (fewer where there are fewer thresholds), sorted: the least,
    each threshold's neighbours and random budgets between the least and the full size."""
    rng = np.random.default_rng(seed)
    lo, hi = least(game), full(game)
    edges = sorted(thresholds(game, lo, hi))
    near = sorted({x + d for x in edges for d in (-1, 0, 1)} | {lo - STEP, lo, hi})
    if len(near) > n:  # an even spread over the thresholds, both ends kept
        near = [near[i] for i in np.unique(np.linspace(0, len(near) - 1, n).astype(int))]
    more = max(0, n - len(near))
    rand = np.exp(rng.uniform(np.log(lo), np.log(hi), more)).astype(np.int64).tolist()
    return sorted(set(near) | set(rand))
