"""Trust the database (issue 7): one writer per variant, damage always detected, stale
leftovers removed, signals, and `gsolve verify` (which must pass healthy databases and
name a bad position in damaged ones)."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import zarr
from hooked import command as hooked

import solver.storage.database as database
from games import get_game
from games.base import GsolveError
from solver.command.cli import main
from solver.methods.solve import solve
from solver.methods.verify import verify
from solver.storage.database import DamagedDatabase, Database, group_path
from solver.storage.stores import lock_path, writer_lock

C4 = "width=4,height=4"


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def gsolve(*args, env=None, pause: float = 0.0, **kw):
    """`gsolve ARGS` in a fresh process; with `pause`, sleeping that many seconds after
    each piece of a tiered solve (tests/hooked.py)."""
    cmd = [*(hooked("--pause", str(pause)) if pause else [sys.executable, "-m", "solver"]),
           *args]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kw)


def gsolve_primed(*args, env=None):
    """`gsolve ARGS` in a fresh process that has imported everything and starts when its
    `go` is called: its start-up time does not race the test's timing."""
    code = ("import sys; from solver.command.cli import main; "
            "import solver.methods.solve, solver.storage.stores; "
            f"sys.stdin.readline(); sys.exit(main({list(args)!r}))")
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def go():
        proc.stdin.write("\n")
        proc.stdin.flush()

    proc.go = go
    return proc


def arrays(game, root):
    db = Database.open(game, root)
    return db.value_array[:], db.remoteness_array[:]


def wait_for(cond, what, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def lock_holder(path):
    try:
        return lock_path(path).read_text().strip()
    except OSError:
        return ""


# -- one writer per variant ------------------------------------------------------------------
def test_concurrent_solves_one_is_refused_the_other_waits(tmp_path, capsys):
    """While a tiered solve holds the variant, a second solve (any method) stops at once
    naming its pid (exit 2), a third with --wait waits and then finds it solved; the
    database left equals a fresh solve's."""
    game = get_game("connect4", "width=3,height=4")
    root = tmp_path / "db"
    path = group_path(root, game)
    env = dict(os.environ, GSOLVE_DB=str(root))
    cmd = ("connect4", "-V", "width=3,height=4", "--quiet")
    second = gsolve_primed(*cmd, "--method", "dfs", env=env)
    third = gsolve_primed(*cmd, "--wait", env=env)
    # a pause after each piece of work keeps the first solve going for a second or more
    first = gsolve(*cmd, "--method", "tiers", env=env, pause=0.05)
    wait_for(lambda: lock_holder(path) == str(first.pid), "the first solve to hold the lock")
    second.go()
    third.go()
    out, err = second.communicate(timeout=120)
    assert first.poll() is None, "the first solve ended too soon for this test"
    assert second.returncode == 2, (out, err)
    assert out == "" and err.count("\n") == 1
    assert f"pid {first.pid}" in err and "--wait" in err
    code, out, err = run(capsys, "query", "connect4", "-V", "width=3,height=4", "--db", str(root))
    assert code == 2 and f"being solved now by pid {first.pid}" in err
    out1, err1 = first.communicate(timeout=120)
    out3, err3 = third.communicate(timeout=120)
    assert first.returncode == 0 and "with tiers" in out1, err1
    assert third.returncode == 0 and "already solved (tiers)" in out3, err3
    solve(game, "bottomup", root=tmp_path / "fresh")
    for x, y in zip(arrays(game, root), arrays(game, tmp_path / "fresh"), strict=True):
        assert np.array_equal(x, y)


def test_lock_is_per_variant_and_refuses_in_process(tmp_path):
    small, other = get_game("connect4", "width=3,height=4"), get_game("connect4", C4)
    with writer_lock(group_path(tmp_path, small), "it"):
        with pytest.raises(GsolveError, match="being solved by pid"):
            solve(small, "dfs", root=tmp_path)
        solve(other, "dfs", root=tmp_path)  # another variant is not held
    assert solve(small, "dfs", root=tmp_path).positions > 0  # released


# -- stale leftovers and signals ------------------------------------------------------------
def dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_sigkill_leftovers_are_removed_by_the_next_solve(tmp_path):
    """A solve killed while writing leaves `<key>.partial-<pid>`; the next solve of the
    variant removes it (and those of other dead pids), never a live writer's."""
    game = get_game("connect4", C4)
    root = tmp_path / "db"
    path = group_path(root, game)
    env = dict(os.environ, GSOLVE_DB=str(root))
    for _ in range(5):  # the write lasts a fraction of a second: catch it
        proc = gsolve("connect4", "-V", C4, "--method", "bottomup", "--quiet", "--force",
                      env=env)
        partial = path.with_name(f"{path.name}.partial-{proc.pid}")
        while proc.poll() is None and not partial.exists():
            time.sleep(0.001)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        if partial.exists():
            break
    assert partial.exists(), "never caught the solve while it wrote"
    stale = path.with_name(f"{path.name}.partial-{dead_pid()}")
    stale.mkdir()
    live = path.with_name(f"{path.name}.partial-1")  # pid 1 is alive: not ours to remove
    live.mkdir()
    solve(game, "dfs", root=root, force=True)
    assert not partial.exists() and not stale.exists()
    assert live.exists()
    assert Database.open(game, root).attrs["positions"] == 161029


def test_swap_cut_short_puts_the_old_database_back(tmp_path):
    game = get_game("tictactoe")
    solve(game, "dfs", root=tmp_path)
    path = group_path(tmp_path, game)
    old = path.with_name(f"{path.name}.old-{dead_pid()}")
    os.replace(path, old)  # killed between the two renames of a re-solve
    assert solve(game, "dfs", root=tmp_path).reused
    assert not old.exists()


def test_sigterm_prints_one_line_and_releases(tmp_path):
    game = get_game("tictactoe")
    root = tmp_path / "db"
    path = group_path(root, game)
    env = dict(os.environ, GSOLVE_DB=str(root))
    proc = gsolve("tictactoe", "--method", "tiers", "--quiet", env=env, pause=0.3)
    wait_for(lambda: lock_holder(path) == str(proc.pid), "the solve to hold the lock")
    wait_for(lambda: (path.with_name(f"{path.name}.partial") / "zarr.json").exists(),
             "the tiers store")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert out == "" and err == "gsolve: terminated\n"
    assert solve(game, root=root).method == "tiers"  # lock released; resumed


def test_killed_tier_solve_is_unfinished_then_resumed_or_replaced(tmp_path, capsys):
    game = get_game("tictactoe")
    root = tmp_path / "db"
    path = group_path(root, game)
    meta = path.with_name(f"{path.name}.partial") / "zarr.json"
    env = dict(os.environ, GSOLVE_DB=str(root))

    def killed_midway():
        proc = gsolve("tictactoe", "--method", "tiers", "--quiet", "--force", env=env,
                      pause=0.3)

        def some_done():
            try:
                return len(json.loads(meta.read_text())["attributes"]["tiers_done"]) >= 2
            except (OSError, ValueError, KeyError):
                return False

        wait_for(some_done, "two finished tiers")
        proc.send_signal(signal.SIGKILL)
        proc.wait()

    killed_midway()
    for cmd in ("query", "analyze"):
        code, out, err = run(capsys, cmd, "tictactoe", "--db", str(root))
        assert code == 2 and out == ""
        assert "unfinished solve" in err and "--method tiers` to resume" in err, err
    # a plain rerun resumes it with tiers
    code, out, err = run(capsys, "tictactoe", "--db", str(root))
    assert code == 0 and "with tiers" in out
    # killed again, then solved with another method: the partial is removed, and said so
    killed_midway()
    code, out, err = run(capsys, "tictactoe", "--db", str(root), "--method", "dfs", "--force")
    assert code == 0 and "removed the interrupted tiers solve" in err
    assert not meta.parent.exists()
    assert verify(game, root).sound


# -- damage is always detected ------------------------------------------------------------------
@pytest.fixture
def small_chunks(monkeypatch):
    """Many chunks from small variants: 4,096 positions a chunk."""
    monkeypatch.setattr(database, "CHUNK", 1 << 12)


def chunk_file(root, game, array, c):
    return group_path(root, game) / array / "c" / str(c)


def truncate(f):
    f.write_bytes(f.read_bytes()[:-7])


def flip(f):
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0x5A
    f.write_bytes(bytes(b))


@pytest.mark.parametrize("array,harm", [
    ("value", "delete"), ("remoteness", "delete"), ("value", "truncate"),
    ("remoteness", "flip"),
])
def test_damaged_chunk_is_refused_everywhere(tmp_path, capsys, small_chunks, array, harm):
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    # damage the chunk of a reachable, non-primitive position with a remoteness
    value, rem = arrays(game, tmp_path)
    h = int(np.flatnonzero((value == 4) & (rem >= 3))[100])
    c = h // database.CHUNK
    f = chunk_file(tmp_path, game, array, c)
    {"delete": os.remove, "truncate": truncate, "flip": flip}[harm](f)
    pos = game.to_string(h)
    db = ["--db", str(tmp_path), "-V", C4]
    for cmd in (["query", "connect4", pos], ["analyze", "connect4"], ["connect4"]):
        code, out, err = run(capsys, *cmd, *db)
        assert code == 2, (cmd, out, err)
        assert "already solved" not in out and "damaged database" in err
        assert "gsolve verify connect4" in err and "--force" in err
        assert err.count("\n") == 1
    code, out, err = run(capsys, "verify", "connect4", *db, "--show", "5")
    assert code == 1 and "NOT SOUND" in out
    code, js, err = run(capsys, "verify", "connect4", *db, "--show", "5", "--json")
    report = json.loads(js)
    assert code == 1 and not report["sound"]
    lo, hi = c * database.CHUNK, (c + 1) * database.CHUNK
    named = [p["position"] for p in report["details"] if p["position"]]
    in_chunk = [p for p in named if lo <= game.from_string(p) < hi]
    assert in_chunk and in_chunk[0] in out, out  # a position the damaged chunk held
    # --force solves it again, soundly
    code, out, err = run(capsys, "connect4", *db, "--force", "--method", "dfs")
    assert code == 0 and verify(game, tmp_path).sound


def test_verify_catches_a_wrong_value_with_a_valid_checksum(tmp_path, small_chunks):
    """Swap the records of a win and a loss (so every count stays the same) through zarr:
    every checksum and the chunk record are good, the open succeeds, and only re-deriving
    from the children finds both positions."""
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    value, rem = arrays(game, tmp_path)
    w = int(np.flatnonzero((value == 4) & (rem == 5))[50])
    lose = int(np.flatnonzero((value == 1) & (rem == 4))[50])
    group = zarr.open_group(str(group_path(tmp_path, game)), mode="r+")
    group["value"][w], group["value"][lose] = 1, 4
    Database.open(game, tmp_path)  # nothing cheap to see
    report = verify(game, tmp_path, show=100000)
    assert not report.sound and not any("attribute" in p.text for p in report.details)
    bad = {p.hash for p in report.details}
    assert {w, lose} <= bad
    assert report.details[0].position == game.to_string(report.details[0].hash)


def test_old_format_and_missing_record_are_refused(tmp_path, capsys):
    game = get_game("tictactoe")
    solve(game, "dfs", root=tmp_path)
    group = zarr.open_group(str(group_path(tmp_path, game)), mode="r+")
    del group.attrs["chunks"]
    with pytest.raises(DamagedDatabase, match="no record of its chunks"):
        Database.open(game, tmp_path)
    group.attrs["format"] = 1
    code, out, err = run(capsys, "query", "tictactoe", "--db", str(tmp_path))
    assert code == 2 and "older gsolve" in err and "--force" in err


# -- verify passes healthy databases ------------------------------------------------------------
@pytest.mark.parametrize("name,variant,method", [
    ("tictactoe", None, "dfs"),
    ("connect4", C4, "tiers"),
    ("hanoi", "disks=4,pegs=3", "retrograde"),  # a loopy puzzle
    ("pegsolitaire", None, "dfs"),  # a loop-free puzzle
    ("morris", None, "retrograde"),  # loopy, with draws
])
def test_verify_passes_a_healthy_database(tmp_path, capsys, name, variant, method):
    game = get_game(name, variant)
    solve(game, method, root=tmp_path)
    args = ["verify", name, "--db", str(tmp_path)] + (["-V", variant] if variant else [])
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, out
    report = json.loads(out)
    assert report["sound"] and report["problems"] == 0
    assert report["reachable"] == report["stored"] == Database.open(game, tmp_path).attrs[
        "positions"]
    assert report["sampled"] >= min(report["reachable"], 100)


def test_verify_walks_a_symmetric_database_on_canonical_positions(tmp_path):
    """Solved with symmetry, only canonical positions are stored: verify walks those (765
    for tic-tac-toe, the published count of positions up to symmetry) and still finds a
    wrong one."""
    game = get_game("tictactoe")
    solve(game, "dfs", root=tmp_path, symmetry=True)
    report = verify(get_game("tictactoe"), tmp_path)
    assert report.sound and report.symmetry and report.reachable == 765
    group = zarr.open_group(str(group_path(tmp_path, game)), mode="r+")
    value = group["value"][:]
    h = int(np.flatnonzero(value == 3)[5])  # a tie, made a win
    group["value"][h] = 4
    report = verify(get_game("tictactoe"), tmp_path, show=1000)
    assert not report.sound and h in {p.hash for p in report.details}
