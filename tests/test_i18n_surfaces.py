"""Every surface the players see speaks the box's language: no English is left on the
printed sheets (strip and page), the status screen, the dice panels' labels, the TV, the
table page's words or the terminal simulator, in any language of the box.

English is found by its words: a word of the source's messages that no translation in the
language uses (so "Total", "solo" or "Navigation", which French uses too, is not counted)
and that is not a name the series keeps in every language.
"""

from __future__ import annotations

import re

import pytest

from pitable import i18n
from pitable.box.terminal import status_words, terminal_screen
from pitable.render.faces import die_label
from pitable.render.sheet import Text, strip_layout
from pitable.render.sheet_pdf import page_layout
from pitable.render.status import StatusView, status_lines
from pitable.render.tv import _status_line
from pitable.rules import DICE, Roll, Title
from pitable.rules.base import PENNY_HIGH, PENNY_LOW
from pitable.rules.sheets import generate
from pitable.web.app import STATIC
from pitable.web.words import page_words
from tests.conftest import GOLDEN, run_cli
from tests.support.box import configured, make
from tests.support.i18n import english_in, has_translations
from tests.support.titles import title_params

TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]
#: The titles whose words the catalogues translate (the toy title of tests/ brings none).
TRANSLATED_TITLES = title_params(has_translations)


def test_the_detector_finds_english() -> None:
    assert english_in(["Stars to beat: 70", "Points à battre : 70", "Penny Papers"], "fr") == \
        ["Stars to beat: 70"]


def sheet_texts(title: Title | str, lang: str, *, page: bool) -> list[str]:
    sheet = generate(title, 7, "a")
    if page:
        drawing = page_layout(sheet, "a4", solo=True, target=70, lang=lang)
    else:
        drawing = strip_layout(sheet, 384, solo=True, target=70, lang=lang)
    return [s.text for s in drawing.shapes if isinstance(s, Text)]


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("title", TRANSLATED_TITLES, indirect=True)
@pytest.mark.parametrize("page", [False, True], ids=["strip", "page"])
def test_a_printed_sheet_has_no_english(title: Title, lang: str, page: bool) -> None:
    texts = sheet_texts(title, lang, page=page)
    assert english_in(texts, lang) == []
    # And the detector would have seen the English sheet's words.
    assert english_in(sheet_texts(title, "en", page=page), lang)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_dice_labels_and_the_page_have_no_english(lang: str) -> None:
    labels = [die_label(die, lang) for die in DICE]
    assert english_in(labels, lang) == []
    words = page_words(lang)
    texts = [*words["words"].values(), *words["dice"].values(),  # type: ignore[union-attr]
             *words["green"].values(), *(t["name"] for t in words["titles"])]  # type: ignore[union-attr]
    assert english_in(texts, lang) == []


@pytest.mark.parametrize("title", TRANSLATED_TITLES, indirect=True)
@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("size", [(128, 64), (256, 64)])
def test_the_status_screen_has_no_english(title: Title, lang: str, size: tuple[int, int]) -> None:
    for roll in ("1,2,3", "*,2,3", "2,*,5", "1,2,*", "*,*,*"):
        for solo in (False, True):
            view = StatusView(title, solo=solo, round=3 if solo else None,
                              round_limit=title.solo_rounds if solo else None,
                              options=title.options(Roll.from_str(roll), 0),
                              hazards=0, lang=lang)
            lines = [line for page in status_lines(view, size) for line in page]
            assert english_in(lines, lang) == [], (title.key, roll, solo)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_terminal_simulator_has_no_english(lang: str) -> None:
    """Its text mode (the status words, the dice's names, the keys) at the smallest
    terminal, and the open menu."""
    sim = make("*,2,3", title="valley", config=configured(lang))
    sim.press()
    screens = [terminal_screen(sim._panels(), sim.led_states(), (80, 24), status_words(sim),
                               lang=lang)]
    sim.hold()
    screens.append("\n".join(status_words(sim)))
    sim.close()
    lines = [line for screen in screens for line in screen.splitlines()]
    assert english_in(lines, lang) == []
    assert english_in(terminal_screen({}, (), (10, 5), lang=lang).splitlines(), lang) == []


COMMANDS = [
    ("sim", "--script", "press,press", "--seed", "3", "--game", "island"),
    ("options", "valley", "*,2,3", "1,*,4", "2,3,*"),
    ("options", "island", "--dangers", "5", "2,3,*", "*,2,3"),
    ("level", "valley", "97", "--snakes", "2"),
    ("level", "temple", "200"),
    ("score", "valley", "--sheet", str(GOLDEN / "scoring" / "valley_henri.txt"), "--solo"),
    ("bot", "temple", "--seed", "3", "--games", "2", "--show"),
]


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("argv", COMMANDS, ids=[c[0] + str(i) for i, c in enumerate(COMMANDS)])
def test_the_commands_players_read_speak_the_language_asked(
    capsys: pytest.CaptureFixture[str], lang: str, argv: tuple[str, ...]
) -> None:
    code, out, err = run_cli(capsys, *argv, "--lang", lang)
    assert code == 0, err
    # bot --show prints the finished sheet, a map and the label `pitable score` reads it by
    # (``; temple A 3 (map v2)``), not words.
    said = [line for line in out.splitlines()
            if argv[0] != "bot" or (line.startswith(";") and "(map v" not in line)]
    assert said and english_in(said, lang) == []
    code, english, _ = run_cli(capsys, *argv, "--lang", "en")
    assert english_in(english.splitlines(), lang), "the English output has English in it"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_tv_has_no_english(lang: str) -> None:
    """What the TV writes: the title, its header line, the words and the end of a game."""
    sim = make("1,2,3", "*,2,*", title="island", mode="solo", config=configured(lang))
    texts = []
    for _ in range(2):
        sim.press()
        snapshot = sim.box.publisher.publish(sim.box.view(), rolling=False)
        texts += [snapshot.title_name, *snapshot.words, _status_line(snapshot, sim.box.tr)]
    sim.box.end_game(75)
    snapshot = sim.box.publisher.publish(sim.box.view(), rolling=False)
    texts += [snapshot.result or "", *snapshot.words]
    sim.close()
    assert english_in(texts, lang) == []


#: Penny Papers' range as each rulebook writes it (the Spanish edition: "del 1 al 15").
PENNY_RANGE_WORDS = {"en": "from 1 to 15", "fr": "de 1 à 15", "es": "del 1 al 15",
                     "de": "von 1 bis 15", "nl": "van 1 tot 15"}


@pytest.mark.parametrize("title", TRANSLATED_TITLES, indirect=True)
@pytest.mark.parametrize("lang", list(PENNY_RANGE_WORDS))
def test_the_screen_says_penny_papers_range_in_the_rulebooks_words(
    capsys: pytest.CaptureFixture[str], title: Title, lang: str
) -> None:
    """The status screen (both sizes, the purple special face alone and beside Dakota Smith's)
    and the printed sheet's reminder of the purple face, in every title the catalogues
    translate."""
    words = PENNY_RANGE_WORDS[lang]
    for roll in ("2,*,3", "*,*,3"):
        for size in ("128x64", "256x64"):
            code, out, err = run_cli(capsys, "screen", title.key, roll, "--text",
                                     "--size", size, "--lang", lang)
            assert code == 0, err
            # The lines wrap at spaces: read the screen as one text.
            assert words in " ".join(out.split()), (title.key, roll, size, out)
    for page in (False, True):
        texts = sheet_texts(title.key, lang, page=page)
        assert words in " ".join(" ".join(texts).split()), (title.key, page)


@pytest.mark.parametrize("lang", list(PENNY_RANGE_WORDS))
def test_the_page_draws_penny_papers_range_and_says_it_in_the_rulebooks_words(lang: str) -> None:
    """The page's purple special face: its figures from the rules' bounds, its spoken label
    in the box's language; the page's English before the box's words arrive is the same."""
    penny = page_words(lang)["penny"]
    assert penny == {"face": f"{PENNY_LOW}-{PENNY_HIGH}", "words": PENNY_RANGE_WORDS[lang]}
    english = page_words("en")["penny"]
    for name in ("app.js", "play.js"):
        script = (STATIC / name).read_text()
        assert f'penny: {{ face: "{english["face"]}", words: "{english["words"]}" }}' in script
    # The die is drawn from those words, never from figures of its own.
    dice = (STATIC / "dice.js").read_text()
    drawing = dice[dice.index("function dieSvg"):]
    assert "words.penny.face" in drawing and "words.penny.words" in drawing
    assert not re.search(r'"\d+-\d+"', drawing), drawing
