"""The tier solve on a 2-worker Dask LocalCluster writes the same bytes as an independent
method, on a loop-free tiered game and a loopy one, and resumes a solve interrupted
midway without running its finished tasks again."""

import numpy as np
import pytest

from games import get_game
from solver import tier_manager
from solver.database import CHUNK, Database, group_path
from solver.progress import Progress
from solver.solve import solve

pytest.importorskip("distributed")

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
    summary = tier_manager.solve_into(game, path, progress, fresh=True, workers=2,
                                      max_task=CHUNK)
    assert summary["tasks"] > 4  # enough tasks that some run side by side
    assert progress.total == 2 * summary["tasks"]  # a reach and a solve task each
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "cluster"),
                    strict=True):
        assert np.array_equal(x, y)


def test_cluster_resumes_a_local_solve_without_redoing_tasks(tmp_path):
    name, variant, reference = CASES[0]
    game = get_game(name, variant)
    path = group_path(tmp_path / "db", game)
    with pytest.raises(KeyboardInterrupt):
        tier_manager.solve_into(game, path, Counting(stop=7), fresh=True, max_task=CHUNK)
    assert not (path / "zarr.json").exists()
    progress = Counting()
    summary = tier_manager.solve_into(game, path, progress, workers=2, max_task=CHUNK)
    assert progress.total == summary["tasks"] - 7  # every reach task and 7 solve tasks kept
    solve(game, reference, root=tmp_path / "ref")
    for x, y in zip(arrays(game, tmp_path / "ref"), arrays(game, tmp_path / "db"),
                    strict=True):
        assert np.array_equal(x, y)
