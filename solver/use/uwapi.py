"""gsolve as a data provider of GamesCrafters' Universal Web API (UWAPI).

UWAPI (GamesCrafters/GamesCraftersUWAPI, a Flask server) asks a data provider about each
game variant, by the provider's own game and variant ids; `gsolve serve` answers both
protocols it speaks to two-player games:

    GamesmanClassic   GET /<game>/<variant>/start/             {"autoguiPosition", "position"}
                      GET /<game>/<variant>/positions/?p=POS   the position and its moves
    GamesmanOne       GET /<game>/<variant>/                   {"position", "autoguiPosition"}
                      GET /<game>/<variant>/POS                the position, moves, partMoves

(GamesmanPuzzles' URLs are GamesmanClassic's.) A position answers `position`,
`autoguiPosition`, `positionValue` (win, lose, tie, draw), `remoteness` and `moves`, each
move with its child's `position`, `autoguiPosition`, `positionValue` and `remoteness` and
its own `move` and `autoguiMove`, in the provider's key order and move order. As the
providers do, GamesmanClassic leaves out a draw's remoteness and GamesmanOne writes 0; a
position that parses but that the database never reached (the start cannot lead to it) is
`undecided` (Classic: what its database reads there) or `unsolved` (One), remoteness 0.

TABLE maps the provider ids UWAPI uses today to gsolve's game and variant, with the strings
class (solver/use/autogui.py) that writes that provider's position strings. Any other
solved game variant answers under gsolve's own names: /<gsolve game>/<variant key, or
`default`>/..., with gsolve's position strings and the plain AutoGUI form.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.base import GsolveError, PositionError
from solver.use import autogui

CLASSIC, ONE, PUZZLES = "GamesmanClassic", "GamesmanOne", "GamesmanPuzzles"
MAX_POSITION = 4096  # characters: longer than any game's position string


@dataclass(frozen=True)
class Entry:
    """One game variant UWAPI lists: its provider and the ids UWAPI asks that provider
    with, UWAPI's own ids (GamesmanUni's), and gsolve's game and variant."""

    provider: str
    game_id: str
    variant_id: str
    uwapi_game: str
    uwapi_variant: str
    game: str
    variant: str
    strings: type


TABLE: tuple[Entry, ...] = (
    Entry(CLASSIC, "ttt", "3", "tictactoe", "regular", "tictactoe", "", autogui.TicTacToe),
    Entry(CLASSIC, "connect4", "1", "connect4", "6x6", "connect4",
          "width=6,height=6,connect=4", autogui.Connect4),
    Entry(CLASSIC, "connect4", "2", "connect4", "6x7", "connect4",
          "width=7,height=6,connect=4", autogui.Connect4),
    *(Entry(CLASSIC, "hexapawn", str(w - 3), "hexapawn", str(w - 3), "hexapawn",
            f"width={w},height=3", autogui.Hexapawn) for w in (3, 4, 5, 6)),
    Entry(CLASSIC, "baghchal", "5", "baghchal", "regular", "baghchal",
          "size=5,tigers=4,goats=20,captures=5", autogui.BaghChal),
    Entry(CLASSIC, "quarto", "0", "quarto", "regular", "quarto", "size=4,attributes=4",
          autogui.Quarto),
    Entry(ONE, "quixo", "0", "quixo", "5x5", "quixo", "size=5", autogui.Quixo),
    Entry(ONE, "quixo", "1", "quixo", "4x4", "quixo", "size=4", autogui.Quixo),
    Entry(ONE, "quixo", "2", "quixo", "3x3", "quixo", "size=3", autogui.Quixo),
    Entry(ONE, "teeko", "0", "teeko", "standard", "teeko", "size=5,pieces=4,advanced=0",
          autogui.Teeko),
    Entry(ONE, "teeko", "1", "teeko", "advanced", "teeko", "size=5,pieces=4,advanced=1",
          autogui.Teeko),
)
BY_PROVIDER = {(e.game_id, e.variant_id): e for e in TABLE}


def entry_of(game: str, key: str) -> Entry | None:
    """The table's entry for gsolve's game and normalised variant key, if UWAPI lists it."""
    for e in TABLE:
        if e.game == game and (e.variant or "default") == key:
            return e
    return None


def resolve(game_id: str, variant_id: str) -> tuple[str, str, type]:
    """A provider URL's ids -> gsolve's game, variant text and strings class."""
    e = BY_PROVIDER.get((game_id, variant_id))
    if e is not None:
        return e.game, e.variant, e.strings
    return game_id, "" if variant_id == "default" else variant_id, autogui.Plain


def _node(protocol: str, pos: str, gui: str, found) -> dict:
    """A position's fields in the provider's order (see the module doc for the words)."""
    if found is None:
        value, rem = ("unsolved" if protocol == ONE else "undecided"), 0
    else:
        value, rem = found
        if value == "draw" and protocol == ONE:
            rem = 0
    out = {"position": pos, "autoguiPosition": gui} if protocol == ONE else {
        "autoguiPosition": gui, "position": pos}
    out["positionValue"] = value
    if rem is not None:
        out["remoteness"] = rem
    return out


def _lookup(solved, h: int):
    try:
        return solved.lookup(h)
    except PositionError:  # parses, but the start cannot lead to it
        return None


def position_data(protocol: str, strings, solved, given: str) -> dict:
    """The provider's answer for one position string (its own string, not gsolve's).
    Runs under the database's lock: the game's move buffers are shared."""
    game = solved.game
    h = game.from_string(strings.to_gsolve(given))
    gs = game.to_string(h)
    head = _node(protocol, *strings.both(gs), _lookup(solved, h))
    if protocol != ONE:  # Classic: the position first
        head = {"position": head.pop("position"), **head}
    moves = []
    for name, child in sorted(game.moves(h), key=lambda m: strings.order(m[0])):
        cs = game.to_string(child)
        move, gui = strings.move(gs, name, cs)
        m = _node(protocol, *strings.both(cs), _lookup(solved, child))
        m["move"] = move
        m["autoguiMove"] = gui
        moves.append(m)
    head["moves"] = moves
    if protocol == ONE:
        head["partMoves"] = []
    return head


def start_data(protocol: str, strings, game) -> dict:
    gs = game.to_string(game.start)
    pos, gui = strings.position(gs), strings.autogui(gs)
    if protocol == ONE:
        return {"position": pos, "autoguiPosition": gui}
    return {"autoguiPosition": gui, "position": pos}


def add_routes(app, dbs, reply) -> None:
    """The provider routes on the app; `dbs` is serve's Databases, `reply` its JSON."""

    def strings_of(game_id: str, variant_id: str):
        """(game, variant, the open database, its strings object: made once while the
        database stays open)."""
        game, variant, cls = resolve(game_id, variant_id)
        opened = dbs.get(game, variant)  # no database: one error, before anything else
        strings = opened.made.get(cls)
        if strings is None:
            strings = opened.made.setdefault(cls, cls(opened.solved.game))
        return game, variant, opened, strings

    def start(protocol, game_id, variant_id):
        game, variant, opened, strings = strings_of(game_id, variant_id)
        return reply(start_data(protocol, strings, opened.solved.game))

    def position(protocol, game_id, variant_id, given):
        if not given:
            raise GsolveError("name a position: ?p=POSITION")
        if len(given) > MAX_POSITION:
            raise PositionError(f"a position of {len(given)} characters: at most "
                                f"{MAX_POSITION}")
        game, variant, opened, strings = strings_of(game_id, variant_id)
        return reply(dbs.run(game, variant,
                             lambda solved: position_data(protocol, strings, solved, given),
                             opened))

    @app.get("/<game_id>/<variant_id>/start/")
    def classic_start(req, game_id, variant_id):
        return start(CLASSIC, game_id, variant_id)

    @app.get("/<game_id>/<variant_id>/positions/")
    def classic_position(req, game_id, variant_id):
        return position(CLASSIC, game_id, variant_id, req.args.get("p", ""))

    @app.get("/<game_id>/<variant_id>/")
    def one_start(req, game_id, variant_id):
        return start(ONE, game_id, variant_id)

    @app.get("/<game_id>/<variant_id>/<path:given>")
    def one_position(req, game_id, variant_id, given):
        return position(ONE, game_id, variant_id, given)
