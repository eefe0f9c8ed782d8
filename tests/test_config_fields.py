"""Every key of the file is declared once: its doc, default, range and choices reach both
the commented file (``config show``) and the messages of ``config check``."""

from __future__ import annotations

import json
import tomllib
from dataclasses import Field
from pathlib import Path
from typing import Any

import pytest

from pitable.cli import main
from pitable.config import (
    DEFAULTS,
    SECTIONS,
    DisplayConfig,
    Displays,
    spec_of,
    table_fields,
)


def every_key() -> list[tuple[str, type, Field[Any]]]:
    """(table, its dataclass, field) for every key a file may hold."""
    keys = []
    for section, cls in SECTIONS.items():
        table = DisplayConfig if cls is Displays else cls
        keys += [(section, table, f) for f in table_fields(table)]
    return keys


KEYS = every_key()
IDS = [f"{section}.{f.name}" for section, _, f in KEYS]


@pytest.fixture(scope="module")
def shown() -> str:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["config", "show"]) == 0
    return out.getvalue()


def comments(text: str) -> str:
    """The file's comments as one line of words (the writer wraps them)."""
    lines = [line[2:] for line in text.splitlines() if line.startswith("# ")]
    return " ".join(" ".join(lines).split())


def table_of(text: str, *path: str) -> dict[str, Any]:
    """The keys written under ``[a.b]``, parsed as TOML: ``table_of(text, "a", "b")``."""
    table: dict[str, Any] = tomllib.loads(text)
    for name in path:
        table = table[name]
    return table


def test_the_walk_finds_every_table_and_key() -> None:
    assert set(SECTIONS) == {
        "box", "gpio", "entropy", "button", "encoder", "leds", "i2c", "spi", "displays",
        "printer", "tv", "web",
    }
    names = set(IDS)
    assert {"box.hold_s", "displays.address", "printer.heat_time", "leds.pins"} <= names
    # Filled in by the loader, never written in a file.
    assert "displays.name" not in names and "displays.spi_port" not in names


@pytest.mark.parametrize(("section", "table", "f"), KEYS, ids=IDS)
def test_config_show_explains_every_key_with_its_doc_and_default(
    shown: str, section: str, table: type, f: Field[Any]
) -> None:
    spec = spec_of(f)
    assert spec.doc, "every key has a doc"
    words = comments(shown)
    assert " ".join(spec.doc.split()) in words
    rule = spec.rule()
    if rule:
        assert " ".join(rule.split()) in words
    if section == "displays":
        for display in DEFAULTS.displays.all():
            value = getattr(display, f.name)
            written = table_of(shown, "displays", display.name)
            if f.name in written:
                assert written[f.name] == value
            else:
                # Left out: a size that follows the driver, or a key of the other interface.
                assert f.name in ("width", "height") or value is None
        return
    value = getattr(getattr(DEFAULTS, section), f.name)
    written = table_of(shown, section)
    if value is None:
        assert f.name not in written
        assert f"# {f.name} is not set" in shown
    else:
        assert written[f.name] == (list(value) if isinstance(value, tuple) else value)


def context(section: str, name: str) -> tuple[str, str]:
    """(what a file needs beside the key for the key to be read, the table it goes in)."""
    if section != "displays":
        return "", f"[{section}]\n"
    if name in ("spi_device", "dc", "reset"):
        return "", '[displays.status]\ndriver = "ssd1322"\ninterface = "spi"\ndc = 24\n'
    if name == "bus":
        return "[i2c]\nmux = false\n", "[displays.status]\n"
    return "", "[displays.status]\n"


def bad_file(section: str, name: str, value: object, extra: str = "") -> tuple[str, str]:
    before, table = context(section, name)
    table += extra
    table = "\n".join(line for line in table.splitlines() if not line.startswith(f"{name} ="))
    key = f"displays.status.{name}" if section == "displays" else f"{section}.{name}"
    return f"{before}{table}\n{name} = {json.dumps(value)}\n", key


def check_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> str:
    path = tmp_path / "pitable.toml"
    path.write_text(text)
    assert main(["config", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    prefix = f"pitable config: error: {path}: "
    assert err.startswith(prefix)
    return err[len(prefix) :].rstrip("\n")


def shown_value(value: object, hex_: bool) -> str:
    if isinstance(value, str):
        return json.dumps(value)
    if hex_:
        return f"0x{int(value):02x}"  # type: ignore[call-overload]
    return f"{value:g}" if isinstance(value, float) else str(value)


def keys_where(test: Any) -> Any:
    """A parametrize mark over the keys whose declaration passes ``test``."""
    chosen = [k for k in KEYS if test(spec_of(k[2]))]
    ids = [f"{section}.{f.name}" for section, _, f in chosen]
    return pytest.mark.parametrize(("section", "table", "f"), chosen, ids=ids)


#: (key, which bound) for every bound declared.
BOUNDS = [
    (section, f, side)
    for section, _, f in KEYS
    for side in ("low", "high")
    if getattr(spec_of(f), side) is not None
]


@keys_where(lambda spec: spec.choices is not None)
def test_a_value_not_among_the_choices_is_told_the_choices(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, table: type, f: Field[Any]
) -> None:
    choices = spec_of(f).choices
    assert choices
    first = next(iter(choices))
    bad: object = "nonsense" if isinstance(first, str) else max(choices) + 1000  # type: ignore[type-var, operator]
    text, key = bad_file(section, f.name, bad)
    message = check_error(tmp_path, capsys, text)
    assert message.startswith(f"{key}: expected ")
    assert message.endswith(f"got {shown_value(bad, spec_of(f).hex)}")
    for choice, label in choices.items():
        assert shown_value(choice, False) in message
        assert label in message


@pytest.mark.parametrize(
    ("section", "f", "side"), BOUNDS, ids=[f"{s}.{f.name}-{side}" for s, f, side in BOUNDS]
)
def test_a_value_out_of_range_is_told_the_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, f: Field[Any], side: str
) -> None:
    spec = spec_of(f)
    edge = getattr(spec, side)
    bad = edge - 1 if side == "low" else edge + 1
    bad = float(bad) if isinstance(f.default, float) else int(bad)
    # Where choices bind only on some ports (the baud rate of a serial one), the range is
    # what holds on a network printer.
    extra = 'port = "socket://printer:9100"\n' if spec.choices_if is not None else ""
    text, key = bad_file(section, f.name, bad, extra)
    message = check_error(tmp_path, capsys, text)
    assert message.startswith(f"{key}: expected ")
    rule = spec.range_rule()
    assert rule in message
    for bound in (spec.low, spec.high):
        if bound is not None:
            assert f"{shown_value(bound, spec.hex)}{spec.unit}" in rule
    if spec.what:
        assert spec.what in message


@keys_where(lambda spec: spec.gpio)
def test_a_gpio_not_on_the_header_is_told_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], section: str, table: type, f: Field[Any]
) -> None:
    bad: object = [40] if isinstance(f.default, tuple) else 40
    text, key = bad_file(section, f.name, bad)
    message = check_error(tmp_path, capsys, text)
    if isinstance(bad, list):
        key += "[0]"
    assert message == f"{key}: expected {spec_of(f).rule()}, got 40"
