"""The matchbox learner (seeded), judged by the independent reference solver; the plots."""

import json

import pytest
import reference

import solver
from solver.command.cli import main
from solver.use.learn import Brain, train

LOSE, WIN = 1, 4


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    root = tmp_path_factory.mktemp("learn") / "db"
    solver.solve("hexapawn", db=root)
    return root


@pytest.fixture(scope="module")
def ref():
    return reference.solve(reference.Hexapawn(3, 3))


def children(solved, position):
    return {m.move: m.position for m in solved.query(position).moves}


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_black_learns_to_win_every_game_against_perfect_white(seed, db, ref):
    """The seed document's experiment: the learner plays black (second), a perfect white
    (random among its slowest losses) plays first; by the end it wins every game, and
    every box's most-weighted move is, per the reference, a winning one."""
    solved = solver.open("hexapawn", db=db)
    brain = Brain(solved.game)
    report = train(solved, 200, "perfect", "second", seed=seed, brain=brain, block=10)
    curve = report["curve"]
    assert len(curve) == 20 and sum(r["games"] for r in curve) == 200
    assert curve[-1] == {"block": 20, "played": 200, "games": 10, "wins": 10, "losses": 0,
                         "ties": 0}
    assert curve[0]["losses"] > 0  # it did have to learn
    after = report["won_every_game_after"]
    assert after is not None and after < 190
    assert report["perfect_fraction"] == 1.0 and report["boxes"] == len(brain.boxes)
    for pos, box in brain.boxes.items():
        top = max(box.values())
        kids = children(solved, pos)
        for move, n in box.items():
            if n == top:
                assert ref[kids[move]][0] == LOSE, (pos, move)  # opponent lost: a win


def test_gardner_punishment_never_empties_a_winning_move(db, ref):
    """Without rewards, beads only go: a move loses its last bead only if it loses (per
    the reference: the child is a win for the opponent), and its box empties only if the
    position is lost."""
    solved = solver.open("hexapawn", db=db)
    for side in ("first", "second"):
        brain = Brain(solved.game, reward=0)
        train(solved, 300, "random", side, seed=7, brain=brain)
        emptied = 0
        for pos, box in brain.boxes.items():
            kids = children(solved, pos)
            for move, n in box.items():
                if n == 0:
                    emptied += 1
                    assert ref[kids[move]][0] == WIN, (pos, move)
            if box and not any(box.values()):
                assert ref[pos][0] == LOSE
        assert emptied > 0


def test_learn_command_json_brain_and_plot(db, capsys, tmp_path):
    brain, png = tmp_path / "brain.json", tmp_path / "curve.png"
    code = main(["learn", "hexapawn", "--games", "60", "--seed", "2", "--json", "--brain",
                 str(brain), "--plot", str(png), "--db", str(db)])
    out, _ = capsys.readouterr()
    assert code == 0
    objs = [json.loads(line) for line in out.splitlines()]
    blocks, last = objs[:-1], objs[-1]
    assert len(blocks) == 6 and all(set(b) == {"block", "played", "games", "wins", "losses",
                                               "ties"} for b in blocks)
    assert last["curve"] == blocks and set(last) >= {"boxes", "perfect_fraction", "curve"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = json.loads(brain.read_text())
    assert saved["games"] == 60 and len(saved["boxes"]) == last["boxes"]
    # reloaded, it goes on from what it learned: now it wins from the first game
    code = main(["learn", "hexapawn", "--games", "20", "--seed", "9", "--json", "--brain",
                 str(brain), "--db", str(db)])
    objs = [json.loads(line) for line in capsys.readouterr()[0].splitlines()]
    assert code == 0 and objs[-1]["won_every_game_after"] == 0
    assert json.loads(brain.read_text())["games"] == 80


def test_learn_text_and_self_play(db, capsys):
    code = main(["learn", "--games", "40", "--against", "self", "--seed", "1", "--db",
                 str(db)])
    out, _ = capsys.readouterr()
    assert code == 0 and "the learner plays both sides against itself, 40 games" in out
    assert "boxes" in out and "most-weighted move perfect" in out


def test_analyze_plot(db, capsys, tmp_path):
    png = tmp_path / "a.png"
    code = main(["analyze", "hexapawn", "--plot", str(png), "--db", str(db)])
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"
    code = main(["analyze", "hexapawn", "--plot", str(tmp_path / "a.txt"), "--db", str(db)])
    _, err = capsys.readouterr()
    assert code == 2 and "--plot" in err
