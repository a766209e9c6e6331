"""Games: one module each, and the registry that maps names to them."""

from games.registry import GAMES, game_class, get_game

__all__ = ["GAMES", "get_game", "game_class"]
