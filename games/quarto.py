"""Quarto, on a `size` x `size` board with pieces of `attributes` binary attributes.

Rules (Quarto's, restricted to fewer cells and attributes). There are 2**attributes
distinct pieces, numbered 0..2**attributes-1; bit i of the number is attribute i (tall or
short, dark or light, ...). A line is a row, a column or one of the two main diagonals
(each `size` cells long). A line is complete when all its cells hold pieces that share at
least one attribute (the same value of some bit, all 1 or all 0).

* The game starts with an empty board and no piece in hand: the first move is only "give a
  piece" to the opponent.
* Every later move is one turn: place the piece in hand on an empty cell, then give the
  opponent one of the pieces not yet used. The player who places a piece that completes a
  line wins at once (nothing is given then).
* When the last piece is placed without completing a line the game is a tie: the board is
  full, or (when there are fewer pieces than cells, e.g. 8 pieces on a 3x3 board) every
  piece has been used. Nothing is given after the last placement.

Variants: `size` (2..4) and `attributes` (2..4). The standard game is size=4,
attributes=4 (16 pieces on 16 cells); it is fully defined (hash, tiers) but its hash space
is 2.7e16 positions. The default, size=3, attributes=3, is 3x3 Quarto with the 8 pieces of
3 attributes: one cell always stays empty, the game is a tie when all 8 pieces are placed
without a line. Every (size, attributes) pair is allowed: with 16 pieces on a 3x3 board the
board fills first; with 4 pieces on a 3x3 board the pieces run out first.

Position string: the board's rows, top row first, joined by '/'; a cell is '-' when empty,
else the piece number as one hex digit ('0'..'f'); then a space and the piece in hand, a
hex digit, or '-' when there is none (the start, and finished games). Example (3x3, piece 5
in hand): `7--/-2-/--- 5`. The start is `---/---/--- -`.

Moves: "give P" (the first move), "C give P" (place on cell C, 1..size*size in reading
order, then give P), or "C" (a placement that ends the game).

Hash: dense, by tiers of k = pieces placed, 0..N with N = min(pieces, cells):

    hash = offset[k] + arrangement * H[k] + hand

where arrangement = (rank of the set of used pieces among C(P, k)) * C(cells, k) * k!
+ (rank of the set of occupied cells among C(cells, k)) * k! + (Lehmer rank of the
permutation that maps the sorted used pieces onto the sorted occupied cells), both set
ranks in the colex combinatorial number system; hand = 0 for no piece, else 1 + the index
of the piece among the unused ones; H[k] = P - k + 1 for k < N and 1 for k = N.

Symmetries (`canonical`, `orbit`): a cell permutation that maps lines onto lines (the
square's 8; on 4x4 also swapping the middle and outer rows and columns together: 32) and a
piece map that permutes and flips attributes (attributes! * 2**attributes: 384 for 4)
keep every line complete or not, so they keep values and remoteness. The canonical image
is the one of smallest hash: the hash orders by pieces placed, then the set of used
pieces, the set of occupied cells, the pieces in cell order and the hand, so the search
keeps the piece maps of least used set and the cell maps of least cell set and compares
the rest only across those.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from games import register
from games.base import LOSE, TIE, Game, PositionError, Tier, Variant
from games.common import board_to_rows, line_table, lines_through
from hashing.jit import njit

HEX = "0123456789abcdef"
EMPTY = -1

# The context is one flat int64 table (a tuple holding one array: unpacking several arrays
# per call costs more than the work itself). Fixed section bases, sized for size=4,
# attributes=4:
PIECES, CELLS, LAST, FULL, NLINES, SIDE = range(6)  # meta slots: 2**attributes, ...
BINOM = 8      # binom[n, r] at BINOM + n * STRIDE + r, n, r < STRIDE
STRIDE = 17
FACT = BINOM + STRIDE * STRIDE  # k! for k = 0..16
OFF = FACT + STRIDE             # offset[k] of the tier with k pieces placed, k = 0..N + 1
HSZ = OFF + STRIDE + 1          # H[k]: hand slots per arrangement with k pieces placed
LINES = HSZ + STRIDE            # cells of line i at LINES + 4 * i + j (side <= 4)
LSTART = LINES + 4 * 10         # lines through cell c: LIDS + LSTART[c] .. LSTART[c + 1]
LIDS = LSTART + STRIDE
NPM, NCM = 6, 7  # meta slots: how many piece maps and cell maps (the symmetries)
PMAP = LIDS + 16 * 4  # piece map s: p -> PMAP + 16 * s + p (attribute permutations, flips)
CMAP = PMAP + 16 * 384  # cell map b: c -> CMAP + 16 * b + c (line-preserving permutations)
CINV = CMAP + 16 * 32  # its inverse
TABLE = CINV + 16 * 32
# scratch: the board, unrank's work list, the cell maps of least cell set, best and
# current image sequences
SCRATCH_EXTRA = 16 + 32 + 16


@njit(cache=True, nogil=True)
def _popcount(x):
    """Set bits of a 16-bit mask."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


@njit(cache=True, nogil=True)
def _nth_bit(mask, n):
    """The position of the n-th (0-based) lowest set bit of mask."""
    b = 0
    while True:
        if mask & (1 << b):
            if n == 0:
                return b
            n -= 1
        b += 1


@njit(cache=True, nogil=True)
def _line_done(t, board, i):
    """True when line i is filled with pieces sharing an attribute."""
    full = t[FULL]
    both = full
    ones = full
    base = LINES + 4 * i
    for j in range(t[SIDE]):
        p = board[t[base + j]]
        if p < 0:
            return False
        ones &= p
        both &= ~p
    return (ones | both) & full != 0


@njit(cache=True, nogil=True)
def _line_through(t, board, cell):
    for x in range(t[LSTART + cell], t[LSTART + cell + 1]):
        if _line_done(t, board, t[LIDS + x]):
            return True
    return False


@njit(cache=True, nogil=True)
def _any_line(t, board):
    for i in range(t[NLINES]):
        if _line_done(t, board, i):
            return True
    return False


@njit(cache=True, nogil=True)
def _used(t, board):
    """(pieces placed, mask of the used pieces, rank of that set among C(P, k))."""
    used = 0
    k = 0
    for c in range(t[CELLS]):
        p = board[c]
        if p >= 0:
            used |= 1 << p
            k += 1
    r = 0
    i = 0
    for p in range(t[PIECES]):
        if used & (1 << p):
            i += 1
            r += t[BINOM + p * STRIDE + i]
    return k, used, r


@njit(cache=True, nogil=True)
def _cells_perm(t, board, k, used, r_pieces):
    """Arrangement rank of a board with k pieces (mask `used`, set rank `r_pieces`)."""
    ncells = t[CELLS]
    r_cells = 0
    r_perm = 0
    taken = 0
    j = 0
    for c in range(ncells):
        p = board[c]
        if p >= 0:
            j += 1
            r_cells += t[BINOM + c * STRIDE + j]
            below = (1 << p) - 1
            r_perm += _popcount(used & ~taken & below) * t[FACT + k - j]
            taken |= 1 << p
    return (r_pieces * t[BINOM + ncells * STRIDE + k] + r_cells) * t[FACT + k] + r_perm


@njit(cache=True, nogil=True)
def _arrangement(t, board):
    """(pieces placed, arrangement rank, mask of used pieces) of a board."""
    k, used, r_pieces = _used(t, board)
    return k, _cells_perm(t, board, k, used, r_pieces), used


@njit(cache=True, nogil=True)
def _rank(t, board, hand):
    k, arr, used = _arrangement(t, board)
    h = t[OFF + k] + arr * t[HSZ + k]
    if hand >= 0:
        unused = ((1 << t[PIECES]) - 1) & ~used
        h += 1 + _popcount(unused & ((1 << hand) - 1))
    return h


@njit(cache=True, nogil=True)
def rank(ctx, board, hand):
    """Hash of a board (piece or -1 per cell) with `hand` (a piece, or -1 for none)."""
    return _rank(ctx[0], board, hand)


@njit(cache=True, nogil=True)
def _unrank(t, h, board):
    """Board of hash h into board[0:cells] (board[cells:cells+16] is work space); returns
    the piece in hand, -1 for none."""
    npieces = t[PIECES]
    ncells = t[CELLS]
    k = 0
    while t[OFF + k + 1] <= h:
        k += 1
    r = h - t[OFF + k]
    hs = t[HSZ + k]
    hand_idx = r % hs
    arr = r // hs
    f = t[FACT + k]
    r_perm = arr % f
    arr //= f
    b = t[BINOM + ncells * STRIDE + k]
    r_cells = arr % b
    r_pieces = arr // b
    # the used pieces, ascending, into the work list
    used = 0
    v = npieces - 1
    for i in range(k, 0, -1):
        while t[BINOM + v * STRIDE + i] > r_pieces:
            v -= 1
        r_pieces -= t[BINOM + v * STRIDE + i]
        used |= 1 << v
        board[ncells + i - 1] = v
        v -= 1
    cells = 0
    v = ncells - 1
    for i in range(k, 0, -1):
        while t[BINOM + v * STRIDE + i] > r_cells:
            v -= 1
        r_cells -= t[BINOM + v * STRIDE + i]
        cells |= 1 << v
        v -= 1
    left = k  # pieces still in the work list
    for c in range(ncells):
        if cells & (1 << c):
            left -= 1
            f = t[FACT + left]
            d = r_perm // f
            r_perm -= d * f
            board[c] = board[ncells + d]
            for x in range(ncells + d, ncells + left):
                board[x] = board[x + 1]
        else:
            board[c] = EMPTY
    if hand_idx == 0:
        return -1
    unused = ((1 << npieces) - 1) & ~used
    return _nth_bit(unused, hand_idx - 1)


@njit(cache=True, nogil=True)
def unrank(ctx, h, board):
    """Write the board of hash h into `board`; return the piece in hand (-1 for none)."""
    return _unrank(ctx[0], h, board)


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    t = ctx[0]
    hand = _unrank(t, h, scratch)
    if hand >= 0 or h == 0:  # a piece to place, or the start (hash 0)
        return 0
    # no piece in hand after a placement: the game is over
    if _any_line(t, scratch):
        return LOSE
    return TIE


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    t = ctx[0]
    npieces = t[PIECES]
    ncells = t[CELLS]
    last = t[LAST]
    hand = _unrank(t, h, scratch)
    n = 0
    if hand < 0:  # the start: give any piece
        for g in range(npieces):
            out[n] = t[OFF] + 1 + g
            moves[n] = ncells * (npieces + 1) + g
            n += 1
        return n
    k, used, _r = _used(t, scratch)
    k += 1
    used |= 1 << hand
    unused = ((1 << npieces) - 1) & ~used
    r_pieces = 0  # rank of the used set once the piece in hand is placed
    i = 0
    for p in range(npieces):
        if used & (1 << p):
            i += 1
            r_pieces += t[BINOM + p * STRIDE + i]
    off = t[OFF + k]
    hs = t[HSZ + k]
    for c in range(ncells):
        if scratch[c] != EMPTY:
            continue
        scratch[c] = hand
        base = off + _cells_perm(t, scratch, k, used, r_pieces) * hs
        if k == last or _line_through(t, scratch, c):
            out[n] = base
            moves[n] = c * (npieces + 1) + npieces
            n += 1
        else:
            idx = 1
            for g in range(npieces):
                if unused & (1 << g):
                    out[n] = base + idx
                    moves[n] = c * (npieces + 1) + g
                    idx += 1
                    n += 1
        scratch[c] = EMPTY
    return n


@njit(cache=True, nogil=True, inline="always")
def _set_image(t, base, m, mask):
    """The image of a 16-bit set under map m of the table at `base`."""
    out = 0
    x = mask
    while x:
        low = x & -x
        out |= 1 << t[base + 16 * m + _popcount(low - 1)]
        x ^= low
    return out


@njit(cache=True, nogil=True)
def _images(t, board, hand, fixed, scratch):
    """fixed=False: the canonical image of (board, hand), written as board scratch[:cells]
    and returned as its hand. fixed=True: how many symmetries map it onto itself. Only
    piece maps of least used set and cell maps of least cell set can give the least
    hash; among them the pieces in image-cell order, then the hand, decide."""
    ncells, npm, ncm = t[CELLS], t[NPM], t[NCM]
    used = 0
    cells = 0
    for c in range(ncells):
        if board[c] >= 0:
            used |= 1 << board[c]
            cells |= 1 << c
    least_p = used
    least_c = cells
    if not fixed:
        for m in range(npm):
            least_p = min(least_p, _set_image(t, PMAP, m, used))
        for b in range(ncm):
            least_c = min(least_c, _set_image(t, CMAP, b, cells))
    maps = scratch[ncells + 16:ncells + 48]  # cell maps giving least_c
    nmaps = 0
    for b in range(ncm):
        if _set_image(t, CMAP, b, cells) == least_c:
            maps[nmaps] = b
            nmaps += 1
    best = scratch[ncells + 48:ncells + 64]
    best_hand = -2
    best_m = best_b = -1
    same = 0
    for m in range(npm):
        if _set_image(t, PMAP, m, used) != least_p:
            continue
        hm = t[PMAP + 16 * m + hand] if hand >= 0 else -1
        for x in range(nmaps):
            b = np.int64(maps[x])
            state = -1 if best_m < 0 else 0  # -1: below the best so far, 1: above
            j = 0
            for d in range(ncells):
                p = board[t[CINV + 16 * b + d]]
                if p < 0:
                    continue
                v = t[PMAP + 16 * m + p]
                if fixed:
                    if v != board[d]:
                        state = 1
                        break
                elif state == 0:
                    if v > best[j]:
                        state = 1
                        break
                    if v < best[j]:
                        state = -1
                if state < 0:
                    best[j] = v
                j += 1
            if fixed:
                same += state != 1 and hm == hand
                continue
            if state == 0 and hm < best_hand:
                state = -1
            if state < 0:
                best_hand, best_m, best_b = hm, m, b
    if fixed:
        return same
    for d in range(ncells):  # the winner, written out
        p = board[t[CINV + 16 * best_b + d]]
        scratch[d] = EMPTY if p < 0 else t[PMAP + 16 * best_m + p]
    return best_hand


@njit(cache=True, nogil=True)
def canonical(ctx, h, scratch):
    t = ctx[0]
    board = scratch[t[CELLS] + 64:]
    hand = _unrank(t, h, board)
    return _rank(t, scratch, _images(t, board, hand, False, scratch))


@njit(cache=True, nogil=True)
def orbit(ctx, h, scratch):
    t = ctx[0]
    board = scratch[t[CELLS] + 64:]
    hand = _unrank(t, h, board)
    return t[NPM] * t[NCM] // _images(t, board, hand, True, scratch)


@functools.cache
def cell_symmetries(size: int) -> np.ndarray:
    """The permutations of the cells that map lines (rows, columns, both diagonals) onto
    lines, identity first: a search that places cell after cell and drops a partial map
    as soon as the placed cells of a line lie on no line."""
    lines = [frozenset(int(c) for c in line) for line in line_table(size, size, size)]
    n = size * size
    through = [[line for line in lines if c in line] for c in range(n)]
    perm: list[int] = []
    found = []

    def fits(c):
        for line in through[c]:
            placed = {perm[x] for x in line if x <= c}
            if len(placed) > 1 and not any(placed <= other for other in lines):
                return False
        return len(through[c]) == len(through[perm[c]])

    def place(c):
        if c == n:
            found.append(list(perm))
            return
        for d in range(n):
            if d not in perm:
                perm.append(d)
                if fits(c):
                    place(c + 1)
                perm.pop()

    place(0)
    return np.array(sorted(found), dtype=np.int64)


@functools.cache
def piece_symmetries(attributes: int) -> np.ndarray:
    """Piece maps that permute the attributes and flip some of them, identity first."""
    maps = []
    for order in itertools.permutations(range(attributes)):
        for flip in range(1 << attributes):
            maps.append([sum(((p >> i) & 1) << order[i] for i in range(attributes)) ^ flip
                         for p in range(1 << attributes)])
    return np.array(maps, dtype=np.int64)


@register
class Quarto(Game):
    name = "quarto"
    title = "Quarto"
    variants = {
        "size": Variant(3, 2, 4, "board side; lines are rows, columns, both diagonals"),
        "attributes": Variant(3, 2, 4, "binary attributes per piece; 2**attributes pieces"),
    }

    def __init__(self, **variant):
        super().__init__(**variant)
        self.size = s = self.variant["size"]
        self.attributes = a = self.variant["attributes"]
        self.npieces = p = 2 ** a
        self.ncells = c = s * s
        self.last = n = min(p, c)
        hsz = [p - k + 1 if k < n else 1 for k in range(n + 1)]
        off = [0]
        for k in range(n + 1):
            off.append(off[k] + math.comb(p, k) * math.perm(c, k) * hsz[k])
        self.lines = line_table(s, s, s)
        lstart, lids = lines_through(self.lines, c)
        t = np.zeros(TABLE, dtype=np.int64)
        t[[PIECES, CELLS, LAST, FULL, NLINES, SIDE]] = p, c, n, p - 1, len(self.lines), s
        for i in range(STRIDE):
            for j in range(STRIDE):
                t[BINOM + i * STRIDE + j] = math.comb(i, j)
        t[FACT:FACT + STRIDE] = [math.factorial(i) for i in range(STRIDE)]
        t[OFF:OFF + n + 2] = off
        t[HSZ:HSZ + n + 1] = hsz
        for i, line in enumerate(self.lines):
            t[LINES + 4 * i:LINES + 4 * i + s] = line
        t[LSTART:LSTART + c + 1] = lstart
        t[LIDS:LIDS + lids.size] = lids
        pmaps, cmaps = piece_symmetries(a), cell_symmetries(s)
        t[NPM], t[NCM] = len(pmaps), len(cmaps)
        for m, row in enumerate(pmaps):
            t[PMAP + 16 * m:PMAP + 16 * m + p] = row
        for b, row in enumerate(cmaps):
            t[CMAP + 16 * b:CMAP + 16 * b + c] = row
            t[CINV + 16 * b + row] = np.arange(c)
        self.offsets = off
        self.ctx = (t,)
        self.hash_size = int(off[-1])
        self.start = 0
        self.max_children = max(p, c * p)
        self.scratch_size = 2 * c + 80  # an image, work lists, the board (see _images)
        self.max_remoteness = n + 1

    # -- tiers ----------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        """The start alone, then one tier per number of pieces placed (k = 0..N); a move
        from tier k (k pieces placed) leads to tier k + 1."""
        off = self.offsets
        out = [Tier("start", 0, 1, (1,)), Tier("0 placed", 1, off[1], (2,))]
        for k in range(1, self.last + 1):
            kids = (k + 2,) if k < self.last else ()
            out.append(Tier(f"{k} placed", off[k], off[k + 1], kids))
        return out

    # -- positions --------------------------------------------------------------------
    def board(self, h: int) -> tuple[np.ndarray, int]:
        """(board: piece or -1 per cell, piece in hand or -1) of a hash."""
        if not 0 <= h < self.hash_size:
            raise PositionError(f"quarto hash {h} is out of range 0..{self.hash_size - 1}")
        board = np.empty(self.scratch_size, dtype=np.int8)
        hand = unrank(self.ctx, h, board)
        return board[:self.ncells], int(hand)

    def rank_board(self, board, hand: int) -> int:
        return int(rank(self.ctx, np.asarray(board, dtype=np.int8), hand))

    def to_string(self, h: int) -> str:
        board, hand = self.board(h)
        cells = ["-" if p < 0 else HEX[p] for p in board]
        return f"{board_to_rows(cells, self.size)} {'-' if hand < 0 else HEX[hand]}"

    def _complete_lines(self, board) -> list[list[int]]:
        full = self.npieces - 1
        done = []
        for line in self.lines:
            ps = [int(board[c]) for c in line]
            if min(ps) < 0:
                continue
            ones = both = full
            for q in ps:
                ones &= q
                both &= ~q
            if (ones | both) & full:
                done.append([int(c) for c in line])
        return done

    def from_string(self, s: str) -> int:
        text = s.strip()
        parts = text.split()
        where = f"quarto position '{s}'"
        if len(parts) != 2 or len(parts[1]) != 1:
            raise PositionError(
                f"{where} should be the board's rows joined by '/', a space, and the piece "
                "in hand (a hex digit, or '-')")
        rows = parts[0].split("/")
        if len(rows) != self.size or any(len(r) != self.size for r in rows):
            raise PositionError(
                f"{where} should have {self.size} rows of {self.size} cells joined by '/'")
        digits = HEX[:self.npieces]
        board = []
        for ch in "".join(rows).lower():
            if ch == "-":
                board.append(EMPTY)
            elif ch in digits:
                board.append(digits.index(ch))
            else:
                raise PositionError(
                    f"{where}: '{ch}' is not '-' or a piece 0..{digits[-1]} "
                    f"({self.attributes} attributes)")
        ch = parts[1].lower()
        if ch != "-" and ch not in digits:
            raise PositionError(
                f"{where}: the piece in hand '{ch}' is not '-' or a piece 0..{digits[-1]}")
        hand = EMPTY if ch == "-" else digits.index(ch)
        placed = [p for p in board if p >= 0]
        if len(set(placed)) != len(placed):
            raise PositionError(f"{where} cannot occur: a piece is on the board twice")
        if hand >= 0 and hand in placed:
            raise PositionError(
                f"{where} cannot occur: the piece in hand {HEX[hand]} is on the board")
        k = len(placed)
        lines = self._complete_lines(board)
        if hand >= 0:
            if k == self.last:
                raise PositionError(
                    f"{where} cannot occur: no piece can be in hand after the last "
                    "placement")
            if lines:
                raise PositionError(
                    f"{where} cannot occur: the game ended when a line was completed, so "
                    "no piece can be in hand")
        elif k > 0:
            if not lines and k < self.last:
                raise PositionError(
                    f"{where} cannot occur: no piece in hand, but the game is not over "
                    "(no line and pieces left to place)")
            if lines and not set.intersection(*(set(line) for line in lines)):
                raise PositionError(
                    f"{where} cannot occur: its completed lines do not share a cell, so no "
                    "single placement made them all")
        return self.rank_board(np.array(board, dtype=np.int8), hand)

    def move_name(self, h: int, code: int) -> str:
        cell, piece = divmod(code, self.npieces + 1)
        if cell == self.ncells:
            return f"give {HEX[piece]}"
        if piece == self.npieces:
            return str(cell + 1)
        return f"{cell + 1} give {HEX[piece]}"

    def analysis_extras(self, solved) -> dict:
        return {"notes": [
            f"Quarto {self.size}x{self.size}, {self.npieces} pieces of {self.attributes} "
            "binary attributes (hex digit = attribute bits); the first move gives a piece."]}
