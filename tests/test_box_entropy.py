"""The box keeps answering while its entropy device blocks, and says where each roll came from."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from pitable.box.sim import Simulator
from pitable.box.store import SessionStore
from pitable.config import DEFAULTS
from pitable.hw.entropy import FallbackSource, HwrngSource, PooledSource, open_source
from tests.support.box import read_faces
from tests.support.entropy import StallingStream, good_bytes

CONFIG = dataclasses.replace(
    DEFAULTS, box=dataclasses.replace(DEFAULTS.box, tumble_ms=0, mode="table", title="valley")
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SessionStore]:
    with SessionStore.open(tmp_path / "state") as opened:
        yield opened


def press_within_a_second(sim: Simulator) -> None:
    """One press, and no more than a second of box time for it to show."""
    sim.button_down()
    sim.advance(0.1)
    sim.button_up()
    sim.advance(0.9)


def test_a_silent_device_does_not_stall_the_box_it_falls_back_and_says_so(
    fifo: Path, store: SessionStore
) -> None:
    entropy = open_source(str(fifo), deadline_s=0.2)
    sim = Simulator(CONFIG, entropy=entropy, store=store)
    press_within_a_second(sim)
    assert sim.box.game.state.rounds == 1
    assert len(read_faces(sim, "valley")) == 3
    assert "hwrng failed: OS generator" in sim.box.notices()
    press_within_a_second(sim)
    assert sim.box.game.state.rounds == 2
    game_id = sim.box.game.store_id
    assert game_id is not None
    assert [r.source for r in store.rolls(game_id)] == ["os", "os"]
    sim.close()
    entropy.close()


def test_a_silent_required_device_refuses_the_roll_and_the_box_still_answers(
    fifo: Path,
) -> None:
    entropy = open_source(str(fifo), require=True, deadline_s=0.2)
    sim = Simulator(CONFIG, entropy=entropy)
    for _ in range(2):
        press_within_a_second(sim)
        assert sim.box.game.state.rounds == 0
        assert sim.box.view().message == "No trusted randomness: roll refused"
    sim.close()
    entropy.close()


def test_after_a_stall_mid_game_the_store_says_which_rolls_came_from_the_device(
    store: SessionStore,
) -> None:
    # Two small windows of checked bytes (about 27 rolls), then the device blocks for good.
    stream = StallingStream(good_bytes(32))
    try:
        entropy = FallbackSource(
            PooledSource(HwrngSource(stream, block=16), deadline_s=0.2, chunk=16)
        )
        sim = Simulator(CONFIG, entropy=entropy, store=store)
        presses = 0
        while not entropy.degraded:
            press_within_a_second(sim)
            presses += 1
            assert presses < 40
        for _ in range(3):
            press_within_a_second(sim)
        assert sim.box.game.state.rounds == presses + 3
        game_id = sim.box.game.store_id
        assert game_id is not None
        sources = [r.source for r in store.rolls(game_id)]
        first_os = sources.index("os")
        assert first_os > 5
        assert set(sources[:first_os]) == {"hwrng:stalling"}
        assert set(sources[first_os:]) == {"os"}
        sim.close()
        entropy.close()
    finally:
        stream.release.set()


@pytest.mark.parametrize("require", [False, True])
def test_a_device_that_turns_periodic_mid_game_is_dropped_and_the_box_says_so(
    store: SessionStore, caplog: pytest.LogCaptureFixture, require: bool
) -> None:
    # The start-up block passes; then the device hands out its first block again and again:
    # no byte runs, none comes too often, so only the periodic test can see it.
    first = good_bytes(64)
    entropy = FallbackSource(
        PooledSource(HwrngSource(io.BytesIO(first * 50), block=64), deadline_s=0.5, chunk=16),
        require=require,
    )
    sim = Simulator(CONFIG, entropy=entropy, store=store)
    refused = "No trusted randomness: roll refused"
    presses = 0
    while sim.box.view().message != refused and not entropy.degraded:
        press_within_a_second(sim)
        presses += 1
        assert presses < 80
    game_id = sim.box.game.store_id
    assert game_id is not None
    assert "periodic compression test" in caplog.text
    press_within_a_second(sim)
    sources = [r.source for r in store.rolls(game_id)]
    device = sources.index("os") if "os" in sources else len(sources)
    assert device > 0 and set(sources[:device]) == {"hwrng:<stream>"}
    if require:
        assert sim.box.view().message == refused
        assert device == len(sources) == presses - 1  # the refused press saved nothing
    else:
        assert "hwrng failed: OS generator" in sim.box.notices()
        assert sources[device:] == ["os", "os"]  # the press that failed over, and the next
    sim.close()
    entropy.close()
