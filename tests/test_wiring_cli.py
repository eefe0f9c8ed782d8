"""`pitable wiring`: the table from the config, and the same wiring drawn as SVG."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from pitable.cli import main
from pitable.commands.config import wiring_rows, wiring_table
from pitable.config import DEFAULTS, Config, loads_config
from pitable.render.wiring_diagram import HEADER_PIN, wires, wiring_svg
from pitable.wiring import bus_pins, pin_claims
from tests.conftest import run_cli

SVG = "{http://www.w3.org/2000/svg}"
DOCS = Path(__file__).parent.parent / "docs"


def draw(config: Config) -> str:
    """The picture that ``pitable wiring --svg`` writes for ``config``."""
    return wiring_svg(config, wiring_rows(config))


def texts(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_wiring_prints_the_table_of_the_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pitable.toml"
    path.write_text("[button]\npin = 27\n")
    assert main(["--config", str(path), "wiring"]) == 0
    out = capsys.readouterr().out
    assert out == wiring_table(loads_config(path.read_text())) + "\n"
    assert "ROLL button        | GPIO 27" in out


def test_svg_draws_every_pin_and_part(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "wiring.svg"
    config = tmp_path / "pitable.toml"
    config.write_text("")
    assert main(["--config", str(config), "wiring", "--svg", str(path)]) == 0
    assert f"wrote {path}" in capsys.readouterr().out
    svg = path.read_text()
    labels = texts(svg)
    used = {pin for _, pin in pin_claims(DEFAULTS)} | set(bus_pins(DEFAULTS))
    for gpio in used:
        assert f"pin {HEADER_PIN[gpio]} · GPIO {gpio}" in labels
    for part in ("I2C mux", "green die", "purple die", "red die", "status screen",
                 "ROLL button", "encoder", "round LEDs", "printer"):
        assert part in labels
    # One line per wire from the header, plus one per display behind the mux.
    assert len(ET.fromstring(svg).findall(f"{SVG}path")) == len(wires(DEFAULTS)) + 4


def test_the_committed_picture_is_the_default_wiring() -> None:
    # Regenerate with: pitable wiring --svg docs/wiring.svg
    assert (DOCS / "wiring.svg").read_text() == draw(DEFAULTS)


def test_text_from_the_config_is_escaped() -> None:
    printer = dataclasses.replace(DEFAULTS.printer, port='socket://a&b<"c">:9100')
    svg = draw(dataclasses.replace(DEFAULTS, printer=printer))
    assert any('socket://a&b<"c">:9100' in t for t in texts(svg))


def test_a_different_config_draws_different_wires() -> None:
    config = loads_config("[encoder]\nenabled = false\n[leds]\npins = [16, 20]\n")
    labels = texts(draw(config))
    # The encoder is left only in the table underneath, as "off".
    assert labels.count("encoder") == 1 and "LED 3" not in labels
    assert "pin 36 · GPIO 16" in labels and "pin 29 · GPIO 5" not in labels


@pytest.mark.parametrize(
    ("name", "words"), [("w.png", "ending in .svg"), ("missing/w.svg", "does not exist")]
)
def test_a_bad_svg_path_is_one_line_and_prints_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, words: str
) -> None:
    code, out, err = run_cli(capsys, "wiring", "--svg", str(tmp_path / name))
    assert code != 0 and out == ""
    assert len(err.splitlines()) == 1 and words in err
