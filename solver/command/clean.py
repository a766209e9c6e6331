"""`gsolve clean`: find and remove what unfinished solves left under a database root.

Beside each database folder `<root>/<game>/<variant key>` a solve may leave:

    <key>.partial        the resumable store of an interrupted tiered solve
                         (solver/storage/writing.py PartialStore; `gsolve GAME --method tiers`
                         would resume it)
    <key>.partial-<pid>  a database being written by process pid (write_arrays), cut short
    <key>.old-<pid>      the database a finished solve replaced, when the solve was killed
                         between the two renames of its swap (storage/writing.py swap_in)
    <key>.verify         the reach marks and record of a stopped tier-by-tier verify
                         (solver/methods/verify_tiers.py; `gsolve verify` would resume it)

A solve removes the last two of its own variant when it starts (solver.storage.stores.remove_stale);
`clean` removes all four for every variant, without solving. The folders of a solve
running now are never touched: each variant's writer lock (solver/storage/stores.py) is taken while
its folders are removed, and a variant whose lock is held, or whose lock file names a live
process, is kept. A `.partial-<pid>`/`.old-<pid>` whose process is still alive is kept too.
An `.old-<pid>` holding a complete database where no database is in place any more is put
back in place (as a solve would), not removed.

Only the folders of known games are looked at, so a mistaken --db removes nothing foreign.
On a store URL the lock is this machine's own (see solver/storage/stores.py): solves from other
machines are not seen.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

from solver.storage import stores
from solver.storage.stores import Location

_NAME = re.compile(r"(?P<key>.+)\.(?:(?P<partial>partial|verify)|(?P<kind>partial|old)-"
                   r"(?P<pid>[0-9]+))")


@dataclass
class Leftover:
    path: Location          # the folder
    database: Location      # the database folder it belongs to (`<root>/<game>/<key>`)
    kind: str               # "partial", "verify", "partial-pid" or "old-pid"
    what: str               # what it is, in words
    size: int               # bytes
    action: str = "remove"  # "remove", "restore" (put back as the database) or "keep"
    why: str = ""           # why it is kept

    def line(self, dry_run: bool) -> str:
        verb = {"remove": "removed", "restore": "restored", "keep": "kept"}[self.action]
        if dry_run and self.action != "keep":
            verb = f"would {self.action}"
        what = self.what + (f" -> put back as {self.database.name}"
                            if self.action == "restore" else "")
        what += f"; {self.why}" if self.why else ""
        return f"{verb:<14} {self.path}  {what}  {human(self.size)}"


def human(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,} B" if unit == "B" else f"{n:,.1f} {unit}"
        n /= 1024
    raise AssertionError


def size_of(loc: Location) -> int:
    """Bytes of the files under a folder (or a store URL prefix)."""
    if stores.is_url(loc):
        try:
            return int(loc.fs.du(loc.path))
        except (OSError, ValueError):
            return 0
    total = 0
    for top, _, files in os.walk(loc):
        for f in files:
            try:
                total += os.lstat(os.path.join(top, f)).st_size
            except OSError:
                pass
    return total


def _attrs(loc: Location) -> dict:
    try:
        attrs = json.loads((loc / "zarr.json").read_text()).get("attributes", {})
        return attrs if isinstance(attrs, dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}


def _describe(kind: str, loc: Location, pid: int | None) -> str:
    attrs = _attrs(loc)
    if kind == "partial":
        done = attrs.get("tiers_done")
        parts = [f"{len(done)} tiers done" if isinstance(done, list) else "",
                 f"started {attrs['started']}" if attrs.get("started") else ""]
        extra = ", ".join(p for p in parts if p)
        return "unfinished tiers solve" + (f" ({extra})" if extra else "")
    if kind == "verify":
        try:
            record = json.loads((loc / "record.json").read_text())
            return f"unfinished verify ({record['done']:,} of {record['tasks']:,} tasks checked)"
        except (OSError, ValueError, KeyError, TypeError):
            return "unfinished verify"
    if kind == "partial-pid":
        return f"unfinished database write of pid {pid}"
    complete = " (complete)" if attrs.get("complete") else ""
    return f"database replaced by pid {pid}'s solve{complete}"


def find(root: Location, game: str | None = None, key: str | None = None) -> list[Leftover]:
    """The leftovers under `root` (of `game`, of its variant `key`), in path order, each
    with the action a clean would take as far as can be seen without the locks."""
    from games import available
    from solver.storage.stores import pid_alive, running_writer

    games = [game] if game else sorted(set(available()) & set(stores.listdir(root)))
    out = []
    for name in games:
        gdir = root / name
        for entry in sorted(stores.listdir(gdir)):
            m = _NAME.fullmatch(entry)
            if not m or (key is not None and m["key"] != key):
                continue
            loc = gdir / entry
            if not loc.is_dir():
                continue
            kind = m["partial"] or f"{m['kind']}-pid"
            pid = int(m["pid"]) if m["pid"] else None
            item = Leftover(loc, gdir / m["key"], kind, _describe(kind, loc, pid),
                            size_of(loc))
            writer = running_writer(item.database)
            if writer is not None:
                item.action, item.why = "keep", f"being solved now by pid {writer}"
            elif pid is not None and pid != os.getpid() and pid_alive(pid):
                item.action, item.why = "keep", f"pid {pid} is still running"
            out.append(item)
    # a complete old database goes back in place where none is (the first, as a solve does)
    placed = set()
    for item in out:
        if (item.kind != "old-pid" or item.action != "remove"
                or not _attrs(item.path).get("complete")
                or (item.database / "zarr.json").exists()):
            continue
        if item.database in placed:
            continue  # another old copy was put back: this one goes
        if item.database.exists():
            item.action = "keep"
            item.why = f"{item.database} (no database) is in the way of putting it back"
        else:
            item.action = "restore"
            placed.add(item.database)
    return out


def clean(root: Location, game: str | None = None, key: str | None = None,
          dry_run: bool = False) -> list[Leftover]:
    """Find the leftovers (see `find`) and, unless `dry_run`, remove (or put back) each,
    holding its variant's writer lock; a variant whose lock is held is kept."""
    from filelock import FileLock, Timeout

    from solver.storage.stores import holder, lock_path, release

    found = find(root, game, key)
    by_db: dict[Location, list[Leftover]] = {}
    for item in found:
        by_db.setdefault(item.database, []).append(item)
    for database, items in by_db.items():
        todo = [i for i in items if i.action != "keep"]
        if not todo:
            continue
        lp = lock_path(database)
        if dry_run and not lp.exists():
            continue
        lp.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lp), thread_local=False)
        try:
            lock.acquire(blocking=False)
        except Timeout:
            for i in todo:
                i.action, i.why = "keep", f"being solved now by {holder(database)}"
            continue
        try:
            if dry_run:
                continue
            for i in todo:
                if i.action == "restore":
                    if database.exists():  # put in place meanwhile: nothing to restore
                        i.action, i.why = "keep", f"{database} is in place now"
                        continue
                    stores.move(i.path, database)
                else:
                    stores.remove(i.path)
        finally:
            release(lock, database)
    return found
