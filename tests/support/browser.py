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
from PIL import Image, ImageChops

from tests.conftest import golden_image, kept_failure

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


#: A pixel differs when a channel differs by more than this; a screenshot matches its
#: golden when at most this share of its pixels differ.
PIXEL_TOLERANCE = 48
SHARE_TOLERANCE = 0.01


def assert_looks_like_golden(image: Image.Image, path: Path) -> None:
    """``image`` (a screenshot) is its golden at ``path`` but for a font's antialiasing on
    another build of Chromium: at most :data:`SHARE_TOLERANCE` of its pixels differ."""
    expected = golden_image(path, image).convert("RGB")
    assert expected.size == image.size
    diff = ImageChops.difference(expected, image).convert("L")
    differing = sum(diff.point(lambda v: 255 if v > PIXEL_TOLERANCE else 0).histogram()[255:])
    share = differing / (image.width * image.height)
    if share > SHARE_TOLERANCE:
        failed = kept_failure(path, image)
        pytest.fail(f"{path.name}: {share:.1%} of the pixels differ from its golden"
                    f" (at most {SHARE_TOLERANCE:.0%}); this run's: {failed}")
