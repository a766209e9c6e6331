"""`njit` for the games' rules and the hash: numba's, compiled without reference counts.

A solve calls a game's rules at every position, and numba counts references to every
array a compiled function takes out of a tuple, passes on or slices: an atomic increment
and decrement on the array's shared counter each time. Bagh-Chal 5x5's compact children
spent 55% of their time there (1.02 us a position, 0.46 without), and two threads reading
the same tables fought over the counters' cache lines. The rules only read tables the
solve holds for its whole length, so they need no counts: functions made with this
`njit` borrow their arrays (numba's `_nrt=False`).

Such a function cannot allocate an array (numba refuses to compile it, saying so) or
return one it did not get as an argument; one that allocates is declared with
`nrt=True` and counts as numba's own. None returns an array or a tuple holding one:
its caller would count a reference that was never taken: `returning_arrays` lists any
that does, among those compiled so far (the tests ask after every test file).
"""

from __future__ import annotations

import sys

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher


def njit(*args, nrt: bool = False, **options):
    """numba.njit, with reference counting off unless `nrt` (see the module)."""
    if not nrt:
        options["_nrt"] = False
    return numba.njit(*args, **options)


def _holds_array(t) -> bool:
    if isinstance(t, types.Array):
        return True
    return isinstance(t, types.BaseTuple) and any(_holds_array(x) for x in t.types)


def returning_arrays(prefixes=("games", "hashing", "gsolve_sym", "gsolve_compact")
                     ) -> tuple[int, list[str]]:
    """(compiled signatures seen, "module.function -> type" for each one that returns an
    array) of the functions compiled without reference counts in the modules loaded."""
    seen, bad = 0, []
    for mod in list(sys.modules.values()):
        name = getattr(mod, "__name__", "")
        if not name.startswith(prefixes):
            continue
        for fname, f in list(vars(mod).items()):
            if not isinstance(f, CPUDispatcher) or f.targetoptions.get("_nrt", True):
                continue
            for cres in list(f.overloads.values()):
                seen += 1
                if _holds_array(cres.signature.return_type):
                    bad.append(f"{name}.{fname} -> {cres.signature.return_type}")
    return seen, bad
