"""What the commands print, as a user reads it (issue 25's small things): the `--symmetry`
summary labels canonical counts, `bench` heads bytes per slot and per position,
`--plot` says the file was written, `gsolve list` tells the truth about Teeko 5x5."""

import json

from solver.command.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def summary_rows(out: str) -> dict[str, str]:
    """The `  key   value` rows of a solve's summary, by key (keys are words with spaces,
    padded to 20 characters)."""
    rows = {}
    for line in out.splitlines():
        if line.startswith("  "):
            rows[line[2:22].strip()] = line[23:]
    return rows


def test_symmetry_summary_labels_canonical_positions(db, capsys):
    code, out, _ = run(capsys, "tictactoe", "--symmetry", "--db", str(db))
    rows = summary_rows(out)
    assert code == 0 and "reachable positions" not in rows
    assert rows["canonical positions"].startswith("765 reachable, one per orbit (hash space "
                                                  "6,046")
    assert rows["by value"] == "win 390, lose 224, tie 151"
    # reused: the same words
    code, out, _ = run(capsys, "tictactoe", "--symmetry", "--db", str(db))
    assert code == 0 and "already solved" in out
    assert summary_rows(out)["canonical positions"].startswith("765 reachable, one per orbit")
    code, out, _ = run(capsys, "tictactoe", "--symmetry", "--db", str(db), "--json")
    obj = json.loads(out)
    assert obj["symmetry"] is True and obj["positions"] == 765 and obj["hash_size"] == 6046
    # without symmetry (solved again): all reachable positions, labelled as before
    code, out, _ = run(capsys, "tictactoe", "--db", str(db))
    rows = summary_rows(out)
    assert code == 0 and "canonical positions" not in rows
    assert rows["reachable positions"] == "5,478 (hash space 6,046)"
    code, out, _ = run(capsys, "tictactoe", "--db", str(db), "--json")
    assert json.loads(out)["symmetry"] is False and json.loads(out)["positions"] == 5478


def test_bench_prints_bytes_per_slot_and_per_position(capsys):
    code, out, _ = run(capsys, "bench", "tictactoe", "--json")
    row = json.loads(out)
    assert code == 0 and (row["hash_size"], row["positions"]) == (6046, 5478)
    peak = row["bytes_per_slot"] * row["hash_size"]  # the peak memory the solve allocated
    assert peak > 0
    assert abs(row["bytes_per_position"] * row["positions"] - peak) <= 0.002 * 6046  # rounding
    assert row["bytes_per_position"] > row["bytes_per_slot"]  # fewer positions than slots
    code, out, _ = run(capsys, "bench", "tictactoe")
    header, values = (line.split() for line in out.splitlines())
    assert code == 0 and header[-2:] == ["bytes/slot", "bytes/pos"]
    per_slot, per_pos = (float(v) for v in values[-2:])
    assert per_pos > per_slot > 0


def test_bench_symmetry_times_canonical_positions(capsys):
    """`bench --symmetry` solves the canonical positions only: tic-tac-toe's 765 (the
    published count of its positions up to the square's symmetries), and says so."""
    code, out, _ = run(capsys, "bench", "tictactoe", "-m", "dfs", "--symmetry", "--json")
    row = json.loads(out)
    assert code == 0 and row["symmetry"] is True and row["positions"] == 765
    code, out, _ = run(capsys, "bench", "tictactoe", "-m", "dfs", "--symmetry")
    assert code == 0 and "dfs, symmetry" in out
    code, _, err = run(capsys, "bench", "hexapawn", "--symmetry")
    assert code == 2 and "declares no symmetries" in err


def test_plot_says_the_file_was_written(db, capsys, tmp_path):
    assert run(capsys, "hexapawn", "--db", str(db))[0] == 0
    png = tmp_path / "a.png"
    code, out, err = run(capsys, "analyze", "hexapawn", "--plot", str(png), "--db", str(db))
    assert code == 0 and png.stat().st_size > 0
    assert out.splitlines()[-1] == f"wrote {png}" and out.count("wrote") == 1
    png.unlink()
    code, out, err = run(capsys, "analyze", "hexapawn", "--plot", str(png), "--json",
                         "--db", str(db))
    assert code == 0 and png.exists()
    assert json.loads(out)["positions"] == 135  # stdout stays one JSON object
    assert err.strip() == f"wrote {png}"
    curve = tmp_path / "curve.png"
    code, out, err = run(capsys, "learn", "hexapawn", "--games", "20", "--seed", "1",
                         "--plot", str(curve), "--db", str(db))
    assert code == 0 and curve.stat().st_size > 0
    assert out.splitlines()[-1] == f"wrote {curve}"
    curve.unlink()
    code, out, err = run(capsys, "learn", "hexapawn", "--games", "20", "--seed", "1",
                         "--plot", str(curve), "--json", "--db", str(db))
    assert code == 0 and curve.exists() and err.strip() == f"wrote {curve}"
    assert all(json.loads(line) for line in out.splitlines())


def test_list_says_how_teeko_5x5_solves(capsys):
    """It said "too big to solve here", yet `--method tiers --symmetry` solves it in about
    a minute within 1 GiB (benchmarks/results/2026-11-24-teeko-5x5.md)."""
    from games import get_game
    from solver.methods.registry import applicable_methods

    code, out, _ = run(capsys, "list", "--json")
    rows = {r["game"]: r for r in json.loads(out)}
    help_ = rows["teeko"]["variants"]["size"]["help"]
    assert code == 0 and "too big" not in help_
    assert "--method tiers --symmetry" in help_ and "1 GiB" in help_
    g = get_game("teeko", "size=5")  # what it names applies to that variant
    assert "tiers" in applicable_methods(g) and g.has_symmetry
    code, out, _ = run(capsys, "list")
    assert code == 0 and "too big to solve here" not in out
