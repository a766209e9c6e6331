"""Connect-4 eight columns wide (games/connect4.py): heights ranked through a table of one
entry a height vector (mixed radix), not one indexed by the packed heights (8^width), so
8x4 is numbered; the variant limits; a width-8 board solved plain and on its mirror
classes against the reference solver."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import reference
from checks import arrays, reference_table, slot_arrays

from games import get_game
from games.base import VariantError
from solver.kernels.numbering import Numbering
from solver.methods.solve import solve
from solver.storage.database import Database


def variant(w, h, k=4):
    return {"width": w, "height": h, "connect": k}


def _boards(w: int, h: int) -> int:
    """Every gravity board with X = O or O + 1, summed over the height vectors."""
    return sum(math.comb(sum(hs), (sum(hs) + 1) // 2)
               for hs in itertools.product(range(h + 1), repeat=w))


@pytest.mark.parametrize("w,h", [(8, 4), (8, 1), (7, 6), (6, 7)])
def test_the_height_table_has_an_entry_a_height_vector(w, h):
    """The hash counts every board (8x4 too: 133,453,017,031, far inside 62 bits), and the
    ranking table holds (height + 1)^width entries: 390,625 for 8x4, not 8^8; each rank
    is the height vector's place among those with its sum, in the hash's order."""
    game = get_game("connect4", variant(w, h))
    assert game.hash_size == _boards(w, h)
    assert game.hrank.size == (h + 1) ** w == len(game.hcode)
    if w * h <= 32:
        assert game.ctx[0].size < 8 * (h + 1) ** w + 64 * (w * h + 3) ** 2
    digits = [(game.hcode >> (3 * c)) & 7 for c in range(w)]
    mixed = sum(d * (h + 1) ** c for c, d in enumerate(digits))
    rank = np.arange(len(game.hcode)) - game.hstart[game.tier_n]
    assert np.array_equal(game.hrank[mixed], rank)
    assert np.array_equal(mixed, game.hmix)


def test_8x4_is_accepted_and_sizes_past_the_limits_are_refused():
    """8x4 numbers its 67,716,486,899 canonical tiers' boards; a ninth column, an eighth
    row or connect 9 is refused with a one-line error (8x7 fills the 64-bit bitboard)."""
    game = get_game("connect4", variant(8, 4))
    assert game.hash_size == 133_453_017_031 and game.canonical_size == 67_716_486_899
    s = "--------/--------/-----O--/---XXO-X"
    assert game.to_string(game.from_string(s)) == s
    for bad in (variant(9, 4), variant(8, 8), variant(7, 6, 9), variant(0, 4)):
        with pytest.raises(VariantError) as err:
            get_game("connect4", bad)
        assert "\n" not in str(err.value) and "not allowed" in str(err.value)


def test_8x2_solved_plain_and_on_mirror_classes_as_the_reference(tmp_path):
    """Connect 3 on 8x2: every position of the reference (plain Python, no hash) has the
    reference's value and remoteness in the plain solve, and through its mirror image's
    canonical position in the symmetric one; the symmetric solve stores one position a
    reachable mirror class."""
    table = reference_table(reference.Connect4, 8, 2, 3)
    game = get_game("connect4", variant(8, 2, 3))
    solve(game, "tiers", root=tmp_path / "plain")
    value, rem = arrays(game, tmp_path / "plain")
    assert int((value != 0).sum()) == len(table)
    sym = Numbering(get_game("connect4", variant(8, 2, 3)), True)
    solve(sym, "tiers", root=tmp_path / "sym")
    db = Database.open(get_game("connect4", variant(8, 2, 3)), tmp_path / "sym")
    assert db.attrs["index"] == "direct"
    sv, sr = slot_arrays(db)
    mirror = {s: "/".join(r[::-1] for r in s.split("/")) for s in table}
    assert int((sv != 0).sum()) == len({min(s, m) for s, m in mirror.items()})
    for s, want in table.items():
        h = game.from_string(s)
        c = game.canonical(h)
        assert (value[h], rem[h]) == want == (sv[c], sr[c]), s
