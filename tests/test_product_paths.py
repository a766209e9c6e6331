"""The product holds no test path (issue 45): gsolve reads no `GSOLVE_*` variable a user
would not set. Tests pause a solve and break its writes through hooks they install
(tests/hooked.py), not through the environment."""

import ast
import re
from pathlib import Path

from solver.runtime.env import HANDOFFS, USER_SETTINGS

SOLVER = Path(__file__).resolve().parent.parent / "solver"
NAME = re.compile(r"GSOLVE_[A-Z0-9_]+")


def gsolve_names(source: str) -> set[str]:
    """Every GSOLVE_* name a module's code holds as a string (an environment key, however
    it is read: os.environ, getenv, env_number, a constant passed on), docstrings and
    comments aside; an f-string that builds a name is returned as its text."""
    tree = ast.parse(source)
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef))
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and (
                id(node) not in docs) and NAME.fullmatch(node.value):
            found.add(node.value)
        elif isinstance(node, ast.JoinedStr) and len(node.values) > 1 and isinstance(
                node.values[0], ast.Constant) and re.fullmatch(
                r"GSOLVE_[A-Z0-9_]*", str(node.values[0].value)):  # f"GSOLVE_{x}"
            found.add(ast.unparse(node))
    return found


def test_the_scan_finds_environment_reads():
    """(The check below cannot pass by finding nothing.)"""
    got = gsolve_names('"""GSOLVE_DOC"""\nimport os\nKEY = "GSOLVE_PAUSE"\n'
                       'os.environ.get(KEY)\nos.getenv("GSOLVE_X")\nf"GSOLVE_{k}"\n')
    assert got == {"GSOLVE_PAUSE", "GSOLVE_X", "f'GSOLVE_{k}'"}
    assert {"GSOLVE_THREADS", "GSOLVE_MEMORY"} <= gsolve_names(
        (SOLVER / "runtime" / "env.py").read_text())


def test_gsolve_reads_only_user_settings():
    allowed = set(USER_SETTINGS) | set(HANDOFFS)
    stray = {}
    for path in sorted(SOLVER.rglob("*.py")):
        for name in gsolve_names(path.read_text()) - allowed:
            stray.setdefault(name, []).append(str(path.relative_to(SOLVER.parent)))
    assert not stray, (f"GSOLVE_* names read in solver/ that are no user setting "
                       f"(solver/runtime/env.py USER_SETTINGS): {stray}")


def test_every_user_setting_is_documented_and_read():
    """The list is the product's: each setting is named in env.py's docstring and read
    somewhere in solver/ (a setting dropped from the code leaves the list too)."""
    from solver.runtime import env

    read = set()
    for path in SOLVER.rglob("*.py"):
        read |= gsolve_names(path.read_text())
    for name in USER_SETTINGS:
        assert name in env.__doc__, name
        assert name in read, name
