"""Talking to systemd: READY once the parts are up, the watchdog from the loop, STOPPING.

systemd/pitable.service runs the box with ``Type=notify`` and ``WatchdogSec=``: systemd
waits for ``READY=1`` before it counts the service as started, and kills and restarts it
when ``WATCHDOG=1`` stops coming (a hung loop). Outside systemd (``pitable run`` in a
terminal, the tests) ``$NOTIFY_SOCKET`` is unset and every call here does nothing.

The protocol is one datagram of ``KEY=VALUE`` lines to the AF_UNIX socket named in
``$NOTIFY_SOCKET`` (a leading ``@`` names Linux's abstract namespace). It is written out
here rather than taken from a package: python-systemd needs libsystemd's headers and a C
compiler to install, which a Pi Zero should not be asked for, and the ``sdnotify`` package
is unmaintained; the whole client is a dozen lines of :mod:`socket`.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Mapping

from pitable.hw.clock import Clock, MonotonicClock

log = logging.getLogger("pitable.service")


class Notifier:
    """An sd_notify client for the socket in ``environ`` (default: the process environment).

    ``clock`` (monotonic by default) rate-limits :meth:`watchdog` to one datagram per half
    of ``$WATCHDOG_USEC``, as sd_watchdog_enabled(3) advises, so the loop may call it on
    every turn.
    """

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        *,
        clock: Clock | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        self.address = _socket_address(env.get("NOTIFY_SOCKET", ""))
        self.clock = clock or MonotonicClock()
        self.watchdog_interval = _watchdog_interval(env)
        self._last_watchdog: float | None = None
        self.sent: int = 0

    @property
    def enabled(self) -> bool:
        """Whether a service manager is listening."""
        return self.address is not None

    def notify(self, *lines: str) -> bool:
        """Send ``lines`` as one message; False (and a log line) when it could not be sent."""
        if self.address is None:
            return False
        message = "\n".join(lines).encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
                sock.connect(self.address)
                sock.sendall(message)
        except OSError as exc:
            # The service manager going away must not take the box with it.
            log.warning("cannot notify systemd at %s: %s", self.address, exc.strerror or exc)
            return False
        self.sent += 1
        return True

    def ready(self, status: str = "") -> bool:
        """The parts are up: systemd may consider the service started."""
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        """A line that ``systemctl status pitable`` shows."""
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def watchdog(self) -> bool:
        """Pet the watchdog, at most once per half of its interval; True when sent."""
        if self.address is None or self.watchdog_interval is None:
            return False
        now = self.clock.now()
        last = self._last_watchdog
        if last is not None and now - last < self.watchdog_interval / 2:
            return False
        if self.notify("WATCHDOG=1"):
            self._last_watchdog = now
            return True
        return False

    def heartbeat(self) -> None:
        """:meth:`watchdog` in the shape of the box loop's ``heartbeat`` hook."""
        self.watchdog()


def _socket_address(value: str) -> str | bytes | None:
    if not value:
        return None
    if value.startswith("@"):
        # The abstract namespace: a leading NUL byte in place of the '@'.
        return b"\0" + value[1:].encode()
    if value.startswith("/"):
        return value
    # vsock: addresses (systemd 253+, for virtual machines) do not apply to a Pi.
    log.warning("NOTIFY_SOCKET=%s: not a Unix socket path; not notifying systemd", value)
    return None


def _watchdog_interval(env: Mapping[str, str]) -> float | None:
    """$WATCHDOG_USEC in seconds, when the watchdog is meant for this process."""
    usec = env.get("WATCHDOG_USEC", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if pid and pid != str(os.getpid()):
        return None
    return int(usec) / 1_000_000
