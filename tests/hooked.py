"""gsolve with the hooks tests install, run as a command:

    python tests/hooked.py [--pause S] [--fault SPEC] [--counts FILE] [--chunk N]
                           [--task N] -- GSOLVE ARGUMENTS

The product reads no test setting: a test that stops a solve midway or breaks its disk
starts gsolve through this launcher, which installs its hooks and then runs the `gsolve`
command's main (solver/command/cli.py) with the arguments after `--`.

- `--pause S`: a sleep of S seconds after each piece of a solve task (the local
  run's `piece_hooks`, solver/engine/local.py), so a test can signal a solve midway.
- `--fault KIND:N[:ERRNO],...`: the Nth chunk file write (KIND write: half of its bytes
  written, then ERRNO, default EIO) or rename (KIND rename, before it) of each process
  fails with ERRNO (ENOSPC, EIO...), or the process is SIGKILLed there (KIND kill-write,
  kill-rename), through the store's `fault_hook` (solver/storage/chunks.py): faults at a
  known point, on any filesystem. A Dask cluster's workers get the same hook (Dask's
  worker preload), each counting its own steps, as a process of its own.
- `--counts FILE`: the writes and renames this process made, as JSON, at its end.
- `--chunk N`, `--task N`: store chunks and tiered tasks of N slots (many small ones, so a
  small game has many fault points).

A hooked run never records this machine's speed (solver/methods/speed.py): a paused or
broken solve does not measure it.
"""

from __future__ import annotations

import argparse
import atexit
import errno
import json
import os
import signal
import sys
import time
from pathlib import Path


class Faults:
    """The store's fault hook for a spec `KIND:N[:ERRNO],...` ("" or "count": only count
    the steps)."""

    def __init__(self, spec: str):
        self.spec = spec
        self.calls = {"write": 0, "rename": 0}
        self.planned = []
        for part in filter(None, spec.split(",")):
            if part == "count":
                continue
            what, _, rest = part.partition(":")
            n, _, code = rest.partition(":")
            if what.removeprefix("kill-") not in self.calls or not n.isdigit() or (
                    code and not isinstance(getattr(errno, code, None), int)):
                raise SystemExit(f"hooked: --fault {part!r} is not KIND:N[:ERRNO]")
            self.planned.append((what, int(n), getattr(errno, code or "EIO"), part))

    def __call__(self, step: str, fd=None, view=None):
        self.calls[step] += 1
        for what, n, err, part in self.planned:
            if what.removeprefix("kill-") != step or n != self.calls[step]:
                continue
            if fd is not None:  # a torn write first: half of the bytes
                os.write(fd, view[:len(view) // 2])
            if what.startswith("kill-"):
                os.kill(os.getpid(), signal.SIGKILL)
            raise OSError(err, f"{os.strerror(err)} (injected: --fault {part})")
        return view


def install_faults(spec: str) -> Faults:
    """Break this process's chunk file writes as `spec` says (storage/chunks.py)."""
    from solver.storage import chunks

    chunks.fault_hook = hook = Faults(spec)
    return hook


def install_pause(seconds: float) -> None:
    """Sleep `seconds` after each piece of a solve task (engine/local.py)."""
    from solver.engine import local

    local.piece_hooks.append(lambda tier, lo, hi: time.sleep(seconds))


def _faults_in_workers(spec: str) -> None:
    """The same faults in each worker of a Dask cluster this process starts: Dask runs a
    preload's text in every new worker, before it takes a task."""
    import dask

    here = str(Path(__file__).resolve().parent)
    dask.config.set({"distributed.worker.preload": [
        f"import sys; sys.path.insert(0, {here!r}); import hooked; "
        f"hooked.install_faults({spec!r})"]})


def _sizes(chunk: int | None, task: int | None) -> None:
    from solver.engine import plan
    from solver.storage import database

    if chunk:
        database.CHUNK = chunk
    if task:
        plan.MAX_TASK = plan.MIN_TASK = task


def _no_speed_record() -> None:
    from solver.methods import speed

    speed.record_speed = lambda *args, **kwargs: None


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """(the launcher's options, gsolve's arguments): those before and after `--`."""
    if "--" not in argv:
        raise SystemExit("usage: python tests/hooked.py [OPTIONS] -- GSOLVE ARGUMENTS")
    cut = argv.index("--")
    ap = argparse.ArgumentParser(prog="tests/hooked.py", description=__doc__.splitlines()[0])
    ap.add_argument("--pause", type=float, default=0.0, metavar="SECONDS")
    ap.add_argument("--fault", default="", metavar="KIND:N[:ERRNO],...")
    ap.add_argument("--counts", metavar="FILE")
    ap.add_argument("--chunk", type=int, metavar="SLOTS")
    ap.add_argument("--task", type=int, metavar="SLOTS")
    return ap.parse_args(argv[:cut]), argv[cut + 1:]


def run(argv: list[str]) -> None:
    """Install the hooks `argv` asks for and run the `gsolve` command as its console
    script does (solver/command/console.py): Ctrl-C and SIGTERM then end this process as
    they end gsolve's, within the command's grace, whatever the moment they land."""
    from solver.command import console

    console.end_at_interrupt()  # first: the hooks' imports below take seconds
    opts, args = parse(argv)
    _no_speed_record()
    _sizes(opts.chunk, opts.task)
    if opts.pause > 0:
        install_pause(opts.pause)
    faults = None
    if opts.fault or opts.counts:
        faults = install_faults(opts.fault)
        if opts.fault:
            _faults_in_workers(opts.fault)
    if opts.counts:
        atexit.register(_write_counts, opts.counts, faults)
    sys.argv = [sys.argv[0], *args]
    console.entry()


def _write_counts(path: str, faults: Faults) -> None:
    with open(path, "w") as f:
        json.dump(faults.calls, f)


def command(*options: str) -> list[str]:
    """The command line that starts gsolve through this launcher with `options` (before
    `--`; gsolve's arguments follow)."""
    return [sys.executable, str(Path(__file__).resolve()), *options, "--"]


if __name__ == "__main__":
    run(sys.argv[1:])
