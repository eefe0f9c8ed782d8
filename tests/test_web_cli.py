"""The web page from the command line: ``pitable sim --web`` and ``pitable run`` with [web].

Each test runs the real ``pitable`` in a subprocess, finds the page's URL in the line it
logs, and talks to it on 127.0.0.1 with the standard library's HTTP client.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pitable.cli import main
from tests.support.web import TIMEOUT_S, Events, Served


def options_json(title: str, roll: list[object]) -> dict[str, Any]:
    """What ``pitable options TITLE ROLL --json`` says of a roll."""
    text = ",".join(str(face) for face in roll)
    result = subprocess.run(
        [sys.executable, "-m", "pitable", "options", title, text, "--json"],
        capture_output=True, text=True, check=True, timeout=60,
    )
    return json.loads(result.stdout)


def check_roll_seen(script: str, tmp_path: Path) -> None:
    served = Served("sim", "--script", script, "--web", "127.0.0.1:0", "--seed", "11",
                    "--state-dir", str(tmp_path))
    try:
        served.wait_for_box()
        events = Events(served.port)
        rolled = events.until(lambda e: not e["rolling"] and e["roll"] is not None)
        status, state = served.get("/api/state")
        assert status == 200
        assert state["roll"] == rolled["roll"] and state["seq"] >= rolled["seq"]
        said = options_json(state["title"], state["roll"])
        assert state["options"] == said
        assert state["numbers"] == said["numbers"] and state["hazard"] == said["hazard"]
        events.close()
        code, out, err = served.finish()
        assert code == 0, err
        assert "1 roll" in out
    finally:
        served.kill()


@pytest.mark.slow
def test_sim_serves_the_roll_of_its_script_as_options_says_it(tmp_path: Path) -> None:
    check_roll_seen("wait1000,press,wait5000", tmp_path)


def test_a_short_script_serves_its_roll_too(tmp_path: Path) -> None:
    check_roll_seen("wait200,press,wait600", tmp_path)


def test_run_serves_the_page_when_the_config_enables_it(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = tmp_path / "pitable.toml"
    # The simulated parts keep a fake clock, which `run` does not move: no tumble to wait on.
    config.write_text(
        f'[box]\ntumble_ms = 0\n[web]\nenabled = true\nbind = "127.0.0.1"\nport = {port}\n'
    )
    served = Served("--config", str(config), "run", "--state-dir", str(tmp_path),
                    env={"PITABLE_BACKENDS": "sim"})
    try:
        served.wait_for_box()
        assert served.port == port
        assert re.fullmatch(r"\d{6}", served.pin), "a new PIN, chosen at start"
        status, state = served.get("/api/state")
        assert status == 200 and state["title"] == "valley"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT_S)
        conn.request("POST", "/api/roll", headers={"X-Pitable-Pin": served.pin})
        assert conn.getresponse().status == 202
        conn.close()
        events = Events(port)
        assert events.until(lambda e: not e["rolling"] and e["roll"] is not None)["roll"]
        events.close()
        served.process.send_signal(signal.SIGTERM)
        code, _, err = served.finish()
        assert code == 0, err
    finally:
        served.kill()


def test_run_rolls_without_its_page_when_the_port_is_taken(tmp_path: Path) -> None:
    config = tmp_path / "pitable.toml"
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        config.write_text(
            f'[box]\ntumble_ms = 0\n[web]\nenabled = true\nbind = "127.0.0.1"\nport = {port}\n'
        )
        process = subprocess.Popen(
            [sys.executable, "-m", "pitable", "--config", str(config), "run",
             "--state-dir", str(tmp_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PITABLE_BACKENDS": "sim"},
        )
        try:
            assert process.stderr is not None
            lines: list[str] = []
            for line in process.stderr:
                lines.append(line)
                if "pitable is running" in line:
                    break
            assert any("web page is off" in x and "Address already in use" in x
                       for x in lines), "".join(lines)
            assert process.poll() is None, "the box runs on without its page"
            process.send_signal(signal.SIGTERM)
            _, err = process.communicate(timeout=60)
            assert process.returncode == 0, err
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()


def test_a_fixed_pin_in_the_config_is_the_pin(tmp_path: Path) -> None:
    config = tmp_path / "pitable.toml"
    config.write_text('[web]\nenabled = true\nbind = "127.0.0.1"\nport = 8080\npin = "2468"\n')
    served = Served("--config", str(config), "sim", "--script", "press",
                    "--web", "127.0.0.1:0")
    try:
        served.wait_for_page()
        assert served.pin == "2468"
        code, _, err = served.finish()
        assert code == 0, err
    finally:
        served.kill()


def run_main(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    return code, capsys.readouterr().err


@pytest.mark.parametrize("address", ["", "8080", "127.0.0.1", "127.0.0.1:", ":8080",
                                     "127.0.0.1:99999", "127.0.0.1:-1", "host.example:80",
                                     "300.1.2.3:80", "[::1:80", "127.0.0.1:８０"])
def test_a_bad_host_port_is_one_line_and_exit_2(address: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_main(["sim", "--script", "press", "--web", address], capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert "--web" in lines[-1] and "HOST:PORT" in lines[-1]
    assert "Traceback" not in err


@pytest.mark.parametrize("pin", ["", "123", "1234567", "12a4", "١٢٣٤"])
def test_a_bad_pin_is_one_line_and_exit_2(pin: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_main(["sim", "--script", "press", "--web", "127.0.0.1:0", "--pin", pin],
                         capsys)
    assert code == 2 and "--pin" in err.strip().splitlines()[-1]


def test_a_pin_without_the_web_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_main(["sim", "--script", "press", "--pin", "1234"], capsys)
    assert code == 2 and "--pin: only with --web" in err


def test_a_port_in_use_is_one_line_and_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        code, err = run_main(["sim", "--script", "press", "--web", f"127.0.0.1:{port}"],
                             capsys)
    assert code == 1
    assert err.strip().splitlines()[-1].endswith(
        f"cannot serve the page on 127.0.0.1:{port}: Address already in use"
    )
    assert "Traceback" not in err


@pytest.mark.parametrize(("table", "key"), [
    ('bind = "pi.local"', "web.bind"),
    ("port = 80", "web.port"),
    ("port = 70000", "web.port"),
    ('pin = "12"', "web.pin"),
    ('pin = "12345a"', "web.pin"),
    ("enabled = 1", "web.enabled"),
    ("pin_code = 1234", "web.pin_code"),
])
def test_a_wrong_web_table_names_its_key(table: str, key: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "pitable.toml"
    config.write_text(f"[web]\n{table}\n")
    code, err = run_main(["config", "check", str(config)], capsys)
    assert code == 2 and f"{key}:" in err


def test_the_web_is_off_by_default() -> None:
    from pitable.config import DEFAULTS, loads_config

    assert DEFAULTS.web.enabled is False and DEFAULTS.web.pin == ""
    assert loads_config(DEFAULTS.to_toml()) == DEFAULTS


def test_players_without_the_web_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_main(["sim", "--script", "press", "--players", "2"], capsys)
    assert code == 2 and "--players: only with --web" in err


@pytest.mark.parametrize("count", ["0", "101", "two"])
def test_a_bad_player_count_is_one_line_and_exit_2(count: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run_main(["sim", "--script", "press", "--web", "127.0.0.1:0", "--players",
                          count], capsys)
    assert code == 2 and "--players" in err.strip().splitlines()[-1]


def test_sim_seats_bot_players_who_play_every_roll(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from pitable.box.players import PlayerBook
    from pitable.box.store import SessionStore

    code = main(["sim", "--web", "127.0.0.1:0", "--players", "3", "--game", "temple",
                 "--state-dir", str(tmp_path), "--seed", "4",
                 "--script", "press,wait2500,press,wait2500"])
    assert code == 0
    out = capsys.readouterr().out
    with SessionStore.open_read_only(tmp_path) as store:
        game = store.current_game()
        assert game is not None
        book = PlayerBook(store)
        players = book.players(game.id)
        assert [p.initials for p in players] == ["ZA", "ZB", "ZC"]
        # The Temple writes one number a turn; at a table a mummy goes on another's sheet.
        written = [r.n for r in store.rolls(game.id) if not r.hazard]
        for player in players:
            assert [m.round for m in book.moves(player.id)] == written
            assert book.done_rounds(player.id) == {1, 2}
            assert f"{player.initials}: {len(written)} move" in out
