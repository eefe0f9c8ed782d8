"""Debian's headless Chromium, driven by selenium through Debian's chromedriver, on a phone
held upright (nothing is downloaded when the tests run): what the page tests open."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver") or (
    "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None
)
#: A phone held upright.
WINDOW = (412, 915)
#: How long a test waits for the page before it fails.
WAIT_S = 15.0


def need_chromium() -> None:
    """Skip the calling test module without Chromium and its driver (fail on CI)."""
    if CHROMIUM is None or CHROMEDRIVER is None:
        if os.environ.get("CI"):
            pytest.fail(".ci/run installs chromium and chromium-driver: they are missing",
                        pytrace=False)
        pytest.skip("needs Debian's chromium and chromium-driver"
                    " (apt-get install chromium chromium-driver)", allow_module_level=True)


@contextmanager
def chromium(own: Path) -> Iterator[Any]:
    """A headless Chromium with a phone's viewport, its profile and every scratch file of it
    and its driver in ``own`` (not in the machine's temporary directory)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    (own / "tmp").mkdir(exist_ok=True)
    options = webdriver.ChromeOptions()
    assert CHROMIUM is not None and CHROMEDRIVER is not None
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu",
                     "--disable-dev-shm-usage", "--hide-scrollbars",
                     "--force-device-scale-factor=1", "--font-render-hinting=none",
                     f"--window-size={WINDOW[0]},{WINDOW[1]}",
                     f"--user-data-dir={own / 'profile'}", f"--disk-cache-dir={own / 'cache'}"):
        options.add_argument(argument)
    service = Service(executable_path=CHROMEDRIVER,
                      env={**os.environ, "TMPDIR": str(own / "tmp"), "HOME": str(own)})
    driver = webdriver.Chrome(options=options, service=service)
    # Headless Chromium keeps a desktop's least window width: the phone's viewport is set
    # through the DevTools protocol instead.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": WINDOW[0], "height": WINDOW[1], "deviceScaleFactor": 1, "mobile": True,
    })
    try:
        yield driver
    finally:
        driver.quit()


def wait_for(browser: Any, test: Callable[[], object], what: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(browser, WAIT_S).until(lambda _: test(), message=what)
