"""gsolve's solvers, database, Python API and command.

    import solver
    ttt = solver.open("tictactoe")          # a solved database
    info = ttt.query("X--/-O-/--X")          # value, remoteness, moves
    solver.solve("connect4", variant="width=5,height=4")   # solve and store

Names are loaded on first use, so `import solver` (and `gsolve list`) stays cheap: the
database layer imports zarr, the solvers numba.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"  # the package version (pyproject.toml reads it from here)

__all__ = ["Move", "PositionInfo", "Solved", "open", "solve"]

_API = ("Move", "PositionInfo", "Solved", "open")


def __getattr__(name):
    if name in _API:
        return getattr(importlib.import_module("solver.use.api"), name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")


def solve(game, method: str | None = None, variant=None, db=None, force: bool = False,
          progress=None, symmetry: bool = False):
    """Solve `game` (a name, or a games.base.Game) into the database under `db` (default
    ./gsolve-db or $GSOLVE_DB), canonical positions only with `symmetry` (`--symmetry`; a
    database solved with the other setting is solved again); returns the SolveResult
    summary."""
    if isinstance(game, str):
        from games import get_game

        game = get_game(game, variant)
    elif variant is not None:
        raise TypeError("variant goes with a game name, not a Game object")
    from solver.methods.solve import solve as run
    from solver.runtime.allocator import map_large_blocks

    map_large_blocks()  # as the command does: the process holds what the solve counts

    return run(game, method, db, force, progress, symmetry=symmetry)
