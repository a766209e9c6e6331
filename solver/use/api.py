"""The public Python API: open a solved game variant and ask it about positions.

    >>> import solver
    >>> ttt = solver.open("tictactoe")
    >>> ttt.query("X--/-O-/--X").value
    'tie'
    >>> [m.move for m in ttt.best_moves("X--/-O-/--X")]
    [...]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from games import get_game
from games.base import VALUE_WORDS, Game, GsolveError, PositionError, shown_remoteness


@dataclass(frozen=True)
class Move:
    move: str
    position: str
    value: str
    remoteness: int | None


@dataclass(frozen=True)
class PositionInfo:
    position: str
    value: str
    remoteness: int | None
    moves: list[Move] = field(default_factory=list)

    def to_dict(self) -> dict:
        # asdict's deep copy of every field cost a third of a served query (32 moves: 0.5 ms)
        return {"position": self.position, "value": self.value, "remoteness": self.remoteness,
                "moves": [dict(m.__dict__) for m in self.moves]}


class Solved:
    """A solved game variant, read from its database."""

    def __init__(self, game: Game, db: str | Path | None = None):
        # zarr: only when a database is opened
        from solver.storage.database import Database, UnfinishedSolve

        self.game = game
        try:
            self.db = Database.open(game, db)
        except UnfinishedSolve as e:  # never suggest a resume that would be refused
            from solver.methods.estimate import check_solve

            try:
                check_solve(game, "tiers", root=e.path.parent.parent)
            except GsolveError as why:
                raise e.refused(why) from None
            raise

    def __repr__(self) -> str:
        return f"Solved({self.game.name!r}, {self.game.variant_key!r}, {str(self.db.path)!r})"

    @property
    def start(self) -> str:
        return self.game.to_string(self.game.start)

    def hash(self, position: str) -> int:
        return self.game.from_string(position)

    def lookup(self, h: int) -> tuple[str, int | None]:
        """(value word, remoteness) of a hash; PositionError if it is not reachable."""
        v, r = self.db.lookup(h)
        if v == 0:
            raise PositionError(
                f"{self.game.name} position '{self.game.to_string(h)}' cannot be reached "
                "from the start")
        return VALUE_WORDS[v], shown_remoteness(v, r, self.game.puzzle)

    def query(self, position: str | None = None) -> PositionInfo:
        """Value, remoteness and every move with its child's value (the start if None)."""
        return self.query_hash(self.game.start if position is None else self.hash(position))

    def query_hash(self, h: int) -> PositionInfo:
        """query() of a position's hash (a server that has parsed it already)."""
        value, rem = self.lookup(h)
        moves = []
        for name, child in self.game.moves(h):
            cv, cr = self.lookup(child)
            moves.append(Move(name, self.game.to_string(child), cv, cr))
        return PositionInfo(self.game.to_string(h), value, rem, moves)

    def best_moves(self, position: str | None = None) -> list[Move]:
        """The moves of perfect play: they keep the value and the remoteness exact (the
        fastest win, the slowest loss, the fastest tie; puzzles: the shortest solution)."""
        return best_of(self.query(position), self.game.puzzle)


FLIP = {"win": "lose", "lose": "win", "tie": "tie", "draw": "draw"}


def for_mover(move: Move, puzzle: bool) -> tuple[str, int | None]:
    """A move's value for the player who makes it (a child's value is for its own mover),
    and the moves to the end counting this one: the winning move of "win in 3" is "win in 3"."""
    value = move.value if puzzle else FLIP[move.value]
    return value, None if move.remoteness is None else move.remoteness + 1


def best_of(info: PositionInfo, puzzle: bool) -> list[Move]:
    """The moves of `info` that keep its value and exact remoteness (see best_moves)."""
    want = "win" if puzzle else FLIP[info.value]
    good = [m for m in info.moves if m.value == want]
    if info.remoteness is not None:
        good = [m for m in good if m.remoteness == info.remoteness - 1]
    return good


def open(game: str, variant: str | dict | None = None, db: str | Path | None = None) -> Solved:
    """Open the solved database of `game` (in `variant`) under `db` (default ./gsolve-db)."""
    return Solved(get_game(game, variant), db)
