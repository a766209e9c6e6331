"""Ctrl-C and SIGTERM: the command unwinds as on an error, prints one line and ends within
GRACE seconds, whatever the main thread is doing when the signal lands."""

from __future__ import annotations

import _thread
import os
import signal
import sys
import time

import click

GRACE = 1.0  # seconds a stopped command has to unwind before it ends regardless


class Stopped(BaseException):
    """Ctrl-C or SIGTERM, raised in the main thread so that a solve unwinds as on an error
    (a tiered solve records the tasks it finished). Not a KeyboardInterrupt, which click
    turns into Abort (printing a blank line) and libraries may catch."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.message, self.code = message, code


_ending = _thread.allocate_lock()  # held by whoever ends the command: one message


def stop_handler(message: str, code: int, argv):
    """The handler of a stopping signal. The command itself (argv None) also ends GRACE
    seconds later, whatever the main thread does: a signal's exception can land where
    Python swallows it (a finalizer, a weakref callback), and one in importlib's module
    lock callback leaves the import lock held, so that every import, in every thread,
    then waits for ever (and numba's compiler has been seen to swallow one: the test of a
    Ctrl-C while a cluster starts took GRACE). What a tiered solve finished is recorded as
    it finishes, so ending there loses no more than SIGKILL would; the command's own
    processes (a cluster's forkserver and workers) are ended with it."""

    line = f"{message}\n".encode()

    def end_later():
        time.sleep(GRACE)
        with _ending:  # nothing here imports or takes another module's lock
            try:
                os.write(2, line)
                for pid in descendants(os.getpid()):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            finally:
                os._exit(code)

    def handler(signum, frame):
        signal.signal(signum, signal.SIG_DFL)  # a second one ends the process at once
        if argv is None:
            _thread.start_new_thread(end_later, ())  # (threading's locks may be held)
        raise Stopped(message, code)

    return handler


def quiet_if_stopped(hook):
    """A Stopped that Python swallowed (raised in a weakref callback or a finalizer) is
    not printed as "Exception ignored": the handler's GRACE timer ends the command, with
    its one line."""

    def unraisable(info):
        if not isinstance(info.exc_value, Stopped):
            hook(info)

    return unraisable


def descendants(pid: int) -> list[int]:
    """The live processes below `pid` (its children, theirs...), from /proc: no locks."""
    parents = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            parents[int(name)] = int(fields[1])
        except (OSError, ValueError, IndexError):
            continue
    found, todo = [], [pid]
    while todo:
        above = todo.pop()
        below = [p for p, parent in parents.items() if parent == above]
        found += below
        todo += below
    return found


def report_stopped(message: str, code: int, argv) -> int:
    """Ctrl-C or SIGTERM, once the solve has cleaned up while unwinding: one line. The
    command itself (argv None) then ends at once, so queued sweep blocks do not run on
    and the storage's pending background writes print no warnings at shutdown."""
    if argv is None:
        _ending.acquire()
    click.echo(message, err=True)
    if argv is None:
        end_now(code)
    return code


def end_now(code: int) -> None:
    """End the process with `code` at once, its output flushed (no threads joined)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


class catching_stops:
    """SIGINT and SIGTERM raise Stopped while the command runs (main thread only), and a
    Stopped that Python swallows prints nothing; both undone after (main(argv) in a test
    or another program)."""

    def __init__(self, argv):
        self.argv, self.handlers = argv, {}

    def __enter__(self):
        import threading

        if threading.current_thread() is threading.main_thread():
            for signum, message, code in ((signal.SIGINT, "gsolve: interrupted", 130),
                                          (signal.SIGTERM, "gsolve: terminated", 143)):
                self.handlers[signum] = signal.signal(
                    signum, stop_handler(message, code, self.argv))
        self.unraisable = sys.unraisablehook
        sys.unraisablehook = quiet_if_stopped(self.unraisable)
        return self

    def __exit__(self, *exc):
        for signum, old in self.handlers.items():
            signal.signal(signum, old)
        sys.unraisablehook = self.unraisable
        return False
