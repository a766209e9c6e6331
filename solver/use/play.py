"""`gsolve play`: a game in the terminal against the database, or scripted through stdin.

The database is the referee and the perfect opponent: every legal move can be shown with
its value for the player who makes it. When standard input is not a terminal, one move is
read per line and the output is plain text (or, with --json, one object per ply), so a
game can be scripted and tested.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator

import click

from games.base import GsolveError, PositionError
from solver.use.api import Move, Solved, best_of, for_mover
from solver.use.match import (
    COLOURS,
    SIDES,
    Match,
    Player,
    Table,
    perfect_player,
    random_player,
    result_for,
    word,
)


def board_lines(position: str) -> list[str]:
    """A position string drawn as a grid: rows split at '/', cells at ',' when a row has
    them (stacks), else one character each; what follows a space (side to move, hands)
    goes underneath."""
    board, _, rest = position.partition(" ")
    rows = [r.split(",") if "," in r else list(r) for r in board.split("/")]
    width = max((len(c) for r in rows for c in r), default=1)
    lines = ["  " + " ".join(c.ljust(width) for c in r).rstrip() for r in rows]
    if rest:
        lines.append("  " + rest)
    return lines


class Session:
    """Reads moves and commands, prints the game; one game per run (a terminal may ask
    for another)."""

    def __init__(self, table: Table, humans: set[str], opponent: Player, rng: random.Random,
                 start: str | None, hints: bool, as_json: bool, interactive: bool,
                 lines: Iterator[str], max_plies: int, on_end=None):
        self.table, self.humans, self.opponent, self.rng = table, humans, opponent, rng
        self.start, self.hints, self.as_json = start, hints, as_json
        self.interactive, self.lines, self.max_plies = interactive, lines, max_plies
        self.on_end = on_end  # on_end(match, winner, how) after a finished game (learner)

    # output
    def out(self, text: str = "", **style) -> None:
        if not self.as_json:
            click.echo(click.style(text, **style) if self.interactive and style else text)

    def emit(self, obj: dict) -> None:
        if self.as_json:
            click.echo(json.dumps(obj))

    def value_text(self, value: str, rem: int | None) -> str:
        text = word(value, rem)
        return click.style(text, fg=COLOURS[value]) if self.interactive else text

    def show(self, match: Match) -> None:
        info = match.info
        self.out("")
        for line in board_lines(info.position):
            self.out(line)
        who = "" if self.table.puzzle else f"{match.side()} to move"
        head = info.position + (f"  {who}" if who else "")
        if self.hints:
            head += f": {self.value_text(info.value, info.remoteness)}"
        self.out(head)
        if not info.moves:
            return
        best = {m.move for m in best_of(info, self.table.puzzle)}
        if self.hints:
            for m in info.moves:
                mark = "*" if m.move in best else " "
                v, r = for_mover(m, self.table.puzzle)
                self.out(f"  {mark} {m.move:<8} {self.value_text(v, r)}")
        else:
            self.out("  moves: " + " ".join(m.move for m in info.moves))

    def read(self, match: Match) -> str | None:
        who = "" if self.table.puzzle else f"{match.side()} "
        prompt = f"{who}move (u undo, h hints, q quit)> "
        if self.interactive:
            try:
                return input(prompt).strip()
            except EOFError:
                return None
        for line in self.lines:
            line = line.strip()
            if line:
                return line
        return None

    def run(self) -> dict:
        """Play one game; returns the final result object."""
        match = Match(self.table, self.start)
        info = match.info
        kind = "puzzle" if self.table.puzzle else (
            "you play " + " and ".join(sorted(self.humans)) if self.humans else "computer only")
        self.out(f"{self.table.solved.game.describe()} ({kind})")
        self.emit({"ply": 0, "by": None, "side": None, "move": None, "position": info.position,
                   "value": info.value, "remoteness": info.remoteness})
        quit_ = False
        shown = -1
        while not match.over and match.ply < self.max_plies:
            side = match.side()
            if side in self.humans:
                if shown != match.ply:
                    self.show(match)
                    shown = match.ply
                line = self.read(match)
                command = None if line is None or match.find(line) else line.lower()
                if line is None or command in ("q", "quit"):
                    quit_ = True
                    break
                if command in ("h", "hints"):
                    self.hints = not self.hints
                    self.out(f"hints {'on' if self.hints else 'off'}")
                    shown = -1
                    continue
                if command in ("u", "undo"):
                    self.undo(match)
                    shown = -1
                    continue
                try:
                    m = match.play(line)
                except PositionError as e:
                    if not self.interactive:
                        raise
                    self.out(str(e), fg="red")
                    continue
                by = "human"
            else:
                name = self.opponent(match, self.rng)
                if name is None:  # the learner resigns
                    self.out(f"{side} resigns")
                    return self.finish(match, resigned=side)
                m = match.play(name)
                by = "computer"
            self.ply_done(match, m, by, side)
        if quit_:
            return self.finish(match, quit_=True)
        return self.finish(match)

    def undo(self, match: Match) -> None:
        """Take back the last human move and the computer's replies after it."""
        if not any(match.side(p) in self.humans for p in range(match.ply)):
            self.out("nothing to undo")
            return
        match.undo()
        while match.side() not in self.humans:
            match.undo()
        info = match.info
        self.out(f"undone: back at ply {match.ply}")
        self.emit({"undo": True, "ply": match.ply, "position": info.position,
                   "value": info.value, "remoteness": info.remoteness})

    def ply_done(self, match: Match, m: Move, by: str, side: str) -> None:
        info = match.info
        label = side if not self.table.puzzle else "move"
        text = f"{match.ply}. {label} ({by}) {m.move} -> {info.position}"
        if self.hints:
            text += f"  {word(info.value, info.remoteness)}"
        self.out(text)
        self.emit({"ply": match.ply, "by": by, "side": side, "move": m.move,
                   "position": info.position, "value": info.value,
                   "remoteness": info.remoteness})

    def finish(self, match: Match, quit_: bool = False, resigned: str | None = None) -> dict:
        puzzle = self.table.puzzle
        focus = next(iter(self.humans)) if len(self.humans) == 1 else "first"
        if quit_:
            winner, how, result = None, "quit", "quit"
        elif resigned:
            winner, how = SIDES[1 - SIDES.index(resigned)], "resigned"
            result = result_for(winner, how, focus)
        elif not match.over:
            winner, how, result = None, "stopped", "stopped"
        else:
            winner, how = match.outcome()
            result = result_for(winner, how, focus)
        if how == "quit":
            text = "quit"
        elif how == "stopped":
            text = f"stopped after {self.max_plies} plies"
        elif puzzle:
            text = "solved" if winner else "dead end: no goal can be reached"
        elif winner is None:
            text = "a tie"
        else:
            text = f"{winner} wins" + (f" ({resigned} resigns)" if resigned else "")
        if not quit_ and match.over:
            for line in board_lines(match.info.position):
                self.out(line)
        self.out(f"game over after {match.ply} plies: {text}")
        obj = {"result": result, "for": focus, "winner": winner, "how": how,
               "plies": match.ply, "position": match.positions[-1],
               "moves": list(match.moves)}
        self.emit(obj)
        if self.on_end is not None and how not in ("quit", "stopped"):
            self.on_end(match, winner, how)
        return obj


def play(game: str, variant: str | None, db, as_: str, opponent: str, seed: int | None,
         brain: str | None, start: str | None, hints: bool, as_json: bool,
         max_plies: int) -> dict:
    """Run `gsolve play`; returns the last game's result object."""
    solved = Solved(_game(game, variant), db)
    table = Table(solved)
    puzzle = solved.game.puzzle
    if puzzle:
        if as_ == "second":
            raise GsolveError(f"{game} is a puzzle: one player (--as first, or none to "
                              "watch the database solve it)")
        humans = set() if as_ == "none" else {"first"}
    else:
        humans = {"first": {"first"}, "second": {"second"}, "both": set(SIDES),
                  "none": set()}[as_]
    rng = random.Random(seed)
    on_end = learner = None
    if opponent == "perfect":
        player: Player = perfect_player
    elif opponent == "random":
        player = random_player
    elif opponent == "learner":
        from solver.use.learn import Brain

        learner = Brain.load_or_new(brain, solved.game)
        player = learner.player
        computer = set(SIDES) - humans if not puzzle else ({"first"} - humans)

        def on_end(match, winner, how):
            learner.learn_from(match, winner, how, computer)
            if brain:
                learner.save(brain)
    else:
        raise GsolveError(f"unknown opponent '{opponent}' (perfect, random, learner)")
    try:
        return _games(table, humans, player, rng, start, hints, as_json, max_plies, on_end)
    finally:  # quit, stopped or interrupted too: the boxes it made are kept
        if learner is not None and brain:
            learner.save(brain)


def _games(table, humans, player, rng, start, hints, as_json, max_plies, on_end) -> dict:
    """One game, or on a terminal as many as asked for; the last one's result."""
    interactive = sys.stdin.isatty() and not as_json
    lines = iter(sys.stdin) if not interactive else iter(())
    while True:
        session = Session(table, humans, player, rng, start, hints, as_json, interactive,
                          lines, max_plies, on_end)
        result = session.run()
        if not interactive or result["how"] == "quit" or not humans:
            return result
        try:
            again = input("again? [y/N] ").strip().lower()
        except EOFError:
            again = ""
        if again not in ("y", "yes"):
            return result


def _game(name, variant):
    from games import get_game

    return get_game(name, variant)
