"""The box's languages: English, French and Spanish, from gettext catalogues.

The words are written in English in the source, marked for translation; each other
language has a ``.po`` catalogue under ``pitable/locale/<lang>/LC_MESSAGES/``, the only
copy kept in the repository. :func:`translator` gives a :class:`gettext.GNUTranslations`
for a language, compiled from its ``.po`` by Babel on first use into the user's cache
(``$XDG_CACHE_HOME/pitable/locale``, named by the catalogue's hash), and into memory when
no cache can be written.

Compiled on first use rather than at build or install time: every way pitable is installed
(an editable install in a fresh clone, a wheel, the Pi's install.sh, CI) then gets catalogues
that match its ``.po`` files without a build hook of its own, a read-only installation still
works, and no compiled file can go stale beside the source it came from.

Standard library only at import time, so that the config can name the languages.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from pitable.errors import UsageError, quoted

if TYPE_CHECKING:
    import gettext

#: Every language of the box, by its code, with its name in that language.
LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français", "es": "Español"}
#: The language of the source's words.
SOURCE_LANGUAGE = "en"
DOMAIN = "pitable"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


def check_language(code: str) -> str:
    """``code`` itself when it is a language of the box, else one line naming them."""
    lang = code.strip().lower()
    if lang not in LANGUAGES:
        raise UsageError(
            f"unknown language {quoted(code)}: expected one of {', '.join(LANGUAGES)}"
        )
    return lang


def catalogue_path(lang: str) -> Path:
    """The ``.po`` source of ``lang``'s catalogue."""
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def translator(lang: str) -> gettext.NullTranslations:
    """The words of ``lang`` (checked): English as written, the others from their catalogue."""
    import gettext
    import io

    lang = check_language(lang)
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.GNUTranslations(io.BytesIO(compiled(lang)))


def compiled(lang: str) -> bytes:
    """The ``.mo`` bytes of ``lang``'s catalogue, from the cache or compiled afresh."""
    import hashlib

    source = catalogue_path(lang).read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    cached = _cache_dir() / f"{lang}-{digest}.mo"
    try:
        return cached.read_bytes()
    except OSError:
        pass
    data = compile_po(source)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(data)
        os.replace(partial, cached)
    except OSError:
        pass  # no writable cache: compiled again next time, which costs a fraction of a second
    return data


def compile_po(source: bytes) -> bytes:
    """A ``.po`` catalogue compiled to ``.mo`` by Babel (what ``pybabel compile`` does)."""
    import io

    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:
        raise UsageError(
            "French and Spanish need Babel: pip install 'pitable[draw]'"
        ) from None
    catalog = read_po(io.BytesIO(source))
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pitable" / "locale"
