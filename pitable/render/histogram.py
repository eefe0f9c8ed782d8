"""The face counts of ``pitable fairness`` as a bar chart, one panel per die."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from pitable.render.fonts import BOLD, font
from pitable.rules.fairness import DieFairness

COLOURS = {"green": (46, 139, 87), "purple": (128, 60, 160), "red": (200, 40, 40)}
PANEL_W, PANEL_H, MARGIN = 300, 260, 20


def draw_histogram(report: Sequence[DieFairness], *, source: str = "") -> Image.Image:
    """One bar per face and die, the expected count as a line, chi-square and p under each."""
    width = MARGIN + len(report) * (PANEL_W + MARGIN)
    height = PANEL_H + 70
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    rolls = report[0].rolls if report else 0
    draw.text((MARGIN, 8), f"{rolls} rolls from {source}", fill="black", font=font(16, BOLD))
    top = max((max(d.counts) for d in report), default=1) or 1
    for i, die in enumerate(report):
        x0 = MARGIN + i * (PANEL_W + MARGIN)
        y_base = 40 + PANEL_H - 40
        bar_w = PANEL_W // len(die.counts)
        colour = COLOURS.get(str(die.die), (80, 80, 80))
        for j, (face, count) in enumerate(zip(die.faces, die.counts, strict=True)):
            h = int((PANEL_H - 60) * count / top)
            bx = x0 + j * bar_w
            draw.rectangle((bx + 4, y_base - h, bx + bar_w - 4, y_base), fill=colour)
            draw.text((bx + bar_w // 2 - 5, y_base + 4), str(face), fill="black", font=font(14))
        expected = die.rolls / len(die.counts)
        ey = y_base - int((PANEL_H - 60) * expected / top)
        draw.line((x0, ey, x0 + PANEL_W, ey), fill="black", width=1)
        draw.text(
            (x0, y_base + 26),
            f"{die.die}: chi2 {die.chi2:.2f}, p {die.p_value:.3f}",
            fill="black",
            font=font(14),
        )
    return image
