"""Towers of Hanoi end to end, against the independent reference solver and the seed
document's DFS experiment ("Software writing software": DomainStates / RangeStates)."""

import json

import pytest
import reference
from checks import assert_parents_invert_children, reference_table, solve_matches_reference
from click.testing import CliRunner

from games import get_game
from games.base import PositionError, VariantError
from solver.command.cli import cli
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.use.api import Solved

METHODS = applicable_methods(get_game("hanoi"))

# The seed document's table of optimal lines (disks -> DomainStates, RangeStates).
SEED_LINES = {
    2: ("1,2,1", "2,3,3"),
    3: ("1,2,1,3,1,2,1", "3,2,2,3,1,3,3"),
    4: ("1,2,1,3,1,2,1,4,1,2,1,3,1,2,1", "2,3,3,2,1,2,2,3,3,1,1,3,2,3,3"),
    5: ("1,2,1,3,1,2,1,4,1,2,1,3,1,2,1,5,1,2,1,3,1,2,1,4,1,2,1,3,1,2,1",
        "3,2,2,3,1,3,3,2,2,1,1,2,3,2,2,3,1,3,3,1,2,1,1,3,3,2,2,3,1,3,3"),
}
# Its MoveStates bit masks for 3 disks (instance 200): (disk, peg) -> mask
SEED_MOVE_STATES_3 = {
    (1, 1): "0000100", (1, 2): "0010000", (1, 3): "1000001",
    (2, 1): "0000000", (2, 2): "0100000", (2, 3): "0000010",
    (3, 1): "0000000", (3, 2): "0000000", (3, 3): "0001000",
}
FRAME_STEWART_4 = [1, 3, 5, 9, 13, 17, 25, 33]  # 4 pegs, 1..8 disks
FRAME_STEWART_5 = [1, 3, 5, 7, 11, 15]  # 5 pegs, 1..6 disks


def ref_table(disks, pegs):
    return reference_table(reference.Hanoi, disks, pegs)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("disks,pegs", [(1, 3), (3, 3), (5, 3), (6, 3), (4, 4), (6, 4),
                                        (3, 5), (4, 6)])
def test_every_reachable_position_matches_reference(method, disks, pegs, tmp_path):
    game = get_game("hanoi", {"disks": disks, "pegs": pegs})
    ref = ref_table(disks, pegs)
    result = solve_matches_reference(game, method, tmp_path, ref)
    assert result.positions == pegs ** disks == game.hash_size
    solved = Solved(game, tmp_path)
    info = solved.query("1" * disks)
    assert (info.value, info.remoteness) == ("win", ref["1" * disks][1])


@pytest.mark.parametrize("disks", range(1, 9))
def test_three_pegs_start_needs_2n_minus_1(disks, tmp_path):
    result = solve(get_game("hanoi", {"disks": disks}), root=tmp_path)
    assert (result.start_value, result.start_remoteness) == ("win", 2 ** disks - 1)
    assert result.max_remoteness == 2 ** disks - 1


def test_frame_stewart_numbers(tmp_path):
    for disks, want in enumerate(FRAME_STEWART_4, 1):
        r = solve(get_game("hanoi", {"disks": disks, "pegs": 4}), root=tmp_path)
        assert r.start_remoteness == want, disks
    for disks, want in enumerate(FRAME_STEWART_5, 1):
        r = solve(get_game("hanoi", {"disks": disks, "pegs": 5}), root=tmp_path)
        assert r.start_remoteness == want, disks


def test_rules_and_strings():
    game = get_game("hanoi", {"disks": 3, "pegs": 3})
    assert game.to_string(game.start) == "111"
    assert game.primitive_value(game.from_string("333")) == 4
    assert game.primitive_value(game.from_string("111")) == 0
    # 211: disk 1 on peg 2, disks 2 and 3 on peg 1 -> disk 1 anywhere, disk 2 to peg 3
    moves = dict(game.moves(game.from_string("211")))
    assert {game.to_string(c) for c in moves.values()} == {"111", "311", "231"}
    assert set(moves) == {"2->1", "2->3", "1->3"}
    assert dict(game.moves(game.start)) == {"1->2": game.from_string("211"),
                                            "1->3": game.from_string("311")}
    for h in range(game.hash_size):
        assert game.from_string(game.to_string(h)) == h
    big = get_game("hanoi", {"disks": 7, "pegs": 5})
    for h in range(0, big.hash_size, 97):
        assert big.from_string(big.to_string(h)) == h
    for bad in ["11", "1111", "114", "1a1", "0 11", ""]:
        with pytest.raises(PositionError):
            game.from_string(bad)
    with pytest.raises(VariantError):
        get_game("hanoi", {"pegs": 2})
    with pytest.raises(VariantError):
        get_game("hanoi", {"disks": 20, "pegs": 9})


@pytest.mark.parametrize("disks,pegs", [(3, 3), (3, 4), (4, 3)])
def test_parents_invert_children(disks, pegs):
    assert_parents_invert_children(get_game("hanoi", {"disks": disks, "pegs": pegs}))


@pytest.mark.parametrize("disks", sorted(SEED_LINES))
def test_optimal_line_matches_seed_document(disks, tmp_path):
    game = get_game("hanoi", {"disks": disks})
    solve(game, root=tmp_path)
    extras = game.analysis_extras(Solved(game, tmp_path))
    domain, rng = SEED_LINES[disks]
    assert extras["optimal_line"]["DomainStates"] == domain
    assert extras["optimal_line"]["RangeStates"] == rng
    assert extras["domain_states"] == [int(x) for x in domain.split(",")]
    assert extras["range_states"] == [int(x) for x in rng.split(",")]
    assert extras["optimal_line"]["positions"][-1] == "3" * disks
    assert extras["moves_per_disk"] == {str(d): 2 ** (disks - d) for d in range(1, disks + 1)}
    if disks == 3:
        states = extras["optimal_line"]["MoveStates"]
        assert {(int(d), int(p)): m for d, row in states.items()
                for p, m in row.items()} == SEED_MOVE_STATES_3
        # disk 1 -> 3, 2 -> 2, 1 -> 2, 3 -> 3, 1 -> 1, 2 -> 3, 1 -> 3
        assert extras["optimal_line"]["moves"] == [
            "1->3", "1->2", "3->2", "1->3", "2->1", "2->3", "1->3"]


def test_four_pegs_line_is_optimal(tmp_path):
    game = get_game("hanoi", {"disks": 5, "pegs": 4})
    solve(game, root=tmp_path)
    extras = game.analysis_extras(Solved(game, tmp_path))
    line = extras["optimal_line"]["positions"]
    assert len(line) == 13 and line[-1] == "44444"
    # replay the line with the reference rules
    ref = reference.Hanoi(5, 4)
    pos = ref.start()
    for nxt in line:
        assert nxt in ref.children(pos)
        pos = nxt


def test_analyze_command_prints_the_line(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "db")
    r = runner.invoke(cli, ["hanoi", "--db", db])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["analyze", "hanoi", "--db", db])
    assert r.exit_code == 0, r.output
    assert "DomainStates (disk moved, 1 = smallest): 1,2,1,3,1,2,1" in r.output
    assert "RangeStates  (peg it went to):           3,2,2,3,1,3,3" in r.output
    r = runner.invoke(cli, ["analyze", "hanoi", "--db", db, "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    assert report["start"] == {"position": "111", "value": "win", "remoteness": 7}
    assert report["optimal_line"]["DomainStates"] == "1,2,1,3,1,2,1"
    assert report["range_states"] == [3, 2, 2, 3, 1, 3, 3]
