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
its caller would count a reference that was never taken (tests/test_contract.py checks
every compiled one after `gsolve check` of every game).
"""

from __future__ import annotations

import numba


def njit(*args, nrt: bool = False, **options):
    """numba.njit, with reference counting off unless `nrt` (see the module)."""
    if not nrt:
        options["_nrt"] = False
    return numba.njit(*args, **options)
