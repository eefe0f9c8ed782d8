"""The tests touch only their own folders: pitable's cache, its state and every temporary
file of the tests and of the programs they start lie in the run's own folder, and a write
into the user's own pitable folders fails the test that made it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from pitable import i18n
from pitable.box.store import default_state_dir
from tests import conftest


def where_pitable_writes() -> dict[str, str]:
    return {"cache": str(i18n._cache_dir()), "state": str(default_state_dir()),
            "tmp": tempfile.gettempdir()}


def inside(path: str, root: Path) -> bool:
    return Path(path).resolve().is_relative_to(root.resolve())


def test_pitable_writes_in_this_runs_own_folder() -> None:
    here = where_pitable_writes()
    assert all(inside(path, conftest.OWN) for path in here.values()), here
    assert not any(inside(path, Path(own)) for path in here.values()
                   for own in conftest.USERS_OWN)


def test_a_program_the_tests_start_writes_there_too() -> None:
    script = ("import json, tempfile; from pitable import i18n;"
              " from pitable.box.store import default_state_dir;"
              " print(json.dumps({'cache': str(i18n._cache_dir()),"
              " 'state': str(default_state_dir()), 'tmp': tempfile.gettempdir()}))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    there = json.loads(out)
    assert all(inside(path, conftest.OWN) for path in there.values()), there
    assert not any(inside(path, Path(own)) for path in there.values()
                   for own in conftest.USERS_OWN)


@pytest.mark.parametrize("own", conftest.USERS_OWN)
def test_the_guard_sees_a_write_into_the_users_own_folders(own: str) -> None:
    """The audit hook's judgement, fed the events a write would raise (none is made)."""
    entry = os.path.join(own, "locale", "fr-0123456789abcdef.mo")
    try:
        conftest._watch_writes("open", (entry, "r", os.O_RDONLY))
        conftest._watch_writes("open", ("/elsewhere/x.mo", "w", os.O_WRONLY | os.O_CREAT))
        assert conftest._writes_to_users_own == []
        conftest._watch_writes("open", (entry, None, os.O_WRONLY | os.O_CREAT))
        conftest._watch_writes("os.rename", ("/elsewhere/x.part", entry))
        conftest._watch_writes("os.mkdir", (own, 0o777, None))
        assert [event for event, _ in conftest._writes_to_users_own] == \
            ["open", "os.rename", "os.mkdir"]
    finally:
        conftest._writes_to_users_own.clear()
