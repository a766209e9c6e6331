"""Time, memory and disk plans of a solve, per method, and the refusal of what cannot finish.

One place decides what a solve will cost, so the default method, the refusal of a solve
that cannot fit, the announcement of a long one, its ETA and `gsolve plan` agree.

* Memory is exact up to small buffers: the arrays each method allocates per hash slot; for
  tiers, the tier manager's own task plan within the memory budget (solver/engine/plan.py).
* Time is measured, not assumed: a timed sample expands a few hundred thousand hash
  slots of this game variant with its own kernel on this machine (CPU time, so a busy
  machine does not skew it): `base` = hash slots x CPU seconds a slot x the share of
  slots a solve visits (the canonical ones under symmetry). A solve takes `base` times
  its method's factor in CPU seconds, plus a start-up and a cost per tier, spread over
  its threads as far as the method runs in parallel: the factor and parallelism this
  machine measured on its largest solve of this game with this method (any variant;
  stored after each solve of a second or more), else defaults (DEFAULT_FACTOR,
  PARALLEL, fitted on this project's solves on this 2-core machine).
* Disk: the positions the solve will store, decided on a few thousand random slots by a
  backward search to the start (a solve stores what it reaches: Connect-4 6x6 has 8.7
  slots a position), times the bytes a stored position took in the largest stored
  database of this game (its chunk files), else DISK_PER_POSITION; per visited slot
  (DISK_PER_SLOT) for a game without un-moves.

A solve whose plan is past HORIZON, or whose memory does not fit, is refused before it
touches the disk, with the figures and the options that would fit (`check_solve`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np

from games.base import Game, GsolveError
from solver.kernels.numbering import Numbering, game_of
from solver.methods.registry import TIERED
from solver.methods.speed import (
    DISK_PER_POSITION,
    DISK_PER_SLOT,
    assumed_rate,
    canonical_share,
    compile_seconds,
    cores_for,
    factor,
    overhead,
    position_share,
    sample,
    stored_disk,
    work_base,
)
from solver.runtime.env import available_memory, memory_source
from solver.runtime.progress import duration

ORDER = ("dfs", "retrograde", TIERED, "bottomup")  # ties broken in this order
FIT = 0.9  # a solve may use this share of the memory available
LONG = 60.0  # seconds: a solve estimated longer is announced, with its estimate
HORIZON = 7 * 86400.0  # seconds: a solve planned longer is refused (--no-time-limit)
PLAN_SLOTS = 1 << 44  # a tiered plan past the horizon is cut into tasks up to this size
GIB = 1 << 30


@dataclass(frozen=True)
class Estimate:
    method: str
    bytes: int  # memory the solve needs
    seconds: float  # planned wall time
    measured: bool  # the factor comes from a solve of this game on this machine
    available: int | None  # bytes the solve may use (None: unknown)
    disk: int = 0  # bytes the database takes on disk
    source: str = ""  # where the time comes from, in words
    bound: bool = False  # bytes is the budget, not planned (a plan past the horizon)
    cpu: float = 0.0  # planned CPU seconds
    idle: float = 0.0  # planned wall time on this machine with nothing else running
    budget: int = 0  # tiers: the memory budget it was planned in (0: none)
    compile: float = 0.0  # of seconds: compiling kernels numba's cache lacks (a first run)

    @property
    def fits(self) -> bool:
        return self.available is None or self.bytes <= FIT * self.available

    @property
    def in_time(self) -> bool:
        return self.seconds <= HORIZON

    def figures(self) -> str:
        mem = f"{'up to ' if self.bound else ''}{size(self.bytes)}"
        return f"{duration(self.seconds)}, {mem} memory, {size(self.disk)} disk"

    def describe(self) -> str:
        return f"{self.method}: about {self.figures()} ({self.source})"


def size(n: float) -> str:
    for scale, name in ((1 << 50, "PiB"), (1 << 40, "TiB"), (1 << 30, "GiB"),
                        (1 << 20, "MiB")):
        if n >= scale:
            return f"{n / scale:,.1f} {name}"
    return f"{n / (1 << 20):,.2f} MiB"


# -- memory ------------------------------------------------------------------------------
def memory_need(game: Game, method: str) -> int:
    """Bytes of the arrays a whole-hash `method` (not tiers: `tier_memory`, from the tier
    engine's memory model) allocates for `game` (see each solver's docstring)."""
    from solver.kernels.records import record_dtype

    rec = np.dtype(record_dtype(game.max_remoteness)).itemsize
    if method == "retrograde":
        counter = 1 if game.max_children < 256 else 2
        return game.hash_size * (rec + counter + (0 if game.has_parents else 16))
    return game.hash_size * rec


def tier_memory(game: Game, budget: int, workers: int = 0) -> int:
    """Bytes a tiered solve holds, as the tier manager plans its tasks within `budget`
    (its largest task per worker, and each process's base)."""
    return tier_plan(game, budget, workers)[0]


def tier_plan(game: Game, budget: int, workers: int = 0) -> tuple[int, float]:
    """(`tier_memory`, how much longer than at full speed its tasks take: the paged ones,
    Plan.slowdown)."""
    from solver.engine.memory import BASE
    from solver.engine.plan import plan
    from solver.kernels.direct import numbers_itself

    if game.symmetry and numbers_itself(game.game):  # its own numbering, no index: the
        game = game.compact()  # tasks the compact solve will run
    n = max(1, workers)
    p = plan(game, max(1, (budget - BASE * n) // n))
    return p.largest * n + BASE * n, p.slowdown()


# -- plans -------------------------------------------------------------------------------
def estimate(game: Game, method: str, available: int | None = None,
             budget: int | None = None, workers: int = 0, root=None,
             symmetry: bool | None = None, plan_memory: bool = True) -> Estimate:
    """The plan of solving `game` with `method`. `budget`: the memory a tiered solve is
    given (--memory; default most of what is available), `workers` its worker processes.
    `symmetry`=True on a game without it: the plan of the same solve with --symmetry.
    `plan_memory`=False: a tiered plan past the horizon is not cut into tasks (a huge
    hash takes minutes to cut): its memory is given as the budget it would hold at most."""
    from solver.runtime.parallel import threads

    have = available_memory() if available is None else available
    sym = game.symmetry if symmetry is None else symmetry
    s = sample(game)
    if s is None:
        seconds = game.hash_size / assumed_rate(game, method)
        cpu, measured, source = seconds, False, "assumed speed (not sampled: a small game)"
        idle = seconds
    else:
        base, per = work_base(game, method, s, sym)
        k, parallel, where = factor(game, method, sym)

        def timed():
            cpu = base * k + overhead(game, method)
            return cpu, cpu / min(parallel, cores_for(threads()))

        cpu, seconds = timed()
        idle = cpu / min(parallel, threads(), os.cpu_count() or 1)
        measured = where is not None
        what = "counted positions" if per == "position" else "slots"
        source = (f"timed sample of {s.slots:,} slots, over the {what}, x the factor of "
                  f"this machine's solve of {game.name} {where}" if where else
                  f"timed sample of {s.slots:,} slots, over the {what}, x a default factor")
    disk_bytes = planned_disk(game, sym, s, root)
    bound = False
    if method == TIERED:
        from solver.engine.memory import default_budget

        budget = budget or default_budget()
        if seconds > HORIZON and (not plan_memory or game.hash_size > PLAN_SLOTS):
            need, bound = budget, True  # (cutting 1e16 slots into tasks takes hours)
        else:
            need, slow = tier_plan(game, budget, workers)
            if s is not None:  # the tier list is built now: its cost per tier counts
                cpu, seconds = timed()
                idle = cpu / min(parallel, threads(), os.cpu_count() or 1)
            cpu, seconds, idle = cpu * slow, seconds * slow, idle * slow  # paged tasks
    else:  # its arrays, and what the process holds besides (interpreter, numba, zarr)
        from solver.engine.memory import BASE

        need = memory_need(game, method) + BASE
    first = compile_seconds(  # kernels not in numba's cache yet
        _symmetric(game) if sym and not game.symmetry else game, method)
    if first:
        source += f"; plus about {duration(first)} compiling its kernels (a first run)"
    return Estimate(method, int(need), float(seconds + first), measured, have, disk_bytes,
                    source, bound, float(cpu + first), float(idle + first),
                    int(budget or 0), float(first))


def planned_disk(game: Game, sym: bool, s, root=None) -> int:
    """Bytes the database will take: the positions it will store (counted on a sample of
    slots, `position_share`) x the bytes a position of this game's largest stored database
    took, else DISK_PER_POSITION; per visited slot where the positions cannot be counted
    (a game without un-moves)."""
    disk = stored_disk(game, root)
    positions = position_share(game, sym)
    if positions is not None:
        per = disk.per_position if disk and disk.per_position else DISK_PER_POSITION
        return int(positions.count * per)
    share = 1.0
    if sym:
        share = s.share if (s is not None and game.symmetry) else canonical_share(game)
    return int(game.hash_size * share * (disk.per_slot if disk else DISK_PER_SLOT))


def _methods(game: Game) -> list[str]:
    """The methods that may apply, without building a tier list (Connect-4 7x7 takes
    minutes): tiers where the game's class defines them (checked again before a solve)."""
    from solver.methods.registry import METHODS, method_module

    out = []
    for m in METHODS:
        if m == TIERED:
            if type(game_of(game)).tiers is not Game.tiers:
                out.append(m)
        elif method_module(m).applies(game):
            out.append(m)
    return out


def estimates(game: Game) -> list[Estimate]:
    """A plan for every method that applies, in ORDER."""
    from solver.methods.registry import applicable_methods

    have = available_memory()
    return [estimate(game, m, have) for m in applicable_methods(game)]


def default_method(game: Game | type[Game]) -> str:
    """The applicable method fastest by kind (the assumed rates, so that the same command
    picks the same method on every machine and every day) among those whose plan fits in
    memory (a method that does not fit is never the default; a plan past the horizon
    counts as not fitting unless none is within it). If nothing fits, the one that needs
    least memory (the solve is then refused with the numbers)."""
    from solver.methods.registry import applicable_methods

    if isinstance(game, type):
        methods = applicable_methods(game)
        return min(methods, key=lambda m: (1 / assumed_rate(game, m), ORDER.index(m)))
    methods = _methods(game)
    have = available_memory()
    plans = {m: estimate(game, m, have, plan_memory=False) for m in methods}
    while True:
        ok = [e for e in plans.values() if fits_memory(e) and e.in_time]
        if not ok:
            ok = [e for e in plans.values() if fits_memory(e)]
        if ok:
            best = min(ok, key=lambda e: (1 / assumed_rate(game, e.method),
                                          ORDER.index(e.method)))
        else:
            best = min(plans.values(), key=lambda e: (e.bytes, e.seconds))
        if best.method != TIERED or game.tiers() is not None:  # a variant without tiers
            return best.method
        del plans[TIERED]


def fits_memory(e: Estimate, budget: int | None = None) -> bool:
    """Whether the plan's memory fits: a tiered one within its budget (the tier manager
    cut its tasks so), every one within what this machine may use."""
    if e.method == TIERED:
        from solver.engine.memory import default_budget

        if e.bytes > (budget or e.budget or default_budget()):  # (the memory available
            # changes: a plan that fills its budget is judged by that budget)
            return False
        return e.available is None or e.bytes <= e.available
    return e.fits


def check_solve(game: Game, method: str | None = None, memory: int | None = None,
                workers: int = 0, no_time_limit: bool = False, root=None) -> Estimate:
    """The plan of this solve (`method` None: the default); GsolveError, in one line with
    the plan's figures and an option that would fit per the same plans, when its memory
    does not fit or (unless `no_time_limit`) it is planned past HORIZON. Builds no tier
    list and cuts no tasks for a solve that is past the horizon whatever the method, so a
    hopeless one is refused in seconds."""
    have = available_memory()

    def plan(m, budget=memory, sym=None, planned=no_time_limit):
        return estimate(game, m, have, budget=budget, workers=workers, root=root,
                        symmetry=sym, plan_memory=planned)

    cheap = {m: plan(m, planned=False) for m in ([method] if method else _methods(game))}
    if not no_time_limit and not any(e.in_time for e in cheap.values()):
        est = cheap[method] if method else min(cheap.values(), key=lambda e: e.seconds)
        _refuse(game, est, memory, workers, root, have, no_time_limit, too_long=True)
    method = method or default_method(game)
    est = plan(method, planned=True) if method == TIERED else cheap.get(method) or plan(method)
    too_long = not no_time_limit and not est.in_time
    if too_long or not fits_memory(est, memory):
        _refuse(game, est, memory, workers, root, have, no_time_limit, too_long)
    _check_disk(game, est, memory, workers, root, have)
    return est


DISK_SLACK = 1.1  # the planned disk times this must be free (the plan is a sample's count)


def free_disk(root=None) -> tuple[int, str] | None:
    """(bytes free, where) for a solve into `root`:
    the free space of the filesystem holding it (its nearest existing folder); None for a
    store URL or where it cannot be told."""
    import shutil

    from solver.storage.database import default_root

    where = root if root is not None else default_root()
    if "://" in str(where):
        return None
    path = os.path.abspath(str(where))
    while not os.path.isdir(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        return shutil.disk_usage(path).free, path
    except OSError:
        return None


def _written(path) -> int:
    """Bytes under `path` (a tiered solve's partial store, resumed: what it wrote counts)."""
    try:
        return sum(os.path.getsize(os.path.join(d, f))
                   for d, _dirs, files in os.walk(str(path)) for f in files)
    except OSError:
        return 0


def _check_disk(game, est, memory, workers, root, have) -> None:
    """GsolveError, with the figures and an option that fits, when the database planned
    will not fit the free space of its store (what a resumed solve wrote counts as its)."""
    from solver.storage.database import command, group_path, partial_path

    room = free_disk(root)
    if room is None or est.disk * DISK_SLACK < 1 << 20:
        return
    free, where = room
    path = group_path(root, game)
    need = max(0, int(est.disk * DISK_SLACK) - _written(partial_path(path)))
    if need <= free:
        return
    line = (f"{game.describe()} with {est.method}: planned {est.figures()}, more disk than "
            f"the {size(free)} free at {where}")
    if game.has_symmetry and not game.symmetry:
        other = estimate(game, est.method, have, budget=memory, workers=workers, root=root,
                         symmetry=True, plan_memory=False)
        if other.disk * DISK_SLACK <= free:
            words = ["--symmetry", "--method", est.method]
            raise GsolveError(f"{line}; `gsolve {command(game, path, *words)}` would fit: "
                              f"{size(other.disk)} disk")
    raise GsolveError(f"{line}; a --db on a disk with {size(need)} free would hold it")


def _refuse(game, est, memory, workers, root, have, no_time_limit, too_long) -> None:
    from solver.storage.database import command, group_path

    budget = memory
    if est.method == TIERED:
        from solver.engine.memory import default_budget

        budget = memory or default_budget()
    if too_long and est.bound and game.hash_size <= PLAN_SLOTS:
        est = estimate(game, est.method, have, budget=budget, workers=workers, root=root)
    if too_long:
        # --no-time-limit is named only where it would start the solve
        why = f"past the {HORIZON / 86400:.0f}-day limit" + (
            " (--no-time-limit starts it anyway)" if not est.bound and fits_memory(est, memory)
            else "" if est.bound else f" and {size(est.bytes)} does not fit in memory")
    elif est.method == TIERED:
        default = not memory or budget == default_budget()  # (solve() passes the default)
        why = (f"more than the {'default' if default else '--memory'} budget of "
               f"{size(budget)}" + ("" if not default or memory_source(have) == "available"
                                    else f" (of {size(have)} {memory_source(have)})"))
    else:
        why = (f"more than the {size(FIT * (have or 0))} it may use ({FIT:.0%} of "
               f"{size(have or 0)} {memory_source(have)})")
    line = (f"{game.describe()} with {est.method} ({game.hash_size:,} hash slots): planned "
            f"{est.figures()}, {why}")
    fit = _suggestion(game, est, memory, workers, root, have, no_time_limit)
    if fit is not None:
        words, other = fit
        line += (f"; `gsolve {command(game, group_path(root, game), *words)}` would fit: "
                 f"{other.figures()}")
    else:
        line += "; no method or option fits on this machine"
    raise GsolveError(line)


def _symmetric(game: Game) -> Numbering:
    """The same game numbered on canonical slots."""
    return Numbering.of(game, True)


def _suggestion(game, asked, memory, workers, root, have, no_time_limit):
    """The (option words, plan) that would fit, other than the plan asked for: the method
    asked for made to fit (--memory, --symmetry) before another method, the fastest first.
    Each is the plan a solve with those options makes (a --symmetry one samples the
    canonical game), so the solve it names passes this same check."""
    from solver.engine.memory import default_budget

    methods = _methods(game)
    syms = [game.symmetry] + ([True] if game.has_symmetry and not game.symmetry else [])
    found = []
    full = default_budget()
    for sym in syms:
        for m in methods:
            words = ["--method", m] if m != asked.method else []
            words += ["--symmetry"] if sym and not game.symmetry else []
            opts = {"workers": workers if m == TIERED else 0, "root": root}
            cheap = estimate(game, m, have, budget=memory if m == TIERED else None,
                             symmetry=sym, plan_memory=False, **opts)
            if not no_time_limit and not cheap.in_time:
                continue
            g = game if sym == game.symmetry else _symmetric(game)
            if m == TIERED:
                if g.tiers() is None:
                    continue
                budget = memory or full
                e = estimate(g, m, have, budget=budget, **opts)
                if memory and not fits_memory(e, memory) and e.bytes <= full:
                    gib = math.ceil(e.bytes / GIB * 10) / 10  # a --memory that holds it
                    budget = int(gib * GIB)
                    e = estimate(g, m, have, budget=budget, **opts)
                    words += ["--memory", f"{gib:g}"]
                if not fits_memory(e, budget):
                    continue
                if workers > 1:
                    words += ["--workers", str(workers)]
            else:
                e = estimate(g, m, have, **opts)
                if not e.fits:
                    continue
            if not words or not (no_time_limit or e.in_time):
                continue
            found.append((("--method" in words, len(words), e.seconds, ORDER.index(m)),
                          words, e))
    if not found:
        return None
    _, words, e = min(found, key=lambda f: f[0])
    return words, e


def long_note(game: Game, est: Estimate) -> str | None:
    """The line announcing a solve planned to take more than LONG seconds."""
    if est.seconds - est.compile < LONG:  # (a first run's compile: the progress says so)
        return None
    per_second = game.hash_size / max(est.seconds - est.compile, 1e-9)
    return (f"{game.describe()} with {est.method}: estimated {duration(est.seconds)} "
            f"({game.hash_size:,} hash slots at about {per_second:,.0f}/s; {est.source}), "
            f"{size(est.bytes)} memory, {size(est.disk)} disk")


def check_fits(game: Game, method: str) -> Estimate:
    """The plan of this solve; GsolveError, naming what would fit, if its memory does not
    fit or it is past the horizon (`gsolve bench`)."""
    return check_solve(game, method)
