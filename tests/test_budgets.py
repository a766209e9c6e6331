"""Tiered solves at fuzzed memory budgets give the database of a solve that never met a
budget (dfs, or the retrograde for loopy games), byte for byte, or are refused before
anything is written (issue 44: `--memory 0.46` once marked a Connect-4 5x4 database
complete with 25,967 of its 3,945,711 positions, and Quixo 4x4 at 0.405 stored 1.1 M wrong
values). tests/budgets.py draws the budgets, dense around every threshold.

A few budgets a game run on every test run: the least the plan takes and a budget below
it, one whose chunk cache holds less than a chunk beside tasks of full size, and the full
size. With GSOLVE_SLOW=1, at least 30 a game.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from budgets import STEP, budgets, fits, full, least
from checks import arrays

from games import get_game
from games.base import GsolveError
from solver.engine import plan
from solver.engine.plan import BASE
from solver.methods.solve import solve
from solver.storage.database import CHUNK, group_path, partial_path

SLOW = bool(os.environ.get("GSOLVE_SLOW"))
# (game, variant, --symmetry, the solve that never meets a budget, the least budget runs
# on every test run: Connect-4's least runs paged, a minute or more even for 5x4)
GAMES = [("connect4", "width=5,height=4", False, "dfs", False),
         ("connect4", "width=5,height=5", False, "dfs", False),
         ("quixo", "size=3", False, "retrograde", True),
         ("baghchal", "size=4", True, "retrograde", True),
         ("morris", "men=6", True, "retrograde", True)]


def _game(name, variant, symmetric):
    game = get_game(name, variant)
    if symmetric:
        from solver.kernels.numbering import Numbering

        game = Numbering(game, True)
    return game


def _quick(game, with_least: bool) -> list[int]:
    """The budgets of every test run."""
    lo = least(game)
    # the tasks at full size and the cache and queue under a chunk beside them (issue 44's
    # Connect-4 5x4 at 0.46 GiB); the tasks of a tight plan are the least's (Connect-4 5x4:
    # 3,130 of them, 100 s, so its least runs only with GSOLVE_SLOW)
    tight = BASE + plan.plan(game).largest + CHUNK // 2
    assert fits(game, tight) and tight - BASE - plan.plan(game, tight - BASE).largest < CHUNK
    out = [lo - STEP, tight, full(game)]
    return out + [lo] if with_least else out


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference database of each game, solved once."""
    made = {}

    def get(name, variant, symmetric, method):
        key = (name, variant, symmetric)
        if key not in made:
            root = tmp_path_factory.mktemp(f"ref-{name}")
            solve(_game(name, variant, symmetric), method, root=root, symmetry=symmetric)
            made[key] = arrays(_game(name, variant, symmetric), root)
        return made[key]
    return get


SLOW_ONLY = pytest.mark.skipif(not SLOW, reason="set GSOLVE_SLOW=1 (its full size takes 20 s)")
CASES = [pytest.param(*g, id=f"{g[0]}-{g[1]}",
                      marks=SLOW_ONLY if g[:2] == ("connect4", "width=5,height=5") else ())
         for g in GAMES]


@pytest.mark.parametrize("name,variant,symmetric,method,with_least", CASES)
def test_every_budget_gives_the_reference_database_or_a_refusal(
        name, variant, symmetric, method, with_least, reference, tmp_path):
    ref = reference(name, variant, symmetric, method)
    game = _game(name, variant, symmetric)
    tried = budgets(game, 30) if SLOW else _quick(game, with_least)
    assert len(tried) >= (30 if SLOW else 3)
    solved = refused = 0
    for b in tried:
        root = tmp_path / f"b{b}"
        path = group_path(root, _game(name, variant, symmetric))
        try:
            solve(_game(name, variant, symmetric), "tiers", root=root, memory=int(b),
                  symmetry=symmetric, no_time_limit=True)
        except GsolveError as e:
            assert "budget" in str(e) or "memory" in str(e), e
            assert not path.exists() and not partial_path(path).exists(), b  # nothing written
            refused += 1
            continue
        got = arrays(_game(name, variant, symmetric), root)
        for x, y in zip(got, ref, strict=True):
            assert np.array_equal(x, y), f"--memory {b} bytes: not the {method} database"
        solved += 1
    assert refused >= 1 and solved >= 2  # below the least is refused, the rest solve
