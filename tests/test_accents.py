"""Every accented capital the catalogues hold keeps its accent, clear of its letter, at the
sizes and in the faces the box's small panels draw it: "Île" never reads "1le", "Última"
never "0ltima", "BÂTIR" and "TÜR" keep their marks on the chips."""

from __future__ import annotations

import pytest
from babel.messages.pofile import read_po
from PIL import Image, ImageDraw

from pitable import i18n
from pitable.render.fonts import BOLD, CONDENSED_BOLD, REGULAR, font
from pitable.render.text import ABOVE, INSIDE, accented_capital, draw_text


def catalogue_capitals() -> list[str]:
    """The accented capitals that any translation of any message uses, in the box's
    catalogues and each title's."""
    found: set[str] = set()
    for path in (p for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE
                 for p in i18n.catalogue_paths(lang)):
        with path.open("rb") as f:
            for message in read_po(f):
                forms = message.string if isinstance(message.string, tuple) else \
                    (message.string,)
                found |= {c for form in forms for c in form or "" if accented_capital(c)}
    return sorted(found)


#: How the panels draw small text: the status screen's words, body lines and header (8 and
#: 9 px, regular), its chips (bold), its footer and menus (the accent inside the capitals'
#: height, 8 to 10 px), and the dice labels (condensed bold, down to 7 px).
CONTEXTS = [(REGULAR, size, ABOVE) for size in (8, 9)] + \
    [(BOLD, size, ABOVE) for size in (8, 9)] + \
    [(name, size, INSIDE) for name in (REGULAR, BOLD) for size in (8, 9, 10)] + \
    [(CONDENSED_BOLD, size, ABOVE) for size in range(7, 15)]


def drawn(text: str, size: int, name: str, accents: str) -> Image.Image:
    image = Image.new("1", (40, 40), 0)
    draw_text(ImageDraw.Draw(image), (10, 14), text, font(size, name), accents=accents)
    return image


def inked_rows(image: Image.Image) -> list[int]:
    return [y for y in range(image.height)
            if image.crop((0, y, image.width, y + 1)).getbbox() is not None]


def test_the_catalogues_have_accented_capitals() -> None:
    assert {"Â", "É", "Î", "Ú", "Ü"} <= set(catalogue_capitals())


@pytest.mark.parametrize("capital", catalogue_capitals())
@pytest.mark.parametrize(("name", "size", "accents"), CONTEXTS,
                         ids=[f"{n.removesuffix('.ttf')}-{s}-{a}" for n, s, a in CONTEXTS])
def test_an_accent_stands_one_blank_row_clear_of_its_letter(
    capital: str, name: str, size: int, accents: str
) -> None:
    letter = accented_capital(capital)
    assert letter is not None
    accented, plain = drawn(capital, size, name, accents), drawn(letter, size, name, accents)
    assert accented.tobytes() != plain.tobytes(), f"{capital} draws as {letter}"
    rows = inked_rows(accented)
    gaps = [y for y in range(rows[0], rows[-1]) if y not in rows]
    # Ink, a blank row, then the letter: the accent is neither dropped nor melted into it.
    assert gaps, f"{capital} at {size} px in {name}: its accent touches its letter"
    plain_rows = inked_rows(plain)
    assert not [y for y in range(plain_rows[0], plain_rows[-1]) if y not in plain_rows]
    if accents == ABOVE:
        # The letter keeps its height: the accent stands above its top row.
        assert rows[0] < plain_rows[0] and max(gaps) < plain_rows[0]
