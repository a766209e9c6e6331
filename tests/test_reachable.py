"""The backward search that tells positions from slots (solver/kernels/reachable.py), which
a plan uses to count what a solve will store: exact on every slot of small games."""

import numpy as np
import pytest
import reference

from games import get_game
from solver.kernels.codegen import kernels
from solver.kernels.reachable import REACHED, UNDECIDED


def search(game, hashes=None, cap=1 << 16) -> np.ndarray:
    k = kernels(game.module, "solver.kernels.reachable")
    if hashes is None:
        hashes = np.arange(game.hash_size, dtype=np.int64)
    found = np.empty(hashes.size, np.int64)
    k.reach_count(game.ctx, hashes, game.start, found, game.max_parents, game.max_children,
                  game.scratch_size, cap)
    return found


def forward(game) -> set[int]:
    """Every slot reachable from the start by the game's own moves."""
    seen, todo = {game.start}, [game.start]
    while todo:
        h = todo.pop()
        for _name, c in game.moves(h):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


@pytest.mark.parametrize("name,variant", [
    ("connect4", "width=4,height=4"), ("baghchal", ""), ("morris", ""), ("hanoi", ""),
    ("pegsolitaire", ""),
])
def test_search_finds_exactly_the_positions(name, variant):
    game = get_game(name, variant)
    found = search(game)
    assert not (found == UNDECIDED).any()
    assert set(np.flatnonzero(found == REACHED).tolist()) == forward(game)


def test_unmoves_no_move_undoes_are_not_followed():
    """Quick chess un-captures onto slots no move of the game leaves (its un-moves offer
    more than its moves undo): the search follows only un-moves its moves confirm. (Its
    backward searches are long: 300 slots, each decided or undecided, never wrong.)"""
    game = get_game("quickchess")
    hashes = np.arange(300, dtype=np.int64)
    found = search(game, hashes, cap=4096)
    reached = forward(game)
    decided = found != UNDECIDED
    assert decided.sum() > 100
    assert all((f == REACHED) == (int(h) in reached)
               for h, f in zip(hashes[decided], found[decided], strict=True))


@pytest.mark.parametrize("width,height", [(4, 4), (5, 3)])
def test_connect4_positions_are_the_reference_games(width, height):
    """Against tests/reference.py, which shares no code with the game: the count, and each
    position by its string."""
    game = get_game("connect4", f"width={width},height={height}")
    prim, _kids = reference.build_graph(reference.Connect4(width, height))
    found = search(game)
    reached = np.flatnonzero(found == REACHED)
    assert len(reached) == len(prim)
    assert {game.to_string(int(h)) for h in reached} == set(prim)


def test_connect4_4x4_is_tromps_count():
    """161,029 positions (Tromp's table of Connect-4 position counts)."""
    assert (search(get_game("connect4", "width=4,height=4")) == REACHED).sum() == 161_029
