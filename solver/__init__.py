"""gsolve's solvers, database, Python API and command.

    import solver
    ttt = solver.open("tictactoe")          # a solved database
    info = ttt.query("X--/-O-/--X")          # value, remoteness, moves
"""

from solver.api import Move, PositionInfo, Solved, open

__all__ = ["Move", "PositionInfo", "Solved", "open"]
