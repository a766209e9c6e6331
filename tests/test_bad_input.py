"""Bad input a new user met (issue 44): each is one clear line on stderr and exit 2, found
before any work, and what a refused run made is gone again."""

import errno
import json
import os
import time

import pytest

from solver.command.cli import main
from solver.command.options import one_line


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *args) -> str:
    """The one line a refused command prints (exit 2)."""
    code, out, err = run(capsys, *args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("gsolve: error: "), (
        code, out, err)
    return lines[0]


@pytest.fixture
def solved(tmp_path, capsys):
    db = tmp_path / "db"
    assert run(capsys, "tictactoe", "--db", str(db), "-q")[0] == 0
    return db


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("command", [["tictactoe"], ["verify", "tictactoe"]])
def test_memory_that_is_no_number_of_gib(db, capsys, command, value):
    line = refused(capsys, *command, "--memory", value, "--db", str(db))
    assert "--memory" in line and value in line and "internal" not in line
    assert not db.exists()


@pytest.mark.parametrize("value", ["0", "1K", "9M"])
def test_gsolve_memory_too_small_names_the_setting(db, capsys, monkeypatch, value):
    """It said "bad variant 'default'": the refusal's suggestion rebuilt the game from its
    variant key, which is 'default' for a game without keys."""
    monkeypatch.setenv("GSOLVE_MEMORY", value)
    line = refused(capsys, "tictactoe", "--db", str(db))
    assert f"GSOLVE_MEMORY='{value}'" in line and "less than 10M" in line


def test_gsolve_memory_that_holds_no_solve_names_the_setting(db, capsys, monkeypatch):
    monkeypatch.setenv("GSOLVE_MEMORY", "64M")
    line = refused(capsys, "tictactoe", "--db", str(db))
    assert "allowed by GSOLVE_MEMORY=64M" in line and "variant" not in line
    line = refused(capsys, "connect4", "--method", "tiers", "--db", str(db))
    assert "default budget" in line and "GSOLVE_MEMORY=64M" in line
    assert not db.exists()


@pytest.mark.parametrize("args,near", [(["frobnicate", "tictactoe"], None),
                                       (["querry", "tictactoe"], "query"),
                                       (["tictactoee", "hexapawn"], "tictactoe")])
def test_unknown_command_before_a_game(db, capsys, args, near):
    line = refused(capsys, *args, "--db", str(db))
    assert f"no such command or game '{args[0]}'" in line and "commands: analyze" in line
    assert (f"did you mean '{near}'" in line) if near else "did you mean" not in line


def test_a_game_alone_is_still_solved_and_an_unknown_one_named(db, capsys):
    assert run(capsys, "tictactoe", "--db", str(db), "-q")[0] == 0
    assert "unknown game 'frobnicate'" in refused(capsys, "frobnicate", "--db", str(db))


def test_verify_show_below_zero(solved, capsys):
    line = refused(capsys, "verify", "tictactoe", "--show", "-1", "--db", str(solved))
    assert "--show" in line and "-1" in line


@pytest.mark.parametrize("command", [["analyze", "tictactoe", "--paths"],
                                     ["learn", "hexapawn", "--games", "5000"]])
def test_plot_of_an_unknown_format_refused_before_the_work(tmp_path, capsys, command):
    """It was refused only once the analysis or the training was done."""
    assert run(capsys, command[1], "--db", str(tmp_path), "-q")[0] == 0
    t0 = time.perf_counter()
    line = refused(capsys, *command, "--plot", str(tmp_path / "out.txt"), "--db",
                   str(tmp_path))
    assert "out.txt: name a .png, .svg or .pdf file" in line
    assert time.perf_counter() - t0 < 0.5
    assert not (tmp_path / "out.txt").exists()


def test_unreachable_scheduler_refused_at_once(db, capsys):
    """Dask's client printed 30 s of "starting" first."""
    t0 = time.perf_counter()
    line = refused(capsys, "connect4", "--method", "tiers", "--scheduler",
                   "tcp://127.0.0.1:1", "--db", str(db))
    assert time.perf_counter() - t0 < 5
    assert "cannot reach a Dask scheduler at tcp://127.0.0.1:1" in line
    assert not db.exists()


def test_long_paths_in_a_message_are_printed_whole(tmp_path):
    """The disk-full message cut the database path in the middle (one_line shortens long
    words, meant for positions): a path or URL stays whole, a long position does not."""
    deep = tmp_path / ("a-rather-long-folder-name" * 3) / "connect4" / "width=5,height=4.partial"
    text = (f"No space left on device writing {deep}: rerun `gsolve connect4 --db "
            f"{deep.parent}` or s3://bucket/{'x' * 80}")
    assert one_line(text) == text
    position = "/".join(["XO-XO-X"] * 12)
    assert "..." in one_line(f"bad position {position}")


def test_a_full_disk_under_dfs_names_the_database(db, capsys, monkeypatch):
    """An error from deep in the store (no file named) names the database it writes."""
    import solver.methods.whole as solving  # where a whole-hash method writes

    def full(*args, **kw):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(solving, "write_arrays", full)
    line = refused(capsys, "tictactoe", "--db", str(db))
    assert line.endswith(f"No space left on device: {db / 'tictactoe' / 'default'}")


def test_play_saves_the_brain_when_the_game_is_quit(solved, tmp_path, capsys, monkeypatch):
    import io

    brain = tmp_path / "brain.json"
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, err = run(capsys, "play", "tictactoe", "--opponent", "learner", "--as",
                         "second", "--brain", str(brain), "--seed", "1", "--db", str(solved))
    assert code == 0 and "quit" in out, (out, err)
    data = json.loads(brain.read_text())
    assert data["games"] == 0 and len(data["boxes"]) == 1  # the box of its first move


def test_damaged_borrow_store_is_one_line(tmp_path, capsys):
    """A chunk of the store to borrow from that fails its checksum: "internal error:
    ValueError", exit 1, before."""
    src = tmp_path / "src"
    c4 = ["connect4", "-V", "width=4,height=4"]
    assert run(capsys, *c4, "--db", str(src), "-q")[0] == 0
    store = src / "connect4" / "width=4,height=4,connect=4"
    chunk = store / "value" / "c" / "0"
    chunk.write_bytes(chunk.read_bytes()[:100])
    db = tmp_path / "db"
    line = refused(capsys, *c4, "--method", "tiers", "--borrow", str(store), "--db", str(db))
    assert f"--borrow {store}: chunk 0 of value is" in line and "internal" not in line


@pytest.mark.parametrize("borrow", ["{tmp}/none", "{tmp}/junk"])
def test_refused_borrow_leaves_no_lock_file(tmp_path, capsys, borrow):
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "zarr.json").write_text("{")
    db = tmp_path / "db"
    refused(capsys, "connect4", "--method", "tiers", "--borrow",
            borrow.format(tmp=tmp_path), "--db", str(db))
    assert not db.exists()  # the lock file and the folders made for it are gone


def test_a_lock_refusal_and_a_finished_solve_leave_what_they_found(tmp_path, capsys):
    """A solve refused because another holds the lock leaves the holder's lock file; a
    run with nothing beside its lock file at the end removes it."""
    from filelock import FileLock

    from games import get_game
    from solver.storage.database import group_path
    from solver.storage.stores import lock_path

    db = tmp_path / "db"
    path = group_path(db, get_game("tictactoe"))
    path.parent.mkdir(parents=True)
    held = FileLock(str(lock_path(path)), thread_local=False)
    held.acquire()
    try:
        assert "is being solved by" in refused(capsys, "tictactoe", "--db", str(db))
        assert lock_path(path).exists()
    finally:
        held.release()
    assert run(capsys, "tictactoe", "--db", str(db), "-q")[0] == 0
    assert sorted(os.listdir(path.parent)) == ["default", "default.lock"]  # kept beside it


def test_solved_database_on_a_read_only_disk_prints_its_summary(solved, capsys, monkeypatch):
    """Re-running the solve of a database on a read-only disk failed "cannot lock": a
    place nothing can be written to needs no writer lock. (Tests may run as root, which
    chmod does not stop: the lock's open is made to fail as on a read-only mount.)"""
    from solver.storage import stores

    class ReadOnly(stores.FileLock):
        def acquire(self, *args, **kw):
            raise OSError(errno.EROFS, "Read-only file system", self.lock_file)

    monkeypatch.setattr(stores, "FileLock", ReadOnly)
    code, out, err = run(capsys, "tictactoe", "--db", str(solved))
    assert code == 0 and "already solved" in out and "5,478" in out, err


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod")
def test_solved_database_in_a_read_only_folder_prints_its_summary(solved, capsys):
    folder = solved / "tictactoe"
    (folder / "default.lock").unlink()
    os.chmod(folder, 0o555)
    try:
        code, out, err = run(capsys, "tictactoe", "--db", str(solved))
        assert code == 0 and "already solved" in out, err
    finally:
        os.chmod(folder, 0o755)
