"""``pitable config check`` and ``config show``, as a maker runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pitable import config as config_module
from pitable.cli import main
from pitable.config import DEFAULTS, loads_config


def table_rows(out: str) -> dict[str, list[str]]:
    """The wiring table as {part: [connection, details]}."""
    rows = {}
    for line in out.splitlines():
        if " | " in line:
            part, *rest = (cell.strip() for cell in line.split(" | "))
            rows[part] = rest
    return rows


@pytest.fixture
def no_default_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the default path at a file that does not exist, whatever this machine has."""
    absent = tmp_path / "etc" / "pitable.toml"
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_PATH", absent)
    return absent


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pitable.toml"
    path.write_text(text)
    return path


def test_check_prints_the_wiring_of_a_good_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "[button]\npin = 27\nbounce_ms = 35\n")
    assert main(["config", "check", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == f"{path}: valid"
    rows = table_rows(out)
    assert rows["part"] == ["connection", "details"]
    assert rows["ROLL button"] == ["GPIO 27", "pull-up, 35 ms debounce"]
    assert rows["green die"] == ["i2c-mux channel 0, 0x3c", "SSD1306 128x64"]
    assert rows["status screen"] == ["i2c-mux channel 3, 0x3c", "SSD1309 128x64"]
    assert rows["round LEDs"] == ["GPIO 12, 16, 20, 21, 26", "5 LEDs, active high"]
    assert rows["thermal printer"][0] == "/dev/serial0 (GPIO 14 TX, GPIO 15 RX)"


def test_check_uses_the_global_config_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '[printer]\nenabled = false\n[box]\ntitle = "skull-island"\n')
    assert main(["--config", str(path), "config", "check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{path}: valid")
    rows = table_rows(out)
    assert rows["thermal printer"] == ["-", "off"]
    assert rows["game"][0] == "island, table play"


def test_check_without_a_file_checks_the_defaults_and_says_so(
    no_default_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "check"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == (
        f"{no_default_file} not found: checked the built-in defaults (the reference wiring)"
    )
    assert "GPIO 17" in out


def test_check_reads_the_default_file_when_it_exists(
    no_default_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_default_file.parent.mkdir()
    no_default_file.write_text("[button]\npin = 22\n")
    assert main(["config", "check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{no_default_file}: valid")
    assert "GPIO 22" in out


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[box]\ntilte = "valley"\n', "box.tilte: unknown key, did you mean 'title'?"),
        ("[leds]\npins = [12, 17]\n", "leds.pins[1]: GPIO 17 is already used by button.pin"),
        ("[button]\npin = 2\n", "button.pin: GPIO 2 is SDA of I2C bus 1"),
        ("[displays.red]\nmux_channel = 1\n", "displays.red: same bus and address"),
        ("[box\n", "line 1, column 5: not valid TOML"),
    ],
)
def test_check_a_bad_file_is_one_line_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str
) -> None:
    path = write(tmp_path, text)
    assert main(["config", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"pitable config: error: {path}: {key}")


def test_check_an_explicit_missing_file_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.toml"
    assert main(["--config", str(missing), "config", "check"]) == 2
    assert capsys.readouterr().err == f"pitable config: error: {missing}: no such file\n"


def test_show_prints_the_defaults_as_a_file_that_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "show"]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("# pitable configuration")
    assert loads_config(shown) == DEFAULTS
    path = write(tmp_path, shown)
    assert main(["config", "check", str(path)]) == 0


def test_a_bad_file_in_a_real_process_gives_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "[displays.red]\naddress = 0x90\n")
    result = subprocess.run(
        [sys.executable, "-m", "pitable", "config", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"pitable config: error: {path}: displays.red.address:"
        " expected an I2C address 0x03 to 0x77, got 0x90\n"
    )


def test_check_a_bad_title_names_box_title_and_the_titles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '[box]\ntitle = "monopoly"\n')
    assert main(["config", "check", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"pitable config: error: {path}: box.title: expected valley, island or temple"
        ' (or wiraqocha, skull-island, apikhabou), got "monopoly"\n'
    )


def test_sim_refuses_a_bad_title_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, '[box]\ntitle = "monopoly"\n')
    assert main(["--config", str(path), "sim", "--script", "press"]) == 2
    out, err = capsys.readouterr()
    assert "Valley" not in out
    assert err.count("\n") == 1
    assert f"{path}: box.title: expected valley" in err


def test_without_a_title_the_box_plays_the_first_title(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "[button]\npin = 27\n")
    assert main(["config", "check", str(path)]) == 0
    assert table_rows(capsys.readouterr().out)["game"][0] == "valley, table play"


def test_the_config_imports_nothing_from_the_layers_above_it(tmp_path: Path) -> None:
    path = write(tmp_path, '[box]\ntitle = "skull-island"\n')
    code = (
        "import sys; from pitable.config import load_config, DEFAULTS;"
        f" load_config({str(path)!r}); DEFAULTS.to_toml();"
        " above = ('pitable.rules', 'pitable.hw', 'pitable.render', 'pitable.box');"
        " print(sorted(m for m in sys.modules if m.startswith(above)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    # But the chips' facts, standard library only, that the config checks displays against.
    assert result.stdout.strip() == "['pitable.hw', 'pitable.hw.chips']"
