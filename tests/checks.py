"""Helpers and assertions shared by the game tests (one copy, used by every test file)."""

from __future__ import annotations

import functools
import importlib

import numpy as np
import pytest
from reference import WORDS  # noqa: F401  value code -> word, for the test files
from reference import solve as reference_solve

from solver.methods.registry import applicable_methods
from solver.methods.solve import solve
from solver.storage.database import Database
from solver.use.api import Solved


@functools.cache
def benchmark(name: str):
    """benchmarks/<name>.py as a module (the scripts are no package)."""
    import importlib.util
    import sys
    from pathlib import Path

    if name not in sys.modules:
        path = Path(__file__).resolve().parent.parent / "benchmarks" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = sys.modules[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


def reference_table(rules, *args) -> dict[str, tuple[int, int]]:
    """The reference solver's table of `rules(*args)` (a reference game class), solved
    once per test session."""
    return reference_solve(rules(*args))


def method_cases(variants, game_of, label) -> list:
    """pytest params (variant, method): each variant with every method that applies to
    `game_of(variant)`, named `label(variant)-method`."""
    return [pytest.param(v, m, id=f"{label(v)}-{m}")
            for v in variants for m in applicable_methods(game_of(v))]


def arrays(game, root) -> tuple[np.ndarray, np.ndarray]:
    """The value and remoteness arrays of the database under `root`, by hash slot."""
    return slot_arrays(Database.open(game, root))


def slot_arrays(db) -> tuple[np.ndarray, np.ndarray]:
    """A database's value and remoteness by hash slot: a compact one (canonical positions
    at their own index, solver/kernels/compact.py) laid out at their slots, 0 elsewhere."""
    value, rem = db.value_array[:], db.remoteness_array[:]
    if db.index is None:
        return value, rem
    assert value.size == db.index.count < db.game.hash_size
    slots = np.empty(value.size, np.int64)
    db.index.select_all(np.arange(value.size, dtype=np.int64), slots)
    out = np.zeros(db.game.hash_size, value.dtype), np.zeros(db.game.hash_size, rem.dtype)
    out[0][slots], out[1][slots] = value, rem
    return out


def assert_matches_reference(game, root, table: dict[str, tuple[int, int]]) -> None:
    """The database under `root` holds exactly the reference's reachable positions, each
    with the reference's value code and stored remoteness (0 for draws). Solved with
    symmetry, it holds their canonical forms, and each position answers at its own."""
    db = Database.open(game, root)
    values, rems = db.value_array[:], db.remoteness_array[:]
    positions = list(table)
    hashes = np.array([game.from_string(p) for p in positions], np.int64)
    if db.symmetric:
        hashes = np.array([game.canonical(int(h)) for h in hashes], np.int64)
        if db.index is not None:  # compact: stored at their canonical index
            assert all(db.index.has(int(h)) for h in hashes)
            hashes = np.array([db.index.rank(int(h)) for h in hashes], np.int64)
    else:
        assert len(set(hashes.tolist())) == len(positions)  # one hash per position
    assert int((values != 0).sum()) == len(set(hashes.tolist()))
    want_v = np.array([table[p][0] for p in positions])
    want_r = np.array([table[p][1] for p in positions])
    bad = np.flatnonzero((values[hashes] != want_v) | (rems[hashes] != want_r))
    assert bad.size == 0, [(positions[i], table[positions[i]]) for i in bad[:5]]


def solve_matches_reference(game, method, root, table: dict[str, tuple[int, int]]):
    """Solve `game` by `method` into `root`: it reaches as many positions as the
    reference, and stores the reference's values (`assert_matches_reference`). Returns
    the solve's result."""
    result = solve(game, method, root=root)
    assert result.positions == len(table)
    assert_matches_reference(game, root, table)
    return result


def assert_solves_like_reference(game, ref, method, root, table, positions: int,
                                  start: tuple[str, int | None]) -> None:
    """`game` starts where the reference rules `ref` do; solved by `method` into `root` it
    holds the reference's `table` (`solve_matches_reference`), `positions` of them, and
    its start answers `start` (value word, remoteness)."""
    assert game.to_string(game.start) == ref.start()
    assert solve_matches_reference(game, method, root, table).positions == positions
    info = Solved(game, root).query()
    assert (info.value, info.remoteness) == start


def assert_queries_match(solved, table: dict[str, tuple[int, int]], positions) -> None:
    """`solved.query` answers each position with the reference's value and remoteness
    (none for a draw)."""
    for position in positions:
        value, rem = table[position]
        info = solved.query(position)
        assert (info.value, info.remoteness) == (WORDS[value],
                                                 None if value == 2 else rem), position


# -- moves and un-moves -------------------------------------------------------------------

def child_strings(game, s: str) -> list[str]:
    """The children of position `s`, as sorted strings (one per move)."""
    return sorted(game.to_string(c) for _, c in game.moves(game.from_string(s)))


def named_children(game, s: str) -> dict[str, str]:
    """Move name -> child string of position `s`."""
    return {name: game.to_string(c) for name, c in game.moves(game.from_string(s))}


def named_moves(game, s: str) -> list[tuple[str, str]]:
    """Sorted (move name, child string) of position `s`."""
    return sorted(named_children(game, s).items())


def ref_children(ref, s: str) -> list[str]:
    """The reference rules' children of `s`, sorted; none when it is primitive."""
    return [] if ref.primitive(s) else sorted(ref.children(s))


def ref_moves(ref, s: str) -> list[tuple[str, str]]:
    """The reference rules' sorted (move name, child) of `s`; none when primitive."""
    return [] if ref.primitive(s) else sorted(ref.moves(s))


def parents_of(game, h: int) -> list[int]:
    """The un-moves of hash h, from the game module's `parents`."""
    mod = importlib.import_module(game.module)
    out = np.empty(game.max_parents, np.int64)
    n = mod.parents(game.ctx, h, out, np.empty(game.scratch_size, np.int8))
    return [int(x) for x in out[:n]]


def children_by_hash(game) -> dict[int, list[int]]:
    """child hash -> the non-primitive hashes with a move to it (once per move), over the
    whole hash space (each of them has a move)."""
    mod = importlib.import_module(game.module)
    out, codes, scratch = game._buffers()
    seen: dict[int, list[int]] = {}
    for h in range(game.hash_size):
        if mod.primitive(game.ctx, h, scratch):
            continue
        n = mod.children(game.ctx, h, out, codes, scratch)
        assert n >= 1, game.to_string(h)
        for i in range(n):
            seen.setdefault(int(out[i]), []).append(h)
    return seen


def assert_parents_invert_children(game, seen: dict[int, list[int]] | None = None,
                                   once: bool = False) -> None:
    """On every hash: the un-moves are, once each and within max_parents, exactly the
    non-primitive positions with it among their children (`seen`, from
    `children_by_hash` when not given). With `once`, no parent has two moves to it."""
    if seen is None:
        seen = children_by_hash(game)
    for h in range(game.hash_size):
        ps = parents_of(game, h)
        assert len(ps) == len(set(ps)) <= game.max_parents, game.to_string(h)
        assert set(ps) == set(seen.get(h, ())), game.to_string(h)
        if once:
            assert sorted(ps) == sorted(seen.get(h, ())), game.to_string(h)


def assert_rules_and_unmoves_on_every_hash(game, ref, named=None) -> None:
    """On every hash: primitive agrees with the reference rules `ref`, the named moves
    too where `named(h, s)` (everywhere when None), and the un-moves are exactly the
    non-primitive positions with it among their children (`assert_parents_invert_children`)."""
    mod = importlib.import_module(game.module)
    out, codes, scratch = game._buffers()
    strings = [game.to_string(h) for h in range(game.hash_size)]
    seen: dict[int, list[int]] = {}
    for h, s in enumerate(strings):
        p = int(mod.primitive(game.ctx, h, scratch))
        assert p == ref.primitive(s), s
        if p:
            continue
        n = mod.children(game.ctx, h, out, codes, scratch)
        if named is None or named(h, s):
            got = sorted((game.move_name(h, int(codes[i])), strings[out[i]]) for i in range(n))
            assert got == ref_moves(ref, s), s
        for i in range(n):
            seen.setdefault(int(out[i]), []).append(h)
    assert_parents_invert_children(game, seen)


def assert_random_hashes_match(game, ref, rng, count: int) -> None:
    """`count` random hashes (reachable or not): the string round trip, primitive and the
    children (with multiplicity) agree with the reference rules `ref`; a position that is
    not primitive has a move."""
    for _ in range(count):
        h = rng.randrange(game.hash_size)
        pos = game.to_string(h)
        assert game.from_string(pos) == h
        assert game.primitive_value(h) == ref.primitive(pos), pos
        assert child_strings(game, pos) == ref_children(ref, pos), pos
        assert game.primitive_value(h) or game.moves(h), pos  # never stuck


def assert_playout_matches(game, ref, rng, plies: int) -> None:
    """A random game from the start, up to `plies` moves or its end: the children agree
    with the reference rules `ref` at each position."""
    pos = game.to_string(game.start)
    for _ in range(plies):
        if ref.primitive(pos):
            break
        assert child_strings(game, pos) == ref_children(ref, pos), pos
        pos = rng.choice(ref.children(pos))


def assert_random_games_match(game, ref, rng, plies: int, parents_per_move=None) -> int:
    """Random games from the reference's start, restarted at each end, for `plies`
    positions: string round trip, primitive, named moves (`ref.moves`) and un-moves (each
    child lists the position; at most `parents_per_move` children a position, all when
    None) agree. Returns how many games ended."""
    pos, ends = ref.start(), 0
    for _ in range(plies):
        h = game.from_string(pos)
        assert game.to_string(h) == pos
        assert game.primitive_value(h) == ref.primitive(pos), pos
        assert named_moves(game, pos) == ref_moves(ref, pos), pos
        if ref.primitive(pos):
            pos, ends = ref.start(), ends + 1
            continue
        kids = ref.children(pos)
        if parents_per_move is not None:
            kids_checked = rng.sample(kids, min(parents_per_move, len(kids)))
        else:
            kids_checked = kids
        for c in kids_checked:
            assert h in parents_of(game, game.from_string(c)), (pos, c)
        pos = rng.choice(kids)
    return ends


def assert_random_parents_match(game, ref, rng, count: int) -> None:
    """`count` random hashes: primitive agrees with the reference rules, and each
    un-move's position has it among its reference children."""
    for _ in range(count):
        h = rng.randrange(game.hash_size)
        s = game.to_string(h)
        assert game.primitive_value(h) == ref.primitive(s), s
        for q in parents_of(game, h):
            assert s in ref.children(game.to_string(q)), (s, game.to_string(q))


def rules_on_every_hash(game, ref):
    """On every hash: the string round trip, primitive against the reference rules `ref`,
    and for a position that is not primitive its children (sorted strings, with
    multiplicity) and distinct move names. Yields (h, s, names, child hashes, child
    strings) of each such position, for the caller's own checks."""
    mod = importlib.import_module(game.module)
    out, codes, scratch = game._buffers()
    for h in range(game.hash_size):
        s = game.to_string(h)
        assert game.from_string(s) == h
        p = int(mod.primitive(game.ctx, h, scratch))
        assert p == ref.primitive(s), s
        if p:
            continue
        n = mod.children(game.ctx, h, out, codes, scratch)
        kids = [game.to_string(int(out[i])) for i in range(n)]
        assert sorted(kids) == sorted(ref.children(s)), s
        names = [game.move_name(h, int(codes[i])) for i in range(n)]
        assert len(set(names)) == n
        yield h, s, names, [int(out[i]) for i in range(n)], kids


def contiguous_tiers(game) -> list:
    """The game's tiers, after checking that they cover its hash from 0, in order, with
    no gap."""
    tiers = game.tiers()
    assert tiers[0].start == 0 and tiers[-1].stop == game.hash_size
    assert all(a.stop == b.start for a, b in zip(tiers, tiers[1:], strict=False))
    return tiers


def assert_random_moves_in_child_tiers(game, tiers, rng, count: int, check=None) -> None:
    """`count` random hashes: every move of one that is not primitive lands in a child
    tier of its own tier (and passes `check(h, child)` when given)."""
    def where(h):
        return next(i for i, t in enumerate(tiers) if t.start <= h < t.stop)

    for _ in range(count):
        h = rng.randrange(game.hash_size)
        if game.primitive_value(h):
            continue
        for _, c in game.moves(h):
            assert where(c) in tiers[where(h)].children
            if check is not None:
                check(h, c)
