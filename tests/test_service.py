"""The sd_notify client against a real AF_UNIX datagram socket, and `pitable run` using it."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pitable.box.service import Notifier
from pitable.hw.clock import FakeClock


@pytest.fixture
def listener(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """A datagram socket standing where systemd's notify socket stands."""
    directory = tmp_path
    # sun_path holds 107 bytes; pytest's directories can be longer than that.
    if len(str(tmp_path / "notify")) > 100:
        directory = Path(tempfile.mkdtemp(prefix="pt-"))
    path = str(directory / "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(0)  # never wait: every message must already be there
    try:
        yield sock, path
    finally:
        sock.close()
        os.unlink(path)
        if directory != tmp_path:
            directory.rmdir()


def received(sock: socket.socket) -> list[str]:
    messages = []
    while True:
        try:
            messages.append(sock.recv(4096).decode())
        except BlockingIOError:
            return messages


def test_ready_status_and_stopping_reach_the_socket(
    listener: tuple[socket.socket, str],
) -> None:
    sock, path = listener
    notifier = Notifier({"NOTIFY_SOCKET": path})
    assert notifier.enabled
    assert notifier.ready("rolling for valley")
    assert notifier.status("green die unplugged")
    assert notifier.stopping()
    assert received(sock) == [
        "READY=1\nSTATUS=rolling for valley",
        "STATUS=green die unplugged",
        "STOPPING=1",
    ]


def test_abstract_socket_names_start_with_at() -> None:
    name = f"pitable-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind(b"\0" + name.encode())
        sock.settimeout(0)
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).ready()
        assert received(sock) == ["READY=1"]


def test_watchdog_is_sent_at_most_once_per_half_interval(
    listener: tuple[socket.socket, str],
) -> None:
    sock, path = listener
    clock = FakeClock(100.0)
    # WatchdogSec=10s: systemd sets WATCHDOG_USEC=10000000.
    notifier = Notifier({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000"}, clock=clock)
    assert notifier.watchdog_interval == 10.0
    sent = []
    for _ in range(25):  # a loop turning every half second for 12 seconds
        sent.append(notifier.watchdog())
        clock.advance(0.5)
    # At 0, 5 and 10 s: every 10 turns, never more than every 5 s.
    assert sent.count(True) == 3
    assert [i for i, s in enumerate(sent) if s] == [0, 10, 20]
    assert received(sock) == ["WATCHDOG=1"] * 3


def test_watchdog_meant_for_another_process_is_left_alone(
    listener: tuple[socket.socket, str],
) -> None:
    sock, path = listener
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": "1"}
    assert not Notifier(env).watchdog()
    assert received(sock) == []


def test_without_notify_socket_everything_is_a_no_op() -> None:
    notifier = Notifier({"WATCHDOG_USEC": "10000000"})
    assert not notifier.enabled
    assert not notifier.ready()
    assert not notifier.watchdog()
    assert not notifier.stopping()
    assert notifier.sent == 0


def test_a_vanished_socket_is_logged_not_raised(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    notifier = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    assert not notifier.ready()
    assert "cannot notify systemd" in caplog.text


def test_pitable_run_says_ready_feeds_the_watchdog_and_says_stopping(
    listener: tuple[socket.socket, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`pitable run` under systemd: READY once built, WATCHDOG from the loop, STOPPING."""
    from pitable.box import assembly
    from pitable.box.backends import Backends
    from pitable.commands.box import run_box

    sock, path = listener
    monkeypatch.setenv("NOTIFY_SOCKET", path)
    monkeypatch.setenv("WATCHDOG_USEC", "10000000")
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    real_build = assembly.build_box
    beats: list[int] = []

    def build_on_fakes(config: Any, **kwargs: Any) -> Any:
        built = real_build(config, backends=Backends.simulated(config), **kwargs)
        loop = built.box.run

        def run(heartbeat: Any = None) -> None:
            def beat() -> None:
                # By the first turn of the loop, READY must already have been sent.
                assert received(sock)[0].startswith("READY=1")
                heartbeat()
                beats.append(1)
                built.box.stop()

            loop(heartbeat=beat)

        built.box.run = run
        return built

    monkeypatch.setattr(assembly, "build_box", build_on_fakes)
    old_handler = signal.getsignal(signal.SIGTERM)
    try:
        args = argparse.Namespace(config=None, state_dir=str(tmp_path / "state"))
        assert run_box(args) == 0
    finally:
        signal.signal(signal.SIGTERM, old_handler)
    assert beats == [1]
    assert received(sock) == ["WATCHDOG=1", "STOPPING=1"]
