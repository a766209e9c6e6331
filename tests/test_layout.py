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


# -- the tier engine's memory model (issue 45) --------------------------------------------
MODEL = "solver.engine.memory"
PLANNER = ("solver.engine.plan", "solver.command.plan", "solver.methods.estimate")


def _worker_modules(mods) -> set[str]:
    """The tier worker and its modes: engine/worker.py, one file per mode (engine/window.py,
    far.py, paged.py) and the loopy tiers' algorithms they run."""
    return {m for m in mods if m.startswith("solver.engine.")
            and m.split(".")[-1] in ("worker", "window", "far", "paged", "loopy", "levels")}


def _reached(edges, start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for t in edges[todo.pop()] - seen:
            seen.add(t)
            todo.append(t)
    return seen


def test_the_planner_imports_no_worker_or_mode_module():
    """The planner (the task plan, `gsolve plan`, the budget check) asks the memory model,
    never the worker: none of them imports the worker or a mode module (at any level of a
    function), nor does the task plan or the model through any chain of imports; the
    model itself stands on no other module of the engine."""
    mods = _modules()
    edges = _imports(mods)
    modes = _worker_modules(mods)
    assert {"solver.engine.worker", "solver.engine.window", "solver.engine.far",
            "solver.engine.paged"} <= modes
    bad = {m: sorted(edges[m] & modes) for m in PLANNER if edges[m] & modes}
    bad |= {m: sorted(_reached(edges, m) & modes) for m in ("solver.engine.plan", MODEL)
            if _reached(edges, m) & modes}
    assert bad == {}
    assert all(MODEL in edges[m] for m in PLANNER) and MODEL in edges["solver.engine.worker"]
    assert {t for t in edges[MODEL] if t.startswith("solver.engine.")} == set()  # the floor


def _formulas(tree: ast.AST, model_names: set[str]) -> list[str]:
    """Functions (at any depth, methods too) that define a byte formula: named as a
    function of the memory model is, or named `*_bytes`, `*sizes`, `*slowdown` or
    `least*` and computing (an arithmetic operation in its body; one that only hands its
    arguments to the model computes nothing)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            n = node.name.lstrip("_")
            named = (n.endswith(("_bytes", "sizes", "slowdown")) or n.startswith("least"))
            computes = any(isinstance(x, ast.BinOp) for x in ast.walk(node))
            if node.name in model_names or (named and computes):
                out.append(node.name)
    return out


def _public_functions(tree: ast.Module) -> set[str]:
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)
            and not n.name.startswith("_")}


def test_no_module_but_the_model_defines_a_byte_formula():
    """Every byte formula of a tier task is the memory model's (engine/memory.py): no other
    module of solver/engine, nor the planner, defines a function named for one
    (`_formulas`: so did worker.slot_bytes, lean.batch_bytes, paged.sizes and
    plan.task_bytes before issue 45)."""
    mods = _modules()
    model = ast.parse(mods[MODEL].read_text())
    names = _public_functions(model) - {"default_budget"}
    assert {"strategy", "slot_bytes", "lean_bytes", "paged_sizes", "reach_sizes"} <= names
    scope = [m for m in mods if m.startswith("solver.engine.") or m in PLANNER]
    bad = {m: f for m in scope if m != MODEL
           and (f := _formulas(ast.parse(mods[m].read_text()), names))}
    assert bad == {}


def test_the_formula_finder_finds_formulas():
    src = ("def slot_bytes(g): return 2 * g\n"
           "class P:\n    def slowdown(self): return self.a / self.b\n"
           "    def least(self): return model.least(self.game)\n"
           "def plan():\n    def _sizes(): return 1 << 20\n    return strategy(1)\n"
           "def strategy(x): return x\ndef ok(): return 1 + 1\n")
    assert sorted(_formulas(ast.parse(src), {"strategy"})) == [
        "_sizes", "slot_bytes", "slowdown", "strategy"]


OURS = ("solver", "games", "hashing")


def _private_crossings(path: Path) -> list[str]:
    """`_name`s this file takes from another of our modules (imported, or read off a module
    it imported): a private name is its module's own business."""
    tree = ast.parse(path.read_text())
    ours, found = set(), []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in OURS:
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__"):
                    found.append(f"{node.module}.{a.name}")
                ours.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            ours |= {a.asname or a.name.split(".")[0] for a in node.names
                     if a.name.split(".")[0] in OURS}
    found += [f"{n.value.id}.{n.attr}" for n in ast.walk(tree)
              if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
              and n.value.id in ours and n.attr.startswith("_") and not n.attr.startswith("__")]
    return found


def test_no_private_name_crosses_modules():
    files = [p for d in (*OURS, "benchmarks") for p in sorted((ROOT / d).rglob("*.py"))]
    crossed = {str(p.relative_to(ROOT)): c for p in files if (c := _private_crossings(p))}
    assert not crossed


def test_the_crossing_finder_finds_one(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("from solver.kernels.codegen import _x\nimport solver.x as s\ns._y\n")
    assert _private_crossings(f) == ["solver.kernels.codegen._x", "s._y"]
