"""Games: one module each, each registering its game (games/registry.py finds them)."""

import hashing  # noqa: F401  (first: it pins numba's cache folder, hashing/numba_cache.py)
from games.registry import available, game_class, get_game, register

__all__ = ["available", "get_game", "game_class", "register"]
