"""`gsolve query`, `analyze` and `verify`: reading a solved database."""

from __future__ import annotations

import json
import sys

import click

from games.base import GsolveError
from solver.command.options import (
    EXIT_USER,
    db_option,
    error,
    json_option,
    memory_option,
    plot_file,
    variant_option,
    wrote,
)


def _word(value, rem):
    return value if rem is None else f"{value} in {rem}"


@click.command(context_settings={"ignore_unknown_options": True})
@click.argument("game")
@click.argument("positions", nargs=-1)
@variant_option
@db_option
@json_option
def query(game, positions, variant, db, as_json):
    """Value, remoteness and moves of POSITIONS (the start if none; '-' reads stdin)."""
    import solver.use.api as api

    solved = api.open(game, variant, db)
    if positions == ("-",):
        positions = tuple(line.strip() for line in sys.stdin if line.strip())
    elif not positions:
        positions = (None,)
    failed = 0
    for pos in positions:
        try:
            info = solved.query(pos)
        except GsolveError as e:
            failed += 1
            error(e)
            continue
        if as_json:
            click.echo(json.dumps(info.to_dict()))
            continue
        click.echo(f"{info.position}  {_word(info.value, info.remoteness)}")
        if not info.moves:
            click.echo("  (game over)")
        best = {m.move for m in solved.best_moves(info.position)}
        for m in info.moves:
            mark = "*" if m.move in best else " "
            click.echo(f"  {mark} {m.move:<6} {m.position}  {_word(m.value, m.remoteness)}")
    if failed:
        raise click.exceptions.Exit(EXIT_USER)


@click.command()
@click.argument("game")
@variant_option
@db_option
@json_option
@click.option("--paths", is_flag=True,
              help="Also count move sequences from the start to each kind of end.")
@click.option("--plot", "plot", default=None, metavar="FILE.png", callback=plot_file,
              help="Also draw positions by remoteness and value (and the start's moves).")
@click.option("--tiers", "by_tier", is_flag=True,
              help="Also count positions by value in each tier (tiered games).")
def analyze(game, variant, db, as_json, paths, plot=None, by_tier=False):
    """Reachable positions by value and by remoteness, the start, the longest game."""
    import solver.use.api as api
    from solver.runtime.progress import for_command
    from solver.use.analysis import analyze as run_analyze
    from solver.use.analysis import count_paths

    solved = api.open(game, variant, db)
    g = solved.game
    progress = for_command(f"analyze {g.name} {g.variant_key}", as_json)
    try:
        report = run_analyze(solved.db, progress, by_tier)
    finally:
        progress.close()
    if paths:
        report["paths"] = count_paths(g)
    report.update(g.analysis_extras(solved))
    if plot:
        from solver.use.plot import plot_analysis

        plot_analysis(report, solved, plot)
    if as_json:
        click.echo(json.dumps(report))
        wrote(plot, as_json)
        return
    click.echo(f"{g.name} {g.variant_key}: {report['positions']:,} reachable positions")
    if "canonical" in report:
        click.echo(f"solved with symmetry: {report['canonical']['positions']:,} canonical "
                   "positions stored; the counts below are of all positions")
    start = report["start"]
    click.echo(f"start {start['position']}: {_word(start['value'], start['remoteness'])}")
    click.echo(f"largest remoteness {report['max_remoteness']}")
    words = [w for w in ("win", "lose", "tie", "draw") if w in report["values"]]
    click.echo("")
    click.echo(f"{'remoteness':>10} " + " ".join(f"{w:>10}" for w in words) + f" {'total':>10}")
    rows = list(report["remoteness"].items())
    none = {w: n for w, n in report["values"].items()
            if w == "draw" or (g.puzzle and w == "lose")}
    if none:  # no remoteness: draws, and puzzle positions that cannot reach a goal
        rows.append(("none", none))
    for rem, row in rows:
        cells = " ".join(f"{row.get(w, 0):>10,}" for w in words)
        click.echo(f"{rem!s:>10} {cells} {sum(row.values()):>10,}")
    cells = " ".join(f"{report['values'][w]:>10,}" for w in words)
    click.echo(f"{'total':>10} {cells} {report['positions']:>10,}")
    if by_tier:
        _print_tiers(report)
    if paths:
        click.echo("")
        click.echo("move sequences from the start, by how they end: " + ", ".join(
            f"{w} {n:,}" for w, n in report["paths"].items()))
    for line in report.get("notes", []):
        click.echo(line)
    wrote(plot, as_json)


def _print_tiers(report: dict) -> None:
    """analyze --tiers: a row a tier, positions by value (canonical ones too when stored
    so)."""
    words = [w for w in ("win", "lose", "tie", "draw") if w in report["values"]]
    canonical = "canonical" in report
    width = max(len("tier"), *(len(t["tier"]) for t in report["tiers"]))
    click.echo("")
    click.echo(f"{'tier':<{width}} " + " ".join(f"{w:>14}" for w in words)
               + f" {'positions':>15}" + (f" {'canonical':>14}" if canonical else ""))
    for t in report["tiers"]:
        cells = " ".join(f"{t['values'].get(w, 0):>14,}" for w in words)
        line = f"{t['tier']:<{width}} {cells} {t['positions']:>15,}"
        click.echo(line + (f" {t['canonical']['positions']:>14,}" if canonical else ""))


@click.command()
@click.argument("game")
@variant_option
@db_option
@json_option
@click.option("--show", default=10, show_default=True, metavar="N", type=click.IntRange(0),
              help="Detail at most N problems.")
@memory_option("What the check may hold (default: most of what is available): the "
               "whole database when it fits, else a task of tiers at a time.")
@click.option("--sample", type=click.IntRange(min=1), default=None, metavar="N",
              help="Quick check: N random stored positions, the start and its moves, each "
                   "re-derived from its children's records (no reachability, no counts).")
def verify(game, variant, db, as_json, show, memory, sample):
    """Check a solved database against the game's rules: re-derive every stored position
    from its children, check reachability, the counts and rank/unrank. Exit 0 when
    sound, 1 when not."""
    from games import get_game
    from solver.methods.verify import verify as run_verify
    from solver.runtime.progress import for_command
    from solver.storage.database import command
    from solver.storage.stores import location

    g = get_game(game, variant)
    progress = for_command(f"verify {g.name} {g.variant_key}", as_json)
    try:
        report = run_verify(g, db, progress, show=show, memory=memory, positions=sample)
    finally:
        progress.close()
    if as_json:
        click.echo(json.dumps(report.to_dict()))
    elif report.sound:
        click.echo(f"{g.name} {g.variant_key}: sound ({report.database})")
        canonical = "canonical positions " if report.symmetry else ""
        if report.mode == "sample":
            rows = [
                ("positions", f"{report.derived:,} stored {canonical}positions (the start, its "
                              "moves and a random sample) re-derived from their children"),
                ("chunks", f"{report.chunks:,} per array read, checksums good"),
                ("attributes", "start matches the arrays"),
                ("rank/unrank", f"{report.sampled:,} sampled positions round-trip"),
                ("not checked", "reachability, empty slots and counts: `gsolve verify "
                                f"{command(g, location(report.database))}` checks them"),
            ]
        else:
            rows = [
                ("positions", f"{report.reachable:,} {canonical}reachable from the start, each "
                              "stored and re-derived from its children"),
                ("other slots", f"{report.slots - report.reachable:,} unreachable, all empty"),
                ("chunks", f"{report.chunks:,} per array read, checksums good"),
                ("attributes", "counts, start and largest remoteness match the arrays"),
                ("rank/unrank", f"{report.sampled:,} sampled positions round-trip"),
            ]
        if report.mode == "tiers":
            resumed = (f" ({report.resumed:,} of them by the stopped check it resumed)"
                       if report.resumed else "")
            rows.insert(3, ("tiers", f"{report.tasks:,} tasks checked one at a time, parents "
                                     f"first, within {report.memory / (1 << 30):,.2f} GiB"
                                     + resumed))
        rows.append(("time", f"{report.seconds:.2f} s"))
        for k, v in rows:
            click.echo(f"  {k:<12} {v}")
    else:
        click.echo(f"{g.name} {g.variant_key}: NOT SOUND, {report.problems:,} problem(s) "
                   f"({report.database})")
        for p in report.details:
            click.echo(f"  {p.text}")
        if report.problems > len(report.details):
            click.echo(f"  ... and {report.problems - len(report.details):,} more")
        click.echo(f"  solve it again with `gsolve {command(g, location(report.database))} "
                   "--force`")
    if not report.sound:
        raise click.exceptions.Exit(1)
