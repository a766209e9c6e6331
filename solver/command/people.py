"""`gsolve play`, `learn` and `serve`: people using a solved game (solver/use/)."""

from __future__ import annotations

import json
import os

import click

from solver.command.options import (
    db_option,
    json_option,
    output_file,
    plot_file,
    variant_option,
    wrote,
)


@click.command()
@click.argument("game")
@variant_option
@db_option
@click.option("--as", "as_", type=click.Choice(["first", "second", "both", "none"]),
              default="first", show_default=True,
              help="Your side; both: two people, the database referees; none: watch.")
@click.option("--opponent", type=click.Choice(["perfect", "random", "learner"]),
              default="perfect", show_default=True, help="The computer's player.")
@click.option("--seed", type=int, default=None, help="Seed of the computer's choices.")
@click.option("--brain", default=None, metavar="FILE", callback=output_file,
              help="The learner's matchboxes (--opponent learner): read, and updated "
                   "after the game.")
@click.option("--from", "start", default=None, metavar="POSITION",
              help="Start from this position instead of the game's start.")
@click.option("--hints/--no-hints", default=True, show_default=True,
              help="Show every move's value for the mover (toggle with h).")
@click.option("--max-plies", type=click.IntRange(1), default=1000, show_default=True,
              help="Stop a game that goes on this long (loopy games).")
@json_option
def play(game, variant, db, as_, opponent, seed, brain, start, hints, max_plies, as_json):
    """Play GAME in the terminal against the database (u undo, h hints, q quit).

    When standard input is not a terminal, reads one move per line; --json prints one
    object per ply (ply, by, move, position, value, remoteness) and a final result."""
    from solver.use.play import play as run_play

    run_play(game, variant, db, as_, opponent, seed, brain, start, hints, as_json, max_plies)


@click.command()
@click.argument("game", default="hexapawn")
@variant_option
@db_option
@click.option("--games", "n_games", type=click.IntRange(1), default=200, show_default=True)
@click.option("--against", type=click.Choice(["perfect", "random", "self"]),
              default="perfect", show_default=True)
@click.option("--as", "as_", type=click.Choice(["first", "second"]), default="second",
              show_default=True, help="The learner's side (Hexapawn's black is second).")
@click.option("--seed", type=int, default=None)
@click.option("--brain", default=None, metavar="FILE", callback=output_file,
              help="Start from these matchboxes and save them at the end.")
@click.option("--block", type=click.IntRange(1), default=10, show_default=True,
              help="Games per row of the learning curve.")
@click.option("--beads", type=click.IntRange(1), default=1, show_default=True,
              help="Beads per move in a new matchbox.")
@click.option("--reward", type=click.IntRange(0), default=1, show_default=True,
              help="Beads added to each move of a won game (0: Gardner's punishment only).")
@click.option("--plot", default=None, metavar="FILE.png", callback=plot_file,
              help="Draw the learning curve.")
@json_option
def learn(game, variant, db, n_games, against, as_, seed, brain, block, beads, reward, plot,
          as_json):
    """Train the matchbox learner (Gardner's Hexapawn robot, MENACE) on GAME."""
    import solver.use.api as api
    from solver.use.learn import Brain, train

    solved = api.open(game, variant, db)
    learner = Brain.load_or_new(brain, solved.game)
    if brain is None or not os.path.exists(brain):
        learner.beads, learner.reward = beads, reward

    def row(r):
        if as_json:
            click.echo(json.dumps(r))
        else:
            click.echo(f"{r['played']:>7} {r['wins']:>6} {r['losses']:>7} {r['ties']:>5}")

    if not as_json:
        who = ("alone (a puzzle)" if solved.game.puzzle else
               "both sides against itself" if against == "self" else
               f"{as_} against {against}")
        click.echo(f"{solved.game.describe()}: the learner plays {who}, {n_games} games")
        click.echo(f"{'games':>7} {'wins':>6} {'losses':>7} {'ties':>5}   (each block)")
    report = train(solved, n_games, against, as_, seed, learner, block, on_block=row)
    if brain:
        learner.save(brain)
    if plot:
        from solver.use.plot import plot_curve

        plot_curve(report, plot)
    if as_json:
        click.echo(json.dumps({k: report[k] for k in
                               ("boxes", "perfect_fraction", "won_every_game_after",
                                "curve")}))
        wrote(plot, as_json)
        return
    frac = report["perfect_fraction"]
    click.echo(f"boxes {report['boxes']}; most-weighted move perfect in "
               + ("no box" if frac is None else f"{frac:.0%} of them"))
    after = report["won_every_game_after"]
    click.echo("it has not yet won every game of the last ones" if after is None else
               f"won every game after game {after}")
    wrote(plot, as_json)


@click.command()
@db_option
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
def serve(db, port, host):
    """Web viewer and JSON API of the solved games, on a local port.

    GET /api/query?game=G&variant=V&position=P answers what `query --json` prints; POST
    /api/query with {"game", "variant", "positions": [...]} answers a list."""
    from solver.use.serve import serve as run_serve

    run_serve(db, host, port)
