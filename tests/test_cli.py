"""The gsolve command: solve, query, analyze, list, and one-line errors for bad input."""

import json
import os
import subprocess
import sys

import pytest

from solver.cli import main


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
    """A second run loads every kernel from numba's cache: no compilation."""
    env = dict(os.environ, GSOLVE_CACHE=str(tmp_path / "cache"))
    probe = (
        "from games import get_game; from solver import bottomup;"
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
