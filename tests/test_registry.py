"""Games register themselves, gsolve's own and those of other installed packages."""

import json
import sys

import pytest
from click.testing import CliRunner

import games as registry
from games import available, game_class, get_game, register
from games.base import Game, GsolveError, UnknownGameError
from solver.command.cli import cli

# A game of another package: a subtraction game (take 1..take tokens; who cannot, loses).
SUBTRACTION = '''
import numpy as np

from games.base import LOSE, Game, PositionError, Variant
from games import register
from hashing.jit import njit


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    return LOSE if h == 0 else 0


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    k = 0
    for j in range(1, min(ctx[0][0], h) + 1):
        out[k] = h - j
        moves[k] = j
        k += 1
    return k


@register
class Subtraction(Game):
    name = "subtraction"
    title = "Subtraction game"
    variants = {"tokens": Variant(10, 1, 1000, "tokens at the start"),
                "take": Variant(3, 1, 9, "the most tokens a move takes")}

    def __init__(self, **variant):
        super().__init__(**variant)
        self.ctx = (np.array([self.variant["take"]], np.int64),)
        self.hash_size = self.variant["tokens"] + 1
        self.start = self.variant["tokens"]
        self.max_children = self.variant["take"]
        self.scratch_size = 0

    def to_string(self, h):
        return str(h)

    def from_string(self, s):
        if not s.isdigit() or int(s) >= self.hash_size:
            raise PositionError(f"subtraction position '{s}' is no count of tokens")
        return int(s)
'''


@pytest.fixture
def installed(tmp_path, monkeypatch):
    """A distribution on sys.path whose entry points name games: {name: "module[:Class]"}."""
    monkeypatch.setattr(registry, "_classes", dict(registry._classes))  # forget them after
    site = tmp_path / "site"
    (site / "gsolve_subtraction").mkdir(parents=True)
    (site / "gsolve_subtraction" / "__init__.py").write_text(SUBTRACTION)
    (site / "gsolve_empty.py").write_text("")
    dist = site / "gsolve_subtraction-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: gsolve-subtraction\nVersion: 0.1\n")

    def install(points: dict[str, str]) -> None:
        lines = "".join(f"{k} = {v}\n" for k, v in points.items())
        (dist / "entry_points.txt").write_text(f"[{registry.ENTRY_POINTS}]\n{lines}")
        monkeypatch.syspath_prepend(str(site))

    yield install
    for name in ("gsolve_subtraction", "gsolve_empty"):
        sys.modules.pop(name, None)


def test_gsolve_games_register_themselves():
    names = available()
    assert names == sorted(names) and {"tictactoe", "connect4", "quixo", "cambio"} <= set(names)
    for name in names:
        cls = game_class(name)
        assert cls.name == name and cls.__module__ == f"games.{name}"


def test_an_unknown_game_is_refused_naming_the_known():
    with pytest.raises(UnknownGameError, match="unknown game 'frob' .known games: baghchal, "):
        game_class("frob")


def test_register_refuses_a_second_class_under_a_name(monkeypatch):
    monkeypatch.setattr(registry, "_classes", dict(registry._classes))

    class Other(Game):
        name = "tictactoe"

    with pytest.raises(TypeError, match="registered twice"):
        register(Other)
    with pytest.raises(TypeError):
        register(int)


def test_a_game_of_an_installed_package_is_listed_and_solved(installed, tmp_path):
    installed({"subtraction": "gsolve_subtraction"})
    assert "subtraction" in available()
    assert "gsolve_subtraction" not in sys.modules  # listed without importing it
    runner = CliRunner()
    r = runner.invoke(cli, ["list", "--json"])
    assert r.exit_code == 0, r.output
    assert [g["game"] for g in json.loads(r.output)] == available()
    db = str(tmp_path / "db")
    r = runner.invoke(cli, ["subtraction", "-V", "tokens=10", "--db", db])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["query", "subtraction", "-V", "tokens=10", "--db", db, "--json",
                            "10"])
    assert r.exit_code == 0, r.output
    got = json.loads(r.output)
    # a multiple of take + 1 loses: 10 wins by taking 2, in 5 plies (10, 8, 5-7, 4, 1-3, 0)
    assert (got["value"], got["remoteness"]) == ("win", 5), got
    assert {m["move"]: m["value"] for m in got["moves"]} == {"1": "win", "2": "lose",
                                                             "3": "win"}


def test_an_entry_point_may_name_the_class(installed):
    installed({"subtraction": "gsolve_subtraction:Subtraction"})
    assert get_game("subtraction", "tokens=7").start == 7


def test_an_entry_point_without_its_game_is_one_error(installed):
    installed({"nothing": "gsolve_empty"})
    assert "nothing" in available()
    with pytest.raises(GsolveError, match="registers no game of that name"):
        game_class("nothing")


def test_an_installed_game_named_like_a_builtin_is_ignored(installed):
    installed({"tictactoe": "gsolve_subtraction"})
    assert game_class("tictactoe").__module__ == "games.tictactoe"
    assert available().count("tictactoe") == 1
