"""The shape of solver/ (issue 25): imports run one way, with no circle, and no module is
over 500 lines. Read from the source with ast, so function-level imports count too."""

import ast
from pathlib import Path

ROOT = Path(__file__).parents[1]


def _modules() -> dict[str, Path]:
    out = {}
    for f in (ROOT / "solver").rglob("*.py"):
        name = ".".join(f.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = f
    return out


def _imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        for node in ast.walk(ast.parse(f.read_text())):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            edges[m] |= {n for n in names if n in mods and n not in (m, "solver")}
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_in_solver():
    assert _cycles(_imports(_modules())) == []


def test_the_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_sub_packages_import_one_way():
    """command and use above methods, methods above engine, engine above storage; kernels
    and runtime below them all."""
    rank = {"command": 4, "use": 4, "methods": 3, "engine": 2, "storage": 1, "kernels": 0,
            "runtime": 0}
    bad = []
    for m, targets in _imports(_modules()).items():
        parts = m.split(".")
        if len(parts) < 3:
            continue
        for t in targets:
            tp = t.split(".")
            if len(tp) >= 3 and tp[1] != parts[1] and rank[tp[1]] > rank[parts[1]]:
                bad.append(f"{m} -> {t}")
    assert bad == []


def test_no_module_in_solver_over_500_lines():
    long = {m: n for m, f in _modules().items()
            if (n := len(f.read_text().splitlines())) > 500}
    assert long == {}
