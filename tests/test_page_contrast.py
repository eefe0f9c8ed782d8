"""Every text on the table's page reads across a table: WCAG AA's 4.5:1 at least between a
text's colour and its background, for each pair style.css sets and for the white words and
pips dice.js draws on the dice.

The pairs are read from the files themselves, so a colour changed in either is checked
again; a rule that sets a colour and is not named below fails too, so that a new text
cannot slip past unchecked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import pitable.web

STATIC = Path(pitable.web.__file__).parent / "static"
#: WCAG 2.x success criterion 1.4.3 (AA) for text of any size.
AA = 4.5
#: The page's own background: what a text sits on when its rule names none.
GROUND = "html, body"
#: Each text the page shows: the rule that gives its colour and the rule whose background
#: it sits on (a rule's colour is inherited by the selectors it is written for).
TEXTS: dict[str, tuple[str, str]] = {
    "the page's text": (GROUND, GROUND),
    "the round and dangers line": ("#game", GROUND),
    "the last rolls' heading": ("h2", GROUND),
    "the link's word": (".link", GROUND),
    "the link to play on a phone": (".play-link", GROUND),
    "the link's dot when live": (".link.live::before", GROUND),
    "the link's dot when lost": (".link.lost::before", GROUND),
    "a hazard's first line": (".hazard .words p:first-child", ".hazard .words p:first-child"),
    "a green chip": (".chip", ".chip.green"),
    "a purple chip": (".chip", ".chip.purple"),
    "a red chip": (".chip", ".chip.red"),
    "the actions' summary": ("summary", GROUND),
    "a field": ("input, select, button", "input, select, button"),
    "a button": ("input, select, button", "button"),
    "the ROLL button": ("#roll", "#roll"),
    "the answer to an action": ("#answer", GROUND),
}


def relative_luminance(colour: str) -> float:
    """WCAG's relative luminance of an sRGB ``#rrggbb`` or ``#rgb`` colour."""
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    channels = []
    for i in (0, 2, 4):
        c = int(digits[i:i + 2], 16) / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    red, green, blue = channels
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours, from 1 (the same) to 21 (black on white)."""
    lighter, darker = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def stylesheet_rules(css: str) -> dict[str, dict[str, str]]:
    """style.css's declarations by selector, custom properties (``var(--x)``) filled in;
    a selector's declarations from every rule and media query merged, the later winning.

    Enough CSS for this page's sheet: rules, ``@media`` blocks around rules, and
    ``@font-face`` blocks (skipped); no nesting beyond that.
    """
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    rules: dict[str, dict[str, str]] = {}
    for prelude, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        # A rule inside @media is matched alone: its prelude cannot reach back over "{".
        selector = " ".join(prelude.split())
        if selector.startswith("@"):
            continue
        declarations = rules.setdefault(selector, {})
        for declaration in body.split(";"):
            name, colon, value = declaration.partition(":")
            if colon:
                declarations[name.strip()] = value.strip()
    variables = rules.get(":root", {})

    def filled(value: str) -> str:
        # Only the page-wide properties (:root's) are filled in; a local one (a size) stays.
        return re.sub(r"var\((--[\w-]+)\)",
                      lambda m: variables.get(m.group(1), m.group(0)), value)

    return {selector: {name: filled(value) for name, value in declarations.items()}
            for selector, declarations in rules.items()}


def colour_of(rules: dict[str, dict[str, str]], selector: str, prop: str) -> str:
    value = rules.get(selector, {}).get(prop)
    assert value is not None, f"style.css has no rule {selector} {{{prop}: ...}}"
    found = re.search(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b", value)
    assert found, f"{selector} {{{prop}: {value}}}: write the page's colours as #rrggbb"
    return found.group(0).lower()


def background_of(rules: dict[str, dict[str, str]], selector: str) -> str:
    declarations = rules[selector]
    prop = "background-color" if "background-color" in declarations else "background"
    return colour_of(rules, selector, prop)


def script_colours() -> tuple[str, dict[str, str]]:
    """dice.js's ink drawn on the dice and its die colours."""
    script = (STATIC / "dice.js").read_text()
    ink = re.search(r'const INK = "(#[0-9a-fA-F]{6})"', script)
    table = re.search(r"const COLOURS = \{([^}]*)\}", script)
    assert ink and table, "dice.js names its INK and its dice's COLOURS"
    dice = dict(re.findall(r'(\w+): "(#[0-9a-fA-F]{6})"', table.group(1)))
    return ink.group(1).lower(), {die: colour.lower() for die, colour in dice.items()}


@pytest.fixture(scope="module")
def rules() -> dict[str, dict[str, str]]:
    return stylesheet_rules((STATIC / "style.css").read_text())


def test_the_contrast_formula_gives_wcag_s_known_answers() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#ffffff", "#000") == pytest.approx(21.0)
    assert contrast("#3a7", "#3a7") == pytest.approx(1.0)
    # The grey that WebAIM and the WCAG notes give as just passing AA on white.
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("text", list(TEXTS))
def test_every_text_of_the_stylesheet_reads_at_wcag_aa(
    rules: dict[str, dict[str, str]], text: str
) -> None:
    coloured, ground = TEXTS[text]
    ink, paper = colour_of(rules, coloured, "color"), background_of(rules, ground)
    ratio = contrast(ink, paper)
    assert ratio >= AA, f"{text}: {ink} on {paper} is {ratio:.2f}:1, under {AA}:1"


def test_the_words_and_pips_on_every_die_read_at_wcag_aa() -> None:
    ink, dice = script_colours()
    assert set(dice) == {"green", "purple", "red"}
    low = {die: round(contrast(ink, colour), 2) for die, colour in dice.items()
           if contrast(ink, colour) < AA}
    assert not low, f"{ink} on the dice reads under {AA}:1: {low}"


def test_the_last_rolls_chips_wear_their_dice_s_colours(rules: dict[str, dict[str, str]]) -> None:
    _, dice = script_colours()
    chips = {die: background_of(rules, f".chip.{die}") for die in dice}
    assert chips == dice


def test_every_colour_of_the_stylesheet_is_checked(rules: dict[str, dict[str, str]]) -> None:
    checked_texts = {coloured for coloured, _ in TEXTS.values()}
    checked_grounds = {ground for _, ground in TEXTS.values()}
    texts = {s for s, d in rules.items() if "color" in d}
    grounds = {s for s, d in rules.items()
               if re.search(r"#[0-9a-fA-F]{3,6}\b",
                            d.get("background", d.get("background-color", "")))}
    assert texts <= checked_texts, f"text colours not checked: {sorted(texts - checked_texts)}"
    assert grounds <= checked_grounds, f"grounds not checked: {sorted(grounds - checked_grounds)}"
