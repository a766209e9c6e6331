"""What `gsolve verify` and a solve's check of itself report, and the checks both modes
share (solver/methods/verify.py has the design)."""

from dataclasses import asdict, dataclass, field

import numpy as np

from games.base import VALUE_WORDS, Game, shown_remoteness
from solver.kernels.codegen import kernels
from solver.kernels.numbering import index_attrs
from solver.storage.database import (
    remoteness_dtype,
)

TEMPLATE = "solver.kernels.verify"


SHIFT = 4  # solver.kernels.records: remoteness above the value code in a record


GIB = 1 << 30


@dataclass
class Problem:
    text: str
    position: str | None = None
    hash: int | None = None


@dataclass
class Report:
    game: str
    variant: str
    database: str
    sound: bool = True
    reachable: int = 0
    stored: int = 0
    slots: int = 0
    chunks: int = 0
    sampled: int = 0
    problems: int = 0
    details: list[Problem] = field(default_factory=list)
    seconds: float = 0.0
    symmetry: bool = False  # solved on canonical positions only: those are checked
    mode: str = "whole"  # "whole", "tiers" (a task at a time) or "sample" (--sample)
    derived: int = 0  # positions re-derived from their children (--sample: the sample)
    tasks: int = 0  # (tiers) tasks the hash was cut into
    memory: int = 0  # (tiers) bytes the tasks were planned to hold
    resumed: int = 0  # (tiers) tasks checked by the runs this one resumed
    seconds_before: float = 0.0  # (tiers) the time of those runs

    def add(self, text: str, position: str | None = None, h: int | None = None,
            count: int = 1) -> None:
        self.sound = False
        self.problems += count
        self.details.append(Problem(text, position, h))

    def to_dict(self) -> dict:
        return asdict(self)


def word(v: int, r: int, puzzle: bool) -> str:
    word = VALUE_WORDS.get(v, f"code {v}")
    shown = shown_remoteness(v, r, puzzle) if v in VALUE_WORDS else None
    return word if shown is None else f"{word} in {shown}"


def position(game: Game, h: int) -> str:
    try:
        return game.to_string(int(h))
    except Exception:
        return f"hash {h}"


def problem_text(code: int, v: int, r: int, want: int, puzzle: bool) -> str:
    """What is wrong with a slot, by its problem code (solver/kernels/verify.py)."""
    stored = word(v, r, puzzle)
    return {
        1: "reachable from the start but not stored",
        2: f"stored ({stored}) but not reachable from the start",
        3: f"stored value code {v} is no value",
        4: f"stored {stored}, but the game is over there: {word(want & 7, 0, puzzle)} in 0",
        5: f"stored {stored}, but its children give {word(want & 7, want >> SHIFT, puzzle)}",
        6: f"unreachable, yet stores remoteness {r}",
        7: "reached, but never expanded: a move leads into it from a tier the game does "
           "not list as its parent",
    }[code]


def warm_up(game: Game, rem_dtype) -> None:
    k = kernels(game.module, TEMPLATE)
    v = np.zeros(1, np.uint8)
    r = np.zeros(1, rem_dtype)
    m = np.zeros(1, np.uint8)
    mc, ss = game.max_children, game.scratch_size
    k.sweep(game.ctx, v, r, m, 0, 0, 0, 0, game.puzzle, mc, ss)
    k.count_problems(v, r, m, 0, 0)
    found = np.zeros(1, np.int64)
    k.first_problems(game.ctx, v, r, m, 0, 0, game.puzzle, mc, ss, found, found.copy(),
                     found.copy())


def size(b: int) -> str:
    return f"{b / GIB:,.2f} GiB" if b >= GIB else f"{b / (1 << 20):,.1f} MiB"


def round_trip(game: Game, report: Report, picks: np.ndarray, sample: int) -> None:
    """The position strings of the start and of `picks` (up to `sample` in all) parse back
    to their hash."""
    picks = np.asarray(picks, np.int64)
    picks = np.concatenate(([game.start], picks[picks != game.start][:max(0, sample - 1)]))
    for h in picks:
        h = int(h)
        try:
            text = game.to_string(h)
            back = game.from_string(text)
        except Exception as e:
            report.add(f"hash {h}: its position string does not round-trip "
                       f"({type(e).__name__}: {e})", None, h)
            continue
        if back != h:
            report.add(f"{text}: parses to hash {back}, not {h}", text, h)
    report.sampled = len(picks)


def check_attrs(report: Report, attrs: dict, game: Game, counts, longest: int, sv: int,
                 sr: int, rem_dtype) -> None:
    words = {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]}
    want = {
        "positions": int(counts[1:5].sum()),
        "values": words,
        "start_value": VALUE_WORDS.get(sv, str(sv)),
        "start_remoteness": shown_remoteness(sv, sr, game.puzzle),
        "max_remoteness": longest,
        **index_attrs(game),
    }
    for key, v in want.items():
        if attrs.get(key) != v:
            report.add(f"attribute {key} is {attrs.get(key)!r}, the arrays give {v!r}")
    if rem_dtype != remoteness_dtype(longest):
        report.add(f"remoteness is stored as {rem_dtype}, not the smallest type "
                   f"({remoteness_dtype(longest)}) for {longest}")
