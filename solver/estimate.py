"""Time and memory estimates of a solve, per method.

One place decides what a solve will cost, so the default method, the refusal of a solve
that cannot fit, the warning before a long one, its ETA (and `gsolve plan`) agree.

Memory is exact up to small buffers: the arrays each method allocates per hash slot.
Time is hash slots / rate. The rate of a method is assumed (ASSUMED_RATE, hash slots per
second on 2 cores of the development machine) until this machine has solved the game for
at least a second: then the measured rate of that game (any variant) is used, and a
method not yet measured there is scaled by the game's measured speed against the
assumption. The default method uses the assumed rates only, so it does not change with
the machine's history: the fastest applicable method whose memory fits.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.base import Game, GsolveError

# hash slots per second, 2 cores (README benchmarks: connect4, quarto, topitop, morris...)
ASSUMED_RATE = {"dfs": 1_500_000, "retrograde": 400_000, "bottomup": 150_000}
TIERS_RATE = {False: 800_000, True: 150_000}  # loop-free tiers: one pass; loopy: sweeps
ORDER = ("dfs", "retrograde", "tiers", "bottomup")  # ties broken in this order
FIT = 0.9  # a solve may use this share of the memory available
LONG = 60.0  # seconds: a solve estimated longer is announced, with its estimate
MIN_MEASURED = 1.0  # seconds: shorter solves are mostly overhead, not recorded
GIB = 1 << 30


@dataclass(frozen=True)
class Estimate:
    method: str
    bytes: int  # memory the solve's arrays need
    seconds: float  # estimated solve time
    measured: bool  # the rate comes from solves of this game on this machine
    available: int | None  # bytes the solve may use (None: unknown)

    @property
    def fits(self) -> bool:
        return self.available is None or self.bytes <= FIT * self.available

    def describe(self) -> str:
        how = "measured speed" if self.measured else "assumed speed"
        return (f"{self.method}: about {duration(self.seconds)} ({how}), "
                f"{self.bytes / GIB:,.1f} GiB")


def duration(seconds: float) -> str:
    """'45 s', '12 min', '3.4 h', '2.1 days'."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


# -- memory ------------------------------------------------------------------------------
def memory_need(game: Game, method: str) -> int:
    """Bytes of the arrays `method` allocates for `game` (see each solver's docstring)."""
    from solver.kernels.records import record_dtype

    rec = np.dtype(record_dtype(game.max_remoteness)).itemsize
    if method == "tiers":
        tiers = game.tiers()
        window = max(t.size + sum(tiers[c].size for c in t.children if c != i)
                     for i, t in enumerate(tiers))
        return game.hash_size + 2 * rec * window
    if method == "retrograde":
        counter = 1 if game.max_children < 256 else 2
        return game.hash_size * (rec + counter + (0 if game.has_parents else 16))
    return game.hash_size * rec


def parse_bytes(text: str, what: str) -> int:
    """'8G', '512M', '2.5GiB', '1000000' -> bytes; GsolveError otherwise."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kmgt]?)(i?b)?\s*", text, re.IGNORECASE)
    if not m:
        raise GsolveError(f"{what}='{text[:40]}' is not a size (e.g. 8G, 512M)")
    scale = 1024 ** " kmgt".index(m.group(2).lower() or " ")
    return int(float(m.group(1)) * scale)


def available_memory() -> int | None:
    """Bytes a solve may use: MemAvailable, capped by $GSOLVE_MEMORY when set."""
    have = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    have = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    cap = os.environ.get("GSOLVE_MEMORY")
    if cap:
        limit = parse_bytes(cap, "GSOLVE_MEMORY")
        have = limit if have is None else min(have, limit)
    return have


# -- speed -------------------------------------------------------------------------------
def _speed_file() -> Path:
    from solver.codegen import cache_dir

    return cache_dir().parent / "speed.json"


def _measured() -> dict:
    try:
        data = json.loads(_speed_file().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def assumed_rate(game: Game | type[Game], method: str) -> float:
    if method == "tiers":
        return TIERS_RATE[bool(game.loopy)]
    return ASSUMED_RATE[method]


def record_speed(game: Game, method: str, seconds: float) -> None:
    """Remember this machine's hash slots per second for (game, method), from its largest
    solve: a small variant's solve is mostly start-up and would make a big one look days
    long (a test's Connect-4 4x4 tiers put 6x5 at 30 h)."""
    if seconds < MIN_MEASURED:
        return
    data = _measured()
    seen = data.setdefault(game.name, {})
    size = f"{method}:slots"
    if isinstance(seen.get(size), int) and seen[size] > game.hash_size and method in seen:
        return
    seen[method] = round(game.hash_size / seconds)
    seen[size] = int(game.hash_size)
    path = _speed_file()
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the estimates their accuracy


def rate(game: Game, method: str) -> tuple[float, bool]:
    """(hash slots per second, measured?) for solving `game` with `method` here."""
    seen = _measured().get(game.name, {})
    if isinstance(seen.get(method), (int, float)) and seen[method] > 0:
        return float(seen[method]), True
    ratios = [v / assumed_rate(game, m) for m, v in seen.items()
              if m in ORDER and isinstance(v, (int, float)) and v > 0]
    if ratios:
        return assumed_rate(game, method) * float(np.median(ratios)), True
    return float(assumed_rate(game, method)), False


# -- estimates ---------------------------------------------------------------------------
def estimate(game: Game, method: str, available: int | None = None,
             budget: int | None = None) -> Estimate:
    """`budget`: the memory a tiered solve is given (--memory); it holds no more."""
    per_second, measured = rate(game, method)
    need = memory_need(game, method)
    if method == "tiers" and budget:
        need = min(need, budget)
    return Estimate(method, need, game.hash_size / per_second,
                    measured, available_memory() if available is None else available)


def estimates(game: Game) -> list[Estimate]:
    """An estimate for every method that applies, in ORDER."""
    from solver.solve import applicable_methods

    have = available_memory()
    return [estimate(game, m, have) for m in applicable_methods(game)]


def default_method(game: Game | type[Game]) -> str:
    """The applicable method with the least assumed time whose memory fits; for a game
    class (no variant, no sizes) the least assumed time. If nothing fits, the one that
    needs least memory (the solve then refuses with the numbers)."""
    from solver.solve import applicable_methods

    methods = applicable_methods(game)

    def cost(m):
        return (1 / assumed_rate(game, m), ORDER.index(m))

    if isinstance(game, type):
        return min(methods, key=cost)
    have = available_memory()
    needs = {m: memory_need(game, m) for m in methods}
    fitting = [m for m in methods if have is None or needs[m] <= FIT * have]
    if fitting:
        return min(fitting, key=cost)
    return min(methods, key=lambda m: (needs[m], cost(m)))


def check_fits(game: Game, method: str) -> Estimate:
    """The estimate of this solve; GsolveError, naming what would fit, if it cannot."""
    from solver.solve import applicable_methods

    have = available_memory()
    est = estimate(game, method, have)
    if est.fits:
        return est
    others = [estimate(game, m, have) for m in applicable_methods(game) if m != method]
    fitting = [e for e in others if e.fits]
    if fitting:
        hint = "; " + ", ".join(f"--method {e.method} needs {e.bytes / GIB:,.1f} GiB"
                                for e in fitting)
    else:
        least = min([est, *others], key=lambda e: e.bytes)
        hint = (f"; no method fits (the least, {least.method}, needs "
                f"{least.bytes / GIB:,.1f} GiB)")
    raise GsolveError(
        f"{game.describe()} needs about {est.bytes / GIB:,.1f} GiB with {method} "
        f"({game.hash_size:,} hash slots), more than the {FIT * have / GIB:,.1f} GiB it may "
        f"use ({FIT:.0%} of {have / GIB:,.1f} GiB available)" + hint)


def long_note(game: Game, est: Estimate) -> str | None:
    """The line announcing a solve estimated to take more than LONG seconds."""
    if est.seconds < LONG:
        return None
    how = "measured" if est.measured else "assumed"
    per_second = game.hash_size / est.seconds
    return (f"{game.describe()} with {est.method}: estimated {duration(est.seconds)} "
            f"({game.hash_size:,} hash slots at about {per_second:,.0f}/s, {how} speed), "
            f"{est.bytes / GIB:,.1f} GiB")
