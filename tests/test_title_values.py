"""What a title defines for itself (its green face, its kinds of map position, its tokens,
its moves) stays one value through a copy or a pickle, so that ``is`` still tells it."""

from __future__ import annotations

import copy
import pickle

import pytest

from pitable.rules import Roll, all_titles
from pitable.rules.bot import play_games
from pitable.rules.scoring import Token, alphabet
from pitable.rules.sheets import generate


def test_a_copied_or_pickled_sheet_roll_and_game_keep_their_titles_own_values() -> None:
    for title in all_titles():
        sheet = generate(title, 11)
        options = title.options(Roll.from_str("*,2,3"))
        game = play_games(sheet, 1, dice_seed=4)[0]
        for again in (copy.deepcopy, lambda x: pickle.loads(pickle.dumps(x))):
            assert again(options).green is title.green_effect
            kinds = [k for row in again(sheet).grid for k in row]
            assert all(k is mine for k, mine in zip(kinds, (k for row in sheet.grid for k in row),
                                                    strict=True))
            acts = [a.act for t in again(game).turns for a in t.actions]
            assert all(a is b for a, b in zip(acts, (a.act for t in game.turns for a in t.actions),
                                              strict=True))
        for token in alphabet().plain.values():
            assert pickle.loads(pickle.dumps(token)) is token
        assert all(Token.of(kind) is Token.of(kind) for kind in title.kinds)


def test_a_map_holding_a_kind_its_title_does_not_declare_is_refused() -> None:
    """A title's text maps and finished sheets are read with the kinds it declares: a map
    with another kind in it could not be read back, so it is never handed out."""
    from pitable.errors import SheetError
    from pitable.rules import registered
    from tests.toy_title import JACK, ToyCupboard

    class Undeclared(ToyCupboard):
        key = "undeclared-cupboard"
        aliases = ()
        kinds = ()

    with registered(Undeclared) as title, pytest.raises(SheetError, match="'J'"):
        generate(title, 1)
    assert JACK in ToyCupboard.kinds
