"""The table's snapshots: what a web page or a TV is handed after each visible change."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from pitable.box.snapshot import TableSnapshot
from pitable.rules import Roll, find_title
from pitable.rules.session import Mode
from tests.support.box import make


def watch(sim: object) -> list[TableSnapshot]:
    seen: list[TableSnapshot] = []
    sim.box.publisher.subscribe(seen.append)  # type: ignore[attr-defined]
    return seen


def test_a_roll_is_published_after_the_tumble_with_what_it_allows() -> None:
    sim = make("2,4,5", tumble_ms=300)
    seen = watch(sim)
    sim.press()
    rolling = [s for s in seen if s.rolling]
    assert rolling, "the tumble is published as rolling"
    assert all(s.options is None and s.words == () for s in rolling), "no face before the dice"
    final = seen[-1]
    assert not final.rolling
    expected = find_title("valley").options(Roll.from_str("2,4,5")).to_json()
    assert final.options == expected
    assert final.to_json()["roll"] == [2, 4, 5]
    assert final.to_json()["numbers"] == expected["numbers"]
    assert final.words and final.words[0]
    assert final.recent == (expected,)
    assert final.map == sim.box.view().map_tag is not None
    # Published in order, each one different from the one before.
    assert [s.seq for s in seen] == sorted({s.seq for s in seen})
    json.dumps(final.to_json())
    sim.close()


def test_a_blink_alone_publishes_nothing_new() -> None:
    sim = make("1,1,*", tumble_ms=0)
    seen = watch(sim)
    sim.press()
    count = len(seen)
    sim.advance(2.0)
    assert len(seen) == count
    assert seen[-1].to_json()["hazard"] is True
    sim.close()


def test_the_recent_rolls_are_newest_first_and_a_new_game_clears_them() -> None:
    sim = make("1,2,3", "4,4,4", tumble_ms=0)
    seen = watch(sim)
    sim.press()
    sim.advance(2.0)
    sim.press()
    assert [r["roll"] for r in seen[-1].recent] == [[4, 4, 4], [1, 2, 3]]
    sim.box.start_game(find_title("island"), "table")
    assert seen[-1].title == "island"
    assert seen[-1].recent == () and seen[-1].options is None
    sim.close()


def test_a_new_table_game_of_the_same_title_clears_the_recent_rolls() -> None:
    sim = make("1,2,3", "4,4,4", tumble_ms=0)
    seen = watch(sim)
    sim.press()
    assert len(seen[-1].recent) == 1
    sim.box.start_game(find_title("valley"), "table")
    assert seen[-1].recent == () and seen[-1].options is None
    sim.advance(2.0)
    sim.press()
    assert [r["roll"] for r in seen[-1].recent] == [[4, 4, 4]]
    sim.close()


def test_a_snapshot_cannot_be_changed() -> None:
    sim = make("1,2,3")
    seen = watch(sim)
    sim.press()
    with pytest.raises(dataclasses.FrozenInstanceError):
        seen[-1].rolling = True  # type: ignore[misc]
    sim.close()


def test_a_failing_watcher_does_not_stop_the_box() -> None:
    sim = make("1,2,3", "2,2,2")

    def broken(_: TableSnapshot) -> None:
        raise RuntimeError("watcher down")

    sim.box.publisher.subscribe(broken)
    seen = watch(sim)
    sim.press()
    assert seen[-1].roll == [1, 2, 3]
    sim.close()


@pytest.mark.parametrize("lang", ["en", "fr", "es"])
def test_the_words_are_the_status_screens_in_its_language(lang: str) -> None:
    from pitable.render.status import status_lines

    sim = make("2,4,*", title="island", tumble_ms=0)
    seen = watch(sim)
    sim.box.set_language(lang)
    sim.press()
    words = seen[-1].words
    assert words
    view = sim.box.view()
    screen = " ".join(line for page in status_lines(view, sim.box.status.size) for line in page)
    # The screen wraps, pages and abridges the same sentences: each word is on it.
    on_screen = set(re.findall(r"\w+", screen))
    for line in words:
        assert set(re.findall(r"\w+", line)) <= on_screen, line
    if lang != "en":
        english = find_title("island").reading(sim.box.game.last_options, solo=False)
        assert words[0] != english.headline
    sim.close()


def test_the_snapshot_s_mode_is_the_mode_and_its_json_the_plain_word() -> None:
    sim = make("1,2,3", mode="solo", tumble_ms=0)
    seen = watch(sim)
    sim.press()
    assert seen[-1].mode is Mode.SOLO
    assert json.loads(json.dumps(seen[-1].to_json()))["mode"] == "solo"
    assert type(seen[-1].to_json()["mode"]) is str
    sim.close()
