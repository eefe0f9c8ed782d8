"""The user's base directories by the XDG Base Directory specification.

Standard library only, and no other module of pitable: the store, the catalogues' cache and
anything else that keeps files of the user's take their directory from here. pathlib is
imported where a path is made, not at the top: ``pitable options`` imports this module
and never makes one, and pathlib (with the urllib and ipaddress it imports) is about a
sixth of that command's start-up CPU.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

#: Where the box looks for its configuration when no path is given (the system's, not the
#: user's: the box runs as a service); here so that a command can see whether there is one
#: without importing the config's reader (``pitable.config.DEFAULT_CONFIG_PATH`` is it as a
#: path).
DEFAULT_CONFIG_FILE = "/etc/pitable/pitable.toml"


def base_directory(
    variable: str, fallback: str, environ: Mapping[str, str] | None = None
) -> Path:
    """``$variable`` (``XDG_CACHE_HOME``, ``XDG_STATE_HOME``...) when it is an absolute path,
    else ``fallback`` under the home directory (``.cache``, ``.local/state``).

    The specification says a relative path in one of these variables is invalid and is to be
    ignored: followed, it would put the files wherever the program happened to start.
    """
    from pathlib import Path

    env = os.environ if environ is None else environ
    value = env.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value)
    home = env.get("HOME") or os.path.expanduser("~")
    return Path(home) / fallback


def cache_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME``, or ``~/.cache``."""
    return base_directory("XDG_CACHE_HOME", ".cache", environ)


def state_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME``, or ``~/.local/state``."""
    return base_directory("XDG_STATE_HOME", os.path.join(".local", "state"), environ)
