"""The modes of the tier worker, chosen by the memory model (solver/engine/memory.py) or
forced by a strategy handed to the solve: each writes the bytes of the full-speed one.
The paged ones (solver/engine/paged.py), a part and a page at a
time, run where the lean one would not fit, and are refused only below a chunk of each
array."""

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
from solver.engine import levels, memory, paged, plan
from solver.engine.memory import BASE, FAR, FAST, LEAN, PAGED, WINDOW, Strategy
from solver.engine.task import window
from solver.methods.solve import solve
from solver.storage import database

PARTS = (37, 101, 111)  # paged parts of 37 positions, pages of 101 slots, levels of 111
ALL_PAGED = Strategy(PAGED, PAGED, parts=PARTS)  # every task's reach and solve paged

# loopy tiers with pushes listing a child twice (quixo), drops then slides (teeko), ties
# spread inside a tier (quickchess KRkb), draws (baghchal, morris), and loop-free tiers
CASES = [("quixo", "size=3"), ("teeko", "size=3,pieces=3"),
         ("baghchal", "size=3,tigers=4,goats=4,captures=4"), ("morris", "men=3"),
         ("quickchess", "pieces=KRkb,width=3,height=4")]


@pytest.fixture
def small(monkeypatch):
    """Store chunks of 1,024 positions and tasks of 4,096 slots (child tiers come from the
    store); returns the (own, slots) of each paged solve of a task and counts its paged
    reaches in `reaches`."""
    monkeypatch.setattr(database, "CHUNK", 1 << 10)
    monkeypatch.setattr(plan, "MAX_TASK", 1 << 12)
    monkeypatch.setattr(plan, "MIN_TASK", 1 << 12)
    calls = Calls()
    real_solve, real_reach = paged.solve, paged.reach

    def solved(game, group, task, segments, *args):
        calls.append((task.size, window(task, segments)[4]))
        return real_solve(game, group, task, segments, *args)

    def reached(*args):
        calls.reaches += 1
        return real_reach(*args)

    monkeypatch.setattr(paged, "solve", solved)
    monkeypatch.setattr(paged, "reach", reached)
    return calls


class Calls(list):
    reaches = 0


def _same(game, a, b) -> None:
    for x, y in zip(arrays(game, a), arrays(game, b), strict=True):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("name,variant", CASES, ids=[f"{n}-{v}" for n, v in CASES])
def test_paged_writes_the_bytes_of_the_full_speed_worker(name, variant, small, tmp_path):
    game = get_game(name, variant)
    solve(game, "tiers", root=tmp_path / "fast")
    assert not small and not small.reaches  # at full speed nothing runs paged
    solve(game, "tiers", root=tmp_path / "paged", memory=2 << 30, strategy=ALL_PAGED)
    assert small and any(slots > 101 for _, slots in small)  # parts and pages, many
    assert small.reaches == len(small)  # each task's reach paged too
    _same(game, tmp_path / "fast", tmp_path / "paged")


@pytest.mark.parametrize("name,variant", [("quixo", "size=3"), ("morris", "men=3")])
def test_paged_on_the_pool_and_on_canonical_positions(name, variant, small, tmp_path,
                                                      monkeypatch):
    """Folds in blocks on two threads; a game solved on its canonical positions."""
    monkeypatch.setenv("GSOLVE_THREADS", "2")
    monkeypatch.setattr(levels, "SPLIT", 1)
    game = get_game(name, variant)
    solve(game, "tiers", root=tmp_path / "fast", symmetry=True)
    solve(game, "tiers", root=tmp_path / "paged", memory=2 << 30, symmetry=True,
          strategy=ALL_PAGED)
    assert small
    _same(game, tmp_path / "fast", tmp_path / "paged")


def test_a_paged_loopy_puzzle(small, tmp_path):
    """A puzzle's loopy tier spreads WIN from the goal part by part: Hanoi's 2^n - 1."""
    game = LoopyHanoi(disks=5, pegs=3)
    solve(game, "tiers", root=tmp_path / "fast")
    solve(game, "tiers", root=tmp_path / "paged", memory=2 << 30, strategy=ALL_PAGED)
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
    lean_least = memory.lean_bytes(game, hi - lo, kids)
    limit = max(memory.paged_least_bytes(game), lean_least // 2)
    assert limit < lean_least
    assert memory.strategy(game, hi - lo, kids, limit).solve == PAGED
    used = []
    real = memory.paged_sizes

    def sizes(*args):  # what the paged solve takes within the limit
        used.append(real(*args))
        return used[-1]

    monkeypatch.setattr(memory, "paged_sizes", sizes)
    solve(game, "tiers", root=tmp_path / "paged", memory=BASE + limit)
    assert used
    _same(game, tmp_path / "fast", tmp_path / "paged")
    with pytest.raises(GsolveError, match="more than the --memory budget"):
        solve(game, "tiers", root=tmp_path / "less",
              memory=BASE + memory.paged_least_bytes(game) // 2)


def test_parts_and_pages_fit_the_limit():
    game = get_game("morris", "men=9")
    chunk = database.CHUNK
    rec = 2
    buffers = memory.paged_buffer_bytes(game)
    for limit in (memory.paged_least_bytes(game), 1 << 30, 5 << 30):
        part, page, level = memory.paged_sizes(game, 1 << 30, 3 << 30, limit, chunk)
        assert part >= chunk and page >= chunk and level >= part
        assert part * memory.paged_state_bytes(game) + page * rec + buffers <= limit
        assert level * memory.paged_level_bytes(game) + buffers <= limit


def test_a_killed_runs_scratch_is_removed(tmp_path, small, monkeypatch):
    """A paged task's scratch folder goes when it ends; one a killed process left (its pid
    gone) goes when the next paged task starts."""
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    left = tmp_path / "scratch" / f"gsolve-paged-{dead}-t3-abc"
    left.mkdir(parents=True)
    (left / "rec").write_bytes(b"x" * 100)
    monkeypatch.setenv("GSOLVE_SCRATCH", str(tmp_path / "scratch"))
    solve(get_game("quixo", "size=3"), "tiers", root=tmp_path / "db", memory=2 << 30,
          strategy=ALL_PAGED)
    assert small and os.listdir(tmp_path / "scratch") == []


def test_nine_runs_paged_within_8_gib():
    """Nine Men's Morris with symmetry, which the lean worker holds only in 11.4 GiB, is
    planned within 8 GiB: its largest loopy tier's solve paged."""
    from solver.kernels.numbering import Numbering
    from solver.methods.estimate import tier_memory

    game = Numbering(get_game("morris", "men=9"), True)
    assert tier_memory(game, 8 << 30) <= 8 << 30
    assert memory.retro_bytes(game, lean=True) > 0


def test_the_plan_counts_what_paging_costs():
    """Nine within 16 GiB runs no task paged: its plan's time is the timed one; within
    2 GiB its largest tasks run paged, each at least 2.6 times slower (measured)."""
    from solver.kernels.numbering import Numbering
    from solver.methods.estimate import tier_plan

    game = Numbering(get_game("morris", "men=9"), True)
    assert tier_plan(game, 16 << 30)[1] == 1.0
    need, slow = tier_plan(game, 2 << 30)
    assert need <= 2 << 30 and 1.0 < slow < 2.6  # the small tasks are not paged
    assert memory.paged_slowdown(2.0) == 2.6 and memory.paged_slowdown(9.0) == 6.75


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
    lean_least = memory.lean_bytes(game, hi - lo, kids)
    assert memory.paged_least_bytes(game) < lean_least // 2
    said = Notes()
    manager.paged_note(game, make_plan(game, 1 << 34), said)
    assert said.lines == []
    manager.paged_note(game, make_plan(game, lean_least // 2), said)
    line, = said.lines
    assert "part at a time" in line and "--memory" in line and "times the time" in line


MODES = [(r, m) for r in (WINDOW, FAR, PAGED) for m in (FAST, LEAN, PAGED)]


@pytest.mark.parametrize("name,variant", [("quixo", "size=3"), ("connect4", "width=4,height=3")])
@pytest.mark.parametrize("reach,solve_mode", MODES, ids=[f"{r}-{m}" for r, m in MODES])
def test_every_mode_writes_the_bytes_of_the_full_speed_worker(name, variant, reach,
                                                              solve_mode, tmp_path,
                                                              monkeypatch):
    """Each reach mode with each solve mode, forced on every task (a loopy game with
    un-moves, and a loop-free one), writes the bytes the modes the model chooses write;
    the modules of those modes are the ones that ran."""
    from solver.engine import far, loopy, window

    monkeypatch.setattr(database, "CHUNK", 1 << 10)
    monkeypatch.setattr(plan, "MAX_TASK", 1 << 12)
    monkeypatch.setattr(plan, "MIN_TASK", 1 << 12)
    game = get_game(name, variant)
    solve(game, "tiers", root=tmp_path / "chosen")
    ran = set()

    def spy(module, attr, label):
        real = getattr(module, attr)

        def counted(*args, **kw):
            ran.add(label)
            return real(*args, **kw)

        monkeypatch.setattr(module, attr, counted)

    spy(window, "reach", WINDOW)
    spy(far, "reach", FAR)
    spy(paged, "reach", "reach-paged")
    spy(paged, "solve", "solve-paged")
    real = window.solve
    monkeypatch.setattr(window, "solve", lambda *a, **kw: (
        ran.add(LEAN if a[4] else FAST), real(*a, **kw))[1])
    if solve_mode == LEAN and game.loopy:
        spy(loopy, "lean_propagate", "lean-levels")
    forced = Strategy(reach, solve_mode, parts=PARTS)
    solve(game, "tiers", root=tmp_path / "forced", memory=2 << 30, strategy=forced)
    want = {reach if reach != PAGED else "reach-paged",
            solve_mode if solve_mode != PAGED else "solve-paged"}
    if solve_mode == LEAN and game.loopy:
        want.add("lean-levels")
    assert ran == want
    _same(game, tmp_path / "chosen", tmp_path / "forced")


def test_the_model_chooses_what_the_plan_counts():
    """One function chooses a task's modes for the worker and sizes them for the plan:
    as the limit shrinks the reach goes from its window to far children to paged and the
    solve from fast to lean to paged, each planned within the limit where it can be."""
    game = get_game("quixo", "size=4")
    own, kids = 1 << 22, 1 << 28  # far children (at most FAN * own) less than the window
    full = memory.strategy(game, own, kids)
    assert (full.reach, full.solve, full.slowdown) == (WINDOW, FAST, 1.0)
    seen = set()
    for limit in np.geomspace(1 << 20, 1 << 40, 120).astype(np.int64).tolist():
        s = memory.strategy(game, own, kids, limit)
        seen.add((s.reach, s.solve))
        if s.solve != PAGED:
            assert s.slowdown == 1.0
            assert s.bytes <= max(limit, full.bytes)
        else:
            least = memory.paged_least_bytes(game)
            assert s.solve_bytes == max(limit, least)
            assert s.slowdown >= 2.6 or limit < least  # (else refused: no time)
    assert {r for r, _ in seen} == {WINDOW, FAR, PAGED}
    assert {m for _, m in seen} == {FAST, LEAN, PAGED}
    assert memory.least_bytes(game, own, kids) == max(memory.reach_least_bytes(game),
                                                       memory.paged_least_bytes(game))
    forced = memory.strategy(game, own, kids, 1 << 30, forced=Strategy(solve=FAST))
    assert forced.solve == FAST and forced.reach == memory.strategy(
        game, own, kids, 1 << 30).reach
