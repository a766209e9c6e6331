"""Loopy tiers solved by retrograde through un-moves (solver/kernels/tier_retro.py) give
the records of the in-tier sweeps they replace, byte for byte, and the reference's."""

from __future__ import annotations

import numpy as np
import pytest
import ref_quickchess
import ref_teeko
import reference
from checks import arrays, assert_matches_reference

from games import get_game
from games.base import GsolveError, Tier
from games.hanoi import Hanoi
from solver.engine import levels, loopy, manager, memory, window, worker
from solver.engine.memory import BASE
from solver.engine.plan import plan
from solver.kernels.codegen import kernels
from solver.kernels.numbering import Numbering
from solver.kernels.records import LOSE, SHIFT, TIE, VALUE_MASK, VISITED, WIN
from solver.methods.solve import solve


class LoopyHanoi(Hanoi):
    """Hanoi as one loopy tier: a tiered puzzle with un-moves (no shipped game is one)."""

    def tiers(self):
        return [Tier("all", 0, self.hash_size, (0,))]


def _sweeps(game, win, seg, lo, hi, obase, bad, lean=False):
    k = kernels(game.module, worker.TEMPLATE)
    loopy.sweeps(k, game, win, seg, lo, hi, obase, bad)


def _retro_and_sweeps(game, monkeypatch, lean=False):
    """Records of a tiers solve with the retrograde (the lean worker when `lean`), then
    with the sweeps; and how many loopy tiers the retrograde solved."""
    calls = []
    retro = loopy.retrograde

    def counted(*args):
        calls.append(args[3:5])
        retro(*args[:7], lean)

    monkeypatch.setattr(loopy, "retrograde", counted)
    a = manager.solve(game)
    monkeypatch.setattr(loopy, "retrograde", _sweeps)
    b = manager.solve(game)
    return a, b, len(calls)


# loopy tiered games with un-moves: pushes listing a child twice (quixo), drops then
# slides (teeko), ties (quickchess), draws (baghchal, morris, rubikscheckers)
CASES = [("quixo", "size=3"), ("teeko", "size=3,pieces=3"), ("baghchal", ""),
         ("baghchal", "size=3,tigers=4,goats=4,captures=4"), ("morris", "men=3"),
         ("quickchess", "pieces=KQk,width=4,height=4"), ("rubikscheckers", "")]


@pytest.fixture(params=["1", "2"], ids=["serial", "pool"])
def threads(request, monkeypatch):
    """One thread: the serial propagation kernels; more: parents gathered on the pool,
    and (in tiers of any size) events sorted in blocks and parents applied by range; in
    small batches, so that a batch's parents are gathered while the last batch's apply."""
    monkeypatch.setenv("GSOLVE_THREADS", request.param)
    if request.param != "1":
        monkeypatch.setattr(loopy, "SPLIT", 1)
        monkeypatch.setattr(levels, "SPLIT", 1)
        monkeypatch.setattr(loopy, "BATCH", 40)
        monkeypatch.setattr(loopy, "GATHER", 7)
    return request.param


@pytest.fixture(params=[False, True], ids=["fast", "lean"])
def worker_kind(request):
    """The fast retrograde (sorted events, a frontier queue) or the lean one (levels
    found by scanning the tier: solver/engine/levels.py)."""
    return request.param


@pytest.mark.parametrize("name,variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_retrograde_writes_the_bytes_of_the_sweeps(name, variant, threads, worker_kind,
                                                   monkeypatch):
    game = get_game(name, variant)
    assert game.has_parents
    a, b, loopy = _retro_and_sweeps(game, monkeypatch, worker_kind)
    assert loopy > 0
    values = np.bincount(a & VALUE_MASK, minlength=8)
    assert values[WIN] and values[LOSE]
    assert np.array_equal(a, b)


def test_ties_spread_inside_a_tier(threads, worker_kind, monkeypatch):
    """Quick chess: TIE positions decided by a tie child of their own loopy tier (the
    retrograde's parent walk, not only its events from other tiers), as the sweeps do."""
    game = get_game("quickchess", "pieces=KRkb,width=3,height=4")
    a, b, _ = _retro_and_sweeps(game, monkeypatch, worker_kind)
    assert np.array_equal(a, b)
    loopy = [t for i, t in enumerate(game.tiers()) if i in t.children]
    inside = 0
    for h in np.flatnonzero(((a & VALUE_MASK) == TIE) & ((a >> SHIFT) >= 2)).tolist():
        tier = next((t for t in loopy if t.start <= h < t.stop), None)
        if tier is not None:
            want = TIE | ((int(a[h]) >> SHIFT) - 1) << SHIFT
            inside += any(tier.start <= c < tier.stop and int(a[c]) & ~VISITED == want
                          for _, c in game.moves(h))
    assert inside > 0


def test_loopy_tiered_puzzle(threads, worker_kind, monkeypatch, tmp_path):
    """A puzzle's loopy tier spreads WIN from the goal: Hanoi's 2^n - 1 and every
    position's distance, against the sweeps and the reference."""
    game = LoopyHanoi(disks=4, pegs=3)
    a, b, loopy = _retro_and_sweeps(game, monkeypatch, worker_kind)
    assert loopy == 1 and np.array_equal(a, b)
    solve(game, "tiers", root=tmp_path)
    assert_matches_reference(game, tmp_path, reference.solve(reference.Hanoi(4, 3)))
    assert int(a[game.start]) >> SHIFT == 2 ** 4 - 1


@pytest.mark.parametrize("name,variant,ref", [
    ("teeko", "size=3,pieces=3", lambda g: ref_teeko.Teeko(3, 3)),
    ("quickchess", "pieces=KQk,width=4,height=4",
     lambda g: ref_quickchess.QuickChess(g.variant["pieces"], g.width, g.height)),
])
def test_retrograde_tiers_match_reference(name, variant, ref, tmp_path):
    game = get_game(name, variant)
    solve(game, "tiers", root=tmp_path)
    assert_matches_reference(game, tmp_path, reference.solve(ref(game)))


@pytest.mark.parametrize("symmetry", [False, True], ids=["all", "canonical"])
def test_loopy_tiers_side_by_side_write_the_bytes_of_one_thread(symmetry, tmp_path,
                                                                 monkeypatch):
    """Loopy tiers of one level solved at once, a thread each (engine/window.py, run_apart),
    write what one thread writes; the test sees groups of several tiers run (Quixo: a
    level is a count of cubes, up to 9 tiers)."""
    from solver.runtime import parallel

    game = get_game("quixo", "size=3")
    monkeypatch.setenv("GSOLVE_THREADS", "1")
    solve(game, "tiers", root=tmp_path / "one", symmetry=symmetry)
    monkeypatch.setenv("GSOLVE_THREADS", "2")
    groups = []
    real = parallel.run_apart

    def counted(fn, calls):
        groups.append(len(calls))
        return real(fn, calls)

    monkeypatch.setattr(window, "run_apart", counted)
    solve(game, "tiers", root=tmp_path / "two", symmetry=symmetry)
    assert max(groups, default=0) > 1
    for x, y in zip(arrays(game, tmp_path / "one"), arrays(game, tmp_path / "two"),
                    strict=True):
        assert np.array_equal(x, y)


def test_side_by_side_groups_a_levels_loopy_tiers_largest_first():
    """Each level's loopy runs up to `small` in one group, largest first; a run larger
    than its share of the group's threads, a loop-free run, and a larger run alone."""
    from solver.engine.task import Task, runs, side_by_side

    pieces = ((0, 0, 10, True), (1, 10, 40, True), (2, 40, 45, True), (3, 45, 50, False),
              (4, 50, 90, True), (5, 90, 105, True), (6, 105, 125, True), (7, 125, 137, True))
    task = Task(0, 0, 137, pieces, ((0, 137),), (0, 0, 0, 0, 1, 1, 1, 1))
    got = [[r[0] for r in g] for g in side_by_side(task, runs(task), 35, 2)]
    # level 0: 30 of 45 slots is more than a thread's share, and so 10 of the 15 left,
    # then 5 alone; the loop-free run; level 1: 40 slots is past `small`, then 20, 15 and
    # 12 slots, none past its share of 47
    assert got == [[10], [0], [40], [45], [50], [105, 90, 125]]


def test_counters_are_in_the_memory_estimate():
    """The retrograde arrays are counted in a window slot's bytes where they are used."""
    with_parents = get_game("quixo", "size=3")
    assert memory.retro_bytes(with_parents) >= 1 + 2 + 4 + 4
    assert memory.retro_bytes(get_game("topitop", "")) == 0  # loopy, no un-moves


def test_a_tier_past_the_memory_runs_lean_to_the_same_bytes(tmp_path, monkeypatch):
    """A task whose loopy tier passes its memory at full speed is solved by the lean
    worker, not refused, and writes what the full-speed solve writes."""
    game = get_game("teeko", "")
    solve(game, "tiers", root=tmp_path / "fast")
    (lo, hi, kids), = [(t.start, t.stop, sum(game.tiers()[c].size for c in t.children
                                              if c != i))
                       for i, t in enumerate(game.tiers()) if i in t.children]
    fast = memory.slot_bytes(game) * (hi - lo + kids)
    least = memory.lean_bytes(game, hi - lo, kids)
    limit = (fast + least) // 2
    assert least < limit < fast
    runs = []
    real = loopy.lean_propagate

    def counted(*args):
        runs.append(args[5:7])
        real(*args)

    monkeypatch.setattr(loopy, "lean_propagate", counted)
    solve(game, "tiers", root=tmp_path / "lean", memory=BASE + limit)
    assert (lo, hi) in runs
    for x, y in zip(arrays(game, tmp_path / "fast"), arrays(game, tmp_path / "lean"),
                    strict=True):
        assert np.array_equal(x, y)
    with pytest.raises(GsolveError, match="more than the --memory budget"):  # up front
        solve(game, "tiers", root=tmp_path / "less", memory=BASE + least // 2)


def test_nine_mens_morris_with_symmetry_plans_within_a_16_gib_worker():
    """Nine's largest loopy tier (1.2 G canonical positions) is one task: the plan holds
    it, lean, in a 16 GiB worker, where at full speed it would need 50 GiB and more."""
    game = Numbering(get_game("morris", "men=9"), True).compact()
    budget = 16 << 30
    p = plan(game, budget - BASE)
    assert p.largest + BASE <= budget
    big = max((i for i, t in enumerate(p.tiers) if i in t.children),
              key=lambda i: p.tiers[i].size)
    assert p.tiers[big].label == "move W8 B8" and p.tiers[big].size > 1_200_000_000
    task, = [t for t in p.tasks if any(x == big for x, *_ in t.pieces)]
    kids = sum(e - s for s, e in task.segments) - task.size
    assert memory.strategy(game, task.size, kids).bytes > 50 << 30
    manager.check_budget(game, p, budget, 0)  # not refused
