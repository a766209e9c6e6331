"""The solving methods, in one table: a name to the module that implements it.

Every method module answers the same protocol:

- `applies(game) -> bool`: whether it can solve the game (or game class);
- `why_not(game) -> str`: the one-line reason when it cannot;
- `warm_up(game)`: load (or compile) its kernels for the game, so that loading is not
  counted as solving;
- `solve(game, progress) -> records`: the records of the whole hash, in memory;
- `solve_into(game, path, progress, *, method, started, fresh, run, check, **options) ->
  summary`: the database written at `path` (solver/methods/solve.py calls only this);
- `WRITES_AS_IT_GOES`: whether `solve_into` writes the database task by task, so that a
  stopped solve resumes and the tier manager's options (--memory, --workers, --scheduler,
  --borrow, solver/engine/manager.py) apply: the tiered method; the others solve to
  records and write them at the end (solver/methods/whole.py).

Which method a solve uses by default, and whether it fits, is solver/methods/estimate.py's.
"""

from __future__ import annotations

import importlib

from games.base import Game, GsolveError

TIERED = "tiers"  # the method that streams tiers through the store (the others: whole)
METHODS: dict[str, str] = {
    "bottomup": "solver.methods.bottomup",
    "dfs": "solver.methods.dfs",
    TIERED: "solver.engine.manager",  # the tier manager is the tiered method
    "retrograde": "solver.methods.retrograde",
}


def method_module(method: str):
    """The module of `method` (GsolveError for a name not in the table)."""
    if method not in METHODS:
        raise GsolveError(f"unknown method '{method}' (methods: {', '.join(METHODS)})")
    return importlib.import_module(METHODS[method])


def resumable_method() -> str:
    """The method whose module WRITES_AS_IT_GOES (one, the tiered method)."""
    return next(m for m in METHODS if method_module(m).WRITES_AS_IT_GOES)


def applicable_methods(game: Game | type[Game]) -> list[str]:
    """Methods that can solve this game, in a fixed order."""
    return [m for m in METHODS if method_module(m).applies(game)]
