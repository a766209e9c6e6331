"""Helpers shared by several games: line tables and line tests for n-in-a-row games."""

from __future__ import annotations

import numpy as np
from numba import njit

from hashing.generic import rank, unrank


def line_table(width: int, height: int, length: int) -> np.ndarray:
    """Cells (row-major, top row 0) of every horizontal, vertical and diagonal line."""
    lines = []
    for r in range(height):
        for c in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + i * dr, c + i * dc) for i in range(length)]
                if all(0 <= rr < height and 0 <= cc < width for rr, cc in cells):
                    lines.append([rr * width + cc for rr, cc in cells])
    if not lines:
        return np.zeros((0, length), dtype=np.int64)
    return np.array(lines, dtype=np.int64)


def lines_through(lines: np.ndarray, ncells: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR index of the lines through each cell: (start offsets, line ids)."""
    per_cell: list[list[int]] = [[] for _ in range(ncells)]
    for i, line in enumerate(lines):
        for cell in line:
            per_cell[cell].append(i)
    starts = np.zeros(ncells + 1, dtype=np.int64)
    for c in range(ncells):
        starts[c + 1] = starts[c] + len(per_cell[c])
    ids = np.array([i for cell in per_cell for i in cell], dtype=np.int64)
    return starts, ids


@njit(cache=True, nogil=True)
def has_line(board, lines, piece):
    """True when `piece` fills some line of the table."""
    for i in range(lines.shape[0]):
        full = True
        for j in range(lines.shape[1]):
            if board[lines[i, j]] != piece:
                full = False
                break
        if full:
            return True
    return False


def board_to_rows(chars: list[str], width: int) -> str:
    return "/".join("".join(chars[i:i + width]) for i in range(0, len(chars), width))


def square_symmetries(n: int) -> np.ndarray:
    """The 8 symmetries of an n x n board (rotations and reflections, the identity first)
    as cell permutations: row s maps cell i of the image to the cell it comes from, so
    image[i] = board[perms[s, i]] (row-major cells). Games keep it in their ctx."""
    perms = []
    for flip in (False, True):
        for turns in range(4):
            perm = []
            for r in range(n):
                for c in range(n):
                    rr, cc = r, c
                    for _ in range(turns):  # rotate the source coordinates a quarter turn
                        rr, cc = cc, n - 1 - rr
                    if flip:
                        cc = n - 1 - cc
                    perm.append(rr * n + cc)
            perms.append(perm)
    return np.array(perms, dtype=np.int64)


@njit(cache=True, nogil=True)
def permute(board, perm, image):
    """image[i] = board[perm[i]]: one symmetric image of a board (see square_symmetries)."""
    for i in range(perm.shape[0]):
        image[i] = board[perm[i]]


@njit(cache=True, nogil=True)
def symmetric_images(hctx, perms, h, board, image, want_orbit):
    """For a game ranked by one generic-hash context: the smallest hash among h's images,
    or (want_orbit) how many distinct images it has, the symmetries divided by those that
    fix it. board and image are scratch rows of the board's length."""
    turn = unrank(hctx, h, board)
    best = h
    fixed = 0
    for s in range(perms.shape[0]):
        permute(board, perms[s], image)
        r = rank(hctx, image, turn)
        best = min(best, r)
        fixed += r == h
    return perms.shape[0] // fixed if want_orbit else best
