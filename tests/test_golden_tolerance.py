"""The goldens' comparison: exact with today's Pillow, a stated share of pixels with the
Pillow before 10 that Debian bookworm ships (and the box uses on the Pi)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests import conftest


def pictures(tmp_path: Path, changed: int) -> tuple[Image.Image, Path]:
    golden = Image.new("1", (128, 64))
    golden.save(tmp_path / "golden.png")
    image = golden.copy()
    for x in range(changed):
        image.putpixel((x, 10), 1)
    return image, tmp_path / "golden.png"


@pytest.mark.parametrize("old", [False, True])
def test_an_equal_picture_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 old: bool) -> None:
    monkeypatch.setattr(conftest, "old_pillow", lambda: old)
    conftest.assert_golden_image(*pictures(tmp_path, 0))


def test_with_todays_pillow_one_pixel_fails(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conftest, "old_pillow", lambda: False)
    with pytest.raises(pytest.fail.Exception, match=r"in 1 pixels .*at most 0"):
        conftest.assert_golden_image(*pictures(tmp_path, 1))


def test_with_an_old_pillow_a_few_pixels_pass_and_more_fail(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(conftest, "old_pillow", lambda: True)
    allowed = int(128 * 64 * conftest.OLD_PILLOW_SHARE)
    conftest.assert_golden_image(*pictures(tmp_path, allowed))
    with pytest.raises(pytest.fail.Exception, match=f"in {allowed + 1} pixels"):
        conftest.assert_golden_image(*pictures(tmp_path, allowed + 1))
