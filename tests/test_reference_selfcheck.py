"""Self-checks of the reference solver in tests/reference.py against known facts, hand-built
graphs, an independent naive solver and independent brute-force enumerations."""

from __future__ import annotations

import functools
import random

import pytest

try:
    from tests import reference as ref
except ImportError:  # tests/ is not a package: pytest puts tests/ itself on sys.path
    import reference as ref

LOSE, DRAW, TIE, WIN = ref.LOSE, ref.DRAW, ref.TIE, ref.WIN


@functools.cache
def solved(kind: str, *args):
    game = getattr(ref, kind)(*args)
    return game, ref.solve(game)


# --------------------------------------------------------------------------------------
# An independent naive solver: rounds of the definition over the whole graph (Jacobi
# style). A position decided in round k reads only values decided in earlier rounds, so
# its round number is its remoteness.
# --------------------------------------------------------------------------------------


def naive_solve(game) -> dict[str, tuple[int, int]]:
    # Reachable graph by depth-first search (the reference uses breadth first).
    start = game.start()
    kids = {}
    stack = [start]
    while stack:
        s = stack.pop()
        if s in kids:
            continue
        kids[s] = [] if game.primitive(s) else game.children(s)
        stack.extend(c for c in kids[s] if c not in kids)
    table = {s: (game.primitive(s), 0) for s in kids if game.primitive(s)}
    if game.puzzle:
        table = {s: e for s, e in table.items() if e[0] == WIN}
        rules = [puzzle_rule]
    else:
        rules = [win_lose_rule, tie_rule]
    for rule in rules:
        k = 0
        while True:
            k += 1
            new = {}
            for s, cs in kids.items():
                if s not in table and cs:
                    v = rule([table.get(c) for c in cs])
                    if v:
                        new[s] = (v, k)
            if not new:
                break
            table.update(new)
    fill = LOSE if game.puzzle else DRAW
    return {s: table.get(s, (fill, 0)) for s in kids}


def win_lose_rule(entries):
    if any(e is not None and e[0] == LOSE for e in entries):
        return WIN
    if all(e is not None and e[0] == WIN for e in entries):
        return LOSE
    return 0


def tie_rule(entries):
    return TIE if any(e is not None and e[0] == TIE for e in entries) else 0


def puzzle_rule(entries):
    return WIN if any(e is not None and e[0] == WIN for e in entries) else 0


# --------------------------------------------------------------------------------------
# Known facts
# --------------------------------------------------------------------------------------


def test_tictactoe_known_counts():
    game, table = solved("TicTacToe")
    a = ref.analyze(game, table)
    assert a["positions"] == 5478
    assert a["values"] == {"win": 2836, "lose": 1574, "tie": 1068}
    assert a["start"] == (TIE, 9)
    assert table["---/---/---"] == (TIE, 9)
    assert a["max_remoteness"] == 9
    assert sum(sum(d.values()) for d in a["remoteness"].values()) == 5478


def test_tictactoe_game_count():
    # 255,168 games: X wins 131,184, O wins 77,904, 46,080 drawn. At the end of a won game
    # the loser is to move, so both kinds of win count as "lose".
    assert ref.count_paths(ref.TicTacToe()) == {"lose": 131184 + 77904, "tie": 46080}


def test_tictactoe_rules():
    game = ref.TicTacToe()
    assert game.primitive("XXX/OO-/---") == LOSE  # O to move, X has a row
    assert game.primitive("XOX/XOO/OXX") == TIE
    assert game.primitive("XOX/OXO/OXX") == LOSE  # full board, X's diagonal: O loses
    assert game.primitive("XO-/---/---") == 0
    assert sorted(game.children("XO-/---/-X-")) == sorted(
        ["XOO/---/-X-", "XO-/O--/-X-", "XO-/-O-/-X-", "XO-/--O/-X-", "XO-/---/OX-",
         "XO-/---/-XO"])
    _, table = solved("TicTacToe")
    assert table["XX-/OO-/---"] == (WIN, 1)
    assert table["X--/-O-/--X"][0] == TIE


def test_hanoi_three_pegs():
    for n in range(1, 6):
        game, table = solved("Hanoi", n, 3)
        assert len(table) == 3**n
        assert table["1" * n] == (WIN, 2**n - 1)
        assert all(v == WIN for v, _ in table.values())
        assert table["3" * n] == (WIN, 0)
    game, table = solved("Hanoi", 3, 3)
    assert ref.analyze(game, table)["positions"] == 27


def test_hanoi_four_pegs_frame_stewart():
    for n, moves in [(1, 1), (2, 3), (3, 5), (4, 9), (5, 13), (6, 17)]:
        _, table = solved("Hanoi", n, 4)
        assert len(table) == 4**n
        assert table["1" * n] == (WIN, moves)


def test_hanoi_rules():
    game = ref.Hanoi(3, 3)
    # Disk 0 (smallest) on peg 1, disks 1 and 2 on peg 2: disk 0 goes to 2 or 3, disk 1
    # goes to 3 only.
    assert sorted(game.children("122")) == ["132", "222", "322"]
    assert game.primitive("333") == WIN and game.primitive("332") == 0
    with pytest.raises(ValueError):
        ref.count_paths(game)  # loopy


def test_pegsolitaire_triangle_5():
    game, table = solved("PegSolitaireTriangle", 5)
    assert game.start() == "-/XX/XXX/XXXX/XXXXX"
    a = ref.analyze(game, table)
    assert a["start"] == (WIN, 13)
    assert a["positions"] == 3016
    # 29,760 solutions, and 568,630 games in all, from the corner vacancy.
    assert ref.count_paths(game) == {"win": 29760, "lose": 568630 - 29760}
    # Puzzle LOSE has no remoteness, so lose positions are not in the remoteness table.
    assert sum(sum(d.values()) for d in a["remoteness"].values()) == a["values"]["win"]
    assert all(set(d) == {"win"} for d in a["remoteness"].values())


def test_pegsolitaire_rules():
    game = ref.PegSolitaireTriangle(5)
    assert sorted(game.children("-/XX/XXX/XXXX/XXXXX")) == sorted(
        ["X/-X/-XX/XXXX/XXXXX", "X/X-/XX-/XXXX/XXXXX"])
    # Along a row, both ways.
    assert sorted(game.children("-/--/---/---X/-XX--")) == sorted(
        ["-/--/---/---X/X----", "-/--/---/---X/---X-"])
    # Along the (1, 1) diagonal, both ways (the only peg pairs in line).
    assert sorted(game.children("-/--/--X/---X/-----")) == sorted(
        ["-/-X/---/----/-----", "-/--/---/----/----X"])
    # Along the (1, 0) direction, both ways.
    assert sorted(game.children("-/X-/X--/----/-----")) == sorted(
        ["-/--/---/X---/-----", "X/--/---/----/-----"])
    assert game.primitive("-/--/---/---X/-----") == WIN
    assert game.primitive("X/--/---/---X/-----") == LOSE  # two pegs, no jump
    assert ref.PegSolitaireTriangle(5, (2, 1)).start() == "X/XX/X-X/XXXX/XXXXX"


def test_pegsolitaire_triangle_4():
    # Side 4: the corner vacancy cannot be solved, the one next to it can; the centre
    # vacancy has no move at all.
    assert solved("PegSolitaireTriangle", 4, (0, 0))[1]["-/XX/XXX/XXXX"] == (LOSE, 0)
    _, t1 = solved("PegSolitaireTriangle", 4, (1, 0))
    _, t2 = solved("PegSolitaireTriangle", 4, (1, 1))
    assert t1["X/-X/XXX/XXXX"] == t2["X/X-/XXX/XXXX"] == (WIN, 8)
    assert solved("PegSolitaireTriangle", 4, (2, 1))[1] == {"X/XX/X-X/XXXX": (LOSE, 0)}


def test_hexapawn_3x3():
    game, table = solved("Hexapawn", 3, 3)
    assert game.start() == "BBB/---/WWW w"
    assert table["BBB/---/WWW w"][0] == LOSE  # black, the second player, wins


def test_hexapawn_rules():
    game = ref.Hexapawn(3, 3)
    assert sorted(game.children("BBB/---/WWW w")) == sorted(
        ["BBB/W--/-WW b", "BBB/-W-/W-W b", "BBB/--W/WW- b"])
    assert sorted(game.children("BBB/-W-/W-W b")) == sorted(
        ["-BB/BW-/W-W w", "-BB/-B-/W-W w", "BB-/-WB/W-W w", "BB-/-B-/W-W w"])
    assert game.primitive("-W-/B--/--- b") == LOSE  # white reached the top row
    assert game.primitive("---/W--/-B- w") == LOSE  # black reached the bottom row
    assert game.primitive("B--/W--/--- w") == LOSE  # white is blocked
    assert game.primitive("B--/W--/--- b") == LOSE  # black is blocked
    assert game.primitive("B--/---/--W b") == 0
    assert game.primitive("---/-W-/--- b") == LOSE  # black has no pawn
    assert ref.Hexapawn(4, 4).start() == "BBBB/----/----/WWWW w"


# --------------------------------------------------------------------------------------
# Connect four
# --------------------------------------------------------------------------------------


def brute_connect(width, height, connect, memo):
    """All positions reachable in Connect-k and the number of move sequences to the end,
    by walking every move sequence (``memo`` False) or every position once (``memo``
    True), with the board kept as a list of column stacks (bottom first)."""

    def render(cols):
        return "/".join(
            "".join(cols[c][r] if r < len(cols[c]) else "-" for c in range(width))
            for r in range(height - 1, -1, -1))

    def wins(cols, p):
        def at(c, r):
            return 0 <= c < width and 0 <= r < len(cols[c]) and cols[c][r] == p

        return any(all(at(c + i * dc, r + i * dr) for i in range(connect))
                   for c in range(width) for r in range(height)
                   for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)))

    sequences_from = {}  # position -> number of move sequences from it to an end

    def walk(cols, mover, last):
        s = render(cols)
        if memo and s in sequences_from:
            return sequences_from[s]
        if (last and wins(cols, last)) or all(len(col) == height for col in cols):
            n = 1
        else:
            n = 0
            for c in range(width):
                if len(cols[c]) < height:
                    cols[c].append(mover)
                    n += walk(cols, "O" if mover == "X" else "X", mover)
                    cols[c].pop()
        sequences_from[s] = n
        return n

    total = walk([[] for _ in range(width)], "X", None)
    return set(sequences_from), total


def test_connect4_3x3_matches_every_move_sequence():
    game, table = solved("Connect4", 3, 3, 3)
    seen, sequences = brute_connect(3, 3, 3, memo=False)
    assert len(table) == len(seen) == 694
    assert set(table) == seen
    assert sum(ref.count_paths(game).values()) == sequences


@pytest.mark.parametrize("width,height,connect", [(4, 3, 3), (3, 4, 3)])
def test_connect4_positions_match_brute_force(width, height, connect):
    game, table = solved("Connect4", width, height, connect)
    seen, sequences = brute_connect(width, height, connect, memo=True)
    assert set(table) == seen
    assert sum(ref.count_paths(game).values()) == sequences


def test_connect4_rules():
    game = ref.Connect4(4, 4, 4)
    assert game.start() == "----/----/----/----"
    assert game.children("----/----/X---/XO-O") == [
        "----/X---/X---/XO-O", "----/----/XX--/XO-O", "----/----/X---/XOXO",
        "----/----/X--X/XO-O"]
    # A full column is skipped.
    assert sorted(game.children("X---/O---/X---/O---")) == sorted(
        ["X---/O---/X---/OX--", "X---/O---/X---/O-X-", "X---/O---/X---/O--X"])
    assert game.primitive("----/----/OOO-/XXXX") == LOSE  # horizontal
    assert game.primitive("X---/XO--/XO--/XO--") == LOSE  # vertical, O to move
    assert game.primitive("---X/--XX/OXOO/XOOX") == LOSE  # diagonal, O to move
    assert game.primitive("O---/XO--/OXO-/XXXO") == LOSE  # anti-diagonal, X to move
    assert game.primitive("XOXO/XOXO/OXOX/OXOX") == TIE
    assert game.primitive("----/----/OOO-/XXX-") == 0
    assert ref.Connect4(3, 3, 3).primitive("---/OO-/XXX") == LOSE


def mirror_rows(s):
    return "/".join(row[::-1] for row in s.split("/"))


def test_connect4_mirror_symmetry():
    _, table = solved("Connect4", 4, 3, 3)
    for s, entry in table.items():
        assert table[mirror_rows(s)] == entry


def test_tictactoe_symmetry():
    _, table = solved("TicTacToe")

    def rotate(s):
        g = s.split("/")
        return "/".join("".join(g[2 - c][r] for c in range(3)) for r in range(3))

    for s, entry in table.items():
        t = s
        for _ in range(4):
            t = rotate(t)
            assert table[t] == entry
            assert table[mirror_rows(t)] == entry


def test_hexapawn_and_pegsolitaire_mirror_symmetry():
    _, table = solved("Hexapawn", 4, 4)
    for s, entry in table.items():
        board, side = s.split(" ")
        assert table[mirror_rows(board) + " " + side] == entry
    _, table = solved("PegSolitaireTriangle", 5)
    for s, entry in table.items():  # the corner vacancy is on the mirror axis
        assert table[mirror_rows(s)] == entry


# --------------------------------------------------------------------------------------
# Against the naive solver and the local definition
# --------------------------------------------------------------------------------------


GAMES = [
    ("TicTacToe",),
    ("Hexapawn", 3, 3),
    ("Hexapawn", 4, 3),
    ("Hexapawn", 3, 4),
    ("Connect4", 3, 3, 3),
    ("Connect4", 3, 4, 3),
    ("PegSolitaireTriangle", 5),
    ("PegSolitaireTriangle", 4, (1, 0)),
    ("Hanoi", 3, 3),
    ("Hanoi", 3, 4),
]


@pytest.mark.parametrize("spec", GAMES, ids=lambda spec: "-".join(map(str, spec)))
def test_against_naive_solver(spec):
    game, table = solved(*spec)
    assert naive_solve(game) == table
    assert ref.verify(game, table) == []


def test_verify_catches_mistakes():
    game, table = solved("TicTacToe")
    bad = dict(table)
    bad["---/---/---"] = (TIE, 8)
    assert len(ref.verify(game, bad)) == 1
    bad = dict(table)
    bad["XX-/OO-/---"] = (WIN, 3)
    assert len(ref.verify(game, bad)) == 1


# --------------------------------------------------------------------------------------
# Hand-built graphs
# --------------------------------------------------------------------------------------


def test_loopy_draw():
    # a <-> b is a cycle; a can also move to w, where the mover wins, so a prefers the
    # cycle: a and b are DRAW. c can move to a or to l (mover loses): WIN in 1. d can only
    # move to w: LOSE in 1. e can only move into the cycle: DRAW.
    game = ref.GraphGame(
        "s",
        {"s": ["a", "c", "d", "e"], "a": ["b", "w"], "b": ["a"], "c": ["a", "l"],
         "d": ["w"], "e": ["a"]},
        {"w": WIN, "l": LOSE},
    )
    table = ref.solve(game)
    assert table["a"] == table["b"] == table["e"] == (DRAW, 0)
    assert table["c"] == (WIN, 1)
    assert table["d"] == (LOSE, 1)
    assert table["s"] == (WIN, 2)
    assert table["w"] == (WIN, 0) and table["l"] == (LOSE, 0)
    assert ref.analyze(game, table)["values"] == {"draw": 3, "win": 3, "lose": 2}
    assert ref.verify(game, table) == []
    with pytest.raises(ValueError):
        ref.count_paths(game)


def test_loopy_forced_win():
    # a <-> b, a -> l: a wins at once; b must move to a, so b loses in 2; x -> b wins in 3.
    game = ref.GraphGame("x", {"x": ["b"], "a": ["b", "l"], "b": ["a"]}, {"l": LOSE})
    table = ref.solve(game)
    assert table == {"x": (WIN, 3), "b": (LOSE, 2), "a": (WIN, 1), "l": (LOSE, 0)}


def test_tie_and_lose_remoteness():
    game = ref.GraphGame(
        "s",
        {
            # TIE: 1 + the smallest TIE child remoteness, even next to a WIN child.
            "s": ["t0", "p", "w0"], "p": ["q"], "q": ["t1"],
            # LOSE: 1 + the largest WIN child remoteness.
            "L": ["w0", "W1"], "W1": ["l0", "L"],
            # WIN: 1 + the smallest LOSE child remoteness.
            "W": ["L", "l0", "s"],
            # A TIE child beats WIN children; a LOSE child beats a TIE child.
            "T": ["W", "W1", "s"], "X": ["T", "L"],
            "root": ["s", "L", "W", "T", "X"],
        },
        {"t0": TIE, "t1": TIE, "w0": WIN, "l0": LOSE},
    )
    game._start = "root"
    table = ref.solve(game)
    assert table["q"] == (TIE, 1)
    assert table["p"] == (TIE, 2)
    assert table["s"] == (TIE, 1)
    assert table["W1"] == (WIN, 1)
    assert table["L"] == (LOSE, 2)
    assert table["W"] == (WIN, 1)
    assert table["T"] == (TIE, 2)
    assert table["X"] == (WIN, 3)
    assert table["root"] == (WIN, 3)
    assert ref.verify(game, table) == []
    assert naive_solve(game) == table
    # Two moves to the same child count as two move sequences.
    dup = ref.GraphGame("s", {"s": ["a", "a", "b"], "a": ["t"], "b": ["t", "l"]},
                        {"t": TIE, "l": LOSE})
    assert ref.count_paths(dup) == {"tie": 3, "lose": 1}


def test_puzzle_graph():
    # A loopy puzzle: a <-> b with b -> g (goal) two moves away from a; c <-> d can never
    # reach a goal; e is a dead end.
    game = ref.GraphGame(
        "s",
        {"s": ["a", "c", "e"], "a": ["b", "c"], "b": ["a", "g"], "c": ["d"], "d": ["c"]},
        {"g": WIN, "e": LOSE},
        puzzle=True,
    )
    table = ref.solve(game)
    assert table == {"s": (WIN, 3), "a": (WIN, 2), "b": (WIN, 1), "g": (WIN, 0),
                     "c": (LOSE, 0), "d": (LOSE, 0), "e": (LOSE, 0)}
    a = ref.analyze(game, table)
    assert a["values"] == {"win": 4, "lose": 3}
    assert a["remoteness"] == {0: {"win": 1}, 1: {"win": 1}, 2: {"win": 1}, 3: {"win": 1}}
    assert a["max_remoteness"] == 3
    assert a["start"] == (WIN, 3)


def random_graph(rng, n, puzzle):
    nodes = [f"n{i}" for i in range(n)]
    prims = {}
    edges = {}
    for s in nodes:
        if rng.random() < 0.2:
            prims[s] = rng.choice([WIN, LOSE] if puzzle else [WIN, LOSE, TIE, LOSE])
        else:
            edges[s] = [rng.choice(nodes) for _ in range(rng.randint(1, 3))]
    edges["n0"] = nodes[1:]  # the start reaches everything
    prims.pop("n0", None)
    return ref.GraphGame("n0", edges, prims, puzzle=puzzle)


@pytest.mark.parametrize("puzzle", [False, True])
def test_random_loopy_graphs(puzzle):
    rng = random.Random(12345 + puzzle)
    values = set()
    for _ in range(300):
        game = random_graph(rng, rng.randint(2, 25), puzzle)
        table = ref.solve(game)
        assert table == naive_solve(game)
        assert ref.verify(game, table) == []
        values |= {v for v, _ in table.values()}
    assert values == ({WIN, LOSE} if puzzle else {WIN, LOSE, TIE, DRAW})


def test_analyze_shape():
    game, table = solved("Hexapawn", 3, 3)
    a = ref.analyze(game, table)
    assert set(a) == {"positions", "values", "remoteness", "max_remoteness", "start"}
    assert a["start"] == table[game.start()]
    assert a["positions"] == len(table) == sum(a["values"].values())
    assert max(a["remoteness"]) == a["max_remoteness"]
    assert all(n > 0 for d in a["remoteness"].values() for n in d.values())
