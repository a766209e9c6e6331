"""Names -> game classes. Modules are imported on first use, so `gsolve list` stays fast."""

from __future__ import annotations

import importlib

import numpy as np

from games.base import Game, GsolveError, UnknownGameError, parse_variant

# name -> (module, class name)
GAMES: dict[str, tuple[str, str]] = {
    "tictactoe": ("games.tictactoe", "TicTacToe"),
    "connect4": ("games.connect4", "Connect4"),
    "hexapawn": ("games.hexapawn", "Hexapawn"),
    "hanoi": ("games.hanoi", "Hanoi"),
    "pegsolitaire": ("games.pegsolitaire", "PegSolitaire"),
    "morris": ("games.morris", "Morris"),
    "tiles": ("games.tiles", "Tiles"),
    "baghchal": ("games.baghchal", "BaghChal"),
    "quarto": ("games.quarto", "Quarto"),
    "topitop": ("games.topitop", "Topitop"),
    "rubikscheckers": ("games.rubikscheckers", "RubiksCheckers"),
    "cambio": ("games.cambio", "Cambio"),
    "quixo": ("games.quixo", "Quixo"),
    "teeko": ("games.teeko", "Teeko"),
    "quickchess": ("games.quickchess", "QuickChess"),
}


def available() -> list[str]:
    """Registered games whose module is present (others are being written)."""
    import importlib.util

    return sorted(n for n, (m, _) in GAMES.items() if importlib.util.find_spec(m) is not None)


def game_class(name: str) -> type[Game]:
    if name not in available():
        known = ", ".join(available())
        raise UnknownGameError(f"unknown game '{name}' (known games: {known})")
    module, cls = GAMES[name]
    return getattr(importlib.import_module(module), cls)


def get_game(name: str, variant: str | dict | None = None) -> Game:
    """The game `name` in the variant given as 'k=v,...' text or a dict."""
    cls = game_class(name)
    given = variant if isinstance(variant, dict) else parse_variant(variant)
    try:
        with np.errstate(over="raise"):  # a hash that overflows 64 bits: refuse, not wrap
            return cls(**given)
    except GsolveError:
        raise
    except (ValueError, MemoryError) as e:
        raise GsolveError(f"{name} variant {given}: {e}") from None
    except (OverflowError, FloatingPointError):
        raise GsolveError(f"{name} variant {given} is too large: its positions do not fit "
                          "a 64-bit hash") from None
