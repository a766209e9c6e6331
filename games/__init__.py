"""Games: one module each, and the registry of names -> game classes. A game registers
itself: its class carries ``@register``.

The registry finds games in two places: the modules of this package (each imported once,
on the first question, and registering its game as it loads), and the entry-point group
``gsolve.games`` of other installed packages, whose names are known without importing
them (an entry point names a module that registers the game, or ``module:Class``)::

    [project.entry-points."gsolve.games"]
    nim = "mygames.nim"

A package's game named like one of gsolve's own is ignored: the built-in game answers.
"""


from __future__ import annotations

import importlib
import pkgutil
import sys

import numpy as np

import hashing  # noqa: F401  (first: it pins numba's cache folder, hashing/numba_cache.py)
from games.base import Game, GsolveError, UnknownGameError, parse_variant

__all__ = ["available", "get_game", "game_class", "register"]

ENTRY_POINTS = "gsolve.games"
_NOT_GAMES = {"base"}  # modules of games/ that define no game (nor import one)

_classes: dict[str, type[Game]] = {}  # every game registered so far, by name
_scanned: list[bool] = []  # [True] once the modules of games/ are imported
_entry_points: dict[tuple[str, ...], dict] = {}  # sys.path -> {name: entry point}


def register(cls: type[Game]) -> type[Game]:
    """Class decorator: make the game `cls` known by its `name`. A second class under a
    name already taken is an error (a class reloaded under its own name replaces itself)."""
    if not (isinstance(cls, type) and issubclass(cls, Game)
            and isinstance(cls.__dict__.get("name"), str)):
        raise TypeError(f"register() takes a Game subclass with its own name, not {cls!r}")
    old = _classes.get(cls.name)
    if old is not None and _qualified(old) != _qualified(cls):
        raise TypeError(f"game '{cls.name}' registered twice: by {_qualified(old)} and "
                        f"{_qualified(cls)}")
    _classes[cls.name] = cls
    return cls


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _scan() -> None:
    """Import every module of this package once: each registers its game as it loads."""
    if not _scanned:
        package = sys.modules[__name__]
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            if info.name not in _NOT_GAMES and not info.name.startswith("_"):
                importlib.import_module(f"{package.__name__}.{info.name}")
        _scanned.append(True)


def _installed() -> dict:
    """Entry points of group gsolve.games by name (the first of each), per sys.path: a
    package put on the path later is seen."""
    key = tuple(sys.path)
    if key not in _entry_points:
        from importlib.metadata import entry_points

        found: dict = {}
        for ep in entry_points(group=ENTRY_POINTS):
            found.setdefault(ep.name, ep)
        _entry_points.clear()
        _entry_points[key] = found
    return _entry_points[key]


def available() -> list[str]:
    """Every game's name, sorted: gsolve's own, those registered since, and those of
    installed packages."""
    _scan()
    return sorted({*_classes, *_installed()})


def game_class(name: str) -> type[Game]:
    _scan()
    if name in _classes:
        return _classes[name]
    ep = _installed().get(name)
    if ep is None:
        known = ", ".join(available())
        raise UnknownGameError(f"unknown game '{name}' (known games: {known})")
    loaded = ep.load()
    if name not in _classes and isinstance(loaded, type) and issubclass(loaded, Game) \
            and loaded.__dict__.get("name") == name:
        register(loaded)
    if name not in _classes:
        raise GsolveError(f"the installed game '{name}' ({ENTRY_POINTS} entry point "
                          f"{ep.value}) registers no game of that name")
    return _classes[name]


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
