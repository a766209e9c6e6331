"""Plain-Python reference rules for the tiles puzzle (rotate the wires until all are lit).

Independent of games/ and solver/: written from the rules text only. Positions are the
game's strings: rows top first joined by '/', one hex digit per tile (its connectors,
N=1 E=2 S=4 W=8), then ' @row,col' (1-based) naming the source.

An instance is either generated from a seed (same published recipe as the game: Kruskal
over a shuffled edge list with random.Random(seed), no crosses, source, scramble) or given
as a start string (for hand-made boards).
"""

from __future__ import annotations

import random

WIN = 4
# direction name -> (bit, row step, column step, opposite direction name)
SIDES = {"N": (1, -1, 0, "S"), "E": (2, 0, 1, "W"), "S": (4, 1, 0, "N"), "W": (8, 0, -1, "E")}
CLOCKWISE = {"N": "E", "E": "S", "S": "W", "W": "N"}


def sides_of(digit: str) -> set[str]:
    v = int(digit, 16)
    return {name for name, (bit, _, _, _) in SIDES.items() if v & bit}


def digit_of(sides: set[str]) -> str:
    return "0123456789ABCDEF"[sum(SIDES[name][0] for name in sides)]


def turned(digit: str) -> str:
    """The tile after one clockwise quarter turn."""
    return digit_of({CLOCKWISE[name] for name in sides_of(digit)})


# every hex digit's sides and its clockwise turn, tabulated once
SIDES_OF = {d: sides_of(d) for d in "0123456789ABCDEF"}
TURN = {d: turned(d) for d in "0123456789ABCDEF"}


def parse(s: str) -> tuple[list[str], tuple[int, int]]:
    board, mark = s.split(" @")
    r, c = mark.split(",")
    return board.split("/"), (int(r) - 1, int(c) - 1)


def render(rows: list[str], source: tuple[int, int]) -> str:
    return "/".join(rows) + f" @{source[0] + 1},{source[1] + 1}"


def solved(rows: list[str], source: tuple[int, int]) -> bool:
    """Every connector meets the neighbour's opposite connector, and the joined tiles
    reach every tile from the source."""
    height, width = len(rows), len(rows[0])

    def neighbour(r, c, name):
        _, dr, dc, _ = SIDES[name]
        rr, cc = r + dr, c + dc
        return (rr, cc) if 0 <= rr < height and 0 <= cc < width else None

    for r in range(height):
        for c in range(width):
            for name in SIDES_OF[rows[r][c]]:
                other = neighbour(r, c, name)
                if other is None:
                    return False  # points off the board
                if SIDES[name][3] not in SIDES_OF[rows[other[0]][other[1]]]:
                    return False  # loose end
    lit = {source}
    frontier = [source]
    while frontier:
        r, c = frontier.pop()
        for name in SIDES_OF[rows[r][c]]:
            other = neighbour(r, c, name)
            if other not in lit:
                lit.add(other)
                frontier.append(other)
    return len(lit) == width * height


def generate(width: int, height: int, seed: int) -> str:
    """The start string of the seeded instance (the recipe of the game's docstring)."""
    rng = random.Random(seed)
    edges = [((r, c), (r, c + 1)) for r in range(height) for c in range(width - 1)]
    edges += [((r, c), (r + 1, c)) for r in range(height - 1) for c in range(width)]
    while True:
        rng.shuffle(edges)
        group = {(r, c): {(r, c)} for r in range(height) for c in range(width)}
        tile = {cell: set() for cell in group}
        for a, b in edges:
            if group[a] is group[b]:
                continue
            merged = group[a] | group[b]
            for cell in merged:
                group[cell] = merged
            if a[0] == b[0]:  # b is east of a
                tile[a].add("E")
                tile[b].add("W")
            else:  # b is south of a
                tile[a].add("S")
                tile[b].add("N")
        if all(len(sides) < 4 for sides in tile.values()):
            break
    k = rng.randrange(width * height)
    source = divmod(k, width)
    tree = [[digit_of(tile[(r, c)]) for c in range(width)] for r in range(height)]
    while True:
        rows = []
        for r in range(height):
            row = ""
            for c in range(width):
                d = tree[r][c]
                for _ in range(rng.randrange(4)):
                    d = turned(d)
                row += d
            rows.append(row)
        if not solved(rows, source):
            return render(rows, source)


class Tiles:
    """Reference rules: start() -> str, primitive(s) -> WIN at a goal else 0 (there are no
    dead ends), children(s) -> one position per tile (that tile turned clockwise)."""

    puzzle = True

    def __init__(self, width: int = 3, height: int = 3, seed: int = 1,
                 start: str | None = None):
        self._start = start if start is not None else generate(width, height, seed)

    def start(self) -> str:
        return self._start

    def primitive(self, s: str) -> int:
        rows, source = parse(s)
        return WIN if solved(rows, source) else 0

    def children(self, s: str) -> list[str]:
        board, mark = s.split(" @")
        return [board[:k] + TURN[d] + board[k + 1:] + " @" + mark
                for k, d in enumerate(board) if d != "/"]
