"""The options and checks that several `gsolve` commands share: each is checked when the
command line is read, before any work starts."""

from __future__ import annotations

import math
import os
import re

import click

from games.base import GsolveError

EXIT_USER = 2  # the exit status of every error a user can cause


def variant_option(f):
    return click.option("--variant", "-V", "variant", default=None, metavar="KEY=VAL[,..]",
                        help="Variant of the game, e.g. width=5,height=4.")(f)


def memory_option(help: str):
    """--memory GiB, given to the command as bytes (None when not given)."""
    def to_bytes(ctx, param, value):
        if value is None:
            return None
        if not math.isfinite(value):  # (click's range lets nan and inf through)
            raise click.BadParameter(f"{value} is not a number of GiB", param=param)
        return int(value * (1 << 30))

    return click.option("--memory", type=click.FloatRange(min=0.01), default=None,
                        metavar="GiB", callback=to_bytes, help=help)


def db_root(ctx, param, value):
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


REACH_SECONDS = 5  # what --scheduler's first connection may take (Dask's own waits 30 s)

# what distributed.Client takes as an address: [PROTOCOL://]HOST:PORT (tcp when none), or
# an in-process inproc:// address
_SCHEDULER = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?"
                        r"(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)"
                        r":([0-9]{1,5})/?")


def scheduler_address(ctx, param, value):
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


def reach_scheduler(address: str) -> None:
    """Refuse, in a moment, a --scheduler that nothing answers at: a TCP connection to
    it (tcp, tls, ws: all over TCP) within REACH_SECONDS. Dask's client would retry for
    its whole timeout, 30 s of "starting", before saying so."""
    m = _SCHEDULER.fullmatch(address)
    if m is None or address.startswith("ucx://"):  # (inproc://, or UCX's own transport)
        return
    import socket

    host = address.split("://")[-1].rstrip("/").rsplit(":", 1)[0].strip("[]")
    try:
        socket.create_connection((host, int(m.group(1))), timeout=REACH_SECONDS).close()
    except OSError as e:
        why = "no answer" if isinstance(e, TimeoutError) else e.strerror or str(e)
        raise GsolveError(f"cannot reach a Dask scheduler at {address}: {why} (is it "
                          "running?)") from None


def db_option(f):
    return click.option("--db", "db", default=None, metavar="DIR|URL", envvar="GSOLVE_DB",
                        callback=db_root,
                        help="Database root: a folder or a store URL such as "
                             "s3://bucket/gsolve-db (default ./gsolve-db, or $GSOLVE_DB).")(f)


def output_file(ctx, param, value):
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


def plot_file(ctx, param, value):
    """A picture gsolve draws at the end of a command: writable now (`output_file`), and
    of a format it draws, before the work."""
    from solver.use.plot import FORMATS

    value = output_file(ctx, param, value)
    if value is not None and os.path.splitext(value)[1].lower() not in FORMATS:
        raise click.BadParameter(f"{value}: name a {', '.join(FORMATS[:-1])} or "
                                 f"{FORMATS[-1]} file", param=param)
    return value


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Output JSON.")(f)


def wrote(path, as_json: bool) -> None:
    """Say that a file (a plot) was written: the last line, on stderr under --json."""
    if path:
        click.echo(f"wrote {path}", err=as_json)


def one_line(text: str, limit: int = 60) -> str:
    """A message as one line, each overlong word (a position, a variant) shortened; a
    path or store URL is kept whole, to be copied."""
    words = str(text).split()
    return " ".join(w if len(w) <= limit or _place(w) else f"{w[:limit - 15]}...{w[-12:]}"
                    for w in words)


def _place(word: str) -> bool:
    """Whether a word of a message names a file or folder: a store URL, an absolute or
    home path, or a relative one whose first folder exists (never a position, whose rows
    are joined by '/' too)."""
    w = word.strip("`'\"(),;:")
    if "://" in w or w.startswith(("/", "~/", "./", "../")):
        return True
    return "/" in w and os.path.isdir(w.split("/", 1)[0])


def error(text) -> None:
    click.echo(f"gsolve: error: {one_line(text)}", err=True)
