"""The game contract and `gsolve check` on every registered game, in its default variant
and with each variant key at its smallest and largest value: a new game is checked here
without new test code. Then games broken on purpose, to show each check can fail."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from games import available, game_class, get_game
from games.base import FUNCTIONS, GsolveError, Tier, game_functions
from games.tictactoe import TicTacToe
from hashing.jit import returning_arrays
from solver.command.check import run_checks
from solver.command.cli import main


def _variants(name: str) -> dict[str, dict]:
    """'default', and key=value for each integer key at its ends (others default)."""
    out: dict[str, dict] = {"default": {}}
    for key, spec in game_class(name).variants.items():
        if spec.choices:
            ends = (spec.choices[0], spec.choices[-1])
        elif isinstance(spec.lo, int) and isinstance(spec.hi, int):
            ends = (spec.lo, spec.hi)
        else:
            continue
        for val in ends:
            if val != spec.default:
                out[f"{key}={val}"] = {key: val}
    return out


CASES = [(name, label, variant) for name in available()
         for label, variant in _variants(name).items()]


@pytest.mark.parametrize("name,label,variant", CASES,
                         ids=[f"{n}-{lab}" for n, lab, _ in CASES])
def test_every_game_passes_the_suite(name, label, variant):
    try:
        game = get_game(name, variant)
    except GsolveError:  # a combination the game refuses, with a one-line reason
        assert label != "default"
        return
    checks = run_checks(game, samples=300)
    assert [c.name for c in checks][:2] == ["contract", "round trip"]
    assert ("parents" in [c.name for c in checks]) == game.has_parents
    bad = {c.name: c.failures for c in checks if not c.ok}
    assert not bad, bad


def test_rules_without_reference_counts_return_no_array(tmp_path):
    """hashing/jit.py: a function compiled without reference counts that returned an
    array would hand its caller a reference never taken (a double free later). Every such
    function compiled by `gsolve check` of each game, and by a `--symmetry` solve where the
    game has symmetries (its generated wrappers), returns none."""
    for name in available():
        game = get_game(name, {})
        run_checks(game, samples=50)
        if game.has_symmetry and game.hash_size < 1 << 22:
            method = ["--method", "tiers"] if game.tiers() is not None else []
            assert main(["solve", name, "--symmetry", *method, "--db", str(tmp_path),
                         "--quiet"]) == 0
    seen, bad = returning_arrays()
    assert not bad, bad
    assert seen > 100, seen


def test_check_command(capsys):
    assert main(["check", "tictactoe", "--samples", "200"]) == 0
    out = capsys.readouterr().out
    assert "pass  round trip" in out and "all checks passed" in out


# -- failure 3: a declared capability its module lacks ------------------------------------
def test_declaring_parents_is_refused():
    """Before: a subclass with has_parents = True and no parents() was solved by
    retrograde through a no-op, with wrong values. Now the declaration itself fails."""
    with pytest.raises(TypeError, match="has_parents"):
        class Claims(TicTacToe):
            has_parents = True
    assert not TicTacToe.has_parents and not TicTacToe().has_parents
    assert get_game("connect4").has_parents  # games.connect4 defines parents


def test_codegen_binds_no_silent_parents():
    """A kernel module for a game without un-moves binds a stub that raises if called."""
    from solver.kernels.codegen import kernels

    game = get_game("tictactoe")
    k = kernels(game.module, "solver.kernels.retrograde")
    with pytest.raises(RuntimeError, match="defines no parents"):
        k.game_parents(game.ctx, game.start, np.empty(9, np.int64), np.empty(9, np.int8))


# -- the table of game functions ----------------------------------------------------------
def test_docs_list_every_function_of_the_table():
    """docs/games.md's contract table names every function of games.base.FUNCTIONS with
    its signature and whether it is required, so the two cannot drift apart."""
    from pathlib import Path

    text = (Path(__file__).parents[1] / "docs" / "games.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    for f in FUNCTIONS:
        row = [r for r in rows if f"`{f.name}(" in r or f"`{f.name}`" in r]
        assert row, f"docs/games.md does not list {f.name}"
        if f"`{f.name}(" in row[0]:
            assert f"`{f.name}({f.args})" in row[0]
        assert ("| yes |" in row[0]) == f.required


def _module_with(*names):
    mod = types.ModuleType("fake_game")
    for n in names:
        setattr(mod, n, lambda *a: 0)
    return mod


@pytest.mark.parametrize("names,message", [
    (("children",), "does not define primitive"),
    (("primitive", "children", "parents_in_tier"), "parents_in_tier without parents"),
    (("primitive", "children", "canonical"), "canonical without orbit"),
    (("primitive", "children", "canonical", "orbit", "parents_canonical"),
     "parents_canonical without parents"),
])
def test_a_function_without_what_it_needs_is_refused(names, message):
    """Every reader of the table (the contract, codegen, the symmetry wrapper) refuses a
    module whose optional functions come without their companions."""
    with pytest.raises(TypeError, match=message):
        game_functions(_module_with(*names))


def test_every_game_module_passes_the_table():
    for name in available():
        have = game_functions(sys.modules[game_class(name).module])
        assert {"primitive", "children"} <= set(have)


# -- the contract at construction ------------------------------------------------------
def test_contract_refuses_bad_attributes():
    class NoStart(TicTacToe):
        def __init__(self, **v):
            super().__init__(**v)
            self.start = self.hash_size

    class ListCtx(TicTacToe):
        def __init__(self, **v):
            super().__init__(**v)
            self.ctx = list(self.ctx)

    class GapTiers(TicTacToe):
        def tiers(self):
            return [Tier(t.label, t.start + (1 if i == 3 else 0), t.stop, t.children)
                    for i, t in enumerate(super().tiers())]

    for cls, words in ((NoStart, "outside the hash"), (ListCtx, "ctx must be a tuple")):
        with pytest.raises(TypeError, match=words):
            cls()
    assert _failed(GapTiers()) == {"contract"}  # tiers are checked where they are used
    with pytest.raises(TypeError, match="gap"):
        GapTiers().check_tiers()


# -- games broken on purpose: each check can fail -----------------------------------------
def _broken(base, **functions):
    """A subclass of `base` whose rules come from a made-up module holding `functions`
    (plain Python is enough for the checks, which call them one position at a time)."""
    real = sys.modules[base.module]
    name = f"broken_{base.__name__.lower()}_{'_'.join(sorted(functions))}"
    mod = types.ModuleType(name)
    mod.primitive, mod.children = real.primitive, real.children
    if hasattr(real, "parents"):
        mod.parents = real.parents
    for key, fn in functions.items():
        setattr(mod, key, fn)
    sys.modules[name] = mod
    return type(f"Broken{base.__name__}", (base,), {"__module__": name})


def _failed(game):
    return {c.name for c in run_checks(game, samples=300) if not c.ok}


def test_suite_catches_a_dropped_parent():
    from games import connect4

    def parents(ctx, h, out, scratch):
        return max(0, connect4.parents(ctx, h, out, scratch) - 1)

    assert _failed(_broken(game_class("connect4"), parents=parents)()) == {"parents"}


def test_suite_catches_a_child_outside_the_hash():
    from games import tictactoe

    def children(ctx, h, out, moves, scratch):
        n = tictactoe.children(ctx, h, out, moves, scratch)
        out[0] = 10**9
        return n

    assert "children" in _failed(_broken(TicTacToe, children=children)())


def test_suite_reports_rules_that_raise():
    """A rule that raises is a failure with its position, not a crash of the suite."""
    from games import tictactoe
    from solver.command.check import check_game

    start = TicTacToe().start

    def children(ctx, h, out, moves, scratch):
        if h != start:
            raise IndexError("index 9 is out of bounds")
        return tictactoe.children(ctx, h, out, moves, scratch)

    report = check_game(_broken(TicTacToe, children=children)(), 50)
    bad = [c for c in report["checks"] if not c["ok"]]
    assert [c["check"] for c in bad] == ["children"] and "IndexError" in bad[0]["failures"][0]


def test_suite_catches_strings_and_tiers():
    class Shifted(TicTacToe):
        def from_string(self, s):
            return super().from_string(s) ^ 1

    class WrongTiers(TicTacToe):
        def tiers(self):
            return [Tier(t.label, t.start, t.stop, ()) for t in super().tiers()]

    class SameNames(TicTacToe):
        def move_name(self, h, code):
            return "x"

    assert "round trip" in _failed(Shifted())
    assert _failed(WrongTiers()) == {"child tiers"}
    assert _failed(SameNames()) == {"move names"}
    assert main(["check", "tictactoe"]) == 0  # the real game still passes
