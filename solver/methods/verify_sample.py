"""`gsolve verify --sample N` and a solve's check of itself before `complete`: stored
positions re-derived from their children (solver/methods/verify.py has the design)."""


import numpy as np

from games.base import VALUE_WORDS, Game, GsolveError, shown_remoteness
from solver.kernels.codegen import kernels
from solver.kernels.numbering import index_attrs
from solver.methods.verify_report import (
    TEMPLATE,
    Problem,
    Report,
    position,
    problem_text,
    round_trip,
    word,
)
from solver.runtime.parallel import call, executor
from solver.runtime.parallel import threads as _pool_threads
from solver.runtime.progress import Progress
from solver.storage.database import (
    DamagedDatabase,
    Database,
    command,
    partial_path,
    remoteness_dtype,
)

PER_CHUNK = 1000  # --sample: positions taken from each chunk read for them


SELF_CHUNKS = 4  # a solve's check: chunks its 10,000 positions come from (besides the start)


def _records(keys: np.ndarray, chunk: int, dtype, read_many) -> tuple[np.ndarray, np.ndarray]:
    """Value and remoteness of the sorted hashes `keys`, each chunk read once:
    read_many(chunk indices) yields (c, value, remoteness)."""
    kv = np.zeros(keys.size, np.uint8)
    kr = np.zeros(keys.size, dtype)
    cid = keys // chunk
    firsts = np.flatnonzero(np.diff(cid, prepend=-1))
    ends = np.append(firsts[1:], keys.size)
    where = {int(cid[f]): (int(f), int(e)) for f, e in zip(firsts, ends, strict=True)}
    for c, v, r in read_many(sorted(where)):
        f, e = where[c]
        at = keys[f:e] - c * chunk
        kv[f:e] = v[at]
        kr[f:e] = r[at]
    return kv, kr


def _listed(game: Game, hs: np.ndarray, chunk: int, dtype, read_many):
    """Each position of hs (sorted, distinct) re-derived from its children's stored records:
    (keys, kv, kr, codes, wanted, child); solver.kernels.verify.check_picks."""
    k = kernels(game.module, TEMPLATE)
    mc, ss = game.max_children, game.scratch_size
    out = np.empty(max(1, hs.size * mc), np.int64)
    m = call(k.children_of, game.ctx, hs, out, mc, ss)
    keys = np.unique(np.concatenate((hs, out[:m])))
    del out
    kv, kr = _records(keys, chunk, dtype, read_many)
    codes, wanted, child = (np.zeros(hs.size, np.int64) for _ in range(3))
    call(k.check_picks, game.ctx, hs, keys, kv, kr, game.puzzle, mc, ss, codes, wanted, child)
    return keys, kv, kr, codes, wanted, child


def _listed_problems(game: Game, hs, keys, kv, kr, codes, wanted, child):
    """(text, position, hash) of each listed position with a problem."""
    for i in np.flatnonzero(codes).tolist():
        h, c = int(hs[i]), int(codes[i])
        x = int(np.searchsorted(keys, h))
        pos = position(game, h)
        if c == 8:
            cpos = position(game, int(child[i]))
            yield (f"{cpos}: a move from the stored {pos} leads here, but it is not stored",
                   cpos, int(child[i]))
        else:
            text = problem_text(c, int(kv[x]), int(kr[x]), int(wanted[i]), game.puzzle)
            yield f"{pos}: {text}", pos, h


def _start_and_children(game: Game) -> np.ndarray:
    k = kernels(game.module, TEMPLATE)
    out = np.empty(game.max_children, np.int64)
    m = call(k.children_of, game.ctx, np.array([game.start], np.int64), out,
             game.max_children, game.scratch_size)
    return np.unique(np.concatenate(([game.start], out[:m])))


def by_sample(game: Game, db: Database, report: Report, bad_chunks: list, count: int,
            seed: int, show: int, sample: int, progress: Progress) -> None:
    report.mode = "sample"
    chunk, dtype = db._chunk, db.remoteness_array.dtype
    seen: set[int] = set()

    def read(c):  # on the pool: a damaged chunk reads as zeros, named once
        seen.add(c)
        try:
            return db.read_chunk(c)
        except DamagedDatabase as e:
            if (c, e.what) not in bad_chunks:
                bad_chunks.append((c, e.what))
            m = min(db.size, (c + 1) * chunk) - c * chunk
            return np.zeros(m, np.uint8), np.zeros(m, dtype)

    def read_many(cs):  # (c, value, remoteness) in order, a few chunks decoded at a time
        cs = list(cs)
        step = 4 * _pool_threads()
        for i in range(0, len(cs), step):
            for c, (v, r) in zip(cs[i:i + step], executor().map(read, cs[i:i + step]),
                                 strict=True):
                yield c, v, r

    rng = np.random.default_rng(seed)
    take = min(db.nchunks, max(1, -(-count // PER_CHUNK))) if count > 0 else 0
    chosen = np.sort(rng.choice(db.nchunks, size=take, replace=False)).tolist()
    each = -(-count // max(1, take))
    picks = []
    for c, v, _ in read_many(chosen):
        stored = np.flatnonzero(v)
        if stored.size:
            picks.append(c * chunk + rng.choice(stored, size=min(each, stored.size),
                                                 replace=False))
        progress.fraction(len(picks) / (take + 1))
    chosen_ones = np.concatenate(picks) if picks else np.empty(0, np.int64)
    chosen_ones = rng.permutation(chosen_ones)[:count]
    hs = np.unique(np.concatenate((_start_and_children(game), chosen_ones))).astype(np.int64)
    progress.update("re-derive", 1, f"{hs.size:,} positions")

    keys, kv, kr, codes, wanted, child = _listed(game, hs, chunk, dtype, read_many)
    report.derived = int(hs.size)
    report.chunks = len(seen)
    for _c, text in bad_chunks:
        report.add(text)
    for text, pos, h in _listed_problems(game, hs, keys, kv, kr, codes, wanted, child):
        report.sound = False
        report.problems += 1
        if len(report.details) < show + len(bad_chunks):
            report.details.append(Problem(text, pos, h))
    x = int(np.searchsorted(keys, game.start))
    sv, sr = int(kv[x]), int(kr[x])
    for key, v in {"start_value": VALUE_WORDS.get(sv, str(sv)),
                   "start_remoteness": shown_remoteness(sv, sr, game.puzzle),
                   **index_attrs(game)}.items():
        if db.attrs.get(key) != v:
            report.add(f"attribute {key} is {db.attrs.get(key)!r}, the arrays give {v!r}")
    longest = db.attrs.get("max_remoteness")
    if isinstance(longest, int) and dtype != remoteness_dtype(longest):
        report.add(f"remoteness is stored as {dtype}, not the smallest type "
                   f"({remoteness_dtype(longest)}) for the largest remoteness {longest}")
    stored = hs[kv[np.searchsorted(keys, hs)] != 0]
    round_trip(game, report, rng.permutation(stored), sample)


def check_solved(game: Game, group, attrs: dict, sample: int = 10_000,
                 seed: int = 0) -> str | None:
    """What is wrong with the arrays of a solve's store `group` (value, remoteness, as
    `game` numbers them) against its tally `attrs` (positions, values, start_value,
    start_remoteness), or None: the counts of every value chunk, the start, and `sample`
    stored positions (from SELF_CHUNKS random chunks) with the start and its children
    re-derived from their children's stored records.

    Decoding is its cost (3 ms a chunk of 2^20 positions): the sample's chunks are read
    first, then every value chunk once, on the pool, counted and, where the sample's
    positions or their children lie, read with its remoteness."""
    from solver.storage.chunks import chunk_array

    va, ra = chunk_array(group["value"]), chunk_array(group["remoteness"])
    n, chunk = int(va.shape[0]), int(va.chunks[0])
    dtype = ra.dtype
    nchunks = -(-n // chunk)
    k = kernels(game.module, TEMPLATE)
    mc, ss = game.max_children, game.scratch_size
    pool = executor()

    def read(arr, c):
        if hasattr(arr, "read_chunk"):
            return arr.read_chunk(c)
        return arr[c * chunk:min(n, (c + 1) * chunk)]

    # the sample: stored positions of a few random chunks, the start and its children
    rng = np.random.default_rng(seed)
    chosen = rng.choice(nchunks, size=min(nchunks, SELF_CHUNKS), replace=False).tolist()
    held = dict(zip(chosen, pool.map(lambda c: (read(va, c), read(ra, c)), chosen),
                    strict=True))
    hs = [_start_and_children(game)]
    each = -(-sample // max(1, len(chosen)))
    for c in chosen:
        stored = np.flatnonzero(held[c][0])
        if stored.size:
            hs.append(c * chunk + rng.choice(stored, size=min(each, stored.size),
                                             replace=False))
    hs = np.unique(np.concatenate(hs)).astype(np.int64)
    out = np.empty(max(1, hs.size * mc), np.int64)
    m = call(k.children_of, game.ctx, hs, out, mc, ss)
    keys = np.unique(np.concatenate((hs, out[:m])))
    del out
    cid = keys // chunk
    firsts = np.flatnonzero(np.diff(cid, prepend=-1))
    where = dict(zip(cid[firsts].tolist(), zip(firsts.tolist(),
                                                np.append(firsts[1:], keys.size).tolist(),
                                                strict=True), strict=True))
    kv, kr = np.zeros(keys.size, np.uint8), np.zeros(keys.size, dtype)

    def counted(c):  # every value chunk once; with its remoteness where the sample is
        v, r = held[c] if c in held else (read(va, c), None)
        got = np.zeros(256, np.int64)
        k.count_values(v, got)
        if c in where:
            f, e = where[c]
            at = keys[f:e] - c * chunk
            kv[f:e] = v[at]
            kr[f:e] = (read(ra, c) if r is None else r)[at]
        return got

    counts = np.zeros(256, np.int64)
    for got in pool.map(counted, range(nchunks)):
        counts += got
    held.clear()
    have = {VALUE_WORDS[v]: int(counts[v]) for v in (4, 1, 3, 2) if counts[v]}
    if counts[5:].any():
        v = int(np.flatnonzero(counts[5:])[0]) + 5
        return f"value code {v} is stored ({int(counts[v]):,} times), which is no value"
    if have != attrs.get("values") or int(counts[1:5].sum()) != attrs.get("positions"):
        return (f"the stored values count {_counts(have)}, the solve counted "
                f"{_counts(attrs.get('values') or {})}")
    x = int(np.searchsorted(keys, game.start))
    sv, sr = int(kv[x]), int(kr[x])
    if not 1 <= sv <= 4:
        return f"the start is not stored (value code {sv})"
    said = (attrs.get("start_value"), attrs.get("start_remoteness"))
    if (VALUE_WORDS[sv], shown_remoteness(sv, sr, game.puzzle)) != said:
        return (f"the start is stored as {word(sv, sr, game.puzzle)}, the solve said "
                f"{said[0]}" + ("" if said[1] is None else f" in {said[1]}"))
    codes, wanted, child = (np.zeros(hs.size, np.int64) for _ in range(3))
    call(k.check_picks, game.ctx, hs, keys, kv, kr, game.puzzle, mc, ss, codes, wanted, child)
    for text, _pos, _h in _listed_problems(game, hs, keys, kv, kr, codes, wanted, child):
        return f"{text} (one of {hs.size:,} positions sampled)"
    return None


def _counts(values: dict) -> str:
    return ", ".join(f"{w} {values[w]:,}" for w in ("win", "lose", "tie", "draw")
                     if w in values) or "nothing"


def store_check(game: Game, path, tiered: bool):
    """The check a solve's store passes before it is marked complete (`check` of
    solver.storage.writing.write_arrays and solver.storage.writing.PartialStore.finish):
    check_solved, a GsolveError of one line when it fails. What was there stays: the
    unfinished tiered store, or the database a monolithic solve would have replaced."""

    def check(group, attrs: dict) -> None:
        what = check_solved(game, group, attrs)
        if what is None:
            return
        if tiered:
            kept = f"the unfinished solve is kept at {partial_path(path)}; "
        elif (path / "zarr.json").exists():
            kept = f"the database that was there is kept ({path}); "
        else:
            kept = "nothing was stored; "
        raise GsolveError(
            f"the solve of {game.describe()} failed its check before it was marked "
            f"complete: {what}; {kept}solve it again with "
            f"`gsolve {command(game, path)} --force`")

    return check
