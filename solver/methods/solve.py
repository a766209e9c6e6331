"""Solving a game variant with a chosen method and storing the result."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from games.base import Game, GsolveError
from solver.kernels.numbering import Numbering
from solver.methods import estimate, speed
from solver.methods.registry import method_module, resumable_method
from solver.runtime.progress import Progress
from solver.storage import stores
from solver.storage.database import (
    Database,
    DatabaseError,
    group_path,
    now,
    partial_path,
)


def default_method(game: Game | type[Game]) -> str:
    """The fastest applicable method that fits in memory (solver/methods/estimate.py)."""
    return estimate.default_method(game)


@dataclass
class SolveResult:
    game: str
    variant: str
    method: str
    path: Path
    reused: bool
    positions: int
    hash_size: int
    values: dict[str, int]
    start_value: str
    start_remoteness: int | None
    max_remoteness: int
    compile_seconds: float = 0.0
    solve_seconds: float = 0.0
    write_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def positions_per_second(self) -> float:
        return self.positions / self.solve_seconds if self.solve_seconds > 0 else float("inf")


def check_memory(game: Game, method: str):
    """Refuse, with the numbers and what would fit, a solve that cannot fit in memory;
    else return its estimate (solver/methods/estimate.py)."""
    return estimate.check_fits(game, method)


def _result(game, path, attrs, reused, **times) -> SolveResult:
    return SolveResult(
        game=game.name, variant=game.variant_key, method=attrs["method"], path=path,
        reused=reused, positions=attrs["positions"], hash_size=game.hash_size,
        values=attrs["values"], start_value=attrs["start_value"],
        start_remoteness=attrs["start_remoteness"], max_remoteness=attrs["max_remoteness"],
        **times)


def solve(game: Game, method: str | None = None, root: str | Path | None = None,
          force: bool = False, progress: Progress | None = None,
          wait: bool = False, memory: int | None = None, workers: int = 0,
          scheduler: str | None = None, symmetry: bool = False,
          no_time_limit: bool = False, borrow: str | None = None,
          strategy=None) -> SolveResult:
    """Solve `game` into the database under `root` unless a sound one is there.

    `symmetry`: solve canonical positions only (solver/kernels/symmetry.py; also when the game was
    set so already); a database solved with the other setting is solved again.

    Before anything is written, a solve whose plan does not fit in memory, or is past
    estimate.HORIZON (unless `no_time_limit`), is refused with the plan's figures and an
    option that would fit (estimate.check_solve).

    Holds the variant's one-writer lock throughout (solver.storage.stores): while another process
    solves the same variant this stops with a message naming it, or with `wait` waits."""
    from solver.storage.stores import writer_lock

    progress = progress or Progress()
    game = Numbering.of(game, symmetry)
    opts = {"memory": memory, "workers": workers, "scheduler": scheduler, "borrow": borrow,
            "strategy": strategy}  # strategy: a tiered solve's task modes (tests)
    method = choose_method(game, method, root, force, opts)
    est = None if _solved(group_path(root, game), game, force) else _plan(
        game, method, root, opts, no_time_limit)
    method = est.method if est else method or default_method(game)
    with writer_lock(group_path(root, game), game.describe(), wait,
                     lambda who: progress.update("waiting for", 1, who)):
        return _solve_locked(game, method, root, force, progress, opts, est)


def _solved(path, game: Game, force: bool) -> bool:
    """Whether a finished database of this setting seems to be there (then nothing is
    planned: it is checked and answered from under the lock)."""
    import json

    if force or not isinstance(path, Path):
        return False
    try:
        attrs = json.loads((path / "zarr.json").read_text()).get("attributes", {})
    except (OSError, ValueError):
        return False
    return bool(attrs.get("complete")) and bool(attrs.get("symmetry")) == game.symmetry


def choose_method(game: Numbering, method: str | None, root, force: bool,
                  opts: dict) -> str | None:
    """The method a solve uses, decided once: the one asked for; else the tiered one where
    an option of the tier manager is given (--memory, --workers, --scheduler, --borrow:
    solver/engine/manager.py) or an interrupted tiered solve waits to resume (unless
    `force`); else None: the default, which the plan picks. GsolveError (nothing written)
    where the method does not apply or the options go with another. Builds no tier list
    (the class says whether the game has tiers)."""
    tiered = resumable_method()
    opts = {k: v for k, v in opts.items() if v}
    has_tiers = method_module(tiered).applies(type(game.game))
    if method is None and has_tiers and (
            opts or not force and _resumable(group_path(root, game))):
        method = tiered
    if opts and method != tiered:
        raise GsolveError("--memory, --workers, --scheduler and --borrow apply to --method "
                          f"{tiered}" + ("" if has_tiers else f", which {game.name} lacks"))
    module = None if method is None else method_module(method)
    if module is not None and not module.applies(
            type(game.game) if module.WRITES_AS_IT_GOES else game):
        raise GsolveError(module.why_not(game))
    return method


def _plan(game: Numbering, method: str | None, root, opts: dict, no_time_limit: bool):
    """The plan of this solve (`method` None: the default's); GsolveError (nothing
    written) when it cannot finish."""
    from solver.engine.manager import default_budget

    module = None if method is None else method_module(method)
    workers = opts.get("workers") or 0
    return estimate.check_solve(game, method, opts.get("memory") or (
        default_budget() if module is not None and module.WRITES_AS_IT_GOES else None),
        workers, no_time_limit, root)


def _solve_locked(game: Numbering, method: str, root: str | Path | None, force: bool,
                  progress: Progress, tier_opts: dict | None = None,
                  est=None) -> SolveResult:
    """The solve, under the variant's writer lock, by the method `choose_method` chose."""
    tier_opts = {k: v for k, v in (tier_opts or {}).items() if v}
    module = method_module(method)
    if not module.applies(game):  # (the instance: a tiered game's variant may have none)
        raise GsolveError(module.why_not(game))
    path = group_path(root, game)
    if not force:
        try:
            db = Database(path, game)  # the checks a query makes on open, and more:
            db.check_all_chunks()  # "already solved" only for a database that reads back
            db.check_start()  # and whose start decodes as the summary says
            if db.symmetric != game.symmetry:
                raise _OtherSymmetry
            return _result(game, path, db.attrs, True,
                           solve_seconds=float(db.attrs.get("solve_seconds", 0.0)))
        except _OtherSymmetry:
            pass
        except DatabaseError:
            if (path / "zarr.json").exists() and not _unfinished(path):
                raise
    if est is None or est.method != method:  # (solve() plans before taking the lock)
        est = estimate.check_solve(game, method, tier_opts.get("memory"),
                                   tier_opts.get("workers", 0), True, root)
    _announce(game, est, progress)
    started = now()
    t0 = time.perf_counter()
    from solver.engine.manager import default_budget, on_cluster

    local = not on_cluster(tier_opts.get("workers", 0), tier_opts.get("scheduler"))
    # what this machine's speed is measured by: a local solve not held under the default
    # budget by --memory (tight, it measures the budget: Connect-4 5x4 at 0.41 GiB takes
    # 60 times its time at full size)
    measures = local and (
        not tier_opts.get("memory") or tier_opts["memory"] >= default_budget())
    # the index of a compact game is found here: solving, not loading, so its time and
    # CPU are taken off the load and counted in the solve
    ti, ci = time.perf_counter(), _cpu()
    plain, game = game, numbered(game, None if force else partial_path(path))
    ti, ci = time.perf_counter() - ti, _cpu() - ci
    if local:
        progress.stage("loading compiled kernels (a game's first run compiles them: "
                       "up to minutes)")
        tw = time.perf_counter()
        module.warm_up(game)  # (a cluster's workers load their own, as it starts)
        speed.record_compile(plain, method, time.perf_counter() - tw)
    t1, c1 = time.perf_counter() - ti, _cpu() - ci
    # a resumed or stopped solve did part of the work (`run["share"]`)
    whole = not (partial_path(path).exists() and not force)
    run: dict = {"since": t1}
    try:
        attrs = module.solve_into(game, path, progress, method=method, started=started,
                                  fresh=force, run=run,
                                  check=_self_check(game, path, module.WRITES_AS_IT_GOES),
                                  **tier_opts)
    except BaseException:  # stopped: what it did still measures this machine
        if measures:
            with contextlib.suppress(Exception):
                speed.record_speed(plain, method, time.perf_counter() - t1, _cpu() - c1,
                                   share=run.get("share", 0.0))
        raise
    t2 = time.perf_counter()
    if measures:  # (a cluster's CPU time is its workers': not here; a whole-hash method's
        # time includes writing, as its plan does)
        # (tasks borrowed from another store: their work was not done here)
        whole = whole and not (attrs.get("runs") or [{}])[-1].get("borrowed_tasks")
        speed.record_speed(plain, method, t2 - t1, _cpu() - c1,
                           share=1.0 if whole else run.get("share", 0.0))
    attrs["method"] = method
    result = _result(plain, path, attrs, False, compile_seconds=t1 - t0,
                     solve_seconds=run.get("solve_seconds", t2 - t1),
                     write_seconds=run.get("write_seconds", 0.0))
    for key in ("peak_memory_bytes", "runs", "wall_seconds_all_runs", "cpu_seconds_all_runs",
                "peak_memory_bytes_all_runs"):
        if key in attrs:
            result.extra[key] = attrs[key]
    partial = partial_path(path)
    if not module.WRITES_AS_IT_GOES and partial.exists():  # an interrupted tiered solve,
        stores.remove(partial)  # superseded by this one
        result.extra["removed_partial"] = str(partial)
    return result


def _self_check(game: Game, path, tiered: bool):
    """What a solve's store must pass before it is marked complete: its value counts, its
    start and a sample re-derived from their children (solver/methods/verify.py)."""
    from solver.methods.verify_sample import store_check  # (a solve that finds its database
    # solved imports none of it)

    return store_check(game, path, tiered)


def numbered(game: Numbering, partial=None) -> Numbering:
    """The numbering the methods solve: with symmetry, the compact one (canonical positions
    only, each at its own index: solver/kernels/compact.py), else `game` itself. The
    index is read from the store of an interrupted solve at `partial` when it has one
    (finding it again costs Six 11 CPU seconds), else found."""
    if not game.symmetry:
        return game
    if partial is not None and isinstance(partial, Path) and (partial / "zarr.json").exists():
        from solver.kernels.numbering import stored_index

        try:
            index = stored_index(stores.open_group(partial, "r"), game.game)
            if index is not None:
                return game.compact(index)
        except Exception:  # damaged or foreign: the solve judges the store itself
            pass
    return game.compact()


def _cpu() -> float:
    """CPU seconds this process (all its threads) has used."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


class _OtherSymmetry(Exception):
    """The database there was solved with the other symmetry setting: solve again."""


def _resumable(path: Path) -> bool:
    """Whether an interrupted tiered solve waits at `<path>.partial` with no database."""
    return (partial_path(path) / "zarr.json").exists() and not (path / "zarr.json").exists()


def _announce(game: Game, est, progress: Progress) -> None:
    """Say before a long solve starts how long it should take; give progress the ETA."""
    progress.expect(est.seconds)
    note = estimate.long_note(game, est)
    if note:
        progress.note(note)


def _unfinished(path: Path) -> bool:
    import json

    try:
        meta = json.loads((path / "zarr.json").read_text())
        return not meta.get("attributes", {}).get("complete", False)
    except (OSError, ValueError):
        return False
