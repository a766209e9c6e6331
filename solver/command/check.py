"""`gsolve check`: a conformance suite for any game, on a bounded sample of positions.

The solvers trust a game's functions blindly (a wrong parent or a child outside the hash
gives wrong values, or writes out of bounds, with no error). This drives the game's own
numba functions from Python over positions reachable from the start (breadth-first up to
a cap, plus random playouts that reach deep positions) and over random hash slots, and
checks what the solvers and the database rely on. Bounded: a few seconds per game.
"""

from __future__ import annotations

import importlib
import random
import time
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from games.base import CANONICAL_FORMS, DRAW, LOSE, TIE, WIN, Game, PositionError

SHOW = 5  # failures kept per check


def shorten(text: str, limit: int = 60) -> str:
    """A position string short enough for a message."""
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit - 15]}...{text[-12:]}"


@dataclass
class Check:
    name: str
    what: str  # what was checked, with counts
    failures: list[str] = field(default_factory=list)
    failed: int = 0

    @property
    def ok(self) -> bool:
        return self.failed == 0

    def fail(self, text: str) -> None:
        self.failed += 1
        if len(self.failures) < SHOW:
            self.failures.append(text)

    def to_dict(self) -> dict:
        return {"check": self.name, "ok": self.ok, "what": self.what, "failed": self.failed,
                "failures": self.failures}


class _Rules:
    """The game's numba functions with oversized buffers: a game that writes more than it
    declares is caught by the count instead of corrupting memory."""

    def __init__(self, game: Game):
        self.game = game
        self.mod = importlib.import_module(game.module)
        self.scratch = np.zeros(max(1, game.scratch_size), np.int8)
        room = 4 * max(game.max_children, getattr(game, "max_parents", 0)) + 64
        self.out = np.empty(room, np.int64)
        self.codes = np.empty(room, np.int64)

    def primitive(self, h: int) -> int:
        return int(self.mod.primitive(self.game.ctx, h, self.scratch))

    def children(self, h: int) -> tuple[list[int], list[int]]:
        n = int(self.mod.children(self.game.ctx, h, self.out, self.codes, self.scratch))
        return [int(x) for x in self.out[:n]], [int(x) for x in self.codes[:n]]

    def parents(self, h: int, name: str = "parents") -> list[int]:
        n = int(getattr(self.mod, name)(self.game.ctx, h, self.out, self.scratch))
        return [int(x) for x in self.out[:n]]

    def expand(self, h: int) -> tuple[int, list[int], list[int]]:
        n = int(self.mod.expand(self.game.ctx, h, self.out, self.codes, self.scratch))
        k = max(n, 0)
        return n, [int(x) for x in self.out[:k]], [int(x) for x in self.codes[:k]]


def _sample(game: Game, rules: _Rules, cap: int, rng: random.Random) -> list[int]:
    """Up to `cap` distinct reachable positions: half breadth-first from the start, the
    rest from random playouts (so deep positions are checked too). Children outside the
    hash are not followed (the children check reports them)."""
    seen = {game.start}
    order = [game.start]
    todo = deque([game.start])
    while todo and len(order) < cap // 2:
        h = todo.popleft()
        try:  # a rule that raises is reported by the checks, which meet h again
            kids = [] if rules.primitive(h) else rules.children(h)[0][:game.max_children]
        except Exception:  # noqa: BLE001
            continue
        for c in kids:
            if 0 <= c < game.hash_size and c not in seen:
                seen.add(c)
                order.append(c)
                todo.append(c)
    if not todo:  # every reachable position is in already
        return order
    for _ in range(200):
        if len(order) >= cap:
            break
        h = game.start
        for _ in range(2_000):
            try:
                if rules.primitive(h):
                    break
                kids = [c for c in rules.children(h)[0][:game.max_children]
                        if 0 <= c < game.hash_size]
            except Exception:  # noqa: BLE001
                break
            if not kids:
                break
            h = rng.choice(kids)
            if h not in seen:
                seen.add(h)
                order.append(h)
                if len(order) >= cap:
                    break
    return order


def run_checks(game: Game, samples: int = 2000, seed: int = 0) -> list[Check]:
    """Every check of the suite on `samples` reachable positions and as many random
    slots."""
    rng = random.Random(seed)
    rules = _Rules(game)
    show = game.to_string
    checks: list[Check] = []

    contract = Check("contract", f"{game.hash_size:,} hash slots, start inside")
    checks.append(contract)  # the rest was checked at construction (games/base.py)
    try:
        tiers = game.check_tiers()
    except TypeError as e:
        contract.fail(str(e))
        return checks
    if tiers is not None:
        contract.what += f", {len(tiers):,} tiers cover them"

    reach = _sample(game, rules, samples, rng)
    randoms = [rng.randrange(game.hash_size) for _ in range(min(samples, game.hash_size))]

    # position strings: from_string(to_string(h)) == h, on reachable positions (must be
    # positions) and random slots (may be refused as impossible, never mistaken)
    rt = Check("round trip", "")
    refused = 0
    for kind, hs in (("reachable", reach), ("random", randoms)):
        for h in hs:
            try:
                s = show(h)
            except Exception as e:  # noqa: BLE001 - any failure is the finding
                if kind == "reachable":
                    rt.fail(f"to_string({h}) raised {type(e).__name__}: {shorten(e)}")
                else:
                    refused += 1
                continue
            if not isinstance(s, str) or not s or "\n" in s or s != s.strip():
                rt.fail(f"to_string({h}) = {shorten(repr(s))}: not a one-line string")
                continue
            try:
                back = game.from_string(s)
            except PositionError as e:
                if kind == "reachable":
                    rt.fail(f"'{shorten(s)}' (hash {h}) is refused: {shorten(e, 120)}")
                else:
                    refused += 1
                continue
            except Exception as e:  # noqa: BLE001
                rt.fail(f"from_string('{shorten(s)}') raised {type(e).__name__}: "
                        f"{shorten(e, 120)}")
                continue
            if back != h:
                rt.fail(f"'{shorten(s)}' is hash {h} but parses to {back}")
    rt.what = (f"{len(reach):,} reachable positions and {len(randoms):,} random slots "
               f"({refused:,} refused as impossible): from_string(to_string(h)) == h")
    checks.append(rt)

    # primitive values and children
    prim = Check("primitive", "")
    kids = Check("children", "")
    names = Check("move names", "")
    in_tier = Check("child tiers", "")
    allowed = {LOSE, WIN} if game.puzzle else {LOSE, TIE, WIN, DRAW}
    tier_of = None
    if tiers is not None:
        starts = np.array([t.start for t in tiers], np.int64)
        by_start = np.argsort(starts, kind="stable")
        sorted_starts = starts[by_start]

        def tier_of(h):
            return int(by_start[np.searchsorted(sorted_starts, h, side="right") - 1])

    edges: dict[int, list[int]] = {}
    ends = moves = tier_moves = 0
    for h in reach:
        try:
            v = rules.primitive(h)
            out, codes = (None, None) if v else rules.children(h)
        except Exception as e:  # noqa: BLE001 - a rule that raises is the finding
            kids.fail(f"'{shorten(show(h))}': the rules raised {type(e).__name__}: "
                      f"{shorten(e)}")
            continue
        if v:
            ends += 1
            if v not in allowed:
                prim.fail(f"'{shorten(show(h))}': primitive value {v} is not one of "
                          f"{sorted(allowed)}")
            continue
        if not 1 <= len(out) <= game.max_children:
            kids.fail(f"'{shorten(show(h))}': {len(out)} children (max_children "
                      f"{game.max_children}; a position that is not primitive has a move)")
            continue
        bad = [c for c in out if not 0 <= c < game.hash_size]
        if bad:
            kids.fail(f"'{shorten(show(h))}': child {bad[0]} outside [0, {game.hash_size:,})")
            continue
        moves += len(out)
        edges[h] = out
        try:
            words = [game.move_name(h, c) for c in codes]
        except Exception as e:  # noqa: BLE001
            names.fail(f"'{shorten(show(h))}': move_name raised {type(e).__name__}: "
                       f"{shorten(e)}")
            continue
        if len(set(words)) != len(words) or not all(isinstance(w, str) and w.strip() == w
                                                   and w for w in words):
            dup = sorted({w for w in words if words.count(w) > 1}) or words
            names.fail(f"'{shorten(show(h))}': move names not unique and non-empty: "
                       f"{shorten(' '.join(map(repr, dup)))}")
        if tier_of is not None:
            t = tier_of(h)
            for c in set(out):
                tier_moves += 1
                ct = tier_of(c)
                if ct not in tiers[t].children:
                    in_tier.fail(f"'{shorten(show(h))}' (tier {tiers[t].label}) -> "
                                 f"'{shorten(show(c))}' in tier {tiers[ct].label}, not "
                                 "among its child tiers")
    prim.what = (f"{ends:,} of {len(reach):,} reachable positions are primitive; values "
                 "are value codes")
    kids.what = (f"{len(edges):,} positions, {moves:,} moves: 1..{game.max_children} "
                 "children each, inside the hash")
    names.what = f"{len(edges):,} positions: one distinct, non-empty name per move"
    checks += [prim, kids, names]
    if tiers is not None:
        in_tier.what = f"{tier_moves:,} moves land in a declared child tier"
        checks.append(in_tier)

    if hasattr(rules.mod, "expand"):
        checks.append(_check_expand(game, rules, reach, show))
    if game.has_parents:
        checks.append(_check_parents(game, rules, reach, edges))
        if hasattr(rules.mod, "parents_in_tier"):
            checks.append(_check_parents_in_tier(game, rules, reach, tier_of))
    if hasattr(rules.mod, "canonical"):
        checks.append(_check_symmetry(game, rules, reach))
    if hasattr(rules.mod, "canonical_index") and game.canonical_size is not None:
        checks.append(_check_numbering(game, rules, reach))
    return checks


def _check_numbering(game: Game, rules: _Rules, reach: list[int]) -> Check:
    """The game's own numbering of canonical positions (a compact solve runs on it,
    solver/kernels/compact.py): one index per canonical position, increasing with its hash,
    inside canonical_size, and the `_indexed` rules agree with the canonical ones."""
    mod, ctx, scratch = rules.mod, game.ctx, rules.scratch
    check = Check("numbering", "")
    size = int(game.canonical_size)

    def index(h):
        return int(mod.canonical_index(ctx, int(mod.canonical(ctx, h, scratch))))

    canon = sorted({int(mod.canonical(ctx, h, scratch)) for h in reach})
    at = [int(mod.canonical_index(ctx, c)) for c in canon]
    for c, i in zip(canon, at, strict=True):
        if not 0 <= i < size or int(mod.canonical_slot(ctx, i)) != c:
            check.fail(f"'{shorten(game.to_string(c))}': index {i} is outside "
                       f"0..{size - 1} or canonical_slot does not give it back")
    if any(b <= a for a, b in zip(at, at[1:], strict=False)):
        check.fail("canonical_index does not increase with the hash")
    out, codes = rules.out, rules.codes
    for c, i in zip(canon, at, strict=True):
        where = f"'{shorten(game.to_string(c))}'"
        for name in ("children", "expand"):
            f = getattr(mod, f"{name}_indexed", None)
            if f is None or (name == "children" and rules.primitive(c) != 0):
                continue
            n = int(f(ctx, i, out, codes, scratch))
            if name == "expand" and n <= 0:
                if -n != rules.primitive(c):
                    check.fail(f"{where}: expand_indexed disagrees with primitive")
                continue
            got = sorted(zip(out[:n].tolist(), codes[:n].tolist(), strict=True))
            kids, moves = rules.children(c)
            if got != sorted(zip((index(x) for x in kids), moves, strict=True)):
                check.fail(f"{where}: {name}_indexed disagrees with the canonical index of "
                           "each child")
        for name in ("parents", "parents_in_tier"):
            f = getattr(mod, f"{name}_indexed", None)
            if f is not None:
                n = int(f(ctx, i, out, scratch))
                if set(out[:n].tolist()) != {index(p) for p in rules.parents(c, name)}:
                    check.fail(f"{where}: {name}_indexed disagrees with the canonical index "
                               "of each parent")
    check.what = (f"{len(canon):,} canonical positions: each at its own index below "
                  f"{size:,}, in hash order; the _indexed rules agree")
    return check


def _check_symmetry(game: Game, rules: _Rules, reach: list[int]) -> Check:
    """`canonical` picks one representative per orbit, and the `_canonical` forms of the
    rules (solver/kernels/symmetry.py uses them instead of canonical(child)) agree with it."""
    mod, ctx, scratch = rules.mod, game.ctx, rules.scratch
    check = Check("symmetry", "")

    def canon(h):
        return int(mod.canonical(ctx, h, scratch))

    forms = [n for n in CANONICAL_FORMS if hasattr(mod, f"{n}_canonical")]
    for h in reach:
        c = canon(h)
        if not 0 <= c <= h or canon(c) != c:
            check.fail(f"'{shorten(game.to_string(h))}': canonical {c} is not the smallest "
                       "image, or not its own canonical form")
            continue
        if int(mod.orbit(ctx, h, scratch)) < 1:
            check.fail(f"'{shorten(game.to_string(h))}': an orbit of no images")
        ended = rules.primitive(h) != 0
        for name in forms:
            if ended and name == "children":  # the contract never asks a primitive's
                continue
            plain = rules.parents(h, name) if name.startswith("parents") else getattr(
                rules, name)(h)
            out, codes = rules.out, rules.codes
            if name.startswith("parents"):
                n = int(getattr(mod, f"{name}_canonical")(ctx, h, out, scratch))
                got, want = sorted(set(out[:n].tolist())), sorted({canon(p) for p in plain})
            else:
                n = int(getattr(mod, f"{name}_canonical")(ctx, h, out, codes, scratch))
                k = max(n, 0)
                got = (n, out[:k].tolist(), codes[:k].tolist())
                if name == "children":
                    plain = (len(plain[0]),) + plain
                want = (plain[0], [canon(x) for x in plain[1]], plain[2])
            if got != want:
                check.fail(f"'{shorten(game.to_string(h))}': {name}_canonical disagrees with "
                           f"canonical({name})")
    check.what = (f"{len(reach):,} reachable positions: canonical is the orbit's smallest "
                  "and idempotent" + (f"; {', '.join(f'{n}_canonical' for n in forms)} agree with "
                                      "canonical of the plain rules" if forms else ""))
    return check


def _check_expand(game: Game, rules: _Rules, reach: list[int], show) -> Check:
    """A game's own `expand` (the solvers call it instead of primitive, then children)
    must say exactly what they say."""
    check = Check("expand", f"{len(reach):,} reachable positions: expand == primitive "
                  "(negated) or children, moves in the same order")
    for h in reach:
        v = rules.primitive(h)
        want = (-v, [], []) if v else (lambda o, c: (len(o), o, c))(*rules.children(h))
        try:
            got = rules.expand(h)
        except Exception as e:  # noqa: BLE001 - a rule that raises is the finding
            check.fail(f"'{shorten(show(h))}': expand raised {type(e).__name__}")
            continue
        if got != want:
            check.fail(f"'{shorten(show(h))}': expand gives {shorten(got)}, primitive and "
                       f"children {shorten(want)}")
    return check


def _check_parents(game: Game, rules: _Rules, reach: list[int],
                   edges: dict[int, list[int]]) -> Check:
    """Un-moves invert moves exactly: retrograde decrements a parent's counter once per
    distinct child, so a missing, extra or repeated parent gives wrong values."""
    check = Check("parents", "")
    show = game.to_string
    limit = game.max_parents
    cache: dict[int, list[int]] = {}

    def parents(c: int) -> list[int] | None:
        if c not in cache:
            ps = rules.parents(c)
            cache[c] = ps
            if len(ps) > limit:
                check.fail(f"'{shorten(show(c))}': {len(ps)} parents, more than max_parents "
                           f"{limit}")
            elif len(set(ps)) != len(ps):
                check.fail(f"'{shorten(show(c))}': a parent is listed twice")
            elif any(not 0 <= q < game.hash_size for q in ps):
                check.fail(f"'{shorten(show(c))}': a parent outside the hash")
        return cache[c]

    pairs = 0
    for h, out in edges.items():  # every child lists its parent
        for c in set(out):
            pairs += 1
            if h not in parents(c):
                check.fail(f"'{shorten(show(h))}' -> '{shorten(show(c))}' but the child's "
                           "parents omit it")
    back = 0
    for c in reach:  # every parent has the child (parents that are over are never asked)
        for q in parents(c):
            if not 0 <= q < game.hash_size or rules.primitive(q):
                continue
            back += 1
            kids = edges.get(q)
            if kids is None:
                kids = rules.children(q)[0][:game.max_children]
            if c not in kids:
                check.fail(f"'{shorten(show(q))}' is a parent of '{shorten(show(c))}' but "
                           "has no move to it")
    check.what = (f"{pairs:,} moves found among the child's parents; {back:,} parents of "
                  f"{len(reach):,} positions have the move (at most max_parents {limit})")
    return check


def _check_parents_in_tier(game: Game, rules: _Rules, reach: list[int], tier_of) -> Check:
    """`parents_in_tier` is `parents` less those in other tiers, each once: the retrograde
    inside a loopy tier takes it instead of filtering `parents`."""
    check = Check("parents_in_tier", "")
    if tier_of is None:
        check.fail("the module defines parents_in_tier but the game has no tiers")
        return check
    show = game.to_string
    found = 0
    for c in reach:
        got = rules.parents(c, "parents_in_tier")
        found += len(got)
        want = sorted(q for q in rules.parents(c) if 0 <= q < game.hash_size
                      and tier_of(q) == tier_of(c))
        if sorted(got) != want:
            check.fail(f"'{shorten(show(c))}': parents_in_tier gives {shorten(sorted(got))}, "
                       f"the parents in its tier are {shorten(want)}")
    check.what = (f"{len(reach):,} positions, {found:,} parents in their own tier: exactly "
                  "the parents that lie there")
    return check


def check_game(game: Game, samples: int = 2000) -> dict:
    """The suite's report: {"game", "variant", "ok", "seconds", "checks": [...]}."""
    t0 = time.perf_counter()
    checks = run_checks(game, samples)
    return {"game": game.name, "variant": game.variant_key,
            "start": shorten(game.to_string(game.start)), "hash_size": game.hash_size,
            "ok": all(c.ok for c in checks), "seconds": round(time.perf_counter() - t0, 3),
            "checks": [c.to_dict() for c in checks]}
