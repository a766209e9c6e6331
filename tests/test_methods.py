"""Every applicable method writes the same bytes, on every game in the package."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from hooked import command as hooked

from games import available, get_game
from games.base import GsolveError, Tier
from games.tictactoe import TicTacToe
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.storage.database import Database

# variants small enough to solve with every method in a few seconds
MATRIX_VARIANTS = {
    "connect4": "width=4,height=4,connect=3",
    "hanoi": "disks=4,pegs=3",
    "morris": "men=3",
    "quarto": "size=2,attributes=4",
    "quixo": "size=3",
    "teeko": "size=3,pieces=3",
}


def arrays(game, root):
    db = Database.open(game, root)
    return db.value_array[:], db.remoteness_array[:]


@pytest.mark.parametrize("name", available())
def test_all_methods_identical(name, tmp_path):
    game = get_game(name, MATRIX_VARIANTS.get(name))
    methods = applicable_methods(game)
    assert "bottomup" in methods and "retrograde" in methods
    assert ("dfs" in methods) == (not game.loopy)
    assert ("tiers" in methods) == (game.tiers() is not None)
    base = None
    for method in methods:
        root = tmp_path / method
        solve(game, method, root=root)
        got = arrays(game, root)
        assert got[0].dtype == np.uint8
        if base is None:
            base = got
            continue
        assert got[1].dtype == base[1].dtype, method
        assert np.array_equal(got[0], base[0]), f"{name}: {method} values differ"
        assert np.array_equal(got[1], base[1]), f"{name}: {method} remoteness differs"


@pytest.mark.parametrize("name", ["connect4", "quixo", "teeko", "hanoi", "morris"])
def test_bottomup_sweep_order_and_threads(name, monkeypatch):
    """Bottom-up decides a position outright once its children are all decided, so how
    far decisions cascade within a sweep depends on the sweep order and on the threads
    racing over blocks: the records must not. One thread (blocks strictly in order) and
    two threads on small blocks agree with retrograde, on loop-free and loopy games. In
    teeko some positions are decided only after a sweep that decided nothing (their
    child was decided early): a phase that ended there would leave them draws."""
    from solver.methods import bottomup, retrograde
    from solver.runtime import parallel

    game = get_game(name, MATRIX_VARIANTS.get(name))
    want = retrograde.solve(game)
    monkeypatch.setenv("GSOLVE_THREADS", "1")
    assert np.array_equal(bottomup.solve(game), want)
    monkeypatch.setenv("GSOLVE_THREADS", "2")
    real = parallel.run_blocks
    monkeypatch.setattr(bottomup, "run_blocks",
                        lambda *a, **k: real(*a, **{**k, "min_block": 64}))
    assert np.array_equal(bottomup.solve(game), want)


class OneLoopyTier(TicTacToe):
    """Tic-tac-toe declared as a single tier that contains its own children: exercises the
    tier solver's in-tier fixed-point sweeps."""

    def tiers(self):
        return [Tier("all", 0, self.hash_size, (0,))]


class SplitTiers(TicTacToe):
    """Two tiers, the first loopy-declared, the second not: mixes both tier paths."""

    def tiers(self):
        mid = int(self.hash.offsets[5])  # boards with 5+ pieces
        return [Tier("early", 0, mid, (0, 1)), Tier("late", mid, self.hash_size, (1,))]


@pytest.mark.parametrize("cls", [OneLoopyTier, SplitTiers])
def test_loopy_tier_sweeps_match(cls, tmp_path):
    plain = TicTacToe()
    solve(plain, "bottomup", root=tmp_path / "a")
    odd = cls()
    solve(odd, "tiers", root=tmp_path / "b")
    for x, y in zip(arrays(plain, tmp_path / "a"), arrays(odd, tmp_path / "b"), strict=True):
        assert np.array_equal(x, y)


def test_inapplicable_methods_are_clear_errors(tmp_path):
    loopy = [n for n in available() if get_game(n, MATRIX_VARIANTS.get(n)).loopy]
    for name in loopy:
        game = get_game(name, MATRIX_VARIANTS.get(name))
        with pytest.raises(GsolveError, match="loopy"):
            solve(game, "dfs", root=tmp_path)
    untiered = [n for n in available() if get_game(n, MATRIX_VARIANTS.get(n)).tiers() is None]
    for name in untiered:
        with pytest.raises(GsolveError, match="does not define tiers"):
            solve(get_game(name, MATRIX_VARIANTS.get(name)), "tiers", root=tmp_path)


def test_dfs_detects_a_cycle_the_game_did_not_declare(tmp_path):
    from solver.methods import dfs

    class Undeclared(TicTacToe):
        pass

    # a loopy game declared loop-free must still be caught: use hanoi if present
    if "hanoi" not in available():
        pytest.skip("needs a loopy game")
    game = get_game("hanoi", "disks=2,pegs=3")
    with pytest.raises(GsolveError, match="loopy"):
        dfs.solve(game)


def test_interrupted_tier_solve_resumes_to_the_same_arrays(tmp_path):
    """Kill a tiers solve between tiers (SIGKILL), run it again: it resumes and finishes
    with the same arrays as an uninterrupted solve."""
    game = get_game("tictactoe")
    root = tmp_path / "db"
    env = dict(os.environ, GSOLVE_DB=str(root))
    args = ["tictactoe", "--method", "tiers", "--quiet"]
    proc = subprocess.Popen([*hooked("--pause", "0.4"), *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    meta = root / "tictactoe" / "default.partial" / "zarr.json"
    deadline = time.time() + 120
    done = []
    while time.time() < deadline:
        try:
            done = json.loads(meta.read_text())["attributes"].get("tiers_done", [])
        except (OSError, ValueError):
            done = []
        if len(done) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 3 <= len(done) < 10, "the solve should have been killed midway"
    assert not (root / "tictactoe" / "default").exists()
    out = subprocess.run([sys.executable, "-m", "solver", *args], env=env,
                         capture_output=True, text=True, check=True)
    assert "solved tictactoe" in out.stdout
    solve(game, "bottomup", root=tmp_path / "ref")
    for x, y in zip(arrays(game, root), arrays(game, tmp_path / "ref"), strict=True):
        assert np.array_equal(x, y)
    # both runs are accounted for: the killed one as far as its last record
    attrs = json.loads((root / "tictactoe" / "default" / "zarr.json").read_text())["attributes"]
    killed, resumed = attrs["runs"]
    assert killed["tasks"] >= 1 and killed["wall_seconds"] > 0 and killed["peak_bytes"] > 0
    assert resumed["tasks"] >= 1 and resumed["started"] >= killed["started"]
    assert attrs["wall_seconds_all_runs"] == pytest.approx(
        killed["wall_seconds"] + resumed["wall_seconds"], abs=0.2)
    assert "  all runs             2: wall " in out.stdout
    assert " positions/s over all runs' wall time" in out.stdout  # not this run's share
