"""`gsolve verify` within `--memory` for any size, `--sample N`, and a solve's check of
itself before it says complete (issue 44, "Never complete and wrong").

The tier-by-tier mode must find exactly what the whole mode finds, slot for slot, on
healthy and damaged databases, whatever its pages and tasks; a solve whose stored arrays
disagree with its tally, or whose start or start's moves do not follow from their
children, must fail with one line and leave no complete database."""

import functools
import itertools
import json

import numpy as np
import pytest
import zarr

import solver.methods.verify as verify_mod
import solver.methods.verify_sample as verify_sample
import solver.methods.verify_tiers as verify_tiers
import solver.storage.database as database
import solver.storage.writing as writing
from games import get_game
from games.base import GsolveError
from solver.command.cli import main
from solver.command.stopping import Stopped
from solver.methods.solve import solve
from solver.methods.verify import verify
from solver.storage.database import Database, group_path, partial_path
from solver.storage.writing import PartialStore

C4 = "width=4,height=4"


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def small_chunks(monkeypatch):
    """Many chunks from small variants: 4,096 positions a chunk."""
    monkeypatch.setattr(database, "CHUNK", 1 << 12)


def by_tiers(monkeypatch, budget):
    """Every verify of this test a task at a time within `budget` bytes, even where the
    whole database would fit (small games: their least task needs more than all of it)."""
    def tiers(game, db, report, bad, show, sample, seed, progress):
        verify_tiers.by_tiers(game, db, report, bad, budget, show, sample, seed, progress)

    monkeypatch.setattr(verify_mod, "_whole", tiers)


def every_task(monkeypatch):
    """A record after every task, whatever storing the marks for it costs."""
    monkeypatch.setattr(verify_tiers, "SAVE_EVERY", 0.0)
    monkeypatch.setattr(verify_tiers, "RECORD_SHARE", float("inf"))


def least(game, root):
    """The smallest budget a tier-by-tier verify of the database accepts (its least)."""
    db = Database(group_path(root, game), game)
    g = db.numbered_game()
    budget = 1 << 12
    while True:
        try:
            verify_tiers.tier_plan(g, budget, db.remoteness_array.dtype.itemsize, db.chunk_size)
            return budget
        except GsolveError as e:
            assert "needs at least" in str(e) and "--sample" in str(e)
            budget = int(budget * 1.25)


def findings(report):
    return report.sound, report.problems, report.reachable, report.stored, sorted(
        (p.hash if p.hash is not None else -1, p.text) for p in report.details)


def reseal(root, game):
    """After an edit through zarr: record the chunk digests again, so only re-deriving
    from the children can tell."""
    path = group_path(root, game)
    g = Database(path, game, check=False).numbered_game()
    writing.seal(path, zarr.open_group(str(path), mode="r+"), g)


def damages(root, game):
    """Each kind of damage in turn, undone after: (label, apply) pairs."""
    path = group_path(root, game)
    group = zarr.open_group(str(path), mode="r+")
    value, rem = group["value"][:], group["remoteness"][:]
    rng = np.random.default_rng(5)
    stored = np.flatnonzero(value)
    a = int(rng.choice(stored))
    b = int(rng.choice(stored[value[stored] != value[a]]))
    empty = int(rng.choice(np.flatnonzero(value == 0)))
    win = int(rng.choice(np.flatnonzero(value == 4)))

    def put(pairs):
        for h, v, r in pairs:
            group["value"][h] = v
            group["remoteness"][h] = r
        reseal(root, game)

    def restore():
        put([(h, int(value[h]), int(rem[h])) for h in (a, b, empty, win)])

    yield "swapped", lambda: put([(a, int(value[b]), int(rem[b])),
                                  (b, int(value[a]), int(rem[a]))])
    restore()
    yield "stray", lambda: put([(empty, 4, 3)])
    restore()
    yield "remoteness", lambda: put([(win, 4, int(rem[win]) + 2)])
    restore()
    files = sorted((path / "value" / "c").iterdir(), key=lambda f: int(f.name))
    yield "deleted chunk", lambda: files[len(files) // 2].unlink()


# -- tier by tier: the same findings as the whole database in memory ------------------------
@pytest.mark.parametrize("name,variant,method,symmetry", [
    ("connect4", C4, "dfs", False),  # loop-free tiers, many tasks and pages
    ("morris", None, "retrograde", False),  # loopy tiers, draws
    ("quixo", None, "tiers", True),  # compact: canonical positions by their index
])
def test_tiers_find_what_the_whole_check_finds(tmp_path, monkeypatch, small_chunks, name,
                                               variant, method, symmetry):
    game = get_game(name, variant)
    solve(game, method, root=tmp_path, symmetry=symmetry)
    smallest = least(get_game(name, variant), tmp_path)
    for label, harm in itertools.chain([("healthy", lambda: None)], damages(tmp_path, game)):
        harm()
        whole = verify(get_game(name, variant), tmp_path, show=10 ** 6)
        assert whole.mode == "whole"
        assert whole.sound == (label == "healthy"), label
        for budget in (1 << 30, smallest):  # one page a task; the least: pages and tasks
            with monkeypatch.context() as m:
                by_tiers(m, budget)
                tiers = verify(get_game(name, variant), tmp_path, show=10 ** 6)
            assert tiers.mode == "tiers" and tiers.symmetry == symmetry
            assert findings(tiers) == findings(whole), (label, budget)


def first_budget(fits, lo: int, hi: int) -> int:
    """The least budget in (lo, hi] for which fits(budget) holds, fits(lo) not holding and
    fits(hi) holding (a bisection: fits changes once in between)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return hi


def test_tiers_around_each_threshold_of_their_plan(tmp_path, monkeypatch, small_chunks):
    """--memory fuzzed around every threshold of the tier-by-tier plan (its least, its
    tasks getting fewer, its pool past two chunks, its moves listed): a byte under the
    least is refused, and at and beside each threshold a healthy and a damaged database
    give exactly the whole check's findings."""
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    db = Database(group_path(tmp_path, game), game)
    g, itemsize = db.numbered_game(), db.remoteness_array.dtype.itemsize

    def shape(budget):
        try:
            p, _own, slots, listed = verify_tiers.tier_plan(g, budget, itemsize, db.chunk_size)
        except GsolveError:
            return None
        return len(p.tasks), listed, min(slots, 3)

    def changed(was, budget):
        return shape(budget) != was

    smallest = first_budget(lambda b: shape(b) is not None, 1, least(game, tmp_path))
    budgets = {smallest, smallest + 1}
    tasks_cut = 0
    at = smallest
    while at < 64 * smallest:  # each change of shape in turn, below it and at it
        step = int(at * 1.05) + 1
        if shape(step) == shape(at):
            at = step
            continue
        at = first_budget(functools.partial(changed, shape(at)), at, step)
        tasks_cut += shape(at)[0] < shape(at - 1)[0]
        if shape(at)[1:] != shape(at - 1)[1:] or tasks_cut <= 2:  # pool, listing
            budgets |= {at - 1, at}
    listing = first_budget(lambda b: shape(b)[1], smallest, 1 << 31)
    budgets |= {listing - 1, listing, listing + 1}
    shapes = {shape(b) for b in budgets}
    assert {s[1] for s in shapes} == {False, True} and {s[2] for s in shapes} == {2, 3}
    assert len({s[0] for s in shapes}) >= 4, shapes
    harms = itertools.islice(damages(tmp_path, game), 2)  # swapped, stray
    for label, harm in itertools.chain([("healthy", lambda: None)], harms):
        harm()
        whole = verify(get_game("connect4", C4), tmp_path, show=10 ** 6)
        assert whole.sound == (label == "healthy")
        with monkeypatch.context() as m:
            by_tiers(m, smallest - 1)
            with pytest.raises(GsolveError, match="a task at a time needs at least"):
                verify(get_game("connect4", C4), tmp_path)
        for budget in sorted(budgets):
            with monkeypatch.context() as m:
                by_tiers(m, budget)
                tiers = verify(get_game("connect4", C4), tmp_path, show=10 ** 6)
            assert tiers.mode == "tiers"
            assert findings(tiers) == findings(whole), (label, budget, shape(budget))


def test_tiers_within_memory_through_the_command(tmp_path, capsys):
    """A database bigger than --memory is checked a task at a time, and says so."""
    variant = "width=5,height=4"  # 5.6 M slots: 16 MiB whole, over --memory 0.01
    solve(get_game("connect4", variant), "dfs", root=tmp_path)
    db = ["--db", str(tmp_path), "-V", variant]
    code, out, err = run(capsys, "verify", "connect4", *db, "--memory", "0.01")
    assert code == 0 and "sound" in out, out + err
    assert "3,945,711 reachable from the start" in out  # as the whole check counts them
    assert "tasks checked one at a time, parents first, within 0.01 GiB" in out
    code, out, err = run(capsys, "verify", "connect4", *db, "--memory", "0.01", "--json")
    report = json.loads(out)
    assert report["mode"] == "tiers" and report["tasks"] > 1 and report["sound"]
    assert report["reachable"] == report["stored"] == 3945711


def test_tiers_refuse_below_their_least_and_a_game_without_tiers(tmp_path, small_chunks):
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    with pytest.raises(GsolveError, match="a task at a time needs at least .*--sample N"):
        verify(get_game("connect4", C4), tmp_path, memory=1 << 14)
    hanoi = get_game("hanoi", "disks=6,pegs=3")
    solve(hanoi, "retrograde", root=tmp_path)
    with pytest.raises(GsolveError, match="has no tiers to check one at a time.*--sample"):
        verify(get_game("hanoi", "disks=6,pegs=3"), tmp_path, memory=1 << 10)
    assert verify(get_game("hanoi", "disks=6,pegs=3"), tmp_path, memory=1 << 10,
                  positions=100).sound


def test_a_move_into_a_tier_not_listed_is_an_error(tmp_path, small_chunks):
    """Reach marks go only to child tiers' tasks, taken after: a move the tier list does
    not declare must be an error, never a position passed over."""
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    budget = least(get_game("connect4", C4), tmp_path)
    tiers = game.tiers()
    pairs = [(t, c) for t in range(len(tiers) - 1, -1, -1) for c in tiers[t].children
             if c != t]
    for t, c in pairs[:200]:
        wrong = get_game("connect4", C4)
        listed = list(tiers)
        listed[t] = type(tiers[t])(tiers[t].label, tiers[t].start, tiers[t].stop,
                                   tuple(x for x in tiers[t].children if x != c))
        wrong.tiers = lambda listed=listed: list(listed)  # (the instance's own)
        p = verify_tiers.tier_plan(wrong, budget, 1, 4096)[0]
        task = next(k for k in p.tasks if k.a <= tiers[t].start < k.b)
        if not task.a <= tiers[c].start < task.b:  # the undeclared child in another task
            break
    else:
        pytest.fail("no tier's child lies in another task")
    with pytest.raises(GsolveError, match="tier list is wrong"):
        verify(wrong, tmp_path, memory=budget)


def checked_chunks(root, budget, done):
    """The chunks inside the first `done` tasks of a check of Connect-4 4x4 (4,096 slots a
    chunk): their reach marks are of no more use once recorded."""
    game = get_game("connect4", C4)
    g = Database(group_path(root, game), game).numbered_game()
    p = verify_tiers.tier_plan(g, budget, 1, 4096)[0]
    order = p.run_order[::-1]
    slots = np.zeros(-(-g.hash_size // 4096) * 4096, bool)
    for i in order[:done]:
        slots[p.tasks[i].a:p.tasks[i].b] = True
    slots[g.hash_size:] = True
    return set(np.flatnonzero(slots.reshape(-1, 4096).all(axis=1)).tolist())


class StopAt(verify_mod.Progress):
    """Ctrl-C (as the command's handler raises it) once `step` tasks are checked."""

    def __init__(self, step):
        self.step = step

    def update(self, phase, step, detail=""):
        if step == self.step:
            raise Stopped("stopped", 130)


def test_a_stopped_tier_check_resumes_where_it_stopped(tmp_path, monkeypatch, capsys,
                                                       small_chunks):
    """A tier-by-tier check stopped at any task goes on from its last record, with the
    findings, counts and sampled positions of an unbroken one, on a healthy and a damaged
    database; a record of another plan or of a database solved again is not resumed."""
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    budget = least(get_game("connect4", C4), tmp_path)
    path = group_path(tmp_path, game)
    folder = database.verify_path(path)
    every_task(monkeypatch)
    by_tiers(monkeypatch, budget)
    harms = damages(tmp_path, game)
    for label, harm in [("healthy", lambda: None), next(harms)]:
        harm()
        whole = verify(get_game("connect4", C4), tmp_path, show=10 ** 6)
        tasks = whole.tasks
        assert tasks > 8 and not folder.exists()
        for stop in (1, tasks // 3, tasks - 1):
            with pytest.raises(Stopped):
                verify(get_game("connect4", C4), tmp_path, show=10 ** 6,
                       progress=StopAt(stop))
            assert json.loads((folder / "record.json").read_text())["done"] == stop
            kept = {int(f.name) for f in (folder / "reached" / "c").iterdir()}
            assert kept and not kept & checked_chunks(tmp_path, budget, stop)
            again = verify(get_game("connect4", C4), tmp_path, show=10 ** 6)
            assert again.resumed == stop and again.seconds >= again.seconds_before > 0
            assert findings(again) == findings(whole), (label, stop)
            assert (again.sampled, again.chunks) == (whole.sampled, whole.chunks)
            assert not folder.exists()
    # another plan (--memory), then a database solved again: checked from the start
    with pytest.raises(Stopped):
        verify(get_game("connect4", C4), tmp_path, progress=StopAt(3))
    by_tiers(monkeypatch, budget * 2)
    with pytest.raises(Stopped):
        verify(get_game("connect4", C4), tmp_path, progress=StopAt(2))
    assert json.loads((folder / "record.json").read_text())["done"] == 2
    solve(get_game("connect4", C4), "dfs", root=tmp_path, force=True)
    report = verify(get_game("connect4", C4), tmp_path)
    assert report.resumed == 0 and report.sound and not folder.exists()


def test_a_stopped_check_through_the_command(tmp_path, capsys, monkeypatch):
    """The command resumes and says so; a stopped check is a leftover `clean` removes."""
    variant = "width=5,height=4"
    solve(get_game("connect4", variant), "dfs", root=tmp_path)
    game = get_game("connect4", variant)
    folder = database.verify_path(group_path(tmp_path, game))
    db = ["--db", str(tmp_path), "-V", variant]
    every_task(monkeypatch)
    with pytest.raises(Stopped):
        verify(game, tmp_path, memory=int(0.01 * (1 << 30)), progress=StopAt(2))
    code, out, err = run(capsys, "clean", "--db", str(tmp_path), "--dry-run")
    assert code == 0 and "unfinished verify (2 of" in out, out + err
    code, out, err = run(capsys, "verify", "connect4", *db, "--memory", "0.01")
    assert code == 0 and "sound" in out, out + err
    assert "(2 of them by the stopped check it resumed)" in out
    assert "3,945,711 reachable from the start" in out and not folder.exists()
    with pytest.raises(Stopped):
        verify(game, tmp_path, memory=int(0.01 * (1 << 30)), progress=StopAt(2))
    code, out, err = run(capsys, "clean", "--db", str(tmp_path))
    assert code == 0 and not folder.exists(), out + err


# -- --sample N ---------------------------------------------------------------------------
def test_sample_checks_the_start_its_moves_and_random_positions(tmp_path, capsys,
                                                                small_chunks):
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    db = ["--db", str(tmp_path), "-V", C4]
    code, out, err = run(capsys, "verify", "connect4", *db, "--sample", "2000")
    assert code == 0 and "sound" in out and "re-derived from their children" in out, out
    assert "not checked" in out
    code, out, err = run(capsys, "verify", "connect4", *db, "--sample", "2000", "--json")
    report = json.loads(out)
    assert report["mode"] == "sample" and report["sound"]
    assert 2000 <= report["derived"] <= 2000 + 1 + game.max_children
    code, out, err = run(capsys, "verify", "connect4", *db, "--sample", "10", "--json")
    assert json.loads(out)["chunks"] < Database.open(game, tmp_path).nchunks  # quick
    # a start child made wrong (its record swapped with one of another value: the counts
    # stay) is always sampled, as is the start, which it no longer justifies
    group = zarr.open_group(str(group_path(tmp_path, game)), mode="r+")
    value, rem = group["value"][:], group["remoteness"][:]
    child = game.moves(game.start)[0][1]
    other = int(np.flatnonzero((value != 0) & (value != value[child]))[-1])
    group["value"][child], group["value"][other] = int(value[other]), int(value[child])
    group["remoteness"][child], group["remoteness"][other] = int(rem[other]), int(rem[child])
    reseal(tmp_path, game)
    code, out, err = run(capsys, "verify", "connect4", *db, "--sample", "10", "--json")
    report = json.loads(out)
    assert code == 1 and not report["sound"]
    assert {game.start, child} <= {p["hash"] for p in report["details"]}
    code, out, err = run(capsys, "verify", "connect4", *db, "--sample", "10")
    assert code == 1 and "NOT SOUND" in out and "--force" in out


# -- a solve checks itself before it says complete -----------------------------------------
def swap_a_start_child(group, game):
    """Swap the record of one of the start's children with a stored one of another value:
    every count stays, so only re-deriving from the children finds it."""
    value, rem = group["value"], group["remoteness"]
    child = game.moves(game.start)[0][1]
    v = value[:]
    other = int(np.flatnonzero((v != 0) & (v != v[child]))[-1])
    a, b = (int(value[child]), int(rem[child])), (int(value[other]), int(rem[other]))
    value[child], rem[child] = b
    value[other], rem[other] = a


def stray_value(group, game):
    """A win stored in a slot no position reaches: the counts are one more than the
    tally."""
    v = group["value"][:]
    h = int(np.flatnonzero(v == 0)[-1])
    group["value"][h] = 4


def check_fails(excinfo, what):
    text = str(excinfo.value)
    assert "\n" not in text and "failed its check before it was marked complete" in text
    assert what in text and "--force" in text
    return text


@pytest.mark.parametrize("harm,what", [(swap_a_start_child, "children give"),
                                       (stray_value, "the stored values count")])
def test_a_tiered_solve_that_stores_a_wrong_value_is_never_complete(tmp_path, monkeypatch,
                                                                    capsys, harm, what):
    """A value altered after the tasks wrote it: the store is left unfinished, with one
    line, and `--force` solves it again soundly."""
    game = get_game("connect4", C4)
    finish = PartialStore.finish

    def harmed(self, attrs, drop=(), check=None):
        harm(self.group, self.game)
        return finish(self, attrs, drop, check)

    monkeypatch.setattr(PartialStore, "finish", harmed)
    with pytest.raises(GsolveError) as excinfo:
        solve(game, "tiers", root=tmp_path)
    text = check_fails(excinfo, what)
    path = group_path(tmp_path, game)
    assert "the unfinished solve is kept" in text
    assert not (path / "zarr.json").exists()
    assert (partial_path(path) / "zarr.json").exists()
    assert not zarr.open_group(str(partial_path(path)), mode="r").attrs.get("complete")
    monkeypatch.setattr(PartialStore, "finish", finish)  # the store keeps what was altered
    code, out, err = run(capsys, "connect4", "-V", C4, "--db", str(tmp_path))  # resumed
    assert code == 2 and err.count("\n") == 1 and "failed its check" in err, err
    solve(get_game("connect4", C4), "tiers", root=tmp_path, force=True)
    assert verify(get_game("connect4", C4), tmp_path).sound


def test_a_compact_tiered_solve_checks_itself_on_canonical_positions(tmp_path, monkeypatch):
    game = get_game("quixo")
    finish = PartialStore.finish
    monkeypatch.setattr(PartialStore, "finish", lambda self, attrs, drop=(), check=None: (
        swap_a_start_child(self.group, self.game), finish(self, attrs, drop, check)))
    with pytest.raises(GsolveError) as excinfo:
        solve(game, "tiers", root=tmp_path, symmetry=True)
    check_fails(excinfo, "children give")
    assert not (group_path(tmp_path, game) / "zarr.json").exists()


@pytest.mark.parametrize("harm,what", [(swap_a_start_child, "children give"),
                                       (stray_value, "the stored values count")])
def test_a_monolithic_solve_that_stores_a_wrong_value_keeps_the_old_database(
        tmp_path, monkeypatch, harm, what):
    """write_arrays: a failed check removes its folder; the database there stays."""
    import solver.methods.whole as solve_mod  # where a whole-hash method writes

    game = get_game("connect4", C4)
    write = writing.write_arrays

    def harmed(path, game, method, started, chunks, max_rem, extra=None, check=None):
        def checked(group, attrs):
            harm(group, game)
            check(group, attrs)
        return write(path, game, method, started, chunks, max_rem, extra, checked)

    monkeypatch.setattr(solve_mod, "write_arrays", harmed)
    path = group_path(tmp_path, game)
    with pytest.raises(GsolveError) as excinfo:
        solve(game, "dfs", root=tmp_path)
    assert "nothing was stored" in check_fails(excinfo, what)
    assert not path.exists() and not list(path.parent.glob("*.partial-*"))
    monkeypatch.setattr(solve_mod, "write_arrays", write)
    solve(get_game("connect4", C4), "dfs", root=tmp_path)  # a sound one
    before = (path / "value" / "c" / "0").read_bytes()
    monkeypatch.setattr(solve_mod, "write_arrays", harmed)
    with pytest.raises(GsolveError) as excinfo:
        solve(get_game("connect4", C4), "dfs", root=tmp_path, force=True)
    assert "the database that was there is kept" in check_fails(excinfo, what)
    assert (path / "value" / "c" / "0").read_bytes() == before
    assert verify(get_game("connect4", C4), tmp_path).sound


def test_a_solve_whose_tally_is_not_its_arrays_fails(tmp_path, monkeypatch):
    """The counts the solve says against those its arrays hold."""
    import solver.methods.whole as whole

    summary = whole.summary_attrs

    def miscounted(rec, start, puzzle):
        attrs = summary(rec, start, puzzle)
        attrs["values"] = {**attrs["values"], "win": attrs["values"]["win"] + 1}
        attrs["positions"] += 1
        return attrs

    monkeypatch.setattr(whole, "summary_attrs", miscounted)
    with pytest.raises(GsolveError) as excinfo:
        solve(get_game("tictactoe"), "dfs", root=tmp_path)
    check_fails(excinfo, "the solve counted win")
    assert not group_path(tmp_path, get_game("tictactoe")).exists()


def test_check_solved_passes_every_method(tmp_path):
    """Sound solves pass (the check runs in each), the start and its moves among them."""
    for name, variant, method in [("tictactoe", None, "bottomup"), ("hanoi", None, "retrograde"),
                                  ("pegsolitaire", None, "dfs"), ("morris", None, "tiers")]:
        game = get_game(name, variant)
        solve(game, method, root=tmp_path)
        path = group_path(tmp_path, game)
        db = Database(path, game)
        assert verify_sample.check_solved(db.numbered_game(), zarr.open_group(str(path), mode="r"),
                                       db.attrs) is None
