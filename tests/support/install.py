"""install.sh run into a scratch root that stands in for a Pi's SD card (the ``root``
fixture of conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

#: The source checkout, and its installer.
REPO = Path(__file__).parent.parent.parent
INSTALL = REPO / "install.sh"
#: What the card's boot files hold before the install: the user's own settings.
USER_CONFIG_TXT = "# the user's own settings\ndtparam=audio=on\n[cm4]\notg_mode=1\n"
CMDLINE = "console=serial0,115200 console=tty1 root=PARTUUID=0123-02 rootwait quiet\n"

#: Distribution -> (Debian package, the version Debian bookworm ships on every
#: architecture, armhf and arm64 included: `apt-cache policy` on bookworm with
#: bookworm-updates and bookworm-security; Debian revisions left out).
BOOKWORM = {
    "pillow": ("python3-pil", "9.4.0"),
    "cbor2": ("python3-cbor2", "5.4.6"),
}
OS_PACKAGES = {dist: package for dist, (package, _) in BOOKWORM.items()}


def install(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """install.sh ARGS into ``root``, with this Python."""
    env = {**os.environ, "PITABLE_PYTHON": sys.executable}
    env.pop("PITABLE_ROOT", None)
    return subprocess.run(
        ["bash", str(INSTALL), "--root", str(root), *args],
        capture_output=True, text=True, env=env, check=False, timeout=60,
    )


