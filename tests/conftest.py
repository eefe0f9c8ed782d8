"""Shared fixtures and helpers for the tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden"

#: Set to 1 to rewrite golden files from the current code: a deliberate step, never implied.
REGEN = os.environ.get("PITABLE_REGEN_GOLDENS") == "1"


def golden_text(path: Path, actual: str) -> str:
    """The golden text at ``path``; written from ``actual`` only when regeneration is asked."""
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
    if not path.exists():
        pytest.fail(f"missing golden file {path}; run with PITABLE_REGEN_GOLDENS=1 to create it")
    return path.read_text()
