"""Where the config meets the rules: the ``[box]`` title checked against the registry.

The config keeps the title as written (or None for the default title), since it imports
nothing from the layers above it; ``pitable run``, ``pitable sim`` and ``config check``
load the file through :func:`load_checked`, which also finds its title among the rules'.
"""

from __future__ import annotations

import json
from pathlib import Path

from pitable.config import BoxConfig, LoadedConfig, load_default_or
from pitable.errors import ConfigError, UnknownTitle
from pitable.rules import Title, all_titles, default_title, find_title


def configured_title(box: BoxConfig) -> Title:
    """The title ``[box] title`` names (by key or alias); :func:`default_title` when unset.

    Raises :class:`ConfigError` naming ``box.title`` and the titles there are.
    """
    if box.title is None:
        return default_title()
    try:
        return find_title(box.title)
    except UnknownTitle:
        raise ConfigError(
            f"box.title: expected {title_choices()}, got {json.dumps(box.title)}"
        ) from None


def title_choices() -> str:
    """``valley, island or temple (or wiraqocha, skull-island, apikhabou)``: every key, and
    one alias each to show that the games' own names work too."""
    titles = all_titles()
    keys = [t.key for t in titles]
    text = ", ".join(keys[:-1]) + f" or {keys[-1]}" if len(keys) > 1 else keys[0]
    aliases = ", ".join(t.aliases[0] for t in titles if t.aliases)
    return f"{text} (or {aliases})" if aliases else text


def load_checked(path: str | Path | None) -> LoadedConfig:
    """:func:`~pitable.config.load_default_or`, with the title checked against the rules.

    A wrong title is one :class:`ConfigError` naming the file and ``box.title``.
    """
    loaded = load_default_or(path)
    try:
        configured_title(loaded.config.box)
    except ConfigError as exc:
        if loaded.source is None:
            raise
        raise ConfigError(f"{loaded.source}: {exc}") from None
    return loaded
