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
from pitable.rules import Title, default_title, find_title
from pitable.rules.titles import title_choices


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
