"""The solving methods, in one table: a name to the module that implements it.

Every method module answers the same protocol:

- `applies(game) -> bool`: whether it can solve the game (or game class);
- `why_not(game) -> str`: the one-line reason when it cannot;
- `warm_up(game)`: load (or compile) its kernels for the game, so that loading is not
  counted as solving;
- either `solve(game, progress) -> records` (the whole hash in memory; solver/methods/solve.py
  writes the database) or `solve_into(game, path, progress, fresh, **options) -> summary`
  (it writes the database itself, task by task: the tiered method).

Which method a solve uses by default, and whether it fits, is solver/methods/estimate.py's.
"""

from __future__ import annotations

import importlib

from games.base import Game, GsolveError

METHODS: dict[str, str] = {
    "bottomup": "solver.methods.bottomup",
    "dfs": "solver.methods.dfs",
    "tiers": "solver.methods.tiers",
    "retrograde": "solver.methods.retrograde",
}


def method_module(method: str):
    """The module of `method` (GsolveError for a name not in the table)."""
    if method not in METHODS:
        raise GsolveError(f"unknown method '{method}' (methods: {', '.join(METHODS)})")
    return importlib.import_module(METHODS[method])


def applicable_methods(game: Game | type[Game]) -> list[str]:
    """Methods that can solve this game, in a fixed order."""
    return [m for m in METHODS if method_module(m).applies(game)]
