"""Quarto: hash, rules and solved values against the independent reference (ref_quarto).

The default variant (3x3, 8 pieces; 6.4 million reachable positions) takes about 10 s to
solve on two cores, so its solved values are compared with the reference (in subtrees
below random mid-game positions) only when GSOLVE_SLOW=1; its rules (every position of
random games, move by move) always are. All 6.4 million positions were compared once with
the full reference solve (about 30 minutes of plain Python): no difference.
"""

import importlib
import itertools
import os
import random

import numpy as np
import pytest
import ref_quarto
import reference
from checks import WORDS, reference_table

from games.base import LOSE, TIE, PositionError
from games.common import line_table
from games.quarto import Quarto, cell_symmetries
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.use.api import Solved

SMALL = [(2, 2), (2, 3), (2, 4), (3, 2)]
# (reachable positions, start value, start remoteness)
KNOWN = {(2, 2): (245, "lose", 4), (2, 3): (1385, "lose", 4), (2, 4): (6353, "lose", 4),
         (3, 2): (6017, "tie", 5), (3, 3): (6408705, "lose", 6)}


def ref_table(size, attributes):
    return reference_table(ref_quarto.Quarto, size, attributes)


def game(size=3, attributes=3):
    return Quarto(size=size, attributes=attributes)


def check_against_reference(g, solved, ref):
    for position, (value, rem) in ref.items():
        h = g.from_string(position)
        assert g.to_string(h) == position
        assert solved.lookup(h) == (WORDS[value], rem), position
    values = solved.db.value_array[:]
    assert int((values != 0).sum()) == len(ref)


@pytest.mark.parametrize("method", applicable_methods(Quarto))
@pytest.mark.parametrize("size,attributes", SMALL)
def test_small_variants_match_reference(size, attributes, method, tmp_path):
    g = game(size, attributes)
    ref = ref_table(size, attributes)
    result = solve(g, method, root=tmp_path)
    count, value, rem = KNOWN[(size, attributes)]
    assert result.positions == len(ref) == count
    assert (result.start_value, result.start_remoteness) == (value, rem)
    check_against_reference(g, Solved(g, tmp_path), ref)


@pytest.mark.skipif(not os.environ.get("GSOLVE_SLOW"), reason="set GSOLVE_SLOW=1")
def test_default_variant_subtrees_match_reference(tmp_path):
    """Solve 3x3 with 8 pieces; every position below random mid-game positions (and the
    start's immediate surroundings) must match the reference solved from there."""
    g = game()
    result = solve(g, root=tmp_path)
    assert (result.positions, result.start_value, result.start_remoteness) == KNOWN[(3, 3)]
    solved = Solved(g, tmp_path)
    rng = random.Random(7)
    for _ in range(12):
        s, rules = ref_quarto.Quarto(3, 3).start(), ref_quarto.Quarto(3, 3)
        for _ in range(rng.randint(4, 6)):
            if rules.primitive(s):
                break
            s = rng.choice(rules.children(s))
        check_subtree = reference.solve(ref_quarto.Quarto(3, 3, start=s))
        for position, (value, rem) in check_subtree.items():
            assert solved.lookup(g.from_string(position)) == (WORDS[value], rem), position


def random_positions(g, games, seed):
    rng = random.Random(seed)
    for _ in range(games):
        h = g.start
        while True:
            yield h
            moves = g.moves(h)
            if not moves:
                break
            h = rng.choice(moves)[1]


@pytest.mark.parametrize("size,attributes,games", [(3, 3, 60), (3, 4, 40), (4, 3, 30),
                                                   (4, 4, 30), (2, 4, 30)])
def test_rules_match_reference_along_random_games(size, attributes, games):
    g = game(size, attributes)
    rules = ref_quarto.Quarto(size, attributes)
    seen = 0
    for h in random_positions(g, games, seed=size * 10 + attributes):
        s = g.to_string(h)
        assert g.from_string(s) == h
        assert g.primitive_value(h) == rules.primitive(s), s
        moves = g.moves(h)
        kids = [g.to_string(c) for _, c in moves]
        assert len(kids) <= g.max_children
        if rules.primitive(s):
            assert kids == []
        else:
            assert sorted(kids) == sorted(rules.children(s)), s
        assert all(0 <= c < g.hash_size for _, c in moves)
        seen += 1
    assert seen > games * 3


@pytest.mark.parametrize("size,attributes", [(2, 2), (2, 3), (3, 2)])
def test_hash_is_a_bijection_and_strings_exactly_the_reachable(size, attributes):
    g = game(size, attributes)
    reachable = set(ref_table(size, attributes))
    valid = 0
    for h in range(g.hash_size):
        board, hand = g.board(h)
        assert g.rank_board(board, hand) == h
        s = g.to_string(h)
        try:
            assert g.from_string(s) == h
            valid += 1
            assert s in reachable, s
        except PositionError:
            assert s not in reachable, s
    assert valid == len(reachable)


@pytest.mark.parametrize("size,attributes", [(3, 3), (3, 4), (4, 3), (4, 4)])
def test_hash_roundtrip_large_variants(size, attributes):
    g = game(size, attributes)
    rng = random.Random(size * attributes)
    edges = [0, 1, g.hash_size - 1] + [x + d for x in g.offsets[1:-1] for d in (-1, 0, 1)]
    for h in edges + [rng.randrange(g.hash_size) for _ in range(3000)]:
        board, hand = g.board(h)
        assert g.rank_board(board, hand) == h
        placed = [p for p in board if p >= 0]
        assert len(set(placed)) == len(placed) and hand not in placed


def test_standard_game_is_defined():
    g = game(4, 4)
    assert g.hash_size == 26846616451246353
    assert g.to_string(g.start) == "----/----/----/---- -"
    assert len(g.moves(g.start)) == 16
    assert g.to_string(g.hash_size - 1) == "fedc/ba98/7654/3210 -"
    tiers = g.tiers()
    assert [t.label for t in tiers][:3] == ["start", "0 placed", "1 placed"]
    assert len(tiers) == 18 and tiers[-1].stop == g.hash_size


@pytest.mark.parametrize("size,attributes", [(2, 3), (3, 2), (3, 3), (4, 4)])
def test_tiers_cover_the_hash_and_name_their_children(size, attributes):
    g = game(size, attributes)
    tiers = g.tiers()
    assert tiers[0].start == 0 and tiers[-1].stop == g.hash_size
    for a, b in zip(tiers, tiers[1:], strict=False):
        assert a.stop == b.start and a.size > 0
    if g.hash_size > 10**6:
        return
    where = {}
    for i, t in enumerate(tiers):
        for h in range(t.start, t.stop):
            where[h] = i
    for s in ref_table(size, attributes):
        h = g.from_string(s)
        for _, c in g.moves(h):
            assert where[c] in tiers[where[h]].children


# -- hand-made positions --------------------------------------------------------------

@pytest.mark.parametrize("position", [
    "013/---/--- -",  # top row: 0=000 1=001 3=011 share bit 2 = 0
    "7--/6--/5-- -",  # left column: 7=111 6=110 5=101 share bit 2 = 1
    "-6-/-7-/-3- -",  # middle column: 6=110 7=111 3=011 share bit 1 = 1
    "1--/-5-/--3 -",  # main diagonal: 1=001 5=101 3=011 share bit 0 = 1
    "--4/-2-/0-- -",  # anti-diagonal: 4=100 2=010 0=000 share bit 0 = 0
    "013/-4-/-57 -",  # top row and middle column (1=001 4=100 5=101, bit 1 = 0)
])
def test_lines_on_3x3(position):
    g = game()
    h = g.from_string(position)
    assert g.primitive_value(h) == LOSE == ref_quarto.Quarto(3, 3).primitive(position)


@pytest.mark.parametrize("position", [
    "563/---/--- 0",  # 5=101 6=110 3=011: every attribute differs somewhere
    "124/---/--- 0",  # 1=001 2=010 4=100
    "---/---/256 0",  # 2=010 5=101 6=110
    "1--/-2-/--4 0",
    "--1/-6-/7-- 0",  # 1=001 6=110 7=111
])
def test_no_line_on_3x3(position):
    g = game()
    h = g.from_string(position)  # accepted with a piece in hand: no line was found
    assert g.primitive_value(h) == 0 == ref_quarto.Quarto(3, 3).primitive(position)
    with pytest.raises(PositionError, match="not over"):
        g.from_string(position[:-1] + "-")


def test_every_piece_used_without_a_line_is_a_tie():
    g = game()
    h = g.from_string("427/306/15- -")
    assert g.primitive_value(h) == TIE
    # the 8th placement ends the game: place only, nothing given
    before = g.from_string("427/306/1-- 5")
    assert [n for n, _ in g.moves(before)] == ["8", "9"]
    assert g.to_string(dict(g.moves(before))["8"]) == "427/306/15- -"


@pytest.mark.parametrize("position,line", [
    ("0123/----/----/---- -", True),   # bits 2 and 3 are 0 in all four
    ("fedc/----/----/---- -", True),   # bits 2 and 3 are 1 in all four
    ("---9/--8-/-a--/b--- -", True),   # anti-diagonal: bit 3 is 1 in all four
    ("-5--/-4--/-6--/-c-- -", True),   # column 2: bit 2 is 1 in all four
    ("8---/-4--/--2-/---1 0", False),  # a single 1 bit each, in different places
    ("7---/b---/d---/e--- 0", False),  # a single 0 bit each
])
def test_lines_on_4x4(position, line):
    g = game(4, 4)
    h = g.from_string(position)
    assert g.primitive_value(h) == (LOSE if line else 0)
    assert ref_quarto.Quarto(4, 4).primitive(position) == (LOSE if line else 0)


def test_winning_placement_ends_the_game():
    g = game()
    h = g.from_string("01-/---/--- 3")
    moves = dict(g.moves(h))
    # cell 3 completes the top row (bit 2 = 0): one move, nothing given
    assert g.to_string(moves["3"]) == "013/---/--- -"
    assert not any(name.startswith("3 ") for name in moves)
    # elsewhere: place and give any of the 5 pieces left
    assert sum(name.startswith("4 give") for name in moves) == 5
    assert g.to_string(moves["4 give 7"]) == "01-/3--/--- 7"
    assert len(moves) == 1 + 6 * 5


def test_start_moves_give_a_piece():
    g = game()
    assert g.to_string(g.start) == "---/---/--- -"
    moves = g.moves(g.start)
    assert [n for n, _ in moves] == [f"give {p}" for p in range(8)]
    assert [g.to_string(c) for _, c in moves][:2] == ["---/---/--- 0", "---/---/--- 1"]


def test_solved_hand_checks(tmp_path):
    g = game(2, 4)
    solve(g, root=tmp_path)
    s = Solved(g, tmp_path)
    # 0 and 1 share three attributes, and every free cell is in a line with the 0
    info = s.query("0-/-- 1")
    assert (info.value, info.remoteness) == ("win", 1)
    assert sorted(m.move for m in s.best_moves("0-/-- 1")) == ["2", "3", "4"]
    # f is 0's complement, so placing it makes no line; but every piece left shares an
    # attribute with both 0 and f, and the opponent completes a line with it
    info = s.query("0-/-- f")
    assert (info.value, info.remoteness) == ("lose", 2)
    done = s.query("01/-- -")
    assert (done.value, done.remoteness, done.moves) == ("lose", 0, [])
    assert (s.query().value, s.query().remoteness) == ("lose", 4)


@pytest.mark.parametrize("bad,words", [
    ("---/---/---", "piece in hand"),
    ("---/---/--- 33", "piece in hand"),
    ("---/---- -", "3 rows"),
    ("--x/---/--- -", "'x' is not"),
    ("--8/---/--- -", "'8' is not"),
    ("---/---/--- 8", "not '-' or a piece"),
    ("11-/---/--- 2", "twice"),
    ("1--/---/--- 1", "in hand 1 is on the board"),
    ("013/---/--- 2", "line was completed"),
    ("01-/---/--- -", "not over"),
    ("427/306/15- 6", "on the board"),
    ("427/306/15- -", None),  # every piece used, no line: a finished game
    ("013/---/457 -", "do not share a cell"),  # rows 1 and 3 both complete
    ("  013/-4-/-57   -  ", None),  # two lines through cell 2, spaces around
    ("ABC/---/--- -", "'a' is not"),
])
def test_bad_strings(bad, words):
    g = game()
    if words is None:
        assert g.to_string(g.from_string(bad)) == " ".join(bad.split())
        return
    with pytest.raises(PositionError, match=words):
        g.from_string(bad)


def test_variant_range():
    from games.base import VariantError
    with pytest.raises(VariantError):
        Quarto(size=5)
    with pytest.raises(VariantError):
        Quarto(attributes=1)


# -- symmetries ---------------------------------------------------------------------------
def test_board_symmetries_are_the_line_preserving_permutations():
    """The square's 8 on 3x3; on 4x4 the 32 of Quarto's literature (the square's 8 times
    swapping middle and outer rows and columns, and swapping each pair); on 2x2, where
    every pair of cells is a line, all 24. Each maps every line onto a line, and they form
    a group."""
    for size, count in ((2, 24), (3, 8), (4, 32)):
        perms = cell_symmetries(size)
        assert len(perms) == count and list(perms[0]) == list(range(size * size))
        lines = {frozenset(map(int, line)) for line in line_table(size, size, size)}
        for p in perms:
            assert {frozenset(int(p[c]) for c in line) for line in lines} == lines
        have = {tuple(p) for p in perms}
        assert all(tuple(p[q]) in have for p in perms for q in perms)
    swap_middle = [r * 4 + c for r in (0, 2, 1, 3) for c in (0, 2, 1, 3)]
    inside_out = [r * 4 + c for r in (1, 0, 3, 2) for c in (1, 0, 3, 2)]
    assert {tuple(swap_middle), tuple(inside_out)} <= {tuple(p) for p in cell_symmetries(4)}


def _images_by_hand(g, h):
    """Every image of h, moving pieces and attributes in Python (tests' own loop)."""
    board, hand = g.board(h)
    a = g.attributes
    out = set()
    for perm in cell_symmetries(g.size):
        for order in itertools.permutations(range(a)):
            for flip in range(1 << a):
                def piece(p, order=order, flip=flip):
                    return sum(((p >> i) & 1) << order[i] for i in range(a)) ^ flip
                img = [-1] * g.ncells
                for c in range(g.ncells):
                    if board[c] >= 0:
                        img[int(perm[c])] = piece(int(board[c]))
                out.add(g.rank_board(np.array(img, np.int8), piece(hand) if hand >= 0 else -1))
    return out


@pytest.mark.parametrize("size,attributes,n", [(2, 3, 200), (3, 3, 150), (4, 4, 12)])
def test_canonical_is_the_least_image_and_orbit_counts_them(size, attributes, n):
    g = game(size, attributes)
    rules = importlib.import_module(g.module)
    scratch = np.zeros(g.scratch_size, np.int8)
    rng = np.random.default_rng(11)
    for h in rng.integers(0, g.hash_size, n).tolist():
        images = _images_by_hand(g, h)
        assert rules.canonical(g.ctx, h, scratch) == min(images), g.to_string(h)
        assert rules.orbit(g.ctx, h, scratch) == len(images), g.to_string(h)
