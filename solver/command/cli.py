"""The `gsolve` command. `gsolve GAME ...` is short for `gsolve solve GAME ...`.

Every error a user can cause prints one line on stderr and exits with status 2.
"""

from __future__ import annotations

import json
import os
import re
import sys

import click

from games.base import GsolveError

EXIT_USER = 2


class DefaultToSolve(click.Group):
    """A group whose unknown first word is a game name for `solve`."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["solve", *args]
        return super().parse_args(ctx, args)


def variant_option(f):
    return click.option("--variant", "-V", "variant", default=None, metavar="KEY=VAL[,..]",
                        help="Variant of the game, e.g. width=5,height=4.")(f)


def _db_root(ctx, param, value):
    """A database root must be (or become) a folder outside the kernel's virtual ones, or
    be a store URL (s3://bucket/gsolve-db) that answers (solver/storage/stores.py)."""
    if value is None:
        return value
    if "://" in value and not value.lower().startswith("file://"):
        from solver.storage.stores import check_root

        try:
            check_root(value)
        except GsolveError as e:
            raise click.BadParameter(str(e), param=param) from None
        return value
    from pathlib import Path

    path = Path(value[7:] if value.lower().startswith("file://") else value).expanduser()
    real = path.resolve()
    if len(real.parts) > 1 and real.parts[1] in ("proc", "sys", "dev"):
        raise click.BadParameter(f"{value} is under /{real.parts[1]}, not a place for a "
                                 "database", param=param)
    up = path
    while not up.exists() and up != up.parent:
        up = up.parent
    if up.exists() and not up.is_dir():
        raise click.BadParameter(f"{up} is a file, not a folder", param=param)
    return value


# what distributed.Client takes as an address: [PROTOCOL://]HOST:PORT (tcp when none), or
# an in-process inproc:// address
_SCHEDULER = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?"
                        r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)"
                        r":([0-9]{1,5})/?")


def _scheduler_address(ctx, param, value):
    """A Dask scheduler address, refused before any connection is tried when it is not
    one: `tcp://host:8786`, `host:8786`, `tls://...`; port 1..65535."""
    if value is None:
        return value
    text = value.strip()
    m = _SCHEDULER.fullmatch(text)
    if text.startswith("inproc://") or (m and 0 < int(m.group(1)) < 65536):
        return text
    raise click.BadParameter(f"'{value}' is not a Dask scheduler address (expected "
                             "tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786)", param=param)


def db_option(f):
    return click.option("--db", "db", default=None, metavar="DIR|URL", envvar="GSOLVE_DB",
                        callback=_db_root,
                        help="Database root: a folder or a store URL such as "
                             "s3://bucket/gsolve-db (default ./gsolve-db, or $GSOLVE_DB).")(f)


def _output_file(ctx, param, value):
    """A file gsolve writes at the end of a command (a learner brain, a plot): its folder
    must exist and be writable now, not only after the work is done."""
    if value is None:
        return value
    from pathlib import Path

    path = Path(value).expanduser()
    folder = path.parent
    if path.is_dir():
        raise click.BadParameter(f"{value} is a folder, not a file", param=param)
    if not folder.is_dir():
        what = "is a file" if folder.exists() else "does not exist"
        raise click.BadParameter(f"cannot write {value}: the folder {folder} {what}",
                                 param=param)
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists()
                                                    and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"cannot write {value}: permission denied", param=param)
    return value


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Output JSON.")(f)


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
@click.option("--memory", type=click.FloatRange(min=0.01), default=None, metavar="GiB",
              help="Tiers: memory budget (default: most of what is available).")
@click.option("--workers", type=click.IntRange(1), default=None, metavar="N",
              help="Tiers: run tasks on a local Dask cluster of N worker processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS", callback=_scheduler_address,
              help="Tiers: run tasks on a running Dask cluster (e.g. tcp://host:8786); "
                   "not with --workers.")
@click.option("--symmetry/--no-symmetry", default=False, show_default=True,
              help="Solve canonical positions only (games that declare symmetries); "
                   "every position still answers.")
@click.option("--no-time-limit", is_flag=True,
              help="Start even a solve planned to take more than 7 days (see `gsolve plan`).")
@json_option
def solve(game, variant, method, db, force, quiet, as_json, wait, memory, workers,
          scheduler, symmetry, no_time_limit):
    """Solve GAME and store every reachable position's value and remoteness."""
    from games import get_game
    from solver.methods.solve import solve as run_solve
    from solver.runtime.progress import LineProgress, Progress, RichProgress

    if scheduler is not None and workers is not None:
        raise click.UsageError("--scheduler and --workers exclude each other: the running "
                               f"cluster at {scheduler} has its own workers; leave out "
                               "--workers")
    g = get_game(game, variant)
    if quiet or as_json:
        progress = Progress()
    elif sys.stderr.isatty():
        progress = RichProgress(f"{g.name} {g.variant_key}")
    else:  # logs and pipes: a line every few seconds, so a long solve is never silent
        progress = LineProgress(f"{g.name} {g.variant_key}")
    try:
        result = run_solve(g, method, db, force, progress, wait=wait,
                           memory=int(memory * (1 << 30)) if memory else None,
                           workers=workers or 0, scheduler=scheduler, symmetry=symmetry,
                           no_time_limit=no_time_limit)
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
        if result.extra.get("peak_memory_bytes"):
            rows.append(("peak memory", f"{result.extra['peak_memory_bytes'] / (1 << 30):,.2f}"
                                        " GiB (largest resident set, getrusage)"))
    for k, v in rows:
        click.echo(f"  {k:<20} {v}")


def _word(value, rem):
    return value if rem is None else f"{value} in {rem}"


@cli.command(context_settings={"ignore_unknown_options": True})
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


@cli.command()
@click.argument("game")
@variant_option
@db_option
@json_option
@click.option("--paths", is_flag=True,
              help="Also count move sequences from the start to each kind of end.")
@click.option("--plot", "plot", default=None, metavar="FILE.png", callback=_output_file,
              help="Also draw positions by remoteness and value (and the start's moves).")
def analyze(game, variant, db, as_json, paths, plot=None):
    """Reachable positions by value and by remoteness, the start, the longest game."""
    import solver.use.api as api
    from solver.use.analysis import analyze as run_analyze
    from solver.use.analysis import count_paths

    solved = api.open(game, variant, db)
    g = solved.game
    report = run_analyze(solved.db)
    if paths:
        report["paths"] = count_paths(g)
    report.update(g.analysis_extras(solved))
    if plot:
        from solver.use.plot import plot_analysis

        plot_analysis(report, solved, plot)
    if as_json:
        click.echo(json.dumps(report))
        _wrote(plot, as_json)
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
    if paths:
        click.echo("")
        click.echo("move sequences from the start, by how they end: " + ", ".join(
            f"{w} {n:,}" for w, n in report["paths"].items()))
    for line in report.get("notes", []):
        click.echo(line)
    _wrote(plot, as_json)


def _wrote(path, as_json: bool) -> None:
    """Say that a file (a plot) was written: the last line, on stderr under --json."""
    if path:
        click.echo(f"wrote {path}", err=as_json)


@cli.command()
@click.argument("game")
@variant_option
@db_option
@json_option
@click.option("--show", default=10, show_default=True, metavar="N",
              help="Detail at most N problems.")
def verify(game, variant, db, as_json, show):
    """Check a solved database against the game's rules: re-derive every stored position
    from its children, check reachability, the counts and rank/unrank. Exit 0 when
    sound, 1 when not."""
    from games import get_game
    from solver.methods.verify import verify as run_verify
    from solver.runtime.progress import LineProgress, Progress, RichProgress
    from solver.storage.database import command
    from solver.storage.stores import location

    g = get_game(game, variant)
    title = f"verify {g.name} {g.variant_key}"
    if as_json:
        progress = Progress()
    elif sys.stderr.isatty():
        progress = RichProgress(title)
    else:  # logs and pipes: a line every few seconds
        progress = LineProgress(title)
    try:
        report = run_verify(g, db, progress, show=max(0, show))
    finally:
        progress.close()
    if as_json:
        click.echo(json.dumps(report.to_dict()))
    elif report.sound:
        click.echo(f"{g.name} {g.variant_key}: sound ({report.database})")
        canonical = "canonical positions " if report.symmetry else ""
        rows = [
            ("positions", f"{report.reachable:,} {canonical}reachable from the start, each "
                          "stored and re-derived from its children"),
            ("other slots", f"{report.slots - report.reachable:,} unreachable, all empty"),
            ("chunks", f"{report.chunks:,} per array read, checksums good"),
            ("attributes", "counts, start and largest remoteness match the arrays"),
            ("rank/unrank", f"{report.sampled:,} sampled positions round-trip"),
            ("time", f"{report.seconds:.2f} s"),
        ]
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


# -- play, learn, serve: people using a solved game (solver/use/play.py, learn.py, serve.py) --
@cli.command()
@click.argument("game")
@variant_option
@db_option
@click.option("--as", "as_", type=click.Choice(["first", "second", "both", "none"]),
              default="first", show_default=True,
              help="Your side; both: two people, the database referees; none: watch.")
@click.option("--opponent", type=click.Choice(["perfect", "random", "learner"]),
              default="perfect", show_default=True, help="The computer's player.")
@click.option("--seed", type=int, default=None, help="Seed of the computer's choices.")
@click.option("--brain", default=None, metavar="FILE", callback=_output_file,
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


@cli.command()
@click.argument("game", default="hexapawn")
@variant_option
@db_option
@click.option("--games", "n_games", type=click.IntRange(1), default=200, show_default=True)
@click.option("--against", type=click.Choice(["perfect", "random", "self"]),
              default="perfect", show_default=True)
@click.option("--as", "as_", type=click.Choice(["first", "second"]), default="second",
              show_default=True, help="The learner's side (Hexapawn's black is second).")
@click.option("--seed", type=int, default=None)
@click.option("--brain", default=None, metavar="FILE", callback=_output_file,
              help="Start from these matchboxes and save them at the end.")
@click.option("--block", type=click.IntRange(1), default=10, show_default=True,
              help="Games per row of the learning curve.")
@click.option("--beads", type=click.IntRange(1), default=1, show_default=True,
              help="Beads per move in a new matchbox.")
@click.option("--reward", type=click.IntRange(0), default=1, show_default=True,
              help="Beads added to each move of a won game (0: Gardner's punishment only).")
@click.option("--plot", default=None, metavar="FILE.png", callback=_output_file,
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
        _wrote(plot, as_json)
        return
    frac = report["perfect_fraction"]
    click.echo(f"boxes {report['boxes']}; most-weighted move perfect in "
               + ("no box" if frac is None else f"{frac:.0%} of them"))
    after = report["won_every_game_after"]
    click.echo("it has not yet won every game of the last ones" if after is None else
               f"won every game after game {after}")
    _wrote(plot, as_json)


@cli.command()
@db_option
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--host", default="127.0.0.1", show_default=True)
def serve(db, port, host):
    """Web viewer and JSON API of the solved games, on a local port.

    GET /api/query?game=G&variant=V&position=P answers what `query --json` prints; POST
    /api/query with {"game", "variant", "positions": [...]} answers a list."""
    from solver.use.serve import serve as run_serve

    run_serve(db, host, port)


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
    from games.registry import available, game_class
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
@json_option
def bench(game, variant, method, as_json):
    """Time a solve in memory: compile/load time, solve time, positions/s, bytes per hash
    slot and per reachable position."""
    from solver.command.bench import run_benchmark

    row = run_benchmark(game, variant, method)
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
    from solver.kernels.symmetry import apply

    g = get_game(game, variant)
    if symmetry:
        apply(g, True)
    p = make_plan(g, db)
    click.echo(json.dumps(p) if as_json else describe(p))


def one_line(text: str, limit: int = 60) -> str:
    """A message as one line, each overlong word (a position, a variant) shortened."""
    words = str(text).split()
    return " ".join(w if len(w) <= limit else f"{w[:limit - 15]}...{w[-12:]}"
                    for w in words)


def error(text) -> None:
    click.echo(f"gsolve: error: {one_line(text)}", err=True)


def _check_environment() -> None:
    """Settings from the environment fail here, as one line, not deep inside a solve."""
    from solver.runtime.env import available_memory, check_all

    check_all()  # GSOLVE_THREADS, GSOLVE_PROGRESS_SECONDS, GSOLVE_TIER_PAUSE
    available_memory()  # GSOLVE_MEMORY


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so a solve cleans up as on Ctrl-C."""


def _on_sigterm(signum, frame):
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM ends it at once
    raise Terminated()


def _stopped(message: str, code: int, argv) -> int:
    """Ctrl-C or SIGTERM, once the solve has cleaned up while unwinding: one line. The
    command itself (argv None) then ends at once, so queued sweep blocks do not run on
    and the storage's pending background writes print no warnings at shutdown."""
    click.echo(message, err=True)
    if argv is None:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    return code


def main(argv=None) -> int:
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
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
    except click.Abort:
        click.echo("gsolve: interrupted", err=True)
        return 130
    except KeyboardInterrupt:
        return _stopped("gsolve: interrupted", 130, argv)
    except Terminated:
        return _stopped("gsolve: terminated", 143, argv)
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
