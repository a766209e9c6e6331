"""Games: one module each, and the registry that maps names to them."""

import hashing  # noqa: F401  (first: it pins numba's cache folder, hashing/numba_cache.py)
from games.registry import GAMES, game_class, get_game

__all__ = ["GAMES", "get_game", "game_class"]
