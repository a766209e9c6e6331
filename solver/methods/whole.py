"""The database of a method that holds the whole hash in memory (bottomup, dfs,
retrograde): its `solve_into` solves to records and writes them here, in one piece, so
that every method answers the one protocol of solver/methods/registry.py."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from games.base import VALUE_WORDS, Game, shown_remoteness
from solver.kernels.records import SHIFT, VALUE_MASK, record_summary, split_records
from solver.runtime.parallel import call
from solver.runtime.progress import Progress
from solver.storage.database import CHUNK, now
from solver.storage.writing import write_arrays


def summary_attrs(rec: np.ndarray, start: int, puzzle: bool) -> dict:
    """The database's summary (value counts, the start's value, the largest remoteness)."""
    values = np.zeros(8, np.int64)
    longest = int(call(record_summary, rec, values))  # seconds on a large hash: stoppable
    sv, sr = int(rec[start] & VALUE_MASK), int(rec[start] >> SHIFT)
    return {
        "positions": int(values[1:5].sum()),
        "values": {VALUE_WORDS[v]: int(values[v]) for v in (4, 1, 3, 2) if values[v]},
        "start_value": VALUE_WORDS[sv],
        "start_remoteness": shown_remoteness(sv, sr, puzzle),
        "max_remoteness": longest,
    }


def record_chunks(rec: np.ndarray):
    """Database pieces (start, value, remoteness) from solve-time records."""
    for a in range(0, rec.shape[0], CHUNK):
        part = rec[a:a + CHUNK]
        value = np.empty(part.shape[0], np.uint8)
        rem = np.empty(part.shape[0], part.dtype)
        split_records(part, value, rem)
        yield a, value, rem


def solve_into(solve, game: Game, path: Path, progress: Progress | None = None, *,
               method: str, started: str | None = None, run: dict | None = None,
               check=None, **options) -> dict:
    """`solve(game, progress)`'s records written as the database at `path`; the summary
    written with it. The solve's seconds count from `run["since"]` (a perf_counter time;
    default now) and `run` gains them, the seconds of the write, and a share of 1.0 once
    the database is written. Options of the tier manager (`fresh`, ...) mean nothing to a
    solve that starts from scratch."""
    progress = progress or Progress()
    run = {} if run is None else run
    started = started or now()
    t0 = run.get("since", time.perf_counter())
    rec = solve(game, progress)
    t1 = time.perf_counter()
    attrs = summary_attrs(rec, game.start, game.puzzle)
    attrs["solve_seconds"] = round(t1 - t0, 6)
    progress.update("write", 1, str(path))
    write_arrays(path, game, method, started, record_chunks(rec), attrs["max_remoteness"],
                 extra=attrs, check=check)
    run.update(solve_seconds=t1 - t0, write_seconds=time.perf_counter() - t1, share=1.0)
    return attrs
