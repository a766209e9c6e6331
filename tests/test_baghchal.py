"""Bagh-Chal: every reachable position of small variants against the independent reference
rules (tests/ref_baghchal.py solved by tests/reference.py), hash round trips, tiers,
hand-made rule positions (captures, diagonal lines, traps, stalemates, capture limits), and
the board's symmetries (the reduced solves answer every position as the unreduced ones)."""

from __future__ import annotations

import importlib
import random

import numpy as np
import pytest
import ref_baghchal
import reference
from checks import WORDS, arrays, benchmark, named_children, parents_of
from numba import njit

from games import baghchal
from games.baghchal import BaghChal, line_tables
from games.base import LOSE, PositionError, VariantError
from games.common import mask_symmetry_cells, square_symmetries
from solver.kernels.numbering import Numbering
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.storage.database import Database
from solver.use.analysis import analyze
from solver.use.api import Solved

# (variant, expected start value, remoteness): the default, the GamesCrafters 3x3 game
# (4 tigers, 4 goats, play until all goats are gone), and a drawn 4x4 board (whose
# top-right and bottom-left corners have no diagonal lines)
SMALL = [
    ({}, "win", 13),
    ({"size": 3, "tigers": 4, "goats": 4, "captures": 4}, "lose", 12),
    ({"size": 4, "tigers": 1, "goats": 2, "captures": 1}, "draw", None),
]


def _ids(cases):
    return [BaghChal(**v).variant_key for v, *_ in cases]


@pytest.fixture(scope="module")
def solved_root(tmp_path_factory):
    return tmp_path_factory.mktemp("baghchal-db")


_REF: dict[str, tuple] = {}


def reference_of(game: BaghChal):
    """(table, prim, kids, rules) of the reference for the game's variant, cached."""
    key = game.variant_key
    if key not in _REF:
        ref = ref_baghchal.BaghChal(**game.variant)
        prim, kids = reference.build_graph(ref)
        _REF[key] = (reference.solve(ref), prim, kids, ref)
    return _REF[key]


@pytest.mark.parametrize("variant,value,remoteness", SMALL, ids=_ids(SMALL))
def test_every_reachable_position_matches_reference(variant, value, remoteness, solved_root):
    game = BaghChal(**variant)
    table, _prim, _kids, ref = reference_of(game)
    assert game.to_string(game.start) == ref.start()
    methods = applicable_methods(game)
    assert "bottomup" in methods
    for method in methods:
        root = solved_root / method
        result = solve(game, method, root=root)
        assert result.positions == len(table), method
        db = Solved(game, root)
        for pos, (v, r) in table.items():
            word, rem = db.lookup(game.from_string(pos))
            assert (word, rem or 0) == (WORDS[v], r), (method, pos)
        if value is not None:
            info = db.query()
            assert (info.value, info.remoteness) == (value, remoteness), method


@pytest.mark.parametrize("variant", [v for v, *_ in SMALL], ids=_ids(SMALL))
def test_moves_and_primitives_match_reference(variant):
    game = BaghChal(**variant)
    _table, prim, kids, _ref = reference_of(game)
    for pos, p in prim.items():
        h = game.from_string(pos)
        assert game.to_string(h) == pos
        assert game.primitive_value(h) == p, pos
        got = sorted(game.to_string(c) for _, c in game.moves(h))
        assert got == sorted(kids[pos]), pos


PARENT_CASES = [v for v, *_ in SMALL] + [{"size": 4}, {"size": 5}]


@pytest.mark.parametrize("variant", PARENT_CASES, ids=[BaghChal(**v).variant_key
                                                        for v in PARENT_CASES])
def test_parents_invert_children(variant):
    game = BaghChal(**variant)
    rng = random.Random(3)
    for _ in range(1500):
        h = rng.randrange(game.hash_size)
        ps = parents_of(game, h)
        assert len(ps) == len(set(ps)), game.to_string(h)
        for p in ps:
            assert h in [c for _, c in game.moves(p)], (game.to_string(p), game.to_string(h))
        for _, c in game.moves(h):
            assert h in parents_of(game, c), (game.to_string(h), game.to_string(c))


def test_hash_round_trip_whole_space():
    game = BaghChal()
    for h in range(game.hash_size):
        assert game.from_string(game.to_string(h)) == h


def test_hash_round_trip_5x5_samples():
    game = BaghChal(size=5)
    rng = random.Random(5)
    for _ in range(3000):
        h = rng.randrange(game.hash_size)
        assert game.from_string(game.to_string(h)) == h


@pytest.mark.parametrize("size", [3, 4, 5])
def test_in_tier_rank_is_the_generic_hash(size):
    """Inside a tier, boards are numbered as hashing.HashContext numbers them."""
    game = BaghChal(size=size)
    rng = random.Random(size)
    tiers = game.tiers()
    for _ in range(500):
        h = rng.randrange(game.hash_size)
        t = _tier_index(tiers, h)
        p, k, side = game.tier_keys[t]
        cells, side_char, _, _ = game.decode(h)
        board = np.array(["TG-".index(c) for c in cells], dtype=np.int8)
        g = p - k
        combo = game.hash.combo_id((game.ntigers, g, game.cells - game.ntigers - g))
        local = game.hash.rank(board) - int(game.hash.offsets[combo])
        turn = "gt".index(side_char) if side == 2 else 0
        assert h == tiers[t].start + turn * (tiers[t].size // (2 if side == 2 else 1)) + local


def _tier_index(tiers, h):
    for i, t in enumerate(tiers):
        if t.start <= h < t.stop:
            return i
    raise AssertionError(h)


def _check_tiers(game, hashes):
    tiers = game.tiers()
    assert tiers[0].start == 0 and tiers[-1].stop == game.hash_size
    for a, b in zip(tiers, tiers[1:], strict=False):
        assert a.stop == b.start and a.size > 0
    for h in hashes:
        t = _tier_index(tiers, h)
        for _, c in game.moves(h):
            assert _tier_index(tiers, c) in tiers[t].children, (game.to_string(h), tiers[t])
    return tiers


@pytest.mark.parametrize("variant", [v for v, *_ in SMALL], ids=_ids(SMALL))
def test_tiers_cover_and_bound_children(variant):
    game = BaghChal(**variant)
    sample = random.Random(1).sample(range(game.hash_size), min(game.hash_size, 4000))
    tiers = _check_tiers(game, sample)
    for i, (t, (p, k, _side)) in enumerate(zip(tiers, game.tier_keys, strict=True)):
        assert t.label.startswith(f"placed={p} captured={k} ")
        assert (i in t.children) == (p == game.ngoats and k < game.ncaptures), t
        if k == game.ncaptures:
            assert t.children == ()  # the tigers have won: nothing follows


def test_tiers_5x5():
    game = BaghChal(size=5)
    assert game.hash_size == 291_228_843_950
    tiers = game.tiers()
    # placement: goats-to-move tiers (p, k<=min(p,5)) and tigers-to-move ones; sliding: 6
    assert len(tiers) == 196
    rng = random.Random(7)
    _check_tiers(game, [rng.randrange(game.hash_size) for _ in range(1500)])
    start_tier = tiers[_tier_index(tiers, game.start)]
    assert start_tier.label == "placed=0 captured=0 goats"


# -- hand-made positions on the standard board ------------------------------------------

STD = BaghChal(size=5)


def test_standard_start():
    assert STD.variant == {"size": 5, "tigers": 4, "goats": 20, "captures": 5}
    start = STD.to_string(STD.start)
    assert start == "T---T/-----/-----/-----/T---T g 20 0"
    m = named_children(STD, start)
    assert len(m) == 21 and "c3" in m
    assert m["c3"] == "T---T/-----/--G--/-----/T---T t 19 0"


def test_diagonals_only_on_even_points():
    # b3, d3, b1, d1 are odd points: orthogonal lines only
    m = named_children(STD, "----G/-----/-T-T-/-----/-T-T- t 19 0")
    assert {n for n in m if n.startswith("b3")} == {"b3-b4", "b3-a3", "b3-c3", "b3-b2"}
    assert {n for n in m if n.startswith("b1")} == {"b1-a1", "b1-c1", "b1-b2"}
    # c3 (the centre) is even: 8 lines
    m = named_children(STD, "----G/-----/--T--/-----/T-T-T t 19 0")
    assert {n for n in m if n.startswith("c3")} == {
        "c3-b4", "c3-c4", "c3-d4", "c3-b3", "c3-d3", "c3-b2", "c3-c2", "c3-d2"}
    # b5 is odd: no slide to c4 and no jump over c4 to d3; a5 is even: a5-b4
    m = named_children(STD, "-T--T/--G--/-----/-----/T---T t 19 0")
    assert {n for n in m if n.startswith("b5")} == {"b5-a5", "b5-c5", "b5-b4"}


def test_captures():
    # the c3 tiger has a goat on each of its 8 neighbours; it jumps wherever the point
    # behind is empty (a5, e5, a3, e3), not onto the c5 / c1 goats or the a1 / e1 tigers
    pos = "-TG--/-GGG-/-GTG-/-GGG-/T-G-T t 10 0"
    m = named_children(STD, pos)
    assert set(m) == {"c3xa5", "c3xe5", "c3xa3", "c3xe3", "b5-a5", "b5xd5",
                      "a1-a2", "a1-b1", "e1-e2", "e1-d1"}
    assert m["c3xa5"] == "TTG--/--GG-/-G-G-/-GGG-/T-G-T g 10 1"
    assert m["b5xd5"] == "---T-/-GGG-/-GTG-/-GGG-/T-G-T g 10 1"
    assert m["a1-a2"] == "-TG--/-GGG-/-GTG-/TGGG-/--G-T g 10 0"


def test_capture_goes_to_the_next_count():
    m = named_children(STD, "T---T/-----/--G--/-----/T---T t 19 0")
    assert all("x" not in n for n in m)  # no goat next to a tiger along a line
    m = named_children(STD, "T---T/-G---/-----/-----/T---T t 19 0")
    assert m["a5xc3"] == "----T/-----/--T--/-----/T---T g 19 1"  # diagonal capture
    assert "a5-b4" not in m and {"a5-b5", "a5-a4"} <= set(m)  # capturing is optional


def test_tiger_win_by_captures():
    # goats to move after the 5th capture: lost
    pos = "T---T/-----/-----/-----/T---T g 15 5"
    assert STD.primitive_value(STD.from_string(pos)) == LOSE
    # 4 captured: the game goes on
    pos = "T---T/-----/-G---/-----/T---T g 15 4"
    assert STD.primitive_value(STD.from_string(pos)) == 0


def test_goats_win_by_trapping():
    # all 20 goats placed, the one empty point c4 is out of every tiger's reach
    pos = "TGGGT/GG-GG/GGGGG/GGGGG/TGGGT t 0 0"
    assert STD.primitive_value(STD.from_string(pos)) == LOSE
    # b4 is on the a5 tiger's diagonal: it can slide there
    pos = "TGGGT/G-GGG/GGGGG/GGGGG/TGGGT t 0 0"
    assert named_children(STD, pos) == {"a5-b4": "-GGGT/GTGGG/GGGGG/GGGGG/TGGGT g 0 0"}
    # c3 is two steps along the a5 / e5 / a1 / e1 diagonals: four captures
    pos = "TGGGT/GGGGG/GG-GG/GGGGG/TGGGT t 0 0"
    assert set(named_children(STD, pos)) == {"a5xc3", "e5xc3", "a1xc3", "e1xc3"}


def test_goats_without_a_move_lose():
    # sliding phase, the only empty point a5 is surrounded by tigers
    pos = "-TGGG/TTGGG/GGGGG/GGGGG/GGGGT g 0 0"
    assert STD.primitive_value(STD.from_string(pos)) == LOSE
    # empty b5 is odd: its lines go to a5, c5 and b4 only, not to the a4 / c4 goats
    pos = "T-TGG/GTGGG/GGGGG/GGGGG/GGGGT g 0 0"
    assert STD.primitive_value(STD.from_string(pos)) == LOSE
    pos = "T-TGG/TGGGG/GGGGG/GGGGG/GGGGT g 0 0"
    assert set(named_children(STD, pos)) == {"b4-b5"}


def test_3x3_trap_in_database(solved_root):
    game = BaghChal()
    solve(game, "bottomup", root=solved_root / "bottomup")
    db = Solved(game, solved_root / "bottomup")
    trapped = "TGG/GG-/G-G t 0 0"
    assert game.primitive_value(game.from_string(trapped)) == LOSE
    info = db.query(trapped)
    assert (info.value, info.remoteness, info.moves) == ("lose", 0, [])
    won = "---/---/--T g 4 2"  # two goats captured: the tigers have won
    info = db.query(won)
    assert (info.value, info.remoteness) == ("lose", 0)
    best = db.best_moves()
    assert best and all(m.value == "lose" for m in best)
    assert game.analysis_extras(db)["outcome"] == "the goats win in 13 moves"


# -- variants and position strings -----------------------------------------------------

def test_variant_defaults_per_size():
    assert BaghChal().variant == {"size": 3, "tigers": 1, "goats": 6, "captures": 2}
    assert BaghChal(size=4).variant == {"size": 4, "tigers": 2, "goats": 8, "captures": 3}
    assert BaghChal(size=4, goats=5).variant["captures"] == 3
    assert BaghChal(size=5).variant_key == "size=5,tigers=4,goats=20,captures=5"
    assert BaghChal(size=4, tigers=3).to_string(BaghChal(size=4, tigers=3).start) == \
        "T--T/----/----/---T g 8 0"


@pytest.mark.parametrize("variant", [
    {"size": 6}, {"size": 3, "tigers": 5}, {"size": 3, "goats": 9}, {"size": 3, "goats": 3,
                                                                    "captures": 4},
    {"boardsize": 3}, {"size": 3, "goats": 0},
])
def test_bad_variants(variant):
    with pytest.raises(VariantError):
        BaghChal(**variant)


@pytest.mark.parametrize("pos", [
    "T--/---/---",                 # fields missing
    "T--/---/--- x 6 0",           # side
    "T--/---/--- g six 0",         # not a number
    "T--/---/--T g 6 0",           # two tigers
    "T--/---/-- g 6 0",            # short row
    "T--/-Q-/--- g 6 0",           # bad character
    "T--/-G-/--- g 6 0",           # 0 placed but a goat on the board
    "T--/---/--- t 6 0",           # tigers cannot move first
    "T--/---/--- t 5 1",           # tigers to move after 1 placement cannot have captured
    "T--/---/--- g 7 0",           # more goats in hand than the variant has
    "T--/---/--- g 3 3",           # more captures than the game allows
    "T--/-G-/--- t 3 2",           # the game ended with the 2nd capture: goats to move
])
def test_bad_positions(pos):
    with pytest.raises(PositionError):
        BaghChal().from_string(pos)


def test_4x4_odd_corners():
    # on 4x4 the top-right and bottom-left corners are odd points: no diagonal line
    game = BaghChal(size=4, tigers=3, goats=1, captures=1)
    m = named_children(game, "T--T/-G--/----/---T t 0 0")
    assert {n for n in m if n.startswith("d4")} == {"d4-c4", "d4-d3"}
    assert {n for n in m if n.startswith("a4")} == {"a4-b4", "a4-a3", "a4xc2"}
    assert {n for n in m if n.startswith("d1")} == {"d1-c1", "d1-d2", "d1-c2"}


def test_move_names():
    game = BaghChal()
    names = [n for n, _ in game.moves(game.start)]
    assert sorted(names) == sorted(["b3", "c3", "a2", "b2", "c2", "a1", "b1", "c1"])
    m = named_children(game, "T--/-G-/--- t 5 0")
    assert set(m) == {"a3-b3", "a3-a2", "a3xc1"}
    assert m["a3xc1"] == "---/---/--T g 5 1"


# -- symmetry -------------------------------------------------------------------------

def _line_steps(size: int) -> tuple[set, set]:
    """Every line step {i, j} and every jump (i, over, to) of the board, from its rules'
    tables."""
    nbr, beyond = line_tables(size)
    steps, jumps = set(), set()
    for i in range(size * size):
        for d in range(8):
            if nbr[i, d] >= 0:
                steps.add(frozenset((i, int(nbr[i, d]))))
            if beyond[i, d] >= 0:
                jumps.add((i, int(nbr[i, d]), int(beyond[i, d])))
    return steps, jumps


def _line_keeping_maps(size: int) -> list[tuple[int, ...]]:
    """The symmetries of the square (common.square_symmetries, as maps cell -> its image
    cell) that map every line step to a line step and every jump to a jump."""
    steps, jumps = _line_steps(size)
    out = []
    for perm in square_symmetries(size):  # image[i] = board[perm[i]]: perm[i] goes to i
        to = [0] * (size * size)
        for i, src in enumerate(perm):
            to[src] = i
        if ({frozenset(to[i] for i in s) for s in steps} == steps
                and {(to[a], to[b], to[c]) for a, b, c in jumps} == jumps):
            out.append(tuple(to))
    return out


@pytest.mark.parametrize("size", [3, 4, 5])
def test_symmetries_form_a_group_that_keeps_the_lines(size):
    game = BaghChal(size=size)
    where = mask_symmetry_cells(size)
    group = {tuple(int(x) for x in where[s]) for s in range(8) if game.symmetries >> s & 1}
    assert group == set(_line_keeping_maps(size))
    assert len(group) == {3: 8, 4: 4, 5: 8}[size]
    assert tuple(range(size * size)) in group
    assert all(tuple(p[q[i]] for i in range(size * size)) in group for p in group for q in group)
    if size == 4:  # the identity, the half turn and the two diagonal reflections: the maps
        # that keep (row + column)'s parity, so even points stay even
        assert all((p[i] // 4 + p[i] % 4) % 2 == (i // 4 + i % 4) % 2 for p in group
                   for i in range(16))
        assert {p[0] for p in group} == {0, 15} and {p[3] for p in group} == {3, 12}


def _images(game: BaghChal, h: int) -> list[int]:
    """The hashes of h's images under the line-keeping symmetries, from its string."""
    n = game.size
    board, rest = game.to_string(h).split(" ", 1)
    cells = board.replace("/", "")
    out = []
    for to in _line_keeping_maps(n):
        moved = [""] * (n * n)
        for i, ch in enumerate(cells):
            moved[to[i]] = ch
        rows = "/".join("".join(moved[r * n:(r + 1) * n]) for r in range(n))
        out.append(game.from_string(f"{rows} {rest}"))
    return out


def test_sliding_phase_positions_up_to_symmetry_as_published():
    """Lim and Nievergelt's sliding-phase database (all 20 goats placed, under 5 captured,
    either side to move) holds 88,260,972 positions inequivalent under symmetry ("Tigers
    and Goats is a draw", Games of No Chance 3, 2009). Burnside's lemma over the game's
    symmetry cells gives that count; the game's own `canonical`, walked over every board of
    the k = 0 and 1 tiers, agrees with Burnside there (benchmarks/baghchal_counts.py
    counts the rest in half a minute)."""
    counts = benchmark("baghchal_counts")
    game = BaghChal(size=5)
    assert sum(2 * counts.burnside(game, 20 - k) for k in range(5)) == 88_260_972
    scratch = np.zeros(game.scratch_size, np.int8)
    for tier, (placed, k, side) in zip(game.tiers(), game.tier_keys, strict=True):
        if side == baghchal.BOTH and placed == 20 and k < 2:
            n = 0
            for first in (tier.start, tier.start + tier.size // 2):  # either side to move
                a, _, checked = counts._walk(game.ctx, first, 4, 20 - k, tier.size // 2,
                                             997, scratch)
                assert checked > 0
                n += a
            assert n == 2 * counts.burnside(game, 20 - k) == (66_962, 666_350)[k]


@pytest.mark.parametrize("size,count", [(3, None), (4, 3000), (5, 3000)])
def test_canonical_is_the_smallest_image(size, count):
    """canonical() compares masks and ranks once; it must be the image of smallest hash,
    found here from position strings; orbit() the number of distinct images."""
    game = BaghChal(size=size)
    rules = importlib.import_module(type(game).module)
    scratch = np.zeros(game.scratch_size, np.int8)
    hashes = (range(game.hash_size) if count is None
              else random.Random(size).sample(range(game.hash_size), count))
    orbits = set()
    for h in hashes:
        images = _images(game, h)
        assert game.canonical(h) == min(images), game.to_string(h)
        orbit = int(rules.orbit(game.ctx, h, scratch))
        assert orbit == len(set(images)), game.to_string(h)
        orbits.add(orbit)
    assert max(orbits) == len(_line_keeping_maps(size))


@pytest.mark.parametrize("size", [4, 5])
def test_canonical_forms_of_the_rules(size):
    """children_canonical: the plain children in the same order with the same move codes,
    each replaced by its canonical form; parents_canonical: the canonical forms of the
    plain parents (random slots, reachable or not)."""
    game = BaghChal(size=size)
    out, codes, scratch = game._buffers()
    pout = np.empty(game.max_parents, np.int64)
    rng = random.Random(size)
    moved = 0
    for _ in range(1500):
        h = rng.randrange(game.hash_size)
        plain = [] if game.primitive_value(h) else game.moves(h)
        n = baghchal.children_canonical(game.ctx, h, out, codes, scratch) if plain else 0
        assert [game.canonical(c) for _, c in plain] == out[:n].tolist()
        assert [name for name, _ in plain] == [game.move_name(h, int(c)) for c in codes[:n]]
        m = baghchal.parents_canonical(game.ctx, h, pout, scratch)
        assert sorted(set(pout[:m].tolist())) == sorted({game.canonical(q)
                                                         for q in parents_of(game, h)})
        moved += n + m
    assert moved > 10_000


@njit(cache=True)
def _canonical_all(ctx, hashes, scratch):
    out = np.empty_like(hashes)
    for i in range(hashes.shape[0]):
        out[i] = baghchal.canonical(ctx, hashes[i], scratch)
    return out


@njit(cache=True)
def _orbits(ctx, hashes, scratch):
    total = 0
    for h in hashes:
        total += baghchal.orbit(ctx, h, scratch)
    return total


@pytest.fixture(scope="module")
def plain_solves(tmp_path_factory):
    """The unreduced solve of a variant, once per module: (root, values, remoteness)."""
    root = tmp_path_factory.mktemp("baghchal-plain")
    done = {}

    def get(variant):
        key = BaghChal(**variant).variant_key
        if key not in done:
            game = BaghChal(**variant)
            solve(game, "retrograde", root=root / key)
            done[key] = (root / key, *arrays(game, root / key))
        return done[key]

    return get


# the default 3x3 by every method (its one tiger's start is no symmetric position: the
# reduced solve reaches the images of positions reached from the other corners), a smaller
# 4x4 game by the loopy methods (bottom-up's sweeps take a minute there) and the 4x4
# "lite" game by retrograde
SYMMETRY_CASES = ([({}, m) for m in applicable_methods(BaghChal)]
                  + [({"size": 4, "goats": 5}, m) for m in ("tiers", "retrograde")]
                  + [({"size": 4}, "retrograde")])


@pytest.mark.parametrize("variant,method", SYMMETRY_CASES,
                         ids=[f"{BaghChal(**v).variant_key}-{m}" for v, m in SYMMETRY_CASES])
def test_reduced_solve_answers_every_position(variant, method, plain_solves, tmp_path):
    """Solved on canonical positions only, every position reachable in the unreduced
    solve answers exactly as there, through the database and the API."""
    proot, va, ra = plain_solves(variant)
    game = Numbering(BaghChal(**variant), True)
    result = solve(game, method, root=tmp_path)
    vb, rb = arrays(game, tmp_path)
    reached = np.flatnonzero(va)
    canon = _canonical_all(game.ctx, reached, np.zeros(game.scratch_size, np.int8))
    stored = np.flatnonzero(vb)
    assert np.array_equal(stored, np.unique(canon))  # canonical slots only
    assert result.positions == stored.size < reached.size
    assert np.array_equal(vb[canon], va[reached]) and np.array_equal(rb[canon], ra[reached])
    orbits = _orbits(game.ctx, stored, np.zeros(game.scratch_size, np.int8))
    if game.to_string(game.start).startswith("T--/"):  # 3x3: other corner starts too
        assert orbits > reached.size
    else:  # the start is symmetric: the reachable positions are whole orbits
        assert orbits == reached.size
    # through the API, with a plain game object (it learns the symmetry from the database)
    reduced, plain = Solved(BaghChal(**variant), tmp_path), Solved(BaghChal(**variant), proot)
    for h in random.Random(2).sample(reached.tolist(), min(2000, reached.size)):
        assert reduced.lookup(h) == plain.lookup(h), BaghChal(**variant).to_string(h)
    assert reduced.query() == plain.query()
    if orbits == reached.size:  # every position counted through its orbit: as unreduced
        report = analyze(Database.open(game, tmp_path), by_tier=True)
        for part in (report, *report["tiers"]):  # each tier's too
            part.pop("canonical")
        assert report == analyze(Database.open(BaghChal(**variant), proot), by_tier=True)


@njit
def _numbering_of_canonical(canonical, index, slot, ctx, n, scratch):
    """(canonical slots, their indices, the slots the indices give back) of hashes 0..n-1."""
    hs, ix, back = [], [], []
    for h in range(n):
        if canonical(ctx, h, scratch) == h:
            i = index(ctx, h)
            hs.append(h)
            ix.append(i)
            back.append(slot(ctx, i))
    return np.array(hs), np.array(ix), np.array(back)


@pytest.mark.parametrize("size,canonical", [(3, 1428), (4, 1_871_316)])
def test_the_numbering_of_canonical_positions_is_exact(size, canonical):
    """games/baghchal.py numbers canonical positions by least tiger sets
    (hashing/orbits.py): every canonical slot, found by `canonical` alone, has an index in
    hash order below canonical_size that canonical_slot gives back."""
    game = BaghChal(size=size)
    mod = importlib.import_module(game.module)
    hs, ix, back = _numbering_of_canonical(mod.canonical, mod.canonical_index,
                                           mod.canonical_slot, game.ctx, game.hash_size,
                                           np.zeros(game.scratch_size, np.int8))
    assert hs.size == canonical and np.array_equal(back, hs)
    assert np.all(np.diff(ix) > 0) and ix[0] >= 0 and ix[-1] < game.canonical_size
    if size == 4:  # gaps: tiger sets with symmetries of their own (size 3: the one tiger)
        assert game.canonical_size == 2_358_280

