"""Quick chess endings against the plain-Python rules of tests/ref_quickchess.py, and
positions checked by hand."""

from __future__ import annotations

import random

import numpy as np
import pytest
import ref_quickchess
import reference
from checks import arrays, assert_matches_reference, solve_matches_reference

from games import get_game
from games.base import LOSE, TIE, PositionError, VariantError, parse_variant
from solver.methods.solve import solve
from solver.use.api import Solved

# small boards keep the plain-Python reference quick; together they cover captures,
# promotions (with and without a capture), mates, stalemates and dead material
SMALL = ["pieces=KQk,width=4,height=4", "pieces=KPk,width=4,height=4",
         "pieces=KRkb,width=3,height=4", "pieces=KPkb,width=3,height=4"]


def _ref(game):
    return ref_quickchess.QuickChess(game.variant["pieces"], game.width, game.height)


@pytest.mark.parametrize("variant", SMALL)
def test_every_reachable_position_matches_reference(tmp_path, variant):
    g = get_game("quickchess", variant)
    ref = _ref(g)
    assert g.to_string(g.start) == ref.start()
    solve_matches_reference(g, "retrograde", tmp_path, reference.solve(ref))


def test_methods_write_the_same_bytes(tmp_path):
    g = get_game("quickchess", "pieces=KRkb,width=3,height=4")
    got = []
    for method in ("retrograde", "tiers", "bottomup"):
        solve(g, method, root=tmp_path / method)
        got.append(arrays(g, tmp_path / method))
    for v, r in got[1:]:
        assert np.array_equal(v, got[0][0]) and np.array_equal(r, got[0][1])


def _legal(ref, s):
    board, side = ref.parse(s)
    pawns_ok = all(1 < r < ref.ranks for (_f, r), ch in board.items() if ch in "Pp")
    return pawns_ok and not ref.in_check(board, side == "b")


@pytest.mark.parametrize("pieces", ["KQkr", "KPkp", "KRkn", "KPkb"])
def test_random_positions_match_reference_rules(pieces):
    """Full-size 5x6 board: primitive values and moves of random legal positions."""
    g = get_game("quickchess", f"pieces={pieces}")
    ref = _ref(g)
    rng = random.Random(pieces)
    checked = 0
    while checked < 300:
        h = rng.randrange(g.hash_size)
        s = g.to_string(h)
        if not _legal(ref, s):
            with pytest.raises(PositionError):
                g.from_string(s)
            continue
        assert g.from_string(s) == h
        assert g.primitive_value(h) == ref.primitive(s), s
        if not ref.primitive(s):
            kids = sorted(g.to_string(c) for _, c in g.moves(h))
            assert kids == sorted(ref.children(s)), s
            assert len(kids) <= g.max_children
        checked += 1


@pytest.mark.parametrize("variant", ["pieces=KPkr,width=4,height=4", "pieces=KPkp"])
def test_parents_are_exactly_the_unmoves(variant):
    """parents(h) lists each legal position with h among its children, once, and nothing
    else: checked both ways on random legal positions."""
    g = get_game("quickchess", variant)
    ref = _ref(g)
    rng = random.Random(variant)
    checked = 0
    while checked < 400:
        h = rng.randrange(g.hash_size)
        if not _legal(ref, g.to_string(h)):
            continue
        checked += 1
        ps = g.parent_hashes(h)
        assert len(ps) == len(set(ps)) <= g.max_parents
        for p in ps:
            assert _legal(ref, g.to_string(p))
            if not g.primitive_value(p):
                assert h in [c for _, c in g.moves(p)], (g.to_string(p), g.to_string(h))
        if not g.primitive_value(h):
            for _, c in g.moves(h):
                assert h in g.parent_hashes(c), (g.to_string(h), g.to_string(c))


# -- hand-checked positions on the 5x6 board ---------------------------------------------

@pytest.fixture(scope="module")
def kqk(tmp_path_factory):
    root = tmp_path_factory.mktemp("kqk")
    g = get_game("quickchess", "pieces=KQk")
    solve(g, "retrograde", root=root)
    return g, Solved(g, root)


def test_kqk_on_the_full_board_matches_reference(kqk):
    g, s = kqk
    assert_matches_reference(g, s.db.path.parents[1], reference.solve(_ref(g)))


def test_mate_stalemate_and_dead_material():
    g = get_game("quickchess", "pieces=KQk")
    # Qc6 checks along the sixth rank; a5 and b5 are the white king's, b6 the queen's
    mate = g.from_string("k-Q--/-----/K----/-----/-----/----- b")
    assert g.primitive_value(mate) == LOSE and g.moves(mate) == []
    # the queen on b4 covers a5, b5 and b6, and a6 is not attacked: no move, no check
    stale = g.from_string("k----/-----/-Q---/-----/--K--/----- b")
    assert g.primitive_value(stale) == TIE and g.moves(stale) == []
    assert g.primitive_value(g.from_string("k----/-----/-----/-----/--K--/----- w")) == TIE
    for pieces, board in (("KBk", "k----/-----/-----/-B---/--K--/-----"),
                          ("KNk", "k----/-----/-----/-N---/--K--/-----"),
                          ("Kkn", "k----/-----/-----/-n---/--K--/-----")):
        d = get_game("quickchess", f"pieces={pieces}")
        for side in "wb":
            assert d.primitive_value(d.from_string(f"{board} {side}")) == TIE


def test_mate_in_one(kqk):
    g, s = kqk
    info = s.query("k----/-----/K----/-----/-----/--Q-- w")
    assert (info.value, info.remoteness) == ("win", 1)
    assert [m.move for m in s.best_moves("k----/-----/K----/-----/-----/--Q-- w")] == \
        ["c1-c6"]
    # the slowest loss: black to move, mated next move at the latest
    assert s.query("k-Q--/-----/K----/-----/-----/----- b").value == "lose"


def test_kqk_is_won_with_white_to_move(kqk):
    """The known result: king and queen beat the lone king from every position with the
    stronger side to move (the queen cannot be taken, and stalemate can be avoided)."""
    g, s = kqk
    values = s.db.value_array[:]
    kqk_tier = next(t for t in g.tiers() if t.label == "KQk")
    ref = _ref(g)
    strings = (g.to_string(h) for h in range(kqk_tier.start, kqk_tier.stop))
    white = [h for h, s in zip(range(kqk_tier.start, kqk_tier.stop), strings, strict=True)
             if s.endswith("w") and _legal(ref, s)]
    assert len(white) > 9000
    assert all(values[h] == 4 for h in white)  # every one reachable, and won
    assert s.query().value == "win"


def test_promotion_moves_and_tiers():
    g = get_game("quickchess", "pieces=KPk")
    h = g.from_string("--k--/P----/-----/-----/-----/--K-- w")
    names = sorted(n for n, _ in g.moves(h))
    assert names[:4] == ["a5-a6=B", "a5-a6=N", "a5-a6=Q", "a5-a6=R"]
    assert dict((n, g.to_string(c)) for n, c in g.moves(h))["a5-a6=Q"] == \
        "Q-k--/-----/-----/-----/-----/--K-- b"
    tiers = {t.label: t for t in g.tiers()}
    assert sorted(tiers) == ["KBk", "KNk", "KPk", "KQk", "KRk", "Kk"]
    labels = [t.label for t in g.tiers()]
    assert sorted(labels[i] for i in tiers["KPk"].children) == \
        ["KBk", "KNk", "KPk", "KQk", "KRk", "Kk"]
    assert tiers["KBk"].children == () and tiers["Kk"].children == ()
    assert [labels[i] for i in tiers["KQk"].children] == ["Kk", "KQk"]
    # the pawn captures and promotes at once: KPkr -> KQk
    g = get_game("quickchess", "pieces=KPkr")
    h = g.from_string("k---r/---P-/-----/-----/-----/--K-- w")
    assert "d5xe6=Q" in [n for n, _ in g.moves(h)]


def test_strings_and_start():
    g = get_game("quickchess", "pieces=KRkn")
    assert g.variant_key == "pieces=KRkn,width=5,height=6"
    assert g.to_string(g.start) == "--k-n/-----/-----/-----/-----/R-K-- w"
    assert get_game("quickchess", "pieces=KPkp").to_string(
        get_game("quickchess", "pieces=KPkp").start) == \
        "--k--/----p/-----/-----/P----/--K-- w"
    # names are made canonical: white first, pieces in Q R B N P order
    assert get_game("quickchess", "pieces=knKR").variant["pieces"] == "KRkn"
    for h in range(0, g.hash_size, 997):
        s = g.to_string(h)
        try:
            assert g.from_string(s) == h
        except PositionError:
            assert not _legal(_ref(g), s)


@pytest.mark.parametrize("text", ["pieces=KRRk", "pieces=Rk", "pieces=KXk", "pieces=KQRkr",
                                  "pieces=KNk,width=4", "pieces=", "width=6", "size=3",
                                  "pieces=KPPPPk,width=3"])
def test_bad_variants(text):
    with pytest.raises(VariantError):
        get_game("quickchess", text)
    assert parse_variant("pieces=KRk,width=5") == {"pieces": "KRk", "width": 5}


@pytest.mark.parametrize("position", [
    "k----/-----/-----/-----/-----/R-K-- w",  # the side not to move is in check
    "kK---/-----/-----/-----/-----/----- w",  # kings side by side
    "k----/-----/-----/-----/-----/P-K-- w",  # a pawn on its first rank
    "k----/-----/-----/-----/-----/Q-K-- w",  # material not in pieces=KRk
    "k----/-----/-----/-----/-----/--K-- x",
    "k---/-----/-----/-----/-----/--K-- w",
    "kk---/-----/-----/-----/-----/R-K-- w",
])
def test_bad_positions(position):
    g = get_game("quickchess", "pieces=KRk")
    with pytest.raises(PositionError):
        g.from_string(position)
