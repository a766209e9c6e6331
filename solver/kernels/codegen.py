"""Instantiate kernel templates for one game, as real files, so numba's disk cache hits.

numba cannot cache a function that receives another jitted function as an argument or
closes over one: the callee's identity is part of the compiled signature, and it changes
every run. So each kernel template in `solver/kernels/` refers to the game's functions by
fixed global names (``game_primitive``, ``game_children``, ...), bound on one marker line.
This module writes a copy of the template with that line replaced by an import from the
game's module, into a cache folder, and imports it. The file name carries a digest of
every source the compiled code depends on, so a changed game or template gets a fresh
file (and compile), while an unchanged one loads from numba's cache in milliseconds.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

import numba

from games.base import FUNCTIONS, game_functions
from hashing.numba_cache import cache_base

MARKER = "game_primitive = game_children = game_parents = None  # bound by codegen.py"
_OURS = ("games", "hashing", "solver")
_loaded: dict[tuple[str, str], object] = {}


def cache_dir() -> Path:
    """Where generated kernels (and numba's cache of them) live; beside it (its parent)
    the indices and this machine's speed record."""
    path = cache_base() / "kernels"
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".probe"
        probe.touch()
        return path
    except OSError:
        path = Path(tempfile.gettempdir()) / f"gsolve-{os.getuid()}" / "kernels"
        path.mkdir(parents=True, exist_ok=True)
        return path


def module_file(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ImportError(f"cannot find module {name}")
    return Path(spec.origin)


def dependencies(game_module: str, template: str) -> list[Path]:
    """Sources whose code can end up inlined in the kernels: the template, the game module
    and everything of ours they import, transitively. The scan parses every one of them
    (40-80 ms, a tenth of a small solve), so its answer is kept beside the kernels with
    each file's size and mtime, and scanned afresh when any of them changed."""
    note = cache_dir() / f"deps-{game_module}-{template}.json"
    try:
        known = json.loads(note.read_text())
        if all(_stamp(Path(f)) == stamp for f, stamp in known):
            return [Path(f) for f, _ in known]
    except (OSError, ValueError, TypeError):
        pass
    found = _scan_dependencies(game_module, template)
    try:
        fd, tmp = tempfile.mkstemp(dir=note.parent, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump([[str(p), _stamp(p)] for p in found], f)
        os.replace(tmp, note)
    except OSError:
        pass
    return found


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _scan_dependencies(game_module: str, template: str) -> list[Path]:
    seen: dict[str, Path] = {}
    todo = [template, game_module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        try:
            path = module_file(name)
        except ImportError:
            continue
        seen[name] = path
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                todo.append(node.module)
            elif isinstance(node, ast.Import):
                todo.extend(a.name for a in node.names)
        todo = [t for t in todo if t.split(".")[0] in _OURS]
    return sorted(seen.values())


# Bound as game_parents when the module has no un-moves. The solvers call game_parents
# only when game.has_parents, which is derived from the same module, so this never runs;
# if it ever did, it fails loudly instead of answering "no parents".
_NO_PARENTS = """
from numba import njit as _njit


@_njit(cache=True, nogil=True)
def game_parents(ctx, h, out, scratch):
    if h >= 0:
        raise RuntimeError("{module} defines no parents: un-moves were called by mistake")
    return 0
"""


# Bound as game_expand when the module has no `expand` of its own (a game defines one
# when deciding "primitive?" and generating children share most of their work).
_COMPOSED_EXPAND = """
from numba import njit as _njit


@_njit(cache=True, nogil=True, inline="always")
def game_expand(ctx, h, out, moves, scratch):
    v = game_primitive(ctx, h, scratch)
    if v != 0:
        return -v
    return game_children(ctx, h, out, moves, scratch)
"""


def _binding(game_module: str) -> str:
    """Import lines binding the game's kernel functions (games/base.py FUNCTIONS, `bound`)
    as game_<name>, with the defaults above for the optional ones it lacks (templates that
    call expand or parents_in_tier declare them beside the marker)."""
    have = game_functions(importlib.import_module(game_module))
    names = [f.name for f in FUNCTIONS if f.bound and f.name in have]
    binding = f"from {game_module} import " + ", ".join(f"{n} as game_{n}" for n in names)
    if "parents" not in names:
        binding += _NO_PARENTS.format(module=game_module)
    if "expand" not in names:
        binding += _COMPOSED_EXPAND
    if "parents_in_tier" not in names:  # the caller keeps those in the tier
        binding += "\ngame_parents_in_tier = game_parents\n"
    return binding


def kernels(game_module: str, template: str):
    """The module of `template` kernels bound to the functions of `game_module`."""
    key = (game_module, template)
    if key in _loaded:
        return _loaded[key]
    modname, src = _generated(game_module, template)
    module = import_generated(modname, src)
    _loaded[key] = module
    return module


def compiled(game_module: str, template: str) -> bool:
    """Whether numba's cache holds compiled code of `template` bound to `game_module`
    (else the first solve compiles it: seconds to minutes)."""
    if (game_module, template) in _loaded:
        return True
    modname, _src = _generated(game_module, template)
    folder = numba.config.CACHE_DIR  # (hashing/numba_cache.py; one subfolder a source folder)
    return bool(folder) and any(Path(folder).glob(f"*/{modname}.*.nbi"))


def _generated(game_module: str, template: str) -> tuple[str, str]:
    """(module name, source) of the kernels of `template` bound to `game_module`: the
    name carries a digest of every source the compiled code depends on."""
    digest = hashlib.sha256(numba.__version__.encode())
    for f in dependencies(game_module, template):
        digest.update(f.name.encode())
        digest.update(f.read_bytes())
    src = module_file(template).read_text()
    if MARKER not in src:
        raise RuntimeError(f"kernel template {template} lacks the binding marker line")
    binding = _binding(game_module)
    digest.update(binding.encode())
    src = src.replace(MARKER, binding)
    modname = "gsolve_{}_{}_{}".format(
        template.rsplit(".", 1)[-1], game_module.rsplit(".", 1)[-1], digest.hexdigest()[:16])
    return modname, src


def import_generated(modname: str, src: str):
    """Write generated source as `<cache>/<modname>.py` (atomically, only when it changed, so
    numba's cache of it stays valid) and import it."""
    folder = cache_dir().resolve()  # numba keys its cache by the file's real path
    path = folder / f"{modname}.py"
    if not path.exists() or path.read_text() != src:
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(src)
        os.replace(tmp, path)
    if str(folder) not in sys.path:
        sys.path.append(str(folder))
    return importlib.import_module(modname)
