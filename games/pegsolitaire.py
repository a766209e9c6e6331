"""Peg solitaire on the triangle board (the "Cracker Barrel" game) and the English cross.

Rules: a move jumps a peg over an adjacent peg, along a line of the board, into the empty
hole just beyond, and removes the jumped peg. Goal (WIN): one peg left, anywhere. A position
with more than one peg and no jump is a dead end (LOSE). Every move removes a peg, so no
position repeats. The puzzle starts with every hole filled but one (variant `hole`).

Boards (variant `board`):

* 0, triangle with `rows` rows (3..7, default 5); row i (from 0) has i+1 holes; jumps run
  along the rows and along both diagonals (six directions). Position string: rows top first
  joined by '/', `X` a peg, `-` a hole. 5 rows, top hole empty: `-/XX/XXX/XXXX/XXXXX`.
* 1, the English 33-hole cross: a 7x7 square less its four 2x2 corners; jumps run along
  rows and columns (four directions). Position string: the holes of each of the 7 rows,
  top first, joined by '/' (rows of 3, 3, 7, 7, 7, 3, 3; the short rows are the middle
  three columns). Centre empty: `XXX/XXX/XXXXXXX/XXX-XXX/XXXXXXX/XXX/XXX`. Padded rows of 7
  with ' ' or '.' in the missing corners (`..XXX..`) are accepted too.

Cells are numbered 0.. in reading order (top row first, left to right); `hole` is the cell
left empty at the start (default -1: the board's usual one, the top of the triangle or the
centre of the cross; the variant then records the actual cell). Moves are named
FROM-OVER-TO by cell number, as in the Triangle Game write-up: `5-2-0` jumps the peg in cell
5 over cell 2 into cell 0.

Hash: the generic hash over two piece types (peg, hole), counts 1..cells-1 each: one block
per number of pegs, fewest pegs first, so hash = block offset + rank of the arrangement.
Size 2^cells - 2 (32,766 for the 5-row triangle; 8,589,934,590 for the English board). Each
block is a tier (`tiers()`); a jump removes one peg, so tier k's children are all in tier
k-1. Solving the English board needs a tier solver with more memory than one array of
2^33 records, but its positions can be parsed, printed and expanded.

`gsolve analyze pegsolitaire` also counts, with a forward walk from the start in decreasing
peg order, the winning move sequences by the cell where the last peg ends, and finds the
most pegs a reachable dead end can hold.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.base import LOSE, WIN, Game, PositionError, Tier, Variant, VariantError
from hashing import HashContext
from hashing.generic import combo_of, rank, unrank

PEG, HOLE = 0, 1
CHARS = "X-"
TRIANGLE, ENGLISH = 0, 1
LIMIT = 1 << 62  # path counts saturate here and report an overflow
MAX_WALK_TIER = 1 << 27  # the analysis walk keeps two tiers of int64 counts in memory


# -- boards ---------------------------------------------------------------------------------

def triangle_cells(rows: int) -> list[tuple[int, int]]:
    return [(r, c) for r in range(rows) for c in range(r + 1)]


def english_cells() -> list[tuple[int, int]]:
    return [(r, c) for r in range(7) for c in range(7) if 2 <= r <= 4 or 2 <= c <= 4]


def jump_table(cells: list[tuple[int, int]], directions) -> np.ndarray:
    """(from, over, to) cell numbers of every jump the board's lines allow, ordered by
    `from` cell then direction."""
    index = {rc: i for i, rc in enumerate(cells)}
    out = []
    for (r, c) in cells:
        for dr, dc in directions:
            over, to = (r + dr, c + dc), (r + 2 * dr, c + 2 * dc)
            if over in index and to in index:
                out.append((index[(r, c)], index[over], index[to]))
    return np.array(out, dtype=np.int64).reshape(-1, 3)


# along the row, down-left/up-right diagonal (r, c) -> (r+1, c), and down-right (r+1, c+1)
TRIANGLE_DIRECTIONS = ((0, -1), (0, 1), (-1, -1), (-1, 0), (1, 0), (1, 1))
ENGLISH_DIRECTIONS = ((-1, 0), (0, -1), (0, 1), (1, 0))


# -- numba: rules ---------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _pegs(hctx, h):
    return hctx[3][combo_of(hctx, h), PEG]


@njit(cache=True, nogil=True)
def _has_jump(board, jumps):
    for j in range(jumps.shape[0]):
        if (board[jumps[j, 0]] == PEG and board[jumps[j, 1]] == PEG
                and board[jumps[j, 2]] == HOLE):
            return True
    return False


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    hctx, jumps = ctx
    if _pegs(hctx, h) == 1:
        return WIN
    unrank(hctx, h, scratch)
    if _has_jump(scratch, jumps):
        return 0
    return LOSE


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    hctx, jumps = ctx
    unrank(hctx, h, scratch)
    n = 0
    for j in range(jumps.shape[0]):
        a = jumps[j, 0]
        b = jumps[j, 1]
        c = jumps[j, 2]
        if scratch[a] == PEG and scratch[b] == PEG and scratch[c] == HOLE:
            scratch[a] = HOLE
            scratch[b] = HOLE
            scratch[c] = PEG
            out[n] = rank(hctx, scratch, 0)
            moves[n] = j
            n += 1
            scratch[a] = PEG
            scratch[b] = PEG
            scratch[c] = HOLE
    return n


@njit(cache=True, nogil=True)
def parents(ctx, h, out, scratch):
    """Un-jumps: a peg in `to` with holes in `over` and `from` goes back. Every parent has
    two or more pegs and a jump, so none is primitive; distinct jumps give distinct
    parents."""
    hctx, jumps = ctx
    unrank(hctx, h, scratch)
    n = 0
    for j in range(jumps.shape[0]):
        a = jumps[j, 0]
        b = jumps[j, 1]
        c = jumps[j, 2]
        if scratch[a] == HOLE and scratch[b] == HOLE and scratch[c] == PEG:
            scratch[a] = PEG
            scratch[b] = PEG
            scratch[c] = HOLE
            out[n] = rank(hctx, scratch, 0)
            n += 1
            scratch[a] = HOLE
            scratch[b] = HOLE
            scratch[c] = PEG
    return n


# -- numba: the analysis walk ---------------------------------------------------------------

@njit(cache=True, nogil=True)
def _sat_add(a, b):
    """a + b for counts in [0, LIMIT], saturating at LIMIT."""
    if a > LIMIT - b:
        return LIMIT
    return a + b


@njit(cache=True, nogil=True)
def walk_paths(ctx, start, max_children, scratch_size):
    """Move sequences from the start to each end, tier by tier in decreasing peg order.

    Returns (wins by the cell of the last peg [ncells], total [win, lose], most pegs in a
    reachable dead end, how many such dead-end positions, the sequences reaching them, one
    of them (hash), overflow flag)."""
    hctx, jumps = ctx
    ncells = hctx[0][0]
    offsets = hctx[5]
    out = np.empty(max_children, np.int64)
    moves = np.empty(max_children, np.int64)
    scratch = np.empty(scratch_size, np.int8)
    by_cell = np.zeros(ncells, np.int64)
    totals = np.zeros(2, np.int64)
    dead_pegs = 0
    dead_count = 0
    dead_paths = np.int64(0)
    dead_example = -1
    overflow = False
    k = combo_of(hctx, start)
    cur = np.zeros(offsets[k + 1] - offsets[k], np.int64)
    cur[start - offsets[k]] = 1
    while k >= 0:
        base = offsets[k]
        if k > 0:
            below = offsets[k - 1]
            nxt = np.zeros(base - below, np.int64)
        else:
            below = 0
            nxt = np.zeros(0, np.int64)
        for i in range(cur.shape[0]):
            w = cur[i]
            if w == 0:
                continue
            h = base + i
            v = primitive(ctx, h, scratch)
            if v == WIN:
                unrank(hctx, h, scratch)
                for cell in range(ncells):
                    if scratch[cell] == PEG:
                        by_cell[cell] = _sat_add(by_cell[cell], w)
                totals[0] = _sat_add(totals[0], w)
            elif v == LOSE:
                totals[1] = _sat_add(totals[1], w)
                pegs = _pegs(hctx, h)
                if pegs > dead_pegs:
                    dead_pegs = pegs
                    dead_count = 0
                    dead_paths = 0
                    dead_example = h
                if pegs == dead_pegs:
                    dead_count += 1
                    dead_paths = _sat_add(dead_paths, w)
            else:
                n = children(ctx, h, out, moves, scratch)
                for j in range(n):
                    c = out[j] - below
                    nxt[c] = _sat_add(nxt[c], w)
                    if nxt[c] == LIMIT:
                        overflow = True
        cur = nxt
        k -= 1
    if totals[0] == LIMIT or totals[1] == LIMIT or dead_paths == LIMIT:
        overflow = True
    for cell in range(ncells):
        if by_cell[cell] == LIMIT:
            overflow = True
    return by_cell, totals, dead_pegs, dead_count, dead_paths, dead_example, overflow


# -- the game -------------------------------------------------------------------------------

class PegSolitaire(Game):
    name = "pegsolitaire"
    title = "Peg solitaire"
    puzzle = True
    loopy = False
    variants = {
        "board": Variant(0, 0, 1, "0: triangle with `rows` rows, 1: English 33-hole cross"),
        "rows": Variant(5, 3, 7, "rows of the triangle (the English board has 7)"),
        "hole": Variant(-1, -1, 32, "cell left empty at the start, 0.. in reading order; "
                                    "-1: the top of the triangle, the centre of the cross"),
    }

    @classmethod
    def check_variant(cls, given: dict[str, int]) -> dict[str, int]:
        """Range checks, then one canonical form per board: the English board always has
        rows=7, and hole=-1 becomes the cell it stands for, so `hole=-1` and the same cell
        named by number share one database."""
        out = super().check_variant(given)
        if out["board"] == ENGLISH:
            if "rows" in given and given["rows"] != 7:
                raise VariantError(
                    "pegsolitaire: the English board (board=1) has 7 rows; leave `rows` out")
            out["rows"] = 7
            ncells, usual = 33, 16
        else:
            ncells, usual = out["rows"] * (out["rows"] + 1) // 2, 0
        if out["hole"] == -1:
            out["hole"] = usual
        if out["hole"] >= ncells:
            raise VariantError(
                f"pegsolitaire variant hole={out['hole']} is out of range 0..{ncells - 1} "
                "for this board")
        return out

    def __init__(self, **variant):
        super().__init__(**variant)
        self.board = self.variant["board"]
        if self.board == ENGLISH:
            self.cells = english_cells()
            self.row_lengths = [3, 3, 7, 7, 7, 3, 3]
            self.row_starts = [2, 2, 0, 0, 0, 2, 2]  # column of each row's first hole
            jumps = jump_table(self.cells, ENGLISH_DIRECTIONS)
        else:
            rows = self.variant["rows"]
            self.cells = triangle_cells(rows)
            self.row_lengths = list(range(1, rows + 1))
            self.row_starts = [0] * rows
            jumps = jump_table(self.cells, TRIANGLE_DIRECTIONS)
        n = self.ncells = len(self.cells)
        self.jumps = jumps
        self.hash = HashContext(n, [(1, n - 1), (1, n - 1)])
        self.ctx = (self.hash.nb, jumps)
        self.hash_size = self.hash.size
        self.max_children = max(1, len(jumps))
        self.scratch_size = n
        self.max_remoteness = n - 2
        board = np.full(n, PEG, dtype=np.int8)
        board[self.variant["hole"]] = HOLE
        self.start = self.hash.rank(board)

    # -- tiers ------------------------------------------------------------------------
    def tiers(self) -> list[Tier]:
        """One tier per number of pegs (tier i holds i+1 pegs), fewest first."""
        off = self.hash.offsets
        out = []
        for i, combo in enumerate(self.hash.combos):
            label = f"{combo[PEG]} peg" + ("s" if combo[PEG] > 1 else "")
            out.append(Tier(label, int(off[i]), int(off[i + 1]), (i - 1,) if i > 0 else ()))
        return out

    # -- positions ------------------------------------------------------------------
    def to_string(self, h: int) -> str:
        board, _ = self.hash.unrank(h)
        out, i = [], 0
        for length in self.row_lengths:
            out.append("".join(CHARS[p] for p in board[i:i + length]))
            i += length
        return "/".join(out)

    def from_string(self, s: str) -> int:
        text = s.strip()
        parts = text.split("/")
        if len(parts) != len(self.row_lengths):
            raise PositionError(
                f"pegsolitaire position '{s}' should have {len(self.row_lengths)} rows "
                "joined by '/'")
        cells: list[str] = []
        for i, (part, length) in enumerate(zip(parts, self.row_lengths, strict=True)):
            if self.board == ENGLISH and length == 3 and len(part) == 7:
                pad = part[:2] + part[5:]
                if all(ch in " ." for ch in pad):
                    part = part[2:5]
            if len(part) != length:
                raise PositionError(
                    f"pegsolitaire position '{s}': row {i + 1} should have {length} holes")
            for ch in part:
                if ch not in CHARS:
                    raise PositionError(
                        f"pegsolitaire position '{s}': '{ch}' is not 'X' (peg) or '-' (hole)")
            cells.extend(part)
        pegs = cells.count("X")
        if pegs == 0:
            raise PositionError(
                f"pegsolitaire position '{s}' cannot occur: it has no peg (a jump always "
                "leaves one)")
        if pegs == self.ncells:
            raise PositionError(
                f"pegsolitaire position '{s}' cannot occur: it has no hole (the puzzle "
                "starts with one and jumps never add pegs)")
        return self.hash.rank(np.array([CHARS.index(c) for c in cells], dtype=np.int8))

    def move_name(self, h: int, code: int) -> str:
        a, b, c = (int(x) for x in self.jumps[code])
        return f"{a}-{b}-{c}"

    # -- analysis ---------------------------------------------------------------------
    def board_picture(self, values: list[str]) -> list[str]:
        """Lines drawing the board with one label per cell (the triangle centred)."""
        width = max(len(v) for v in values)
        if self.board != ENGLISH and width % 2 == 0:
            width += 1  # an odd width centres each triangle row between the two below it
        lines, i = [], 0
        nrows = len(self.row_lengths)
        for r, length in enumerate(self.row_lengths):
            labels = [v.rjust(width) for v in values[i:i + length]]
            i += length
            if self.board == ENGLISH:
                lead = " " * ((width + 1) * self.row_starts[r])
            else:
                lead = " " * ((width + 1) // 2 * (nrows - 1 - r))
            lines.append("  " + lead + " ".join(labels))
        return lines

    def analysis_extras(self, solved) -> dict:
        """Answers to the Triangle Game questions: winning sequences by the cell of the
        last peg, and the most pegs a dead end can leave."""
        off = self.hash.offsets
        biggest = int(max(off[i + 1] - off[i] for i in range(len(off) - 1)))
        if biggest > MAX_WALK_TIER:
            return {"notes": ["", f"(sequence counts by end cell skipped: tiers of up to "
                                  f"{biggest:,} positions are too large for the walk)"]}
        by_cell, totals, dead_pegs, dead_count, dead_paths, dead_ex, overflow = walk_paths(
            self.ctx, self.start, self.max_children, self.scratch_size)
        by_cell = [int(x) for x in by_cell]
        ends = {str(c): n for c, n in enumerate(by_cell) if n}
        dead_position = self.to_string(int(dead_ex)) if dead_ex >= 0 else None
        start_pegs = self.ncells - 1
        extras = {
            "win_sequences_by_last_peg": ends,
            "sequences": {"win": int(totals[0]), "lose": int(totals[1])},
            "max_dead_end_pegs": int(dead_pegs) if dead_ex >= 0 else None,
            "max_dead_end_positions": int(dead_count),
            "max_dead_end_sequences": int(dead_paths),
            "max_dead_end_example": dead_position,
            "fewest_jumps_to_dead_end": start_pegs - int(dead_pegs) if dead_ex >= 0 else None,
            "counts_overflowed": bool(overflow),
        }
        notes = [""]
        if overflow:
            notes.append("(some sequence counts passed 2^62 and are saturated)")
        notes.append(f"move sequences from the start: {int(totals[0]):,} end with one peg "
                     f"(win), {int(totals[1]):,} in a dead end (lose)")
        if ends:
            notes.append("winning sequences by the cell where the last peg ends "
                         "(cells numbered in reading order):")
            notes.extend(self.board_picture([str(c) for c in range(self.ncells)]))
            notes.append("  ->")
            notes.extend(self.board_picture([f"{n:,}" for n in by_cell]))
            notes.append("  last peg can end in cells " + ", ".join(ends) + "; "
                         + ", ".join(f"{c}: {n:,}" for c, n in ends.items()))
        else:
            notes.append("no sequence leaves one peg")
        if dead_ex >= 0:
            notes.append(
                f"most pegs left with no jump: {dead_pegs} (after {start_pegs - dead_pegs} "
                f"jumps; {dead_count:,} such position(s), {dead_paths:,} sequence(s)), "
                f"e.g. {dead_position}")
        return {**extras, "notes": notes}
