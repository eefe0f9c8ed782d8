"""The rules a move breaks, in the player's language: every breach the validator and each
title's replay rules name is a message of the catalogues, translated in every language;
the English the validator prints is the same words, filled in alike."""

from __future__ import annotations

import ast
import inspect
import itertools
import random
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitable import i18n
from pitable.rules import Title, all_titles, find_title, registered
from pitable.rules.bot.model import Act, Action
from pitable.rules.dice import Roll
from pitable.rules.phone import PlayerSheet
from pitable.rules.sheets import Side
from pitable.rules.validate import Breach, Replay
from tests.support.i18n import title_package
from tests.toy_title import PlayedToyCupboard

TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]


def _rule_modules() -> list[Path]:
    """The modules that name breaches: the validator, the player's sheet, and each title's
    replay rules (found through the registry, so a new title's are checked too)."""
    from pitable.rules import phone, validate

    modules = [Path(validate.__file__), Path(phone.__file__)]
    for title in all_titles():
        rules = title.replay_rules()
        if rules is not None and title_package(title) is not None:
            modules.append(Path(inspect.getfile(sys.modules[rules.turn.__module__])))
    return modules


def _is_marker(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "N_")


class _Rules(ast.NodeVisitor):
    """The rules a module's breaches name: each the message of an ``N_`` call, reached from
    the rule argument of a ``breach()`` call or a ``Breach()`` through the names bound to it;
    any rule written as plain text or an f-string is kept in :attr:`unmarked`."""

    def __init__(self, tree: ast.Module) -> None:
        self.bound: dict[str, list[ast.AST]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, ast.For):
                self._bind(node.target, node.iter, loop=True)
        self.messages: set[str] = set()
        self.unmarked: list[str] = []
        self.calls = 0
        self.visit(tree)

    def _bind(self, target: ast.AST, value: ast.AST, *, loop: bool = False) -> None:
        if isinstance(target, ast.Name):
            self.bound.setdefault(target.id, []).append(value)
        elif isinstance(target, ast.Tuple):
            for k, element in enumerate(target.elts):
                if isinstance(value, ast.Tuple) and not loop:
                    self._bind(element, value.elts[k])
                else:
                    # A loop's tuple target (or an unpacked value): what it iterates.
                    self._bind(element, value, loop=loop)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        index = None
        if isinstance(func, ast.Attribute) and func.attr == "breach":
            index = 1
        elif isinstance(func, ast.Name) and func.id == "Breach":
            index = 2
        if index is not None and len(node.args) > index:
            self.calls += 1
            self._rule(node.args[index], set())
        self.generic_visit(node)

    def _rule(self, node: ast.AST, seen: set[str]) -> None:
        if _is_marker(node):
            assert isinstance(node, ast.Call)
            (message,) = node.args
            assert isinstance(message, ast.Constant)
            self.messages.add(message.value)
        elif isinstance(node, ast.Name) and node.id not in seen:
            # A parameter is bound by its callers, whose own calls are checked.
            for value in self.bound.get(node.id, []):
                self._rule(value, seen | {node.id})
        elif isinstance(node, ast.IfExp):
            self._rule(node.body, seen)
            self._rule(node.orelse, seen)
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                self._rule(element, seen)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            self.unmarked.append(repr(node.value))
        elif isinstance(node, ast.JoinedStr | ast.BinOp):
            self.unmarked.append(ast.unparse(node))


def _module_rules() -> Iterator[tuple[Path, _Rules]]:
    for path in _rule_modules():
        yield path, _Rules(ast.parse(path.read_text(), str(path)))


def test_every_breach_names_a_marked_message() -> None:
    """No rule is written as plain text or an f-string: each is a message of the
    catalogues, its fields given apart."""
    found = dict(_module_rules())
    assert len(found) >= 5, "the validator, the player's sheet and each title's replay rules"
    for path, rules in found.items():
        assert rules.calls and rules.unmarked == [], (path, rules.unmarked)
    every = set().union(*(rules.messages for rules in found.values()))
    assert {"the roll does not give this number", "a {name} roll draws one {name}, not {count}",
            "no roll to play yet", "{count} spaces"} <= every


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_breach_message_is_translated(lang: str) -> None:
    tr = i18n.translator(lang)
    for path, rules in _module_rules():
        assert rules.messages, path
        untranslated = sorted(m for m in rules.messages if tr.gettext(m) == m)
        assert untranslated == [], (lang, path)


def _refusals(title: Title, seed: int) -> Iterator[Breach]:
    """The breaches of moves a solo game refuses, turn by turn: every number, a hazard and a
    cross-out on every space, and each legal move made twice."""
    sheet = title.generate_sheet(Side.A, seed)
    phone = PlayerSheet(sheet, solo=True)
    rng = random.Random(seed)
    faces = [1, 2, 3, 4, 5, "*"]
    cells = sorted(phone.replay().kind)
    for _ in range(12):
        phone.start_turn(Roll.from_str(",".join(str(rng.choice(faces)) for _ in range(3))))
        tries = [Action(Act.WRITE, (c,), n) for c in cells for n in (1, 15)]
        tries += [Action(act, (c,)) for c in cells for act in (Act.HAZARD, Act.CROSS)]
        for action in tries:
            yield from phone.breaches(action)
        yield from phone.warnings()
        legal = phone.legal()
        if legal:
            move = rng.choice(legal)
            phone.play(move)
            yield from phone.breaches(move)
        phone.finish_turn()
        yield from phone.breaches(Action(Act.WRITE, (cells[0],), 1))
        if phone.over():
            break


@pytest.mark.parametrize("key", [t.key for t in all_titles() if t.replay_rules() is not None])
def test_the_rules_a_player_breaks_are_said_in_their_language(key: str) -> None:
    title = find_title(key)
    found = {b.message: b for b in itertools.chain(_refusals(title, 3), _refusals(title, 8))}
    assert len(found) >= 6, sorted(found)
    for lang in TRANSLATED:
        tr = i18n.translator(lang)
        hazard = tr.gettext(title.hazard_name)
        for breach in found.values():
            words = breach.words(tr)
            assert words != breach.rule and "{" not in words, (lang, breach.rule, words)
            if "{name}" in breach.message:
                assert hazard in words, (lang, words)


def test_a_hazards_name_in_a_rule_is_said_in_the_rules_language() -> None:
    phone = PlayerSheet(find_title("valley").generate_sheet(Side.A, 1), solo=True)
    phone.start_turn(Roll.from_str("2,3,*"))
    cell = next(a.cell for a in phone.legal() if a.act is Act.HAZARD)
    (breach,) = phone.breaches(Action(Act.WRITE, (cell,), 5))
    assert breach.rule == "a snake was rolled: the other dice are ignored"
    assert breach.words(i18n.translator("fr")) == \
        "face serpent au lancer\u202f: les autres dés sont ignorés"
    assert breach.words(i18n.translator("de")) == \
        "Schlange gewürfelt: die anderen Würfel zählen nicht"
    (short,) = phone.warnings()
    assert short.rule == "a snake roll draws one snake, not 0"
    assert short.words(i18n.translator("es")) == "al salir serpiente se dibuja 1 serpiente, no 0"


def test_the_validators_english_is_the_rule_filled_in() -> None:
    """What ``pitable`` prints is the English message with its fields, numbers and lists as
    Python writes them, and a sheet's text quoted."""
    replay = Replay(find_title("valley").generate_sheet(Side.A, 1))
    replay.turn = 3
    replay.breach(None, "the numbers {numbers} are not a grouping of the dice",
                  numbers=[3, 12])
    replay.breach(Action(Act.WRITE, ((0, 1),), 7), "row {row}, column {column} shows {shown},"
                  " not what the moves leave", (0, 1), row=1, column=2, shown=repr("7"))
    first, second = replay.found
    assert str(first) == "turn 3: the numbers [3, 12] are not a grouping of the dice"
    assert second.rule == "row 1, column 2 shows '7', not what the moves leave"
    assert str(second).endswith("not what the moves leave (row 1, column 2)")


def test_a_title_from_elsewhere_says_its_rules_as_written() -> None:
    with registered(PlayedToyCupboard):
        title = find_title("played-toy")
        found = {b.message: b for b in _refusals(title, 2)}
    assert "not an empty space" in found
    fr = i18n.translator("fr")
    assert all(b.words(fr) == b.rule for b in found.values()
               if b.message in {"not an empty space", "a turn fills a space"})
