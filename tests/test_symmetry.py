"""Symmetry reduction: canonical positions only, yet every position answers as without it.

Ground truth: the reference solver (tests/reference.py and the ref_* modules) for the
reduced solves, and the unreduced solve (itself checked against the reference in each
game's tests) for the answer of every reachable position."""

import importlib
import json

import numpy as np
import pytest
import ref_cambio
import ref_quarto
import ref_quixo
import ref_teeko
import reference
from checks import assert_matches_reference
from numba import njit

from games import available, get_game
from games.common import square_symmetries
from solver.kernels.numbering import Numbering
from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.storage.database import Database
from solver.use.analysis import analyze
from solver.use.api import Solved

# (game, variant, reference rules or None)
GAMES = {
    "tictactoe": (None, reference.TicTacToe),
    "quixo": ("size=3", lambda: ref_quixo.Quixo(3)),
    "teeko": ("size=3,pieces=3", lambda: ref_teeko.Teeko(3, 3)),
    "cambio": ("size=3", lambda: ref_cambio.Cambio(3)),
    # board and piece symmetries (24 cell maps x 48 piece maps)
    "quarto": ("size=2,attributes=3", lambda: ref_quarto.Quarto(2, 3)),
    # the mirror moves a tier (height vector) to another: tiers gain their images
    "connect4": ("width=4,height=3,connect=3", lambda: reference.Connect4(4, 3, 3)),
}


def symmetric(name):
    return Numbering(get_game(name, GAMES[name][0]), True)


def test_square_symmetries_are_the_dihedral_group():
    perms = square_symmetries(3)
    assert perms.shape == (8, 9) and len({tuple(p) for p in perms}) == 8
    assert list(perms[0]) == list(range(9))
    # closed under composition: a group of 8 permutations
    have = {tuple(p) for p in perms}
    assert all(tuple(p[q]) in have for p in perms for q in perms)
    # the images of the corner 0 are the 4 corners, of the edge 1 the 4 edges
    assert {int(p[0]) for p in perms} == {0, 2, 6, 8}
    assert {int(p[1]) for p in perms} == {1, 3, 5, 7}


@pytest.mark.parametrize("name,variant", [("quixo", "size=4"), ("quixo", "size=5"),
                                          ("cambio", "size=4"), ("teeko", "size=5"),
                                          ("teeko", "size=4,pieces=3"), ("tictactoe", None)])
def test_canonical_is_the_smallest_image(name, variant):
    """The bitboard games pick the canonical image by comparing masks and rank it once;
    it must be the image of smallest hash, found here from position strings by moving
    the cells with square_symmetries."""
    game = get_game(name, variant)
    rules = importlib.import_module(type(game).module)
    scratch = np.zeros(max(1, game.scratch_size), np.int8)
    n = len(game.to_string(game.start).split()[0].split("/"))
    perms = square_symmetries(n)
    rng = np.random.default_rng(5)
    seen = 0
    for h in rng.integers(0, game.hash_size, 3000).tolist():
        try:
            text = game.to_string(h)
            rows, *rest = text.split(" ")
            cells = rows.replace("/", "")
            images = []
            for perm in perms:
                moved = "".join(cells[i] for i in perm)
                images.append(game.from_string(" ".join(
                    ["/".join(moved[r * n:(r + 1) * n] for r in range(n))] + rest)))
        except Exception:  # noqa: BLE001 - a slot that is no position
            continue
        seen += 1
        assert game.canonical(h) == min(images), text
        assert rules.orbit(game.ctx, h, scratch) == len(set(images)), text
    assert seen > 500


def test_declared_symmetries():
    declared = {n for n in available() if get_game(n, GAMES.get(n, (None,))[0]).has_symmetry}
    assert {"tictactoe", "quixo", "teeko", "connect4"} <= declared
    assert not get_game("hanoi").has_symmetry


@pytest.mark.parametrize("name", list(GAMES))
def test_every_position_answers_as_without_symmetry(name, tmp_path):
    plain = get_game(name, GAMES[name][0])
    sym = symmetric(name)
    solve(plain, root=tmp_path / "plain")
    res = solve(sym, root=tmp_path / "sym")
    # the reduced database is right by the reference solver, position by position
    table = reference.solve(GAMES[name][1]())
    assert_matches_reference(sym, tmp_path / "sym", table)
    a, b = Database.open(plain, tmp_path / "plain"), Database.open(sym, tmp_path / "sym")
    assert not a.symmetric and b.symmetric and b.attrs["symmetry"] is True
    va, ra = a.value_array[:], a.remoteness_array[:]
    vb = b.value_array[:]
    reached = np.flatnonzero(va)
    canon = {plain.canonical(int(h)) for h in reached}
    # canonical positions only, each at its own index (compact: solver/kernels/compact.py)
    assert b.index is not None and b.index.count == vb.size < va.size
    assert {b.index.select(int(i)) for i in np.flatnonzero(vb)} == canon
    assert res.positions == len(canon) < len(reached)
    # every reachable position answers the same through the API (a plain game object:
    # the reader learns the symmetry from the database)
    api = Solved(get_game(name, GAMES[name][0]), tmp_path / "sym")
    for h in reached.tolist():
        assert api.db.lookup(h) == (int(va[h]), int(ra[h])), plain.to_string(h)
    some = plain.to_string(int(reached[len(reached) // 2]))
    assert api.query(some) == Solved(plain, tmp_path / "plain").query(some)
    # analyze counts all positions by their orbits: the unreduced report, and the stored
    report = analyze(b)
    assert report.pop("canonical") == {"positions": len(canon),
                                       "values": analyze_canonical(vb)}
    assert report == analyze(a)


def analyze_canonical(values):
    words = {4: "win", 1: "lose", 3: "tie", 2: "draw"}
    return {w: int((values == v).sum()) for v, w in words.items() if (values == v).any()}


@pytest.mark.parametrize("name", list(GAMES))
def test_all_methods_write_the_same_bytes_with_symmetry(name, tmp_path):
    game = symmetric(name)
    base = None
    for method in applicable_methods(game):
        solve(game, method, root=tmp_path / method)
        db = Database.open(game, tmp_path / method)
        got = db.value_array[:], db.remoteness_array[:]
        assert db.attrs["symmetry"] is True
        if base is None:
            base = got
            continue
        assert np.array_equal(got[0], base[0]), f"{name}: {method} values differ"
        assert np.array_equal(got[1], base[1]), f"{name}: {method} remoteness differs"


def test_the_other_setting_solves_again(tmp_path):
    game = get_game("tictactoe")
    assert not solve(game, root=tmp_path).reused
    assert solve(game, root=tmp_path).reused
    again = solve(get_game("tictactoe"), root=tmp_path, symmetry=True)
    assert not again.reused and again.positions == 765  # the known count of classes
    assert solve(symmetric("tictactoe"), root=tmp_path).reused


def test_the_public_solve_takes_symmetry(tmp_path):
    import solver

    got = solver.solve("tictactoe", db=tmp_path, symmetry=True)
    assert got.positions == 765  # the known count of classes
    assert Database.open(get_game("tictactoe"), tmp_path).symmetric
    assert solver.open("tictactoe", db=tmp_path).query("X--/-O-/--X").value == "tie"


def test_symmetry_on_a_game_without_it_is_a_clear_error(tmp_path):
    from games.base import GsolveError

    with pytest.raises(GsolveError, match="declares no symmetries"):
        solve(get_game("hanoi", "disks=3,pegs=3"), root=tmp_path, symmetry=True)


def test_cli_symmetry(tmp_path, capsys):
    from solver.command.cli import main

    def run(*args):
        code = main(list(args))
        return code, capsys.readouterr()

    db = str(tmp_path)
    code, (out, _) = run("solve", "tictactoe", "--symmetry", "--db", db, "--json")
    assert code == 0 and json.loads(out)["positions"] == 765
    # a non-canonical position and its mirror image answer alike, with their own moves
    code, (out, _) = run("query", "tictactoe", "--X/---/---", "X--/---/---", "--json",
                         "--db", db)
    a, b = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and a["position"] == "--X/---/---"
    assert (a["value"], a["remoteness"]) == (b["value"], b["remoteness"]) == ("tie", 8)
    assert sorted(m["move"] for m in a["moves"]) == ["1", "2", "4", "5", "6", "7", "8", "9"]
    code, (out, _) = run("analyze", "tictactoe", "--db", db)
    assert code == 0 and "5,478 reachable" in out and "765 canonical" in out
    code, (_, err) = run("solve", "hanoi", "--symmetry", "--db", db)
    assert code == 2 and "declares no symmetries" in err


@pytest.mark.parametrize("name,damage", [("connect4", "none"), ("cambio", "none"),
                                         ("cambio", "index")])
def test_an_interrupted_compact_solve_resumes_exactly(name, damage, tmp_path):
    """A compact tiered solve stopped after a few tasks resumes from its store (the index
    read back from there, or, when the stored one is damaged, found again and rewritten;
    Connect-4 numbers its canonical positions itself, Cambio by the stored index) and
    writes the bytes of an uninterrupted solve."""
    import zarr
    from test_cluster import Counting

    from solver.engine import manager
    from solver.methods.solve import numbered
    from solver.storage.database import group_path, partial_path

    game = symmetric(name)
    ref_res = solve(symmetric(name), "retrograde", root=tmp_path / "ref")
    path = group_path(tmp_path / "db", game)
    with pytest.raises(KeyboardInterrupt):
        manager.solve_into(numbered(game), path, Counting(stop=3), fresh=True, max_task=512)
    if damage == "index":
        index = zarr.open_group(str(partial_path(path)), mode="r+")["index"]
        index[:] = index[:] ^ np.uint64(1 << 40)
    res = solve(symmetric(name), "tiers", root=tmp_path / "db")
    assert not res.reused and res.positions == ref_res.positions
    assert name != "connect4" or res.positions == 3_587
    ref = Database.open(game, tmp_path / "ref")
    got = Database.open(game, tmp_path / "db")
    assert got.index.count == ref.index.count and got.attrs["tasks"] > 3
    assert np.array_equal(got.value_array[:], ref.value_array[:])
    assert np.array_equal(got.remoteness_array[:], ref.remoteness_array[:])


def test_a_damaged_compact_index_is_a_one_line_error(tmp_path, capsys):
    """The stored index decides where every position is read: one that is not the one
    recorded refuses the database (never answers from the wrong place)."""
    import zarr

    from solver.command.cli import main
    from solver.storage.database import group_path

    solve(symmetric("tictactoe"), root=tmp_path)
    index = zarr.open_group(str(group_path(tmp_path, get_game("tictactoe"))), mode="r+")["index"]
    index[:] = index[:] ^ np.uint64(1)
    assert main(["query", "tictactoe", "--db", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "index" in err[0] and "damaged" in err[0]


def test_a_wrong_cached_index_is_found_again(tmp_path, monkeypatch):
    """The index kept beside the kernels is used only when it reads back whole and a
    sample of its slots is canonical as asked afresh: a stale or damaged one is found
    again, never trusted."""
    from solver.kernels import compact

    monkeypatch.setenv("GSOLVE_CACHE", str(tmp_path / "cache"))
    game = get_game("quixo", GAMES["quixo"][0])
    right = compact.build(game).words.copy()
    path = compact._cached(game)
    for bad in (right ^ np.uint64(1 << 5), right[:-8]):  # other bits, a cut array
        with open(path, "wb") as f:
            np.savez(f, words=bad, digest=__import__("hashlib").sha256(bad.tobytes()).hexdigest())
        assert np.array_equal(compact.build(game).words, right)
    path.write_bytes(b"not an index")
    assert np.array_equal(compact.build(game).words, right)


@pytest.mark.parametrize("name,variant,sample", [
    ("baghchal", "size=4", None), ("baghchal", "size=5", 1 << 16),
    ("morris", "men=3", None), ("morris", "men=6", None), ("morris", "men=9", 1 << 16)])
def test_orbit_sizes_of_runs_are_each_positions_orbit(name, variant, sample):
    """A game's `orbit_sizes_indexed` (what analyze weighs canonical positions by) skips
    the runs of first-type sets that no symmetry fixes: it gives each position's own orbit
    all the same, over whole numberings and over runs of the large ones that cross sets,
    blocks and tiers."""
    game = get_game(name, variant)
    mod = importlib.import_module(game.module)
    scratch = np.zeros(game.scratch_size, np.int8)
    n = game.canonical_size
    rng = np.random.default_rng(len(variant))
    starts = [0] if sample is None else [0, n - sample, *rng.integers(0, n - sample, 6)]
    for first in starts:
        count = n if sample is None else sample
        value = rng.integers(0, 3, count).astype(np.int8)
        got = np.full(count, -1, np.int64)
        mod.orbit_sizes_indexed(game.ctx, int(first), value, got, scratch)
        want = _orbits_each(mod.orbit, mod.canonical_slot, game.ctx, int(first), value,
                            scratch)
        assert np.array_equal(got, want), first
        if sample is None:  # boards with symmetries of their own are in it too
            assert (got[value != 0] < got.max()).any()


@njit
def _orbits_each(orbit, slot, ctx, first, value, scratch):
    out = np.zeros(value.shape[0], np.int64)
    for j in range(value.shape[0]):
        if value[j] != 0:
            out[j] = orbit(ctx, slot(ctx, first + j), scratch)
    return out
