"""The tier engine at scale: task plans, the memory budget, re-run tasks, finer Connect-4
tiers and `gsolve plan`, checked against counts derived by hand and against other
methods' bytes."""

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from games import get_game
from games.base import GsolveError
from solver.command.cli import main
from solver.engine import cached_array, manager, memory, plan, worker
from solver.engine.chunk_cache import ROOM, ChunkCache
from solver.engine.writer import Writer
from solver.methods.solve import solve
from solver.storage.database import (
    CHUNK,
    Database,
    create_array,
    group_path,
    remoteness_dtype,
)
from solver.storage.writing import PartialStore


def arrays(game, root):
    db = Database.open(game, root)
    return db.value_array[:], db.remoteness_array[:]


@pytest.mark.parametrize("name,variant", [("connect4", "width=5,height=4"),
                                          ("hexapawn", "width=4,height=4"),
                                          ("baghchal", None)])
def test_plan_covers_the_hash_and_keeps_loopy_tiers_whole(name, variant):
    game = get_game(name, variant)
    p = plan.plan(game, 1 << 20, chunk=CHUNK // 16, max_task=CHUNK // 8)
    assert p.cuts[0] == 0 and p.cuts[-1] == game.hash_size
    assert all(a < b for a, b in itertools.pairwise(p.cuts))
    assert len(p.tasks) > 1
    where = {}
    for task in p.tasks:
        for t, lo, hi, loopy in task.pieces:
            where.setdefault(t, []).append(task.index)
            if loopy:  # a loopy tier's sweeps need all of it: never split
                assert (lo, hi) == (p.tiers[t].start, p.tiers[t].stop)
    rank = {i: k for k, i in enumerate(p.run_order)}
    for task in p.tasks:
        for t, _, _, _ in task.pieces:
            for c in p.tiers[t].children:
                for j in where.get(c, []):
                    if j != task.index:  # children run first, and are waited for
                        assert j in p.deps[task.index] and rank[j] < rank[task.index]


def _levels_apart(p) -> dict[int, list[int]]:
    """Tasks by level, checking that a task holds one level, or a range of levels that no
    other task holds (so that deps only go down); the plan's order is acyclic."""
    by_level: dict[int, list[int]] = {}
    for task in p.tasks:
        levels = set(task.levels)
        assert levels == set(range(min(levels), max(levels) + 1))
        for v in levels:
            by_level.setdefault(v, []).append(task.index)
    for task in p.tasks:
        if len(set(task.levels)) > 1:
            assert all(by_level[v] == [task.index] for v in task.levels)
    assert sorted(p.run_order) == list(range(len(p.tasks)))
    return by_level


def test_interleaved_tiers_are_planned_by_level():
    """Bagh-Chal's hash puts the finished tiers of every stage between the others, so hash
    ranges of mixed tiers need each other both ways. The plan then cuts where the tiers'
    depth changes, instead of merging the cycle into one task of the whole hash (which
    made the standard game refuse `--memory 6` for a 5,141 GiB task while `gsolve plan`
    said 134 MiB). Its largest task is then its largest loopy tier, as `gsolve plan` says."""
    from solver.command.plan import make_plan

    game = get_game("baghchal", "size=5,tigers=4,goats=6,captures=2")
    p = plan.plan(game, 1 << 30)
    assert len(p.tasks) > 10 and not any(p.deps[i] and i in p.deps[i] for i in range(len(p.tasks)))
    by_level = _levels_apart(p)
    assert max(len(t) for t in by_level.values()) > 1  # a level cut into parts
    big = max(range(len(p.tasks)), key=p.working_set)
    (t, lo, hi, loopy), = p.tasks[big].pieces
    loopies = [i for i, tier in enumerate(p.tiers) if i in tier.children]
    assert loopy and t == max(loopies, key=lambda i: p.tiers[i].size)
    task = p.tasks[big]  # `gsolve plan` gives it at full speed, past the limit or not
    kids = sum(e - s for s, e in task.segments) - task.size
    at_full_speed = memory.strategy(game, task.size, kids).bytes
    assert make_plan(game)["largest_task_bytes"] == at_full_speed >= p.working_set(big)


@pytest.mark.parametrize("spread", [2, 3])
def test_a_cluster_plan_cuts_each_level_into_equal_parts_for_its_workers(spread):
    """With `spread` workers, a task holds one level of the tier graph, and a level cut at
    all is cut into a multiple of `spread` parts of about equal size (Connect-4 5x5: its
    levels are piece counts, C(25, n)-ish slots each), so a level's tasks, which never need
    each other, keep every worker busy; the plan still covers the hash in order."""
    game = get_game("connect4", "width=5,height=5")
    chunk = CHUNK // 16
    p = plan.plan(game, 1 << 30, chunk=chunk, max_task=game.hash_size // 32,
                          spread=spread)
    assert p.cuts[0] == 0 and p.cuts[-1] == game.hash_size
    by_level = _levels_apart(p)
    merged = [t for t in p.tasks if len(set(t.levels)) > 1]
    # the last moves (levels of a few positions each) are one task, not a task each
    assert len(merged) == 1 and max(merged[0].levels) == max(by_level)
    assert 0 < merged[0].size < 2 * spread * chunk
    split = 0
    for level, tasks in by_level.items():
        sizes = [p.tasks[i].size for i in tasks]
        total = sum(sizes)
        if total >= 2 * spread * chunk:
            assert len(sizes) % spread == 0, (level, sizes)
            split += 1
            # Connect-4's tiers are loop-free, cut at any chunk boundary: each part ends at
            # the tier or chunk boundary nearest its share
            assert max(sizes) - min(sizes) <= 2 * chunk, sizes
        else:
            assert len(sizes) == 1  # too small to share: one task
    assert split >= 10
    one = plan.plan(game, 1 << 30, chunk=chunk, max_task=game.hash_size // 32)
    assert any(len(set(t.levels)) > 1 for t in one.tasks)  # the threaded plan mixes levels


def test_small_tasks_write_the_same_bytes_as_dfs(tmp_path):
    game = get_game("connect4", "width=4,height=4,connect=3")
    solve(game, "dfs", root=tmp_path / "ref")
    path = group_path(tmp_path / "tiers", game)
    summary = manager.solve_into(game, path, fresh=True, max_task=4096)
    assert summary["tasks"] > 40
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "tiers"),
                    strict=True):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("limit", [0, 1])  # reach in a window of child tiers / sparse
def test_a_task_run_twice_writes_the_same_bytes(tmp_path, limit):
    """What a retried cluster task does: reach and solve again over their own output."""
    game = get_game("connect4", "width=4,height=4,connect=3")
    solve(game, "dfs", root=tmp_path / "ref")
    path = group_path(tmp_path / "tiers", game)
    store = PartialStore(path, game, "tiers", remoteness_dtype(game.max_remoteness), True)
    create_array(store.group, worker.REACHED, (game.hash_size,), np.uint8)
    p = plan.plan(game)
    for phase, order in (("reach", p.run_order[::-1]), ("solve", p.run_order)):
        for i in order:
            for _ in range(2):
                if phase == "reach":
                    worker.reach(game, store.group, p.tasks[i], limit=limit)
                else:
                    worker.solve(game, store.group, p.tasks[i])
    ref = arrays(game, tmp_path / "ref")
    assert np.array_equal(store.value[:], ref[0])
    assert np.array_equal(store.remoteness[:].astype(ref[1].dtype), ref[1])


def test_a_budget_too_small_is_refused_up_front_with_the_number(tmp_path):
    game = get_game("connect4", "width=5,height=4")
    path = group_path(tmp_path, game)
    with pytest.raises(GsolveError, match=r"needs at least [0-9.]+ GiB .* raise --memory"):
        manager.solve_into(game, path, memory=1 << 20)
    assert not (path / "zarr.json").exists()


def test_connect4_tiers_are_height_vectors():
    """6x5 has 6^6 height vectors; a tier holds C(n, ceil(n/2)) colourings of its n pieces
    and its children add a piece to one column that is not full."""
    game = get_game("connect4", "width=6,height=5")
    tiers = game.tiers()
    assert len(tiers) == 6 ** 6
    by_label = {t.label.split("heights ")[1]: i for i, t in enumerate(tiers)}
    for heights in [(0,) * 6, (5, 5, 5, 5, 5, 4), (1, 2, 3, 4, 5, 0), (5,) * 6]:
        t = tiers[by_label["".join(map(str, heights))]]
        n = sum(heights)
        assert t.size == math.comb(n, (n + 1) // 2)
        kids = {tiers[c].label.split("heights ")[1] for c in t.children}
        want = {"".join(map(str, heights[:c] + (heights[c] + 1,) + heights[c + 1:]))
                for c in range(6) if heights[c] < 5}
        assert kids == want


def test_plan_command(capsys):
    assert main(["plan", "connect4", "-V", "width=6,height=5", "--json"]) == 0
    p = json.loads(capsys.readouterr().out)
    assert p["tiers"] == 6 ** 6 and p["loopy_tiers"] == 0
    assert p["hash_slots"] == get_game("connect4", "width=6,height=5").hash_size
    # the largest task is a chunk and its child ranges, far below a byte per hash slot
    assert p["worker_memory_bytes"] < p["hash_slots"] / 4
    assert main(["plan", "hanoi"]) == 2
    assert "does not define tiers" in capsys.readouterr().err


def test_chunk_cache_packs_sparse_chunks_and_gives_back_the_same_bytes():
    """A sparse chunk is held packed (far smaller) once the cache is past ROOM, as it is
    before, and a dense one as it is; both read back exactly, a changed chunk put back is
    what later reads see, and eviction counts the bytes held."""
    from solver.engine.chunk_cache import ROOM

    rng = np.random.default_rng(5)
    sparse = np.zeros(1 << 16, np.uint8)
    sparse[rng.choice(sparse.size, 1000, replace=False)] = rng.integers(1, 200, 1000)
    dense = rng.integers(0, 200, 1 << 16).astype(np.uint8)
    roomy = ChunkCache(1 << 20)
    roomy.put(("value", 0), sparse)
    assert roomy.used == sparse.nbytes  # room for it as it is: no unpacking on reads
    held = ChunkCache(dense.nbytes + sparse.nbytes // 4)
    held.put(("value", 1), dense)
    assert held.used + sparse.nbytes > ROOM * held.capacity
    held.put(("value", 0), sparse)
    assert held.used < dense.nbytes + sparse.nbytes // 8
    assert np.array_equal(held.get(("value", 0)), sparse)
    assert np.array_equal(held.get(("value", 1)), dense)
    x = held.get(("value", 0))
    x[:10] = 7
    held.put(("value", 0), x)
    y = held.get(("value", 1))
    y[:10] = 0
    held.put(("value", 1), y)
    assert np.array_equal(held.get(("value", 0))[:11], [7] * 10 + [sparse[10]])
    assert np.array_equal(held.get(("value", 1)), np.r_[np.zeros(10, np.uint8), dense[10:]])
    small = ChunkCache(dense.nbytes + 100)
    small.put(("value", 0), dense)
    small.put(("value", 1), dense)  # the older goes
    assert ("value", 0) not in small and ("value", 1) in small
    assert small.used == dense.nbytes


def test_a_chunk_too_big_to_cache_drops_its_older_copy():
    """A newer copy that does not fit must not leave the older one to be read: a tight
    --memory once wrote complete databases of stale values this way (issue 44)."""
    rng = np.random.default_rng(6)
    sparse = np.zeros(1 << 16, np.uint8)
    sparse[:100] = 1
    dense = rng.integers(1, 200, 1 << 16).astype(np.uint8)
    held = ChunkCache(dense.nbytes // 2)  # a packed sparse chunk fits, a dense one not
    held.put(("value", 0), sparse)
    assert ("value", 0) in held
    held.put(("value", 0), dense)
    assert ("value", 0) not in held and held.get(("value", 0)) is None
    assert held.used == 0


def test_a_chunk_raised_in_place_is_never_changed_under_the_writer(tmp_path):
    """push_window raises a cached chunk in place, but only one that no queued write
    holds: while a write of it waits, a raise or a partial write changes a copy, so each
    queued write reaches the store as it was given, and the store ends with all of them."""
    import threading

    import zarr

    from solver.storage.chunks import chunk_array

    ch, key = 1 << 16, ("reached", 1)
    group = zarr.open_group(str(tmp_path / "g"), mode="w")
    store = chunk_array(create_array(group, "reached", (3 * ch,), np.uint8, chunk=ch))
    gate = threading.Event()
    writer = Writer(depth=8)
    writer.submit(gate.wait, 5)  # the writes below wait in the queue behind this
    arr = cached_array.CachedArray(store, "reached", ChunkCache(1 << 24), writer, fresh=True)
    first = np.random.default_rng(7).integers(1, 100, ch).astype(np.uint8)  # dense
    marks = np.full(100, 200, np.uint8)
    arr[ch:2 * ch] = first
    queued = arr.cache.held(key)
    arr.raise_chunk(1, [(ch + 10, marks)])  # a write of the chunk is queued: a copy
    raised = arr.cache.held(key)
    assert raised is not queued and np.array_equal(queued, first)
    arr.settle(lambda: None)  # held back: the next task may raise it again
    arr.raise_chunk(1, [(ch + 500, marks)])
    assert arr.writer.queued == {key: 1}  # the first write only: both raises held back
    assert (raised[10:110] == 200).all() and np.array_equal(queued, first)
    arr.settle(lambda: None)
    arr.settle(lambda: None)  # a task that did not raise it: its write is queued now
    again = arr.cache.held(key)
    arr[ch + 1000:ch + 1010] = np.zeros(10, np.uint8)  # part of it, still queued: a copy
    assert arr.cache.held(key) is not again and (again[1000:1010] != 0).all()
    gate.set()
    writer.wait()
    mine = arr.cache.held(key)  # no write of it queued now: raised in place
    arr.raise_chunk(1, [(ch + 2000, marks)])
    assert arr.cache.held(key) is mine
    arr.flush()
    writer.close()
    want = first.copy()
    for at in (10, 500, 2000):
        want[at:at + 100] = 200
    want[1000:1010] = 0
    assert np.array_equal(store[ch:2 * ch], want) and np.array_equal(arr[ch:2 * ch], want)
    assert not store[:ch].any() and not store[2 * ch:].any()


def test_a_sparse_chunk_raised_is_held_as_the_store_holds_it_once_written(tmp_path):
    """A raised chunk waits unpacked until its write is done; then a sparse one is held as
    the bytes the store wrote (not compressed again here) once the cache is past ROOM, and
    reads back exactly, a raise after that starting from them; below ROOM, and a dense one
    always, it stays as it is."""
    import zarr

    from solver.storage.chunks import chunk_array

    ch = 1 << 16
    group = zarr.open_group(str(tmp_path / "g"), mode="w")
    store = chunk_array(create_array(group, "reached", (3 * ch,), np.uint8, chunk=ch,
                                     scratch=True))
    roomy = cached_array.CachedArray(store, "reached", ChunkCache(1 << 24),
                              Writer(depth=8), fresh=True)
    roomy.raise_chunk(2, [(2 * ch + 10, np.full(100, 3, np.uint8))])
    roomy.flush()
    roomy.writer.close()
    assert isinstance(roomy.cache.data[("reached", 2)], np.ndarray)  # room: unpacked
    writer = Writer(depth=8)
    capacity = int(ch / ROOM) - 1  # one chunk fills it past ROOM
    arr = cached_array.CachedArray(store, "reached", ChunkCache(capacity), writer, fresh=True)
    marks = np.full(100, 3, np.uint8)
    arr.raise_chunk(0, [(10, marks)])
    assert arr.cache.held(("reached", 0)) is not None  # unpacked while its write waits
    arr.flush()
    writer.wait()
    packed = arr.cache.data[("reached", 0)]
    assert not isinstance(packed, np.ndarray)
    assert packed[0].tobytes() == (tmp_path / "g" / "reached" / "c" / "0").read_bytes()
    arr.raise_chunk(0, [(5000, marks)])
    dense = np.random.default_rng(8).integers(1, 9, ch).astype(np.uint8)
    arr.raise_chunk(1, [(ch, dense)])
    arr.flush()
    writer.close()
    assert isinstance(arr.cache.data[("reached", 1)], np.ndarray)
    want = np.zeros(ch, np.uint8)
    want[10:110] = want[5000:5100] = 3
    assert np.array_equal(arr[0:ch], want) and np.array_equal(store[0:ch], want)
    assert np.array_equal(arr[ch:2 * ch], dense) and np.array_equal(store[ch:2 * ch], dense)


def test_a_written_chunk_is_held_as_the_store_holds_it_once_written(tmp_path):
    """A solve's values are written a chunk at a time: a chunk written whole is held as
    it is (a copy, not the caller's queued array) until its write is done, then,
    sparse and past ROOM, as the bytes the store wrote (compressed once, on the writer's
    thread); a chunk written in part is merged into the cached one; all read back exactly."""
    import zarr

    from solver.storage.chunks import chunk_array

    ch = 1 << 16
    group = zarr.open_group(str(tmp_path / "g"), mode="w")
    store = chunk_array(create_array(group, "value", (3 * ch,), np.uint8, chunk=ch))
    writer = Writer(depth=8)
    arr = cached_array.CachedArray(store, "value", ChunkCache(int(ch / ROOM) - 1), writer,
                            fresh=True)
    data = np.zeros(ch + 100, np.uint8)
    data[::97] = 3
    arr[ch:2 * ch + 100] = data
    held = arr.cache.data[("value", 1)]  # as it is while its write waits, the cache's own
    assert isinstance(held, np.ndarray) and not np.shares_memory(held, data)
    want = data.copy()
    writer.wait()
    packed = arr.cache.data[("value", 1)]
    assert not isinstance(packed, np.ndarray)
    assert packed[0].tobytes() == (tmp_path / "g" / "value" / "c" / "1").read_bytes()
    arr[2 * ch + 50:2 * ch + 60] = np.full(10, 7, np.uint8)
    writer.close()
    want[ch + 50:ch + 60] = 7
    assert np.array_equal(arr[ch:2 * ch + 100], want)
    assert np.array_equal(store[ch:2 * ch + 100], want)


def test_the_write_queue_holds_at_most_its_bytes_and_always_one_job():
    """Queued writes keep their arrays: the queue is bounded by their bytes (the share of
    the budget the manager gives it), yet a job larger than that still runs."""
    import threading

    gate = threading.Event()
    w = Writer(depth=8, capacity=100)
    seen = []
    w.submit(lambda a: (gate.wait(5), seen.append(a.nbytes)), np.zeros(80, np.uint8))
    assert len(w.pending) == 1 and w.held == 80
    gate.set()
    w.submit(lambda a: seen.append(a.nbytes), np.zeros(80, np.uint8))  # waits for the first
    assert len(w.pending) == 1 and w.held == 80
    w.submit(lambda a: seen.append(a.nbytes), np.zeros(500, np.uint8))  # alone, too large
    assert len(w.pending) == 1 and w.held == 500
    w.close()
    assert seen == [80, 80, 500] and w.held == 0


def test_value_chunks_stay_cached_from_their_write_to_their_last_reader(tmp_path, monkeypatch):
    """Tasks a quarter chunk wide: every chunk is shared, and each must still leave the
    cache once the last task that reads it is solved (and the bytes stay the dfs ones)."""
    game = get_game("connect4", "width=5,height=4")
    solve(game, "dfs", root=tmp_path / "ref")
    caches = []
    init = ChunkCache.__init__

    def spy(self, capacity):
        init(self, capacity)
        caches.append(self)

    monkeypatch.setattr(ChunkCache, "__init__", spy)
    path = group_path(tmp_path / "tiers", game)
    summary = manager.solve_into(game, path, fresh=True, max_task=CHUNK // 4)
    assert summary["tasks"] > 8
    (held,) = caches
    assert held.hits > 0
    assert [k for k in held.data if k[0] in ("value", "remoteness")] == []
    assert all((r == 0).all() for r in held.readers.values())
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "tiers"),
                    strict=True):
        assert np.array_equal(x, y)


def _spans_by_bytes(a, gap):
    """nonzero_spans written the plain way, byte by byte."""
    spans = []
    for i in np.flatnonzero(a).tolist():
        if spans and i - (spans[-1][1] - 1) <= gap + 1:
            spans[-1][1] = i + 1
        else:
            spans.append([i, i + 1])
    return spans


@pytest.mark.parametrize("gap", [0, 1, 5, 7, 8, 9, 15, 16, 17, 63, 200])
def test_nonzero_spans_match_a_byte_by_byte_scan(gap):
    from solver.kernels.records import nonzero_spans

    rng = np.random.default_rng(gap)
    for n in (0, 1, 7, 8, 9, 64, 301, 5000):
        for density in (0.0, 0.002, 0.05, 0.5, 1.0):
            a = (rng.random(n) < density).astype(np.uint8) * rng.integers(1, 255, n).astype(
                np.uint8)
            for lo in (0, 3):  # an unaligned start, as a window part has
                part = a[lo:]
                st = np.empty(part.size // (gap + 1) + 1, np.int64)
                sp = np.empty_like(st)
                m = nonzero_spans(part, gap, st, sp)
                got = [[s, e] for s, e in zip(st[:m].tolist(), sp[:m].tolist(), strict=True)]
                assert got == _spans_by_bytes(part, gap), (n, density, lo)


def test_spans_found_in_blocks_join_across_their_edges():
    """marked_spans (nonzero_spans on the pool, block by block) gives the spans of one scan,
    runs that straddle a block's edge or lie within the gap of it joined."""
    from solver.engine.task import marked_spans

    gap, n = 1 << 16, 24 << 20
    edges = list(range(1 << 22, n, 1 << 22))  # its blocks' edges
    a = np.zeros(n, np.uint8)
    rng = np.random.default_rng(9)
    a[rng.choice(n, 300, replace=False)] = 1
    a[edges[0] - 5:edges[0] + 5] = 2  # a run across an edge
    a[edges[1] - gap // 2] = a[edges[1] + gap // 2 - 1] = 3  # a gap across an edge
    st, sp = marked_spans(a, gap)
    assert [[s, e] for s, e in zip(st.tolist(), sp.tolist(), strict=True)] == \
        _spans_by_bytes(a, gap)
    st, sp = marked_spans(np.zeros(10, np.uint8), gap)
    assert st.size == sp.size == 0


@pytest.mark.parametrize("seed", range(4))
def test_spans_looked_for_in_dirty_blocks_alone_are_those_of_a_whole_scan(seed):
    """push_window looks for marks only in the blocks the kernel flagged: over any flags
    that cover every mark, at any window offset, the spans are those of a whole scan."""
    from solver.engine.task import _dirty_pieces, marked_spans
    from solver.kernels.tiers import DIRTY

    rng = np.random.default_rng(seed)
    gap = [0, 9, 1 << 12, 1 << 16][seed]
    w, n = int(rng.integers(0, 3 << DIRTY)), int(rng.integers(1, 40 << DIRTY))
    if seed == 3:
        n = 9 << 20  # blocks of 4M slots on the pool
    win = np.zeros(w + n + 100, np.uint8)
    hits = w + rng.choice(n, int(rng.integers(0, 400)), replace=False)
    win[hits] = rng.integers(1, 255, hits.size)
    dirty = np.zeros((win.size >> DIRTY) + 1, np.uint8)
    dirty[hits >> DIRTY] = 1
    dirty[rng.choice(dirty.size, dirty.size // 4)] = 1  # flagged blocks without a mark
    part = win[w:w + n]
    st, sp = marked_spans(part, gap, _dirty_pieces(dirty, w, n))
    assert [[s, e] for s, e in zip(st.tolist(), sp.tolist(), strict=True)] == \
        _spans_by_bytes(part, gap)


def test_a_raised_chunk_is_written_once_its_run_of_raising_tasks_ends(tmp_path):
    """Consecutive reach tasks raise the same child chunks: each chunk's write waits until
    a task does not raise it (or HELD_TASKS tasks did), so it is written once, and a task
    is recorded only after the writes of every chunk it raised are queued; a solve stopped
    before that leaves it unrecorded, to run again."""
    import zarr

    from solver.storage.chunks import chunk_array

    ch = 1 << 12
    group = zarr.open_group(str(tmp_path / "g"), mode="w")
    store = chunk_array(create_array(group, "reached", (3 * ch,), np.uint8, chunk=ch))
    written, recorded = [], []
    write = store.write_chunk
    store.write_chunk = lambda c, x: (written.append(c), write(c, x))[1]
    writer = Writer(depth=8)
    arr = cached_array.CachedArray(store, "reached", ChunkCache(1 << 24), writer)

    def task(i, chunks):
        for c in chunks:
            arr.raise_chunk(c, [(c * ch + i, np.full(1, i + 1, np.uint8))])
        arr.settle(lambda: writer.submit(recorded.append, i))
        writer.wait()

    task(0, [0, 1])
    assert written == [] and recorded == []
    assert ("reached", 0) in arr.cache.pinned
    task(1, [1])  # chunk 0 written; task 0 waits for chunk 1, which task 1 raised again
    assert written == [0] and recorded == []
    task(2, [])
    assert written == [0, 1] and recorded == [0, 1, 2] and not arr.cache.pinned
    assert store[0:1] == 1 and store[ch:ch + 1] == 1 and store[ch + 1:ch + 2] == 2
    for i in range(3, 3 + cached_array.HELD_TASKS):  # one chunk raised by every task
        task(i, [2])
    assert written == [0, 1, 2] and recorded == list(range(3 + cached_array.HELD_TASKS))
    task(99, [0])  # stopped before its next task: neither written nor recorded
    writer.close()
    assert written == [0, 1, 2] and 99 not in recorded
    assert store[99:100] == 0 and store[2 * ch + 3:2 * ch + 4] == 4


def test_a_chunk_held_back_is_never_evicted_unwritten():
    """The cache evicts around a pinned (raised, not yet written) chunk: the least recently
    used of the others goes, the newest itself when nothing else is left."""
    cache = ChunkCache(3 << 10)
    dense = np.random.default_rng(9).integers(1, 200, 1 << 10).astype(np.uint8)
    cache.put(("reached", 0), dense, owned=True, packed_later=True)
    cache.pinned.add(("reached", 0))
    for c in range(1, 6):
        cache.put(("reached", c), dense)
    assert [c for _, c in cache.data] == [0, 4, 5]
    cache.pinned.update({("reached", 4), ("reached", 5)})
    cache.put(("reached", 6), dense)
    assert [c for _, c in cache.data] == [0, 4, 5] and cache.used == 3 << 10


def test_a_packed_chunk_is_unpacked_into_the_callers_buffer():
    """A solve reads thousands of child chunks a task: one held packed is unpacked into
    the buffer the reader passes (no new array, so no fresh pages, a chunk), one held as
    it is is lent, and either reads back exactly."""
    cache = ChunkCache(5 << 14)  # past ROOM with the sparse chunk: it is packed
    sparse = np.zeros(1 << 16, np.uint8)
    sparse[::97] = 5
    dense = np.random.default_rng(10).integers(1, 200, 1 << 16).astype(np.uint8)
    cache.put(("value", 0), sparse)
    cache.put(("value", 1), dense)
    buf = np.empty(1 << 16, np.uint8)
    got = cache.get(("value", 0), buf)
    assert got is buf and np.array_equal(buf, sparse)
    lent = cache.get(("value", 1), buf)
    assert lent is not buf and np.array_equal(lent, dense)
    assert cache.get(("value", 0), np.empty(10, np.uint8)).size == sparse.size


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="Linux's mappings")
def test_packed_chunks_take_no_memory_mapping_each():
    """A packed chunk lies in a block of its own size: packed where a codec shrank a
    block of the chunk's size, each kept a mapping of its own, and past the process's
    limit of them (65,530) glibc served every large block from the heap, whose holes are
    kept (Connect-4 6x6: 16.48 GiB resident under --memory 16)."""
    from numcodecs import Blosc

    from solver.runtime.allocator import map_large_blocks

    map_large_blocks()  # as the command does
    sparse = np.zeros(1 << 20, np.uint8)
    sparse[::97] = 5
    codec = Blosc("lz4", 1, Blosc.SHUFFLE)
    cache = ChunkCache(48 << 20)
    cache.put(("reached", 0), np.ones(37 << 20, np.uint8))  # past ROOM: sparse ones packed

    def mappings():
        return len(Path("/proc/self/maps").read_text().splitlines())

    before = mappings()
    for c in range(1000):
        cache.put(("value", c), sparse)
    for c in range(1000, 2000):  # a write's own packed bytes, as the store gave them
        cache.put(("value", c), sparse, owned=True, packed_later=True)
        cache.repack(("value", c), sparse, codec.encode(sparse), codec.decode)
    for c in range(2000, 2100):  # packed where it was read (a pool thread)
        cache.put(("value", c), sparse, owned=True, packed=cache.pack(sparse))
    assert len(cache.data) == 2101 and cache.used < (37 << 20) + 2100 * 8000
    assert mappings() - before < 100
    assert not isinstance(cache.data[("value", 2099)], np.ndarray)
    for c in (999, 1999, 2099):
        assert np.array_equal(cache.get(("value", c)), sparse)


def test_the_cache_holds_at_most_its_share_of_the_mappings():
    """Blocks of allocator.LARGE bytes or more are mapped one by one: the cache holds no
    more of them than its share of the process's limit, whatever its byte capacity."""
    from solver.runtime.allocator import LARGE

    cache = ChunkCache(1 << 30)
    cache.most_mapped = 5
    dense = np.random.default_rng(12).integers(1, 200, LARGE).astype(np.uint8)
    small = dense[:LARGE // 2]
    for c in range(8):
        cache.put(("value", c), dense)
    for c in range(3):  # smaller blocks come from the heap: not counted
        cache.put(("remoteness", c), small)
    assert cache.mapped == 5 and len(cache.data) == 8
    assert [c for name, c in cache.data if name == "value"] == [3, 4, 5, 6, 7]
    cache.drop(("value", 7))
    assert cache.mapped == 4 and cache.used == 4 * LARGE + 3 * (LARGE // 2)


def test_a_smaller_capacity_evicts_down_to_it_around_the_pinned():
    """A solve task larger than the plan's largest takes its excess from the cache: a
    resize evicts the least recently used down to the new capacity, never a pinned chunk."""
    cache = ChunkCache(4 << 10)
    dense = np.random.default_rng(11).integers(1, 200, 1 << 10).astype(np.uint8)
    for c in range(4):
        cache.put(("value", c), dense)
    cache.pinned.add(("value", 0))
    cache.resize(2 << 10)
    assert sorted(c for _, c in cache.data) == [0, 3] and cache.used == 2 << 10
    cache.resize(4 << 10)
    cache.put(("value", 5), dense)
    assert cache.used == 3 << 10


@pytest.mark.parametrize("step", [1, 2, 3, 7, 1 << 22])
def test_far_lists_merged_in_place_equal_numpys_unique(monkeypatch, step):
    """unique, merge_unique and spans (a far reach's child hashes, STEP at a time) give
    numpy's answers across every edge of a step, duplicates inside and between parts."""
    from solver.engine import task

    monkeypatch.setattr(task, "STEP", step)
    rng = np.random.default_rng(step)
    for n in (0, 1, 2, 9, 40, 1000):
        x = rng.integers(0, max(1, n // 3) + 5, n).astype(np.int64)
        want = np.unique(x)
        got = task.unique(np.concatenate((x, rng.integers(0, 9, 5))), n)  # x[:n] only
        assert got.tolist() == want.tolist()
        parts = [np.unique(rng.integers(0, 3 * n + 1, rng.integers(0, n + 2)))
                 for _ in range(4)]
        acc = np.unique(rng.integers(0, 2 * n + 1, n))
        whole = np.unique(np.concatenate([acc, *parts]))
        got = task.merge_unique(acc.copy(), parts)
        assert got.tolist() == whole.tolist() and parts == []
        far = np.unique(rng.integers(0, 1 << 20, n))
        breaks = np.flatnonzero(np.diff(far) > task.GAP)
        starts, stops = task.spans(far)
        m = far.size
        assert starts.tolist() == (far[np.r_[0, breaks + 1]].tolist() if m else [])
        assert stops.tolist() == ((far[np.r_[breaks, m - 1]] + 1).tolist() if m else [])


def test_records_loaded_on_the_pool_equal_those_loaded_in_turn(monkeypatch):
    """load_records over a lending chunk cache (chunks held as they are, packed, or read
    on a miss, on the pool, and kept after) gives the window it gives chunk by chunk on
    the main thread."""
    import threading

    from solver.engine import task
    from solver.engine.chunk_cache import Unread, lent
    from solver.kernels.records import record_dtype

    ch, n = 1 << 12, 23
    rng = np.random.default_rng(5)
    cache = ChunkCache(1 << 30)
    store = {}
    for name, top in (("value", 4), ("remoteness", 40)):
        for c in range(n):
            x = (rng.random(ch) < (0.1 if c % 2 else 0.9)) * rng.integers(1, top, ch)
            store[name, c] = x.astype(np.uint8)
            if c % 5:  # every fifth chunk a miss
                cache.put((name, c), store[name, c])

    class Lending:
        def __init__(self, name):
            self.name, self.chunks, self.shape = name, (ch,), (n * ch - 7,)
            self.dtype = np.dtype(np.uint8)

        def lend_or_unread(self, c):
            got = cache.lend((self.name, c))
            return Unread(lambda: self.read(c), cache.pack) if got is None else got

        def read(self, c):
            read_on.add(threading.current_thread() is threading.main_thread())
            return store[self.name, c][:min(ch, self.shape[0] - c * ch)].copy()

        def keep(self, c, x, packed):
            assert threading.current_thread() is threading.main_thread()
            kept.append((self.name, c))
            cache.put((self.name, c), x, owned=True, packed=packed)

        def read_chunk(self, c, out=None):
            got = cache.lend((self.name, c))
            return self.read(c) if got is None else lent(got, out)

    dtype = record_dtype(40)
    cuts = np.sort(rng.choice(n * ch - 7, 60, replace=False))
    parts, w = [], 0
    for x, y in zip(cuts[::2].tolist(), cuts[1::2].tolist(), strict=True):
        parts.append((w, x, y))
        w += y - x
    got, kept, read_on = {}, [], set()
    for pool in (1, 2):
        monkeypatch.setattr(task, "threads", lambda pool=pool: pool)
        win = np.zeros(w, dtype)
        task.load_records(win, parts, Lending("value"), Lending("remoteness"), dtype)
        got[pool] = win
    assert kept and all(c % 5 == 0 for _, c in kept) and False in read_on
    from solver.kernels.records import join_records

    whole = {name: np.concatenate([store[name, c] for c in range(n)])
             for name in ("value", "remoteness")}
    want = np.zeros(w, dtype)
    for w0, x, y in parts:
        join_records(whole["value"][x:y], whole["remoteness"][x:y], want[w0:w0 + y - x])
    assert got[1].tolist() == got[2].tolist() == want.tolist() and want.any()


def test_calls_in_order_keep_their_order_and_stop_all_on_a_failure():
    """parallel.in_order yields each result in the order of its calls, with at most
    `ahead` submitted and unread, and once a call fails no other still runs."""
    import threading
    import time

    from solver.runtime.parallel import in_order

    lock, running, most = threading.Lock(), [0], [0]

    def slow(i, fail=False):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.002 * (i % 3))
        with lock:
            running[0] -= 1
        if fail:
            raise ValueError(i)
        return i * i

    assert list(in_order(slow, ((i,) for i in range(40)), 2)) == [i * i for i in range(40)]
    assert most[0] <= 2
    done = []
    with pytest.raises(ValueError):
        for x in in_order(slow, ((i, i == 5) for i in range(40)), 2):
            done.append(x)
    assert running[0] == 0 and done == [i * i for i in range(5)]
