"""Fuzzing the inputs a user types: position strings (random text, and valid positions
mutated) into every game's parser, and variant texts into the command. Nothing may come
out but a user error: PositionError from a parser, one line with exit 2 from the command;
a parser that accepts a string must give a hash that is a position."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import available, game_class, get_game
from games.base import PositionError
from solver.command.check import _Rules, _sample
from solver.command.cli import main
from solver.command.options import one_line

GAMES = available()
SETTINGS = settings(max_examples=40, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
_cache: dict[str, tuple] = {}


def _game(name):
    """The default variant and a few of its reachable positions as strings."""
    if name not in _cache:
        game = get_game(name)
        valid = [game.to_string(h) for h in _sample(game, _Rules(game), 40, random.Random(1))]
        alphabet = sorted(set("".join(valid)) | set(" /-,.@x0123456789wbWB\t\n\x00é"))
        _cache[name] = game, valid, "".join(alphabet)
    return _cache[name]


def _parse(game, text: str) -> None:
    try:
        h = game.from_string(text)
    except PositionError as e:
        assert len(one_line(e)) < 400  # what the command prints: one line, shortened
        return
    assert isinstance(h, int) and 0 <= h < game.hash_size, (text, h)
    assert game.from_string(game.to_string(h)) == h, text


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(data=st.data())
def test_parser_random_text(name, data):
    game, _, alphabet = _game(name)
    text = data.draw(st.one_of(st.text(max_size=60),
                               st.text(alphabet=alphabet, max_size=80)))
    _parse(game, text)


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(data=st.data())
def test_parser_mutated_positions(name, data):
    game, valid, alphabet = _game(name)
    chars = list(data.draw(st.sampled_from(valid)))
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["replace", "insert", "delete", "swap", "repeat"]))
        i = data.draw(st.integers(0, max(0, len(chars) - 1)))
        c = data.draw(st.sampled_from(alphabet))
        if op == "replace" and chars:
            chars[i] = c
        elif op == "insert":
            chars.insert(i, c)
        elif op == "delete" and chars:
            del chars[i]
        elif op == "swap" and chars:
            j = data.draw(st.integers(0, len(chars) - 1))
            chars[i], chars[j] = chars[j], chars[i]
        elif op == "repeat":
            chars[i:i] = chars[i:i + data.draw(st.integers(1, 8))]
    _parse(game, "".join(chars))


def _variant_texts(name):
    keys = list(game_class(name).variants) + ["size", "x", ""]
    number = st.one_of(st.integers(-3, 12), st.integers(-10**30, 10**30),
                       st.sampled_from(["", "abc", "1.5", "0x10", "KQk", "=", " 4 "]))
    pair = st.builds(lambda k, v: f"{k}={v}", st.sampled_from(keys), number)
    return st.one_of(st.lists(pair, max_size=4).map(",".join),
                     st.text(alphabet="abcdefghijklmnopqrstuvwxyz=,-0123456789 KQkr",
                             max_size=30))


@pytest.mark.parametrize("name", GAMES)
@SETTINGS
@given(data=st.data())
def test_variant_texts_to_the_command(name, data, tmp_path, capsys):
    text = data.draw(_variant_texts(name))
    code = main(["query", name, "-V", text, "--db", str(tmp_path / "none")])
    out, err = capsys.readouterr()
    # a refused variant, or a good one with no database here: one line, exit 2
    assert code == 2, (text, err)
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err, (text, err)
