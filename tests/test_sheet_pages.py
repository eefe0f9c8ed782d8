"""``pitable sheet`` for a home printer: copies of one map, a pad of maps when asked, solo
sheets, the page as a picture, and widths too narrow to read refused."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pitable.render.sheet import render_sheet
from pitable.render.sheet_pdf import page_image
from pitable.rules.bot import TARGET_GAMES, TARGET_STRENGTH, play_games, target
from pitable.rules.sheets import MAP_FORMAT, generate
from tests.conftest import run_cli as run


def pdf_page_count(path: Path) -> int:
    return len(re.findall(rb"/Type /Page\b", path.read_bytes()))


def pdf_title(path: Path) -> str:
    found = re.search(rb"/Title \((.*)\)$", path.read_bytes(), re.MULTILINE)
    assert found
    return found.group(1).replace(b"\\", b"").decode("latin-1")


@pytest.mark.parametrize(("copies", "pages"), [(1, 1), (2, 1), (3, 2), (6, 3)])
def test_copies_give_that_many_sheets_of_one_map(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], copies: int, pages: int
) -> None:
    out = tmp_path / "table.pdf"
    code, stdout, _ = run(capsys, "sheet", "island", "--seed", "9", "--copies", str(copies),
                          "--out", str(out))
    assert code == 0
    assert pdf_page_count(out) == pages
    # One map: the title names it once.
    assert pdf_title(out) == f"island A 9 (map v{MAP_FORMAT})"
    assert "seed 9:" in stdout


def test_a_pad_of_different_maps_only_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pad.pdf"
    code, stdout, _ = run(capsys, "sheet", "temple", "--seed", "999998", "--maps", "3",
                          "--out", str(out))
    assert code == 0
    # Three maps, one copy each unless asked: the seed and the ones after it.
    assert "seeds 999998, 999999, 0:" in stdout
    assert pdf_title(out) == ", ".join(
        f"temple A {seed} (map v{MAP_FORMAT})" for seed in (999998, 999999, 0)
    )
    assert pdf_page_count(out) == 2
    run(capsys, "sheet", "temple", "--seed", "5", "--maps", "2", "--copies", "2",
        "--out", str(out))
    assert pdf_page_count(out) == 2


def test_a_solo_strip_prints_the_levels_and_the_bots_median_to_beat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "solo.png"
    assert run(capsys, "sheet", "valley", "--seed", "3", "--solo", "--out", str(out))[0] == 0
    stars = target("valley", "a", 3)
    assert stars == int(statistics.median_low(
        g.total for g in play_games(generate("valley", 3), TARGET_GAMES, 0, TARGET_STRENGTH)))
    expected = render_sheet(generate("valley", 3), solo=True, target=stars)
    with Image.open(out) as picture:
        assert ImageChops.difference(picture.convert("L"), expected.convert("L")).getbbox() is None
        # Longer than the table's sheet by the levels' lines.
        assert picture.height > render_sheet(generate("valley", 3)).height


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_page_as_a_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], paper: str
) -> None:
    out = tmp_path / "page.png"
    assert run(capsys, "sheet", "island", "--seed", "4", "--page", "--paper", paper,
               "--out", str(out))[0] == 0
    expected = page_image([generate("island", 4)] * 2, paper)
    with Image.open(out) as picture:
        assert ImageChops.difference(picture.convert("L"), expected.convert("L")).getbbox() is None


@pytest.mark.parametrize("width", ["180", "260", "383"])
def test_a_width_too_narrow_to_read_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], width: str
) -> None:
    out = tmp_path / "narrow.png"
    code, _, stderr = run(capsys, "sheet", "valley", "--width", width, "--out", str(out))
    assert code == 2
    assert len(stderr.strip().splitlines()) == 1
    assert f"--width: {width}: expected 384 to 4,096; a narrower strip cannot hold a legible" \
        " sheet" in stderr
    assert not out.exists()


def test_print_sends_a_tables_copies_as_one_stream(capsys: pytest.CaptureFixture[str]) -> None:
    # A capture on loopback stands in for socket://printer.local:9100.
    import io
    import socket
    import threading

    from pitable.hw.fake_printer import FakePrinter

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received = io.BytesIO()

    def capture() -> None:
        conn, _ = server.accept()
        with conn:
            while chunk := conn.recv(65536):
                received.write(chunk)

    thread = threading.Thread(target=capture, daemon=True)
    thread.start()
    try:
        code, stdout, stderr = run(
            capsys, "print", "island", "--seed", "5", "--copies", "3",
            "--port", f"socket://127.0.0.1:{port}",
            # A capture takes bytes as fast as they come: no mechanism to wait for.
            "--baud", "10000000", "--line-time-ms", "0", "--feed-time-ms", "0",
        )
        thread.join(10)
    finally:
        server.close()
    assert code == 0, stderr
    assert "3 copies" in stdout
    fake = FakePrinter()
    fake.write(received.getvalue())
    image = render_sheet(generate("island", 5))
    copies = fake.printouts()
    assert len(copies) == 3
    for paper in copies:
        found = paper.crop((0, 0, image.width, image.height))
        assert ImageChops.difference(found.convert("L"), image.convert("L")).getbbox() is None
