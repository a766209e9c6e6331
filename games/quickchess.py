"""Quick chess endings: chess on 5 files and 6 ranks, solved material by material.

Quick chess (GamesCrafters notes): each side has R B K Q N on its back rank (files a..e,
white on rank 1, black on rank 6) and five pawns in front; no castling, no double pawn
step (so no en passant); promotion allowed. The whole game is far too big, its endings are
not: `-V pieces=KRk` names the material of an ending (white K and pieces in upper case,
then black k and pieces in lower case, at most 4 pieces in all, each side's pieces a part
of its quick-chess army) and the game holds that material and every material it can turn
into by captures and promotions. `width` (3..5) and `height` (4..6) shrink the board.

Rules chosen here (standard chess otherwise):
* a pawn steps one square forward, captures one square diagonally forward, and promotes
  on the far rank to a queen, rook, bishop or knight (the mover's choice);
* a move may not leave the mover's own king in check; kings are never captured, and a
  position where the side not to move is in check is illegal (never reached, refused);
* checkmate (no legal move, in check): the side to move loses (LOSE);
* stalemate (no legal move, not in check): a tie (TIE);
* dead material (the kings alone, or with one bishop or one knight in all) is a tie at
  once (TIE), as no sequence of moves could mate;
* no repetition or fifty-move rule: moves repeat freely, and a position neither side can
  force to an end is a DRAW (DESIGN.md).

Start: every piece of the named material on its quick-chess home square (R a, B b, K c,
Q d, N e of the back rank; pawns on the rank in front, White's from file a rightwards,
Black's from the last file leftwards, so that KPkp is a race), White to move. The
database holds the positions reachable from it: for a named material without pawns, every
legal position of it (and those of its sub-materials that a capture leads to: in KRk only
Black captures, so Kk with Black to move never occurs); with pawns, the positions whose
pawns can get where they stand.

Position string: rows top (rank 6) first joined by '/', `KQRBNP` white, `kqrbnp` black,
`-` empty, then a space and the side to move, `w` or `b`; the KRk start is
`--k--/-----/-----/-----/-----/R-K-- w`. Moves: `c1-c2`, `a1xa6`, `b5-b6=Q`.

Hash and tiers: one tier per material (kings and at most two other pieces); inside a
tier, the generic hash (hashing.generic) ranks the placement of the pieces (one piece type
per distinct piece, identical pieces ranked as a set) and the side to move. Tiers are
ordered by piece count; a capture or promotion moves to a child tier, other moves stay in
the tier (loopy). Un-moves (`parents`) include un-captures and un-promotions into every
parent tier of the hash. Move generation lives in games/chessmoves.py.
"""

from __future__ import annotations

import numpy as np

from games import register
from games.base import LOSE, TIE, Game, PositionError, Tier, Variant, VariantError
from games.chessmoves import (
    BISHOP,
    BLACK,
    EMPTY,
    KING,
    KNIGHT,
    PAWN,
    attacked,
    geometry,
    king_square,
    legal_moves,
    legal_unmoves,
    make_move,
    make_unmove,
    max_moves,
    unmake_move,
    unmake_unmove,
)
from hashing import HashContext
from hashing.generic import unrank
from hashing.jit import njit

CHARS = "-KQRBNPkqrbnp"  # by piece code
HOME_FILE = {"R": 0, "B": 1, "K": 2, "Q": 3, "N": 4}
MAX_PIECES = 4

# ctx slots
HASH, GEO, OFF, COMBO, CODE, SLOT, MAT, DEAD, UNCAP = range(9)


@njit(cache=True, nogil=True)
def _decode(ctx, h, board, types):
    """Board of hash h into `board` (types: scratch); returns (tier, side to move)."""
    hnb, off = ctx[HASH], ctx[OFF]
    t = np.searchsorted(off, h, side="right") - 1
    turn = unrank(hnb, hnb[5][ctx[COMBO][t]] + h - off[t], types)
    code = ctx[CODE]
    for i in range(board.shape[0]):
        board[i] = code[t, types[i]]
    return t, turn


@njit(cache=True, nogil=True)
def _encode(ctx, board, turn, types):
    """Hash of board with `turn` to move, -1 when its material is not in the hash: the
    generic arrangement rank of hashing.generic.rank over the tier's piece types (K, k,
    then its other pieces; empty last), in one pass. `types` is unused scratch."""
    n = board.shape[0]
    a = 0
    b = 0
    m = 0
    for i in range(n):
        p = board[i]
        if p != EMPTY and p != KING and p != KING + BLACK:
            m += 1
            if m == 1:
                a = p
            else:
                b = p
    if m > 2:
        return -1
    if a > b:
        a, b = b, a
    t = ctx[MAT][a * 13 + b]
    if t < 0:
        return -1
    slot = ctx[SLOT]
    binom = ctx[HASH][1]
    m0 = m1 = m2 = m3 = 0
    u1 = u2 = u3 = 0
    r0 = r1 = r2 = r3 = 0
    for i in range(n):  # u_t: earlier cells of a type >= t (u0 = i)
        p = slot[t, board[i]]
        if p == 0:
            m0 += 1
            r0 += binom[i, m0]
        elif p == 1:
            m1 += 1
            r1 += binom[u1, m1]
        elif p == 2:
            m2 += 1
            r2 += binom[u2, m2]
        elif p == 3:
            m3 += 1
            r3 += binom[u3, m3]
        if p >= 1:
            u1 += 1
            if p >= 2:
                u2 += 1
                if p >= 3:
                    u3 += 1
    c = ctx[COMBO][t]
    radix = ctx[HASH][4]
    arr = radix[c, 0] * binom[n, 1]
    return (ctx[OFF][t] + turn * arr + r0 * radix[c, 0] + r1 * radix[c, 1]
            + r2 * radix[c, 2] + r3 * radix[c, 3])


@njit(cache=True, nogil=True)
def primitive(ctx, h, scratch):
    n = ctx[GEO][4][2]
    board = scratch[:n]
    t, turn = _decode(ctx, h, board, scratch[n:2 * n])
    if ctx[DEAD][t]:
        return TIE
    if legal_moves(ctx[GEO], board, turn, ctx[OFF], True) == 0:  # (mv unused)
        return LOSE if attacked(ctx[GEO], board, king_square(board, turn), 1 - turn) else TIE
    return 0


@njit(cache=True, nogil=True)
def children(ctx, h, out, moves, scratch):
    n = ctx[GEO][4][2]
    board = scratch[:n]
    types = scratch[n:2 * n]
    _t, turn = _decode(ctx, h, board, types)
    k = legal_moves(ctx[GEO], board, turn, moves, False)
    for i in range(k):
        cap = make_move(board, moves[i], turn)
        out[i] = _encode(ctx, board, 1 - turn, types)
        unmake_move(board, moves[i], turn, cap)
    return k


@njit(cache=True, nogil=True)
def parents(ctx, h, out, scratch):
    """Every legal position in the hash one move before h (un-captures and un-promotions
    into parent tiers included), each once."""
    n = ctx[GEO][4][2]
    board = scratch[:n]
    types = scratch[n:2 * n]
    _t, me = _decode(ctx, h, board, types)
    prev = 1 - me  # it un-captures kinds of me's pieces whose parent material is a tier
    m = legal_unmoves(ctx[GEO], board, prev, ctx[UNCAP][_t, prev], out)
    k = 0
    for i in range(m):
        code = out[i]
        piece = make_unmove(board, code, prev)
        p = _encode(ctx, board, prev, types)
        unmake_unmove(board, code, piece)
        if p >= 0:
            out[k] = p
            k += 1
    return k


# -- materials --------------------------------------------------------------------------------

def material_name(m: tuple[int, ...]) -> str:
    """Canonical name of a material (sorted non-king piece codes): 'KRk', 'KPkp'."""
    return ("K" + "".join(CHARS[c] for c in m if c <= BLACK) + "k"
            + "".join(CHARS[c] for c in m if c > BLACK))


def parse_material(text: str, width: int) -> tuple[int, ...]:
    """Sorted non-king piece codes of a material name; VariantError when it cannot be."""
    where = f"quickchess pieces={text}"
    if not isinstance(text, str) or not text or any(ch not in CHARS[1:] for ch in text):
        raise VariantError(f"{where}: name the pieces with letters KQRBNP (white) and "
                           "kqrbnp (black), e.g. pieces=KRk")
    if text.count("K") != 1 or text.count("k") != 1:
        raise VariantError(f"{where}: each side needs exactly one king (K and k)")
    if len(text) > MAX_PIECES:
        raise VariantError(f"{where}: at most {MAX_PIECES} pieces (kings included) here")
    for ch in set(text):
        up = ch.upper()
        if up in "QRBN" and text.count(ch) > 1:
            raise VariantError(f"{where}: a quick-chess side has one {up} (more only by "
                               "promotion, which the material's tiers include)")
        if up in HOME_FILE and HOME_FILE[up] >= width:
            raise VariantError(f"{where}: the {up} has no home square on a {width}-file board")
        if up == "P" and text.count(ch) > width:
            raise VariantError(f"{where}: at most {width} pawns a side")
    return tuple(sorted(CHARS.index(ch) for ch in text if ch not in "Kk"))


def _kind(code: int) -> int:
    """K Q R B N P = 1..6 for either colour."""
    return (code - 1) % BLACK + 1


def _is_dead(m: tuple[int, ...]) -> bool:
    return len(m) == 0 or (len(m) == 1 and _kind(m[0]) in (BISHOP, KNIGHT))


def _successors(m: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Materials one move can lead to: a capture, a promotion, or both at once."""
    out = set()
    for i in range(len(m)):
        out.add(m[:i] + m[i + 1:])
        if _kind(m[i]) == PAWN:
            side = m[i] - PAWN
            rest = m[:i] + m[i + 1:]
            for x in range(2, PAWN):
                out.add(rest + (x + side,))
                for j, q in enumerate(rest):
                    if (q > BLACK) != (side > 0):
                        out.add(rest[:j] + rest[j + 1:] + (x + side,))
    return {tuple(sorted(x)) for x in out}


def _closure(named: tuple[int, ...]) -> list[tuple[int, ...]]:
    seen = {named}
    todo = [named]
    while todo:
        for c in _successors(todo.pop()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return sorted(seen, key=lambda m: (len(m), material_name(m)))


class MaterialVariant(Variant):
    """The `pieces` key: a material name, not a number."""

    def __init__(self, default: str, help: str):
        super().__init__(0, 0, 0, help)
        self.default = default
        self.lo = self.hi = None

    def allowed(self) -> str:
        return f"K, k and up to {MAX_PIECES - 2} of QRBNP/qrbnp"


@register
class QuickChess(Game):
    name = "quickchess"
    title = "Quick chess endings (5x6 chess)"
    loopy = True
    variants = {
        "pieces": MaterialVariant("KQk", "the material: white pieces, then black"),
        "width": Variant(5, 3, 5, "files"),
        "height": Variant(6, 4, 6, "ranks"),
    }

    @classmethod
    def check_variant(cls, given: dict) -> dict:
        ints = {k: v for k, v in given.items() if k != "pieces"}
        for key in ints:
            if key not in cls.variants:
                raise VariantError(f"quickchess has no variant key '{key}' (keys: "
                                   f"{', '.join(cls.variants)})")
        out = {"pieces": None}
        for key in ("width", "height"):
            spec = cls.variants[key]
            val = ints.get(key, spec.default)
            if not isinstance(val, int) or not spec.lo <= val <= spec.hi:
                raise VariantError(f"quickchess variant {key}={val} is not allowed "
                                   f"({spec.allowed()})")
            out[key] = val
        text = given.get("pieces", cls.variants["pieces"].default)
        out["pieces"] = material_name(parse_material(str(text), out["width"]))
        return out

    def __init__(self, **variant):
        super().__init__(**variant)
        w, hgt = self.variant["width"], self.variant["height"]
        self.width, self.height = w, hgt
        n = w * hgt
        self.geo = geometry(w, hgt)
        self.material = parse_material(self.variant["pieces"], w)
        self.materials = _closure(self.material)
        patterns: list[tuple[int, ...]] = []
        ntier = len(self.materials)
        tier_combo = np.zeros(ntier, np.int64)
        tier_code = np.zeros((ntier, 5), np.int8)
        tier_slot = np.full((ntier, 13), -1, np.int8)
        mat_index = np.full(13 * 13, -1, np.int64)
        dead = np.zeros(ntier, np.int8)
        for t, m in enumerate(self.materials):
            kinds = [KING, KING + BLACK] + sorted(set(m))
            counts = [1, 1] + [m.count(c) for c in sorted(set(m))]
            counts += [0] * (4 - len(counts))
            pattern = tuple(counts) + (n - sum(counts),)
            if pattern not in patterns:
                patterns.append(pattern)
            tier_combo[t] = patterns.index(pattern)
            tier_code[t, :len(kinds)] = kinds
            tier_code[t, 4] = EMPTY
            for s, c in enumerate(kinds):
                tier_slot[t, c] = s
            tier_slot[t, EMPTY] = 4
            a, b = (0,) * (2 - len(m)) + m
            mat_index[a * 13 + b] = t
            dead[t] = _is_dead(m)
        self.hash = HashContext(n, [(1, 1), (1, 1), (0, 2), (0, 1), (0, n)], turn=True,
                                combos=patterns)
        sizes = [2 * self.hash.arrangements[c] for c in tier_combo]
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.hash_size = int(self.offsets[-1])
        # uncap[t, side]: bit x when side may have captured a kind-x piece to reach tier t
        index = {m: t for t, m in enumerate(self.materials)}
        uncap = np.zeros((ntier, 2), np.int64)
        for t, m in enumerate(self.materials):
            for side in (0, 1):
                for x in range(2, PAWN + 1):
                    if tuple(sorted(m + (x + (1 - side) * BLACK,))) in index:
                        uncap[t, side] |= 1 << x
        self.ctx = (self.hash.nb, self.geo, self.offsets, tier_combo, tier_code, tier_slot,
                    mat_index, dead, uncap)
        self.max_children, self.max_parents = max_moves(self.geo)
        self.scratch_size = 2 * n
        self.max_remoteness = 4095
        home = self._home()
        if attacked(self.geo, home, king_square(home, 1), 0):  # cannot happen; say so if it does
            raise VariantError(f"quickchess {self.variant_key}: the start would be illegal")
        self.start = self._encode_checked(home, 0)

    # -- numbering ----------------------------------------------------------------------------
    def _home(self) -> np.ndarray:
        """The start: every piece on its home square (see the module docstring)."""
        w, hgt = self.width, self.height
        board = np.zeros(w * hgt, np.int8)
        for side, (back, front) in enumerate(((hgt - 1, hgt - 2), (0, 1))):
            letters = "K" + "".join(CHARS[c] for c in self.material if (c > BLACK) == side)
            pawns = 0
            for ch in letters.upper():
                code = CHARS.index(ch) + side * BLACK
                if ch == "P":  # white pawns from file a on, black from the last file
                    board[front * w + (pawns if side == 0 else w - 1 - pawns)] = code
                    pawns += 1
                else:
                    board[back * w + HOME_FILE[ch]] = code
        return board

    def _encode_checked(self, board: np.ndarray, turn: int) -> int:
        h = int(_encode(self.ctx, board, turn, np.empty(board.size, np.int8)))
        if h < 0:
            raise PositionError("quickchess: no such position in the hash space")
        return h

    def decode(self, h: int) -> tuple[np.ndarray, int]:
        if not 0 <= h < self.hash_size:
            raise PositionError(f"quickchess hash {h} is out of range 0..{self.hash_size - 1}")
        n = self.width * self.height
        board = np.empty(n, np.int8)
        _t, turn = _decode(self.ctx, h, board, np.empty(n, np.int8))
        return board, int(turn)

    def tiers(self) -> list[Tier]:
        index = {m: t for t, m in enumerate(self.materials)}
        out = []
        for t, m in enumerate(self.materials):
            kids = () if _is_dead(m) else tuple(sorted({t} | {index[c] for c in
                                                             _successors(m)}))
            out.append(Tier(material_name(m), int(self.offsets[t]), int(self.offsets[t + 1]),
                            kids))
        return out

    def parent_hashes(self, h: int) -> list[int]:
        """The positions one move before h (Python callers and tests)."""
        out = np.empty(self.max_parents, np.int64)
        k = parents(self.ctx, h, out, np.empty(self.scratch_size, np.int8))
        return [int(x) for x in out[:k]]

    # -- strings ------------------------------------------------------------------------------
    def square(self, s: int) -> str:
        return "abcde"[s % self.width] + str(self.height - s // self.width)

    def to_string(self, h: int) -> str:
        board, turn = self.decode(h)
        w = self.width
        rows = ["".join(CHARS[p] for p in board[r * w:(r + 1) * w]) for r in range(self.height)]
        return "/".join(rows) + " " + "wb"[turn]

    def from_string(self, s: str) -> int:
        text = s.strip()
        where = f"quickchess position '{text}'"
        parts = text.split()
        if len(parts) != 2 or parts[1] not in ("w", "b"):
            raise PositionError(f"{where} should be 'ROWS SIDE' with SIDE w or b, e.g. "
                                f"'{self.to_string(self.start)}'")
        rows = parts[0].split("/")
        if len(rows) != self.height or any(len(r) != self.width for r in rows):
            raise PositionError(f"{where} should have {self.height} rows of {self.width} "
                                "squares joined by '/'")
        cells = "".join(rows)
        if any(ch not in CHARS for ch in cells):
            raise PositionError(f"{where}: squares are one of '{CHARS}'")
        board = np.array([CHARS.index(ch) for ch in cells], np.int8)
        turn = "wb".index(parts[1])
        if cells.count("K") != 1 or cells.count("k") != 1:
            raise PositionError(f"{where}: each side needs exactly one king")
        m = tuple(sorted(int(p) for p in board if p not in (EMPTY, KING, KING + BLACK)))
        if m not in self.materials:
            raise PositionError(
                f"{where}: material {material_name(m)} is not part of pieces="
                f"{self.variant['pieces']} (its materials: "
                f"{', '.join(material_name(x) for x in self.materials)})")
        for i, p in enumerate(board):
            if p and _kind(p) == PAWN and not 1 <= i // self.width <= self.height - 2:
                raise PositionError(f"{where} cannot occur: a pawn on {self.square(i)}")
        other = 1 - turn
        if attacked(self.geo, board, king_square(board, other), turn):
            raise PositionError(f"{where} cannot occur: the side not to move is in check")
        return self._encode_checked(board, turn)

    def move_name(self, h: int, code: int) -> str:
        board, _turn = self.decode(h)
        n = board.size
        promo, to, frm = code % 5, (code // 5) % n, code // 5 // n
        name = self.square(frm) + ("x" if board[to] else "-") + self.square(to)
        return name + ("=" + "QRBN"[promo - 1] if promo else "")

    def describe(self) -> str:
        return f"{self.name} {self.variant_key}"
