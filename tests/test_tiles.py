"""The tiles puzzle (rotate the wires until every tile is lit) end to end, against the
independent reference solver and the plain-Python rules of tests/ref_tiles.py."""

import json
import random

import numpy as np
import pytest
import ref_tiles
from checks import reference_table, solve_matches_reference
from click.testing import CliRunner

import games.tiles as tiles_mod
from games.base import PositionError, VariantError
from games.tiles import Tiles
from solver.command.cli import cli
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.use.api import Solved

METHODS = applicable_methods(Tiles())

# (width, height, seed): every reachable position is checked against the reference
INSTANCES = [(2, 2, 1), (2, 2, 2), (3, 2, 1), (2, 3, 4), (5, 1, 3), (3, 3, 28)]


def ref_table(width, height, seed):
    return reference_table(ref_tiles.Tiles, width, height, seed)


class HandMade(Tiles):
    """A hand-made 4x3 instance whose tiles also fit together into consistent boards that
    are no solution. Solved it is the tree 2EE8/2D78/2938; the start turns every tile once
    clockwise."""

    SOURCE = 0  # r1c1

    def instance(self):
        tree = [int(ch, 16) for ch in "2EE82D782938"]
        return tree, self.SOURCE, [tiles_mod.rot_cw(m) for m in tree]


class HandMadeSourceOutside(HandMade):
    SOURCE = 4  # r2c1

@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("width,height,seed", INSTANCES)
def test_every_reachable_position_matches_reference(method, width, height, seed, tmp_path):
    game = Tiles(width=width, height=height, seed=seed)
    ref = ref_table(width, height, seed)
    start = ref_tiles.generate(width, height, seed)
    assert game.to_string(game.start) == start
    result = solve_matches_reference(game, method, tmp_path, ref)
    assert set(result.values) == {"win"}  # every position can be turned into a goal
    solved = Solved(game, tmp_path)
    info = solved.query(start)
    assert (info.value, info.remoteness) == ("win", ref[start][1])
    assert result.max_remoteness <= game.max_remoteness


def test_remoteness_is_fewest_turns_to_a_goal(tmp_path):
    """3x3 seed 1 (131,072 positions): every remoteness is the smallest, over the goals
    found by the depth-first search, of the clockwise turns each tile needs."""
    game = Tiles()
    solve(game, "bottomup", root=tmp_path)
    solved = Solved(game, tmp_path)
    values = solved.db.value_array[:]
    rems = solved.db.remoteness_array[:].astype(np.int64)
    goals = game.solutions()
    assert [game.to_string(g) for g in goals] == ["6C4/13D/2A9 @3,2"]
    h = np.arange(game.hash_size, dtype=np.int64)
    best = np.full(game.hash_size, 1 << 30, np.int64)
    for g in goals:
        total = np.zeros(game.hash_size, np.int64)
        x, y = h.copy(), g
        for p in game.periods:
            total += (y % p - x % p) % p
            x //= p
            y //= p
        best = np.minimum(best, total)
    reached = values != 0
    assert (values[reached] == 4).all()
    assert (rems[reached] == best[reached]).all()
    assert reached.sum() == game.hash_size  # with one goal every position is reached
    for g in range(0, game.hash_size, 997):
        assert game.turns(g, goals[0]) == best[g]


def test_goal_detection_by_hand():
    game = Tiles(width=2, height=2, seed=1)
    ref = ref_tiles.Tiles(2, 2, 1)
    assert game.to_string(game.start) == "66/88 @2,1"
    cases = {
        # r1c1 corner E+S, r1c2 corner S+W, the two ends point up into them: a tree, lit
        "6C/11 @2,1": True,
        "6C/12 @2,1": False,  # r2c2's end points east, off the board
        "6C/14 @2,1": False,  # ... south, off the board
        "6C/18 @2,1": False,  # ... west into r2c1, which has no east connector
        "3C/11 @2,1": False,  # r1c1 points north off the board
        "66/88 @2,1": False,  # the start
    }
    for s, goal in cases.items():
        h = game.from_string(s)
        assert (game.primitive_value(h) == 4) is goal, s
        assert (ref.primitive(s) == 4) is goal, s
        assert (game.moves(h) == []) is goal, s  # a goal has no moves


def test_closed_loop_not_lit_is_not_solved():
    """The seed document's trap: a complete and consistent board (every connector meets
    another) that is no solution. In 2EE8/47D4/1391 the tiles r1c2 r1c3 r2c3 r2c2 and
    r2c2 r2c3 r3c3 r3c2 close two loops joined to r1c1 and r1c4, while r2c1-r3c1 and
    r2c4-r3c4 are two separate pairs of ends. With the source at r1c1 the pairs are dark;
    with it at r2c1 only its pair is lit and the loops are dark."""
    for cls, mark in ((HandMade, "@1,1"), (HandMadeSourceOutside, "@2,1")):
        game = cls(width=4, height=3)
        goal, trap = "2EE8/2D78/2938 " + mark, "2EE8/47D4/1391 " + mark
        assert game.to_string(game.start) == "4DD1/4BE1/4361 " + mark
        ref = ref_tiles.Tiles(start=game.to_string(game.start))
        goals, traps = game.consistent_boards()
        assert [game.to_string(g) for g in goals] == [goal]
        assert [game.to_string(t) for t in traps] == [trap]
        assert game.primitive_value(game.from_string(trap)) == 0
        assert ref.primitive(trap) == 0
        assert len(game.moves(game.from_string(trap))) == 12
        assert game.primitive_value(game.from_string(goal)) == 4
        assert ref.primitive(goal) == 4
        # one turn of a corner of the loop leaves a loose end
        assert game.primitive_value(game.from_string("2EE8/4ED4/1391 " + mark)) == 0


def test_seeded_consistent_non_solution():
    """5x3 seed 2 (not solved here: 2^30 positions) has one solution and one consistent
    non-solution: in 42868/7EEBC/13B81 every connector is joined, the tiles around the
    source r2c4 hold a closed loop r2c2-r2c3-r3c3-r3c2, and the pair r1c2-r1c3 is dark."""
    game = Tiles(width=5, height=3, seed=2)
    ref = ref_tiles.Tiles(5, 3, 2)
    assert game.to_string(game.start) == ref.start() == "14494/DEB79/26B14 @2,4"
    goals, traps = game.consistent_boards()
    assert [game.to_string(g) for g in goals] == ["44468/7D7BC/13B81 @2,4"]
    assert [game.to_string(t) for t in traps] == ["42868/7EEBC/13B81 @2,4"]
    for s, want in (("42868/7EEBC/13B81 @2,4", 0), ("44468/7D7BC/13B81 @2,4", 4)):
        assert game.primitive_value(game.from_string(s)) == want
        assert ref.primitive(s) == want
    # two solutions, no trap: 4x4 seed 11
    game = Tiles(width=4, height=4, seed=11)
    goals, traps = game.consistent_boards()
    assert [game.to_string(g) for g in goals] == ["2EAC/2D45/4179/3AB8 @1,1",
                                                 "2EAC/2B85/42E9/3AB8 @1,1"]
    assert traps == []
    ref = ref_tiles.Tiles(4, 4, 11)
    assert all(ref.primitive(game.to_string(g)) == 4 for g in goals)


@pytest.mark.parametrize("width,height,seed", [(2, 2, 1), (3, 2, 1), (5, 1, 3)])
def test_parents_invert_children_exhaustively(width, height, seed):
    game = Tiles(width=width, height=height, seed=seed)
    ctx, n = game.ctx, game.hash_size
    out, codes, scratch = game._buffers()
    want = {h: set() for h in range(n)}
    for p in range(n):
        if tiles_mod.primitive(ctx, p, scratch):
            continue
        k = tiles_mod.children(ctx, p, out, codes, scratch)
        assert k == game.ntiles
        for c in out[:k]:
            want[int(c)].add(p)
    for h in range(n):
        k = tiles_mod.parents(ctx, h, out, scratch)
        got = [int(x) for x in out[:k]]
        assert len(got) == len(set(got)), h
        assert set(got) == want[h], game.to_string(h)


@pytest.mark.parametrize("width,height,seed", [(3, 3, 1), (4, 3, 1), (4, 4, 11)])
def test_parents_invert_children_on_random_hashes(width, height, seed):
    game = Tiles(width=width, height=height, seed=seed)
    ctx = game.ctx
    out, codes, scratch = game._buffers()
    kids = np.empty(game.max_children, np.int64)
    rng = random.Random(7)
    samples = [rng.randrange(game.hash_size) for _ in range(300)]
    samples += game.solutions()  # goals and their neighbours
    for h in samples:
        k = tiles_mod.parents(ctx, h, out, scratch)
        ps = [int(x) for x in out[:k]]
        assert len(ps) == len(set(ps))
        for p in ps:
            assert not tiles_mod.primitive(ctx, p, scratch)
            m = tiles_mod.children(ctx, p, kids, codes, scratch)
            assert h in kids[:m]
        # every tile turned back once, goals left out
        back = []
        for i in range(game.ntiles):
            masks = game.masks_of(h)
            for _ in range(3):
                masks[i] = tiles_mod.rot_cw(masks[i])
            q = game.hash_masks(masks)
            if game.primitive_value(q) == 0:
                back.append(q)
        assert sorted(ps) == sorted(back)
        if not tiles_mod.primitive(ctx, h, scratch):
            m = tiles_mod.children(ctx, h, kids, codes, scratch)
            for c in kids[:m]:
                k = tiles_mod.parents(ctx, int(c), out, scratch)
                assert h in out[:k]


def test_moves_and_strings():
    game = Tiles(width=3, height=2, seed=1)
    ref = ref_tiles.Tiles(3, 2, 1)
    start = game.to_string(game.start)
    assert start == "168/2D9 @2,1"
    moves = game.moves(game.start)
    assert [m for m, _ in moves] == ["r1c1", "r1c2", "r1c3", "r2c1", "r2c2", "r2c3"]
    assert [game.to_string(c) for _, c in moves] == ref.children(start)
    # r1c1 end N -> E; r1c2 corner E+S -> S+W; r1c3 end W -> N; r2c2 tee N+S+W -> N+E+W
    assert [game.to_string(c) for _, c in moves][:3] == [
        "268/2D9 @2,1", "1C8/2D9 @2,1", "161/2D9 @2,1"]
    assert game.to_string(dict(moves)["r2c2"]) == "168/2B9 @2,1"
    for h in range(game.hash_size):
        assert game.from_string(game.to_string(h)) == h
    assert game.from_string("168/2d9") == game.start  # lower case, source mark left out
    assert game.from_string(" 168/2D9 @ 2, 1 ") == game.start
    for bad in ["168/2D9 @1,1", "168/2D9 @2", "168/2D9 @x,y", "168 @2,1", "168/2D @2,1",
                "168/2D9/111 @2,1", "16G/2D9 @2,1", "568/2D9 @2,1", "1F8/2D9", "",
                "068/2D9 @2,1", "178/2D9 @2,1"]:
        with pytest.raises(PositionError):
            game.from_string(bad)
    line = Tiles(width=5, height=1, seed=3)
    for h in range(line.hash_size):
        assert line.from_string(line.to_string(h)) == h
    big = Tiles(width=4, height=4, seed=11)
    for h in range(0, big.hash_size, 1_000_003):
        assert big.from_string(big.to_string(h)) == h


def test_straights_have_two_states():
    game = Tiles(width=5, height=1, seed=3)  # ends at both sides, straights between
    assert game.to_string(game.start) == "1AA52 @1,3"
    assert game.periods == [4, 2, 2, 2, 4]
    assert game.hash_size == 4 * 2 * 2 * 2 * 4
    # turning a straight twice is the same position again
    h = dict(game.moves(game.start))["r1c2"]
    assert game.to_string(h) == "15A52 @1,3"
    assert dict(game.moves(h))["r1c2"] == game.start
    # the goal: everything horizontal; r1c1 needs 1 turn, r1c4 1, r1c5 2 (E -> S -> W)
    assert [game.to_string(g) for g in game.solutions()] == ["2AAA8 @1,3"]
    assert game.turns(game.start, game.solutions()[0]) == 4


@pytest.mark.parametrize("width,height", [(2, 1), (1, 4), (2, 2), (3, 2), (2, 3), (3, 3),
                                          (4, 3), (4, 4), (6, 6)])
def test_generated_instances(width, height):
    n = width * height
    for seed in range(25):
        tree, source, start = tiles_mod.generate(width, height, seed)
        assert tiles_mod.generate(width, height, seed) == (tree, source, start)
        assert all(m not in (0, 15) for m in tree)  # no blanks, no crosses
        assert sum(bin(m).count("1") for m in tree) == 2 * (n - 1)  # a tree's connectors
        assert tiles_mod.is_goal(tree, width, height, source)
        assert not tiles_mod.is_goal(start, width, height, source)
        assert 0 <= source < n
        assert all(s in tiles_mod.rotations(t) for s, t in zip(start, tree, strict=True))
        text = "/".join("".join(tiles_mod.HEX[m] for m in start[i:i + width])
                        for i in range(0, n, width))
        r, c = divmod(source, width)
        assert f"{text} @{r + 1},{c + 1}" == ref_tiles.generate(width, height, seed)


def test_variants():
    assert Tiles().variant == {"width": 3, "height": 3, "seed": 1}
    assert Tiles().to_string(Tiles().start) == "662/197/4A6 @3,2"
    assert Tiles().hash_size == 131072
    with pytest.raises(VariantError):
        Tiles(width=1, height=1)
    with pytest.raises(VariantError):
        Tiles(width=6, height=6)  # far more than 2^30 positions
    with pytest.raises(VariantError):
        Tiles(width=7)
    with pytest.raises(VariantError):
        Tiles(size=3)


def test_analysis_extras_give_a_shortest_solution(tmp_path):
    game = Tiles()
    solve(game, root=tmp_path)
    solved = Solved(game, tmp_path)
    start = solved.query()
    extras = game.analysis_extras(solved)
    line = extras["shortest_solution"]
    assert len(line["moves"]) == start.remoteness
    assert line["positions"][-1] == "6C4/13D/2A9 @3,2" == extras["solutions"][0]
    assert sum(line["turns_per_tile"].values()) == start.remoteness
    # replay with the reference rules: each step is a move, the last one a goal
    ref = ref_tiles.Tiles(3, 3, 1)
    pos = ref.start()
    for name, nxt in zip(line["moves"], line["positions"], strict=True):
        r, c = int(name[1]), int(name[3])
        assert ref.children(pos)[(r - 1) * 3 + (c - 1)] == nxt
        pos = nxt
    assert ref.primitive(pos) == 4
    # the start's moves that bring the goal one turn closer are exactly the tiles the
    # solution turns (with one goal, every tile turned comes back after a full cycle)
    best = solved.best_moves()
    assert {m.move for m in best} == set(line["turns_per_tile"])
    assert all(m.value == "win" and m.remoteness == start.remoteness - 1 for m in best)
    # every move still wins (the puzzle has no dead end), but only those are best
    assert len(solved.query().moves) == 9 and all(m.value == "win"
                                                  for m in solved.query().moves)
    assert any("shortest solution" in n for n in extras["notes"])


def test_analyze_command(tmp_path):
    runner = CliRunner()
    db = str(tmp_path / "db")
    r = runner.invoke(cli, ["tiles", "-V", "width=3,height=2,seed=1", "--db", db])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["analyze", "tiles", "-V", "width=3,height=2,seed=1", "--db", db])
    assert r.exit_code == 0, r.output
    assert "shortest solution from the start" in r.output
    r = runner.invoke(cli, ["analyze", "tiles", "-V", "width=3,height=2,seed=1", "--db", db,
                            "--json"])
    assert r.exit_code == 0, r.output
    report = json.loads(r.output)
    want = ref_table(3, 2, 1)["168/2D9 @2,1"][1]
    assert report["start"] == {"position": "168/2D9 @2,1", "value": "win", "remoteness": want}
    assert report["positions"] == 4096
    assert len(report["shortest_solution"]["moves"]) == want
    r = runner.invoke(cli, ["query", "tiles", "-V", "width=3,height=2,seed=1", "--db", db,
                            "--json", "168/2d9"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.output)
    assert info["position"] == "168/2D9 @2,1"
    assert [m["move"] for m in info["moves"]] == [f"r{r}c{c}" for r in (1, 2)
                                                  for c in (1, 2, 3)]
