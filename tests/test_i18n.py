"""The languages: every message translated, the catalogues compiled on first use, the
fonts able to draw every letter the catalogues use."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from PIL import Image, ImageDraw, ImageFont

from pitable import i18n
from pitable.config import load_config
from pitable.errors import ConfigError, UsageError
from pitable.render.fonts import BOLD, CONDENSED_BOLD, FONT_DIR, REGULAR

PACKAGE = Path(i18n.__file__).parent
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]
PLACEHOLDER = re.compile(r"\{[a-z_]*\}")


@functools.cache
def source_messages() -> frozenset[str]:
    """Every message marked for translation in the package, as Babel extracts them."""
    found: set[str] = set()
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    for _, _, message, _, _ in extract_from_dir(str(PACKAGE), keywords=keywords):
        found.add(message[0] if isinstance(message, tuple) else message)
    return frozenset(found)


def catalogue(lang: str) -> dict[str, tuple[str, ...]]:
    with i18n.catalogue_path(lang).open("rb") as f:
        return {
            (m.id[0] if isinstance(m.id, tuple) else m.id):
                (tuple(m.string) if isinstance(m.string, tuple) else (m.string,))
            for m in read_po(f) if m.id
        }


def test_the_words_are_marked_for_translation() -> None:
    messages = source_messages()
    assert "Ignore the other dice." in messages
    assert "The danger bubble to mark: {bubble} of {limit}." in messages
    assert "The Valley of Wiraqocha" in messages  # a title's name, marked where declared


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation(lang: str) -> None:
    translations = catalogue(lang)
    missing = sorted(m for m in source_messages()
                     if not all(translations.get(m, ("",))))
    assert not missing, f"{lang} lacks a translation of {missing}"
    stale = sorted(set(translations) - source_messages())
    assert not stale, f"{lang} translates messages the source no longer has: {stale}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_translation_keeps_its_placeholders(lang: str) -> None:
    for message, strings in catalogue(lang).items():
        for string in strings:
            assert sorted(PLACEHOLDER.findall(string)) == sorted(PLACEHOLDER.findall(message)), \
                (lang, message, string)


def test_the_seeds_terms_are_used() -> None:
    fr = " ".join(s for strings in catalogue("fr").values() for s in strings)
    es = " ".join(s for strings in catalogue("es").values() for s in strings)
    for word in ("serpent", "hutte", "statue", "mine", "momie", "crâne", "Vallée de Wiraqocha"):
        assert word in fr
    for word in ("serpiente", "cabaña", "estatua", "mina", "momia", "calavera",
                 "Valle de Wiraqocha"):
        assert word in es


def test_a_language_is_compiled_once_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = i18n.compiled("fr")
    cached = list((tmp_path / "pitable" / "locale").glob("fr-*.mo"))
    assert len(cached) == 1 and cached[0].read_bytes() == first
    # Read back from the cache, not compiled again: a changed cache file is what comes back.
    cached[0].write_bytes(first + b"")
    monkeypatch.setattr(i18n, "compile_po", lambda source: pytest.fail("compiled again"))
    assert i18n.compiled("fr") == first


def test_without_a_writable_cache_the_catalogue_is_compiled_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    i18n.translator.cache_clear()
    try:
        assert i18n.translator("es").gettext("Ignore the other dice.") == \
            "Ignorad los otros dados."
    finally:
        i18n.translator.cache_clear()


def test_english_is_the_source_itself() -> None:
    assert i18n.translator("en").gettext("Ignore the other dice.") == "Ignore the other dice."
    assert i18n.translator("fr").gettext("Ignore the other dice.") == "Ignorez les autres dés."


def test_an_unknown_language_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(UsageError, match="expected one of en, fr, es"):
        i18n.check_language("de")


def test_the_config_chooses_the_language_among_the_known_ones(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[box]\nlanguage = "fr"\n')
    assert load_config(good).box.language == "fr"
    bad = tmp_path / "bad.toml"
    bad.write_text('[box]\nlanguage = "de"\n')
    with pytest.raises(ConfigError, match="language"):
        load_config(bad)


def drawn(font: ImageFont.FreeTypeFont, text: str) -> bytes:
    image = Image.new("1", (24, 24))
    ImageDraw.Draw(image).text((4, 4), text, font=font, fill=1)
    return image.tobytes()


@pytest.mark.parametrize("name", [REGULAR, BOLD, CONDENSED_BOLD])
def test_the_fonts_draw_every_letter_of_the_catalogues(name: str) -> None:
    letters = {ch for lang in TRANSLATED for strings in catalogue(lang).values()
               for s in strings for ch in s if ord(ch) > 127}
    assert {"é", "à", "ñ", "ú", "¡", "Î"} <= letters
    font = ImageFont.truetype(str(FONT_DIR / name), 9)
    # A character the font has no glyph for comes out as the font's "missing" box.
    missing_box = drawn(font, "\U000f0000")
    missing = sorted(ch for ch in letters | {ch.upper() for ch in letters}
                     if drawn(font, ch) == missing_box)
    assert not missing, f"{name} has no glyph for {missing}"
