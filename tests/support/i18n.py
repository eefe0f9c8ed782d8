"""The package's messages as Babel extracts them (all of them, the box's, each title's), and
the English left in a translation."""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from pitable import i18n
from pitable.rules import Title, all_titles

#: The package's source folder.
PACKAGE = Path(i18n.__file__).parent

#: Names the series keeps in every language, and the box's own button and code.
ALLOWED = {"penny", "papers", "dakota", "smith", "roll", "pin"}
WORD = re.compile(r"[^\W\d_]{3,}")


@functools.cache
def _marked() -> tuple[tuple[str, Path], ...]:
    """Every message marked for translation in the package, with the file that marks it."""
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    root = PACKAGE.resolve()
    return tuple((message[0] if isinstance(message, tuple) else message, root / filename)
                 for filename, _, message, _, _ in extract_from_dir(str(root),
                                                                     keywords=keywords))


def source_messages() -> frozenset[str]:
    """Every message marked for translation in the package, as Babel extracts them."""
    return frozenset(message for message, _ in _marked())


def title_package(title: Title) -> Path | None:
    """The folder of ``title``'s package in pitable (its class defined in the package's
    ``__init__.py``), which keeps the title's words; None for a title from elsewhere."""
    source = Path(sys.modules[type(title).__module__].__file__ or "").resolve()
    if source.name == "__init__.py" and source.parent.is_relative_to(PACKAGE.resolve()):
        return source.parent
    return None


def box_messages() -> frozenset[str]:
    """The messages marked outside every title's package: the box's catalogue's."""
    folders = [f for f in map(title_package, all_titles()) if f is not None]
    return frozenset(message for message, path in _marked()
                     if not any(path.is_relative_to(folder) for folder in folders))


def title_messages(title: Title) -> frozenset[str]:
    """The messages marked in ``title``'s package that the box's source does not mark:
    the title's own catalogue's."""
    folder = title_package(title)
    assert folder is not None, title.key
    return frozenset(message for message, path in _marked()
                     if path.is_relative_to(folder)) - box_messages()


def catalogue_messages(path: Path) -> dict[str, tuple[str, ...]]:
    """The messages of the ``.po`` catalogue at ``path``, each with its translations (one,
    or one a plural form)."""
    with path.open("rb") as f:
        return {
            (m.id[0] if isinstance(m.id, tuple) else m.id):
                (tuple(m.string) if isinstance(m.string, tuple) else (m.string,))
            for m in read_po(f) if m.id
        }


@functools.cache
def english_words(lang: str) -> frozenset[str]:
    """The words of the source's messages that ``lang``'s translations never use."""
    source = {w.lower() for m in source_messages()
              for w in WORD.findall(re.sub(r"\{\w+\}", " ", m))}
    said = {w.lower() for path in i18n.catalogue_paths(lang)
            for strings in catalogue_messages(path).values() for s in strings
            for w in WORD.findall(s)}
    return frozenset(source - said - ALLOWED)


def english_in(texts: list[str], lang: str) -> list[str]:
    """The texts among ``texts`` that hold a word of English (for ``lang``)."""
    english = english_words(lang)
    return [t for t in texts if any(w.lower() in english for w in WORD.findall(t))]


def has_translations(title: Title) -> bool:
    """Whether the catalogues translate ``title``'s words (its name in every language a
    translation exists for): a title from outside pitable/ may bring none."""
    return all(title.display_name(i18n.translator(lang)) != title.name
               for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE)
