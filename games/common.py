"""Helpers shared by several games: line tables and line tests for n-in-a-row games, and
the symmetries of a square board (on board arrays, or on bitboards)."""

from __future__ import annotations

import numpy as np

from hashing.generic import popcount, rank, rank_masks, unrank
from hashing.jit import njit


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


def mask_symmetries(n: int, tables: bool = True) -> np.ndarray:
    """The 8 symmetries of an n x n board (n <= 5) on bitboards (bit i: cell i), as delta
    swaps (`_swaps`): [n, then (distance, mask) pairs of the row flip (row r <-> n-1-r),
    the column flip, then the transpose (cell (r, c) <-> (c, r))]; every symmetry is one
    of {1, rows, columns, both} then maybe the transpose. A board of two masks (a, b) is
    one word a << n*n | b, so both move at once and words order as the pairs (a, b).
    Up to 4x4 the lookup tables of `min_image` follow, unless not `tables` (a game that
    keeps a subgroup only reads the swaps: `canonical_masks_in`)."""
    nn = n * n
    if 2 * nn > 63:
        raise ValueError(f"mask symmetries need 2 * n * n < 64 (n = {n})")
    both = (1 << nn) + 1  # a mask of the low lane times this: the same in both lanes

    def cells(pred):
        return sum(1 << (r * n + c) for r in range(n) for c in range(n) if pred(r, c)) * both

    swaps = [((n - 1 - 2 * k) * n, cells(lambda r, c, k=k: r == k)) for k in range(n // 2)]
    swaps += [(n - 1 - 2 * k, cells(lambda r, c, k=k: c == k)) for k in range(n // 2)]
    swaps += [(k * (n - 1), cells(lambda r, c, k=k: c - r == k)) for k in range(1, n)]
    sym = np.array([n] + [x for pair in swaps for x in pair], dtype=np.int64)
    if nn > TABLE_CELLS or not tables:
        return sym
    return np.concatenate([sym, _image_tables(sym, nn)])


TABLE_CELLS = 16  # boards up to 4x4 canonicalize by table lookups (`min_image`)


def mask_symmetry_cells(n: int) -> np.ndarray:
    """where[s, i]: the cell that cell i goes to under symmetry s of `mask_symmetries`, in
    the order of `_images` (bit 0 of s flips the rows, bit 1 the columns, bit 2 then
    transposes; s = 0 is the identity). A game whose board keeps only some of them (its
    lines) finds its subgroup here (`canonical_masks_in`)."""
    where = np.zeros((8, n * n), dtype=np.int64)
    for s in range(8):
        for i in range(n * n):
            r, c = divmod(i, n)
            r, c = (n - 1 - r if s & 1 else r), (n - 1 - c if s & 2 else c)
            where[s, i] = c * n + r if s & 4 else r * n + c
    return where


def _image_tables(sym: np.ndarray, nn: int) -> np.ndarray:
    """first[a]: the smallest image of the mask a under the 8 symmetries, and above bit 16
    the set of symmetries that give it; then image[s, k, q]: the image under symmetry s of
    the byte q at byte k of a mask (`min_image`). The symmetries are enumerated here, in
    Python (a first call of the jitted swaps would cost every process 0.2 s)."""
    n = int(sym[0])
    where = mask_symmetry_cells(n).T  # where[i, s]: the cell i goes to under s
    masks = np.arange(1 << nn, dtype=np.int64)
    images = np.zeros((8, 1 << nn), dtype=np.int64)
    for s in range(8):
        for i in range(nn):
            images[s] |= ((masks >> i) & 1) << where[i, s]
    least = images.min(axis=0)
    ties = ((images == least) << np.arange(8)[:, None]).sum(axis=0)
    image = np.zeros((8, 2, 256), dtype=np.int64)
    for k in range(2):
        q = np.arange(256, dtype=np.int64) << (8 * k)
        q = q[q < 1 << nn]
        image[:, k, :q.size] = images[:, q]
    return np.concatenate([least | (ties << 16), image.ravel()])


@njit(cache=True, nogil=True, inline="always")
def _swaps(sym, w, first, stop):
    """Delta swaps first..stop-1 of `sym` on the word w: the bits of each mask trade
    places with those `distance` above them."""
    for j in range(first, stop):
        d = sym[1 + 2 * j]
        t = (w ^ (w >> d)) & sym[2 + 2 * j]
        w ^= t | (t << d)
    return w


@njit(cache=True, nogil=True, inline="always")
def _images_of(sym, a, b, n):
    """The board (a, b) as a word, and its 8 images (the first is the word itself):
    four independent chains, so the CPU overlaps them."""
    h = n // 2
    w = (a << (n * n)) | b
    v = _swaps(sym, w, 0, h)
    m = _swaps(sym, w, h, 2 * h)
    vm = _swaps(sym, v, h, 2 * h)
    t = 2 * h + n - 1
    return (w, v, m, vm, _swaps(sym, w, 2 * h, t), _swaps(sym, v, 2 * h, t),
            _swaps(sym, m, 2 * h, t), _swaps(sym, vm, 2 * h, t))


@njit(cache=True, nogil=True, inline="always")
def _images(sym, a, b):
    """`_images_of` with n a constant for the board sizes games use, so LLVM unrolls the
    swaps (2.5x faster than loops on a runtime n)."""
    n = sym[0]
    if n == 4:
        return _images_of(sym, a, b, 4)
    if n == 5:
        return _images_of(sym, a, b, 5)
    if n == 3:
        return _images_of(sym, a, b, 3)
    return _images_of(sym, a, b, n)


@njit(cache=True, nogil=True)
def canonical_masks(sym, a, b):
    """The image of the board (a, b) (one mask per piece type) smallest as the pair (a, b).
    On a generic hash of fixed counts that is the image of smallest hash: type 0's rank
    orders its masks as numbers (colex), and type 1's, given type 0's cells, too. So the
    caller ranks once, not once per image. A call, not inlined: its unrolled swaps inlined
    at every call site made the games' functions compile for minutes."""
    i0, i1, i2, i3, i4, i5, i6, i7 = _images(sym, a, b)
    best = min(min(min(i0, i1), min(i2, i3)), min(min(i4, i5), min(i6, i7)))
    nn = sym[0] * sym[0]
    return best >> nn, best & ((np.int64(1) << nn) - 1)


@njit(cache=True, nogil=True, inline="always")
def min_image(sym, a, b):
    """`canonical_masks`; on a board of at most 16 cells from `mask_symmetries`' tables:
    the smallest image of a is one lookup, which also names the symmetries that give it
    (nearly always one), and b's image under each of them two more (Quixo 4x4's canonical
    expansion: 838 -> 501 ns a position, against pushing every child's 8 images). The
    tables follow n and the (distance, mask) pairs of the swaps."""
    n = sym[0]
    nn = n * n
    if nn > TABLE_CELLS:
        return canonical_masks(sym, a, b)
    t0 = 1 + 2 * (2 * (n // 2) + n - 1)  # after n and the swaps
    e = sym[t0 + a]
    ties = e >> 16
    at = t0 + (np.int64(1) << nn)
    lo = b & 255
    hi = (b >> 8) + 256
    if ties & (ties - 1) == 0:  # one symmetry gives a's smallest image
        s = popcount((ties & -ties) - 1) * 512 + at
        return e & 0xFFFF, sym[s + lo] | sym[s + hi]
    best = np.int64(1) << nn
    for s in range(8):
        if ties >> s & 1:
            best = min(best, sym[at + s * 512 + lo] | sym[at + s * 512 + hi])
    return e & 0xFFFF, best


@njit(cache=True, nogil=True, inline="always")
def rank_image(hctx, sym, canon, a, b, turn):
    """`rank_masks` of the board (a, b), or (canon) of its canonical image under `sym`
    (`mask_symmetries`): a game's children and parents take `canon` so that the canonical
    ones need no second unranking (solver/kernels/symmetry.py)."""
    if canon:
        a, b = min_image(sym, a, b)
    return rank_masks(hctx, a, b, turn)


@njit(cache=True, nogil=True)
def orbit_masks(sym, a, b):
    """How many distinct images the board (a, b) has: the symmetries divided by those that
    fix it."""
    i0, i1, i2, i3, i4, i5, i6, i7 = _images(sym, a, b)
    fixed = (1 + (i1 == i0) + (i2 == i0) + (i3 == i0) + (i4 == i0) + (i5 == i0) + (i6 == i0)
             + (i7 == i0))
    return 8 // fixed


@njit(cache=True, nogil=True)
def canonical_masks_in(sym, group, a, b):
    """`canonical_masks` over a subgroup of the 8 symmetries: `group` has bit s set for
    symmetry s of `mask_symmetry_cells` (the identity, bit 0, always; 255: all of them).
    The swaps only of `mask_symmetries` are read, not its tables (which are for all 8)."""
    i0, i1, i2, i3, i4, i5, i6, i7 = _images(sym, a, b)
    best = min(min(i0, i1 if group & 2 else i0), min(i2 if group & 4 else i0,
                                                     i3 if group & 8 else i0))
    best = min(best, min(min(i4 if group & 16 else i0, i5 if group & 32 else i0),
                         min(i6 if group & 64 else i0, i7 if group & 128 else i0)))
    nn = sym[0] * sym[0]
    return best >> nn, best & ((np.int64(1) << nn) - 1)


@njit(cache=True, nogil=True)
def orbit_masks_in(sym, group, a, b):
    """`orbit_masks` over the subgroup `group` (as in `canonical_masks_in`): its size
    divided by the symmetries in it that fix the board."""
    i0, i1, i2, i3, i4, i5, i6, i7 = _images(sym, a, b)
    fixed = (1 + (group >> 1 & np.int64(i1 == i0)) + (group >> 2 & np.int64(i2 == i0))
             + (group >> 3 & np.int64(i3 == i0)) + (group >> 4 & np.int64(i4 == i0))
             + (group >> 5 & np.int64(i5 == i0)) + (group >> 6 & np.int64(i6 == i0))
             + (group >> 7 & np.int64(i7 == i0)))
    return popcount(group) // fixed


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
