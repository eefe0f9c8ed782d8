"""The package's messages as Babel extracts them, and the English left in a translation."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from pitable import i18n

#: The package's source folder.
PACKAGE = Path(i18n.__file__).parent

#: Names the series keeps in every language, and the box's own button and code.
ALLOWED = {"penny", "papers", "dakota", "smith", "roll", "pin"}
WORD = re.compile(r"[^\W\d_]{3,}")


@functools.cache
def source_messages() -> frozenset[str]:
    """Every message marked for translation in the package, as Babel extracts them."""
    found: set[str] = set()
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    for _, _, message, _, _ in extract_from_dir(str(PACKAGE), keywords=keywords):
        found.add(message[0] if isinstance(message, tuple) else message)
    return frozenset(found)


@functools.cache
def english_words(lang: str) -> frozenset[str]:
    """The words of the source's messages that ``lang``'s translations never use."""
    source = {w.lower() for m in source_messages()
              for w in WORD.findall(re.sub(r"\{\w+\}", " ", m))}
    with i18n.catalogue_path(lang).open("rb") as f:
        said = {w.lower() for m in read_po(f) if m.id
                for s in (m.string if isinstance(m.string, (tuple, list)) else (m.string,))
                for w in WORD.findall(s)}
    return frozenset(source - said - ALLOWED)


def english_in(texts: list[str], lang: str) -> list[str]:
    """The texts among ``texts`` that hold a word of English (for ``lang``)."""
    english = english_words(lang)
    return [t for t in texts if any(w.lower() in english for w in WORD.findall(t))]
