"""`gsolve solve --borrow STORE`: tasks whose reached positions another store of the game
holds take their records from it, and the database is the one a whole solve writes."""

from __future__ import annotations

import numpy as np
import pytest
import zarr
from checks import benchmark
from test_morris import _SixFrom

from games.base import GsolveError
from games.morris import Morris
from solver.command.cli import main
from solver.kernels.numbering import Numbering
from solver.kernels.records import LOSE, WIN
from solver.methods import speed
from solver.methods.solve import solve
from solver.runtime.progress import Progress
from solver.storage.database import group_path

VARIANT = "men=6,diagonals=0"


def _arrays(path):
    g = zarr.open_group(str(path), mode="r")
    return g["value"][:], g["remoteness"][:], dict(g.attrs)


@pytest.fixture(scope="module")
def six_dbs(tmp_path_factory):
    """Six on canonical positions, solved whole, and the sub-game from a late placement
    (a store that holds some of Six's tiers whole and others in part)."""
    root = tmp_path_factory.mktemp("borrow")
    solve(Numbering(Morris(men=6), True), "tiers", root=root / "whole")
    solve(Numbering(_SixFrom(), True), "tiers", root=root / "late")
    return root, root / "whole" / "morris" / VARIANT, root / "late" / "morris" / VARIANT


@pytest.mark.parametrize("donor", ["whole", "late"])
def test_borrowed_solve_is_the_solve_byte_for_byte(six_dbs, donor, monkeypatch):
    root, whole, late = six_dbs
    store = whole if donor == "whole" else late
    shares = []
    monkeypatch.setattr(speed, "record_speed", lambda *a, share=1.0, **k: shares.append(share))
    solve(Numbering(Morris(men=6), True), "tiers", root=root / f"from-{donor}", borrow=str(store))
    # the speed this machine measured counts the work done here only: never a whole solve
    assert len(shares) == 1 and 0 < shares[0] < (0.5 if donor == "whole" else 1.0)
    value, rem, attrs = _arrays(root / f"from-{donor}" / "morris" / VARIANT)
    v0, r0, _ = _arrays(whole)
    assert np.array_equal(value, v0) and np.array_equal(rem, r0)
    run = attrs["runs"][-1]
    tasks = attrs["tasks"]
    if donor == "whole":  # every task found all its reached positions there
        assert run["borrowed_tasks"] == tasks and run["borrowed_from"] == str(whole)
    else:  # the late sub-game holds the last tiers whole, the rest in part: solved here
        assert 0 < run["borrowed_tasks"] < tasks


class _Shares(Progress):
    """The share of the work done that each `remaining` hears, by phase."""

    def __init__(self):
        self.phase, self.shares, self.part = None, [], None

    def left_of_plan(self, share):
        self.part = share

    def update(self, phase, step, detail=""):
        self.phase = phase

    def remaining(self, seconds, done=1.0):
        self.shares.append((self.phase, done))


def test_a_borrowed_solve_leaves_the_donors_work_out_of_its_eta(six_dbs, tmp_path):
    """The tasks whose ranges the donor has written are no work left from the start: with
    every task held, the reach is the whole of the work (else the ETA of Nine's hours of
    reach counts the movement solve that borrowing skips)."""
    _, whole, _ = six_dbs
    seen = _Shares()
    solve(Numbering(Morris(men=6), True), "tiers", root=tmp_path / "db", borrow=str(whole),
          progress=seen)
    reach = [d for ph, d in seen.shares if ph == "reach"]
    assert reach and reach[-1] == pytest.approx(1.0)
    assert reach[0] < 0.5  # the reach's tasks themselves are counted
    assert 0 < seen.part < 0.5  # the plan's estimate scaled to the reach's share of it


def test_six_borrows_its_movement_phase_from_the_box(six_dbs, tmp_path):
    """Nine's way at Six's size: every movement board solved by benchmarks/
    morris_movement.py's box (no reach: all seeded), then the whole game with --borrow
    from the box's store: the movement tasks borrowed, the placement ones solved, the
    database the whole solve's."""
    _, whole, _ = six_dbs
    counts, _, _ = benchmark("morris_movement").solve_pairs(6, 4.0, store_dir=tmp_path / "box",
                                                            men=6)
    assert len(counts) == 16  # the ordered pairs 3-3 .. 6-6
    solve(Numbering(Morris(men=6), True), "tiers", root=tmp_path / "db",
          borrow=str(tmp_path / "box" / "db.partial"))
    value, rem, attrs = _arrays(tmp_path / "db" / "morris" / VARIANT)
    v0, r0, _ = _arrays(whole)
    assert np.array_equal(value, v0) and np.array_equal(rem, r0)
    assert 0 < attrs["runs"][-1]["borrowed_tasks"] < attrs["tasks"]


def test_borrow_refuses_a_store_of_another_game_or_nothing(six_dbs, tmp_path, capsys):
    root, whole, _ = six_dbs
    assert main(["tictactoe", "--db", str(tmp_path / "ttt"), "-q"]) == 0
    ttt = group_path(tmp_path / "ttt", _game("tictactoe"))
    capsys.readouterr()
    for store, needle in ((ttt, "a store of tictactoe"), (tmp_path / "none", "no store there"),
                          (whole.parent, "no store there")):
        code = main(["solve", "morris", "-V", "men=6", "--symmetry", "--db",
                     str(tmp_path / "db"), "--borrow", str(store), "-q"])
        err = capsys.readouterr().err
        assert code != 0 and needle in err and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "db" / "morris" / f"{VARIANT}.partial").exists()
    code = main(["solve", "morris", "-V", "men=6", "--symmetry", "--db", str(tmp_path / "ok"),
                 "--borrow", str(whole)])
    out = capsys.readouterr().out
    tasks = _arrays(tmp_path / "ok" / "morris" / VARIANT)[2]["tasks"]
    assert code == 0 and f"borrowed             {tasks} tasks' records from {whole}" in out
    code = main(["solve", "morris", "-V", "men=6", "--db", str(tmp_path / "db"), "--borrow",
                 str(whole), "-q"])  # the donor is on canonical positions, this is not
    err = capsys.readouterr().err
    assert code != 0 and "same --symmetry" in err and len(err.strip().splitlines()) == 1
    code = main(["solve", "morris", "-V", "men=6", "--symmetry", "--method", "retrograde", "--db",
                 str(tmp_path / "db"), "--borrow", str(whole), "-q"])
    err = capsys.readouterr().err
    assert code != 0 and "apply to --method tiers" in err


def test_borrow_stops_at_a_primitive_valued_otherwise(six_dbs, tmp_path):
    """A store whose primitive reads another value is no store of these rules: the solve
    stops with one line instead of copying it."""
    _, whole, _ = six_dbs
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(whole, bad)
    g = zarr.open_group(str(bad), mode="r+")
    value, rem = g["value"][:], g["remoteness"][:]
    lost = np.flatnonzero((value == LOSE) & (rem == 0))  # lost before moving: primitive
    assert lost.size
    value[lost[len(lost) // 2]] = WIN
    g["value"][:] = value
    with pytest.raises(GsolveError, match="valued otherwise"):
        solve(Numbering(Morris(men=6), True), "tiers", root=tmp_path / "db", borrow=str(bad))


def _game(name):
    from games import get_game

    return get_game(name)


def test_morris_counts_reached_adds_up_to_the_movement_tiers(six_dbs, capsys):
    """benchmarks/morris_counts.py --reached: the reached canonical positions per ordered
    pair and side to move (block by block) add up to analyze's movement tiers (tier by
    tier), and no pair reaches more than its boards up to symmetry."""
    import re

    from solver.storage.database import Database
    from solver.use.analysis import analyze

    root, _, _ = six_dbs
    benchmark("morris_counts").reached(6, str(root / "whole"))
    out = capsys.readouterr().out
    rows = re.findall(r"^(\d)-(\d)\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)$", out, re.M)
    assert len(rows) == 16  # 3-3 .. 6-6
    num = [[int(x.replace(",", "")) for x in row[2:]] for row in rows]
    assert all(0 < white <= boards and 0 < black <= boards for boards, white, black in num)
    both = int(re.search(r"both sides to move ([\d,]+)", out).group(1).replace(",", ""))
    assert both == sum(white + black for _, white, black in num)
    report = analyze(Database.open(Morris(men=6), root / "whole"), by_tier=True)
    moving = [t for t in report["tiers"]
              if re.fullmatch(r"move W[3-6] B[3-6]", t["tier"])]
    assert len(moving) == 16
    assert both == sum(t["canonical"]["positions"] for t in moving)
