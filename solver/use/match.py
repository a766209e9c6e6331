"""A game between two players refereed by the database: the match, its players (perfect,
random) and the result for each side. `gsolve play` (solver/use/play.py) puts a person at one
side, the matchbox learner (solver/use/learn.py) trains at one; both build on this.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from games.base import PositionError
from solver.use.api import Move, PositionInfo, Solved, best_of

SIDES = ("first", "second")
COLOURS = {"win": "green", "lose": "red", "tie": "yellow", "draw": "blue"}


def word(value: str, remoteness: int | None) -> str:
    return value if remoteness is None else f"{value} in {remoteness}"


class Table:
    """Query answers of the positions met so far, each asked of the database once."""

    def __init__(self, solved: Solved):
        self.solved = solved
        self.puzzle = solved.game.puzzle
        self._info: dict[str, PositionInfo] = {}

    def info(self, position: str | None) -> PositionInfo:
        got = self._info.get(position) if position is not None else None
        if got is None:
            got = self.solved.query(position)
            self._info[got.position] = got
        return got


class Match:
    """A game in progress: the positions so far, whose turn it is, moves and undo."""

    def __init__(self, table: Table, start: str | None = None):
        self.table = table
        self.positions = [table.info(start).position]
        self.moves: list[str] = []

    @property
    def info(self) -> PositionInfo:
        return self.table.info(self.positions[-1])

    @property
    def ply(self) -> int:
        return len(self.moves)

    def side(self, ply: int | None = None) -> str:
        """Who moves at `ply` (now by default): a puzzle has one player, "first"."""
        ply = self.ply if ply is None else ply
        return "first" if self.table.puzzle else SIDES[ply % 2]

    @property
    def over(self) -> bool:
        return not self.info.moves

    def find(self, name: str) -> Move | None:
        moves = self.info.moves
        for m in moves:
            if m.move == name:
                return m
        folded = [m for m in moves if m.move.lower() == name.lower()]
        return folded[0] if len(folded) == 1 else None

    def play(self, name: str) -> Move:
        m = self.find(name)
        if m is None:
            legal = ", ".join(x.move for x in self.info.moves) or "none: the game is over"
            raise PositionError(f"'{name}' is not a legal move in {self.positions[-1]} "
                                f"(legal: {legal})")
        self.moves.append(m.move)
        self.positions.append(m.position)
        return m

    def undo(self) -> None:
        self.moves.pop()
        self.positions.pop()

    def outcome(self) -> tuple[str | None, str]:
        """(winner side or None, how) at the end: how is 'win', 'tie', 'solved' or
        'dead end' (puzzles)."""
        info = self.info
        if self.table.puzzle:
            return ("first", "solved") if info.value == "win" else (None, "dead end")
        if info.value == "tie":
            return None, "tie"
        mover = self.side()
        if info.value == "win":
            return mover, "win"
        return SIDES[1 - SIDES.index(mover)], "win"


# -- computer players: (match, rng) -> move name, or None to resign ------------------------
Player = Callable[[Match, random.Random], str | None]


def perfect_player(match: Match, rng: random.Random) -> str:
    """A random move among the best: fastest win, slowest loss, fastest tie."""
    info = match.info
    best = best_of(info, match.table.puzzle) or info.moves  # a lost puzzle: any move
    return rng.choice(best).move


def random_player(match: Match, rng: random.Random) -> str:
    return rng.choice(match.info.moves).move


def play_out(match: Match, players: dict[str, Player], rng: random.Random,
             max_plies: int) -> tuple[str | None, str]:
    """Let computer players finish `match`: (winner, how), how as in Match.outcome, or
    'resigned', or 'stopped' at max_plies (a loopy game going round)."""
    while not match.over:
        if match.ply >= max_plies:
            return None, "stopped"
        side = match.side()
        name = players[side](match, rng)
        if name is None:
            return (None if match.table.puzzle else SIDES[1 - SIDES.index(side)]), "resigned"
        match.play(name)
    return match.outcome()


def result_for(winner: str | None, how: str, side: str) -> str:
    """The result word for `side`: win, lose or tie (puzzles: win when solved)."""
    if how == "tie":
        return "tie"
    return "win" if winner == side else "lose"


# -- the terminal / script session ---------------------------------------------------------
