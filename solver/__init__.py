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
import sys
import types

__version__ = "0.1.0"  # the package version (pyproject.toml reads it from here)

__all__ = ["Move", "PositionInfo", "Solved", "open", "solve"]

_API = ("Move", "PositionInfo", "Solved", "open")


def __getattr__(name):
    if name in _API:
        return getattr(importlib.import_module("solver.api"), name)
    raise AttributeError(f"module 'solver' has no attribute {name!r}")


class _Solve:
    """`solver.solve(game, method=None, ...)` solves and stores a game variant.

    `solver.solve` is also the name of the module `solver/solve.py`; importing that module
    would normally rebind the attribute to it. This object stays callable and forwards
    every other attribute to the module, so `solver.solve.solve(...)`,
    `solver.solve.applicable_methods` and `from solver.solve import ...` all keep working.
    """

    def __call__(self, game, method: str | None = None, variant=None, db=None,
                 force: bool = False, progress=None):
        """Solve `game` (a name, or a games.base.Game) into the database under `db`
        (default ./gsolve-db or $GSOLVE_DB); returns the SolveResult summary."""
        if isinstance(game, str):
            from games import get_game

            game = get_game(game, variant)
        elif variant is not None:
            raise TypeError("variant goes with a game name, not a Game object")
        return self._module().solve(game, method, db, force, progress)

    @staticmethod
    def _module():
        return importlib.import_module("solver.solve")

    def __getattr__(self, name):
        return getattr(self._module(), name)

    def __setattr__(self, name, value):  # monkeypatching solver.solve.X patches the module
        setattr(self._module(), name, value)

    def __delattr__(self, name):
        delattr(self._module(), name)

    def __repr__(self) -> str:
        return "<function solver.solve (and module solver.solve)>"


_SOLVE = _Solve()


class _Package(types.ModuleType):
    @property
    def solve(self):
        return _SOLVE

    @solve.setter
    def solve(self, module):
        """The import system binding the submodule: it stays in sys.modules."""


sys.modules[__name__].__class__ = _Package
