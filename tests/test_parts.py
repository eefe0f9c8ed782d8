"""A part is declared once: a buzzer registered from tests/support/buzzer.py, with no line
of pitable/ naming it, reaches the file, its checks, the wiring, the doctor and the box."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitable.box.assembly import build_box
from pitable.commands.config import wiring_rows, wiring_table
from pitable.config import DEFAULTS, loads_config
from pitable.doctor import Probes, Status, run_checks
from pitable.errors import ConfigError
from pitable.render.wiring_diagram import HEADER_PIN, Wire, wires, wiring_svg
from pitable.wiring import Part, pin_claims
from tests.conftest import run_cli
from tests.support.buzzer import FakeBuzzer, registered


@pytest.fixture
def buzzer() -> Iterator[Part]:
    with registered() as part:
        yield part


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pitable.toml"
    path.write_text(text)
    return path


def test_config_show_writes_the_parts_table_and_reads_it_back(
    buzzer: Part, capsys: pytest.CaptureFixture[str]
) -> None:
    code, shown, _ = run_cli(capsys, "config", "show")
    assert code == 0
    table = shown[shown.index("[buzzer]"):]
    assert "# A piezo buzzer that beeps on a roll.\n[buzzer]" in shown
    assert "# The GPIO driving the buzzer. Allowed: a header GPIO 2 to 27" in table
    assert "\npin = 18\n" in table and "\nbeep_ms = 80\n" in table
    assert loads_config(shown) == DEFAULTS


def test_the_file_sets_the_parts_keys_and_replace_keeps_them(buzzer: Part) -> None:
    config = loads_config("[buzzer]\npin = 19\nbeep_ms = 200\n")
    assert config.part_table("buzzer").pin == 19
    assert config != DEFAULTS
    assert ("buzzer.pin", 19) in pin_claims(config)
    # A command line's change to another table keeps the part's.
    changed = dataclasses.replace(config, box=dataclasses.replace(config.box, mode="solo"))
    assert changed.part_table("buzzer").beep_ms == 200
    with pytest.raises(ConfigError, match=r"^buzzer.beep_ms: expected 10 ms to 1000 ms, got 5"):
        loads_config("[buzzer]\nbeep_ms = 5\n")
    with pytest.raises(ConfigError, match=r"^buzzer.pn: unknown key, did you mean 'pin'\?"):
        loads_config("[buzzer]\npn = 19\n")


def test_config_check_names_both_parts_on_one_pin(
    buzzer: Part, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "[buzzer]\npin = 17\n")
    code, out, err = run_cli(capsys, "config", "check", str(path))
    assert code == 2 and out == ""
    assert err == (f"pitable config: error: {path}: buzzer.pin: GPIO 17 is already used by"
                   " button.pin\n")
    path = write(tmp_path, "[buzzer]\npin = 14\n")
    code, _, err = run_cli(capsys, "config", "check", str(path))
    assert code == 2
    assert err.count("\n") == 1 and "buzzer.pin: GPIO 14 is TXD of the UART" in err
    # Off, it takes no pin.
    path = write(tmp_path, "[buzzer]\nenabled = false\npin = 17\n")
    assert run_cli(capsys, "config", "check", str(path))[0] == 0


def test_the_wiring_lists_and_draws_the_part(
    buzzer: Part, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_cli(capsys, "--config", str(write(tmp_path, "")), "wiring")
    assert code == 0
    assert out == wiring_table(DEFAULTS) + "\n"
    assert ("buzzer", "GPIO 18", "") in wiring_rows(DEFAULTS)
    assert "\nbuzzer             | GPIO 18\n" in out
    assert Wire(18, "buzzer", "+") in wires(DEFAULTS)
    svg = wiring_svg(DEFAULTS, wiring_rows(DEFAULTS))
    assert f">pin {HEADER_PIN[18]} · GPIO 18</text>" in svg
    assert ">buzzer</text>" in svg
    off = loads_config("[buzzer]\nenabled = false\n")
    assert ("buzzer", "-", "off") in wiring_rows(off)
    assert not [w for w in wires(off) if w.part == "buzzer"]


def test_the_doctor_checks_the_part(buzzer: Part, tmp_path: Path) -> None:
    from gpiozero import DigitalOutputDevice
    from gpiozero.pins.mock import MockFactory

    from pitable.hw.fake_i2c import FakeI2C
    from pitable.hw.fake_printer import FakePrinter

    # A machine that is no Pi: only the parts' own checks and the pins' matter here.
    factory = MockFactory()
    probes = Probes(sysfs=tmp_path, boot_dir=tmp_path, bus_factory=FakeI2C().bus,
                    printer_transport=FakePrinter(), hwrng=tmp_path / "hwrng",
                    pin_factory=factory, unit_dir=tmp_path)
    results = {r.part: r for r in run_checks(DEFAULTS, probes)}
    assert results["buzzer"].line() == "PASS  buzzer: GPIO 18 drives it"
    assert results["GPIO pins"].detail.endswith(", 18 are free")
    other = DigitalOutputDevice(18, pin_factory=factory)  # something else holds GPIO 18
    try:
        results = {r.part: r for r in run_checks(DEFAULTS, probes)}
    finally:
        other.close()
    assert results["buzzer"].status is Status.FAIL
    assert "GPIO 18 (buzzer.pin)" in results["GPIO pins"].detail


def test_the_box_opens_the_parts_fake_and_closes_it(
    buzzer: Part, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PITABLE_BACKENDS", "sim")
    with build_box(DEFAULTS) as built:
        fake = built.parts["buzzer"]
        assert isinstance(fake, FakeBuzzer)
        assert (fake.pin, fake.beep_ms, fake.closed) == (18, 80, False)
    assert fake.closed
    with build_box(loads_config("[buzzer]\nenabled = false\n")) as built:
        assert "buzzer" not in built.parts


def test_an_unregistered_part_is_gone() -> None:
    with registered():
        assert ("buzzer.pin", 18) in pin_claims(DEFAULTS)
    assert "[buzzer]" not in DEFAULTS.to_toml()
    assert all(key != "buzzer.pin" for key, _ in pin_claims(DEFAULTS))
    with pytest.raises(ConfigError, match=r"^buzzer: unknown section"):
        loads_config("[buzzer]\npin = 18\n")


def test_every_registered_parts_hooks_import() -> None:
    from pitable.wiring import load_hook, parts

    names = [hook for part in parts() for hook in (part.check, part.build, part.fake) if hook]
    assert names, "the built-in parts name their doctor's checks"
    for name in names:
        assert callable(load_hook(name)), name


@pytest.mark.parametrize("name", ["web", "button", "buzzer"])
def test_a_part_from_outside_cannot_take_a_table_the_box_has(name: str) -> None:
    from pitable.wiring import register_part
    from tests.support.buzzer import BuzzerConfig

    with registered(), pytest.raises(ValueError, match=repr(name)):
        register_part(Part(name, "another", table=BuzzerConfig))


def test_a_part_from_outside_brings_its_table() -> None:
    from pitable.wiring import register_part

    with pytest.raises(ValueError, match="a table of its own"):
        register_part(Part("bell", "bell"))
