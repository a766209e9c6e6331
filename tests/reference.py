"""Independent reference solver and game rules, used only by the test suite.

This module is ground truth for the tests: plain Python, standard library only, and it
shares no code with the ``solver``, ``games`` or ``hashing`` packages. It favours being
obviously correct over being fast (about 100k positions take a few seconds).

Conventions follow DESIGN.md ("Values and remoteness", "Positions"):

* value codes ``LOSE=1 < DRAW=2 < TIE=3 < WIN=4``, always for the player to move;
* positions are the human-readable strings of DESIGN.md;
* DRAW positions, and LOSE positions of puzzles, have no remoteness: stored as 0.

A game object here has ``start() -> str``, ``primitive(s) -> int`` (0 when the game is not
over, else the value code for the player to move; for puzzles WIN for a goal and LOSE for a
dead end), ``children(s) -> list[str]`` (one entry per legal move, duplicates allowed) and a
boolean attribute ``puzzle``.

Public API: :func:`build_graph`, :func:`solve`, :func:`analyze`, :func:`count_paths`, and
the games :class:`TicTacToe`, :class:`Connect4`, :class:`Hexapawn`,
:class:`PegSolitaireTriangle`, :class:`Hanoi`, :class:`GraphGame` (a hand-built graph).
"""

from __future__ import annotations

from collections import deque

UNDECIDED, LOSE, DRAW, TIE, WIN = 0, 1, 2, 3, 4
WORDS = {LOSE: "lose", DRAW: "draw", TIE: "tie", WIN: "win"}


# --------------------------------------------------------------------------------------
# Generic solver
# --------------------------------------------------------------------------------------


def build_graph(game) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Explore every position reachable from the start, breadth first.

    Returns ``(prim, kids)``: ``prim[s]`` is ``game.primitive(s)`` for every reachable
    ``s``; ``kids[s]`` is ``game.children(s)`` (with duplicates) for non-primitive ``s``
    and ``[]`` for primitive ones (children of primitive positions are never expanded).
    """
    start = game.start()
    prim = {start: game.primitive(start)}
    kids: dict[str, list[str]] = {}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if prim[s]:
            kids[s] = []
            continue
        cs = list(game.children(s))
        if not cs:
            raise ValueError(f"non-primitive position without moves: {s!r}")
        kids[s] = cs
        for c in cs:
            if c not in prim:
                prim[c] = game.primitive(c)
                queue.append(c)
    return prim, kids


def _parents(kids: dict[str, list[str]]) -> dict[str, list[str]]:
    """Reverse edges, each distinct (parent, child) pair once."""
    parents: dict[str, list[str]] = {s: [] for s in kids}
    for s, cs in kids.items():
        for c in set(cs):
            parents[c].append(s)
    return parents


def solve(game) -> dict[str, tuple[int, int]]:
    """Map every reachable position to ``(value_code, remoteness)``."""
    prim, kids = build_graph(game)
    if game.puzzle:
        return _solve_puzzle(prim, kids)
    return _solve_two_player(prim, kids)


def _solve_two_player(prim, kids) -> dict[str, tuple[int, int]]:
    parents = _parents(kids)
    table: dict[str, tuple[int, int]] = {}
    for s, v in prim.items():
        if v:
            table[s] = (v, 0)
    # Number of distinct children not yet known to be WIN.
    undecided_kids = {s: len(set(cs)) for s, cs in kids.items() if not prim[s]}

    # Phase 1: WIN / LOSE, one remoteness layer at a time. Every position in `frontier`
    # has remoteness r; whatever it decides gets remoteness r + 1. Since layers go up in
    # order, a WIN is decided by its LOSE child of least remoteness, and a LOSE by its
    # last (hence largest-remoteness) WIN child.
    frontier = [s for s, (v, _) in table.items() if v in (WIN, LOSE)]
    r = 0
    while frontier:
        nxt = []
        for s in frontier:
            v = table[s][0]
            for p in parents[s]:
                if p in table:
                    continue
                if v == LOSE:
                    table[p] = (WIN, r + 1)
                    nxt.append(p)
                else:
                    undecided_kids[p] -= 1
                    if undecided_kids[p] == 0:
                        table[p] = (LOSE, r + 1)
                        nxt.append(p)
        frontier = nxt
        r += 1

    # Phase 2: TIE, on what WIN / LOSE left undecided, again layer by layer so that a
    # TIE gets 1 + the least remoteness among its TIE children.
    frontier = [s for s, (v, _) in table.items() if v == TIE]
    r = 0
    while frontier:
        nxt = []
        for s in frontier:
            for p in parents[s]:
                if p not in table:
                    table[p] = (TIE, r + 1)
                    nxt.append(p)
        frontier = nxt
        r += 1

    # Phase 3: whatever is left is a DRAW (no remoteness).
    for s in prim:
        if s not in table:
            table[s] = (DRAW, 0)
    return table


def _solve_puzzle(prim, kids) -> dict[str, tuple[int, int]]:
    parents = _parents(kids)
    table: dict[str, tuple[int, int]] = {}
    queue = deque()
    for s, v in prim.items():
        if v == WIN:
            table[s] = (WIN, 0)
            queue.append(s)
    while queue:  # backwards BFS from the goals: fewest moves to a goal
        s = queue.popleft()
        r = table[s][1]
        for p in parents[s]:
            if p not in table:
                table[p] = (WIN, r + 1)
                queue.append(p)
    for s in prim:
        if s not in table:
            table[s] = (LOSE, 0)
    return table


def analyze(game, table: dict[str, tuple[int, int]]) -> dict:
    """Summary of a solved table, shaped like ``gsolve analyze --json``.

    ``remoteness`` counts only positions that have a remoteness: DRAW positions and LOSE
    positions of puzzles (remoteness "null") are counted in ``values`` but left out of
    ``remoteness`` and of ``max_remoteness``. ``start`` is ``(value_code, remoteness)``.
    """
    values: dict[str, int] = {}
    by_rem: dict[int, dict[str, int]] = {}
    for v, r in table.values():
        w = WORDS[v]
        values[w] = values.get(w, 0) + 1
        if _has_remoteness(game, v):
            d = by_rem.setdefault(r, {})
            d[w] = d.get(w, 0) + 1
    return {
        "positions": len(table),
        "values": values,
        "remoteness": dict(sorted(by_rem.items())),
        "max_remoteness": max(by_rem, default=0),
        "start": table[game.start()],
    }


def _has_remoteness(game, v: int) -> bool:
    if v == DRAW:
        return False
    if game.puzzle and v == LOSE:
        return False
    return True


def count_paths(game) -> dict[str, int]:
    """Number of distinct move sequences from the start to a primitive position, by that
    primitive's value word. Two moves to the same child count separately. Raises
    ValueError on a loopy graph."""
    prim, kids = build_graph(game)
    # Kahn's algorithm: a topological order from the start to the leaves.
    indeg = {s: 0 for s in prim}
    for cs in kids.values():
        for c in cs:
            indeg[c] += 1
    order = []
    ready = [s for s, d in indeg.items() if d == 0]
    while ready:
        s = ready.pop()
        order.append(s)
        for c in kids[s]:
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    if len(order) != len(prim):
        raise ValueError("count_paths needs a loop-free game")
    # Paths from the start to each position, pushed forward in topological order.
    ways = {s: 0 for s in prim}
    ways[game.start()] = 1
    for s in order:
        for c in kids[s]:
            ways[c] += ways[s]
    out: dict[str, int] = {}
    for s, v in prim.items():
        if v and ways[s]:
            out[WORDS[v]] = out.get(WORDS[v], 0) + ways[s]
    return out


def verify(game, table: dict[str, tuple[int, int]]) -> list[str]:
    """Check a solved table against the definition of DESIGN.md, position by position.

    Returns a list of problems (empty when the table is right). Because WIN, LOSE and TIE
    remoteness must exceed that of the child that justifies them, a table that passes these
    local checks on every reachable position is the exact solution, loopy games included.
    Works on any table (for instance the real solver's answers turned into a dict).
    """
    prim, kids = build_graph(game)
    problems = []
    if set(table) != set(prim):
        problems.append(f"positions differ: {len(table)} in table, {len(prim)} reachable")
        return problems
    for s, cs in kids.items():
        got = table[s]
        if prim[s]:
            want = (prim[s], 0)
        else:
            want = _expected(game.puzzle, [table[c] for c in cs])
        if got != want:
            problems.append(f"{s!r}: table says {got}, children say {want}")
    return problems


def _expected(puzzle: bool, child_entries: list[tuple[int, int]]) -> tuple[int, int]:
    """The (value, remoteness) that the definition gives from the children's entries."""
    def rems(v):
        return [r for cv, r in child_entries if cv == v]

    if puzzle:
        return (WIN, 1 + min(rems(WIN))) if rems(WIN) else (LOSE, 0)
    if rems(LOSE):
        return (WIN, 1 + min(rems(LOSE)))
    if rems(TIE):
        return (TIE, 1 + min(rems(TIE)))
    if len(rems(WIN)) == len(child_entries):
        return (LOSE, 1 + max(rems(WIN)))
    return (DRAW, 0)


# --------------------------------------------------------------------------------------
# Games
# --------------------------------------------------------------------------------------


def _rows(s: str) -> list[str]:
    return s.split("/")


_LINES: dict[tuple[int, int, int], list[slice]] = {}


def _lines(h: int, w: int, k: int) -> list[slice]:
    """Every line of ``k`` cells (horizontal, vertical, both diagonals) on an h x w board,
    as a slice of the position string (rows of ``w`` cells joined by '/', so moving one
    row down moves ``w + 1`` characters on)."""
    key = (h, w, k)
    if key not in _LINES:
        lines = []
        for r in range(h):
            for c in range(w):
                for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                    er, ec = r + (k - 1) * dr, c + (k - 1) * dc
                    if 0 <= er < h and 0 <= ec < w:
                        first = r * (w + 1) + c
                        step = dr * (w + 1) + dc
                        lines.append(slice(first, first + (k - 1) * step + 1, step))
        _LINES[key] = lines
    return _LINES[key]


def _has_line(s: str, h: int, w: int, piece: str, k: int) -> bool:
    """Whether ``piece`` has ``k`` in a row horizontally, vertically or diagonally."""
    target = piece * k
    return any(s[line] == target for line in _lines(h, w, k))


class TicTacToe:
    """3x3 tic-tac-toe: ``X--/-O-/--X``; X first, side to move from the counts."""

    puzzle = False

    def start(self) -> str:
        return "---/---/---"

    @staticmethod
    def mover(s: str) -> str:
        return "X" if s.count("X") == s.count("O") else "O"

    def primitive(self, s: str) -> int:
        opponent = "O" if self.mover(s) == "X" else "X"
        if _has_line(s, 3, 3, opponent, 3):
            return LOSE
        if "-" not in s:
            return TIE
        return 0

    def children(self, s: str) -> list[str]:
        m = self.mover(s)
        return [s[:i] + m + s[i + 1 :] for i, ch in enumerate(s) if ch == "-"]


class Connect4:
    """Connect-k on a width x height board; rows top first, pieces fall to the last row."""

    puzzle = False

    def __init__(self, width: int = 4, height: int = 4, connect: int = 4):
        self.width, self.height, self.connect = width, height, connect

    def start(self) -> str:
        return "/".join(["-" * self.width] * self.height)

    @staticmethod
    def mover(s: str) -> str:
        return "X" if s.count("X") == s.count("O") else "O"

    def primitive(self, s: str) -> int:
        opponent = "O" if self.mover(s) == "X" else "X"
        if _has_line(s, self.height, self.width, opponent, self.connect):
            return LOSE
        if "-" not in s:
            return TIE
        return 0

    def children(self, s: str) -> list[str]:
        m = self.mover(s)
        stride = self.width + 1  # one row down in the position string
        out = []
        for c in range(self.width):
            r = s[c::stride].rfind("-")  # lowest empty cell of column c
            if r >= 0:
                i = r * stride + c
                out.append(s[:i] + m + s[i + 1 :])
        return out


class Hexapawn:
    """Hexapawn: ``BBB/---/WWW w``. White (W, bottom) moves up, black (B, top) down."""

    puzzle = False

    def __init__(self, width: int = 3, height: int = 3):
        self.width, self.height = width, height

    def start(self) -> str:
        mid = ["-" * self.width] * (self.height - 2)
        return "/".join(["B" * self.width, *mid, "W" * self.width]) + " w"

    def _parse(self, s: str):
        board, side = s.split(" ")
        return _rows(board), side

    def _moves(self, rows: list[str], side: str) -> list[list[str]]:
        me, them = ("W", "B") if side == "w" else ("B", "W")
        dr = -1 if side == "w" else 1
        out = []
        for r in range(self.height):
            for c in range(self.width):
                if rows[r][c] != me:
                    continue
                nr = r + dr
                if not 0 <= nr < self.height:
                    continue
                targets = []
                if rows[nr][c] == "-":
                    targets.append(c)
                for nc in (c - 1, c + 1):
                    if 0 <= nc < self.width and rows[nr][nc] == them:
                        targets.append(nc)
                for nc in targets:
                    g = [list(row) for row in rows]
                    g[r][c] = "-"
                    g[nr][nc] = me
                    out.append(["".join(row) for row in g])
        return out

    def primitive(self, s: str) -> int:
        rows, side = self._parse(s)
        # The opponent (who just moved) reached its far row: white's is the top row.
        if side == "b" and "W" in rows[0]:
            return LOSE
        if side == "w" and "B" in rows[-1]:
            return LOSE
        if not self._moves(rows, side):  # includes having no pawns left
            return LOSE
        return 0

    def children(self, s: str) -> list[str]:
        rows, side = self._parse(s)
        other = "b" if side == "w" else "w"
        return ["/".join(g) + " " + other for g in self._moves(rows, side)]


class PegSolitaireTriangle:
    """Triangular peg solitaire: row i has i+1 holes, ``X`` peg, ``-`` hole.

    Start: every hole filled except ``hole`` = (row, col). Goal (WIN): one peg left.
    A position with more than one peg and no jump is a dead end (LOSE)."""

    puzzle = True
    # The three line directions, both ways: along a row, and the two diagonals.
    DIRECTIONS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, -1))

    def __init__(self, rows: int = 5, hole: tuple[int, int] = (0, 0)):
        self.rows, self.hole = rows, tuple(hole)

    def start(self) -> str:
        return "/".join(
            "".join("-" if (r, c) == self.hole else "X" for c in range(r + 1))
            for r in range(self.rows)
        )

    def _valid(self, r: int, c: int) -> bool:
        return 0 <= c <= r < self.rows

    def _jumps(self, s: str) -> list[str]:
        g = [list(row) for row in _rows(s)]
        out = []
        for r in range(self.rows):
            for c in range(r + 1):
                if g[r][c] != "X":
                    continue
                for dr, dc in self.DIRECTIONS:
                    mr, mc, tr, tc = r + dr, c + dc, r + 2 * dr, c + 2 * dc
                    if self._valid(tr, tc) and g[mr][mc] == "X" and g[tr][tc] == "-":
                        h = [list(row) for row in g]
                        h[r][c] = h[mr][mc] = "-"
                        h[tr][tc] = "X"
                        out.append("/".join("".join(row) for row in h))
        return out

    def primitive(self, s: str) -> int:
        if s.count("X") == 1:
            return WIN
        if not self._jumps(s):
            return LOSE
        return 0

    def children(self, s: str) -> list[str]:
        return self._jumps(s)


class Hanoi:
    """Towers of Hanoi: one character per disk, smallest first, its peg '1'..'pegs'."""

    puzzle = True

    def __init__(self, disks: int = 3, pegs: int = 3):
        self.disks, self.pegs = disks, pegs

    def start(self) -> str:
        return "1" * self.disks

    def primitive(self, s: str) -> int:
        return WIN if s == str(self.pegs) * self.disks else 0

    def children(self, s: str) -> list[str]:
        # Top disk of each peg: the smallest disk standing on it (None when empty).
        top = {str(p): None for p in range(1, self.pegs + 1)}
        for disk in range(self.disks - 1, -1, -1):
            top[s[disk]] = disk
        out = []
        for a, da in top.items():
            if da is None:
                continue
            for b, db in top.items():
                if b != a and (db is None or db > da):
                    out.append(s[:da] + b + s[da + 1 :])
        return out


class GraphGame:
    """A hand-built game: ``edges`` maps a position to its children, ``prims`` maps
    primitive positions to their value code."""

    def __init__(self, start: str, edges: dict[str, list[str]], prims: dict[str, int],
                 puzzle: bool = False):
        self._start, self.edges, self.prims, self.puzzle = start, edges, prims, puzzle

    def start(self) -> str:
        return self._start

    def primitive(self, s: str) -> int:
        return self.prims.get(s, 0)

    def children(self, s: str) -> list[str]:
        return list(self.edges.get(s, []))
