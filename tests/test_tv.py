"""The TV over HDMI: the table's faceplate drawn from the box's snapshots on a worker thread,
on luma's dummy device here (its linux_framebuffer on the Pi)."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from PIL import Image, ImageChops

from pitable.box.assembly import build_box
from pitable.box.backends import Backends, open_tv
from pitable.box.join import join_code
from pitable.box.snapshot import TableSnapshot
from pitable.box.tv import TvWorker
from pitable.config import DEFAULTS, TvConfig
from pitable.errors import DisplayError
from pitable.hw.framebuffer import open_framebuffer
from pitable.render.join import JoinCode, join_tile
from pitable.render.tv import ALARM, DIE_COLOURS, die_square, draw_tv
from pitable.rules import SPECIAL, Die, find_title
from tests.conftest import run_cli
from tests.support.box import make, read_faces
from tests.support.network import LOCAL_NAME, WILDCARD, RouteTable
from tests.support.qr import URL, library_matrix, read_qr

VALLEY = find_title("valley")


def snapshot(
    roll: str | None = "2,3,5", *, seq: int = 1, rolling: bool = False, hazard: bool = False,
    words: tuple[str, ...] = ("Write", "one number"),
) -> TableSnapshot:
    options = None
    if roll is not None:
        faces = [f if f == "*" else int(f) for f in roll.split(",")]
        options = {"title": "valley", "roll": faces, "hazard": hazard, "numbers": [2, 3, 5]}
    return TableSnapshot(seq=seq, title="valley", title_name=VALLEY.name, mode="table",
                         map="A·1234", rolling=rolling, options=options, words=words, round=seq,
                         round_limit=None, hazards=None, hazard_limit=None, result=None,
                         message=None, recent=(options,) if options else ())


def colour_box(picture: Image.Image, colour: tuple[int, int, int]) -> tuple[int, int, int, int]:
    """Where ``colour`` is in ``picture`` (its bounding box)."""
    mask = ImageChops.difference(picture, Image.new("RGB", picture.size, colour)).convert("L")
    box = mask.point(lambda v: 255 if v == 0 else 0).getbbox()
    assert box is not None, f"no {colour} in the picture"
    return box


def shown_face(picture: Image.Image, die: Die) -> object:
    """Which face the TV shows on ``die``: its coloured square compared with every face's."""
    box = colour_box(picture, DIE_COLOURS[die])
    shown = picture.crop(box)
    side = box[2] - box[0] + 1
    matches = []
    for face in (None, 1, 2, 3, 4, 5, SPECIAL):
        for s in range(side - 2, side + 3):
            square = die_square(face, die, VALLEY, s)
            if square.crop(colour_box(square, DIE_COLOURS[die])) == shown:
                matches.append(face)
    assert len(matches) == 1, f"the {die} die shows {matches}"
    return matches[0]


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_the_tv_shows_the_three_dice_in_their_colours(size: tuple[int, int]) -> None:
    picture = draw_tv(snapshot("2,*,5"), size)
    assert picture.size == size
    assert [shown_face(picture, die) for die in Die] == [2, SPECIAL, 5]


def test_during_the_tumble_the_tv_shows_no_faces() -> None:
    picture = draw_tv(snapshot(None, rolling=True, words=()))
    assert [shown_face(picture, die) for die in Die] == [None, None, None]


def test_a_hazard_dims_the_other_dice_and_shows_the_alarm() -> None:
    picture = draw_tv(snapshot("2,3,*", hazard=True, words=("SNAKE!", "Ignore the other dice")))
    colours = {c for _, c in picture.getcolors(maxcolors=1 << 20)}  # type: ignore[union-attr]
    assert ALARM in colours
    assert DIE_COLOURS[Die.RED] in colours
    assert DIE_COLOURS[Die.GREEN] not in colours and DIE_COLOURS[Die.PURPLE] not in colours
    calm = draw_tv(snapshot("2,3,5"))
    assert ALARM not in {c for _, c in calm.getcolors(maxcolors=1 << 20)}  # type: ignore[union-attr]


def test_the_join_code_sits_in_the_bottom_right_corner() -> None:
    code = JoinCode(URL, "4821")
    picture = draw_tv(snapshot(), (1920, 1080), code)
    left, top, right, bottom = colour_box(picture, (255, 255, 255))
    assert right > 1920 * 3 // 4 and bottom > 1080 * 3 // 4
    tile = picture.crop((left, top, right, bottom))
    assert tile == join_tile(code, tile.width)
    matrix = library_matrix(URL)
    assert read_qr(tile, len(matrix)) == matrix
    without = draw_tv(snapshot(), (1920, 1080))
    assert (255, 255, 255) not in {c for _, c in without.getcolors(maxcolors=1 << 20)}  # type: ignore[union-attr]


class GatedScreen:
    """A TV whose display() waits for the test: the slow framebuffer of a Pi Zero."""

    def __init__(self) -> None:
        self.size = (640, 360)
        self.mode = "RGB"
        self.gate = threading.Event()
        self.entered = threading.Event()
        self.images: list[Image.Image] = []

    def display(self, image: Image.Image) -> None:
        self.entered.set()
        assert self.gate.wait(30), "the test never opened the gate"
        self.images.append(image)

    def cleanup(self) -> None:
        pass


def test_a_slow_tv_never_holds_up_the_box_and_skips_to_the_newest_roll() -> None:
    screen = GatedScreen()
    worker = TvWorker(screen)
    sim = make("1,1,1", "2,2,2", "3,3,3", "4,4,4")
    sim.box.publisher.subscribe(worker.offer)
    assert screen.entered.wait(30)  # the worker is inside display() with the first picture
    for faces in ((1, 1, 1), (2, 2, 2), (3, 3, 3), (4, 4, 4)):
        sim.press()  # the loop goes on while the TV is stuck
        assert read_faces(sim, "valley") == faces
    screen.gate.set()
    assert worker.wait_idle(30)
    latest = sim.box.publisher.latest
    assert latest is not None
    assert worker.shown == latest.seq
    assert len(screen.images) == 2  # the first picture, then only the newest
    assert worker.skipped > 0
    assert screen.images[-1] == draw_tv(latest, screen.size)
    worker.close()
    sim.close()


def test_a_tv_that_fails_to_draw_is_logged_and_draws_the_next_snapshot(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Flaky(GatedScreen):
        def display(self, image: Image.Image) -> None:
            if not self.images and not self.entered.is_set():
                self.entered.set()
                raise OSError("framebuffer went away")
            self.images.append(image)

    screen = Flaky()
    worker = TvWorker(screen)
    worker.offer(snapshot(seq=1))
    assert worker.wait_idle(30)
    worker.offer(snapshot("4,4,4", seq=2))
    assert worker.wait_idle(30)
    assert worker.shown == 2
    assert "TV: drawing the table failed" in caplog.text
    worker.close()


def tv_on(**changes: Any) -> Any:
    return dataclasses.replace(DEFAULTS, tv=TvConfig(enabled=True, **changes))


def test_the_simulated_box_draws_its_table_on_the_tv() -> None:
    config = tv_on(width=1280, height=720)
    backends = Backends.simulated(config)
    with build_box(config, backends=backends) as built:
        assert built.tv is not None
        assert built.tv.wait_idle(30)
        picture = built.tv.picture()
        assert picture is not None and picture.size == (1280, 720)
        assert picture == backends.fakes.tv.image  # type: ignore[union-attr]
    assert not built.tv._thread.is_alive()


def test_without_a_framebuffer_the_box_rolls_and_says_there_is_no_tv(
    caplog: pytest.LogCaptureFixture,
) -> None:
    missing = next(f"/dev/fb{n}" for n in range(31, 0, -1)
                   if not Path(f"/sys/class/graphics/fb{n}").exists())
    config = tv_on(device=missing)
    backends = Backends.simulated(config).replace(tv=open_tv)
    with caplog.at_level(logging.WARNING, logger="pitable"), \
            build_box(config, backends=backends) as built:
        assert built.tv is None
        assert built.box.view().message == f"No TV on {missing}"
    assert f"TV: no framebuffer at {missing}" in caplog.text
    with pytest.raises(DisplayError, match="is a screen plugged into the HDMI port"):
        open_framebuffer(config.tv.device, bgr=config.tv.bgr)


def test_the_tv_is_off_unless_the_config_turns_it_on() -> None:
    with build_box(DEFAULTS, backends=Backends.simulated(DEFAULTS)) as built:
        assert built.tv is None


def test_sim_writes_the_tv_picture_of_its_last_roll(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    tv = tmp_path / "tv.png"
    code, _, err = run_cli(capsys, "sim", "--script", "press,press", "--seed", "3",
                           "--state-dir", str(tmp_path), "--tv-png", str(tv))
    assert code == 0, err
    with Image.open(tv) as picture:
        assert picture.size == (1920, 1080)
        faces = [shown_face(picture.convert("RGB"), die) for die in Die]
    # The last roll, as the box kept it.
    code, out, err = run_cli(capsys, "history", "--json", "--state-dir", str(tmp_path))
    assert code == 0, err
    last = json.loads(out.splitlines()[-1])["faces"]
    assert faces == [SPECIAL if f == "*" else f for f in last]


class Corners:
    """A TV's draw function that notes the code it put in the corner of each picture."""

    def __init__(self) -> None:
        self.codes: list[JoinCode | None] = []
        self.seqs: list[int] = []
        self.drew = threading.Condition()

    def __call__(self, snap: TableSnapshot, size: tuple[int, int],
                 join: JoinCode | None = None) -> Image.Image:
        picture = draw_tv(snap, size, join)
        with self.drew:
            self.codes.append(join)
            self.seqs.append(snap.seq)
            self.drew.notify_all()
        return picture


class Screen:
    size = (640, 360)
    mode = "RGB"

    def __init__(self) -> None:
        self.image: Image.Image | None = None

    def display(self, image: Image.Image) -> None:
        self.image = image


def test_the_tv_corner_follows_the_network_without_a_roll(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)  # the box starts before its Wi-Fi
    table = SimpleNamespace(web_url=WILDCARD, web_pin="4821")
    corners, screen = Corners(), Screen()
    # No poll of its own in this test's time: the test asks the worker to look.
    worker = TvWorker(screen, lambda: join_code(table), draw=corners, poll_s=3600)
    worker.offer(snapshot(seq=1))
    assert worker.wait_idle(30)
    assert corners.codes == [JoinCode(f"http://{LOCAL_NAME}:8080/", "4821")]
    worker.recheck()  # nothing changed: nothing drawn
    assert worker.wait_idle(30)
    assert len(corners.codes) == 1
    routes.add_default("lo")  # the Wi-Fi comes up
    worker.recheck()
    assert worker.wait_idle(30)
    after = JoinCode("http://127.0.0.1:8080/", "4821")
    assert corners.codes[-1] == after
    assert corners.seqs == [1, 1]  # the same table, drawn again
    assert screen.image is not None
    assert screen.image == draw_tv(snapshot(seq=1), screen.size, after)
    worker.close()


def test_the_tv_looks_at_the_code_by_itself(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    routes = RouteTable.install(monkeypatch, tmp_path)
    table = SimpleNamespace(web_url=WILDCARD, web_pin=None)
    corners = Corners()
    worker = TvWorker(Screen(), lambda: join_code(table), draw=corners, poll_s=0.01)
    worker.offer(snapshot(seq=1))
    assert worker.wait_idle(30)
    assert corners.codes[0] == JoinCode(f"http://{LOCAL_NAME}:8080/", None)
    routes.add_default("lo")  # nobody offers nor asks: the worker's own poll sees it
    with corners.drew:
        assert corners.drew.wait_for(
            lambda: JoinCode("http://127.0.0.1:8080/", None) in corners.codes, 30
        ), "the worker never drew the new code"
    worker.close()


def test_the_tv_shows_the_code_once_the_page_is_served() -> None:
    """The TV starts before the web page: its first picture has no corner yet."""
    table = SimpleNamespace(web_url=None, web_pin=None)
    corners = Corners()
    worker = TvWorker(Screen(), lambda: join_code(table), draw=corners, poll_s=3600)
    worker.offer(snapshot(seq=1))
    assert worker.wait_idle(30)
    table.web_url, table.web_pin = URL, "4821"
    worker.recheck()
    assert worker.wait_idle(30)
    assert corners.codes == [None, JoinCode(URL, "4821")]
    worker.close()


def test_an_ended_table_game_shows_the_winner_large_and_the_ranking() -> None:
    ended = dataclasses.replace(snapshot(None, words=()), message="Winner: AB (42)",
                                ranking=((1, "AB", 42, False), (2, "CD", 40, False)))
    picture = draw_tv(ended)
    assert picture != draw_tv(dataclasses.replace(ended, ranking=()))
    # Each line of the ranking is drawn: another second player makes another picture, in
    # the words' part, below the dice.
    other = draw_tv(dataclasses.replace(ended, ranking=((1, "AB", 42, False),
                                                        (2, "XY", 40, False))))
    changed = ImageChops.difference(picture, other).getbbox()
    assert changed is not None and changed[1] > 1080 // 2
    assert json.loads(json.dumps(ended.to_json()))["ranking"][0] == {
        "place": 1, "initials": "AB", "total": 42, "shared": False}


def test_a_player_s_sheet_is_shown_on_the_right_with_what_is_written() -> None:
    rows = (".....", ".....", ".....")
    blank = (("_",) * 5,) * 3
    written = (("3", "_", "X", "_", "_"), ("_",) * 5, ("_", "_", "_", "_", "12"))
    base = snapshot()
    empty = draw_tv(dataclasses.replace(base, corner=("AB", 0, rows, blank)))
    filled = draw_tv(dataclasses.replace(base, corner=("AB", 7, rows, written)))
    changed = ImageChops.difference(empty, filled).getbbox()
    # What is written shows, on the right of the words, under the dice.
    assert changed is not None and changed[0] > 1920 // 2 and changed[1] > 1080 // 2
    from pitable.render.tv import HAZARD
    assert HAZARD in {c for _, c in filled.getcolors(maxcolors=1 << 20)}  # type: ignore[union-attr]
    assert HAZARD not in {c for _, c in empty.getcolors(maxcolors=1 << 20)}  # type: ignore[union-attr]
    # Without a sheet, the words have the whole width.
    assert draw_tv(base) != empty
