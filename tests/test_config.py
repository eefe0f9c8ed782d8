"""The configuration file: defaults, the TOML round trip, and errors that name the key."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from pitable import config as config_module
from pitable.box.config_title import configured_title
from pitable.config import (
    DEFAULT_CONFIG_PATH,
    DEFAULTS,
    Config,
    DisplayConfig,
    Displays,
    I2cConfig,
    LedsConfig,
    PrinterConfig,
    SpiConfig,
    load_config,
    load_default_or,
    loads_config,
    validate,
    with_display,
)
from pitable.errors import ConfigError
from pitable.rules import all_titles
from pitable.wiring import bus_pins

SPI_STATUS = """
[displays.status]
driver = "ssd1322"
interface = "spi"
dc = 24
reset = 25
"""


#: Each display on its own bus of a Pi 4, and the parts moved off those buses' pins.
EXTRA_BUSES = (
    "[i2c]\nmux = false\n[encoder]\nenabled = false\n[leds]\npins = [16, 20, 21, 26]\n"
    + "".join(
        f"[displays.{name}]\nbus = {bus}\n"
        for name, bus in (("green", 3), ("purple", 4), ("red", 5), ("status", 6))
    )
)


def error_of(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        loads_config(text)
    return str(info.value)


# --- the defaults -------------------------------------------------------------------------


def test_defaults_are_the_reference_wiring() -> None:
    validate(DEFAULTS)
    d = DEFAULTS
    assert d.button.pin == 17
    assert (d.encoder.a, d.encoder.b, d.encoder.push) == (5, 6, 13)
    assert d.leds.pins == (12, 16, 20, 21, 26)
    assert (d.i2c.bus, d.i2c.mux, d.i2c.mux_address) == (1, True, 0x70)
    assert [(x.driver, x.mux_channel, x.address) for x in d.displays.all()] == [
        ("ssd1306", 0, 0x3C),
        ("ssd1306", 1, 0x3C),
        ("ssd1306", 2, 0x3C),
        ("ssd1309", 3, 0x3C),
    ]
    assert d.printer.port == "/dev/serial0"
    assert d.entropy.device == "/dev/hwrng"


def test_an_empty_file_is_the_defaults() -> None:
    assert loads_config("") == DEFAULTS


def test_none_is_the_defaults() -> None:
    assert load_config(None) is DEFAULTS


def test_display_locations_read_as_a_person_would_say_them() -> None:
    assert DEFAULTS.displays.status.location == "i2c-mux channel 3, 0x3c"
    assert DEFAULTS.displays.status.bus_kind == "i2c-mux"
    plain = loads_config(EXTRA_BUSES)
    assert plain.displays.purple.location == "/dev/i2c-4 0x3c"
    assert plain.displays.purple.bus_kind == "i2c"
    spi = loads_config(SPI_STATUS + "[spi]\nport = 0\n").displays.status
    assert spi.bus_kind == "spi"
    assert spi.location == "spi0.0 dc=GPIO 24 reset=GPIO 25"
    assert (spi.width, spi.height) == (256, 64)


def test_title_aliases_find_the_title() -> None:
    assert configured_title(loads_config('[box]\ntitle = "skull-island"').box).key == "island"
    assert configured_title(loads_config('[box]\ntitle = "Apikhabou"').box).key == "temple"
    assert configured_title(loads_config('[box]\ntitle = "wiraqocha"').box).key == "valley"


def test_no_title_is_the_first_title_of_the_rules() -> None:
    assert DEFAULTS.box.title is None
    assert configured_title(DEFAULTS.box) == all_titles()[0]
    assert configured_title(DEFAULTS.box).key == "valley"


def test_a_bad_title_names_the_key_and_the_titles() -> None:
    box = loads_config('[box]\ntitle = "monopoly"').box
    with pytest.raises(ConfigError) as info:
        configured_title(box)
    message = str(info.value)
    assert message.startswith("box.title: expected valley, island or temple")
    assert message.endswith('got "monopoly"')


def test_integers_are_accepted_where_a_number_is_expected() -> None:
    loaded = loads_config("[box]\nhold_s = 2\n[printer]\ntimeout_s = 10")
    assert loaded.box.hold_s == 2.0
    assert isinstance(loaded.box.hold_s, float)
    assert loaded.printer.timeout_s == 10.0


def test_a_network_printer_leaves_the_uart_pins_free() -> None:
    loaded = loads_config('[printer]\nport = "socket://192.168.1.9:9100"\n[leds]\npins = [14, 15]')
    assert loaded.leds.pins == (14, 15)
    assert 14 not in bus_pins(loaded)
    assert bus_pins(DEFAULTS)[14].startswith("TXD of the UART")


def test_disabled_parts_free_their_pins() -> None:
    text = (
        "[encoder]\nenabled = false\n[leds]\npins = [5, 6, 13]\n"
        "[printer]\nenabled = false\n[button]\npin = 14\n"
    )
    loaded = loads_config(text)
    assert loaded.leds.pins == (5, 6, 13)
    assert loaded.button.pin == 14


def test_with_no_display_on_i2c_the_i2c_pins_are_free() -> None:
    off = "".join(f"[displays.{n}]\nenabled = false\n" for n in ("green", "purple", "red"))
    loaded = loads_config(off + SPI_STATUS + "[button]\npin = 3\n")
    assert loaded.button.pin == 3


# --- the round trip -----------------------------------------------------------------------

ROUND_TRIP_FILES = {
    "defaults": "",
    "spi status, no LEDs, network printer": SPI_STATUS
    + '[leds]\npins = []\n[printer]\nport = "socket://printer:9100"\nbaudrate = 115200\n'
    '[box]\ntitle = "island"\nmode = "solo"\nhold_s = 0.75\nstate_dir = "/var/lib/p\\"t"\n',
    "extra buses, no mux": EXTRA_BUSES.replace("bus = ", "address = 0x3d\nrotate = 2\nbus = ")
    + "[printer]\ndtr_busy_pin = 27\n",
    "four-channel mux, encoder off": "[i2c]\nmux_channels = 4\nmux_address = 0x77\n"
    '[encoder]\nenabled = false\n[gpio]\npin_factory = "mock"\n'
    '[displays.red]\nenabled = false\ndriver = "sh1106"\n',
}


@pytest.mark.parametrize("text", ROUND_TRIP_FILES.values(), ids=ROUND_TRIP_FILES.keys())
def test_to_toml_loads_back_to_an_equal_config(text: str) -> None:
    loaded = loads_config(text)
    written = loaded.to_toml()
    assert loads_config(written) == loaded
    # The file is meant to be read and edited: every section is explained.
    assert written.count("\n# ") >= 10
    assert "[displays.status]" in written


def test_round_trip_differs_from_defaults_where_the_file_did() -> None:
    loaded = loads_config(ROUND_TRIP_FILES["spi status, no LEDs, network printer"])
    assert loaded != DEFAULTS
    assert loaded.leds.pins == ()
    assert loaded.box.state_dir == '/var/lib/p"t'
    assert 'state_dir = "/var/lib/p\\"t"' in loaded.to_toml()


def test_addresses_are_written_in_hex() -> None:
    written = DEFAULTS.to_toml()
    assert "address = 0x3c" in written
    assert "mux_address = 0x70" in written


# --- each bad file, with its key named ------------------------------------------------------

BAD = [
    # (id, file, the message must start with this key, and contain this)
    ("unknown key", '[box]\ntilte = "valley"', "box.tilte", "did you mean 'title'?"),
    ("unknown section", "[dispays]\n", "dispays", "did you mean 'displays'?"),
    ("unknown display", "[displays.blue]\n", "displays.blue", "unknown display"),
    ("key outside its section", 'title = "valley"', "title", "box.title"),
    ("wrong type", '[box]\ntumble_ms = "fast"', "box.tumble_ms", 'expected an integer, got "fast"'),
    ("bool for int", "[button]\npin = true", "button.pin", "expected an integer, got true"),
    ("float for int", "[button]\nbounce_ms = 2.5", "button.bounce_ms", "got 2.5"),
    ("int for bool", "[button]\npull_up = 1", "button.pull_up", "expected true or false"),
    ("bool for float", "[box]\nhold_s = true", "box.hold_s", "expected a number"),
    ("not a table", "box = 3", "box", "expected a table"),
    ("list item type", '[leds]\npins = [12, "16"]', "leds.pins[1]", "expected an integer"),
    ("not a header GPIO", "[button]\npin = 40", "button.pin", "header GPIO"),
    ("negative GPIO", "[encoder]\na = -1", "encoder.a", "header GPIO"),
    ("HAT EEPROM pin", "[leds]\npins = [0]", "leds.pins[0]", "ID_SD"),
    ("same pin twice", "[leds]\npins = [12, 16, 17]", "leds.pins[2]", "already used by button.pin"),
    ("encoder on a LED", "[encoder]\npush = 26", "leds.pins[4]", "already used by encoder.push"),
    ("dtr on the button", "[printer]\ndtr_busy_pin = 17", "printer.dtr_busy_pin", "button.pin"),
    ("I2C1 pin", "[button]\npin = 3", "button.pin", "GPIO 3 is SCL of I2C bus 1"),
    ("SPI0 pin", SPI_STATUS + "[button]\npin = 8", "button.pin", "GPIO 8 is CE0 of SPI0"),
    ("SPI dc on SPI pin", SPI_STATUS.replace("24", "10"), "displays.status.dc", "MOSI of SPI0"),
    ("UART pin", "[leds]\npins = [15]", "leds.pins[0]", "RXD of the UART"),
    (
        "Pi 4 extra bus pin",
        EXTRA_BUSES + "[printer]\ndtr_busy_pin = 4",
        "printer.dtr_busy_pin",
        "GPIO 4 is SDA of I2C bus 3, which displays.green uses",
    ),
    (
        "two displays on one mux channel",
        "[displays.purple]\nmux_channel = 0",
        "displays.purple",
        "same bus and address as displays.green (i2c-mux channel 0, 0x3c)",
    ),
    (
        "two displays on one bus",
        "[i2c]\nmux = false\n[displays.green]\nbus = 4\n[displays.purple]\nbus = 4\n",
        "displays.purple",
        "displays.green (/dev/i2c-4 0x3c)",
    ),
    (
        "two displays on one chip select",
        SPI_STATUS + '[displays.red]\ninterface = "spi"\ndc = 23\n',
        "displays.status",
        "same SPI chip select as displays.red (spi0.0)",
    ),
    ("bad driver", '[displays.green]\ndriver = "ssd1351"', "displays.green.driver", "ssd1306"),
    (
        "status driver on a die",
        '[displays.red]\ndriver = "ssd1309"',
        "displays.red.driver",
        'expected "ssd1306" or "sh1106"',
    ),
    (
        "ssd1322 on i2c",
        '[displays.status]\ndriver = "ssd1322"',
        "displays.status.interface",
        'needs interface = "spi"',
    ),
    ("size not the driver's", "[displays.green]\nwidth = 96", "displays.green.width", "128"),
    (
        "mux_channel out of range",
        "[i2c]\nmux_channels = 4\n[displays.status]\nmux_channel = 4",
        "displays.status.mux_channel",
        "expected 0 to 3",
    ),
    ("bus with the mux on", "[displays.green]\nbus = 3", "displays.green.bus", "i2c.mux"),
    (
        "mux_channel without the mux",
        "[i2c]\nmux = false\n[displays.green]\nmux_channel = 1",
        "displays.green.mux_channel",
        "only with i2c.mux = true",
    ),
    ("spi key on i2c", "[displays.green]\ndc = 24", "displays.green.dc", 'interface = "spi"'),
    (
        "spi without dc",
        '[displays.status]\ndriver = "ssd1322"\ninterface = "spi"',
        "displays.status.dc",
        "required",
    ),
    (
        "bad address",
        "[displays.red]\naddress = 0x90",
        "displays.red.address",
        "expected an I2C address 0x03 to 0x77, got 0x90",
    ),
    ("the mux's address", "[displays.red]\naddress = 0x70", "displays.red.address", "mux"),
    ("bad mux address", "[i2c]\nmux_address = 0x20", "i2c.mux_address", "0x70 to 0x77"),
    ("bad mux size", "[i2c]\nmux_channels = 16", "i2c.mux_channels", "8 (TCA9548A)"),
    ("bad rotate", "[displays.green]\nrotate = 4", "displays.green.rotate", "got 4"),
    ("bad contrast", "[displays.green]\ncontrast = 300", "displays.green.contrast", "255"),
    ("bad mode", '[box]\nmode = "party"', "box.mode", '"table" or "solo"'),
    ("hold too short", "[box]\nhold_s = 0.1", "box.hold_s", "0.3"),
    ("tumble too long", "[box]\ntumble_ms = 5000", "box.tumble_ms", "2000"),
    ("bad pin factory", '[gpio]\npin_factory = "wiringpi"', "gpio.pin_factory", '"lgpio"'),
    ("entropy over 8", "[entropy]\nmin_entropy = 8.5", "entropy.min_entropy", "at most 8"),
    ("too many LEDs", f"[leds]\npins = {list(range(2, 28))}", "leds.pins", "0 to 25 LEDs"),
    ("bad baud rate", "[printer]\nbaudrate = 9601", "printer.baudrate", "19200"),
    ("bad paper", "[printer]\npaper_width_mm = 57", "printer.paper_width_mm", "58 or 80"),
    ("bad image command", '[printer]\nimage_command = "esc*"', "printer.image_command", "gsv0"),
    ("bad port", '[printer]\nport = "COM3"', "printer.port", "socket://"),
    ("bad SPI port", "[spi]\nport = 2", "spi.port", "0 or 1"),
    ("bad TOML syntax", "[box]\ntitle = \n", "line 2, column 9", "not valid TOML"),
    ("unterminated string", '[box]\ntitle = "valley\n', "line 2, column 16", "illegal"),
]


@pytest.mark.parametrize(("text", "key", "what"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_config_is_rejected_with_its_key_named(text: str, key: str, what: str) -> None:
    message = error_of(text)
    assert message.startswith(f"{key}: "), message
    assert what in message
    assert "\n" not in message


def test_validate_checks_a_config_built_in_code() -> None:
    """The checks live in validate(), not only in the parser."""
    bad = dataclasses.replace(DEFAULTS, leds=LedsConfig(pins=(2,)))
    with pytest.raises(ConfigError, match=r"^leds\.pins\[0\]: GPIO 2 is SDA of I2C bus 1"):
        validate(bad)
    bad = with_display(DEFAULTS, DisplayConfig("green", driver="ssd1306", mux_channel=None))
    with pytest.raises(ConfigError, match=r"^displays\.green\.mux_channel: required"):
        validate(bad)
    bad = dataclasses.replace(DEFAULTS, box=dataclasses.replace(DEFAULTS.box, hold_s=9.0))
    with pytest.raises(ConfigError, match=r"^box\.hold_s: expected 0\.3 s to 5 s, got 9\.0 s$"):
        validate(bad)


def test_disabled_displays_may_share_a_place() -> None:
    loaded = loads_config("[displays.purple]\nmux_channel = 0\nenabled = false\n")
    assert not loaded.displays.purple.enabled
    assert loaded.displays.enabled() == (
        loaded.displays.green,
        loaded.displays.red,
        loaded.displays.status,
    )


def test_spi_port_of_a_display_must_match_the_spi_section() -> None:
    spi_status = loads_config(SPI_STATUS)
    moved = dataclasses.replace(spi_status, spi=SpiConfig(port=1))
    with pytest.raises(ConfigError, match=r"^displays\.status\.spi_port: "):
        validate(moved)


def test_dataclasses_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS.button.pin = 4  # type: ignore[misc]
    assert isinstance(DEFAULTS.displays, Displays)
    assert isinstance(DEFAULTS.i2c, I2cConfig)
    assert isinstance(DEFAULTS.printer, PrinterConfig)
    assert isinstance(DEFAULTS, Config)


# --- files --------------------------------------------------------------------------------


def test_a_file_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "pitable.toml"
    path.write_text("[displays.red]\naddress = 0x90\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (
        f"{path}: displays.red.address: expected an I2C address 0x03 to 0x77, got 0x90"
    )


def test_a_syntax_error_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "pitable.toml"
    path.write_text("[box]\nmode = 'solo'\n[leds\n")
    with pytest.raises(ConfigError, match=rf"^{path}: line 3, column 6: not valid TOML: "):
        load_config(path)


def test_an_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.toml"
    with pytest.raises(ConfigError, match=rf"^{missing}: no such file$"):
        load_config(missing)
    with pytest.raises(ConfigError, match="no such file"):
        load_default_or(missing)


def test_a_missing_default_file_gives_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_PATH", tmp_path / "absent.toml")
    assert load_default_or(None) == (DEFAULTS, None)


def test_a_present_default_file_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "pitable.toml"
    path.write_text("[button]\npin = 27\n")
    monkeypatch.setattr(config_module, "DEFAULT_CONFIG_PATH", path)
    loaded = load_default_or(None)
    assert loaded.source == path
    assert loaded.config.button.pin == 27


def test_the_default_path_is_under_etc() -> None:
    assert Path("/etc/pitable/pitable.toml") == DEFAULT_CONFIG_PATH


def test_a_file_that_is_not_utf8_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "pitable.toml"
    path.write_bytes(b'[box]\ntitle = "\xff"\n')
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_a_file_from_an_earlier_version_with_no_busy_line_still_loads() -> None:
    """`config show` once wrote ``dtr_busy_pin = -1`` for "not wired": such a file keeps
    working, as not wired; any other number below 2 is still refused."""
    config = loads_config("[printer]\ndtr_busy_pin = -1\n")
    assert config.printer.dtr_busy_pin is None
    with pytest.raises(ConfigError, match=r"printer.dtr_busy_pin: expected a header GPIO"):
        loads_config("[printer]\ndtr_busy_pin = -2\n")
