"""The database's attributes bound like its chunks (issue 44, "never complete and wrong"):
the attributes readers trust and the arrays' metadata are sealed by `attributes_digest`,
checked on every open (query, analyze, the "already solved" of a solve); a format 3
database without its digests is damaged; format 2 still opens, unbound, and a solve still
checks the start it prints."""

import json

import numpy as np
import pytest

import solver.storage.database as database
from games import get_game
from solver.command.cli import main
from solver.kernels.numbering import Numbering
from solver.methods.solve import solve
from solver.storage.database import (
    ATTRIBUTES_DIGEST,
    FORMAT,
    DamagedDatabase,
    Database,
    group_path,
)
from solver.storage.writing import PartialStore

C4 = "width=4,height=4"
DB = ["connect4", "-V", C4]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def c4(tmp_path, monkeypatch):
    """connect4 4x4 solved in chunks of 4,096 positions (40 a array): (root, game, path)."""
    monkeypatch.setattr(database, "CHUNK", 1 << 12)
    game = get_game("connect4", C4)
    solve(game, "dfs", root=tmp_path)
    return tmp_path, game, group_path(tmp_path, game)


def edit(meta, change):
    doc = json.loads(meta.read_text())
    change(doc)
    meta.write_text(json.dumps(doc))


def attrs_of(path):
    return json.loads((path / "zarr.json").read_text())["attributes"]


def refused(capsys, root, *cmd, what="damaged database"):
    """Every command of `cmd` exits 2 with one line on stderr naming the game, `what`,
    verify and --force, and prints nothing (no "already solved")."""
    for args in cmd:
        code, out, err = run(capsys, *args, "--db", str(root))
        assert code == 2 and out == "", (args, out, err)
        assert err.count("\n") == 1 and err.startswith("gsolve: error: "), err
        assert what in err and "connect4" in err, err  # (a long path is shortened)
        if what == "damaged database":
            assert "gsolve verify connect4" in err and "--force" in err, err
    return err


def not_sound(capsys, root, text):
    code, out, err = run(capsys, "verify", *DB, "--db", str(root))
    assert code == 1 and "NOT SOUND" in out and text in out, out


def as_format_2(path):
    """What a database sealed by an earlier gsolve looks like: format 2, no attribute
    digest."""
    edit(path / "zarr.json", lambda d: (d["attributes"].pop(ATTRIBUTES_DIGEST),
                                        d["attributes"].update(format=2)))


ALL = (["query", *DB], ["analyze", *DB], DB)  # (DB: a plain solve, "already solved")


def test_a_fresh_database_is_sealed_and_opens(c4, capsys):
    root, game, path = c4
    attrs = attrs_of(path)
    assert attrs["format"] == FORMAT == 3 and len(attrs[ATTRIBUTES_DIGEST]) == 64
    db = Database.open(game, root)
    assert db.problems == [] and db.sealed_digest == attrs[ATTRIBUTES_DIGEST]
    code, out, _ = run(capsys, *DB, "--db", str(root))
    assert code == 0 and "already solved (dfs)" in out


def test_an_edited_start_remoteness_is_refused(c4, capsys):
    root, game, path = c4
    start = attrs_of(path)["start_remoteness"]
    edit(path / "zarr.json", lambda d: d["attributes"].update(start_remoteness=start + 9))
    refused(capsys, root, *ALL, what="its attributes or its arrays' metadata are not the "
                                     "ones sealed")
    not_sound(capsys, root, "not the ones sealed")


@pytest.mark.parametrize("key,value", [("positions", 1), ("max_remoteness", 99),
                                       ("values", {"win": 1}), ("start_value", "lose"),
                                       ("method", "tiers"), ("chunks", {})])
def test_any_bound_attribute_edited_is_refused(c4, capsys, key, value):
    root, game, path = c4
    edit(path / "zarr.json", lambda d: d["attributes"].update({key: value}))
    with pytest.raises(DamagedDatabase):
        Database.open(game, root)


def test_the_solve_story_is_not_bound(c4):
    root, game, path = c4
    edit(path / "zarr.json", lambda d: d["attributes"].update(finished="yesterday",
                                                              solve_seconds=1.5))
    Database.open(game, root)


def swap(path, a, b):
    fa, fb = (path / "value" / "c" / str(c) for c in (a, b))
    x, y = fa.read_bytes(), fb.read_bytes()
    fa.write_bytes(y)
    fb.write_bytes(x)


def swapped_position(game, root):
    """A position of chunk 1 whose value chunk 2 holds otherwise, and the chunks."""
    db = Database.open(game, root)
    v1, _ = db.read_chunk(1)
    v2, _ = db.read_chunk(2)
    i = int(np.flatnonzero((v1 != v2) & (v1 != 0))[0])
    return game.to_string(db.chunk_size + i)


def test_a_renamed_digests_key_and_swapped_chunks_are_refused(c4, capsys):
    root, game, path = c4
    pos = swapped_position(game, root)
    edit(path / "zarr.json", lambda d: d["attributes"].update(
        digestz=d["attributes"].pop("digests")))
    swap(path, 1, 2)
    with pytest.raises(DamagedDatabase, match="lacks its chunk digests"):
        Database.open(game, root)
    refused(capsys, root, ["query", *DB, pos], *ALL, what="lacks its chunk digests")
    not_sound(capsys, root, "lacks its chunk digests")


def test_format_2_with_the_digests_key_renamed_still_binds_its_chunks(c4, capsys):
    """Format 2 opens unbound by an attribute digest, but its chunk digests are read
    wherever the array is, whatever the attribute says."""
    root, game, path = c4
    pos = swapped_position(game, root)
    as_format_2(path)
    edit(path / "zarr.json", lambda d: d["attributes"].update(
        digestz=d["attributes"].pop("digests")))
    swap(path, 1, 2)
    refused(capsys, root, ["query", *DB, pos], DB, what="not the chunk solved there")


def test_a_format_3_database_without_its_attribute_digest_is_damaged(c4, capsys):
    root, game, path = c4
    edit(path / "zarr.json", lambda d: d["attributes"].pop(ATTRIBUTES_DIGEST))
    refused(capsys, root, *ALL, what="it has no digest of its attributes")
    not_sound(capsys, root, "no digest of its attributes")


def rechunk(path, name, size):
    edit(path / name / "zarr.json", lambda d: d["chunk_grid"]["configuration"].update(
        chunk_shape=[size]))


@pytest.mark.parametrize("fmt", [3, 2])
@pytest.mark.parametrize("names,size", [(("remoteness",), 3000),
                                        (("value", "remoteness"), 4000),
                                        (("value", "remoteness"), 4100)])
def test_a_changed_chunk_shape_is_refused_by_query_and_solve(c4, capsys, fmt, names, size):
    """One array rechunked, or both alike (40 or 41 chunks then: the chunk digests' count
    still matches or not): every command refuses, format 2 (no attribute digest) too."""
    root, game, path = c4
    if fmt == 2:
        as_format_2(path)
    for name in names:
        rechunk(path, name, size)
    refused(capsys, root, *ALL)
    code, out, _ = run(capsys, "verify", *DB, "--db", str(root))
    assert code == 1 and "NOT SOUND" in out


def test_a_changed_remoteness_type_is_refused(c4, capsys):
    root, game, path = c4
    edit(path / "remoteness" / "zarr.json", lambda d: d.update(data_type="uint16"))
    refused(capsys, root, *ALL)


def test_format_2_still_opens_and_a_solve_checks_its_start(c4, capsys):
    """A database of format 2 (sealed before the attribute digest) answers as before; a
    solve still compares the start it would print with the stored one."""
    root, game, path = c4
    as_format_2(path)
    code, out, _ = run(capsys, "query", *DB, "--db", str(root))
    assert code == 0
    answer = out
    code, out, _ = run(capsys, *DB, "--db", str(root))
    assert code == 0 and "already solved (dfs)" in out
    start = attrs_of(path)["start_remoteness"]
    edit(path / "zarr.json", lambda d: d["attributes"].update(start_remoteness=start + 9))
    refused(capsys, root, DB, what=f"its attribute start_remoteness is {start + 9}, the "
                                   f"start position it stores has {start}")
    assert run(capsys, "query", *DB, "--db", str(root))[1] == answer  # from the arrays


def test_other_formats_are_refused_as_older_or_newer(c4, capsys):
    root, game, path = c4
    edit(path / "zarr.json", lambda d: d["attributes"].update(format=1))
    err = refused(capsys, root, ["query", *DB], what="written by an older gsolve")
    assert "--force" in err
    edit(path / "zarr.json", lambda d: d["attributes"].update(format=4))
    refused(capsys, root, ["query", *DB], what="written by a newer gsolve")


def test_a_database_copied_from_another_variant_is_refused(tmp_path):
    """Its attributes made to name this variant, its chunks and attributes still are the
    other's: the digests are bound to the game and variant."""
    import shutil

    small, other = get_game("connect4", "width=4,height=3"), get_game("connect4",
                                                                      "width=4,height=3,"
                                                                      "connect=3")
    solve(other, "dfs", root=tmp_path)
    there, here = group_path(tmp_path, other), group_path(tmp_path, small)
    shutil.copytree(there, here)
    edit(here / "zarr.json", lambda d: d["attributes"].update(
        variant=dict(small.variant), variant_key=small.variant_key))
    with pytest.raises(DamagedDatabase, match="not the ones sealed"):
        Database.open(small, tmp_path)


def test_a_tiered_store_begun_under_format_2_resumes(tmp_path):
    """A `.partial` store a format-2 gsolve left is resumed (not thrown away), and sealed as
    this format."""
    game = get_game("tictactoe")
    path = group_path(tmp_path, game)
    store = PartialStore(path, game, "tiers", np.uint8, fresh=True)
    store.set_attrs(format=2, tiers_done=[0])
    again = PartialStore(path, game, "tiers", np.uint8, fresh=False)
    assert again.resumed and again.attrs["tiers_done"] == [0]


# -- every method's fresh database opens ------------------------------------------------
@pytest.mark.parametrize("name,variant,method,symmetry", [
    ("tictactoe", None, "bottomup", False),
    ("tictactoe", None, "dfs", True),
    ("tictactoe", None, "tiers", True),
    ("tictactoe", None, "retrograde", True),
    ("tictactoe", None, "tiers", False),
    ("connect4", "width=4,height=3", "dfs", True),
    ("connect4", "width=4,height=3", "bottomup", True),
    ("quixo", "size=3", "tiers", True),
    ("hanoi", "disks=3,pegs=3", "retrograde", False),
])
def test_every_method_writes_a_database_that_opens(tmp_path, capsys, name, variant, method,
                                                   symmetry):
    args = [name, *(["-V", variant] if variant else []), "--db", str(tmp_path)]
    sym = ["--symmetry"] if symmetry else []
    code, out, err = run(capsys, *args, "--method", method, *sym, "--quiet")
    assert code == 0, err
    code, out, err = run(capsys, *args, *sym)
    assert code == 0 and "already solved" in out, (out, err)
    code, out, err = run(capsys, "query", *args)
    assert code == 0, err
    code, out, err = run(capsys, "analyze", *args)
    assert code == 0, err
    game = get_game(name, variant)
    db = Database.open(game, tmp_path)
    assert db.attrs["format"] == 3 and db.sealed_digest == db.attrs[ATTRIBUTES_DIGEST]
    assert db.symmetric == symmetry


def test_a_borrowed_solve_is_sealed(tmp_path, capsys):
    solve(Numbering(get_game("tictactoe"), True), "tiers", root=tmp_path / "donor")
    donor = group_path(tmp_path / "donor", get_game("tictactoe"))
    code, out, err = run(capsys, "tictactoe", "--method", "tiers", "--symmetry", "--borrow",
                         str(donor), "--db", str(tmp_path / "db"))
    assert code == 0 and "borrowed" in out, err
    db = Database.open(get_game("tictactoe"), tmp_path / "db")
    assert db.sealed_digest == db.attrs[ATTRIBUTES_DIGEST]
    assert db.attrs["runs"][-1]["borrowed_tasks"] >= 1
