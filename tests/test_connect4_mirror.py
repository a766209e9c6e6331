"""Connect-4 numbers its mirror classes itself (games/connect4.py canonical_index): no bit
per hash slot in a symmetric solve. Checked against a brute-force enumeration of the
boards that knows nothing of the hash, and against the plain solve."""

from __future__ import annotations

import importlib
import itertools
import math

import numba
import numpy as np
import pytest
import reference
from checks import reference_table, slot_arrays

from games import get_game
from solver.kernels import compact
from solver.kernels.numbering import Numbering
from solver.methods.solve import solve
from solver.storage.database import Database
from solver.use.analysis import analyze


def variant(w, h, k=4):
    return {"width": w, "height": h, "connect": k}


def _mirror(s: str) -> str:
    """The mirror image of a position string: every row reversed."""
    return "/".join(row[::-1] for row in s.split("/"))


def _board_counts(w: int, h: int) -> tuple[int, int, int]:
    """(boards, boards on a palindromic height vector, boards that are their own mirror
    image) over every gravity board with X = O or O + 1, counted by enumeration: a
    palindromic board has a palindromic height vector and mirrored columns alike."""
    boards = pal_tiers = pal_boards = 0
    for heights in itertools.product(range(h + 1), repeat=w):
        n = sum(heights)
        count = math.comb(n, (n + 1) // 2)
        boards += count
        if heights != heights[::-1]:
            continue
        pal_tiers += count
        cells = [(c, j) for c in range(w) for j in range(heights[c])]
        for xs in itertools.combinations(range(n), (n + 1) // 2):
            x = {cells[i] for i in xs}
            pal_boards += all(((w - 1 - c, j) in x) == ((c, j) in x) for c, j in cells)
    return boards, pal_tiers, pal_boards


@numba.njit
def _index_all(mod_canonical, mod_index, mod_slot, ctx, n, scratch):
    """canonical_index of every hash, and per hash whether it is canonical and (if so)
    whether canonical_slot gives it back."""
    index = np.empty(n + 1, np.int64)
    canon = np.zeros(n, np.bool_)
    back = np.zeros(n, np.bool_)
    for h in range(n):
        index[h] = mod_index(ctx, h)
        if mod_canonical(ctx, h, scratch) == h:
            canon[h] = True
            back[h] = mod_slot(ctx, index[h]) == h
    index[n] = mod_index(ctx, n)
    return index, canon, back


@numba.njit
def _slots_all(mod_slot, ctx, size):
    out = np.empty(size, np.int64)
    for i in range(size):
        out[i] = mod_slot(ctx, i)
    return out


BOARDS = [(1, 1), (3, 1), (2, 2), (1, 4), (3, 3), (4, 3), (3, 4), (4, 4), (5, 3), (5, 4),
          (6, 3), (8, 1), (8, 2), (7, 2)]  # 8 columns: heights ranked in mixed radix


@pytest.mark.parametrize("w,h", BOARDS)
def test_the_numbering_covers_each_mirror_class_once(w, h):
    """Every hash's index never decreases (a mirrored tier's hashes share the next
    canonical tier's first index); each canonical hash has its own index, which
    canonical_slot gives back; the canonical hashes are one a mirror class (the
    brute-force count); the indices are the canonical tiers' boards, a palindromic tier's
    whole (its gaps are the boards whose image is the canonical one)."""
    game = get_game("connect4", variant(w, h))
    mod = importlib.import_module(type(game).module)
    index, canon, back = _index_all(mod.canonical, mod.canonical_index, mod.canonical_slot,
                                    game.ctx, game.hash_size, np.zeros(1, np.int8))
    boards, pal_tiers, pal_boards = _board_counts(w, h)
    assert game.hash_size == boards
    assert np.all(np.diff(index) >= 0) and index[0] == 0
    assert index[-1] == game.canonical_size == (boards - pal_tiers) // 2 + pal_tiers
    assert int(canon.sum()) == (boards + pal_boards) // 2  # the mirror classes
    assert back[canon].all()
    assert np.all(np.diff(index[:-1][canon]) > 0)
    slots = _slots_all(mod.canonical_slot, game.ctx, game.canonical_size)
    assert np.all(np.diff(slots) > 0) and np.array_equal(index[slots], np.arange(slots.size))
    gaps = ~canon[slots]
    assert int(gaps.sum()) == (pal_tiers - pal_boards) // 2
    for s in slots[gaps][:50].tolist():  # a gap's mirror image is the canonical board
        m = game.from_string(_mirror(game.to_string(s)))
        assert m < s and game.canonical(s) == m


@pytest.mark.parametrize("w,h", [(3, 3), (4, 3), (2, 4)])
def test_canonical_and_orbit_against_the_mirrored_string(w, h):
    game = get_game("connect4", variant(w, h, 3))
    mod = importlib.import_module(type(game).module)
    scratch = np.zeros(1, np.int8)
    for x in range(game.hash_size):
        m = game.from_string(_mirror(game.to_string(x)))
        assert mod.canonical(game.ctx, x, scratch) == min(x, m)
        assert mod.orbit(game.ctx, x, scratch) == (1 if m == x else 2)


@numba.njit
def _indexed_mismatches(expand_indexed, children_indexed, expand, canonical, index, slot,
                        ctx, size, width):
    """Canonical indices whose expand_indexed / children_indexed differ from the plain
    children's canonical images, ranked (moves included); and how many children."""
    out = np.empty(width, np.int64)
    moves = np.empty(width, np.int64)
    want = np.empty(width, np.int64)
    want_moves = np.empty(width, np.int64)
    scratch = np.zeros(1, np.int8)
    bad = 0
    kids = 0
    for i in range(size):
        h = slot(ctx, i)
        n = expand(ctx, h, want, want_moves, scratch)
        got = expand_indexed(ctx, i, out, moves, scratch)
        if got != n:
            bad += 1
            continue
        if n <= 0:
            continue
        for j in range(n):
            want[j] = index(ctx, canonical(ctx, want[j], scratch))
        ok = True
        for j in range(n):
            ok = ok and out[j] == want[j] and moves[j] == want_moves[j]
        m = children_indexed(ctx, i, out, moves, scratch)
        ok = ok and m == n
        for j in range(n):
            ok = ok and out[j] == want[j] and moves[j] == want_moves[j]
        bad += not ok
        kids += n
    return bad, kids


@pytest.mark.parametrize("w,h,k", [(4, 4, 4), (5, 3, 3), (3, 5, 3), (6, 3, 3), (5, 4, 4),
                                   (8, 2, 3), (7, 2, 4)])
def test_indexed_children_are_the_ranked_images_of_the_children(w, h, k):
    """On every canonical index, gaps included: expand_indexed and children_indexed give
    what ranking each plain child's canonical image gives, in the same column order."""
    game = get_game("connect4", variant(w, h, k))
    mod = importlib.import_module(type(game).module)
    bad, kids = _indexed_mismatches(mod.expand_indexed, mod.children_indexed, mod.expand,
                                    mod.canonical, mod.canonical_index, mod.canonical_slot,
                                    game.ctx, game.canonical_size, w)
    assert bad == 0 and kids > game.canonical_size // 4


@pytest.mark.parametrize("w,h", [(4, 4), (5, 3)])
def test_orbit_sizes_count_every_board(w, h):
    """orbit_sizes_indexed weights each canonical board by its images: over every
    canonical index (gaps marked unreached) they sum to every board, and to twice the
    non-palindromic ones in chunks that start anywhere."""
    game = get_game("connect4", variant(w, h))
    mod = importlib.import_module(type(game).module)
    slots = _slots_all(mod.canonical_slot, game.ctx, game.canonical_size)
    canon = np.array([game.canonical(s) == s for s in slots.tolist()])
    value = canon.astype(np.uint8)
    boards, _pal_tiers, _pal_boards = _board_counts(w, h)
    total = 0
    for first in range(0, slots.size, 777):  # chunks cut across tiers
        part = value[first:first + 777]
        out = np.full(part.size, -1, np.int64)
        mod.orbit_sizes_indexed(game.ctx, first, part, out, np.zeros(1, np.int8))
        assert np.all(out[part == 0] == 0)
        total += int(out.sum())
    assert total == boards
    out = np.full(3, -1, np.int64)  # past the last index: nothing
    mod.orbit_sizes_indexed(game.ctx, slots.size - 1, np.ones(3, np.uint8), out,
                            np.zeros(1, np.int8))
    assert out[1:].tolist() == [0, 0] and out[0] in (1, 2)


def _reached_orbits(table: dict) -> int:
    return len({min(s, _mirror(s)) for s in table})


@pytest.mark.parametrize("w,h,k", [(4, 4, 3), (4, 3, 3), (5, 3, 3)])
def test_a_symmetric_solve_answers_every_position_as_the_reference(w, h, k, tmp_path):
    """Solved with tiers on its canonical positions in the game's own numbering (no index
    stored), every reachable position of the reference answers through its image with the
    reference's value and remoteness; the stored positions are the reachable mirror
    classes, and the analysis weighs them back to every reachable position."""
    table = reference_table(reference.Connect4, w, h, k)
    sym = Numbering(get_game("connect4", variant(w, h, k)), True)
    result = solve(sym, "tiers", root=tmp_path)
    assert result.positions == _reached_orbits(table)
    db = Database.open(get_game("connect4", variant(w, h, k)), tmp_path)
    assert db.attrs["index"] == "direct" and db.index.count == sym.canonical_size
    game = db.game
    value, rem = slot_arrays(db)
    for s, (v, r) in table.items():
        c = game.canonical(game.from_string(s))
        assert (value[c], rem[c]) == (v, r), s
    assert analyze(db)["positions"] == len(table)


def test_4x4_against_the_plain_solve_and_the_published_count(tmp_path, monkeypatch):
    """Connect-4 4x4: the symmetric solve (own numbering) and one numbered by the index of
    canonical slots (as every database written before the game numbered itself, read
    back with the game as it is now) answer every position as the plain solve; 161,029
    positions (Tromp's count)."""
    plain = get_game("connect4")
    solve(plain, "tiers", root=tmp_path / "plain")
    db = Database.open(plain, tmp_path / "plain")
    va, ra = db.value_array[:], db.remoteness_array[:]
    reached = np.flatnonzero(va)
    assert reached.size == 161_029
    mirror = np.array([plain.canonical(int(h)) for h in reached], np.int64)
    solve(Numbering(get_game("connect4"), True), "tiers", root=tmp_path / "direct")
    with monkeypatch.context() as m:  # the numbering a symmetric solve took before
        m.setattr(compact, "numbering", compact.build)
        solve(Numbering(get_game("connect4"), True), "tiers", root=tmp_path / "bits")
    for root, kind in (("direct", "direct"), ("bits", "canonical")):
        db = Database.open(get_game("connect4"), tmp_path / root)
        assert db.attrs["index"] == kind
        vb, rb = slot_arrays(db)
        assert np.array_equal(vb[mirror], va[reached]), root
        assert np.array_equal(rb[mirror], ra[reached]), root
        assert int((vb != 0).sum()) == np.unique(mirror).size
        assert analyze(db)["positions"] == 161_029
