"""Databases in an object store: tier solves into `s3://...` (a moto S3 server on loopback,
reached by s3fs through the standard AWS_* variables) write the same bytes as an
independent method's local solve, locally and on a 2-worker cluster; an interrupted one
resumes from the store; `gsolve query`, `verify` and `analyze` read it; a bad or
unreachable URL is a one-line error with exit status 2."""

import json
import logging

import numpy as np
import pytest

pytest.importorskip("s3fs")
moto_server = pytest.importorskip("moto.server")

from games import get_game  # noqa: E402
from games.base import VALUE_WORDS  # noqa: E402
from solver.command.cli import main  # noqa: E402
from solver.engine import manager  # noqa: E402
from solver.methods.solve import solve  # noqa: E402
from solver.runtime.progress import Progress  # noqa: E402
from solver.storage.database import Database, group_path  # noqa: E402

BUCKET = "gsolve-test"
CASES = [
    ("connect4", "width=4,height=4", "dfs"),  # loop-free tiers
    ("hexapawn", "width=3,height=3", "retrograde"),  # loopy tiers
]


def _forget_s3_clients():
    """s3fs keeps one client per options, made with the endpoint of its time."""
    import s3fs

    s3fs.S3FileSystem.clear_instance_cache()


@pytest.fixture(scope="module")
def s3():
    """An S3 server on loopback with an empty bucket; the environment points s3fs at it
    as a user's would (and a cluster's worker processes inherit it)."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    _, port = server.get_host_and_port()
    with pytest.MonkeyPatch.context() as mp:
        for k, v in {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}",
                     "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
                     "AWS_DEFAULT_REGION": "us-east-1"}.items():
            mp.setenv(k, v)
        _forget_s3_clients()
        import fsspec

        fsspec.filesystem("s3").mkdir(BUCKET)
        yield f"s3://{BUCKET}"
        _forget_s3_clients()
    server.stop()


@pytest.fixture
def url(s3, tmp_path):
    return f"{s3}/{tmp_path.name}"


def arrays(game, root):
    db = Database.open(game, root)
    return db.value_array[:], db.remoteness_array[:]


def same_bytes(game, root_a, root_b):
    for x, y in zip(arrays(game, root_a), arrays(game, root_b), strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name,variant,reference", CASES)
def test_tier_solve_into_s3_is_byte_identical(name, variant, reference, url, tmp_path,
                                              monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing may land in a local folder named after the URL
    game = get_game(name, variant)
    result = solve(game, "tiers", root=url)
    assert str(result.path) == f"{url}/{name}/{game.variant_key}"
    solve(game, reference, root=tmp_path / "ref")
    same_bytes(game, url, tmp_path / "ref")
    assert solve(game, root=url).reused  # found again, chunks checked, in the store
    assert not any(p.name.startswith("s3") for p in tmp_path.iterdir())


def test_cluster_tier_solve_into_s3(url, tmp_path):
    name, variant, reference = CASES[1]
    game = get_game(name, variant)
    solve(game, "tiers", root=url, workers=2)
    solve(game, reference, root=tmp_path / "ref")
    same_bytes(game, url, tmp_path / "ref")


class Counting(Progress):
    """Counts the solve tasks run; raises KeyboardInterrupt after `stop` of them."""

    def __init__(self, stop=None):
        self.stop, self.solved = stop, 0

    def update(self, phase, step, detail=""):
        if phase == "solve":
            self.solved += 1
            if self.stop and self.solved >= self.stop:
                raise KeyboardInterrupt


def test_interrupted_s3_solve_resumes_from_the_store(url, tmp_path):
    name, variant, reference = CASES[0]
    game = get_game(name, variant)
    path = group_path(url, game)
    with pytest.raises(KeyboardInterrupt):
        manager.solve_into(game, path, Counting(stop=4), fresh=True, max_task=1 << 14)
    assert not (path / "zarr.json").exists() and (path.with_name(
        f"{path.name}.partial") / "zarr.json").exists()
    progress = Counting()
    result = solve(game, root=url, progress=progress)  # resumed: the store says tiers
    assert result.method == "tiers"
    tasks = len(json.loads((path / "zarr.json").read_text())["attributes"]["task_cuts"]) - 1
    assert tasks > 8 and progress.solved == tasks - 4  # the 4 finished tasks were kept
    assert not (path.with_name(f"{path.name}.partial") / "zarr.json").exists()
    solve(game, reference, root=tmp_path / "ref")
    same_bytes(game, url, tmp_path / "ref")


def test_query_verify_analyze_through_the_cli(url, tmp_path, capsys, monkeypatch):
    name, variant, reference = CASES[0]
    game = get_game(name, variant)
    code, out, err = run(capsys, name, "-V", variant, "--method", "tiers", "--db", url,
                         "--quiet")
    assert code == 0, err
    solve(game, reference, root=tmp_path / "ref")
    code, out, err = run(capsys, "query", name, "-V", variant, "--db", url, "--json")
    assert code == 0, err
    got = json.loads(out)
    want_value, want_rem = Database.open(game, tmp_path / "ref").lookup(game.start)
    assert got["value"] == VALUE_WORDS[want_value]
    assert got["remoteness"] == want_rem
    monkeypatch.setenv("GSOLVE_DB", url)  # the same through the environment
    code, out2, err = run(capsys, "query", name, "-V", variant, "--json")
    assert code == 0 and json.loads(out2) == got
    code, out, err = run(capsys, "verify", name, "-V", variant, "--json")
    assert code == 0, out + err
    report = json.loads(out)
    assert report["sound"] and report["database"] == f"{url}/{name}/{game.variant_key}"
    code, out, err = run(capsys, "analyze", name, "-V", variant, "--json")
    assert code == 0, err
    ref = Database.open(game, tmp_path / "ref")
    assert json.loads(out)["positions"] == int(np.count_nonzero(ref.value_array[:]))


@pytest.mark.parametrize("bad,needle", [
    ("foo://somewhere/db", "unknown store protocol 'foo://'"),
    ("s3://", "is not a store URL"),
    (f"s3://{BUCKET}-missing/db", "does not exist"),
])
def test_bad_store_url_is_one_line_exit_2(s3, bad, needle, capsys):
    code, out, err = run(capsys, "query", "connect4", "-V", "width=4,height=4", "--db", bad)
    assert code == 2 and needle in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_unreachable_store_is_one_line_exit_2(s3, capsys, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    _forget_s3_clients()
    try:
        code, out, err = run(capsys, "connect4", "-V", "width=4,height=4", "--db",
                             f"{s3}/db")
    finally:
        monkeypatch.undo()
        _forget_s3_clients()
    assert code == 2 and "cannot reach" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_clean_in_a_store(url, capsys):
    """`gsolve clean` lists and removes a store's leftovers as a folder's."""
    import fsspec

    assert run(capsys, "tictactoe", "--db", url)[0] == 0
    fs = fsspec.filesystem("s3")
    base = url.removeprefix("s3://") + "/tictactoe/default"
    keys = fs.find(base)
    fs.copy(keys, [base + ".partial" + k[len(base):] for k in keys])
    code, out, _ = run(capsys, "clean", "--dry-run", "--db", url)
    assert code == 0 and out.startswith(f"would remove   {url}/tictactoe/default.partial  "
                                        "unfinished tiers solve")
    assert "KiB" in out and "total: would remove 1 folder, " in out
    code, out, _ = run(capsys, "clean", "--db", url)
    assert code == 0 and out.startswith("removed") and "total: removed 1 folder" in out
    fs.invalidate_cache()
    assert not fs.find(base + ".partial") and fs.find(base)
    assert run(capsys, "query", "tictactoe", "--db", url)[0] == 0
