"""A first solve compiles its kernels (30-308 s here from a cold cache): the estimate
counts that time where numba's cache lacks them, as this machine measured it last or
by default, and nothing once they are cached (issue 45)."""

import numba
import pytest

from games import get_game
from solver.kernels import codegen
from solver.kernels.numbering import Numbering, solve_module
from solver.methods import dfs, estimate, speed


@pytest.fixture
def cold(tmp_path, monkeypatch):
    """A numba cache with nothing in it, and a speed record of its own."""
    monkeypatch.setenv("GSOLVE_CACHE", str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.setattr(codegen, "_loaded", {})


def test_a_cold_cache_adds_the_compile_to_the_estimate(cold):
    game = get_game("tictactoe")
    first = speed.DEFAULT_COMPILE["dfs"]
    assert not codegen.compiled(game.module, speed.TEMPLATES["dfs"])
    est = estimate.estimate(game, "dfs")
    assert est.compile == first and est.seconds >= first and est.cpu >= first
    assert "compiling its kernels" in est.source
    speed.record_compile(game, "dfs", 12.5)  # what a solve measured
    assert speed.compile_seconds(game, "dfs") == 12.5
    assert speed.compile_seconds(Numbering(game, True), "dfs") == first  # another setting
    speed.record_compile(game, "dfs", 0.3)  # a load from the cache is no compile
    assert speed.compile_seconds(game, "dfs") == 12.5


def test_cached_kernels_add_nothing():
    game = get_game("tictactoe")
    dfs.warm_up(game)
    codegen._loaded.pop((game.module, speed.TEMPLATES["dfs"]))  # asked of the cache
    assert codegen.compiled(game.module, speed.TEMPLATES["dfs"])
    assert speed.compile_seconds(game, "dfs") == 0.0
    assert estimate.estimate(game, "dfs").compile == 0.0


def test_a_symmetric_solve_is_asked_of_its_compact_kernels():
    game = Numbering(get_game("quixo", "size=3"), True)
    assert solve_module(game) == game.compact().module != game.module
    assert solve_module(game.game) == game.game.module


def test_the_suite_writes_its_own_speed_record():
    """The suite's cache folder (tests/conftest.py) links the user's compiled kernels in;
    the speed record a solve writes stays in the suite's own folder, never the user's."""
    from hashing.numba_cache import cache_base

    assert (cache_base() / ".gsolve-tests").exists()
    assert speed._speed_file().parent == cache_base()
    assert codegen.cache_dir().resolve() != codegen.cache_dir()  # the kernels are linked
