"""Faults against long solves (issue 23): a resumed solve after a failed write, a kill or a
stop is byte-identical to a reference solved by another method, or refuses in one line;
chunk files that are not where they were written are refused on read; SIGTERM ends a
solve inside a kernel at once."""

import os
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from checks import benchmark

import solver.storage.database as database
from games import get_game
from solver.command.cli import main
from solver.engine import manager
from solver.engine.writer import Writer
from solver.methods.solve import solve
from solver.storage.database import Database, group_path, partial_path

faults = benchmark("faults")

C4 = "width=4,height=4"


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# -- resumes after faults, against another method's database -----------------------------------
@pytest.mark.parametrize("scenario,points,timed", [
    ("connect4-5x4", 2, 2),
    ("quixo-3x3", 2, 1),
    ("connect4-5x4-workers2", 1, 2),
    ("quixo-3x3-lean", 1, 1),  # loopy tiers in the lean worker, stores a chunk at a time
    ("quixo-3x3-paged", 1, 1),  # every task paged: scratch writes are fault points too
])
def test_every_resume_after_a_fault_is_identical_or_refused(scenario, points, timed):
    """ENOSPC half-way through a chunk write, EIO on a rename and SIGKILL inside either, at
    the first and last chunk write of the solve (and in between on the bigger sweep,
    benchmarks/faults.py), and SIGKILL or SIGTERM at random times; each followed by a
    resume with no fault (one case also by a second fault first)."""
    seen = faults.sweep(scenario, points, twice=scenario == "quixo-3x3", timed=timed,
                        seed=7, log=lambda line: None)
    assert len(seen) == 4 * points + timed
    bad = [o for o in seen if o.verdict not in ("identical", "refused")]
    assert not bad, bad
    broken = [o for o in seen if o.broke not in (0,)]
    assert len(broken) >= 4 * points  # every injected fault did break its solve
    assert sum(o.verdict == "identical" for o in seen) >= len(seen) - 1


def test_enospc_on_a_real_full_disk_then_a_resume_is_identical(tmp_path):
    """A tmpfs too small for the store (where this machine lets the test mount one): the
    solve fails with one line, a second attempt too, and a resume with room is exact."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        args = ["connect4", "-V", "width=5,height=4", "--method", "tiers", "--quiet",
                "--db", str(mnt / "db")]
        for _ in range(2):
            p = subprocess.run([sys.executable, "-m", "solver", *args],
                               capture_output=True, text=True)
            assert p.returncode == 2 and "No space left on device" in p.stderr, p.stderr
            assert p.stderr.count("\n") == 1
        subprocess.run(["mount", "-o", "remount,size=200m", str(mnt)], check=True)
        p = subprocess.run([sys.executable, "-m", "solver", *args], capture_output=True,
                           text=True)
        assert p.returncode == 0, p.stderr
        ref = faults.reference(["connect4", "-V", "width=5,height=4"], "dfs",
                               str(tmp_path / "ref"))
        v, r = faults.arrays(["connect4", "-V", "width=5,height=4"], str(mnt / "db"))
        assert np.array_equal(v, ref[0]) and np.array_equal(r, ref[1])
    finally:
        subprocess.run(["umount", str(mnt)], capture_output=True)


def test_a_failed_write_stops_the_queue_before_the_record():
    """The writer never runs a job queued after a failed one (the task's record)."""
    writer = Writer(depth=4)
    ran = []

    def fail():
        raise OSError(28, "No space left on device")

    writer.submit(ran.append, "before")
    writer.submit(fail)
    with pytest.raises(OSError):
        for i in range(10):
            writer.submit(ran.append, f"record {i}")
        writer.wait()
    with pytest.raises(OSError):
        writer.close()
    assert ran == ["before"]


# -- a resume re-reads the tasks recorded last -------------------------------------------------
def interrupted(tmp_path, monkeypatch, stop):
    """A tiered Connect-4 4x4 solve of small tasks stopped after `stop` progress updates
    (the writes queued before the stop are written and recorded as it ends)."""
    monkeypatch.setattr(database, "CHUNK", 1 << 12)

    class Stop(Exception):
        pass

    class Counting(manager.Progress):
        n = 0

        def update(self, *a, **k):
            Counting.n += 1
            if Counting.n == stop:
                raise Stop

    game = get_game("connect4", C4)
    path = group_path(tmp_path, game)
    with pytest.raises(Stop):
        manager.solve_into(game, path, Counting(), fresh=True, max_task=1 << 12)
    return game, path


def test_a_task_is_recorded_only_once_its_chunk_files_are_synced(tmp_path, monkeypatch):
    """Every store of the record comes after a sync of every chunk file written before the
    record was taken (Record.flush syncs them once a second, not a task): the chunk writes
    are counted, and each thread notes how many there were when it took a record and when
    its sync began (records are taken and stored on the writer thread and the main one)."""
    import threading

    from solver.storage import chunks
    from solver.storage.writing import PartialStore

    writes = []

    class Written(set):
        def add(self, path):
            writes.append(path)
            super().add(path)

    taken, synced, stored = {}, {}, []
    real_sync, real_bits, real_set = manager.sync_written, manager._bits, PartialStore.set_attrs

    def sync():
        mark = len(writes)
        real_sync()
        synced[threading.get_ident()] = mark

    def bits(done, n):
        taken[threading.get_ident()] = len(writes)
        return real_bits(done, n)

    def set_attrs(self, **kw):
        if "reach_done" in kw:
            me = threading.get_ident()
            stored.append(taken[me] <= synced.get(me, -1))
        real_set(self, **kw)

    monkeypatch.setattr(chunks, "_written", Written())
    monkeypatch.setattr(manager, "sync_written", sync)
    monkeypatch.setattr(manager, "_bits", bits)
    monkeypatch.setattr(PartialStore, "set_attrs", set_attrs)
    game = get_game("connect4", C4)
    manager.solve_into(game, tmp_path / "db", fresh=True, max_task=1 << 12)
    assert writes and len(stored) >= 2 and all(stored)


def test_storing_the_record_takes_a_small_share_of_the_time(monkeypatch):
    """The record is stored whole (zarr writes the attributes at once: 0.4 s with 6x6's
    18,558 task tallies, 40 % of a core once a second): a slow store is spaced out to
    RECORD_SHARE of the time, and a store asked for now still happens at once."""
    from types import SimpleNamespace

    stores = []

    class SlowStore:
        attrs: dict = {}

        def set_attrs(self, **kw):
            time.sleep(0.15)
            stores.append(kw)

    monkeypatch.setattr(manager, "sync_written", lambda: None)
    p = SimpleNamespace(tasks=[SimpleNamespace(pieces=[], a=i, b=i + 1) for i in range(100)])
    record = manager.Record(SlowStore(), p, [])
    t0 = time.monotonic()
    for i in range(100):  # 2 s of tasks: one store, the next due 3 s after it
        record.task("reach", i)
        time.sleep(max(0.0, t0 + 0.02 * (i + 1) - time.monotonic()))
    assert len(stores) == 1 and record.every >= 0.15 / manager.RECORD_SHARE
    record.flush()
    assert len(stores) == 2 and len(manager._unbits(stores[-1]["reach_done"], 100)) == 100


def resumed_as_reference(game, path, root) -> None:
    """The stopped solve at `path` resumed: its database byte for byte a dfs solve's."""
    manager.solve_into(game, path, max_task=1 << 12)
    ref = root / "ref"
    solve(get_game("connect4", C4), "dfs", root=ref)
    a, b = Database.open(game, root), Database.open(game, ref)
    for (_, v1, r1), (_, v2, r2) in zip(a.chunks(), b.chunks(), strict=True):
        assert np.array_equal(v1, v2) and np.array_equal(r1, r2)


def test_a_damaged_chunk_of_a_recent_solve_task_is_solved_again(tmp_path, monkeypatch):
    game, path = interrupted(tmp_path, monkeypatch, stop=60)
    attrs = dict(database.stores.open_group(partial_path(path), "r").attrs)
    solved = [i for ph, i in attrs["recent_tasks"] if ph == "solve"]
    assert solved
    cuts = attrs["task_cuts"]
    c = cuts[solved[-1]] // database.CHUNK
    f = partial_path(path) / "value" / "c" / str(c)
    f.write_bytes(f.read_bytes()[:-5])  # cut short: its checksum fails
    resumed_as_reference(game, path, tmp_path)


def test_a_solved_tasks_reach_bytes_are_deleted_and_the_resume_is_exact(tmp_path,
                                                                         monkeypatch):
    """Once a task's solve is in the stored record and no longer among its recent tasks
    (which a resume may run again), its reach chunks are deleted (a chunk once every task
    it holds is), the others kept; a solve stopped half-way through its solve phase
    resumes to the reference's bytes."""
    game, path = interrupted(tmp_path, monkeypatch, stop=85)  # of 50 tasks a phase
    attrs = dict(database.stores.open_group(partial_path(path), "r").attrs)
    cuts, n = attrs["task_cuts"], len(attrs["task_cuts"]) - 1
    recent = {i for ph, i in attrs["recent_tasks"] if ph == "solve"}
    solved = set(manager._unbits(attrs["solve_done"], n)) - recent
    assert 0 < len(solved) < n and recent
    files = {int(f.name) for f in (partial_path(path) / "reached" / "c").iterdir()
             if f.name.isdigit()}
    for c in range(cuts[-1] // database.CHUNK + 1):
        lo, hi = c * database.CHUNK, (c + 1) * database.CHUNK
        held = {i for i in range(n) if cuts[i] < hi and cuts[i + 1] > lo}
        assert (c in files) == (not held <= solved), c
    resumed_as_reference(game, path, tmp_path)


def test_a_damaged_reach_chunk_refuses_the_resume_in_one_line(tmp_path, monkeypatch, capsys):
    game, path = interrupted(tmp_path, monkeypatch, stop=12)  # still reaching
    attrs = dict(database.stores.open_group(partial_path(path), "r").attrs)
    reached = [i for ph, i in attrs["recent_tasks"] if ph == "reach"]
    assert reached
    c = attrs["task_cuts"][reached[-1]] // database.CHUNK
    (partial_path(path) / "reached" / "c" / str(c)).unlink()
    code, out, err = run(capsys, "connect4", "-V", C4, "--method", "tiers",
                         "--db", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "damaged" in err and "--force" in err
    assert "reached" in err
    code, out, err = run(capsys, "connect4", "-V", C4, "--method", "tiers", "--force",
                         "--db", str(tmp_path))
    assert code == 0


# -- chunks that know where they belong --------------------------------------------------------
def test_swapped_chunks_are_refused_on_every_read(tmp_path, capsys, monkeypatch):
    """Two chunk files swapped keep their own checksums; the digests record still knows."""
    monkeypatch.setattr(database, "CHUNK", 1 << 12)
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    value = np.concatenate([v for _, v, _ in Database.open(game, tmp_path).chunks()])
    pos = game.to_string(int(np.flatnonzero(value[1 << 12:2 << 12])[0]) + (1 << 12))
    c = group_path(tmp_path, game) / "value" / "c"
    (c / "1").rename(c / "x")
    (c / "2").rename(c / "1")
    (c / "x").rename(c / "2")
    db = ["--db", str(tmp_path), "-V", C4]
    for cmd in (["query", "connect4", pos], ["analyze", "connect4"], ["connect4"]):
        code, out, err = run(capsys, *cmd, *db)
        assert code == 2 and "already solved" not in out, (cmd, out, err)
        assert "chunk 1 of value" in err and "not the chunk solved there" in err
        assert err.count("\n") == 1
    code, out, err = run(capsys, "verify", "connect4", *db)
    assert code == 1 and "not the chunk solved there" in out


def test_a_chunk_copied_from_another_variant_is_refused(tmp_path, capsys, monkeypatch):
    """The same index of the same array, from another variant's database: its bytes are
    sound, its place is not."""
    monkeypatch.setattr(database, "CHUNK", 1 << 12)
    a, b = get_game("connect4", C4), get_game("connect4", "width=4,height=5")
    solve(a, "dfs", root=tmp_path)
    solve(b, "dfs", root=tmp_path)
    src = group_path(tmp_path, b) / "remoteness" / "c" / "0"
    dst = group_path(tmp_path, a) / "remoteness" / "c" / "0"
    if src.read_bytes() == dst.read_bytes():
        pytest.fail("the two chunks hold the same bytes: pick another chunk")
    shutil.copyfile(src, dst)
    code, out, err = run(capsys, "query", "connect4", "-V", C4, "--db", str(tmp_path))
    assert code == 2 and "chunk 0 of remoteness" in err and "not the chunk solved" in err


# -- stop within a second ----------------------------------------------------------------------
@pytest.mark.parametrize("method,threads", [("dfs", "2"), ("tiers", "1")])
def test_sigterm_inside_a_kernel_stops_within_a_second(tmp_path, method, threads):
    """Connect-4 5x5 (70 M positions, 10-20 s here): SIGTERM well inside the solve's
    kernels ends it in under a second with one line, a tiered one leaving its resumable
    store (resumes after SIGTERM are checked in the fault sweep above)."""
    env = dict(os.environ, GSOLVE_THREADS=threads)
    args = ["connect4", "-V", "width=5,height=5", "--method", method, "--db", str(tmp_path)]
    proc = subprocess.Popen([sys.executable, "-m", "solver", *args, "--quiet"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(5)
    assert proc.poll() is None, "the solve ended before the signal: use a larger variant"
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    took = time.perf_counter() - t0
    assert proc.returncode == 143 and err.strip() == "gsolve: terminated", err
    assert took < 1.0, f"stopped {took:.2f} s after SIGTERM"
    if method == "tiers":
        assert (partial_path(group_path(tmp_path, get_game("connect4", "width=5,height=5")))
                / "zarr.json").exists()
