"""``pitable sheet`` and ``pitable print`` as a user runs them."""

from __future__ import annotations

import io
import socket
import threading
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from pitable.hw.fake_printer import FakePrinter
from pitable.render.sheet import render_sheet
from pitable.rules.sheets import generate
from tests.conftest import run_cli as run


def test_sheet_writes_a_pdf(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.pdf"
    code, stdout, _ = run(capsys, "sheet", "valley", "--seed", "7", "--out", str(out))
    assert code == 0
    assert out.read_bytes().startswith(b"%PDF-")
    assert "seed 7" in stdout


@pytest.mark.parametrize(("suffix", "mode"), [(".png", "1"), (".pbm", "1")])
def test_sheet_writes_the_strip_as_a_picture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], suffix: str, mode: str
) -> None:
    out = tmp_path / f"sheet{suffix}"
    assert run(capsys, "sheet", "island", "--seed", "3", "--side", "b", "--out", str(out))[0] == 0
    image = Image.open(out)
    assert image.mode == mode
    expected = render_sheet(generate("island", 3, "b"))
    assert ImageChops.difference(image.convert("L"), expected.convert("L")).getbbox() is None


def test_sheet_writes_a_text_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.txt"
    assert run(capsys, "sheet", "temple", "--seed", "7", "--out", str(out))[0] == 0
    assert out.read_text() == generate("temple", 7).to_text(label=True)


def test_the_same_seed_writes_the_same_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for suffix in (".pdf", ".png"):
        a, b = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
        run(capsys, "sheet", "valley", "--seed", "12", "--out", str(a))
        run(capsys, "sheet", "valley", "--seed", "12", "--out", str(b))
        assert a.read_bytes() == b.read_bytes()


def test_without_a_seed_a_new_one_is_chosen_and_told(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.txt"
    _, stdout, _ = run(capsys, "sheet", "island", "--out", str(out))
    seed = int(stdout.split("seed ")[1].split(":")[0])
    assert out.read_text() == generate("island", seed).to_text(label=True)


def test_a_png_at_any_width(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "big.png"
    assert run(capsys, "sheet", "valley", "--width", "1000", "--out", str(out))[0] == 0
    assert Image.open(out).width == 1000


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["sheet", "chess", "--out", "x.png"], "unknown game 'chess'"),
        (["sheet", "valley", "--seed", "-3", "--out", "x.png"], "seed -3"),
        (["sheet", "valley", "--seed", "seven", "--out", "x.png"], "seed 'seven'"),
        (["sheet", "valley", "--seed", "1000000", "--out", "x.png"], "seed 1000000"),
        (["sheet", "valley", "--side", "c", "--out", "x.png"], "side 'c'"),
        (["sheet", "valley", "--out", "x.jpg"], "unknown extension '.jpg'"),
        (["sheet", "valley", "--out", "noextension"], "unknown extension '(none)'"),
        (["sheet", "valley", "--out", "x.pdf", "--paper", "a3"], "paper 'a3'"),
        (["sheet", "valley", "--out", "/no/such/dir/x.png"], "/no/such/dir does not exist"),
        (["print", "valley", "--port", "/dev/no-such-printer"], "/dev/no-such-printer"),
        (["print", "valley", "--port", "nonsense://x"], "nonsense://x"),
        (["print", "valley", "--seed", "x", "--port", "loop://"], "seed 'x'"),
    ],
)
def test_bad_input_gives_one_line_and_a_failure(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, stderr = run(capsys, *argv)
    assert code != 0
    assert message in stderr
    assert len(stderr.strip().splitlines()) == 1
    assert "Traceback" not in stderr
    assert not list(tmp_path.iterdir())


def test_print_sends_the_sheet_to_a_network_printer(capsys: pytest.CaptureFixture[str]) -> None:
    # A capture on loopback stands in for socket://printer.local:9100.
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
            capsys,
            "print",
            "temple",
            "--seed",
            "4",
            "--port",
            f"socket://127.0.0.1:{port}",
            # A capture takes bytes as fast as they come: no mechanism to wait for.
            "--baud",
            "10000000",
            "--line-time-ms",
            "0",
            "--feed-time-ms",
            "0",
        )
        thread.join(10)
    finally:
        server.close()
    assert code == 0, stderr
    assert "printed The Temple of Apikhabou" in stdout
    fake = FakePrinter()
    fake.write(received.getvalue())
    image = render_sheet(generate("temple", 4))
    paper = fake.printout().crop((0, 0, image.width, image.height))
    assert ImageChops.difference(paper.convert("L"), image.convert("L")).getbbox() is None


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_print_to_the_loopback_port_of_the_readme_completes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The sheets page's `pitable print temple --seed 7`, on `--port loop://`, paced as fast as the
    # options allow so that the test does not wait for a mechanism that is not there.
    code, stdout, stderr = run(
        capsys, "print", "temple", "--seed", "7", "--port", "loop://",
        "--baud", "1000000", "--line-time-ms", "0", "--feed-time-ms", "0",
    )
    assert (code, stderr) == (0, "")
    assert stdout.startswith("printed The Temple of Apikhabou, side A, seed 7 on loop://: ")


def test_print_to_a_network_printer_nobody_listens_for_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
    code, stdout, stderr = run(capsys, "print", "valley", "--port", f"socket://127.0.0.1:{port}")
    assert code == 1
    assert stdout == ""
    assert "Connection refused" in one_line(stderr)


def test_print_to_a_network_printer_that_hangs_up_is_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def hang_up() -> None:
        conn, _ = server.accept()
        conn.close()

    thread = threading.Thread(target=hang_up, daemon=True)
    thread.start()
    try:
        code, stdout, stderr = run(
            capsys, "print", "valley", "--port", f"socket://127.0.0.1:{port}",
            "--baud", "1000000", "--line-time-ms", "0", "--feed-time-ms", "0",
        )
        thread.join(10)
    finally:
        server.close()
    assert code == 1
    assert stdout == ""
    assert f"socket://127.0.0.1:{port}" in one_line(stderr)


@pytest.mark.parametrize(
    ("argv", "key"),
    [
        (["--line-time-ms", "inf"], "printer.line_time_ms"),
        (["--line-time-ms", "1e308"], "printer.line_time_ms"),
        (["--line-time-ms", "nan"], "printer.line_time_ms"),
        (["--line-time-ms", "-1"], "printer.line_time_ms"),
        (["--feed-time-ms", "1e30"], "printer.feed_time_ms"),
        (["--feed-time-ms", "nan"], "printer.feed_time_ms"),
        (["--baud", "1"], "printer.baudrate"),
        (["--baud", "1", "--port", "loop://"], "printer.baudrate"),
        (["--baud", "10000000000", "--port", "socket://127.0.0.1:9"], "printer.baudrate"),
    ],
)
def test_print_refuses_printer_options_out_of_bounds(
    capsys: pytest.CaptureFixture[str], argv: list[str], key: str
) -> None:
    code, stdout, stderr = run(capsys, "print", "valley", "--seed", "1", *argv)
    assert code == 2
    assert stdout == ""
    assert one_line(stderr).startswith(f"pitable print: error: {key}: expected ")


@pytest.mark.parametrize("how", ["--lang", "LC_ALL"])
def test_sheet_writes_the_sheet_in_the_language_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    how: str,
) -> None:
    """``--lang fr`` (or, without it, the environment's language) prints the French sheet,
    on the strip and in the PDF; a text map has no words, so ``--lang`` is refused there."""
    out, pdf, pdf_en = tmp_path / "fr.png", tmp_path / "fr.pdf", tmp_path / "en.pdf"
    asked = ["--lang", "fr_FR"] if how == "--lang" else []
    if how == "LC_ALL":
        monkeypatch.setenv("LC_ALL", "fr_FR.UTF-8")
    assert run(capsys, "sheet", "valley", "--seed", "7", *asked, "--out", str(out))[0] == 0
    expected = render_sheet(generate("valley", 7), lang="fr")
    assert ImageChops.difference(Image.open(out).convert("L"), expected.convert("L")).getbbox() \
        is None
    assert ImageChops.difference(expected.convert("L"),
                                 render_sheet(generate("valley", 7)).convert("L")).getbbox()
    assert run(capsys, "sheet", "valley", "--seed", "7", *asked, "--out", str(pdf))[0] == 0
    assert run(capsys, "sheet", "valley", "--seed", "7", "--lang", "en", "--out",
               str(pdf_en))[0] == 0
    assert pdf.read_bytes() != pdf_en.read_bytes()
    assert b"/Lang (fr)" in pdf.read_bytes()
    code, _, err = run(capsys, "sheet", "valley", "--lang", "fr", "--out", str(tmp_path / "m.txt"))
    assert code == 2 and "--lang: a text map holds no words" in err
