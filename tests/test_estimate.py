"""Estimates of a solve's time and memory: the default method, refusals that name what
would fit, the announcement and progress of a long solve (failures 5 and 6 of issue 7)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time

import pytest

from games import get_game
from games.base import GsolveError
from solver import estimate
from solver.cli import main
from solver.progress import LineProgress
from solver.solve import default_method


@pytest.fixture(autouse=True)
def fresh_speeds(tmp_path, monkeypatch):
    """No speeds measured by earlier solves on this machine: assumed rates only."""
    monkeypatch.setattr(estimate, "_speed_file", lambda: tmp_path / "speed.json")
    monkeypatch.delenv("GSOLVE_MEMORY", raising=False)


def test_topitop_full_defaults_to_retrograde(monkeypatch):
    """Failure 6: castles=2 took 171 s with the old default (bottomup), 39 s with
    retrograde. Retrograde needs 19 bytes a slot here (no un-moves): when that does not
    fit, the default falls back to what does."""
    game = get_game("topitop", "castles=2")
    assert default_method(game) == "retrograde"
    need = {m: estimate.memory_need(game, m) for m in ("retrograde", "bottomup")}
    assert need == {"retrograde": 19 * game.hash_size, "bottomup": 2 * game.hash_size}
    monkeypatch.setenv("GSOLVE_MEMORY", str(int(need["retrograde"] / 2)))
    assert default_method(game) == "bottomup"


def test_defaults_by_kind():
    assert default_method(get_game("connect4")) == "dfs"  # loop-free
    assert default_method(get_game("hanoi")) == "retrograde"  # loopy
    assert estimate.default_method(type(get_game("topitop"))) == "retrograde"


def test_too_big_suggests_only_what_fits(monkeypatch):
    """Failure 5: the message counts hash slots, and names only methods that would fit."""
    game = get_game("morris", "men=6")
    need = {m: estimate.memory_need(game, m) for m in ("tiers", "bottomup", "retrograde")}
    assert need["tiers"] < need["bottomup"] < need["retrograde"]
    monkeypatch.setenv("GSOLVE_MEMORY", str(int((need["tiers"] + need["bottomup"]) / 2 / 0.9)))
    with pytest.raises(GsolveError) as err:
        estimate.check_fits(game, "bottomup")
    text = str(err.value)
    assert f"{game.hash_size:,} hash slots" in text and "positions" not in text
    assert "--method tiers" in text and "retrograde" not in text
    assert estimate.check_fits(game, "tiers").fits
    assert default_method(game) == "tiers"


def test_english_board_refused_in_one_line(tmp_path):
    """Failure 5: `gsolve pegsolitaire -V board=1` started a solve that grew past 10 GB
    for days. With 4 GiB to use it is refused at once, with the number it needs."""
    env = dict(os.environ, GSOLVE_MEMORY="4G")
    run = subprocess.run([sys.executable, "-m", "solver.cli", "pegsolitaire", "-V", "board=1",
                          "--db", str(tmp_path / "db")], env=env, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    err = run.stderr.strip()
    assert len(err.splitlines()) == 1
    assert "8,589,934,590 hash slots" in err and "16.0 GiB" in err and "no method fits" in err


def test_english_board_estimate_is_hours():
    game = get_game("pegsolitaire", "board=1")
    est = estimate.estimate(game, "dfs")
    assert est.seconds > 3600 and not est.measured
    note = estimate.long_note(game, est)
    assert note and " h " in note and "hash slots" in note


def test_long_solve_is_announced_off_a_terminal(tmp_path, monkeypatch, capsys):
    """The estimate is said before the solve starts, also when stderr is no terminal."""
    monkeypatch.setattr(estimate, "LONG", 0.0)
    assert main(["tictactoe", "--db", str(tmp_path / "db")]) == 0
    err = capsys.readouterr().err
    assert "tictactoe default with dfs: estimated" in err and "hash slots" in err


def test_line_progress_shows_eta():
    out = io.StringIO()
    p = LineProgress("peg", every=0.05, stream=out)
    p.expect(7200)
    p.update("visit", 3, "1,000 positions reached")
    p.fraction(0.5)
    time.sleep(0.3)
    p.close()
    lines = out.getvalue().splitlines()
    assert lines and lines[-1].startswith("peg: visit 3 (1,000 positions reached), 50% of")
    assert "left (estimate)" in lines[-1]


def test_rich_progress_appears_only_for_work_that_lasts(monkeypatch):
    """A terminal's live line starts after RichProgress.DELAY, with the latest state; work
    that ends sooner never starts it (rich's import and display cost a small solve more
    than the solve)."""
    from solver.progress import RichProgress

    quick = RichProgress("ttt")
    quick.update("dfs", 1, "depth-first")
    quick.close()
    time.sleep(RichProgress.DELAY + 0.2)
    assert quick._bar is None

    monkeypatch.setattr(RichProgress, "DELAY", 0.05)
    slow = RichProgress("c4")
    slow.update("visit", 2, "10 positions reached")
    slow.fraction(0.25)
    for _ in range(100):
        if slow._bar is not None:
            break
        time.sleep(0.02)
    assert slow._bar is not None
    task = slow._bar.tasks[0]
    assert task.description == "c4: visit 2" and task.fields["detail"] == "10 positions reached"
    assert task.completed == 0.25
    slow.update("visit", 3)
    assert slow._bar.tasks[0].description == "c4: visit 3"
    slow.close()
    assert not slow._bar.live.is_started


def test_speed_is_measured(tmp_path):
    """A solve of a second or more records this machine's speed; estimates then use it."""
    game = get_game("connect4")
    estimate.record_speed(game, "bottomup", 2.0)
    per_second, measured = estimate.rate(game, "bottomup")
    assert measured and per_second == round(game.hash_size / 2.0)
    scaled, measured = estimate.rate(game, "dfs")  # scaled by the game's measured speed
    assert measured and scaled == pytest.approx(
        per_second * estimate.ASSUMED_RATE["dfs"] / estimate.ASSUMED_RATE["bottomup"])


def test_speed_comes_from_the_largest_solve():
    """A small variant's solve (mostly start-up) does not replace a big one's speed: a
    test's 4x4 once made Connect-4 6x5 look 30 h long."""
    big, small = get_game("connect4", "width=5,height=5"), get_game("connect4", "width=4,height=4")
    estimate.record_speed(big, "tiers", 10.0)
    estimate.record_speed(small, "tiers", 5.0)
    assert estimate.rate(big, "tiers") == (round(big.hash_size / 10.0), True)
    bigger = get_game("connect4", "width=6,height=5")
    estimate.record_speed(bigger, "tiers", 20.0)
    assert estimate.rate(big, "tiers")[0] == round(bigger.hash_size / 20.0)


def test_tiered_estimate_holds_no_more_than_its_budget():
    game = get_game("connect4", "width=6,height=5")
    whole = estimate.estimate(game, "tiers")
    capped = estimate.estimate(game, "tiers", budget=6 << 30)
    assert whole.bytes > 6 << 30 and capped.bytes == 6 << 30
    assert "6.0 GiB" in estimate.long_note(game, capped)
