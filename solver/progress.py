"""Progress reporting: solvers call `update`; the command shows it, the API ignores it."""

from __future__ import annotations


class Progress:
    """Silent by default."""

    def update(self, phase: str, step: int, detail: str = "") -> None:
        pass

    def fraction(self, done: float) -> None:
        """How much of the current sweep is done (0..1)."""

    def close(self) -> None:
        pass


class RichProgress(Progress):
    """A live status line on stderr: phase, sweep number, detail, elapsed time."""

    def __init__(self, title: str):
        from rich.console import Console
        from rich.progress import BarColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        self._bar = Bar(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                        TextColumn("{task.fields[detail]}"), TimeElapsedColumn(),
                        console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task(title, detail="", total=1.0)
        self._title = title
        self._bar.start()

    def update(self, phase: str, step: int, detail: str = "") -> None:
        self._bar.update(self._task, description=f"{self._title}: {phase} {step}",
                         detail=detail, completed=0.0)

    def fraction(self, done: float) -> None:
        self._bar.update(self._task, completed=done)

    def close(self) -> None:
        self._bar.stop()
