"""`gsolve learn`: Gardner's matchbox learner (Hexapawn; Michie's MENACE is the same idea).

One matchbox per position the learner meets, holding beads for each of its legal moves.
The learner draws a move with probability proportional to its beads. After a game:

* won: every move it made in the game gains a bead (the reward of the seed document);
* lost: the last move it made loses a bead (Gardner's punishment). A box whose beads are
  all gone means every move there was punished into nothing: the learner resigns there,
  and that resignation is a loss that punishes the move which led into the box.

Punishing only the last move is what makes the scheme sound: a move loses its last bead
only when the opponent won straight after it, or when it led to a box whose moves have
all lost theirs, so by induction only moves that really lose are ever taken away, and a
learner that can win comes to win every game. (Taking a bead from every move of a lost
game, as the seed's Java code does, can empty the box of a good first move after a
later blunder; the seed itself notes its learner "will succeed most of the time, but not
always".) The solved database is only the opponent and the judge: the learner never
reads it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from games.base import Game, GsolveError
from solver.use.api import Solved, for_mover
from solver.use.match import SIDES, Match, Table, perfect_player, play_out, random_player

BRAIN_FORMAT = 1


class Brain:
    """The matchboxes: position string -> move name -> beads."""

    def __init__(self, game: Game, beads: int = 1, reward: int = 1):
        self.game_name, self.variant = game.name, game.variant_key
        self.beads, self.reward = beads, reward
        self.boxes: dict[str, dict[str, int]] = {}
        self.games = 0

    # -- playing ---------------------------------------------------------------
    def box(self, match: Match) -> dict[str, int]:
        info = match.info
        got = self.boxes.get(info.position)
        if got is None:
            got = self.boxes[info.position] = {m.move: self.beads for m in info.moves}
        return got

    def player(self, match: Match, rng: random.Random) -> str | None:
        """A move drawn with probability proportional to its beads; None (resign) when
        the box is empty."""
        box = self.box(match)
        total = sum(box.values())
        if total <= 0:
            return None
        pick = rng.randrange(total)
        for move, n in box.items():
            pick -= n
            if pick < 0:
                return move
        raise AssertionError("unreachable")

    # -- learning --------------------------------------------------------------
    def learn_from(self, match: Match, winner: str | None, how: str, sides) -> None:
        """Reward or punish the moves `sides` (the learner's) made in a finished game."""
        self.games += 1
        for side in sides:
            own = [(match.positions[i], match.moves[i]) for i in range(match.ply)
                   if match.side(i) == side]
            if winner == side:
                for pos, move in own:
                    self.boxes[pos][move] += self.reward
            elif how not in ("tie", "stopped") and own:
                pos, move = own[-1]
                self.boxes[pos][move] = max(0, self.boxes[pos][move] - 1)

    # -- judging ---------------------------------------------------------------
    def perfect_fraction(self, table: Table) -> float | None:
        """The fraction of boxes whose most-weighted move keeps the position's value (an
        empty box counts when the position is indeed lost)."""
        judged = good = 0
        for pos, box in self.boxes.items():
            if not box:
                continue
            info = table.info(pos)
            judged += 1
            top = max(box.values())
            if top == 0:
                good += info.value == "lose"
                continue
            by_name = {m.move: m for m in info.moves}
            good += all(for_mover(by_name[mv], table.puzzle)[0] == info.value
                        for mv, n in box.items() if n == top)
        return good / judged if judged else None

    # -- saving ----------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        data = {"gsolve_brain": BRAIN_FORMAT, "game": self.game_name,
                "variant": self.variant, "beads": self.beads, "reward": self.reward,
                "games": self.games, "boxes": self.boxes}
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
        tmp.replace(path)

    @classmethod
    def load_or_new(cls, path: str | Path | None, game: Game) -> Brain:
        brain = cls(game)
        if path is None or not Path(path).exists():
            return brain
        try:
            data = json.loads(Path(path).read_text())
            ok = data.get("gsolve_brain") == BRAIN_FORMAT
        except (OSError, ValueError, AttributeError):
            ok = False
        if not ok:
            raise GsolveError(f"{path} is not a gsolve learner brain")
        if (data["game"], data["variant"]) != (game.name, game.variant_key):
            raise GsolveError(f"brain {path} learned {data['game']} {data['variant']}, "
                              f"not {game.name} {game.variant_key}")
        brain.beads, brain.reward = int(data["beads"]), int(data["reward"])
        brain.games = int(data["games"])
        brain.boxes = {p: {m: int(n) for m, n in box.items()}
                       for p, box in data["boxes"].items()}
        return brain


def train(solved: Solved, games: int, against: str, side: str = "second",
          seed: int | None = None, brain: Brain | None = None, block: int = 10,
          max_plies: int = 500, on_block=None) -> dict:
    """Play `games` games, learning after each; returns the report (curve, boxes,
    perfect_fraction, won_every_game_after). `on_block(row)` sees each block's row."""
    table = Table(solved)
    puzzle = solved.game.puzzle
    brain = brain if brain is not None else Brain(solved.game)
    rng = random.Random(seed)
    if against not in ("perfect", "random", "self"):
        raise GsolveError(f"unknown opponent '{against}' (perfect, random, self)")
    if side not in SIDES:
        raise GsolveError(f"--as {side}: the learner plays first or second")
    if puzzle:
        learners, focus = {"first"}, "first"
    elif against == "self":
        learners, focus = set(SIDES), "first"
    else:
        learners, focus = {side}, side
    other = perfect_player if against == "perfect" else random_player
    players = {s: (brain.player if s in learners else other) for s in SIDES}
    curve: list[dict] = []
    row = {"games": 0, "wins": 0, "losses": 0, "ties": 0}
    last_loss = 0  # games played up to and including the last one not won
    for g in range(1, games + 1):
        match = Match(table)
        winner, how = play_out(match, players, rng, max_plies)
        brain.learn_from(match, winner, how, learners)
        row["games"] += 1
        if how in ("tie", "stopped"):
            row["ties"] += 1
        elif winner == focus:
            row["wins"] += 1
        else:
            row["losses"] += 1
        if winner != focus:
            last_loss = g
        if row["games"] == block or g == games:
            row = {"block": len(curve) + 1, "played": g, **row}
            curve.append(row)
            if on_block:
                on_block(row)
            row = {"games": 0, "wins": 0, "losses": 0, "ties": 0}
    return {
        "game": solved.game.name, "variant": solved.game.variant_key,
        "learner": "first" if puzzle else ("both" if against == "self" else side),
        "against": "itself" if puzzle else against, "games": games,
        "boxes": len(brain.boxes), "perfect_fraction": brain.perfect_fraction(table),
        "won_every_game_after": last_loss if last_loss < games else None,
        "curve": curve,
    }
