"""Which of gsolve's modules a solve runs: `python benchmarks/modules_visited.py [GAME
VARIANT METHOD]` (default: connect4 width=5,height=5 tiers).

Every Python call and return of the solve (all threads, `sys.setprofile`) is mapped to
the module of its frame; of those in solver/, games/ and hashing/ it prints how many
distinct modules ran, in the order first entered, and how many distinct (caller module,
callee module) pairs the solve called through: the path a reader follows through the
code, from `solve()` to the store. The game's kernels (numba) run no Python frames and
count nowhere; the kernels' generated modules count once, as `<generated>`.

Measured here (2026-12-02, 2 cores beside a niced Connect-4 8x4 solve), Connect-4 5x5
tiers: 34 modules and 107 distinct calls between them at 876cd8e; 27 and 89 after the
merges of issue 45 (engine/task.py with taskio, storage/writing.py with partial,
kernels/numbering.py with storage/index, engine/local.py with chunk_cache and writer,
engine/manager.py with record and methods/tiers, storage/chunks.py with chunkio and
sealing). Of the 27, three are the game's (games.base, games.connect4, games.registry).
2026-12-02 16:29, nothing else running: 27 and 88 at 651a768: storage/lock joined
storage/stores and the registry became the games package itself (`games`), but the
cache folder's one rule (hashing/numba_cache.cache_base, which codegen, stores and speed
now ask) is a module entered that was not before.
2026-12-03 06:50, beside a Connect-4 8x4 solve at nice 19: 25 and 81 after the window
modes' reach and solve became one file (engine/window.py; the paged ones engine/paged.py,
reach_far.py engine/far.py) and the speed record stopped asking the games registry
whether a game's class is the registered one (the class names itself).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from collections import Counter

OURS = ("solver", "games", "hashing")


def visited(game_name: str, variant: str, method: str) -> tuple[Counter, int, list[str]]:
    """(calls by module, distinct calls from one module into another, the order first
    entered) of
    one solve into a fresh folder, with the kernels already compiled (a first solve)."""
    from games import get_game
    from solver.methods.solve import solve

    with tempfile.TemporaryDirectory() as warm:
        solve(get_game(game_name, variant), method, root=warm)
    calls: Counter = Counter()
    order: list[str] = []
    edges: set[tuple[str, str]] = set()
    lock = threading.Lock()

    def name_of(frame) -> str | None:
        if frame is None:
            return None
        mod = frame.f_globals.get("__name__", "")
        if mod.startswith("gsolve_"):
            return "<generated>"
        return mod if mod.split(".")[0] in OURS else None

    def profile(frame, event, arg):
        if event != "call":
            return
        mod = name_of(frame)
        if mod is None:
            return
        caller = name_of(frame.f_back)
        with lock:
            calls[mod] += 1
            if calls[mod] == 1:
                order.append(mod)
            if caller is not None and caller != mod:
                edges.add((caller, mod))

    game = get_game(game_name, variant)
    with tempfile.TemporaryDirectory() as root:
        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            solve(game, method, root=root)
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    return calls, len(edges), order


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game", nargs="?", default="connect4")
    ap.add_argument("variant", nargs="?", default="width=5,height=5")
    ap.add_argument("method", nargs="?", default="tiers")
    a = ap.parse_args()
    calls, edges, order = visited(a.game, a.variant, a.method)
    print(f"{a.game} {a.variant} --method {a.method}: {len(calls)} modules of gsolve ran, "
          f"{edges} distinct calls from one into another")
    for mod in order:
        print(f"  {calls[mod]:>9,}  {mod}")


if __name__ == "__main__":
    main()
