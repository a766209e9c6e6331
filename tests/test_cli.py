"""The gsolve command: solve, query, analyze, list, and one-line errors for bad input."""

import json
import os
import subprocess
import sys

import pytest

from solver.command.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def solved_db(db, capsys):
    code, out, _ = run(capsys, "tictactoe", "--db", str(db))
    assert code == 0 and "solved tictactoe" in out
    return db


def test_solve_summary_and_reuse(solved_db, capsys):
    code, out, _ = run(capsys, "solve", "tictactoe", "--db", str(solved_db))
    assert code == 0
    assert "already solved" in out and "5,478" in out
    code, out, _ = run(capsys, "tictactoe", "--db", str(solved_db), "--force", "--json")
    summary = json.loads(out)
    assert summary["reused"] is False and summary["positions"] == 5478
    assert summary["start"] == {"position": "---/---/---", "value": "tie", "remoteness": 9}


def test_query_json(solved_db, capsys):
    code, out, _ = run(capsys, "query", "tictactoe", "X--/-O-/--X", "--json", "--db",
                       str(solved_db))
    assert code == 0
    obj = json.loads(out)
    assert obj["position"] == "X--/-O-/--X"
    assert obj["value"] == "tie" and obj["remoteness"] == 6
    assert len(obj["moves"]) == 6
    for m in obj["moves"]:
        assert set(m) == {"move", "position", "value", "remoteness"}


def test_query_start_text(solved_db, capsys):
    code, out, _ = run(capsys, "query", "tictactoe", "--db", str(solved_db))
    assert code == 0 and out.startswith("---/---/---  tie in 9")


def test_query_stdin(solved_db, capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("---/---/---\nXXX/OO-/---\n\n"))
    code, out, _ = run(capsys, "query", "tictactoe", "-", "--json", "--db", str(solved_db))
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and [x["value"] for x in lines] == ["tie", "lose"]
    assert lines[1]["moves"] == []


def test_analyze(solved_db, capsys):
    code, out, _ = run(capsys, "analyze", "tictactoe", "--json", "--paths", "--db",
                       str(solved_db))
    assert code == 0
    report = json.loads(out)
    assert report["positions"] == 5478
    assert report["values"] == {"win": 2836, "lose": 1574, "tie": 1068}
    assert report["start"] == {"position": "---/---/---", "value": "tie", "remoteness": 9}
    assert report["max_remoteness"] == 9
    assert report["remoteness"]["9"] == {"tie": 1}
    assert sum(sum(r.values()) for r in report["remoteness"].values()) == 5478
    # 255,168 possible games: 131,184 + 77,904 won (the loser is to move), 46,080 drawn
    assert report["paths"] == {"lose": 209088, "tie": 46080}
    code, out, _ = run(capsys, "analyze", "tictactoe", "--db", str(solved_db))
    assert code == 0 and "remoteness" in out


def test_analyze_tiers_counts_each_tier(solved_db, db, capsys):
    """--tiers: tic-tac-toe's positions by pieces on the board are the published counts
    (1, 9, 72, 252, 756, 1,260, 1,520, 1,140, 390, 78); a game without tiers is a
    one-line error."""
    code, out, _ = run(capsys, "analyze", "tictactoe", "--json", "--tiers", "--db",
                       str(solved_db))
    assert code == 0
    tiers = json.loads(out)["tiers"]
    assert [(t["tier"], t["positions"]) for t in tiers] == [
        (f"{n} pieces", c) for n, c in enumerate(
            (1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78))]
    assert tiers[9]["values"] == {"lose": 62, "tie": 16}  # 62 lines made, 16 full ties
    code, out, _ = run(capsys, "analyze", "tictactoe", "--tiers", "--db", str(solved_db))
    assert code == 0
    assert "9 pieces              0             62             16              78" in out
    # solved with symmetry: every tier's positions as before, and its canonical ones, the
    # essentially different positions after n moves (1, 3, 12, 38, 108, 174, 204, 153,
    # 57, 15: 765 in all)
    sym = str(db / "symmetric")
    code, _, _ = run(capsys, "tictactoe", "--symmetry", "--db", sym)
    assert code == 0
    code, out, _ = run(capsys, "analyze", "tictactoe", "--tiers", "--json", "--db", sym)
    assert code == 0
    rows = json.loads(out)["tiers"]
    assert [r["positions"] for r in rows] == [t["positions"] for t in tiers]
    assert [r["canonical"]["positions"] for r in rows] == [
        1, 3, 12, 38, 108, 174, 204, 153, 57, 15]
    code, out, _ = run(capsys, "analyze", "tictactoe", "--tiers", "--db", sym)
    assert code == 0
    assert "positions      canonical" in out
    assert out.splitlines()[-1].split()[-2:] == ["78", "15"]  # 9 pieces: all, canonical
    code, _, _ = run(capsys, "hanoi", "--db", str(db))
    code, _, err = run(capsys, "analyze", "hanoi", "--tiers", "--db", str(db))
    assert code != 0 and "hanoi has no tiers" in err and "Traceback" not in err


def test_analyze_counts_many_chunks_on_the_pool_with_progress(db, capsys):
    """A database of several chunks is counted on the thread pool, windows in order, and
    the counts are those of one pass over the arrays; progress hears `chunk N (of M)`."""

    from games import get_game
    from solver.storage.database import Database
    from solver.use.analysis import analyze

    code, _, _ = run(capsys, "connect4", "-V", "width=5,height=4", "--db", str(db))
    assert code == 0
    opened = Database.open(get_game("connect4", "width=5,height=4"), db)
    assert opened.nchunks > 2

    class Heard:
        def __init__(self):
            self.steps = []

        def update(self, phase, step, detail=""):
            self.steps.append((phase, step, detail))

        def remaining(self, seconds, done=1.0):
            assert seconds >= 0 and 0 < done < 1

    heard = Heard()
    report = analyze(opened, heard)
    value = opened.value_array[:]
    words = {4: "win", 1: "lose", 3: "tie"}
    assert report["values"] == {w: int((value == v).sum()) for v, w in words.items()}
    steps = [s for _, s, _ in heard.steps]
    assert steps[0] == 0 and steps == sorted(steps) and steps[-1] < opened.nchunks
    assert heard.steps[0] == ("chunk", 0, f"of {opened.nchunks:,}")
    code, out, _ = run(capsys, "analyze", "connect4", "-V", "width=5,height=4", "--db",
                       str(db))
    assert code == 0 and "3,945,711 reachable positions" in out
    # by tier: tiers cross chunk boundaries; each tier's counts are its slots' values
    tiers = sorted(opened.game.tiers(), key=lambda t: t.start)
    rows = analyze(opened, by_tier=True)["tiers"]
    assert [r["tier"] for r in rows] == [t.label for t in tiers]
    for t, row in zip(tiers, rows, strict=True):
        part = value[t.start:t.stop]
        assert row["values"] == {w: int((part == v).sum()) for v, w in words.items()
                                 if (part == v).any()}, t.label


def test_list(capsys):
    code, out, _ = run(capsys, "list", "--json")
    rows = {r["game"]: r for r in json.loads(out)}
    assert "bottomup" in rows["tictactoe"]["methods"]


@pytest.mark.parametrize("args,needle", [
    (["nosuchgame"], "unknown game 'nosuchgame'"),
    (["tictactoe", "--method", "magic"], "unknown method 'magic'"),
    (["tictactoe", "-V", "size=4"], "no variant key 'size'"),
    (["tictactoe", "-V", "garbage"], "expected key=value"),
    (["query", "tictactoe", "XX/---/---"], "row 1 should have 3 cells"),
    (["query", "tictactoe", "XQ-/---/---"], "'Q' is not one of"),
    (["query", "tictactoe", "XXX/---/---"], "cannot occur"),
    (["query", "tictactoe", "XXX/XOO/OO-"], "cannot be reached"),
    (["query", "tictactoe", "---/---"], "3 rows"),
    (["tictactoe", "--frobnicate"], "No such option"),
])
def test_bad_input_is_one_line_exit_2(solved_db, capsys, args, needle):
    code, out, err = run(capsys, *args, "--db", str(solved_db))
    assert code == 2
    assert needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_missing_and_unfinished_database(db, capsys, tmp_path):
    code, _, err = run(capsys, "query", "tictactoe", "--db", str(db))
    assert code == 2 and "no database" in err and "gsolve tictactoe" in err
    run(capsys, "tictactoe", "--db", str(db))
    meta = db / "tictactoe" / "default" / "zarr.json"
    doc = json.loads(meta.read_text())
    doc["attributes"]["complete"] = False
    meta.write_text(json.dumps(doc))
    code, _, err = run(capsys, "query", "tictactoe", "--db", str(db))
    assert code == 2 and "unfinished" in err
    # an unfinished database is solved again, not reused
    code, out, _ = run(capsys, "tictactoe", "--db", str(db))
    assert code == 0 and "solved tictactoe" in out


def test_corrupt_and_foreign_database(db, capsys):
    run(capsys, "tictactoe", "--db", str(db))
    meta = db / "tictactoe" / "default" / "zarr.json"
    good = meta.read_text()
    doc = json.loads(good)
    doc["attributes"]["game"] = "connect4"
    meta.write_text(json.dumps(doc))
    code, _, err = run(capsys, "query", "tictactoe", "--db", str(db))
    assert code == 2 and "holds game 'connect4'" in err
    meta.write_text("{not json")
    code, _, err = run(capsys, "query", "tictactoe", "--db", str(db))
    assert code == 2 and "corrupt database" in err
    # a corrupt database is never silently replaced
    code, _, err = run(capsys, "tictactoe", "--db", str(db))
    assert code == 2 and "corrupt" in err
    assert meta.read_text() == "{not json"


def test_console_script_and_compile_cache(tmp_path):
    """A second run loads every kernel from numba's cache: no compilation. The kernels
    are generated under a folder never used before: numba's cache (the suite's, inherited)
    keys them by path, and pytest's temporary paths recur from run to run."""
    import uuid

    env = dict(os.environ, GSOLVE_CACHE=str(tmp_path / f"cache-{uuid.uuid4().hex}"))
    probe = (
        "from games import get_game; from solver.methods import bottomup;"
        "g = get_game('tictactoe'); bottomup.warm_up(g); k = bottomup.load(g);"
        "names = ['visit', 'resolve_winlose', 'resolve_reach', 'fill_undecided'];"
        "print(sum(sum(getattr(k, n).stats.cache_misses.values()) for n in names),"
        "sum(sum(getattr(k, n).stats.cache_hits.values()) for n in names))"
    )
    first = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                           text=True, check=True)
    second = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                            text=True, check=True)
    assert first.stdout.split()[0] == "4"
    assert second.stdout.split() == ["0", "4"]


# -- issue 7, failure 4: user mistakes that ended as "internal error", exit 1 -------------
@pytest.mark.parametrize("args,needle", [
    (["tictactoe", "--db", "{file}"], "is a file, not a folder"),
    (["tictactoe", "--db", "{file}/below"], "is a file, not a folder"),
    (["tictactoe", "--db", "/proc/gsolve"], "under /proc"),
    (["tictactoe", "--db", "/sys/kernel"], "under /sys"),
    (["bench", "quarto", "-V", "size=4,attributes=4"], "hash slots"),
])
def test_mistakes_are_one_line_exit_2(tmp_path, capsys, args, needle):
    afile = tmp_path / "afile"
    afile.write_text("not a database")
    code, _, err = run(capsys, *(a.format(file=afile) for a in args))
    assert code == 2, err
    assert needle in err and len(err.strip().splitlines()) == 1 and len(err) < 400


def test_long_position_is_shortened(solved_db, capsys):
    code, _, err = run(capsys, "query", "tictactoe", "X" * 5000, "--db", str(solved_db))
    assert code == 2 and "XXX...XXX" in err and len(err) < 300


def test_bad_thread_count_is_one_line(db, capsys, monkeypatch):
    monkeypatch.setenv("GSOLVE_THREADS", "abc")
    code, _, err = run(capsys, "hanoi", "--method", "bottomup", "--db", str(db))
    assert code == 2 and "GSOLVE_THREADS" in err and len(err.strip().splitlines()) == 1


# -- issue 23: user mistakes that ended as exit 1, a late failure, or nothing at all -------
def one_error_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("gsolve: error: ")
    return lines[0]


@pytest.mark.parametrize("address", ["garbage", "tcp://host", "tcp://host:99999",
                                     "http://host:8786", ":8786", "host:port"])
def test_scheduler_that_is_no_address_is_refused_before_connecting(db, capsys, address):
    code, out, err = run(capsys, "tictactoe", "--method", "tiers", "--scheduler", address,
                         "--db", str(db))
    assert code == 2
    line = one_error_line(err)
    assert f"'{address}' is not a Dask scheduler address" in line
    assert "tcp://HOST:PORT" in line
    assert not (db / "tictactoe").exists()  # nothing was started


@pytest.mark.parametrize("address", ["tcp://10.0.0.5:8786", "scheduler-host:8786",
                                     "tls://[::1]:8786", "inproc://10.0.0.5/123/1"])
def test_scheduler_address_forms_accepted(address):
    from solver.command.options import scheduler_address

    assert scheduler_address(None, None, address) == address


def test_scheduler_and_workers_exclude_each_other(db, capsys):
    code, _, err = run(capsys, "tictactoe", "--method", "tiers", "--scheduler",
                       "tcp://127.0.0.1:9", "--workers", "2", "--db", str(db))
    assert code == 2
    line = one_error_line(err)
    assert "--scheduler and --workers exclude each other" in line
    assert not (db / "tictactoe").exists()


@pytest.mark.parametrize("name,value", [
    ("GSOLVE_PROGRESS_SECONDS", "abc"),
    ("GSOLVE_PROGRESS_SECONDS", "nan"),
    ("GSOLVE_PROGRESS_SECONDS", "-1"),
    ("GSOLVE_THREADS", "1.5"),
    ("GSOLVE_THREADS", "0"),
])
def test_bad_numeric_settings_are_one_line_exit_2(db, capsys, monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    code, out, err = run(capsys, "hanoi", "--method", "bottomup", "--db", str(db))
    assert code == 2 and out == ""
    assert f"{name}='{value}' is not" in one_error_line(err)
    assert not (db / "hanoi").exists()


def test_numeric_settings_read_alike(monkeypatch):
    """One reader for every numeric GSOLVE_* setting, also where the API reads it."""
    from games.base import GsolveError
    from solver.runtime.env import env_number
    from solver.runtime.parallel import threads
    from solver.runtime.progress import LineProgress

    monkeypatch.setenv("GSOLVE_PROGRESS_SECONDS", "abc")
    with pytest.raises(GsolveError, match="GSOLVE_PROGRESS_SECONDS='abc'"):
        LineProgress("t")
    monkeypatch.setenv("GSOLVE_PROGRESS_SECONDS", " 2.5 ")
    p = LineProgress("t")
    p.close()
    assert p._every == 2.5
    monkeypatch.setenv("GSOLVE_THREADS", "x")
    with pytest.raises(GsolveError, match="GSOLVE_THREADS='x' is not a positive whole"):
        threads()
    monkeypatch.setenv("GSOLVE_THREADS", "3")
    assert threads() == 3
    monkeypatch.setenv("GSOLVE_X", "")
    assert env_number("GSOLVE_X", 7) == 7
    monkeypatch.setenv("GSOLVE_X", "1e400")
    with pytest.raises(GsolveError):
        env_number("GSOLVE_X", 7)


@pytest.mark.parametrize("args,needle", [
    (["learn", "hexapawn", "--games", "20", "--brain", "{tmp}/missing/dir/x.json"],
     "missing/dir does not exist"),
    (["learn", "hexapawn", "--games", "20", "--brain", "{tmp}"], "is a folder, not a file"),
    (["learn", "hexapawn", "--games", "20", "--plot", "{tmp}/nodir/curve.png"],
     "nodir does not exist"),
    (["play", "hexapawn", "--opponent", "learner", "--brain", "{tmp}/no/b.json"],
     "no does not exist"),
    (["analyze", "hexapawn", "--plot", "{tmp}/no/a.png"], "no does not exist"),
])
def test_output_file_checked_before_the_work(db, capsys, tmp_path, args, needle):
    code, out, _ = run(capsys, "hexapawn", "--db", str(db))
    assert code == 0
    code, out, err = run(capsys, *(a.format(tmp=tmp_path) for a in args), "--db", str(db))
    assert code == 2
    assert needle in one_error_line(err)
    assert out == ""  # refused before any game was played or counted


# -- gsolve clean: what unfinished solves left ---------------------------------------------
def dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def leftover(src, name):
    """A copy of the database folder `src` named `name` beside it: what a solve leaves."""
    import shutil

    dst = src.with_name(name)
    shutil.copytree(src, dst)
    return dst


def test_clean_removes_leftovers_and_keeps_the_database(solved_db, capsys):
    db = solved_db
    assert run(capsys, "hexapawn", "--db", str(db))[0] == 0
    ttt = db / "tictactoe" / "default"
    pid = dead_pid()
    stale = [leftover(ttt, "default.partial"), leftover(ttt, f"default.partial-{pid}"),
             leftover(ttt, f"default.old-{pid}"),
             leftover(db / "hexapawn" / "width=3,height=3", "width=4,height=4.partial")]
    foreign = db / "notagame" / "x.partial"
    foreign.mkdir(parents=True)
    code, out, err = run(capsys, "clean", "--dry-run", "--db", str(db))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == len(stale) + 1
    for path, line in zip(sorted(stale), lines, strict=False):
        assert line.startswith("would remove") and str(path) in line
        assert line.endswith("KiB")
    assert "unfinished tiers solve" in lines[2] and f"pid {pid}" in lines[1]
    assert lines[-1].startswith("total: would remove 4 folders, ")
    assert all(p.exists() for p in stale)  # a dry run removes nothing
    code, out, err = run(capsys, "clean", "--db", str(db))
    assert code == 0 and err == ""
    assert [x.split()[0] for x in out.splitlines()] == ["removed"] * 4 + ["total:"]
    assert out.splitlines()[-1].startswith("total: removed 4 folders, ")
    assert not any(p.exists() for p in stale)
    assert foreign.exists()  # not a game's folder: never looked at
    assert sorted(os.listdir(db / "tictactoe")) == ["default", "default.lock"]
    code, out, _ = run(capsys, "query", "tictactoe", "--db", str(db))
    assert code == 0 and out.startswith("---/---/---  tie in 9")
    assert run(capsys, "clean", "--db", str(db))[1] == f"nothing to clean under {db}\n"


def test_clean_never_touches_a_running_solve(solved_db, capsys):
    from solver.storage.stores import writer_lock

    ttt = solved_db / "tictactoe" / "default"
    partial = leftover(ttt, "default.partial")
    with writer_lock(ttt, "tic-tac-toe"):  # a solve of this variant holds the lock now
        code, out, _ = run(capsys, "clean", "tictactoe", "--db", str(solved_db))
    assert code == 0 and partial.exists()
    assert out.splitlines()[0].startswith(f"kept           {partial}")
    assert f"being solved now by pid {os.getpid()}" in out
    # a solve whose lock file names a live process (e.g. on its way out): kept as well
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        ttt.with_name("default.lock").write_text(str(sleeper.pid))
        code, out, _ = run(capsys, "clean", "--db", str(solved_db))
        assert code == 0 and partial.exists()
        assert f"being solved now by pid {sleeper.pid}" in out
    finally:
        sleeper.kill()
        sleeper.wait()
    code, out, _ = run(capsys, "clean", "--db", str(solved_db))
    assert code == 0 and not partial.exists() and out.startswith("removed")


def test_clean_puts_back_a_database_whose_swap_was_cut_short(solved_db, capsys):
    import shutil

    ttt = solved_db / "tictactoe" / "default"
    old = leftover(ttt, f"default.old-{dead_pid()}")
    shutil.rmtree(ttt)  # killed between the two renames of its swap
    code, out, _ = run(capsys, "clean", "tictactoe", "--db", str(solved_db))
    assert code == 0 and out.startswith(f"restored       {old}")
    assert "total: removed 0 folders, 0 B; put back 1 database" in out
    assert ttt.exists() and not old.exists()
    assert run(capsys, "query", "tictactoe", "--db", str(solved_db))[0] == 0


def test_clean_of_one_game_and_variant(db, capsys):
    assert run(capsys, "hexapawn", "--db", str(db))[0] == 0
    assert run(capsys, "tictactoe", "--db", str(db))[0] == 0
    hexa = db / "hexapawn" / "width=3,height=3"
    mine = leftover(hexa, "width=3,height=3.partial")
    other = leftover(hexa, "width=4,height=4.partial")
    ttt = leftover(db / "tictactoe" / "default", "default.partial")
    code, out, _ = run(capsys, "clean", "hexapawn", "-V", "width=3,height=3", "--db", str(db))
    assert code == 0 and not mine.exists() and other.exists() and ttt.exists()
    code, out, _ = run(capsys, "clean", "hexapawn", "--db", str(db))
    assert code == 0 and not other.exists() and ttt.exists()
    for args, needle in ((["clean", "nosuch"], "unknown game"),
                         (["clean", "-V", "width=3"], "--variant needs a GAME")):
        code, _, err = run(capsys, *args, "--db", str(db))
        assert code == 2 and needle in one_error_line(err)
