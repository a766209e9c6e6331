"""The tier solve on a 2-worker Dask LocalCluster writes the same bytes as an independent
method, on a loop-free tiered game and a loopy one, and resumes a solve interrupted
midway without running its finished tasks again."""

import numpy as np
import pytest

from games import get_game
from solver.engine import manager
from solver.methods.solve import solve
from solver.runtime.progress import Progress
from solver.storage.database import CHUNK, Database, group_path

pytest.importorskip("distributed")

TASK = CHUNK // 4  # tasks smaller than a chunk: neighbours share chunks, many tasks

@pytest.fixture(autouse=True)
def every_task_on_the_workers(monkeypatch):
    """The client runs no reach task while the cluster starts and no lone task, so the
    workers run (and these tests check) every task; the two tests of the client's tasks
    put that back."""
    from solver.engine import cluster

    monkeypatch.setattr(manager, "_reach_while_starting", lambda *args: None)
    monkeypatch.setattr(cluster, "_here", lambda *args: None)


CASES = [
    ("connect4", "width=5,height=4", "dfs"),  # loop-free: 3,125 tiers, 22 tasks
    ("hexapawn", "width=4,height=4", "retrograde"),  # every tier loopy: 8 tasks
]


def arrays(game, root):
    db = Database.open(game, root)
    return db.value_array[:], db.remoteness_array[:]


class Counting(Progress):
    """Remembers the cluster's task count; can stop a solve after `stop` solve tasks."""

    def __init__(self, stop=None):
        self.stop, self.solved, self.total = stop, 0, None

    def update(self, phase, step, detail=""):
        if phase == "solve":
            self.solved += 1
            if self.stop and self.solved >= self.stop:
                raise KeyboardInterrupt
        if phase == "cluster":
            self.total = int(detail.split()[0].split("/")[1])


@pytest.mark.parametrize("name,variant,reference", CASES)
def test_cluster_solve_is_byte_identical(name, variant, reference, tmp_path):
    game = get_game(name, variant)
    solve(game, reference, root=tmp_path / "ref")
    path = group_path(tmp_path / "cluster", game)
    progress = Counting()
    summary = manager.solve_into(game, path, progress, fresh=True, workers=2,
                                      max_task=TASK)
    assert summary["tasks"] > 4  # enough tasks that some run side by side
    assert progress.total == 2 * summary["tasks"]  # a reach and a solve task each
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "cluster"),
                    strict=True):
        assert np.array_equal(x, y)


def test_reach_tasks_run_here_while_the_cluster_starts(tmp_path, monkeypatch):
    """Reach tasks the client ran before the workers were up are not run again, and the
    bytes are those of the dfs."""
    from solver.engine import cluster

    monkeypatch.undo()
    monkeypatch.setattr(cluster, "_here", lambda *args: None)  # no lone tasks here
    game = get_game("connect4", "width=5,height=4")
    solve(game, "dfs", root=tmp_path / "ref")
    ran = []
    reach = manager.worker.reach

    def counted(*args, **kw):
        ran.append(args[2].index)
        return reach(*args, **kw)

    monkeypatch.setattr(manager.worker, "reach", counted)
    progress = Counting()
    summary = manager.solve_into(game, group_path(tmp_path / "cluster", game),
                                      progress, fresh=True, workers=2, max_task=TASK)
    assert ran  # the cluster takes a second or more to start; these tasks take ms
    assert progress.total == 2 * summary["tasks"] - len(ran)
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "cluster"),
                    strict=True):
        assert np.array_equal(x, y)


def test_lone_tasks_run_here_on_every_thread(tmp_path, monkeypatch):
    """A task that is ready while no other is ready or running (the levels near the start,
    one task each) runs in the client, and only such a task; the bytes are the dfs's."""
    monkeypatch.undo()
    monkeypatch.setattr(manager, "_reach_while_starting", lambda *args: None)
    game = get_game("connect4", "width=5,height=4")
    solve(game, "dfs", root=tmp_path / "ref")
    here = []
    run_task = manager.worker.run_task
    import distributed

    submitted, in_flight = [], []
    original = distributed.Client.submit

    def counted_submit(self, fn, phase, *args, **kw):
        fut = original(self, fn, phase, *args, **kw)
        submitted.append(fut)
        return fut

    def counted(phase, game_, store, task, limit, lock=None):
        in_flight.append(sum(not f.done() for f in submitted))
        here.append((phase, task.index))
        return run_task(phase, game_, store, task, limit, lock)

    monkeypatch.setattr(distributed.Client, "submit", counted_submit)
    monkeypatch.setattr(manager.worker, "run_task", counted)
    progress = Counting()
    summary = manager.solve_into(game, group_path(tmp_path / "cluster", game),
                                      progress, fresh=True, workers=2, max_task=TASK)
    assert {p for p, _ in here} == {"reach", "solve"} and not any(in_flight)
    assert len(submitted) + len(here) == 2 * summary["tasks"] == progress.total
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "cluster"),
                    strict=True):
        assert np.array_equal(x, y)


def test_local_workers_are_forked_with_gsolve_loaded_and_ignore_ctrl_c():
    """A LocalCluster's workers come from a forkserver that imported gsolve (and loaded
    the kernels of the game of the process's first cluster), not from fresh interpreters;
    they ignore SIGINT, which Ctrl-C sends them too, so only the client reports it."""
    import os
    import signal
    import sys

    from solver.engine.cluster import Cluster

    game = get_game("connect4", "width=4,height=4,connect=3")
    nodes = Cluster(game, 2, None, 1 << 30)
    try:
        def where():
            fs = sys.modules.get("solver.engine.forkserver")
            quiet = signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            return os.getppid(), fs is not None and fs.warmed.count("|") == 2, quiet

        seen = nodes.get().run(where)
    finally:
        nodes.close()
    assert len(seen) == 2 and all(warmed and quiet for _, warmed, quiet in seen.values())
    assert all(parent != os.getpid() for parent, _, _ in seen.values())  # not the client's


def test_cluster_solve_with_symmetry_is_byte_identical(tmp_path):
    """Workers build the game from the registry and put it on canonical positions too."""
    from solver.kernels.numbering import Numbering
    from solver.methods.solve import numbered

    game = Numbering(get_game("quixo", "size=3"), True)
    solve(game, "retrograde", root=tmp_path / "ref")
    path = group_path(tmp_path / "cluster", game)
    summary = manager.solve_into(numbered(game), path, Counting(), fresh=True, workers=2,
                                 max_task=TASK)
    assert summary["positions"] == 4_433  # canonical of 32,027 (tests/test_symmetry.py)
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "cluster"),
                    strict=True):
        assert np.array_equal(x, y)


def test_cluster_resumes_a_local_solve_without_redoing_tasks(tmp_path):
    name, variant, reference = CASES[0]
    game = get_game(name, variant)
    path = group_path(tmp_path / "db", game)
    with pytest.raises(KeyboardInterrupt):
        manager.solve_into(game, path, Counting(stop=7), fresh=True, max_task=TASK)
    assert not (path / "zarr.json").exists()
    progress = Counting()
    summary = manager.solve_into(game, path, progress, workers=2, max_task=TASK)
    assert progress.total == summary["tasks"] - 7  # every reach task and 7 solve tasks kept
    solve(game, reference, root=tmp_path / "ref")
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "db"),
                    strict=True):
        assert np.array_equal(x, y)


def test_a_killed_workers_task_is_retried_and_finished_tasks_never_rerun(tmp_path,
                                                                          monkeypatch):
    """SIGKILL a worker of a 2-worker LocalCluster while it runs a solve task: its nanny
    starts a new one, the task runs again elsewhere, and the solve ends with the same bytes;
    no task recorded finished is ever started again (each start, logged by a worker plugin
    on this host's clock, against the time the manager recorded the task finished)."""
    import os
    import signal
    import threading
    import time

    from distributed import Client, LocalCluster, WorkerPlugin, get_task_stream

    name, variant, reference = CASES[0]
    game = get_game(name, variant)
    solve(game, reference, root=tmp_path / "ref")
    recorded: dict[tuple[str, int], float] = {}
    record_task = manager.Record.task

    def task(self, phase, i, tally=None):
        assert (phase, i) not in recorded  # recorded once
        recorded[(phase, i)] = time.time()
        record_task(self, phase, i, tally)

    monkeypatch.setattr(manager.Record, "task", task)
    env = {"GSOLVE_THREADS": "1", "NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", env=env) as cluster, \
            Client(cluster) as client:
        starts_log = tmp_path / "starts.log"

        class LogStarts(WorkerPlugin):
            """Appends each task's start on the worker's own clock: the task stream's times
            are shifted by the scheduler's guess of each worker's clock offset, which a
            busy host's heartbeat delays put a second or more off."""

            name = "gsolve-test-starts"

            def transition(self, key, start, finish, **kwargs):
                if finish == "executing":
                    with open(starts_log, "a") as f:
                        f.write(f"{key} {time.time()!r}\n")

        client.register_plugin(LogStarts())
        killed = []

        def running(dask_worker):
            return os.getpid(), [str(t.key) for t in dask_worker.state.executing]

        def kill():
            """SIGKILL a worker while it runs a solve task."""
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                for _addr, (pid, keys) in client.run(running).items():
                    if any("-solve-" in k for k in keys):
                        os.kill(pid, signal.SIGKILL)
                        killed.append(keys)
                        return

        class KillAfterThreeSolveTasks(Progress):
            def update(self, phase, step, detail=""):
                solved = sum(ph == "solve" for ph, _ in recorded)
                if phase == "cluster" and solved == 3 and not killed:
                    threading.Thread(target=kill, daemon=True).start()

        path = group_path(tmp_path / "db", game)
        with get_task_stream(client=client) as stream:
            summary = manager.solve_into(game, path, KillAfterThreeSolveTasks(),
                                              fresh=True, scheduler=cluster.scheduler_address,
                                              max_task=TASK)
        assert killed, "no worker was killed mid-task"
        # a killed task runs again; nothing recorded finished ever starts again: each task
        # completes once, and every start of it (the killed one's too) came before the
        # client recorded it finished
        keys = [t["key"] for t in stream.data]
        assert len(keys) == len(set(keys)), "a task completed twice"
        starts: dict[str, list[float]] = {}
        for line in starts_log.read_text().splitlines():
            key, at = line.rsplit(" ", 1)
            starts.setdefault(key, []).append(float(at))
        for key in keys:
            _, phase, *_, i = key.split("-")
            assert max(starts[key]) < recorded[(phase, int(i))]
        for phase in ("reach", "solve"):
            assert sorted(i for ph, i in recorded if ph == phase) == list(range(summary["tasks"]))

        # a worker killed while it holds a cluster lock (as inside a push) does not keep it
        marker = tmp_path / "holder.pid"

        def hold():
            from distributed import MultiLock

            if marker.exists():  # the retry after the kill: take nothing
                return
            MultiLock(["gsolve-test-chunk"]).acquire()
            marker.write_text(str(os.getpid()))
            time.sleep(120)

        held = client.submit(hold, pure=False)
        while not marker.exists() or not marker.read_text():
            time.sleep(0.01)
        os.kill(int(marker.read_text()), signal.SIGKILL)
        from distributed import MultiLock

        assert MultiLock(["gsolve-test-chunk"], client=client).acquire(timeout=20)
        held.result(timeout=60)
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "db"),
                    strict=True):
        assert np.array_equal(x, y)
