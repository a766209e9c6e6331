"""`gsolve plan`: what a tiered solve of a game variant would take, without solving it.

* memory: the largest task's working set, the least a worker needs: a loopy tier whole,
  or one store chunk of a loop-free tier, with the child positions it reads. Those are
  measured on a sample: the middle chunk of each of the tiers with the largest child
  tiers is expanded (every position taken as reached, an upper bound) and its children
  grouped into the ranges a task would read, and sized by the memory model
  (solver/engine/memory.py), as the worker runs them;
* time and disk: the plan of solver/methods/estimate.py, the one a solve checks and announces:
  a timed sample of this variant's kernel on this machine, times the factor this
  machine measured on its largest solve of the game (else a default factor); disk from
  the chunk files of the largest stored database of the game, else the sample's bytes
  compressed as the store does. Every applicable method's time and memory is listed too.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

from games.base import Game, GsolveError
from solver.engine import memory
from solver.engine.memory import BASE
from solver.engine.plan import check_tiers
from solver.kernels.compact import CanonicalIndex
from solver.kernels.direct import numbers_itself
from solver.kernels.numbering import game_of
from solver.storage.database import CHUNK, default_root

GIB = 1 << 30
NODE_CORES, NODE_GIB = 16, 64  # the cluster node a plan is priced in
DAY = 24.0
SAMPLES = 6  # tiers sampled: those with the largest child tiers, and the largest tiers


def _sample(game: Game, tier) -> tuple[int, int]:
    """(own, child positions read) of a task of the middle chunk of `tier`. With symmetry
    every child is canonicalized (Quarto 4x4: 23 us each, 256 children a position), so
    the chunk's first CHUNK / (4 children) slots stand for it, their far ranges scaled."""
    import numpy as np

    from solver.engine.task import TEMPLATE, spans, unique
    from solver.kernels.codegen import kernels

    if tier.size == 0:
        return 0, 0
    lo = tier.start + max(0, (tier.size - CHUNK) // 2)
    whole = min(tier.stop, lo + CHUNK) - lo
    hi = lo + (whole if not game.symmetry else
               min(whole, max(256, CHUNK // (4 * game.max_children))))
    k = kernels(game.module, TEMPLATE)
    own = np.ones(hi - lo, np.uint8)
    far = np.empty((hi - lo) * game.max_children, np.int64)
    _, m = k.forward_far(game.ctx, own, lo, hi, lo, hi, lo, hi, far, game.max_children,
                         game.scratch_size)
    far = unique(far, m)
    if not far.size:
        return whole, 0
    starts, stops = spans(far)
    return whole, int((stops - starts).sum()) * whole // (hi - lo)


EXACT = 1 << 16  # tiers up to this many slots are counted, larger ones sampled
SAMPLED = 1 << 14  # random slots a larger tier's share is estimated on


def canonical_shares(game: Game, tiers) -> list[float]:
    """Each tier's share of canonical slots (what a compact solve stores of it: solver/
    kernels/compact.py): counted in small tiers; elsewhere the mean of 1 / orbit size over
    SAMPLED random slots (compact.orbit_share), which windows of consecutive slots get
    wrong where canonical slots come in runs (Quarto: all of a piece set or none)."""
    import numpy as np

    from solver.kernels.compact import count_canonical, orbit_share
    from solver.kernels.direct import DirectNumbering

    game = game_of(game)  # (the game's slots, not a solve's numbering of them)
    if numbers_itself(game):  # the game's own numbering: exact, and free
        index = DirectNumbering(game)
        return [(index.rank(t.stop) - index.rank(t.start)) / t.size if t.size else 0.0
                for t in tiers]
    rng = np.random.default_rng(game.hash_size % (1 << 32))
    out = []
    for t in tiers:
        if t.size <= EXACT:
            out.append(count_canonical(game, t.start, t.stop) / t.size if t.size else 0.0)
            continue
        out.append(orbit_share(game, rng.integers(t.start, t.stop, SAMPLED)))
    return out


def make_plan(game: Game, root: str | Path | None = None) -> dict:
    """The plan of a tiered solve of `game` as a dict (`gsolve plan --json`). With
    symmetry the solve is compact (solver/kernels/compact.py): every tier holds its
    canonical positions only, and every worker holds the index of canonical slots."""
    tiers = game.tiers()
    if tiers is None:
        raise GsolveError(f"{game.name} does not define tiers: gsolve plan covers tiered "
                          "solves (see `gsolve list` for its methods)")
    check_tiers(game, tiers)
    terms = memory.Terms.of(game)
    loopy = sum(i in t.children for i, t in enumerate(tiers))
    share = canonical_shares(game, tiers) if game.symmetry else [1.0] * len(tiers)
    kids = [sum(tiers[c].size for c in t.children if c != i) for i, t in enumerate(tiers)]
    by_kids = sorted(range(len(tiers)), key=lambda i: -kids[i])[:SAMPLES]
    by_size = sorted(range(len(tiers)), key=lambda i: -tiers[i].size)[:SAMPLES]
    # a loopy tier is never split: the largest of them may be the largest task of all
    by_loop = sorted((i for i, t in enumerate(tiers) if i in t.children),
                     key=lambda i: -tiers[i].size)[:SAMPLES]
    largest, least, at = 0, 0, 0
    for i in dict.fromkeys(by_kids + by_size + by_loop):
        t = tiers[i]
        own, far = _sample(game, t)
        if i in t.children:  # a loopy tier is one task: scale the sample to all of it
            own, far = t.size, min(kids[i], far * t.size // max(1, own))
        own, far = round(own * share[i]), round(far * share[i])  # compact: canonical ones
        ws = memory.strategy(game, own, far, terms=terms).bytes
        if ws > largest:
            largest, at = ws, i
        least = max(least, memory.least_bytes(game, own, far, terms))
    stored = [round(t.size * x) for t, x in zip(tiers, share, strict=True)]
    numbered = bool(game.symmetry) and numbers_itself(game_of(game))  # no index held
    index = 0
    if game.symmetry and not numbered:
        index = CanonicalIndex.nbytes_for(game.hash_size, sum(stored))
    worker = BASE + least + index
    from solver.methods import estimate
    from solver.methods.registry import TIERED, applicable_methods
    from solver.methods.speed import position_share
    from solver.runtime.parallel import threads

    root = root if root is not None else default_root()
    est = estimate.estimate(game, TIERED, root=root)
    counted = position_share(game)
    cores = threads()
    per_core = game.hash_size / max(est.cpu, 1e-9)
    cpu_hours = est.cpu / 3600
    methods = {}
    for m in applicable_methods(game):
        e = est if m == TIERED else estimate.estimate(game, m, root=root)
        methods[m] = {"seconds": round(e.seconds, 1), "memory_bytes": int(e.bytes),
                      "fits": bool(estimate.fits_memory(e)) and e.in_time}
    node_workers = max(1, min(NODE_CORES, int(NODE_GIB * GIB // worker)))
    nodes = max(1, math.ceil(cpu_hours / DAY / NODE_CORES))
    return {
        "game": game.name, "variant": game.variant_key,
        "tiers": len(tiers), "loopy_tiers": loopy, "hash_slots": int(game.hash_size),
        "largest_tier": max(t.size for t in tiers),
        "symmetry": bool(game.symmetry),
        "stored_positions": int(sum(stored)), "largest_tier_stored": int(max(stored)),
        "index_bytes": int(index),
        "positions": None if counted is None else {
            "stored": round(counted.count), "samples": counted.samples,
            "undecided": round(counted.undecided, 4)},
        "numbered": numbered,
        "largest_task_bytes": int(largest), "largest_task_tier": tiers[at].label,
        "least_task_bytes": int(least),
        "worker_memory_bytes": int(worker),
        "disk_bytes": int(est.disk), "seconds": round(est.seconds, 1),
        "idle_seconds": round(est.idle, 1), "load": round(os.getloadavg()[0], 1),
        "memory_bytes": int(est.bytes), "threads": cores,
        "slots_per_core_second": round(per_core), "speed_from": est.source,
        "cpu_hours": round(cpu_hours, 2), "methods": methods,
        "cluster": {"node_cores": NODE_CORES, "node_gib": NODE_GIB,
                    "workers_per_node": node_workers,
                    "nodes_for_one_day": nodes if node_workers >= 1 else None,
                    # every worker busy (the tier graph's widest levels; its first and
                    # last levels run few tasks at once, so more on a small graph)
                    "hours": round(cpu_hours / (nodes * node_workers), 2),
                    "worker_memory_bytes": int(worker), "store_bytes": int(est.disk),
                    "fits_one_node": worker <= NODE_GIB * GIB},
        "this_machine": {"cores": cores, "days": round(est.seconds / 86400, 2)},
    }


def duration(seconds: float) -> str:
    from solver.runtime.progress import duration as words

    return words(seconds)


def human(n: float, unit: str = "B") -> str:
    for scale, name in ((1 << 40, "Ti"), (1 << 30, "Gi"), (1 << 20, "Mi"), (1 << 10, "Ki")):
        if n >= scale:
            return f"{n / scale:,.1f} {name}{unit}"
    return f"{n:,.0f} {unit}"


def describe(p: dict) -> str:
    c = p["cluster"]
    rows = [
        ("tiers", f"{p['tiers']:,} ({p['loopy_tiers']:,} loopy)"),
        ("hash slots", f"{p['hash_slots']:,} (largest tier {p['largest_tier']:,})"),
        *([("positions", f"about {q['stored']:,} stored (counted on {q['samples']:,} "
                         "random slots, each searched back to the start"
                         + (f"; {q['undecided']:.1%} undecided, counted in" if
                            q["undecided"] else "") + ")")]
          if (q := p.get("positions")) else []),
        *([("stored", f"{p['stored_positions']:,} canonical slots, "
                      + ("numbered by the game (largest tier "
                         f"{p['largest_tier_stored']:,}), no index" if p["numbered"] else
                         f"sampled (largest tier {p['largest_tier_stored']:,}); their index "
                         f"{human(p['index_bytes'])} in every worker"))]
          if p.get("symmetry") else []),
        ("largest task", f"{human(p['largest_task_bytes'])} ({p['largest_task_tier']})"
                         + (f", {human(p['least_task_bytes'])} at the least"
                            if p["least_task_bytes"] < p["largest_task_bytes"] else "")
                         + f"; a worker needs {human(p['worker_memory_bytes'])}"),
        ("time", f"{duration(p['seconds'])} on this machine now ({p['threads']} threads, "
                 f"load {p['load']}; {duration(p['idle_seconds'])} with nothing else "
                 f"running), {human(p['memory_bytes'])} memory"),
        ("disk", human(p["disk_bytes"])),
        ("speed", f"{p['slots_per_core_second']:,} hash slots per core-second "
                  f"({p['speed_from']})"),
        ("CPU time", f"{p['cpu_hours']:,.2f} core-hours"),
        ("methods", "; ".join(f"{m} {duration(e['seconds'])}, {human(e['memory_bytes'])}"
                              + ("" if e["fits"] else " (does not fit)")
                              for m, e in p["methods"].items())),
        ("cluster", f"{c['nodes_for_one_day']:,} nodes of {c['node_cores']} cores / "
                    f"{c['node_gib']} GiB for a one-day solve, {c['workers_per_node']} "
                    f"workers a node of {human(c['worker_memory_bytes'])} each: about "
                    f"{duration(c['hours'] * 3600)} with every worker busy, "
                    f"{human(c['store_bytes'])} in the store they share"
                    if c["fits_one_node"] else
                    f"no {c['node_gib']} GiB node holds the largest task"),
    ]
    head = f"plan for {p['game']} {p['variant']} (tiers)"
    return "\n".join([head] + [f"  {k:<14} {v}" for k, v in rows])
