"""Orbit-least sets of cells: a direct numbering of boards up to symmetry.

A generic hash ranks a board type by type, the first type's cells by their colex rank
(hashing/generic.py), and colex order is the numeric order of the cell masks. So when the
symmetries permute cells, a board that is the least of its images (compared as its hash
is: first type's mask, then the rest) has a first-type mask that is the least of *its*
images. Numbering those masks alone (`least_sets`) turns the rank of the first type into
an index among the least masks: boards up to symmetry then take C(n, k)/|G| first-type
ranks instead of C(n, k), with no index of canonical slots held anywhere (Gasser's
Nine Men's Morris database is numbered so). Boards whose first mask has symmetries of its
own may still have other images with that mask; those few stay in the numbering as gaps.
"""

from __future__ import annotations

import math

import numpy as np

from hashing.jit import njit


def image_tables(where: np.ndarray) -> np.ndarray:
    """tab[s, k, q]: the image under symmetry s (cell p goes to where[s, p]) of the cells
    q at byte k of a mask (bit p: cell p)."""
    nsym, n = where.shape
    nbytes = -(-n // 8)
    cell = np.zeros((nsym, nbytes * 8), np.int64)  # the image's bit of each cell, 0 past n
    cell[:, :n] = np.left_shift(np.int64(1), where.astype(np.int64))
    bits = np.arange(256)[:, None] >> np.arange(8) & 1  # bits[q, b]: cell b of byte q
    # the images of distinct cells are distinct bits, so a sum is their union
    return np.einsum("qb,skb->skq", bits, cell.reshape(nsym, nbytes, 8))


@njit(cache=True, nogil=True)
def _least_sets(tab, n, k, least):
    """least[r]: whether the k-set of colex rank r is the least of its images; the sets
    are walked in colex (numeric) order by Gosper's next-combination step."""
    nsym, nbytes = tab.shape[0], tab.shape[1]
    m = (np.int64(1) << k) - 1
    for r in range(least.shape[0]):
        ok = True
        for s in range(1, nsym):
            img = np.int64(0)
            for b in range(nbytes):
                img |= tab[s, b, (m >> (8 * b)) & 255]
            if img < m:
                ok = False
                break
        least[r] = ok
        if m == 0:
            break
        low = m & -m
        ripple = m + low
        m = (((ripple ^ m) >> 2) // low) | ripple


def least_sets(where: np.ndarray, k: int, tab=None) -> tuple[np.ndarray, np.ndarray]:
    """(index, rank) of the k-sets of n = where.shape[1] cells that are the least of their
    images: index[r] the place of the set of colex rank r among them (-1 when it is not
    one), rank[i] the colex rank of the i-th. `tab`: where's `image_tables`."""
    n = where.shape[1]
    least = np.zeros(math.comb(n, k), np.bool_)
    _least_sets(image_tables(where) if tab is None else tab, n, k, least)
    rank = np.flatnonzero(least).astype(np.int64)
    index = np.full(least.size, -1, np.int64)
    index[rank] = np.arange(rank.size, dtype=np.int64)
    return index, rank


def least_set_tables(where: np.ndarray, most: int) -> tuple[np.ndarray, ...]:
    """`least_sets` for every size k = 0..most, concatenated: (index, rank, first_index,
    first_rank), where size k's index (by colex rank) starts at first_index[k] and its
    ranks (by place) at first_rank[k], so first_rank[k + 1] - first_rank[k] sets of size
    k are least. A numbering over boards of several first-type counts (Morris, Quixo)."""
    index, rank = [], []
    tab = image_tables(where)
    for k in range(most + 1):
        i, r = least_sets(where, k, tab)
        index.append(i)
        rank.append(r)
    first_i = np.cumsum([0] + [a.size for a in index]).astype(np.int64)
    first_r = np.cumsum([0] + [a.size for a in rank]).astype(np.int64)
    return np.concatenate(index), np.concatenate(rank), first_i, first_r
