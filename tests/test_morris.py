"""Three, Six and Nine Men's Morris against the plain-Python rules of tests/ref_morris.py."""

from __future__ import annotations

import importlib
import random

import numba
import numpy as np
import pytest
import ref_morris
import reference
from checks import WORDS, benchmark, child_strings, slot_arrays

from games import get_game
from games.base import LOSE, PositionError, VariantError
from games.morris import Morris
from solver.kernels.numbering import Numbering
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.storage.database import Database
from solver.use.analysis import analyze
from solver.use.api import Solved


@pytest.fixture(scope="module")
def three():
    return get_game("morris", "men=3")


@pytest.fixture(scope="module")
def six():
    return get_game("morris", "men=6")


@pytest.fixture(scope="module")
def nine():
    return get_game("morris", "men=9")


def _ref(game):
    ref = ref_morris.Morris(game.men)
    if game.variant["diagonals"]:  # the diagonals as lines to form mills and slide along
        for line in (["a3", "b2", "c1"], ["c3", "b2", "a1"]):
            ref.mills.append(line)
            for a, b in zip(line, line[1:], strict=False):
                ref.nbrs[a].add(b)
                ref.nbrs[b].add(a)
    return ref


# -- Three Men's Morris: the whole game against the reference ------------------------------

@pytest.mark.parametrize("variant", ["men=3,diagonals=0", "men=3,diagonals=1"])
def test_three_every_position(tmp_path, variant):
    g = get_game("morris", variant)
    ref = _ref(g)
    table = reference.solve(ref)
    assert g.to_string(g.start) == ref.start() == "---/---/--- w 3 3"
    want = {g.from_string(pos): (WORDS[v], rem if v != 2 else None)
            for pos, (v, rem) in table.items()}
    assert all(g.to_string(h) in table for h in want)
    methods = applicable_methods(g)
    assert {"bottomup", "tiers", "retrograde"} <= set(methods)
    for method in methods:
        root = tmp_path / method
        res = solve(g, method, root=root)
        assert res.positions == len(table), method
        s = Solved(g, root)
        for h, expected in want.items():
            assert s.lookup(h) == expected, (method, g.to_string(h))
        # the start: a draw without diagonals, a first-player win with them
        start = s.query()
        assert (start.value, start.remoteness) == \
            (WORDS[table[ref.start()][0]], table[ref.start()][1] or None)


def test_three_start_values(tmp_path):
    """Found by both solvers (not assumed): no diagonals is a draw; with diagonals the
    first player wins in 9 plies."""
    for variant, want in (("men=3", ("draw", None)), ("men=3,diagonals=1", ("win", 9))):
        g = get_game("morris", variant)
        solve(g, "bottomup", root=tmp_path)
        info = Solved(g, tmp_path).query()
        assert (info.value, info.remoteness) == want


def test_three_rules(three):
    ref = _ref(three)
    for h in range(three.hash_size):
        s = three.to_string(h)
        assert three.from_string(s) == h
        assert three.primitive_value(h) == ref.primitive(s), s
        if not ref.primitive(s):
            assert child_strings(three, s) == sorted(ref.children(s)), s
    # a mill wins at once, also during placement
    assert three.primitive_value(three.from_string("WWW/BB-/--- b 0 1")) == LOSE
    # no diagonal slides: White (a3 b3 a2) is blocked by c3 b2 a1, which is no line
    assert three.primitive_value(three.from_string("WWB/WB-/B-- w 0 0")) == LOSE
    assert three.primitive_value(three.from_string("WWB/WB-/B-- b 0 0")) == 0
    # only b2-c2: a3 and a1 are boxed in, b2 cannot step to c3 or c1
    assert [n for n, _ in three.moves(three.from_string("WB-/BW-/WB- w 0 0"))] == ["b2-c2"]
    assert child_strings(three, "WB-/BW-/WB- w 0 0") == ["WB-/B-W/WB- b 0 0"]
    diag = get_game("morris", "men=3,diagonals=1")
    assert diag.primitive_value(diag.from_string("WWB/WB-/B-- w 0 0")) == LOSE  # B's line
    assert sorted(n for n, _ in diag.moves(diag.from_string("WB-/BW-/WB- w 0 0"))) == \
        ["b2-c1", "b2-c2", "b2-c3"]


# -- Six and Nine: rules of positions against the reference ----------------------------------

def _random_positions(game, n, seed):
    rng = random.Random(seed)
    for _ in range(n):
        yield rng.randrange(game.hash_size)


@pytest.mark.parametrize("men", [6, 9])
def test_random_positions_match_reference(men, six, nine):
    game = six if men == 6 else nine
    ref = _ref(game)
    count = 0
    for h in _random_positions(game, 1500, men):
        s = game.to_string(h)
        assert game.from_string(s) == h
        p = game.primitive_value(h)
        assert p == ref.primitive(s), s
        if not p:
            kids = child_strings(game, s)
            assert kids == sorted(ref.children(s)), s
            assert len(kids) <= game.max_children
            count += 1
    assert count > 500


@pytest.mark.parametrize("men", [6, 9])
def test_play_random_games(men, six, nine):
    """Random games from the start stay inside the hash space and agree with the reference,
    through placement, mills, removals and (in Nine) flying."""
    game = six if men == 6 else nine
    ref = _ref(game)
    rng = random.Random(men)
    captured = flown = 0
    for _ in range(30):
        h = game.start
        for _ in range(200):
            s = game.to_string(h)
            assert game.primitive_value(h) == ref.primitive(s), s
            if game.primitive_value(h):
                break
            moves = game.moves(h)
            assert sorted(game.to_string(c) for _, c in moves) == sorted(ref.children(s)), s
            name, h = rng.choice(moves)
            captured += "x" in name
            flown += "-" in name and _is_flight(game, name)
    assert captured > 0
    if men == 9:
        assert flown > 0


def _is_flight(game, name):
    a, b = name.split("x")[0].split("-")
    ia, ib = game.point_names.index(a), game.point_names.index(b)
    return (ia, ib) not in game.adjacent


def test_six_mill_removal(six):
    # White slides c5-c4 (a joining line) and closes b4 c4 d4; no black piece is in a mill
    s = "-W-/W-W/B---/BB-/B-- w 0 0"
    kids = {n: six.to_string(c) for n, c in six.moves(six.from_string(s))}
    assert sorted(n for n in kids if n.startswith("c5-c4")) == \
        ["c5-c4xa1", "c5-c4xa3", "c5-c4xb2", "c5-c4xc2"]
    assert kids["c5-c4xa3"] == "---/WWW/----/BB-/B-- b 0 0"
    assert sorted(n for n in kids if "x" not in n) == \
        ["b4-b3", "b4-c4", "c5-a5", "c5-e5", "d4-c4", "d4-d3"]
    # a5 a3 a1 is a black mill: only b2 may be taken
    s = "B--/WW-/B-W-/B--/B-- w 0 0"
    assert sorted(n for n, _ in six.moves(six.from_string(s)) if "x" in n) == ["d3-d4xb2"]
    # every black piece is in a mill: any may be taken
    s = "B--/WW-/B-W-/---/B-- w 0 0"
    assert sorted(n for n, _ in six.moves(six.from_string(s)) if "x" in n) == \
        ["d3-d4xa1", "d3-d4xa3", "d3-d4xa5"]
    # a placement that closes a mill removes too; hands go down
    s = "WW-/---/----/BB-/--- w 2 2"
    kids = {n: six.to_string(c) for n, c in six.moves(six.from_string(s))}
    assert kids["e5xb2"] == "WWW/---/----/-B-/--- b 1 2"
    assert "e5" not in kids and len(kids) == 11 + 2


def test_six_no_flying(six):
    # White has three pieces and nothing in hand, yet only slides
    s = "W--/BBB/---W/B--/-W- w 0 0"
    assert sorted(n for n, _ in six.moves(six.from_string(s))) == \
        ["a5-a3", "a5-c5", "c1-a1", "c1-c2", "c1-e1", "e3-d3", "e3-e1", "e3-e5"]


def test_nine_flying_and_capture(nine):
    # White (a7 d7 a4) has three pieces: it flies to any of the 17 empty points
    s = "WW-/---/---/W-----/---/BB-/-BB w 0 0"
    names = [n for n, _ in nine.moves(nine.from_string(s))]
    assert len(names) == 3 * 17 - 2 + 2 * 4
    assert sorted(n for n in names if "x" in n) == \
        ["a4-g7xb2", "a4-g7xd1", "a4-g7xd2", "a4-g7xg1",
         "d7-a1xb2", "d7-a1xd1", "d7-a1xd2", "d7-a1xg1"]
    # Black (four pieces) only slides
    s = "WW-/---/---/W-----/---/BB-/-BB b 0 0"
    assert sorted(n for n, _ in nine.moves(nine.from_string(s))) == \
        ["b2-b4", "d1-a1", "d2-d3", "d2-f2", "g1-g4"]


def test_lose_conditions(six, nine):
    # fewer than three pieces
    assert six.primitive_value(six.from_string("WW-/---/----/B--/BB- w 0 0")) == LOSE
    assert nine.primitive_value(
        nine.from_string("WW-/---/---/------/---/---/BBB w 0 0")) == LOSE
    # two on the board but more in hand: the game goes on
    assert six.primitive_value(six.from_string("WW-/---/----/B--/BB- w 1 1")) == 0
    # no legal move: White's a5 c5 e5 are boxed in by a3 c4 e3
    assert six.primitive_value(six.from_string("WWW/-B-/B--B/---/--- w 0 0")) == LOSE
    assert six.primitive_value(six.from_string("WWW/-B-/B--B/---/--- b 0 0")) == 0
    # in Nine the same pieces fly instead
    assert nine.primitive_value(nine.from_string("W-W/---/---/W-----/---/---/BBB w 0 0")) \
        == 0


def test_strings_and_errors(six, nine):
    for g in (six, nine):
        assert g.from_string(g.to_string(g.start)) == g.start
    assert six.to_string(six.start) == "---/---/----/---/--- w 6 6"
    assert nine.to_string(nine.start) == "---/---/---/------/---/---/--- w 9 9"
    # short form: both hands empty
    s = "WWW/W--/W-B-/B--/BBB w"
    assert six.to_string(six.from_string(s)) == s + " 0 0"
    bad = ["---/---/--- w 3 3", "---/---/----/---/--- x 6 6", "---/---/----/---/--- w 6 5",
           "---/---/----/---/--- b 6 6", "W--/---/----/---/--- w 6 6",
           "---/---/----/---/-Q- w 6 6", "---/---/----/---/--- w 7 7",
           "WWW/WWW/----/---/--- w 0 0", "---/---/----/---/--- w a b"]
    for s in bad:
        with pytest.raises(PositionError):
            six.from_string(s)
    with pytest.raises(VariantError):
        get_game("morris", "men=4")
    with pytest.raises(VariantError):
        get_game("morris", "men=6,diagonals=1")


def test_tiers(three, six, nine):
    for g in (three, six, nine):
        tiers = g.tiers()
        assert tiers[0].start == 0 and tiers[-1].stop == g.hash_size
        for a, b in zip(tiers, tiers[1:], strict=False):
            assert a.stop == b.start
        loopy = [t for t in tiers if t.label.startswith("move")]
        assert loopy and all(tiers.index(t) in t.children for t in loopy)
    # children land in the tiers their tier lists
    for g in (six, nine):
        tiers = g.tiers()
        starts = np.array([t.start for t in tiers])
        rng = random.Random(1)
        for _ in range(500):
            h = rng.randrange(g.hash_size)
            if g.primitive_value(h):
                continue
            t = int(np.searchsorted(starts, h, side="right") - 1)
            for _, c in g.moves(h):
                ct = int(np.searchsorted(starts, c, side="right") - 1)
                assert ct in tiers[t].children


# -- un-moves ---------------------------------------------------------------------------------

@pytest.mark.parametrize("variant", ["men=3", "men=3,diagonals=1"])
def test_three_parents_exact(variant):
    g = get_game("morris", variant)
    rev: dict[int, set[int]] = {h: set() for h in range(g.hash_size)}
    for p in range(g.hash_size):
        for _, c in g.moves(p):
            rev[c].add(p)
    for h in range(g.hash_size):
        ps = g.parent_hashes(h)
        assert len(ps) == len(set(ps)) and set(ps) == rev[h], g.to_string(h)


@pytest.mark.parametrize("men", [6, 9])
def test_parents_random(men, six, nine):
    """Both ways on samples: each parent has the position among its children, and each
    child of a position lists it among its parents, once."""
    game = six if men == 6 else nine
    checked = 0
    for h in _random_positions(game, 300, men + 7):
        ps = game.parent_hashes(h)
        assert len(ps) == len(set(ps)) <= game.max_parents
        for p in ps:
            assert not game.primitive_value(p)
            assert h in [c for _, c in game.moves(p)], (game.to_string(h), game.to_string(p))
        for _, c in game.moves(h):
            assert game.parent_hashes(c).count(h) == 1, (game.to_string(h), game.to_string(c))
            checked += 1
    # positions with removals and flights in their past
    for s in ("---/WWW/----/BB-/B-- b 0 0", "WWW/---/----/-B-/--- b 1 2",
              "WW-/---/---/W-----/---/BB-/-BB b 0 0"):
        g = six if s.count("/") == 4 else nine
        h = g.from_string(s)
        for p in g.parent_hashes(h):
            assert h in [c for _, c in g.moves(p)]
        assert g.parent_hashes(h), s
    assert checked > 100


# -- symmetry ---------------------------------------------------------------------------------

SYM_VARIANTS = ["men=3", "men=3,diagonals=1", "men=6", "men=9"]


def _automorphisms(npts: int, lines, adjacent) -> set[tuple[int, ...]]:
    """Every permutation of the points (as where[p]: the point p goes to) that maps lines
    to lines and, when `adjacent` is given, adjacent pairs to adjacent pairs. Search in
    breadth-first order over the points that share a line or a link, so each point after
    the first has only the few images next to its predecessor's image."""
    lines = {frozenset(int(p) for p in line) for line in lines}
    adj = {(int(a), int(b)) for a, b in adjacent}
    near: list[set[int]] = [set() for _ in range(npts)]
    for line in lines:
        for a in line:
            near[a] |= line - {a}
    for a, b in adj:
        near[a].add(b)
    order, parent = [0], {0: -1}
    for p in order:
        for q in sorted(near[p]):
            if q not in parent:
                parent[q] = p
                order.append(q)
    assert len(order) == npts  # connected
    found: set[tuple[int, ...]] = set()
    where = [-1] * npts

    def fits(p, t):
        return all(((p, q) in adj) == ((t, where[q]) in adj)
                   and (q in near[p]) == (where[q] in near[t])
                   for q in order if where[q] >= 0)

    def extend(i):
        if i == npts:
            if {frozenset(where[p] for p in line) for line in lines} == lines:
                found.add(tuple(where))
            return
        p = order[i]
        cands = range(npts) if parent[p] < 0 else near[where[parent[p]]]
        for t in cands:
            if t not in where and fits(p, t):
                where[p] = t
                extend(i + 1)
                where[p] = -1

    extend(0)
    return found


@pytest.mark.parametrize("variant,size", [("men=3", 8), ("men=3,diagonals=1", 8),
                                          ("men=6", 16), ("men=9", 16)])
def test_symmetries_are_the_board_automorphisms(variant, size):
    """The declared symmetries form a group (identity first, closed, inverses), keep the
    mills (lines), Six's joining links and adjacency, and are every permutation that
    does: found here by search from the lines and adjacency alone."""
    g = get_game("morris", variant)
    syms = [tuple(int(x) for x in row) for row in g.symmetries]
    have = set(syms)
    assert len(syms) == len(have) == size and syms[0] == tuple(range(g.npoints))
    assert all(tuple(a[i] for i in b) in have for a in syms for b in syms)  # closed
    mills = {frozenset(m) for m in g.mills}
    adj = set(g.adjacent)
    for w in syms:
        assert {frozenset(w[p] for p in m) for m in mills} == mills
        assert {(w[a], w[b]) for a, b in adj} == adj
    assert _automorphisms(g.npoints, g.mills, g.adjacent) == have
    if variant == "men=9":  # lines alone (both sides flying): any order of the rings, 48
        assert len(_automorphisms(g.npoints, g.mills, [])) == 48


def _name_symmetries(men: int) -> list[dict[str, str]]:
    """The board's symmetries on point names (file letter, rank), built here from the
    names: quarter turns and a mirror of the square about the centre point, and for Six
    and Nine each of them with the rings (distance from the centre) reversed."""
    size = {3: 3, 6: 5, 9: 7}[men]
    c = size // 2
    names = [p for row in ref_morris.BOARDS[men][0] for p in row.split()]
    maps = []
    for swap in (False, True) if men != 3 else (False,):
        for turns in range(4):
            for mirror in (False, True):
                m = {}
                for p in names:
                    u, v = ord(p[0]) - ord("a") - c, int(p[1:]) - 1 - c
                    if swap:
                        ring = max(abs(u), abs(v))
                        u, v = u // ring * (c + 1 - ring), v // ring * (c + 1 - ring)
                    for _ in range(turns):
                        u, v = v, -u
                    if mirror:
                        v = -v
                    m[p] = f"{chr(ord('a') + u + c)}{v + 1 + c}"
                assert sorted(m.values()) == sorted(names)
                maps.append(m)
    return maps


def _images(game, ref, maps, s: str) -> set[int]:
    """The hashes of the images of position `s` under `maps` (name -> name)."""
    board, side, hw, hb = ref.parse(s)
    return {game.from_string(ref.show({m[p]: c for p, c in board.items()}, side, hw, hb))
            for m in maps}


@pytest.mark.parametrize("variant", SYM_VARIANTS)
def test_canonical_is_the_smallest_image(variant):
    """canonical is the least hash among the images built from the position string
    (every hash of Three, random ones of Six and Nine), orbit their number."""
    g = get_game("morris", variant)
    ref = _ref(g)
    maps = _name_symmetries(g.men)
    mod = importlib.import_module(g.module)
    scratch = np.zeros(g.scratch_size, np.int8)
    hashes = range(g.hash_size) if g.men == 3 else _random_positions(g, 3000, g.men + 1)
    sizes = set()
    for h in hashes:
        images = _images(g, ref, maps, g.to_string(h))
        c = g.canonical(h)
        assert c == min(images) and g.canonical(c) == c, g.to_string(h)
        assert mod.orbit(g.ctx, h, scratch) == len(images), g.to_string(h)
        sizes.add(len(images))
    assert max(sizes) == len(maps) and (g.men != 3 or min(sizes) == 1)


@pytest.mark.parametrize("variant", SYM_VARIANTS)
def test_canonical_forms_of_the_rules(variant):
    """children_canonical is children mapped through canonical, move for move;
    parents_canonical gives the canonical forms of parents (repeats allowed)."""
    g = get_game("morris", variant)
    mod = importlib.import_module(g.module)
    out, codes, scratch = g._buffers()
    pout = np.empty(g.max_parents, np.int64)
    checked = 0
    for h in _random_positions(g, 1500, g.men + 2):
        ps = {g.canonical(p) for p in g.parent_hashes(h)}
        n = mod.parents_canonical(g.ctx, h, pout, scratch)
        assert set(pout[:n].tolist()) == ps, g.to_string(h)
        if g.primitive_value(h):
            continue
        plain = g.moves(h)
        n = mod.children_canonical(g.ctx, h, out, codes, scratch)
        assert [(g.move_name(h, int(codes[i])), int(out[i])) for i in range(n)] == \
            [(name, g.canonical(c)) for name, c in plain], g.to_string(h)
        checked += 1
    assert checked > 300


@pytest.mark.parametrize("variant,reachable", [("men=3", 5466), ("men=3,diagonals=1", 5390)])
def test_three_reduced_solves_answer_as_unreduced(variant, reachable, tmp_path):
    """Three solved whole on canonical positions by every method: the stored positions
    are the canonical forms of the reachable ones, and every reachable position answers
    (value, remoteness) as in the unreduced database."""
    plain = get_game("morris", variant)
    solve(plain, "bottomup", root=tmp_path / "plain")
    a = Database.open(plain, tmp_path / "plain")
    va, ra = a.value_array[:], a.remoteness_array[:]
    reached = np.flatnonzero(va)
    canon = {plain.canonical(int(h)) for h in reached}
    assert len(reached) == reachable and len(canon) < len(reached) // 6
    for method in applicable_methods(plain):
        sym = Numbering(get_game("morris", variant), True)
        res = solve(sym, method, root=tmp_path / method)
        assert res.positions == len(canon), method
        b = Database.open(sym, tmp_path / method)
        assert b.symmetric and set(np.flatnonzero(slot_arrays(b)[0]).tolist()) == canon
        api = Solved(get_game("morris", variant), tmp_path / method)
        for h in reached.tolist():
            assert api.db.lookup(h) == (int(va[h]), int(ra[h])), (method, plain.to_string(h))
        report = analyze(b, by_tier=True)  # every position through its orbit: as unreduced
        for part in (report, *report["tiers"]):  # each tier's too
            part.pop("canonical")
        assert report == analyze(a, by_tier=True), method


class _SixFrom(Morris):
    """Six Men's Morris from a late position (tests: a sub-game small enough to solve
    without symmetry in seconds; the rules are games/morris.py's)."""

    START = "W-W/-B-/---W/-B-/W-- b 0 1"  # Black places its last piece: 4 against 3

    def __init__(self):
        super().__init__(men=6)
        self.start = self.from_string(self.START)


@numba.njit
def _canonical_all(canonical, ctx, hashes, scratch):
    out = np.empty_like(hashes)
    for i in range(hashes.shape[0]):
        out[i] = canonical(ctx, hashes[i], scratch)
    return out


def test_six_reduced_solves_answer_as_unreduced(tmp_path):
    """A Six sub-game (last placement, then sliding with 4 and 3 pieces: mills, removals,
    blocked sides, draws) solved without symmetry, and on canonical positions by every
    method: each of its ~1.07M reachable positions answers as unreduced, from about
    67,000 stored. The whole of Six is compared in docs/morris.md (unreduced it takes
    minutes)."""
    plain = _SixFrom()
    solve(plain, "tiers", root=tmp_path / "plain")
    a = Database.open(plain, tmp_path / "plain")
    va, ra = a.value_array[:], a.remoteness_array[:]
    reached = np.flatnonzero(va).astype(np.int64)
    mod = importlib.import_module(plain.module)
    canon = _canonical_all(mod.canonical, plain.ctx, reached, np.zeros(16, np.int8))
    stored = np.unique(canon)
    assert len(reached) > 1_000_000 and len(stored) < len(reached) // 15
    assert {WORDS[int(v)] for v in np.unique(va[reached])} == {"win", "lose", "draw"}
    for method in applicable_methods(plain):
        sym = Numbering(_SixFrom(), True)
        assert solve(sym, method, root=tmp_path / method).positions == len(stored), method
        b = Database.open(sym, tmp_path / method)
        assert b.attrs["index"] == "direct" and b.index.count == sym.canonical_size
        vb, rb = slot_arrays(b)
        assert np.array_equal(np.flatnonzero(vb), stored), method
        assert np.array_equal(vb[canon], va[reached]), method
        assert np.array_equal(rb[canon], ra[reached]), method
        api = Solved(_SixFrom(), tmp_path / method)  # the reader canonicalizes
        for h in reached[:: len(reached) // 300].tolist():
            assert api.db.lookup(h) == (int(va[h]), int(ra[h])), plain.to_string(h)


@pytest.mark.parametrize("men", [3, 6])
def test_the_numbering_of_canonical_positions_is_exact(men):
    """games/morris.py numbers canonical positions by least White sets
    (hashing/orbits.py): every canonical slot of Three and Six, found by `canonical`
    alone, has an index in hash order that canonical_slot gives back, and the gaps are
    few (Six: 4,432,351 canonical slots, 5,094,127 indices)."""
    game = Morris(men=men)
    mod = importlib.import_module(game.module)
    hashes = np.arange(game.hash_size, dtype=np.int64)
    canon = hashes[_canonical_all(mod.canonical, game.ctx, hashes,
                                  np.zeros(game.scratch_size, np.int8)) == hashes]
    index = _apply_all(mod.canonical_index, game.ctx, canon)
    assert np.all(np.diff(index) > 0) and index[0] >= 0 and index[-1] < game.canonical_size
    assert np.array_equal(_apply_all(mod.canonical_slot, game.ctx, index), canon)
    if men == 6:
        assert canon.size == 4_432_351 and game.canonical_size == 5_094_127


@numba.njit
def _apply_all(f, ctx, xs):
    out = np.empty_like(xs)
    for i in range(xs.shape[0]):
        out[i] = f(ctx, xs[i])
    return out


def test_a_database_of_another_numbering_is_a_one_line_error(tmp_path, capsys):
    """A compact database records a digest of the numbering it was written in: read with
    a game that numbers otherwise, it is refused (never answered from the wrong place)."""
    import json

    from solver.command.cli import main
    from solver.storage.database import group_path

    solve(Numbering(get_game("morris"), True), "retrograde", root=tmp_path)
    meta = group_path(tmp_path, get_game("morris")) / "zarr.json"
    doc = json.loads(meta.read_text())
    assert doc["attributes"]["index"] == "direct"
    assert main(["query", "morris", "--db", str(tmp_path)]) == 0
    capsys.readouterr()
    doc["attributes"]["index_digest"] = "0" * 32
    meta.write_text(json.dumps(doc))
    assert main(["query", "morris", "--db", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "numbering" in err[0] and "damaged" in err[0]


def test_a_numbered_symmetric_solve_is_planned_on_its_compact_tasks():
    """The memory a solve with symmetry is planned to hold (and refused for) is that of
    the tasks it will run: on the game's own numbering, canonical positions only."""
    from solver.engine.plan import BASE, plan
    from solver.methods.estimate import tier_memory

    game = Numbering(get_game("morris", "men=6"), True)
    budget = 1 << 30
    compact = plan(game.compact(), budget - BASE).largest + BASE
    assert tier_memory(game, budget) == compact
    assert compact < tier_memory(get_game("morris", "men=6"), budget)


def test_nine_movement_pairs_match_an_independent_solve():
    """Every canonical board of Nine's 3-3 pair (flying, captures into 3-2 and 2-3, the
    blocked side loses), solved by the tier engine on Nine's own numbering: wins, losses
    and draws by side to move as eigenraum/solving-nine-mens-morris publishes them
    (benchmarks/morris_movement.py runs the pairs up to 5-5)."""
    movement = benchmark("morris_movement")
    counts, deepest, _ = movement.solve_pairs(3, 4.0)
    assert tuple(counts["3-3"]) == movement.EIGENRAUM["3-3"] == (140_621, 28_736, 269)
    assert deepest["3-3"] == 26


def test_nine_movement_pairs_resume_from_their_store(tmp_path, monkeypatch):
    """--store: a run stopped after its first solve task goes on from the store's record
    (seeding not repeated) and gives the published counts; `report` counts only the pairs
    whose tiers are solved; another box is refused for that store."""
    from solver.engine import worker

    movement = benchmark("morris_movement")

    solved = []
    solve = worker.solve

    def stop(*args, **kw):
        if solved:
            raise KeyboardInterrupt
        solved.append(solve(*args, **kw))

    monkeypatch.setattr(worker, "solve", stop)
    with pytest.raises(KeyboardInterrupt):
        movement.solve_pairs(3, 4.0, store_dir=tmp_path)
    monkeypatch.undo()
    assert movement.solve_pairs(3, 4.0, store_dir=tmp_path, report=True)[0] == {}
    seeded = []
    monkeypatch.setattr(movement, "run_blocks", lambda *a, **kw: seeded.append(a))
    heard = []
    counts, deepest, _ = movement.solve_pairs(3, 4.0, store_dir=tmp_path, say=heard.append)
    assert tuple(counts["3-3"]) == movement.EIGENRAUM["3-3"] and deepest["3-3"] == 26
    assert any(h.startswith("solve: 1 of ") and "done before" in h for h in heard)
    assert not seeded  # every tier's seeds were recorded before the stop
    assert movement.solve_pairs(3, 4.0, store_dir=tmp_path, report=True)[0] == counts
    with pytest.raises(SystemExit, match="holds the box 3x3, not 4x3"):
        movement.solve_pairs(4, 4.0, 3, store_dir=tmp_path)
    with pytest.raises(SystemExit, match="another plan of tasks"):  # other task cuts
        movement.solve_pairs(3, 0.25, store_dir=tmp_path)
