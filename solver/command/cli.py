"""The `gsolve` command. `gsolve GAME ...` is short for `gsolve solve GAME ...`.

Every error a user can cause prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import json
import os
import sys

import click

from games.base import GsolveError
from solver.command.options import (
    EXIT_USER,
    db_option,
    error,
    json_option,
    memory_option,
    one_line,
    reach_scheduler,
    scheduler_address,
    variant_option,
)
from solver.command.people import learn, play, serve
from solver.command.reading import analyze, query, verify
from solver.command.stopping import Stopped, catching_stops, report_stopped


class DefaultToSolve(click.Group):
    """A group whose unknown first word is a game name for `solve`. A word that is neither
    a command nor a game, followed by more words (`gsolve frobnicate tictactoe`), is
    refused as such: as a game to solve it would be refused for the word after it."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            from games import available

            if args[0] not in available() and args[1:2] and not args[1].startswith("-"):
                import difflib

                near = difflib.get_close_matches(args[0], [*self.commands, *available()], 1)
                raise click.UsageError(
                    f"no such command or game '{args[0]}'"
                    + (f" (did you mean '{near[0]}'?)" if near else "")
                    + f"; commands: {', '.join(sorted(self.commands))}; games: gsolve list")
            args = ["solve", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultToSolve, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gsolve", prog_name="gsolve")
def cli():
    """Strong solver for games and puzzles: solve, query, analyze.

    \b
    gsolve tictactoe                      solve (the fastest method that applies)
    gsolve query tictactoe X--/-O-/--X    value, remoteness and moves of a position
    gsolve analyze tictactoe --paths      counts by value and remoteness
    gsolve list                           games, variants and methods
    gsolve check tictactoe                test a game's rules against the contract
    """


for _command in (query, analyze, verify, play, learn, serve):
    cli.add_command(_command)


@cli.command()
@click.argument("game")
@variant_option
@click.option("--method", "-m", default=None,
              help="bottomup, dfs, tiers or retrograde (default: the fastest that applies "
                   "and fits in memory, see `gsolve list`).")
@db_option
@click.option("--force", is_flag=True, help="Solve again even if a complete database exists.")
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option("--wait", is_flag=True,
              help="If another process is solving this variant, wait for it to finish.")
@memory_option("Tiers: memory budget (default: most of what is available).")
@click.option("--workers", type=click.IntRange(1), default=None, metavar="N",
              help="Tiers: run tasks on a local Dask cluster of N worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS", callback=scheduler_address,
              help="Tiers: run tasks on a running Dask cluster (e.g. tcp://host:8786); "
                   "not with --workers.")
@click.option("--symmetry/--no-symmetry", default=False, show_default=True,
              help="Solve canonical positions only (games that declare symmetries); "
                   "every position still answers.")
@click.option("--no-time-limit", is_flag=True,
              help="Start even a solve planned to take more than 7 days (see `gsolve plan`).")
@click.option("--borrow", default=None, metavar="STORE",
              help="Tiers: take the records of each task whose reached positions STORE (a "
                   "database or .partial folder of the same game, variant and --symmetry) "
                   "holds solved, instead of solving them.")
@json_option
def solve(game, variant, method, db, force, quiet, as_json, wait, memory, workers,
          scheduler, symmetry, no_time_limit, borrow):
    """Solve GAME and store every reachable position's value and remoteness."""
    from games import get_game
    from solver.methods.solve import solve as run_solve
    from solver.runtime.progress import for_command

    if scheduler is not None and workers is not None:
        raise click.UsageError("--scheduler and --workers exclude each other: the running "
                               f"cluster at {scheduler} has its own workers; leave out "
                               "--workers")
    if scheduler is not None:
        reach_scheduler(scheduler)
    from solver.kernels.numbering import Numbering

    g = Numbering(get_game(game, variant), symmetry)
    progress = for_command(f"{g.name} {g.variant_key}", quiet or as_json)
    try:
        result = run_solve(g, method, db, force, progress, wait=wait, memory=memory,
                           workers=workers or 0, scheduler=scheduler,
                           no_time_limit=no_time_limit, borrow=borrow)
    except OSError as e:
        if e.filename is None:  # a write deep in the store (a full disk): say where
            from solver.storage.database import group_path

            e.filename = str(group_path(db, g))
        raise
    finally:
        progress.close()
    if result.extra.get("removed_partial"):
        click.echo(f"gsolve: removed the interrupted tiers solve at "
                   f"{result.extra['removed_partial']}: this solve replaces it", err=True)
    if as_json:
        click.echo(json.dumps({
            "game": result.game, "variant": result.variant, "method": result.method,
            "database": str(result.path), "reused": result.reused,
            "positions": result.positions, "hash_size": result.hash_size,
            "symmetry": g.symmetry,  # true: positions and values count canonical ones only
            "values": result.values,
            "start": {"position": g.to_string(g.start), "value": result.start_value,
                      "remoteness": result.start_remoteness},
            "max_remoteness": result.max_remoteness,
            "compile_seconds": round(result.compile_seconds, 4),
            "solve_seconds": round(result.solve_seconds, 4),
        }))
        return
    if result.reused:
        click.echo(f"{g.name} {g.variant_key}: already solved ({result.method}) in "
                   f"{result.path}; use --force to solve again")
    else:
        click.echo(f"solved {g.name} {g.variant_key} with {result.method} -> {result.path}")
    start = result.start_value + (f" in {result.start_remoteness}"
                                  if result.start_remoteness is not None else "")
    if g.symmetry:  # the database holds one position of each orbit: say so
        counted = ("canonical positions", f"{result.positions:,} reachable, one per orbit "
                   f"(hash space {result.hash_size:,}; gsolve analyze counts all)")
    else:
        counted = ("reachable positions", f"{result.positions:,} (hash space "
                   f"{result.hash_size:,})")
    rows = [
        counted,
        ("by value", ", ".join(f"{w} {n:,}" for w, n in result.values.items())),
        ("start", f"{g.to_string(g.start)}  {start}"),
        ("largest remoteness", str(result.max_remoteness)),
    ]
    if not result.reused:
        rows += [
            ("time", f"solve {result.solve_seconds:.3f} s, compile/load "
                     f"{result.compile_seconds:.3f} s, write {result.write_seconds:.3f} s"),
            ("speed", f"{result.positions_per_second:,.0f} positions/s"),
        ]
        runs = result.extra.get("runs") or []
        wall = result.extra.get("wall_seconds_all_runs") or 0
        if len(runs) > 1 and wall > 0:  # resumed: this run solved a part of them
            rows[-1] = ("speed", f"{result.positions / wall:,.0f} positions/s over all "
                                 "runs' wall time")
        if result.extra.get("peak_memory_bytes"):
            rows.append(("peak memory", f"{result.extra['peak_memory_bytes'] / (1 << 30):,.2f}"
                                        " GiB (largest resident set, getrusage)"))
        if runs and runs[-1].get("borrowed_tasks"):  # --borrow: their cost was paid there
            rows.append(("borrowed", f"{runs[-1]['borrowed_tasks']:,} tasks' records from "
                                     f"{runs[-1]['borrowed_from']}"))
        if len(runs) > 1:  # resumed: the whole solve's cost beside this run's
            from solver.runtime.progress import duration

            def spent(seconds):
                return f"{seconds:.1f} s" if seconds < 90 else duration(seconds)

            rows.append(("all runs", f"{len(runs)}: wall "
                         f"{spent(result.extra['wall_seconds_all_runs'])}, CPU "
                         f"{spent(result.extra['cpu_seconds_all_runs'])}, peak "
                         f"{result.extra['peak_memory_bytes_all_runs'] / (1 << 30):,.2f} GiB"))
    for k, v in rows:
        click.echo(f"  {k:<20} {v}")


@cli.command()
@click.argument("game")
@variant_option
@click.option("--samples", "-n", default=2000, show_default=True, type=click.IntRange(1),
              help="Reachable positions (and random hash slots) to check.")
@json_option
def check(game, variant, samples, as_json):
    """Check GAME's rules against the contract the solvers rely on (no database needed).

    Round trip of position strings, children inside the hash and within max_children,
    unique move names, children inside the declared child tiers, parents inverting
    children. Exit 0 when every check passes, 1 otherwise."""
    from games import get_game
    from solver.command.check import check_game

    g = get_game(game, variant)
    report = check_game(g, samples)
    if as_json:
        click.echo(json.dumps(report))
    else:
        click.echo(f"check {g.describe()}: {report['hash_size']:,} hash slots, start "
                   f"{report['start']}")
        for c in report["checks"]:
            click.echo(f"  {'pass' if c['ok'] else 'FAIL'}  {c['check']:<15} {c['what']}")
            for line in c["failures"]:
                click.echo(f"{'':<20}{line}")
            if c["failed"] > len(c["failures"]):
                click.echo(f"{'':<20}... {c['failed'] - len(c['failures']):,} more")
        bad = [c["check"] for c in report["checks"] if not c["ok"]]
        click.echo(f"{'all checks passed' if not bad else 'FAILED: ' + ', '.join(bad)} "
                   f"({report['seconds']:.1f} s)")
    if not report["ok"]:
        raise click.exceptions.Exit(1)


@cli.command(short_help="Remove what unfinished solves left (.partial folders).")
@click.argument("game", required=False)
@variant_option
@db_option
@click.option("--dry-run", "-n", is_flag=True, help="List what would go; remove nothing.")
def clean(game, variant, db, dry_run):
    """Remove what unfinished solves left under the database root: <variant>.partial
    (an interrupted tiered solve), <variant>.partial-<pid> and <variant>.old-<pid>; of
    GAME only when named (of one variant with -V). Never the folders of a solve running
    now. One line per folder (path, what it is, size) and a total."""
    from solver.command.clean import clean as run_clean
    from solver.command.clean import human
    from solver.storage.database import default_root
    from solver.storage.stores import location

    key = None
    if game is not None:
        from games import get_game

        g = get_game(game, variant)  # an unknown game or variant: one line, exit 2
        key = g.variant_key if variant else None
    elif variant:
        raise click.UsageError("--variant needs a GAME: gsolve clean GAME -V KEY=VAL")
    root = location(db) if db is not None else default_root()
    found = run_clean(root, game, key, dry_run)
    for item in found:
        click.echo(item.line(dry_run))
    if not found:
        click.echo(f"nothing to clean under {root}")
        return
    gone = [i for i in found if i.action == "remove"]
    back = [i for i in found if i.action == "restore"]
    kept = [i for i in found if i.action == "keep"]
    verb = "would remove" if dry_run else "removed"
    parts = [f"{verb} {len(gone)} folder{'s' * (len(gone) != 1)}, "
             f"{human(sum(i.size for i in gone))}"]
    if back:
        parts.append(f"{'would put back' if dry_run else 'put back'} {len(back)} database"
                     f"{'s' * (len(back) != 1)}")
    if kept:
        parts.append(f"kept {len(kept)} ({human(sum(i.size for i in kept))})")
    click.echo("total: " + "; ".join(parts))


@cli.command(name="list")
@json_option
def list_games(as_json):
    """Games, their variants with defaults, and the methods that apply."""
    from games import available, game_class
    from solver.methods.estimate import default_method
    from solver.methods.registry import applicable_methods

    rows = []
    for name in available():
        cls = game_class(name)
        rows.append({
            "game": name, "title": cls.title, "puzzle": cls.puzzle, "loopy": cls.loopy,
            "variants": {k: {"default": v.default, "min": v.lo, "max": v.hi,
                             "allowed": v.allowed(), "help": v.help}
                         for k, v in cls.variants.items()},
            "methods": applicable_methods(cls), "default_method": default_method(cls),
        })
    if as_json:
        click.echo(json.dumps(rows))
        return
    click.echo("default method: the fastest that applies and fits in memory (dfs, then "
               "retrograde, tiers, bottomup)\n")
    for r in rows:
        kind = "puzzle" if r["puzzle"] else "two-player"
        kind += ", loopy" if r["loopy"] else ""
        click.echo(f"{r['game']:<14} {r['title']} ({kind})")
        methods = [m + (" (default)" if m == r["default_method"] else "") for m in r["methods"]]
        click.echo(f"{'':<14} methods: {', '.join(methods)}")
        for k, v in r["variants"].items():
            click.echo(f"{'':<14} -V {k}={v['default']}  ({v['allowed']}) {v['help']}")


@cli.command()
@click.argument("game")
@variant_option
@click.option("--method", "-m", default=None, help="Method to time (default as for solve).")
@click.option("--symmetry", is_flag=True,
              help="Time a solve on canonical positions only (games with symmetries).")
@json_option
def bench(game, variant, method, symmetry, as_json):
    """Time a solve in memory: compile/load time, solve time, positions/s, bytes per hash
    slot and per reachable position."""
    from solver.command.bench import run_benchmark

    row = run_benchmark(game, variant, method, symmetry)
    if as_json:
        click.echo(json.dumps(row))
    else:
        from solver.command.bench import format_rows

        click.echo(format_rows([row]))


@cli.command()
@click.argument("game")
@variant_option
@db_option
@click.option("--symmetry", is_flag=True, help="Plan a solve with --symmetry.")
@json_option
def plan(game, variant, db, as_json, symmetry):
    """What a tiered solve of GAME would take, without solving: tiers, memory, disk, time."""
    from games import get_game
    from solver.command.plan import describe, make_plan
    from solver.kernels.numbering import Numbering

    p = make_plan(Numbering(get_game(game, variant), symmetry), db)
    click.echo(json.dumps(p) if as_json else describe(p))


def _check_environment() -> None:
    """Settings from the environment fail here, as one line, not deep inside a solve."""
    from solver.runtime.env import available_memory, check_all

    check_all()  # GSOLVE_THREADS, GSOLVE_PROGRESS_SECONDS
    available_memory()  # GSOLVE_MEMORY


def main(argv=None) -> int:
    with catching_stops(argv):
        try:
            return _run(argv)
        except Stopped as e:  # landed after _run's own except clauses
            return report_stopped(e.message, e.code, argv)


def _run(argv) -> int:
    try:
        _check_environment()
        rv = cli.main(args=argv, prog_name="gsolve", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except GsolveError as e:
        error(e)
        return EXIT_USER
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help())
        return 0
    except click.UsageError as e:
        error(e.format_message())
        return EXIT_USER
    except click.exceptions.Exit as e:
        return e.exit_code
    except Stopped as e:
        return report_stopped(e.message, e.code, argv)
    except (KeyboardInterrupt, click.Abort):  # raised, not signalled (or end of input)
        return report_stopped("gsolve: interrupted", 130, argv)
    except BrokenPipeError:
        return 0
    except OSError as e:  # an unusable path or device the user named: not a bug
        if os.environ.get("GSOLVE_DEBUG"):
            raise
        where = f": {e.filename}" if e.filename else ""
        error(f"{e.strerror or e}{where}")
        return EXIT_USER
    except Exception as e:  # a bug: still one line for the user
        if os.environ.get("GSOLVE_DEBUG"):
            raise
        click.echo(f"gsolve: internal error: {type(e).__name__}: {one_line(e)} "
                   "(set GSOLVE_DEBUG=1 for a traceback)", err=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
