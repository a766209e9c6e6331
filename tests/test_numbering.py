"""A numbering (solver/kernels/numbering.py) is passed beside the game: a game object
never changes after it is built, through symmetric and compact solves, their resume,
verify and queries (issue 45: before, `symmetry.apply` rewrote the game's module and
start, and a compact solve copied its attributes into a class built at run time)."""

import copy
import pickle

import numpy as np
import pytest

from games import get_game
from games.base import Game
from solver.kernels.numbering import Numbering
from solver.methods.solve import solve
from solver.methods.verify import verify
from solver.storage.database import Database
from solver.use.api import Solved

GAMES = [("quixo", "size=3"), ("connect4", "width=4,height=3,connect=3"),
         ("tictactoe", "")]


@pytest.fixture
def frozen(monkeypatch):
    """Games that refuse every attribute set once frozen (what `vars` cannot see, a
    write through __dict__, the snapshot comparison catches)."""
    held: set[int] = set()
    setattr_ = Game.__setattr__

    def refuse(self, name, value):
        if id(self) in held:
            raise AssertionError(f"{type(self).__name__}.{name} set on a built game")
        setattr_(self, name, value)

    monkeypatch.setattr(Game, "__setattr__", refuse)
    return held


def walk(game: Game, n: int) -> list[int]:
    """`n` positions of random play from the start (a random slot may not be a position)."""
    rng = np.random.default_rng(0)
    out, h = [], game.start
    while len(out) < n:
        out.append(h)
        moves = game.moves(h)
        h = moves[rng.integers(len(moves))][1] if moves else game.start
    return out


def snapshot(game: Game) -> bytes:
    return pickle.dumps({k: copy.deepcopy(v) for k, v in vars(game).items()})


@pytest.mark.parametrize("name,variant", GAMES)
def test_a_game_is_unchanged_by_symmetric_and_compact_solves(tmp_path, frozen, name,
                                                             variant):
    game = get_game(name, variant or None)
    before = snapshot(game)
    start = game.start
    frozen.add(id(game))
    methods = ["tiers", "retrograde"] if game.tiers() is not None else ["retrograde"]
    for method in methods:
        res = solve(game, method, root=tmp_path / method, symmetry=True)
        assert not res.reused
        assert solve(game, method, root=tmp_path / method, symmetry=True).reused
        report = verify(game, tmp_path / method)
        assert report.sound and report.symmetry and report.problems == 0
        db = Database.open(game, tmp_path / method)
        assert db.symmetric and db.lookup(start) == db.lookup(game.canonical(start))
    assert Solved(game, tmp_path / methods[0]).query(game.to_string(start)) == Solved(
        game, tmp_path / methods[-1]).query(game.to_string(start))
    assert game.start == start and snapshot(game) == before
    assert type(game) is type(get_game(name, variant or None))


def test_a_numbering_is_frozen_and_reads_the_games_traits():
    game = get_game("quixo", "size=3")
    plain, canon = Numbering(game), Numbering(game, True)
    compact = canon.compact()
    with pytest.raises(AttributeError, match="frozen"):
        compact.start = 0
    assert plain.module == game.module and plain.hash_size == game.hash_size
    assert canon.start == game.canonical(game.start) and canon.module != game.module
    assert compact.hash_size == compact.index.count < game.hash_size
    assert compact.name == game.name and compact.scratch_size == game.scratch_size
    for h in walk(game, 200):
        i = compact.number(h)
        assert compact.slot(i) == game.canonical(h)
        assert compact.to_string(i) == game.to_string(game.canonical(h))
        assert compact.from_string(game.to_string(h)) == i
    assert pickle.loads(pickle.dumps(compact)).start == compact.start
    with pytest.raises(TypeError):
        Numbering(compact)


def test_symmetry_on_a_game_without_any_is_refused():
    from games.base import GsolveError

    with pytest.raises(GsolveError, match="declares no symmetries"):
        Numbering(get_game("hanoi"), True)
