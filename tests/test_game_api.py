"""The game API's shape: each rule written once (games.base.forms), no one-line wrappers."""

import ast
from pathlib import Path

import pytest
from numba.core.caching import NullCache
from numba.core.registry import CPUDispatcher

import games.quixo as quixo
import games.teeko as teeko
from games.base import CANONICAL, FUNCTION_NAMES, INDEXED, PLAIN, forms

GAMES = Path(__file__).resolve().parent.parent / "games"
MOST_WRAPPERS = 10  # issue 45: 46 before games.base.forms


def wrappers(source: str) -> list[str]:
    """Module-level functions whose body, a docstring aside, is one `return _private(...)`:
    a form written out by hand that forms() would generate."""
    found = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]
        if (len(body) == 1 and isinstance(body[0], ast.Return)
                and isinstance(body[0].value, ast.Call)
                and isinstance(body[0].value.func, ast.Name)
                and body[0].value.func.id.startswith("_")):
            found.append(node.name)
    return found


def test_the_scan_finds_a_wrapper():
    src = ('def children(ctx, h, out, moves, scratch):\n    """Doc."""\n'
           '    return _children(ctx, h, out, moves, scratch, 0, False)\n\n'
           'def expand(ctx, h, out, moves, scratch):\n    n = _children(ctx, h, out, moves,'
           ' scratch, 0, True)\n    return n\n')
    assert wrappers(src) == ["children"]


def test_few_one_line_wrappers_are_left():
    found = {p.stem: wrappers(p.read_text()) for p in sorted(GAMES.glob("*.py"))}
    total = sum(map(len, found.values()))
    assert total <= MOST_WRAPPERS, {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("module, names", [
    (quixo, [f"{op}{s}" for op in ("children", "expand", "parents", "parents_in_tier")
             for s in ("", "_canonical", "_indexed")]),
    (teeko, ["children", "children_canonical", "expand", "expand_canonical", "parents",
             "parents_canonical"]),
])
def test_forms_are_cached_functions_of_the_game(module, names):
    """Each form is an njit function of the game's module, cached beside the game's file
    under its own name, its flags constants (numba freezes globals)."""
    for name in names:
        f = getattr(module, name)
        assert isinstance(f, CPUDispatcher), name
        assert f.targetoptions.get("_nrt") is False and f.targetoptions.get("nogil"), name
        assert not isinstance(f._cache, NullCache), name
        assert f._cache._impl.filename_base.startswith(f"{module.__name__.split('.')[-1]}"
                                                      f".{name}-"), name
        assert f.py_func.__code__.co_filename == module.__file__
        numbering = INDEXED if "_indexed" in name else CANONICAL if "_canonical" in name \
            else PLAIN
        assert f.py_func.__globals__["NUMBERING"] == numbering, name
        if name.startswith(("expand", "parents_in_tier")):
            assert f.py_func.__globals__["SECOND"] is True, name


def test_forms_of_one_rule_do_not_share_a_cache_file():
    bases = {getattr(quixo, n)._cache._impl.filename_base
             for n in ("children", "children_canonical", "expand", "expand_indexed")}
    assert len(bases) == 4


@pytest.mark.parametrize("ops", [("children", "parents"), ("frobnicate",), ()])
def test_forms_refuses_what_is_no_rule(ops):
    with pytest.raises(TypeError):
        forms(*ops)


def test_forms_refuses_a_form_the_table_lacks():
    """`canonical` has no `_canonical` form, nor forms() a body of its arguments."""
    assert "canonical_canonical" not in FUNCTION_NAMES
    for ops, kw in ((("canonical",), {"canonical": True}), (("orbit",), {})):
        with pytest.raises(TypeError, match="forms"):
            forms(*ops, **kw)
