"""Plans that follow the positions a solve stores, not its hash slots: the count on a
sample of slots against Tromp's published Connect-4 position counts, the disk of a plan
against a database written here, and a solve refused before it starts when its database
will not fit the free disk of its store."""

import pytest

from games import get_game
from games.base import GsolveError
from solver.command.cli import main
from solver.methods import estimate, speed

# Tromp's table of Connect-4 positions (every position of play, the start included)
TROMP = {(6, 4): 94_140_484, (5, 5): 69_763_700, (7, 4): 2_265_792_710,
         (6, 5): 2_977_866_515, (8, 4): 54_233_186_631, (6, 6): 69_173_028_785,
         (7, 5): 112_829_665_923, (7, 6): 4_531_985_219_092}


@pytest.mark.parametrize("width,height", sorted(TROMP))
def test_counted_positions_are_tromps(width, height):
    """4,096 slots decided: within 10% of the published count (7x6: 4.5 T positions in
    70.7 T slots), and half of it stored with the mirror."""
    game = get_game("connect4", f"width={width},height={height}")
    plain = speed.position_share(game, False)
    assert plain.undecided == 0
    assert plain.count == pytest.approx(TROMP[width, height], rel=0.1)
    mirrored = speed.position_share(game, True)
    assert mirrored.count == pytest.approx(TROMP[width, height] / 2, rel=0.1)
    assert mirrored.count < plain.count


def test_plan_disk_follows_a_stored_database(tmp_path):
    """After a symmetric 5x5 solve, the plan of it counts its disk within 15%: the bytes a
    position took there times the positions the sample counts (it planned per slot
    before: 8.7 slots a position at 6x6 made its plan 167.8 GiB, 22 GiB now)."""
    from solver.methods.solve import solve

    game = get_game("connect4", "width=5,height=5")
    result = solve(game, "tiers", tmp_path, symmetry=True)
    disk = sum(f.stat().st_size for f in result.path.rglob("*") if f.is_file())
    planned = estimate.estimate(game, "tiers", root=tmp_path, symmetry=True)
    assert planned.disk == pytest.approx(disk, rel=0.15)
    assert speed.stored_disk(game, tmp_path).per_position == pytest.approx(
        disk / result.positions, rel=1e-6)


def test_a_solve_that_will_not_fit_the_disk_is_refused(tmp_path, monkeypatch, capsys):
    """One line, status 2, the figures and the option that fits (--symmetry halves it),
    and nothing written."""
    game = get_game("connect4", "width=5,height=5")
    plain = estimate.estimate(game, "tiers", root=tmp_path)
    mirrored = estimate.estimate(game, "tiers", root=tmp_path, symmetry=True)
    free = int((plain.disk + mirrored.disk * estimate.DISK_SLACK) / 2)
    monkeypatch.setattr(estimate, "free_disk", lambda root=None: (free, str(tmp_path)))
    with pytest.raises(GsolveError, match="more disk than the .* free") as e:
        estimate.check_solve(game, "tiers", root=tmp_path)
    assert "--symmetry" in str(e.value)
    db = tmp_path / "db"
    assert main(["connect4", "-V", "width=5,height=5", "--method", "tiers",
                 "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "more disk than" in err[0] and "--symmetry" in err[0]
    assert not db.exists() or not any(db.rglob("*.json"))
    monkeypatch.setattr(estimate, "free_disk", lambda root=None: (1 << 20, str(tmp_path)))
    with pytest.raises(GsolveError, match="a --db on a disk with"):
        estimate.check_solve(game, "tiers", root=tmp_path)
