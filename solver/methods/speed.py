"""What this machine measured: a timed sample of a game's own kernel, and the factor and
parallelism of each method fitted on its recorded solves (solver/methods/estimate.py
turns them into plans). A solve of a second or more records its CPU and wall time
(`record_speed`); the disk a stored database takes is read from its chunk files."""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.base import Game
from solver.kernels.numbering import game_of
from solver.methods.registry import TIERED

# CPU seconds of a solve per second of `base` (see above), fitted on this project's
# measured solves: Connect-4 5x5 and 6x5 tiers, Quixo 4x4 retrograde, Quixo and Teeko
# tiers with symmetry. dfs and bottomup: scaled from those by the old assumed relative
# speeds (bottomup sweeps a loopy game many times: Topitop 171 s against retrograde's 39 s).
DEFAULT_FACTOR = {TIERED: 0.78, f"{TIERED}-loopy": 2.4, "retrograde": 3.5, "dfs": 1.2,
                  "bottomup": 1.5, "bottomup-loopy": 10.0}
# ... per counted position (`work_base`): Connect-4 7x4 with symmetry 2.1 (432 CPU s over
# 1.12 G stored positions); the slot factor 0.78 times 5x5's and 6x5's 2.5-3.3 slots a
# position agrees
POSITION_FACTOR = {TIERED: 2.2}
PARALLEL = {TIERED: 1.6, "retrograde": 1.4, "bottomup": 1.4, "dfs": 1.0}  # CPU s / wall s
START = {"dfs": 0.03}  # CPU seconds a solve spends on starting (thread pool, store) ...
START_STORE = 0.15  # ... for the methods that start threads and a store
PER_TIER = 1e-4  # CPU seconds a tiered solve spends per tier besides its positions
SYMMETRY_COST = 2.0  # a canonical child costs about twice a plain one (Quixo, Teeko)
# the old constants: only `gsolve list`'s default for a game class (no variant, no sample)
ASSUMED_RATE = {"dfs": 1_500_000, "retrograde": 400_000, "bottomup": 150_000}
TIERS_RATE = {False: 800_000, True: 150_000}  # loop-free tiers: one pass; loopy: sweeps
MIN_MEASURED = 1.0  # seconds: shorter solves are mostly overhead, not recorded
PART_MEASURED = 60.0  # seconds: a shorter part of a solve (resumed, stopped) is not
SAMPLE_SECONDS = 0.2  # the timed sample runs about this long
SAMPLE_SLOTS = 1024  # hash slots a sampled range holds
SMALL = 1 << 20  # hash slots: a smaller game is not sampled (its solve takes seconds)
# bytes on disk per visited hash slot where no database of the game is stored: Connect-4
# 5x5 0.29, 6x5 0.18, Quixo 4x4 0.28 (0.31 with symmetry), Teeko 5x5 0.43 (symmetry)
DISK_PER_SLOT = 0.3
# ... and per stored position, where the positions are counted (`position_share`):
# Connect-4 with symmetry 7x4 0.53, 6x4 0.59, 5x5 0.71
DISK_PER_POSITION = 0.7
REACH_SAMPLES = 4096  # slots a position count decides at most ...
REACH_SECONDS = 1.0  # ... within about this long
REACH_CAP = 4096  # slots one backward search may see before it gives up (undecided)
COUNTED = 1 << 24  # hash slots: a smaller game's disk is planned per slot (megabytes at
#                    most; not worth compiling the search on its first solve)


# -- the timed sample --------------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    seconds_per_slot: float  # CPU seconds of expanding one hash slot, here
    share: float  # hash slots a solve visits: the canonical ones under symmetry, else all
    slots: int  # hash slots sampled
    took: float  # seconds the sample took

    def base(self, game: Game) -> float:
        return game.hash_size * self.seconds_per_slot * self.share


def sample(game: Game) -> Sample | None:
    """Time this game's kernel on random ranges of its hash (about SAMPLE_SECONDS; kept on
    the game). Each slot of a range is expanded once, as a solve expands a reached
    position; None where the kernel cannot be had."""
    cached = _SAMPLES.get(_sample_key(game))
    if cached is not None:
        return cached
    if game.hash_size <= SMALL:  # seconds at most: not worth a kernel's first compile
        return None
    t0 = time.perf_counter()
    try:
        from solver.kernels.codegen import kernels

        k = kernels(game.module, "solver.kernels.tiers")
    except Exception:  # noqa: BLE001 - a game the tier kernels do not bind: no sample
        return None
    n, mc = game.hash_size, game.max_children
    # ranges of fewer slots where a slot costs many children (Quarto 4x4 with symmetry: 256
    # canonicalized at 23 us each): at least 4 ranges are timed
    width = int(min(SAMPLE_SLOTS, n, max(64, SAMPLE_SLOTS * 16 // mc)))
    far = np.empty(width * mc, np.int64)
    rng = np.random.default_rng(n % (1 << 32))
    own = np.ones(width, np.uint8)
    k.forward_far(game.ctx, own, 0, width, 0, width, 0, 0, far, mc, game.scratch_size)
    states, slots, spent, ranges = [], 0, 0.0, 0
    t1 = time.perf_counter()
    while ranges < 4 or (spent < SAMPLE_SECONDS and ranges < 256
                         and time.perf_counter() - t1 < 2 * SAMPLE_SECONDS):
        lo = int(rng.integers(0, max(1, n - width)))
        hi = min(n, lo + width)
        own = np.ones(hi - lo, np.uint8)
        t = time.thread_time()
        k.forward_far(game.ctx, own, lo, hi, lo, hi, 0, 0, far, mc, game.scratch_size)
        spent += time.thread_time() - t
        states.append(lo)
        slots += hi - lo
        ranges += 1
    share = 1.0
    if game.symmetry:
        share = canonical_share(game, states, width)
    s = Sample(spent / max(1, slots), share, slots, time.perf_counter() - t0)
    _SAMPLES[_sample_key(game)] = s
    return s


_SAMPLES: dict[tuple, Sample] = {}  # by what was timed: the kernels' module and variant
_SHARES: dict[tuple, float] = {}


def _sample_key(game) -> tuple:
    return (game_of(game).module, game.module, game.variant_key, game.hash_size)


def canonical_share(game: Game, starts: list[int] | None = None, width: int = 256) -> float:
    """The share of hash slots that are canonical (their own representative), on a sample
    (the mean of 1 / orbit size: compact.orbit_share): a solve with symmetry visits those
    only."""
    from solver.kernels.compact import orbit_share

    game = game_of(game)  # (the game's slots)
    cached = _SHARES.get(_sample_key(game))
    if cached is not None:
        return cached
    if starts is None:
        rng = np.random.default_rng(game.hash_size % (1 << 32))
        starts = [int(x) for x in rng.integers(0, max(1, game.hash_size - width), 16)]
    hashes = np.concatenate([np.arange(lo, min(game.hash_size, lo + min(width, 256)))
                             for lo in starts]).astype(np.int64)
    share = max(orbit_share(game, hashes), 1e-12)
    _SHARES[_sample_key(game)] = share
    return share


@dataclass(frozen=True)
class Positions:
    count: float  # positions a solve stores (orbits under symmetry), estimated
    samples: int  # slots decided
    undecided: float  # share of the samples no search decided (counted as positions)


def position_share(game: Game, symmetry: bool | None = None) -> Positions | None:
    """The positions a solve of `game` stores, decided on random slots by a backward search to
    the start (solver/kernels/reachable.py); under symmetry each position found counts
    1 / its orbit, as a solve stores one of each orbit. None for a game without un-moves
    or of fewer than COUNTED slots."""
    plain = game_of(game)
    sym = game.symmetry if symmetry is None else symmetry
    key = (_sample_key(plain), bool(sym))
    if key in _POSITIONS:
        return _POSITIONS[key]
    if not plain.has_parents or plain.hash_size < COUNTED:
        return None
    from solver.kernels.codegen import kernels

    k = kernels(plain.module, "solver.kernels.reachable")
    rng = np.random.default_rng(plain.hash_size % (1 << 32) + 1)
    n = min(REACH_SAMPLES, plain.hash_size)
    hashes = (np.arange(n, dtype=np.int64) if n == plain.hash_size
              else rng.integers(0, plain.hash_size, n).astype(np.int64))
    found = np.zeros(n, np.int64)
    done, t0 = 0, None
    while done < n and (t0 is None or time.perf_counter() - t0 < REACH_SECONDS):
        part = slice(done, min(n, done + 64))
        k.reach_count(plain.ctx, hashes[part], plain.start, found[part], plain.max_parents,
                      plain.max_children, plain.scratch_size, REACH_CAP)
        done = part.stop
        if t0 is None:  # the clock starts after the first batch, which may compile
            t0 = time.perf_counter()
    found = found[:done]
    hit = hashes[:done][found != 0]  # (undecided counts as a position: disk not short)
    if not sym:
        share = hit.size / done
    else:
        from solver.kernels.compact import orbit_share

        share = orbit_share(plain, hit) * hit.size / done if hit.size else 0.0
    p = Positions(plain.hash_size * share, done, float((found == k.UNDECIDED).sum()) / done)
    _POSITIONS[key] = p
    return p


_POSITIONS: dict[tuple, Positions] = {}


def per_of(game: Game, method: str, symmetry: bool | None = None) -> str:
    """What a solve's time follows (`work_base`): "position" or "slot"."""
    sym = game.symmetry if symmetry is None else symmetry
    counted = method == TIERED and not game.loopy and position_share(game, sym) is not None
    return "position" if counted else "slot"


def work_base(game: Game, method: str, s: Sample, symmetry: bool | None = None
              ) -> tuple[float, str]:
    """(seconds, "position" or "slot"): the sample's CPU time a slot times what the solve
    expands. A loop-free tiered solve expands the positions it reaches, so its time follows
    them, counted (Connect-4 has 2 slots a position at 7x4, 8.7 at 6x6: a base of slots
    made 6x6 look 4 times longer than its positions); the other methods, and a game whose
    positions are not counted, by the slots they visit. `symmetry` True on a game without
    it: the canonical positions, each dearer (SYMMETRY_COST)."""
    sym = game.symmetry if symmetry is None else symmetry
    if per_of(game, method, sym) == "position":
        cost = SYMMETRY_COST if sym and not game.symmetry else 1.0
        return position_share(game, sym).count * s.seconds_per_slot * cost, "position"
    base = s.base(game)
    if sym and not game.symmetry:
        base *= canonical_share(game) * SYMMETRY_COST
    return base, "slot"


# -- what this machine measured ----------------------------------------------------------
def _speed_file() -> Path:
    from solver.kernels.codegen import cache_dir

    return cache_dir().parent / "speed.json"


def _measured() -> dict:
    try:
        data = json.loads(_speed_file().read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _key(game: Game, method: str, symmetry: bool | None = None) -> str:
    on = game.symmetry if symmetry is None else symmetry
    return f"factor:{method}" + ("+symmetry" if on else "")


def default_factor(game: Game, method: str, per: str = "slot") -> float:
    if per == "position":
        return POSITION_FACTOR[method]
    loopy = method in (TIERED, "bottomup") and game.loopy
    return DEFAULT_FACTOR[method + ("-loopy" if loopy else "")]


def factor(game: Game, method: str, symmetry: bool | None = None
           ) -> tuple[float, float, str | None]:
    """(CPU seconds per second of the sample's base, CPU seconds per wall second, the
    variant they were measured on, or None for the defaults). A part of a solve (a run
    stopped or resumed) is trusted as far as the share of the work it did, the default
    for the rest, as the ETA blends its rate (runtime/progress.blend): a solve's first
    tasks are no fair sample of it (Nine Men's Morris's first 6.5%, small placement
    tiers, measured a factor 5.8 times below what its whole solve takes). A factor
    measured on another base (`work_base`: positions or slots) is not used."""
    per = per_of(game, method, symmetry)
    seen = _measured().get(game.name, {})
    got = seen.get(_key(game, method, symmetry)) if isinstance(seen, dict) else None
    if isinstance(got, dict) and got.get("per", "slot") != per:
        got = None
    default = default_factor(game, method, per)
    if isinstance(got, dict) and all(isinstance(got.get(k), (int, float)) and got[k] > 0
                                     for k in ("factor", "parallel")):
        share = got.get("share", 1.0)
        share = min(1.0, max(0.0, float(share))) if isinstance(share, (int, float)) else 1.0
        where = str(got.get("variant", "?"))
        if share < 1.0:
            where += f", {share:.1%} of it measured, the rest at the default factor"
        k = share * float(got["factor"]) + (1 - share) * default
        return k, float(got["parallel"]), where
    return default, PARALLEL[method], None


def overhead(game: Game, method: str) -> float:
    """CPU seconds of a solve besides its positions: start-up, and per tier (counted where
    the tier list is already built: a huge one takes minutes to build)."""
    tiers = game.known_tiers() if method == TIERED else None
    return START.get(method, START_STORE) + PER_TIER * (len(tiers) if tiers else 0)


def cores_for(threads: int, own: float = 0.0) -> float:
    """Cores `threads` busy threads get now: all they ask for (up to the machine's) on an
    idle machine, their share of the cores when other work keeps them busy (the load
    average, less `own`: the threads of this process counted in it)."""
    cores = os.cpu_count() or 1
    try:
        load = max(0.0, os.getloadavg()[0] - own)
    except (OSError, AttributeError):
        load = 0.0
    return max(0.1, min(threads, cores * threads / max(threads, load + threads)))


def record_speed(game: Game, method: str, seconds: float, cpu: float | None = None,
                 share: float = 1.0) -> None:
    """Remember this solve's CPU time against its timed sample (the factor) and against
    its wall time (the parallelism), from this machine's largest solve of the game with
    this method: a small variant's solve is mostly start-up and would make a big one look
    long. `share`: the part of the whole solve this run did (a resumed or stopped tiered
    solve), recorded after PART_MEASURED seconds: a solve too long for one sitting still
    measures its plan (Bagh-Chal 5x5's was 2-3x short, from its 4x4's 2 s). `cpu` None (a
    cluster's workers): nothing is recorded. Nor is the solve of a class other than the
    registered game's (a test's sub-game from a late start visits a sliver of the hash:
    Morris Six's made the full game's plan 15 times too short)."""
    s = _SAMPLES.get(_sample_key(game))
    if seconds < (MIN_MEASURED if share >= 1.0 else PART_MEASURED) or cpu is None \
            or s is None or s.base(game) <= 0 or not 0.0 < share <= 1.0:
        return
    base, per = work_base(game, method, s)
    if not _named_class(game):
        return
    data = _measured()
    seen = data.setdefault(game.name, {})
    if not isinstance(seen, dict):
        seen = data[game.name] = {}
    key = _key(game, method)
    old = seen.get(key)
    if isinstance(old, dict) and isinstance(old.get("slots"), int) and (
            old["slots"] > game.hash_size):
        return
    if share < 1.0 and isinstance(old, dict) and old.get("slots") == game.hash_size and (
            isinstance(old.get("seconds"), (int, float)) and old["seconds"] > seconds):
        return  # a longer measure of this game stands
    work = max(cpu - overhead(game, method) * share, 0.1 * cpu)
    parallel = cpu / seconds
    from solver.runtime.parallel import threads

    busy = cores_for(threads(), own=min(parallel, threads())) < 0.9 * min(
        threads(), os.cpu_count() or 1)
    if busy:  # a machine busy with other work: not the solve's own parallelism
        parallel = old.get("parallel") if isinstance(old, dict) else None
        parallel = parallel if isinstance(parallel, (int, float)) else PARALLEL[method]
    seen[key] = {"factor": round(work / (base * share), 4), "per": per,
                 "parallel": round(max(1.0, parallel), 3), "slots": int(game.hash_size),
                 "variant": game.variant_key, "seconds": round(seconds, 2),
                 "cpu_seconds": round(cpu, 2), "share": round(share, 4)}
    _write_measured(data)


@dataclass(frozen=True)
class StoredDisk:
    per_slot: float  # bytes per hash slot its solve visited
    per_position: float | None  # bytes per stored position (where the database counts them)
    variant: str


def stored_disk(game: Game, root=None) -> StoredDisk | None:
    """The bytes on disk of the largest finished database of this game under `root` on
    this machine (its files' sizes), per slot its solve visited and per position it
    stores."""
    from solver.storage.database import default_root

    try:
        base = Path(str(root if root is not None else default_root())) / game.name
        dirs = list(base.iterdir()) if base.is_dir() else []
    except OSError:
        return None
    best = None
    for d in dirs:
        try:
            attrs = json.loads((d / "zarr.json").read_text()).get("attributes", {})
        except (OSError, ValueError):
            continue
        n = attrs.get("hash_size")
        if not attrs.get("complete") or not isinstance(n, int) or n <= 0:
            continue
        if best is None or n > best[0]:
            best = (n, d, attrs)
    if best is None:
        return None
    n, d, attrs = best
    try:
        disk = sum(f.stat().st_size for f in d.rglob("*") if f.is_file())
    except OSError:
        return None
    # a database with symmetry holds the canonical slots only (the rest compress to nothing)
    visited = n * (canonical_share(game) if attrs.get("symmetry") and game.has_symmetry else 1)
    stored = attrs.get("positions")
    per_position = disk / stored if isinstance(stored, int) and stored > 0 else None
    return StoredDisk(disk / max(1.0, visited), per_position,
                      str(attrs.get("variant_key") or d.name))

def assumed_rate(game: Game | type[Game], method: str) -> float:
    if method == TIERED:
        return TIERS_RATE[bool(game.loopy)]
    return ASSUMED_RATE[method]


def _write_measured(data: dict) -> None:
    path = _speed_file()
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the estimates their accuracy


# -- compiling ----------------------------------------------------------------------------
# CPU seconds a method's first solve of a game spends compiling its kernels where this
# machine measured none (2 cores here, from a cold cache: 30 to 308 s, Nine Men's Morris 177)
DEFAULT_COMPILE = {"dfs": 30.0, "bottomup": 40.0, "retrograde": 60.0, TIERED: 120.0}
TEMPLATES = {"dfs": "solver.kernels.dfs", "bottomup": "solver.kernels.bottomup",
             "retrograde": "solver.kernels.retrograde", TIERED: "solver.kernels.tiers"}


def compile_seconds(game: Game, method: str) -> float:
    """Seconds a solve of `game` by `method` spends compiling kernels first: 0 where
    numba's cache holds them, else what this machine took last time (`record_compile`),
    else DEFAULT_COMPILE."""
    from solver.kernels.codegen import compiled
    from solver.kernels.numbering import solve_module

    if method not in TEMPLATES or compiled(solve_module(game), TEMPLATES[method]):
        return 0.0
    seen = _measured().get(game.name, {})
    got = seen.get(_key(game, method).replace("factor:", "compile:")) if isinstance(
        seen, dict) else None
    return float(got) if isinstance(got, (int, float)) and got > 0 else \
        DEFAULT_COMPILE[method]


def record_compile(game: Game, method: str, seconds: float) -> None:
    """Remember how long a solve's kernels took to compile (a load from the cache, under
    a second, is no compile)."""
    if seconds < 1.0 or not _named_class(game):
        return
    data = _measured()
    seen = data.setdefault(game.name, {})
    if not isinstance(seen, dict):
        seen = data[game.name] = {}
    seen[_key(game, method).replace("factor:", "compile:")] = round(seconds, 1)
    _write_measured(data)


def _named_class(game: Game) -> bool:
    """Whether the game's class is the one its name stands for: a game class names itself
    (games.register takes no other), where a test's sub-game inherits its parent's name."""
    return type(game_of(game)).__dict__.get("name") == game.name
