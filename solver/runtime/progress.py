"""Progress reporting: solvers call `update`; the command shows it, the API ignores it."""

from __future__ import annotations

import time


class Progress:
    """Silent by default."""

    def update(self, phase: str, step: int, detail: str = "") -> None:
        pass

    def fraction(self, done: float) -> None:
        """How much of the current sweep is done (0..1)."""

    def expect(self, seconds: float) -> None:
        """The solve's estimated time (solver/methods/estimate.py), for an ETA."""

    def remaining(self, seconds: float, done: float = 1.0) -> None:
        """Seconds left as the solver measures them, with `done` of the work behind it
        (replaces the estimate: see `blend`)."""

    def left_of_plan(self, share: float) -> None:
        """Only `share` (0..1) of the estimated work is this run's: a resumed solve, or
        tasks another store holds (`--borrow`)."""

    def stage(self, text: str) -> None:
        """A stage without steps (loading or compiling kernels), shown until the next
        update: a first run that compiles for minutes says so instead of "starting"."""

    def note(self, text: str) -> None:
        """A line worth showing before the work starts (e.g. a long estimate)."""

    def close(self) -> None:
        pass


def duration(seconds: float) -> str:
    """'45 s', '12 min', '3.4 h', '2.1 days' (at least '1 s': an estimate is never 0)."""
    if seconds < 90:
        return f"{max(1.0, seconds):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    if seconds < 86400 * 3650:
        return f"{seconds / 86400:,.1f} days"
    return f"{seconds / 86400 / 365.25:,.3g} years"


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def eta_text(expected: float | None, elapsed: float) -> str:
    """'about 2.1 h left' from the estimate; past it, say so rather than guess."""
    if expected is None or expected < 1:  # nothing to say about a second's work
        return ""
    if elapsed < expected:
        return f"about {duration(expected - elapsed)} left (estimate)"
    return f"longer than the {duration(expected)} estimate"


def blend(measured: float, done: float, plan: float | None) -> float:
    """Seconds left: the measured rate's extrapolation, trusted as far as the work it
    rests on (`done`, 0..1), the rest from the plan's share of the work left. Early tasks
    are no fair sample of a solve (Connect-4 5x5's first reach tasks run at half the
    rate of the rest), and a plan is within 2x where the extrapolation of 10% is not."""
    done = min(1.0, max(0.0, done))
    if not plan:
        return measured
    return done * measured + (1 - done) * plan * (1 - done)


LOOPY_SOLVE = 2.0  # a loopy tier's solve (retrograde sweeps) per slot, against a reach


class TaskEta:
    """Seconds left of a tiered solve (its tasks, solver/engine/task.py, and the record of
    those done), by the hash slots its tasks have reached and solved so far rather than by
    tasks (one task may hold most of the hash: Teeko 5x5's last)."""

    def __init__(self, tasks: list, record, lent: set[int] | None = None):
        self.lent = lent or set()  # solve tasks the donor holds (--borrow): work not left
        self.work = {
            "reach": {i: float(t.size) for i, t in enumerate(tasks)},
            "solve": {i: float(sum((hi - lo) * (LOOPY_SOLVE if loopy else 1.0)
                                   for _, lo, hi, loopy in t.pieces) or t.size)
                      for i, t in enumerate(tasks)}}
        self.total = sum(w for ws in self.work.values() for w in ws.values()) or 1.0
        self.left = sum(w for phase, ws in self.work.items() for i, w in ws.items()
                        if i not in record.done[phase]
                        and not (phase == "solve" and i in self.lent))
        self.did = 0.0
        self.t0 = time.perf_counter()

    def done(self, phase: str, i: int, borrowed: bool = False) -> tuple[float, float]:
        """(seconds left at the rate so far, share of the work done) after task i. A
        borrowed task's work was paid in its donor: it is no longer left, but not done
        here either (Nine's movement tasks are 40% of its work: counted as done, they
        would make the rate, the ETA and the share `record_speed` scales by far too
        fast)."""
        w = self.work[phase][i]
        self.did += 0.0 if borrowed else w
        if not (phase == "solve" and i in self.lent):  # (one expected lent: never left)
            self.left = max(0.0, self.left - w)
        rate = (time.perf_counter() - self.t0) / max(self.did, 1e-9)
        return rate * self.left, self.did / max(self.did + self.left, 1e-9)


class _Timed(Progress):
    """The ETA of the shown progress: the plan's estimate (`expect`), scaled to the work
    this run has (`left_of_plan`), then blended with what the solver measures."""

    _t0: float
    _plan: float | None = None
    _expected: float | None = None

    def expect(self, seconds: float) -> None:
        self._expected = self._plan = seconds

    def left_of_plan(self, share: float) -> None:
        import time

        if self._plan:
            self._plan *= min(1.0, max(0.0, share))
            self._expected = time.monotonic() - self._t0 + self._plan

    def remaining(self, seconds: float, done: float = 1.0) -> None:
        import time

        left = blend(seconds, done, self._plan)
        self._expected = time.monotonic() - self._t0 + left


class LineProgress(_Timed):
    """For stderr off a terminal (logs, pipes): a line every `every` seconds from a
    background thread (the kernels release the GIL), so an hours-long solve is never
    silent. Nothing is printed for work shorter than `every`."""

    def __init__(self, title: str, every: float | None = None, stream=None):
        import sys
        import threading
        import time

        from solver.runtime.env import progress_seconds

        self._every = max(0.05, progress_seconds() if every is None else every)
        self._stream = stream or sys.stderr
        self._title, self._state, self._done = title, "starting", None
        self._expected: float | None = None
        self._t0 = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="gsolve-progress")
        self._thread.start()

    def _run(self) -> None:
        import time

        while not self._stop.wait(self._every):
            elapsed = time.monotonic() - self._t0
            parts = [self._state]
            if self._done is not None:
                parts.append(f"{self._done:.0%} of this sweep")
            parts.append(f"{_clock(elapsed)} elapsed")
            eta = eta_text(self._expected, elapsed)
            if eta:
                parts.append(eta)
            self._write(f"{self._title}: " + ", ".join(parts))

    def _write(self, line: str) -> None:
        try:
            print(line, file=self._stream, flush=True)
        except (OSError, ValueError):
            pass

    def update(self, phase: str, step: int, detail: str = "") -> None:
        self._state = f"{phase} {step}" + (f" ({detail})" if detail else "")
        self._done = None

    def stage(self, text: str) -> None:
        self._state, self._done = text, None

    def fraction(self, done: float) -> None:
        self._done = done

    def note(self, text: str) -> None:
        self._write(text)

    def close(self) -> None:
        self._stop.set()


class RichProgress(_Timed):
    """A live status line on stderr: phase, sweep number, detail, elapsed time.

    It appears once the work has run for DELAY seconds (or a note comes first): loading
    rich and starting its display cost 0.1-0.2 s, as long as a whole small solve, which
    would otherwise pay it for a line shown for a moment."""

    DELAY = 0.5

    def __init__(self, title: str):
        import threading
        import time

        self._title = title
        self._expected: float | None = None
        self._state = {"description": title, "detail": "", "completed": 0.0}
        self._bar = None
        self._closed = False
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._timer = threading.Timer(self.DELAY, self._show)
        self._timer.daemon = True
        self._timer.start()

    def _show(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        with self._lock:
            if self._closed or self._bar is not None:
                return
            bar = Bar(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                      TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True)
            self._task = bar.add_task(self._state["description"], total=1.0,
                                      detail=self._state["detail"],
                                      completed=self._state["completed"])
            bar.start()
            self._bar = bar

    def _set(self, **fields) -> None:
        with self._lock:
            self._state.update(fields)
            if self._bar is not None:
                self._bar.update(self._task, **fields)

    def note(self, text: str) -> None:
        self._show()
        if self._bar is not None:
            self._bar.console.print(text, highlight=False, markup=False)

    def update(self, phase: str, step: int, detail: str = "") -> None:
        import time

        eta = eta_text(self._expected, time.monotonic() - self._t0)
        if eta and self._expected and self._expected >= 60:
            detail = f"{detail}, {eta}" if detail else eta
        self._set(description=f"{self._title}: {phase} {step}", detail=detail, completed=0.0)

    def stage(self, text: str) -> None:
        self._set(description=f"{self._title}: {text}", detail="", completed=0.0)

    def fraction(self, done: float) -> None:
        self._set(completed=done)

    def close(self) -> None:
        self._timer.cancel()
        with self._lock:
            self._closed = True
            if self._bar is not None:
                self._bar.stop()


def for_command(title: str, quiet: bool) -> Progress:
    """The progress a command shows on stderr: none when `quiet` (or --json), a live line
    on a terminal, a line every few seconds in logs and pipes (never silent for long)."""
    import sys

    if quiet:
        return Progress()
    if sys.stderr.isatty():
        return RichProgress(title)
    return LineProgress(title)
