"""The box's languages: English, and the others from gettext catalogues (LANGUAGES).

The words are written in English in the source, marked for translation; each other
language has a ``.po`` catalogue under ``pitable/locale/<lang>/LC_MESSAGES/`` for the box's
own words, and one in each title's package for the title's words
(``pitable/rules/titles/<key>/locale/<lang>/LC_MESSAGES/<key>.po``): the only copies kept in
the repository. :func:`translator` gives a :class:`gettext.GNUTranslations` for a language
that says every one of them: the box's catalogue, falling back on each catalogue found in a
``locale/`` folder of the package (:func:`catalogue_paths`), so that a new title's words are
found from its package with no list to edit. Each catalogue is compiled from its ``.po`` by
Babel on first use into the user's cache (``$XDG_CACHE_HOME/pitable/locale``, named by the
catalogue's hash), and into memory when no cache can be written. A cache entry is sealed with
the hash of its source and checked before use: one that is empty, cut short, damaged or
compiled from another source is compiled again, never an error.

Compiled on first use rather than at build or install time: every way pitable is installed
(an editable install in a fresh clone, a wheel, the Pi's install.sh, CI) then gets catalogues
that match its ``.po`` files without a build hook of its own, a read-only installation still
works, and no compiled file can go stale beside the source it came from.

Standard library only at import time, so that the config can name the languages.
"""

from __future__ import annotations

import contextlib
import os
import re
from functools import cache
from typing import TYPE_CHECKING

from pitable.errors import UsageError, quoted

if TYPE_CHECKING:
    import gettext
    from collections.abc import Mapping
    from pathlib import Path

#: Every language of the box, by its code, with its name in that language.
LANGUAGES: dict[str, str] = {
    "en": "English", "fr": "Français", "es": "Español", "de": "Deutsch", "nl": "Nederlands",
}
#: The language of the source's words.
SOURCE_LANGUAGE = "en"
DOMAIN = "pitable"
LOCALE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "locale")


#: A language tag as a locale or a web browser writes it: the language, then a region
#: (``fr_FR``, ``es-ES``, ``de_AT``), a script or variant, an encoding (``.UTF-8``) and a
#: modifier (``@euro``), each optional.
_TAG = re.compile(r"([A-Za-z]{2,8})(?:[_-][A-Za-z0-9]{1,8})*(?:\.[A-Za-z0-9_-]*)?(?:@\w*)?")
#: The environment's variables that name the language, in the order GNU gettext reads
#: them: LANGUAGE (a list, ``fr_FR:en``) first, unless the locale is C or POSIX, which
#: speaks English whatever LANGUAGE says; then the locale, from LC_ALL, LC_MESSAGES, LANG.
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")


def language_of(tag: str) -> str | None:
    """The language of the box that ``tag`` names (``fr_FR.UTF-8`` -> ``fr``), or None."""
    match = _TAG.fullmatch(tag.strip())
    if match is None:
        return None
    lang = match[1].lower()
    return lang if lang in LANGUAGES else None


def check_language(code: str) -> str:
    """The language of the box that ``code`` names, region tags included (``fr``,
    ``fr_FR``, ``es-ES``), else one line naming the languages."""
    lang = language_of(code)
    if lang is None:
        raise UsageError(
            f"unknown language {quoted(code)}: expected one of {', '.join(LANGUAGES)}"
        )
    return lang


def environment_language(environ: Mapping[str, str] | None = None) -> str | None:
    """The language the environment asks for, as GNU gettext reads it, when it is one of
    the box's; None when it names none of them (or the C locale).

    Written here rather than taken from :func:`gettext.find` or Babel's
    ``default_locale``: the first reads LANGUAGE even under the C locale and stops at
    catalogue files on disk, the second does not read LC_MESSAGES.
    """
    env = os.environ if environ is None else environ
    locale = next((env[name] for name in LOCALE_VARIABLES if env.get(name)), "")
    if locale.split(".")[0] in ("C", "POSIX"):
        return None
    for tag in [*env.get("LANGUAGE", "").split(":"), locale]:
        if tag and (lang := language_of(tag)) is not None:
            return lang
    return None


def box_language(configured: str = "", environ: Mapping[str, str] | None = None) -> str:
    """The language of the box's words when nothing more particular (``--lang``, the
    menu's choice) is asked: the config's ``[box] language`` when it is set, else the
    environment's (:func:`environment_language`), else English."""
    if configured:
        return check_language(configured)
    return environment_language(environ) or SOURCE_LANGUAGE


def catalogue_path(lang: str) -> Path:
    """The ``.po`` source of ``lang``'s catalogue of the box's own words."""
    # pathlib here, not at the top: English (all ``pitable options`` says by default)
    # never reads a catalogue, and pathlib is about a sixth of that command's start-up CPU.
    from pathlib import Path

    return Path(LOCALE_DIR, lang, "LC_MESSAGES", f"{DOMAIN}.po")


def catalogue_paths(lang: str) -> list[Path]:
    """Every ``.po`` catalogue of ``lang`` in the package: the box's (:func:`catalogue_path`)
    first, then every other found in a ``locale/`` folder of the package, by path: each
    title's, in its own package, one domain a title
    (``rules/titles/<key>/locale/<lang>/LC_MESSAGES/<key>.po``)."""
    from pathlib import Path

    box = catalogue_path(lang)
    package = Path(LOCALE_DIR).parent
    others = sorted(path for path in package.glob(f"*/**/locale/{lang}/LC_MESSAGES/*.po")
                    if path != box)
    return [box, *others]


@cache
def translator(lang: str) -> gettext.NullTranslations:
    """The words of ``lang`` (checked): English as written, the others from their
    catalogues, the box's and every title's (:func:`catalogue_paths`) as one.

    A message is looked up in the box's catalogue, then in the others in turn
    (:meth:`~gettext.NullTranslations.add_fallback`); a message is translated alike in
    every catalogue that holds it, so the order never changes a word. A title registered
    from outside the package has no catalogue here: its words stay as written.
    """
    import gettext
    import io

    lang = check_language(lang)
    if lang == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    box, *others = catalogue_paths(lang)
    words = gettext.GNUTranslations(io.BytesIO(compiled(lang, box)))
    for path in others:
        words.add_fallback(gettext.GNUTranslations(io.BytesIO(compiled(lang, path))))
    return words


def compiled(lang: str, path: Path | None = None) -> bytes:
    """The ``.mo`` bytes of ``lang``'s catalogue at ``path`` (the box's by default), from
    the cache or compiled afresh.

    A cache entry is used only when it is whole and was compiled from this very ``.po``
    (:func:`_read_entry`); any other (empty, cut short, another catalogue's, damaged) is
    compiled again and replaced. Where the cache cannot be read or written the catalogue is
    compiled in memory: the words never depend on the cache.
    """
    import hashlib

    if path is None:
        path = catalogue_path(lang)
    source = path.read_bytes()
    digest = hashlib.sha256(source).digest()
    # The box's entries keep the name they always had; another domain's carries its name.
    name = lang if path.stem == DOMAIN else f"{lang}-{path.stem}"
    entry = _cache_dir() / f"{name}-{digest.hex()[:16]}.mo"
    data = _read_entry(entry, digest, limit=_MO_LIMIT_FACTOR * len(source) + _MO_LIMIT_SLACK)
    if data is None:
        data = compile_po(source)
        _write_entry(entry, digest, data)
    return data


#: A ``.mo`` file starts with this number, written in the byte order of the machine that
#: wrote it (GNU gettext's format, which Python's gettext reads in either order).
_MO_MAGIC = (b"\xde\x12\x04\x95", b"\x95\x04\x12\xde")
#: A ``.mo`` header is seven 32-bit words.
_MO_HEADER = 28
#: A cache entry is the ``.mo`` followed by a seal of this many bytes: the SHA-256 of the
#: source's digest and the ``.mo``, so that one check says the entry is whole, undamaged
#: and compiled from this source.
_SEAL = 32
#: The largest cache entry read, against the size of its source: a ``.mo`` holds the
#: source's strings without its comments and syntax, plus its tables (a few words a
#: message), so anything much larger is not one of ours (a link to a device, say).
_MO_LIMIT_FACTOR = 2
_MO_LIMIT_SLACK = 64 * 1024


def _seal(digest: bytes, mo: bytes) -> bytes:
    import hashlib

    return hashlib.sha256(digest + mo).digest()


def _read_entry(path: Path, digest: bytes, limit: int) -> bytes | None:
    """The ``.mo`` in the cache entry at ``path`` when it is sound and sealed for the source
    whose SHA-256 is ``digest``; None for anything else, which is never an error.

    The entry is opened without following a symbolic link and without waiting (a FIFO or a
    device put in its place is not read), and only a regular file of a plausible size is
    read.
    """
    import hmac
    import stat

    flags = os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _MO_HEADER + _SEAL <= info.st_size <= limit:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > limit:
        return None
    mo, seal = data[:-_SEAL], data[-_SEAL:]
    if len(mo) < _MO_HEADER or mo[:4] not in _MO_MAGIC:
        return None
    if not hmac.compare_digest(seal, _seal(digest, mo)):
        return None
    return mo


def _write_entry(path: Path, digest: bytes, mo: bytes) -> None:
    """Keep ``mo`` at ``path``, sealed: written whole to a file of its own, synced, then
    renamed over the entry, so that a power cut leaves the old entry or the new one, never a
    part of one. Where the cache cannot be written (read-only, full, not a directory), the
    catalogue is compiled again next time, which costs a fraction of a second."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(mo + _seal(digest, mo))
            f.flush()
            os.fsync(f.fileno())
        os.replace(partial, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        return
    # The rename is durable once the directory is synced; without it the entry may be
    # missing after a power cut, which only costs a compilation.
    with contextlib.suppress(OSError):
        directory = os.open(path.parent, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


def compile_po(source: bytes) -> bytes:
    """A ``.po`` catalogue compiled to ``.mo`` by Babel (what ``pybabel compile`` does)."""
    import io

    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:
        raise UsageError(
            "the languages other than English need Babel: pip install 'pitable[draw]'"
        ) from None
    catalog = read_po(io.BytesIO(source))
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def unfinished(source: bytes) -> list[tuple[str, str]]:
    """The messages of a ``.po`` catalogue that the box would show in English, each with
    why: "untranslated" (an empty ``msgstr``, or one of its plural forms empty) or "fuzzy"
    (Babel leaves a fuzzy entry out when it compiles)."""
    import io

    from babel.messages.pofile import read_po

    found = []
    for message in read_po(io.BytesIO(source)):
        if not message.id:
            continue  # the header
        key = message.id[0] if isinstance(message.id, (tuple, list)) else message.id
        strings = (message.string if isinstance(message.string, (tuple, list))
                   else (message.string,))
        if message.fuzzy:
            found.append((key, "fuzzy"))
        elif not all(strings):
            found.append((key, "untranslated"))
    return found


def _cache_dir() -> Path:
    """Where compiled catalogues are kept: ``$XDG_CACHE_HOME/pitable/locale``."""
    from pitable.xdg import cache_home

    return cache_home() / "pitable" / "locale"
