"""The code to join the table's page: a QR code of its address and the PIN, on the status
screen from the menu and at the top of a printed sheet."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageDraw

from pitable.box.join import join_code
from pitable.box.menus import JOIN_CHECK_S
from pitable.box.sim import Simulator
from pitable.box.terminal import status_words
from pitable.hw.network import shown_url
from pitable.render.fonts import CONDENSED_BOLD, REGULAR, font
from pitable.render.join import JoinCode, join_screen, join_strip, qr_text
from pitable.render.sheet import render_sheet
from tests.support.box import fake_printer, make, read_faces
from tests.support.network import LOCAL_NAME, WILDCARD, RouteTable
from tests.support.pictures import same
from tests.support.qr import URL, library_matrix, read_qr


def test_the_code_holds_the_url_and_its_modules_are_the_librarys() -> None:
    assert qr_text(URL).lower() == URL.lower()
    shown = join_screen(JoinCode(URL, "4821"), (128, 64))
    assert len(library_matrix(URL)) == 25
    expected = library_matrix(URL)
    assert read_qr(shown, len(expected)) == expected


@pytest.mark.parametrize("size", [(128, 64), (256, 64)])
def test_a_lan_address_takes_two_pixels_a_module_on_a_64_pixel_screen(
    size: tuple[int, int],
) -> None:
    """A version-2 code at 2 pixels a module: a phone reads it off a 2.42" screen."""
    shown = join_screen(JoinCode("http://192.168.100.200:18080/", "4821"), size)
    assert len(library_matrix("http://192.168.100.200:18080/")) == 25
    lit_row = next(y for y in range(64) if shown.getpixel((0, y)))
    run = 0
    while shown.getpixel((run, lit_row)):
        run += 1
    assert run == (25 + 4) * 2


def ink(image: Image.Image) -> Image.Image:
    box = image.getbbox()
    assert box is not None
    return image.crop(box)


def bands(image: Image.Image) -> list[Image.Image]:
    """The rows of ink in ``image``, top to bottom, each cropped to its ink."""
    rows = [y for y in range(image.height) if image.crop((0, y, image.width, y + 1)).getbbox()]
    found: list[list[int]] = []
    for y in rows:
        if found and y == found[-1][-1] + 1:
            found[-1].append(y)
        else:
            found.append([y])
    return [ink(image.crop((0, r[0], image.width, r[-1] + 1))) for r in found]


@pytest.mark.parametrize(("pin", "rows"), [("4821", ["4821"]), ("0007", ["0007"]),
                                           ("390215", ["390", "215"])])
def test_the_pin_is_drawn_in_large_digits_beside_the_code(pin: str, rows: list[str]) -> None:
    shown = join_screen(JoinCode(URL, pin), (128, 64))
    # Below the "PIN" label, right of the code: the digits, as the font draws them.
    drawn = bands(shown.crop((62, 16, 128, 64)))
    assert len(drawn) == len(rows)
    for band, text in zip(drawn, rows, strict=True):
        renderings = []
        for size in range(8, 41):
            probe = Image.new("1", (400, 80), 0)
            ImageDraw.Draw(probe).text((0, 0), text, fill=1, font=font(size, CONDENSED_BOLD))
            renderings.append(ink(probe))
        assert any(same(band, r) for r in renderings)
        # A quarter of the screen's height or more: 7 mm digits on the 2.42" status screen.
        assert band.height >= 16


def test_a_wide_status_screen_also_writes_the_address() -> None:
    shown = join_screen(JoinCode(URL, "390215"), (256, 64))
    rows = bands(shown.crop((62, 0, 256, 64)))
    renderings = []
    for size in (7, 8, 9):
        probe = Image.new("1", (400, 40), 0)
        ImageDraw.Draw(probe).text((0, 0), URL, fill=1, font=font(size, REGULAR))
        renderings.append(ink(probe))
    assert any(same(rows[-1], r) for r in renderings)


def test_without_a_page_the_screen_says_the_web_is_off() -> None:
    sim = make()
    choose(sim, "Show join code")
    assert same(sim.panel("status"), join_screen(None, (128, 64)))
    sim.close()


def choose(sim: Simulator, label: str) -> None:
    sim.hold()
    labels = [item for item, _ in sim.box.menu[-1].items]
    for _ in range(labels.index(label)):
        sim.press()
    sim.hold()


def test_the_menu_shows_the_code_until_a_press_which_does_not_roll() -> None:
    sim = make("1,2,3", "4,4,4")
    sim.press()
    sim.box.web_url, sim.box.web_pin = URL, "4821"  # what the web server sets
    choose(sim, "Show join code")
    assert same(sim.panel("status"), join_screen(JoinCode(URL, "4821"), (128, 64)))
    sim.advance(30)
    assert same(sim.panel("status"), join_screen(JoinCode(URL, "4821"), (128, 64)))
    sim.press()
    assert not same(sim.panel("status"), join_screen(JoinCode(URL, "4821"), (128, 64)))
    assert read_faces(sim, "valley") == (1, 2, 3)
    assert sim.box.menu == []
    sim.press()
    assert read_faces(sim, "valley") == (4, 4, 4)
    sim.close()


def test_the_code_goes_away_by_itself_after_a_minute() -> None:
    sim = make("1,2,3")
    sim.press()
    before = sim.panel("status")
    sim.box.web_url, sim.box.web_pin = URL, "4821"
    choose(sim, "Show join code")
    sim.advance(61)
    assert sim.box.menu == []
    assert same(sim.panel("status"), before)
    sim.close()


def test_print_join_code_prints_the_code_at_the_top_of_a_fresh_sheet() -> None:
    printer, paper = fake_printer()
    sim = make("1,2,3", title="island", printer=printer)
    sim.box.web_url, sim.box.web_pin = URL, "4821"
    choose(sim, "Print join code")
    sim.wait_for_prints()
    strip = join_strip(JoinCode(URL, "4821"), printer.settings.dots)
    sheet = render_sheet(sim.box.game.map.sheet(), printer.settings.dots)
    out = paper.printout().convert("1")
    top = out.crop((0, 0, strip.width, strip.height))
    below = out.crop((0, strip.height, sheet.width, strip.height + sheet.height))
    assert ImageChops.logical_xor(top, strip.convert("1")).getbbox() is None
    assert ImageChops.logical_xor(below, sheet.convert("1")).getbbox() is None
    # The printed code is the library's, black on white.
    # The code at the strip's left, as tall as the strip, is the library's, black on white.
    assert read_qr(strip.crop((0, 0, strip.height - 8, strip.height)), 25) == library_matrix(URL)
    sim.close()


def test_print_join_code_is_offered_only_while_the_page_is_served() -> None:
    printer, _ = fake_printer()
    sim = make(printer=printer)
    sim.hold()
    assert "Print join code" not in [label for label, _ in sim.box.menu[-1].items]
    sim.close()


@pytest.mark.parametrize(
    ("url", "lan", "expected"),
    [
        ("http://0.0.0.0:8080/", "192.168.1.23", "http://192.168.1.23:8080/"),
        ("http://[::]:8080/", "192.168.1.23", "http://192.168.1.23:8080/"),
        ("http://0.0.0.0:8080/", None, "http://0.0.0.0:8080/"),
        ("http://10.0.0.5:8080/", "192.168.1.23", "http://10.0.0.5:8080/"),
    ],
)
def test_a_wildcard_bind_address_becomes_the_lan_address(
    url: str, lan: str | None, expected: str
) -> None:
    assert shown_url(url, lan) == expected
    assert join_code(object()) is None


def test_the_join_screen_follows_the_network_without_a_press(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)  # no network yet
    sim = make("1,2,3")
    sim.press()
    sim.box.web_url, sim.box.web_pin = WILDCARD, "4821"  # bound on every address
    choose(sim, "Show join code")
    before = JoinCode(f"http://{LOCAL_NAME}:8080/", "4821")
    assert same(sim.panel("status"), join_screen(before, (128, 64)))
    routes.add_default("lo")  # the Wi-Fi comes up
    sim.advance(JOIN_CHECK_S)
    after = JoinCode("http://127.0.0.1:8080/", "4821")
    assert same(sim.panel("status"), join_screen(after, (128, 64)))
    assert "Join the table: http://127.0.0.1:8080/   PIN 4821" in status_words(sim)
    assert sim.box.menus.join is not None  # still up, for the rest of its minute
    sim.advance(60 - JOIN_CHECK_S - 1)
    assert same(sim.panel("status"), join_screen(after, (128, 64)))
    sim.advance(1)
    assert sim.box.menu == []
    sim.close()


def test_a_printed_code_is_the_address_at_the_moment_it_is_printed(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)
    printer, paper = fake_printer()
    sim = make("1,2,3", title="island", printer=printer)
    sim.box.web_url, sim.box.web_pin = WILDCARD, "4821"
    routes.add_default("lo")
    choose(sim, "Print join code")
    sim.wait_for_prints()
    url = "http://127.0.0.1:8080/"
    strip = join_strip(JoinCode(url, "4821"), printer.settings.dots)
    top = paper.printout().convert("1").crop((0, 0, strip.width, strip.height))
    assert ImageChops.logical_xor(top, strip.convert("1")).getbbox() is None
    sim.close()


def test_the_printed_strip_speaks_the_boxs_language() -> None:
    from pitable.i18n import translator

    english = join_strip(JoinCode(URL, "4821"), 384)
    for lang in ("fr", "es"):
        tr = translator(lang)
        assert tr.gettext("Scan to join the table") != "Scan to join the table"
        strip = join_strip(JoinCode(URL, "4821"), 384, tr)
        assert strip.tobytes() != english.tobytes(), lang
