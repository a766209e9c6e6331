"""Tic-tac-toe end to end, against the independent reference solver."""

import pytest
import reference
from checks import assert_queries_match, solve_matches_reference

from games import get_game
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.use.api import Solved


@pytest.fixture(scope="module")
def ref():
    return reference.solve(reference.TicTacToe())


@pytest.mark.parametrize("method", applicable_methods(get_game("tictactoe")))
def test_every_reachable_position_matches_reference(method, ref, tmp_path):
    game = get_game("tictactoe")
    assert solve_matches_reference(game, method, tmp_path, ref).positions == 5478
    assert_queries_match(Solved(game, tmp_path), ref, ref)


def test_known_counts(tmp_path):
    game = get_game("tictactoe")
    result = solve(game, root=tmp_path)
    assert result.values == {"win": 2836, "lose": 1574, "tie": 1068}
    assert (result.start_value, result.start_remoteness) == ("tie", 9)


def test_hand_checked_positions(tmp_path):
    game = get_game("tictactoe")
    solve(game, root=tmp_path)
    s = Solved(game, tmp_path)
    # O to move against two threats (top row, left column): O loses in 2
    assert (s.query("XX-/XOO/---").value, s.query("XX-/XOO/---").remoteness) == ("lose", 2)
    # X to move completes the top row at cell 3
    info = s.query("XX-/OO-/---")
    assert (info.value, info.remoteness) == ("win", 1)
    assert [m.move for m in s.best_moves("XX-/OO-/---")] == ["3"]
    # a finished game: O just lost to a row of X
    done = s.query("XXX/OO-/---")
    assert (done.value, done.remoteness, done.moves) == ("lose", 0, [])
    # a full board without a line
    full = s.query("XOX/XOO/OXX")
    assert (full.value, full.remoteness) == ("tie", 0)


def test_roundtrip_strings():
    game = get_game("tictactoe")
    for h in range(game.hash_size):
        assert game.from_string(game.to_string(h)) == h
