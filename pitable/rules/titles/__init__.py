"""The titles of the series, one module each, and the registry that finds them by name.

Everything about a title is on its class (see :class:`~pitable.rules.base.Title`): its
names, what a roll allows, its words, its solo rules and levels, its sheet generator and
the sheet's invariants. The rest of pitable asks the title object and never names a title.

A title from outside this package is one module: a subclass of ``Title`` decorated with
:func:`register` (or passed to :func:`registered` for a while, as a test does)::

    from pitable.rules.titles import Title, register

    @register
    class Atlantis(Title):
        key = "atlantis"
        ...

After that ``pitable options atlantis 1,2,3``, ``pitable sheet atlantis``, ``pitable level
atlantis`` and the box's menu know it, once the module is imported.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TypeVar

from pitable.errors import UnknownTitle, quoted
from pitable.rules.base import Title
from pitable.rules.titles.island import Island
from pitable.rules.titles.temple import Temple
from pitable.rules.titles.valley import Valley

T = TypeVar("T", bound=type[Title])

#: Every registered title, in the order registered; the first is the default.
_TITLES: list[Title] = []
#: Every name (key and aliases) a title answers to.
_NAMES: dict[str, Title] = {}

#: The class-level facts a title must set (the others have defaults on :class:`Title`).
_REQUIRED = (
    "key",
    "name",
    "short_name",
    "hazard_name",
    "hazard_symbol",
    "green_effect",
    "level_thresholds",
    "solo_placement",
)


def register(cls: T) -> T:
    """Class decorator: make a title findable by its key and aliases, after the others.

    Raises :class:`TypeError` for a class that leaves a required fact or hook unset, and
    :class:`ValueError` for a name another title already answers to.
    """
    missing = [name for name in _REQUIRED if not hasattr(cls, name)]
    if missing:
        raise TypeError(f"title {cls.__name__} does not set {', '.join(missing)}")
    title = cls()  # TypeError from abc when a hook is left abstract
    names = [n.strip().lower() for n in (cls.key, *cls.aliases)]
    for name in names:
        taken = _NAMES.get(name)
        if taken is not None:
            raise ValueError(f"title name {name!r} of {cls.name} is taken by {taken.name}")
    _TITLES.append(title)
    _NAMES.update(dict.fromkeys(names, title))
    return cls


def unregister(cls: type[Title]) -> None:
    """Forget the title of ``cls``, which must be registered (a test's title, after it)."""
    title = next((t for t in _TITLES if type(t) is cls), None)
    if title is None:
        raise ValueError(f"title {cls.__name__} is not registered")
    _TITLES.remove(title)
    for name in [n for n, t in _NAMES.items() if t is title]:
        del _NAMES[name]


@contextlib.contextmanager
def registered(cls: type[Title]) -> Iterator[Title]:
    """Register ``cls`` for the length of a ``with`` block, and yield its title."""
    register(cls)
    try:
        yield _NAMES[cls.key.strip().lower()]
    finally:
        unregister(cls)


def find_title(name: str) -> Title:
    """The title registered under ``name`` (``valley``, ``skull-island``...), in any case."""
    try:
        return _NAMES[name.strip().lower()]
    except KeyError:
        raise UnknownTitle(
            f"unknown game {quoted(name)}: expected one of {', '.join(title_keys())}"
        ) from None


def as_title(title: Title | str) -> Title:
    """``title`` itself, or the title registered under that name."""
    return title if isinstance(title, Title) else find_title(title)


def default_title() -> Title:
    """The title a box plays when no title is set: the first registered, the Valley."""
    return _TITLES[0]


def title_or_default(name: str | None) -> Title:
    """The title a setting names; no setting (None) means :func:`default_title`."""
    return default_title() if name is None else find_title(name)


def title_keys() -> list[str]:
    """The key of every registered title, in order."""
    return [t.key for t in _TITLES]


def all_titles() -> list[Title]:
    """Every registered title, in order."""
    return list(_TITLES)


def title_choices() -> str:
    """``valley, island or temple (or wiraqocha, skull-island, apikhabou)``: every key, and
    one alias each to show that the games' own names work too (help texts and errors)."""
    keys = title_keys()
    text = ", ".join(keys[:-1]) + f" or {keys[-1]}" if len(keys) > 1 else keys[0]
    aliases = ", ".join(t.aliases[0] for t in _TITLES if t.aliases)
    return f"{text} (or {aliases})" if aliases else text


# The series' own titles, in the order they were published: the first is the default.
for _cls in (Valley, Island, Temple):
    register(_cls)

__all__ = [
    "Island",
    "Temple",
    "Title",
    "Valley",
    "all_titles",
    "as_title",
    "default_title",
    "find_title",
    "register",
    "registered",
    "title_choices",
    "title_keys",
    "title_or_default",
    "unregister",
]
