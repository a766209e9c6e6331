"""The solve-time record: one unsigned integer per position (uint16, or uint32 for games
whose remoteness can pass 4095).

    bits 0-2   value code (UNDECIDED 0, LOSE 1, DRAW 2, TIE 3, WIN 4; 7 = reached, not
               yet expanded, during the visit sweeps)
    bit  3     visited (reachable from the start)
    bits 4-    remoteness

This module is plain numba, shared by the templates and the solvers.
"""

import numpy as np
from numba import njit

VALUE_MASK = 7
PENDING = 7
VISITED = 8
SHIFT = 4
UNDECIDED, LOSE, DRAW, TIE, WIN = 0, 1, 2, 3, 4


def record_dtype(max_remoteness: int):
    return np.uint16 if max_remoteness < (1 << (16 - SHIFT)) else np.uint32


def max_record_remoteness(dtype) -> int:
    return (1 << (np.dtype(dtype).itemsize * 8 - SHIFT)) - 1


@njit(cache=True, nogil=True)
def split_records(rec, value, remoteness):
    """Database arrays from records: value code, and remoteness where the value has one."""
    for i in range(rec.shape[0]):
        r = rec[i]
        v = r & VALUE_MASK
        value[i] = v
        if v == WIN or v == LOSE or v == TIE:
            remoteness[i] = r >> SHIFT
        else:
            remoteness[i] = 0
