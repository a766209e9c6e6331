"""Position, move and AutoGUI strings as GamesCrafters' data providers write them.

UWAPI routes a game to a data provider (GamesmanClassic, GamesmanOne) and GamesmanUni
draws its AutoGUI strings with the image data UWAPI keeps per game: a position
`<turn>_<one character per board place>` (turn 1: the first player to move, 2: the second),
and move buttons `A_<token>_<place>_<sound>` (a token at a place) or `M_<from>_<to>_<sound>`
(an arrow). For the games UWAPI lists, the classes below write exactly the strings its
provider writes today (learnt from GamesmanClassic's src/m*.c and GamesmanOne's
src/games/*/), and read them back; every other game gets `Plain`, gsolve's own position
string and an AutoGUI form derived from it. All conversion is string to string: gsolve's
own strings stay the only ones the rest of gsolve knows.
"""

from __future__ import annotations

import re

from games.base import PositionError

BLANKS = "-."  # cells that hold nothing, in gsolve's position strings


class Plain:
    """gsolve's own position string; AutoGUI: one character per cell of the board (the
    text before the first space, less '/' and ','), the turn from the word after it (the
    start's word is player 1's), 1 in puzzles, else by the parity of the filled cells
    (games where each move places one piece, as tic-tac-toe); a move is a token at the one cell it
    fills, an arrow where a piece goes from one cell to another, or text."""

    def __init__(self, game):
        self.game = game
        words = game.to_string(game.start).split()
        self.first = words[1] if len(words) > 1 else None

    def to_gsolve(self, s: str) -> str:
        return s

    def position(self, gs: str) -> str:
        return gs

    def cells(self, gs: str) -> str:
        return gs.split()[0].replace("/", "").replace(",", "") if gs.strip() else ""

    def turn(self, gs: str) -> int:
        words = gs.split()
        if self.game.puzzle:
            return 1
        if self.first is None or len(words) < 2:
            return 1 + sum(c not in BLANKS for c in self.cells(gs)) % 2
        return 1 if words[1] == self.first else 2

    def autogui(self, gs: str) -> str:
        return f"{self.turn(gs)}_{self.cells(gs)}"

    def both(self, gs: str) -> tuple[str, str]:
        """(position, autogui): one conversion where the class's AutoGUI string is its
        position string (a served position converts every child)."""
        p = self.position(gs)
        return p, p if type(self).autogui is type(self).position else self.autogui(gs)

    def move(self, gs: str, name: str, child: str) -> tuple[str, str]:
        a, b = self.cells(gs), self.cells(child)
        changed = [i for i in range(min(len(a), len(b))) if a[i] != b[i]]
        if len(changed) == 2:
            src = [i for i in changed if b[i] in BLANKS and a[i] not in BLANKS]
            dst = [i for i in changed if a[i] in BLANKS and b[i] not in BLANKS]
            if src and dst:
                return name, f"M_{src[0]}_{dst[0]}_x"
        if changed:
            return name, f"A_-_{changed[-1] if len(changed) == 1 else changed[0]}_-"
        return name, f"T_{name.replace('_', ' ')}_0_-"

    def order(self, name: str):
        return 0  # gsolve's own move order


def _turn_board(s: str, alphabet: str, size: int, game: str) -> tuple[int, str]:
    """'<1|2>_<size cells of alphabet>' -> (turn, cells); PositionError otherwise."""
    if not re.fullmatch(f"[12]_[{re.escape(alphabet)}]{{{size}}}", s):
        raise PositionError(f"{game} position '{s}' should be 1_ or 2_ (the player to move) "
                            f"then {size} cells of {' '.join(alphabet)}")
    return int(s[0]), s[2:]


def _rows(cells: str, width: int) -> str:
    return "/".join(cells[i:i + width] for i in range(0, len(cells), width))


class TicTacToe(Plain):
    """GamesmanClassic's mttt.c: '1_x-o------' (lower case, the turn from the counts),
    moves '1'..'9', buttons 'A_<x|o>_<cell>_-', moves listed from cell 9 down."""

    def to_gsolve(self, s: str) -> str:
        turn, cells = _turn_board(s, "xo-", 9, "tictactoe")
        if turn != self.turn(cells.upper()):
            raise PositionError(f"tictactoe position '{s}': the turn does not match the "
                                "pieces (X moves first)")
        return _rows(cells.upper(), 3)

    def cells(self, gs: str) -> str:
        return gs.replace("/", "")

    def turn(self, gs: str) -> int:
        return 1 if gs.count("X") == gs.count("O") else 2

    def position(self, gs: str) -> str:
        return f"{self.turn(gs)}_{self.cells(gs).lower()}"

    autogui = position

    def move(self, gs, name, child):
        return name, f"A_{'xo'[self.turn(gs) - 1]}_{int(name) - 1}_-"

    def order(self, name):
        return -int(name)


class Connect4(Plain):
    """GamesmanClassic's mconnect4.c: '1_' then the board column by column from the left,
    each from the top (X, O, -); moves '1'.. by column, listed from the left, buttons
    'M_<R*C+c>_<R*C+c+C>_x' (arrows above the board)."""

    def __init__(self, game):
        super().__init__(game)
        self.w, self.h = game.width, game.height

    def to_gsolve(self, s: str) -> str:
        w, h = self.w, self.h
        turn, cells = _turn_board(s, "XO-", w * h, "connect4")
        rows = "/".join("".join(cells[c * h + r] for c in range(w)) for r in range(h))
        if turn != self.turn(rows):
            raise PositionError(f"connect4 position '{s}': the turn does not match the "
                                "pieces (X moves first)")
        return rows

    def turn(self, gs: str) -> int:
        return 1 + (gs.count("X") + gs.count("O")) % 2

    def cells(self, gs: str) -> str:
        rows = gs.split("/")
        return "".join(rows[r][c] for c in range(self.w) for r in range(self.h))

    def position(self, gs: str) -> str:
        return f"{self.turn(gs)}_{self.cells(gs)}"

    autogui = position

    def move(self, gs, name, child):
        at = self.w * self.h + int(name) - 1
        return name, f"M_{at}_{at + self.w}_x"

    def order(self, name):
        return int(name)


class _RowsAndSide(Plain):
    """A gsolve string '<rows joined by /> <side>' (`FIRST`: the first player's letter) as
    a provider's '1_' or '2_' and the cells row by row."""

    FIRST = "x"

    def cells(self, gs: str) -> str:
        return gs.split()[0].replace("/", "")

    def turn(self, gs: str) -> int:
        return 1 if gs.split()[1] == self.FIRST else 2

    def position(self, gs: str) -> str:
        return f"{self.turn(gs)}_{self.cells(gs)}"


class Quixo(_RowsAndSide):
    """GamesmanOne's src/games/quixo: '1_' (X to move) or '2_' then the cells row by row
    (X, O, -; AutoGUI writes B for -), moves '<cell> <R|L|D|U>' (GamesmanOne's letter is
    the end the cube goes in at, as gsolve's), arrows 'M_<cell>_<cell+(1+d)*n*n>_x' with d
    0..3 for R, L, D, U, listed by place in each direction's sources, then direction."""

    DIRS = "RLDU"

    def __init__(self, game):
        super().__init__(game)
        n = self.n = game.n
        border = [i for i in range(n * n)
                  if i // n in (0, n - 1) or i % n in (0, n - 1)]
        keep = (lambda i: i % n != n - 1, lambda i: i % n != 0,
                lambda i: i // n != n - 1, lambda i: i // n != 0)
        self.sources = [[i for i in border if k(i)] for k in keep]
        # every move's (name, button) and place in the order, by gsolve's name: made once
        self._names = {f"{c + 1}{d}": ((f"{c + 1} {d}", f"M_{c}_{c + (1 + k) * n * n}_x"),
                                       (src.index(c), k))
                       for k, (d, src) in enumerate(zip(self.DIRS, self.sources, strict=True))
                       for c in src}

    def to_gsolve(self, s: str) -> str:
        turn, cells = _turn_board(s, "XO-", self.n * self.n, self.game.name)
        return f"{_rows(cells, self.n)} {'xo'[turn - 1]}"

    def autogui(self, gs: str) -> str:
        return self.position(gs).replace("-", "B")

    def both(self, gs: str) -> tuple[str, str]:
        p = self.position(gs)
        return p, p.replace("-", "B")

    def move(self, gs, name, child):
        return self._names[name][0]

    def order(self, name):
        return self._names[name][1]


class Teeko(Quixo):
    """GamesmanOne's src/games/teeko: '1_' (X to move) or '2_' then 25 cells (X, O, -),
    AutoGUI the same; a drop '<cell>' and a step '<from> <to>' (cells from 0), buttons
    'A_-_<cell>_y' and 'M_<from>_<to>_x', listed by cell."""

    def __init__(self, game):
        Plain.__init__(self, game)
        self.n = game.n

    autogui = Quixo.position
    both = Plain.both  # not Quixo's: no B for a blank

    def move(self, gs, name, child):
        cells = [int(x) - 1 for x in name.split("-")]
        if len(cells) == 1:
            return str(cells[0]), f"A_-_{cells[0]}_y"
        return f"{cells[0]} {cells[1]}", f"M_{cells[0]}_{cells[1]}_x"

    def order(self, name):
        return tuple(int(x) for x in name.split("-"))


class Hexapawn(_RowsAndSide):
    """GamesmanClassic's mhexapawn.c (3 rows): '1_' (White, moving up, to move) or '2_'
    then the cells row by row from Black's side (B, W, -); moves '<col><row><col><row>'
    with columns lettered to end at z and rows counted from Black's side ('x3x2' on 3
    columns), arrows 'M_<from>_<to>_<x: to an empty cell, y: a capture>', listed from the
    last cell back, each pawn's forward step before its captures (right, then left)."""

    def __init__(self, game):
        super().__init__(game)
        self.w, self.h = game.width, game.height

    def to_gsolve(self, s: str) -> str:
        turn, cells = _turn_board(s, "BW-", self.w * self.h, "hexapawn")
        return f"{_rows(cells, self.w)} {'wb'[turn - 1]}"

    FIRST = "w"
    autogui = _RowsAndSide.position

    def _cells(self, name: str) -> tuple[int, int]:
        """gsolve's 'a1-a2' / 'a2xb3' (rows counted from White's side) -> cell numbers."""
        return tuple((self.h - int(sq[1:])) * self.w + ord(sq[0]) - ord("a")
                     for sq in (name[:2], name[3:]))

    def move(self, gs, name, child):
        src, dst = self._cells(name)
        w = self.w

        def square(i: int) -> str:
            return f"{chr(ord('z') - w + i % w + 1)}{i // w + 1}"

        sound = "x" if self.cells(gs)[dst] == "-" else "y"
        return square(src) + square(dst), f"M_{src}_{dst}_{sound}"

    def order(self, name):
        src, dst = self._cells(name)
        side = dst % self.w - src % self.w
        return -src, (0, 1, 2)[0 if side == 0 else 1 if side > 0 else 2]


class BaghChal(Plain):
    """GamesmanClassic's mbaghchal.c (UWAPI's variant 5: 5x5 with diagonals): '1_' (goats
    to move) or '2_' (tigers), the cells row by row from the top (T, G, -), then the goats
    in hand and the goats captured, two digits each (PositionToAutoGUIString, lines
    1634-1647; StringToPosition reads them back, 1617-1632); AutoGUI the same. Moves
    (MoveToString, 1406-1419): a placement '<col><row>', a slide or a capture
    '<col><row><col><row>', columns from 'a' on the left, rows from 1 at the bottom (gsolve's
    names less '-' and 'x'); buttons 'A_-_<cell>_g' and 'M_<from>_<to>_<g|t>' (the mover,
    1649-1666). GenerateMoves (807-833) prepends each move it finds, going through the cells
    in order and each cell's lines by neighbour (diagMoveMatrix5: neighbours ascending, the
    jump behind each), so the list runs from the last cell back, neighbours descending."""

    def __init__(self, game):
        super().__init__(game)
        self.n = game.size

    def _parts(self, gs: str) -> tuple[str, str, int, int]:
        board, side, hand, captured = gs.split()
        return board.replace("/", ""), side, int(hand), int(captured)

    def to_gsolve(self, s: str) -> str:
        cells = self.n * self.n
        if not re.fullmatch(f"[12]_[TG-]{{{cells}}}[0-9]{{4}}", s):
            raise PositionError(f"baghchal position '{s}' should be 1_ (goats to move) or 2_ "
                                f"then {cells} cells of T G - then the goats in hand and "
                                "captured, two digits each")
        board = s[2:2 + cells]
        return (f"{_rows(board, self.n)} {'gt'[int(s[0]) - 1]} {int(s[-4:-2])} "
                f"{int(s[-2:])}")

    def cells(self, gs: str) -> str:
        return self._parts(gs)[0]

    def turn(self, gs: str) -> int:
        return 1 if self._parts(gs)[1] == "g" else 2

    def position(self, gs: str) -> str:
        board, side, hand, captured = self._parts(gs)
        return f"{self.turn(gs)}_{board}{hand:02d}{captured:02d}"

    autogui = position

    def _cells(self, name: str) -> list[int]:
        """gsolve's 'b2', 'a3-b3', 'a3xc3' -> cell numbers (rows from the top)."""
        return [(self.n - int(sq[1:])) * self.n + ord(sq[0]) - ord("a")
                for sq in re.split("[-x]", name)]

    def move(self, gs, name, child):
        cells = self._cells(name)
        text = name.replace("-", "").replace("x", "")
        if len(cells) == 1:
            return text, f"A_-_{cells[0]}_g"
        return text, f"M_{cells[0]}_{cells[1]}_{'gt'[self.turn(gs) - 1]}"

    def order(self, name):
        cells = self._cells(name)
        src, dst = cells[0], cells[-1]
        return -src, -((src + dst) // 2 if "x" in name else dst)  # a jump: by the goat jumped


class Quarto(Plain):
    """GamesmanClassic's Quarto (UWAPI's quarto 0, 4x4 with 16 pieces), which Classic
    answers from core/quartodb.c, not from a module: '1_' or '2_' (Classic flips the turn
    for each child, so it changes with every move, the first give included), the 16 cells
    row by row ('A' + the piece's number, '-'), then the piece to place ('-': none),
    AutoGUI the same (lines 651, 686; mquarto.c's start '1_-----------------', 313-316).
    Moves (quartodb.c 660-730): the first give '<the piece's 4 bits>' ('0101'), button
    'A_<piece>_<272 + piece>'; a placement and give '<cell from 1>-<bits>',
    'A_<piece given>_<16 + 16 cell + piece>'; a placement that ends the game
    '<cell from 1>', 'A_-_<cell>'; listed by cell, then by the piece given. (Classic's
    buttons carry no sound.) On other boards: the same with n*n cells and 2**attributes
    pieces in place of the 16s."""

    def __init__(self, game):
        super().__init__(game)
        self.n, self.pieces, self.bits = game.size, game.npieces, game.attributes

    def _parts(self, gs: str) -> tuple[str, str]:
        board, hand = gs.split()
        return board.replace("/", ""), hand

    def _letter(self, digit: str) -> str:
        return "-" if digit == "-" else chr(ord("A") + int(digit, 16))

    def turn(self, gs: str) -> int:
        """1 + the moves made, mod 2: the first give, then one a placed piece (a placement
        that ends the game gives nothing, but is a move)."""
        board, hand = self._parts(gs)
        placed = sum(c != "-" for c in board)
        return 1 if placed == 0 and hand == "-" else 1 + (placed + 1) % 2

    def cells(self, gs: str) -> str:
        board, hand = self._parts(gs)
        return "".join(self._letter(c) for c in board + hand)

    def position(self, gs: str) -> str:
        return f"{self.turn(gs)}_{self.cells(gs)}"

    autogui = position

    def to_gsolve(self, s: str) -> str:
        letters = "".join(chr(ord("A") + i) for i in range(self.pieces))
        cells = self.n * self.n
        if not re.fullmatch(f"[12]_[{letters}-]{{{cells + 1}}}", s):
            raise PositionError(f"quarto position '{s}' should be 1_ or 2_ then {cells} cells "
                                f"and the piece to place, each {letters[0]}..{letters[-1]} "
                                "or -")
        hexed = "".join("-" if c == "-" else format(ord(c) - ord("A"), "x") for c in s[2:])
        gs = f"{_rows(hexed[:cells], self.n)} {hexed[cells]}"
        if int(s[0]) != self.turn(gs):
            raise PositionError(f"quarto position '{s}': the turn does not match the pieces "
                                "(the first player gives the first piece)")
        return gs

    def move(self, gs, name, child):
        cells, p = self.n * self.n, self.pieces
        words = name.split()
        if words[0] == "give":
            piece = int(words[1], 16)
            return (format(piece, f"0{self.bits}b"),
                    f"A_{self._letter(words[1])}_{cells + cells * p + piece}")
        cell = int(words[0]) - 1
        if len(words) == 1:
            return str(cell + 1), f"A_-_{cell}"
        piece = int(words[2], 16)
        return (f"{cell + 1}-{format(piece, f'0{self.bits}b')}",
                f"A_{self._letter(words[2])}_{cells + cell * p + piece}")

    def order(self, name):
        words = name.split()
        if words[0] == "give":
            return -1, int(words[1], 16)
        return int(words[0]), int(words[2], 16) if len(words) == 3 else -1
