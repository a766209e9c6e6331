"""Ctrl-C stops every method as fast as SIGTERM (issue 44): the process ends within a
second or so of SIGINT with one line, "gsolve: interrupted", exit 130, and a tiered
solve's resume then gives the database an uninterrupted solve gives. Before, click turned
the KeyboardInterrupt into Abort, which returned without ending the process, so the
interpreter's exit waited for the pool to run a sweep's queued blocks (dfs: 4-19 s), and
a Ctrl-C while a Dask cluster started could hang the process for good."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from checks import benchmark

from games import get_game
from solver.storage.database import group_path, partial_path

faults = benchmark("faults")

C5 = ["connect4", "-V", "width=5,height=5"]
LIMIT = 1.5  # seconds from the signal to the process's end (it takes 0.01-0.1 s here)


def start(args, db, env=None, chunk_task=None):
    """gsolve (or benchmarks/faults.py's solve with chunks and tasks of `chunk_task`
    slots) in a session of its own, as a terminal's Ctrl-C reaches it; output to files,
    so that the end is the process's, not that of a helper holding its pipes."""
    cmd = [sys.executable, "-m", "solver"] if chunk_task is None else [
        sys.executable, faults.__file__, "solve", str(chunk_task), str(chunk_task), "--"]
    err = open(os.path.join(db, "stderr"), "w+")
    proc = subprocess.Popen([*cmd, *args, "--quiet", "--db", db],
                            env=dict(os.environ, **(env or {})), stdout=subprocess.DEVNULL,
                            stderr=err, start_new_session=True)
    return proc, err


def stop(proc, err, after: float, group: bool = False):
    """SIGINT `after` seconds from the start (to the process group when `group`, as a
    terminal sends it); (seconds until the process ended, its stderr)."""
    time.sleep(after)
    assert proc.poll() is None, "the solve ended before the signal: use a larger variant"
    t0 = time.perf_counter()
    (os.killpg if group else os.kill)(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=60)
        took = time.perf_counter() - t0
        while session(proc.pid) and time.perf_counter() - t0 < LIMIT:
            time.sleep(0.01)
        assert not session(proc.pid), "workers or helpers outlived the solve"
    finally:
        for pid in session(proc.pid):
            os.kill(pid, signal.SIGKILL)
        proc.wait()
    err.seek(0)
    return took, err.read()


def session(sid: int) -> list[int]:
    """The live processes (not zombies) of session `sid`."""
    out = []
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[3]) == sid:
            out.append(int(name))
    return out


def solve(args, db) -> None:
    subprocess.run([sys.executable, "-m", "solver", *args, "--quiet", "--db", str(db)],
                   check=True, capture_output=True)


@pytest.mark.parametrize("method", ["dfs", "bottomup"])
def test_ctrl_c_inside_a_kernel_stops_within_a_second(tmp_path, method):
    """Connect-4 5x5 (25 s of dfs here): SIGINT well inside the sweeps' kernels."""
    proc, err = start([*C5, "--method", method], str(tmp_path))
    took, text = stop(proc, err, 5)
    assert proc.returncode == 130 and text == "gsolve: interrupted\n", text
    assert took < LIMIT, f"stopped {took:.2f} s after SIGINT"
    assert not (group_path(tmp_path, get_game(*C5[::2])) / "zarr.json").exists()


def test_ctrl_c_in_a_retrograde_tier_then_a_resume_is_identical(tmp_path):
    """Bagh-Chal 4x4 (10 s of tiers here, its tiers loopy): SIGINT inside the
    retrograde, then a resume: the bytes of an uninterrupted tiered solve."""
    game = ["baghchal", "-V", "size=4"]
    for db in ("ref", "db"):
        (tmp_path / db).mkdir()
    solve([*game, "--method", "tiers"], tmp_path / "ref")
    proc, err = start([*game, "--method", "tiers"], str(tmp_path / "db"))
    took, text = stop(proc, err, 4)
    assert proc.returncode == 130 and text == "gsolve: interrupted\n", text
    assert took < LIMIT, f"stopped {took:.2f} s after SIGINT"
    path = group_path(tmp_path / "db", get_game("baghchal", "size=4"))
    assert (partial_path(path) / "zarr.json").exists()
    solve([*game, "--method", "tiers"], tmp_path / "db")
    for x, y in zip(faults.arrays(game, str(tmp_path / "ref")),
                    faults.arrays(game, str(tmp_path / "db")), strict=True):
        assert np.array_equal(x, y)


@pytest.mark.parametrize("after,group", [(0.8, True), (1.6, True), (2.4, True),
                                         (2.4, False)])
def test_ctrl_c_while_a_cluster_starts_or_runs_then_a_resume_is_identical(tmp_path, after,
                                                                         group):
    """`--workers 2`, Connect-4 5x4 in small tasks (4-5 s here, the cluster up after
    about 2): SIGINT to the process group (a terminal's Ctrl-C, which reaches the workers
    and the forkserver too) while the cluster starts or runs, or to the process alone.
    The process and its workers end at once; the resume is exact. (A Ctrl-C that hits a
    helper interpreter in its first tenth of a second, the forkserver or multiprocessing's
    resource tracker, can add that interpreter's traceback: so the last line, not the
    only one, is asserted where the whole group is signalled.)"""
    game = ["connect4", "-V", "width=5,height=4"]
    task = 1 << 17
    db = tmp_path / "db"
    db.mkdir()
    ref = faults.reference(game, "dfs", str(tmp_path / "ref"))
    proc, err = start([*game, "--workers", "2", "--method", "tiers"], str(db),
                      chunk_task=task)
    took, text = stop(proc, err, after, group)
    assert proc.returncode == 130, text
    assert (text.splitlines()[-1:] if group else text.splitlines()) == ["gsolve: interrupted"]
    assert took < LIMIT, f"stopped {took:.2f} s after SIGINT"
    code, text = faults.gsolve([*game, "--workers", "2"], str(db), task, task)
    assert faults.judge(code, text, game, str(db), ref) == "identical"


SWALLOWS = """
import subprocess, sys, time
from solver.command import stopping
import signal
signal.signal(signal.SIGINT, stopping.stop_handler("gsolve: interrupted", 130, None))
child = subprocess.Popen([sys.executable, "-c",
                          "import subprocess, sys; subprocess.run(['sleep', '60'])"])
print(child.pid, flush=True)
while True:
    try:
        time.sleep(0.01)
    except BaseException:  # where Python swallows the signal's exception
        pass
"""


def test_a_ctrl_c_that_is_swallowed_still_ends_the_command_and_its_processes(tmp_path):
    """The grace path: the signal's exception lost (as numba's compiler was seen to lose
    one), the command still ends within GRACE with its one line and exit 130, and the
    processes it started (a child and the child's own child) end with it."""
    from solver.command.stopping import GRACE

    proc = subprocess.Popen([sys.executable, "-c", SWALLOWS], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    child = int(proc.stdout.readline())
    deadline = time.perf_counter() + 10
    while len(session(proc.pid)) < 3 and time.perf_counter() < deadline:
        time.sleep(0.01)  # python, its child python, and that one's sleep
    below = [p for p in session(proc.pid) if p != proc.pid]
    assert child in below and len(below) == 2, below
    t0 = time.perf_counter()
    os.kill(proc.pid, signal.SIGINT)
    try:
        proc.wait(timeout=30)
        took = time.perf_counter() - t0
        time.sleep(0.2)
        left = session(proc.pid)
    finally:
        for pid in session(proc.pid):
            os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 130 and proc.stderr.read() == "gsolve: interrupted\n"
    assert GRACE <= took < GRACE + 1, f"ended {took:.2f} s after SIGINT"
    assert left == [], "its processes outlived it"


LOST_IN_A_CALLBACK = """
import weakref
from solver.command.stopping import Stopped, catching_stops

class Thing:
    pass

def lands(kind):
    def callback(ref):
        raise kind("gsolve: interrupted", 130) if kind is Stopped else kind("a real bug")
    thing = Thing()
    ref = weakref.ref(thing, callback)
    del thing  # the callback runs here and Python swallows what it raises

with catching_stops(None):
    lands(Stopped)
    lands(ValueError)
lands(Stopped)
"""


def test_a_stop_python_swallows_prints_nothing_and_other_errors_still_print():
    """A signal's Stopped that lands in a weakref callback (importlib's module lock has one)
    is not printed as "Exception ignored": the grace timer ends the command with its one
    line. Any other swallowed error still prints, and the hook is undone after."""
    done = subprocess.run([sys.executable, "-c", LOST_IN_A_CALLBACK], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("Exception ignored") == 2, done.stderr
    assert "ValueError: a real bug" in done.stderr
    assert done.stderr.count("Stopped: gsolve: interrupted") == 1, done.stderr
