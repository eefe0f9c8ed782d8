"""Printing sheets of the game's map from the box's menu, while the box goes on rolling."""

from __future__ import annotations

import threading

import pytest
from PIL import ImageChops

from pitable.render.sheet import render_sheet
from pitable.rules import Title
from pitable.rules.sheets import generate
from tests.support.box import fake_printer, make, print_from_menu, read_faces


def test_the_menu_prints_a_sheet_of_the_games_map(title: Title) -> None:
    printer, paper = fake_printer()
    sim = make("1,2,3", title=title.key, printer=printer)
    sim.press()
    print_from_menu(sim)
    assert sim.box.view().message == f"Printed: {title.short_name} A·1234"
    expected = render_sheet(generate(title, 1234), printer.settings.dots)
    out = paper.printout()
    top = out.crop((0, 0, expected.width, expected.height))
    assert ImageChops.logical_xor(top.convert("1"), expected.convert("1")).getbbox() is None
    assert not paper.overran
    sim.close()


@pytest.mark.parametrize("trouble", ["paper", "hang"])
def test_a_failing_printer_leaves_the_box_rolling_and_the_sheet_can_be_retried(
    trouble: str,
) -> None:
    release = threading.Event()
    if trouble == "paper":
        printer, paper = fake_printer(paper=False)
    else:
        printer, paper = fake_printer(hang=release)
    sim = make("1,1,1", "2,2,2", "3,3,3", "4,4,4", printer=printer)
    sim.press()
    sim.hold()
    sim.turn(+2)
    sim.push()  # One more sheet
    if trouble == "hang":
        for faces in ((2, 2, 2), (3, 3, 3)):
            sim.press()
            assert read_faces(sim, "valley") == faces  # rolling while the printer hangs
        release.set()
    sim.wait_for_prints()
    reason = "paper out" if trouble == "paper" else "timed out"
    assert sim.box.view().message == f"Print failed ({reason}): hold ROLL to retry"
    assert f"printer: {reason}" in sim.box.notices()
    if trouble == "paper":
        sim.press()
        assert read_faces(sim, "valley") == (2, 2, 2)
    paper.paper, paper.hang = True, None
    sim.hold()
    labels = [label for label, _ in sim.box.menu[-1].items]
    assert labels[:4] == ["New game", "Sheets for 4 players", "One more sheet", "Retry the print"]
    sim.turn(+3)
    sim.push()
    sim.wait_for_prints()
    assert sim.box.view().message == "Printed: Valley A·1234"
    assert not any("printer" in n for n in sim.box.notices())
    sim.close()
