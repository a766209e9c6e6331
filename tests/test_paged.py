"""The paged tier worker (solver/engine/paged.py): a task solved a part and a page at a
time writes the bytes of the full-speed worker, runs where the lean one would not fit,
and is refused only below a chunk of each array."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from checks import arrays
from test_tier_retro import LoopyHanoi

from games import get_game
from games.base import GsolveError
from solver.engine import lean, loopy, paged, paged_reach, plan, worker
from solver.engine.plan import BASE
from solver.methods.solve import solve
from solver.storage import database

# loopy tiers with pushes listing a child twice (quixo), drops then slides (teeko), ties
# spread inside a tier (quickchess KRkb), draws (baghchal, morris), and loop-free tiers
CASES = [("quixo", "size=3"), ("teeko", "size=3,pieces=3"),
         ("baghchal", "size=3,tigers=4,goats=4,captures=4"), ("morris", "men=3"),
         ("quickchess", "pieces=KRkb,width=3,height=4")]


@pytest.fixture
def small(monkeypatch):
    """Store chunks of 1,024 positions and tasks of 4,096 slots (child tiers come from the
    store), and every task paged in parts of 37 positions and pages of 101 slots; returns
    the (own, slots) of each paged call. The levels take parts of three fold parts."""
    monkeypatch.setattr(database, "CHUNK", 1 << 10)
    monkeypatch.setattr(plan, "MAX_TASK", 1 << 12)
    monkeypatch.setattr(plan, "MIN_TASK", 1 << 12)
    calls = []

    def sizes(game, own, slots, limit, chunk):
        calls.append((own, slots))
        return 37, 101, 111

    monkeypatch.setattr(paged, "sizes", sizes)
    return calls


def _paged(monkeypatch):
    """Every window past its limit, even the lean worker's: each task runs paged, its
    reach too, in parts of 37 positions and pages of 101 slots."""
    monkeypatch.setattr(worker, "slot_bytes", lambda game: 1 << 40)
    monkeypatch.setattr(worker, "lean_bytes", lambda *args: 1 << 50)
    monkeypatch.setattr(worker, "reach_paged", lambda *args: True)
    monkeypatch.setattr(paged_reach, "sizes", lambda own, slots, limit: (37, 101))


def _same(game, a, b) -> None:
    for x, y in zip(arrays(game, a), arrays(game, b), strict=True):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("name,variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_paged_writes_the_bytes_of_the_full_speed_worker(name, variant, small, tmp_path,
                                                         monkeypatch):
    game = get_game(name, variant)
    solve(game, "tiers", root=tmp_path / "fast")
    _paged(monkeypatch)
    solve(game, "tiers", root=tmp_path / "paged", memory=2 << 30)
    assert small and any(slots > 101 for _, slots in small)  # parts and pages, many
    _same(game, tmp_path / "fast", tmp_path / "paged")


@pytest.mark.parametrize("name,variant", [("quixo", "size=3"), ("morris", "men=3")])
def test_paged_on_the_pool_and_on_canonical_positions(name, variant, small, tmp_path,
                                                      monkeypatch):
    """Folds in blocks on two threads; a game solved on its canonical positions."""
    monkeypatch.setenv("GSOLVE_THREADS", "2")
    monkeypatch.setattr(lean, "SPLIT", 1)
    game = get_game(name, variant)
    solve(game, "tiers", root=tmp_path / "fast", symmetry=True)
    _paged(monkeypatch)
    solve(game, "tiers", root=tmp_path / "paged", memory=2 << 30, symmetry=True)
    assert small
    _same(game, tmp_path / "fast", tmp_path / "paged")


def test_a_paged_loopy_puzzle(small, tmp_path, monkeypatch):
    """A puzzle's loopy tier spreads WIN from the goal part by part: Hanoi's 2^n - 1."""
    game = LoopyHanoi(disks=5, pegs=3)
    solve(game, "tiers", root=tmp_path / "fast")
    _paged(monkeypatch)
    solve(game, "tiers", root=tmp_path / "paged", memory=2 << 30)
    assert small
    _same(game, tmp_path / "fast", tmp_path / "paged")
    value, rem = arrays(game, tmp_path / "paged")
    assert rem[game.start] == 2 ** 5 - 1


def test_a_task_past_the_lean_worker_runs_paged_within_its_memory(tmp_path, monkeypatch):
    """Teeko's loopy tier with less memory than the lean worker needs: planned and run
    paged (not refused), the same bytes; below a chunk of each array, refused up front."""
    monkeypatch.setattr(database, "CHUNK", 1 << 12)
    game = get_game("teeko", "")
    solve(game, "tiers", root=tmp_path / "fast")
    (lo, hi, kids), = [(t.start, t.stop, sum(game.tiers()[c].size for c in t.children
                                              if c != i))
                       for i, t in enumerate(game.tiers()) if i in t.children]
    lean_least = worker.lean_bytes(game, hi - lo, kids)
    limit = max(paged.least_bytes(game), lean_least // 2)
    assert limit < lean_least
    used = []
    real = paged.sizes

    def sizes(*args):
        used.append(real(*args))
        return used[-1]

    monkeypatch.setattr(paged, "sizes", sizes)
    solve(game, "tiers", root=tmp_path / "paged", memory=BASE + limit)
    assert used
    _same(game, tmp_path / "fast", tmp_path / "paged")
    with pytest.raises(GsolveError, match="more than the --memory budget"):
        solve(game, "tiers", root=tmp_path / "less", memory=BASE + paged.least_bytes(game) // 2)


def test_parts_and_pages_fit_the_limit():
    game = get_game("morris", "men=9")
    chunk = database.CHUNK
    rec = 2
    for limit in (paged.least_bytes(game), 1 << 30, 5 << 30):
        part, page, level = paged.sizes(game, 1 << 30, 3 << 30, limit, chunk)
        assert part >= chunk and page >= chunk and level >= part
        assert part * paged.state_bytes(game) + page * rec + paged.buffer_bytes(game) <= limit
        assert level * paged.level_bytes(game) + paged.buffer_bytes(game) <= limit


def test_a_killed_runs_scratch_is_removed(tmp_path, small, monkeypatch):
    """A paged task's scratch folder goes when it ends; one a killed process left (its pid
    gone) goes when the next paged task starts."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    left = tmp_path / "scratch" / f"gsolve-paged-{dead}-t3-abc"
    left.mkdir(parents=True)
    (left / "rec").write_bytes(b"x" * 100)
    monkeypatch.setenv("GSOLVE_SCRATCH", str(tmp_path / "scratch"))
    _paged(monkeypatch)
    solve(get_game("quixo", "size=3"), "tiers", root=tmp_path / "db", memory=2 << 30)
    assert small and os.listdir(tmp_path / "scratch") == []


def test_nine_runs_paged_within_8_gib():
    """Nine Men's Morris with symmetry, which the lean worker holds only in 11.4 GiB, is
    planned within 8 GiB: its largest loopy tier's solve paged."""
    from solver.kernels.symmetry import apply
    from solver.methods.estimate import tier_memory

    game = apply(get_game("morris", "men=9"), True)
    assert tier_memory(game, 8 << 30) <= 8 << 30
    assert loopy.retro_bytes(game, lean=True) > 0


def test_the_plan_counts_what_paging_costs():
    """Nine within 16 GiB runs no task paged: its plan's time is the timed one; within
    2 GiB its largest tasks run paged, each at least 2.6 times slower (measured)."""
    from solver.kernels.symmetry import apply
    from solver.methods.estimate import tier_plan

    game = apply(get_game("morris", "men=9"), True)
    assert tier_plan(game, 16 << 30)[1] == 1.0
    need, slow = tier_plan(game, 2 << 30)
    assert need <= 2 << 30 and 1.0 < slow < 2.6  # the small tasks are not paged
    assert paged.slowdown(2.0) == 2.6 and paged.slowdown(9.0) == 6.75


def test_the_loopy_tiers_benchmark_times_the_paged_worker():
    """benchmarks/loopy_tiers.py --paged N counts the positions its loopy tiers decided, as
    the lean run does."""
    from checks import benchmark

    bench = benchmark("loopy_tiers")
    lean = bench.run_case("teeko:size=3,pieces=3", False, lean=True)
    paged_row = bench.run_case("teeko:size=3,pieces=3", False, paged=3)
    assert paged_row["case"].endswith("--paged 3") and paged_row["tiers"] == lean["tiers"] > 0
    assert paged_row["positions"] == lean["positions"] > 0


def test_a_solve_says_when_its_tasks_run_paged(monkeypatch):
    """Before the work starts, a solve whose largest tasks will run paged says so, with
    what it costs; one at full speed says nothing."""
    from solver.engine import manager
    from solver.engine.plan import plan as make_plan
    from solver.runtime.progress import Progress

    class Notes(Progress):
        def __init__(self):
            self.lines = []

        def note(self, text):
            self.lines.append(text)

    monkeypatch.setattr(database, "CHUNK", 1 << 12)  # a paged task's least below the lean one
    game = get_game("teeko", "")
    (lo, hi, kids), = [(t.start, t.stop, sum(game.tiers()[c].size for c in t.children
                                              if c != i))
                       for i, t in enumerate(game.tiers()) if i in t.children]
    lean_least = worker.lean_bytes(game, hi - lo, kids)
    assert paged.least_bytes(game) < lean_least // 2
    said = Notes()
    manager.paged_note(game, make_plan(game, 1 << 34), said)
    assert said.lines == []
    manager.paged_note(game, make_plan(game, lean_least // 2), said)
    line, = said.lines
    assert "part at a time" in line and "--memory" in line and "times the time" in line
