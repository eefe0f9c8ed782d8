"""The languages: every message translated, the box's words and each title's in catalogues
of their own, the catalogues compiled on first use, the fonts able to draw every letter the
catalogues use."""

from __future__ import annotations

import difflib
import errno
import gettext
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

from pitable import i18n
from pitable.config import load_config
from pitable.errors import ConfigError, UsageError
from pitable.render.fonts import BOLD, CONDENSED_BOLD, FONT_DIR, REGULAR
from pitable.rules import Title, all_titles, find_title, registered
from tests.support.i18n import (
    box_messages,
    catalogue_messages,
    source_messages,
    title_messages,
    title_package,
)
from tests.toy_title import ToyCupboard

PACKAGE = Path(i18n.__file__).parent
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE_LANGUAGE]
PLACEHOLDER = re.compile(r"\{[a-z_]*\}")


def catalogue(lang: str) -> dict[str, tuple[str, ...]]:
    """Every message of ``lang``'s catalogues, the box's and each title's, translated."""
    return {message: strings for path in i18n.catalogue_paths(lang)
            for message, strings in catalogue_messages(path).items()}


def title_catalogue(title_key: str, lang: str) -> Path:
    """Where the catalogue of a title's words in ``lang`` is: in the title's package."""
    folder = title_package(find_title(title_key))
    assert folder is not None
    return folder / "locale" / lang / "LC_MESSAGES" / f"{title_key}.po"


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
    unfinished = [found for path in i18n.catalogue_paths(lang)
                  for found in i18n.unfinished(path.read_bytes())]
    assert not unfinished, f"{lang} is not finished: {unfinished}"
    stale = sorted(set(translations) - source_messages())
    assert not stale, f"{lang} translates messages the source no longer has: {stale}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_translation_keeps_its_placeholders(lang: str) -> None:
    for message, strings in catalogue(lang).items():
        for string in strings:
            assert sorted(PLACEHOLDER.findall(string)) == sorted(PLACEHOLDER.findall(message)), \
                (lang, message, string)


def test_the_boxs_catalogue_names_no_title() -> None:
    """A title's words are its package's: the box's template and catalogues hold none of a
    title's names, nor any message that only a title's package marks."""
    box = {PACKAGE / "locale" / "pitable.pot", *map(i18n.catalogue_path, TRANSLATED)}
    for path in box:
        messages = catalogue_messages(path)
        assert set(messages) == box_messages(), path
        text = path.read_text().lower()
        for title in all_titles():
            for name in {title.name, title.short_name, title.key, *title.aliases}:
                assert name.lower() not in text, (path, name)


def test_each_title_keeps_its_words_in_its_own_package_in_every_language() -> None:
    """Each registered title's package holds its template and a catalogue a language with
    exactly the messages its source marks (less the box's), every one translated; the box's
    translator says them."""
    for title in all_titles():
        folder = title_package(title)
        assert folder is not None, title.key
        own = title_messages(title)
        assert title.name in own and title.short_name in own, title.key
        assert set(catalogue_messages(folder / "locale" / f"{title.key}.pot")) == own
        for lang in TRANSLATED:
            path = title_catalogue(title.key, lang)
            assert path in i18n.catalogue_paths(lang), path
            messages = catalogue_messages(path)
            assert set(messages) == own, (title.key, lang)
            assert all(all(strings) for strings in messages.values()), (title.key, lang)
            assert i18n.unfinished(path.read_bytes()) == [], (title.key, lang)
            words = i18n.translator(lang)
            assert title.display_name(words) == messages[title.name][0] != title.name


@pytest.mark.parametrize("lang", TRANSLATED)
def test_a_message_is_translated_alike_in_every_catalogue_that_holds_it(lang: str) -> None:
    """The translator looks in the box's catalogue, then each title's: a message that two
    hold (one several titles mark) must say the same in each, so the order never matters."""
    seen: dict[str, tuple[tuple[str, ...], Path]] = {}
    for path in i18n.catalogue_paths(lang):
        for message, strings in catalogue_messages(path).items():
            if message in seen:
                assert seen[message][0] == strings, (message, seen[message][1], path)
            seen[message] = (strings, path)


def test_the_package_data_ships_every_catalogue() -> None:
    """A wheel (what install.sh installs on the Pi) carries every ``.po`` of the package, the
    box's and each title's: each is matched by a package-data pattern of its package."""
    with (PACKAGE.parent / "pyproject.toml").open("rb") as f:
        data = tomllib.load(f)["tool"]["setuptools"]["package-data"]
    catalogues = sorted(PACKAGE.rglob("*.po"))
    assert {path for lang in TRANSLATED for path in i18n.catalogue_paths(lang)} == \
        set(catalogues)
    for path in catalogues:
        package = next(folder for folder in path.parents if (folder / "__init__.py").exists())
        name = ".".join(package.relative_to(PACKAGE.parent).parts)
        inside = path.relative_to(package)
        assert any(inside.match(pattern) and len(inside.parts) == len(Path(pattern).parts)
                   for key in ("*", name) for pattern in data.get(key, ())), path


def test_a_title_from_elsewhere_keeps_its_words_as_written() -> None:
    """A title registered from outside pitable has no catalogue: its words stay English, and
    the box's and the other titles' are translated as ever."""
    with registered(ToyCupboard) as toy:
        fr = i18n.translator("fr")
        assert toy.display_name(fr) == "The Toy Cupboard"
        assert toy.hazards_text(1, fr) != toy.hazards_text(1)  # the box's own words
        for title in all_titles():
            if title is not toy:
                assert title.display_name(fr) != title.name, title.key


def test_the_seeds_terms_are_used() -> None:
    """The words of the French summary (seed 003) and the Spanish walkthrough (seed 004),
    and none of those they replace."""
    fr = " ".join(s for strings in catalogue("fr").values() for s in strings)
    es = " ".join(s for strings in catalogue("es").values() for s in strings)
    for word in ("serpent", "hutte", "statue", "mine", "momie", "crâne", "Vallée de Wiraqocha",
                 "Forêts", "Bâtiments", "points", "fiche", "cochées",
                 "Impression terminée\u202f:", "maintenez ROLL", "tournez, appuyez",
                 "case précédente", "Par catégorie", "sous-total", "désactivée", "enregistrés",
                 "à plusieurs", "Remplissez"):
        assert word in fr, word
    for word in ("Jungles", "Constructions", "étoile", "feuille", "tenez ROLL", "Remplir ",
                 "{limit} cochés", "Imprimé"):
        assert word not in fr.replace("maintenez", ""), word
    for word in ("serpiente", "cabaña", "estatua", "mina", "momia", "calavera",
                 "Valle de Wiraqocha", "Montañas", "marcadas", "Impresión terminada",
                 "(cada una solo una vez)",
                 "te hace perder tantas estrellas como el mayor número adyacente",
                 "del {low} al {high}", "en grupo", "subtotal"):
        assert word in es, word
    # Tú throughout: no vosotros (its imperatives end in -ad, -ed, -id; os, vuestra).
    vosotros = re.compile(r"\b(\w+[aei]d|\w+[aei]dl[oa]s?|os|vuestr[oa]s?|podéis)\b")
    words = re.sub(r"\{\w+\}|enabled", " ", es)
    assert not vosotros.findall(words), vosotros.findall(words)
    for word in ("Cordilleras", "mesa", "Impreso", "marcados"):
        assert word not in es, word


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache of compiled catalogues of this test's own, empty; translators made afresh."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    i18n.translator.cache_clear()
    try:
        yield tmp_path / "cache" / "pitable" / "locale"
    finally:
        i18n.translator.cache_clear()


def entry(cache: Path, lang: str) -> Path:
    """The cache entry of ``lang``'s catalogue as it is today."""
    digest = hashlib.sha256(i18n.catalogue_path(lang).read_bytes()).hexdigest()
    return cache / f"{lang}-{digest[:16]}.mo"


def never_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "compile_po", lambda source: pytest.fail("compiled again"))


def test_a_language_is_compiled_once_into_the_cache(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = i18n.compiled("fr")
    assert [p.name for p in cache.iterdir()] == [entry(cache, "fr").name]
    assert entry(cache, "fr").read_bytes().startswith(first)
    # Read back from the cache, not compiled again.
    never_compiled(monkeypatch)
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
            "Ignora los otros dados."
    finally:
        i18n.translator.cache_clear()
    assert blocker.read_text() == "not a directory"


def sealed(lang: str) -> bytes:
    """A sound cache entry of ``lang``, as pitable writes it."""
    with tempfile.TemporaryDirectory() as d, pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("XDG_CACHE_HOME", d)
        i18n.compiled(lang)
        return next(Path(d).rglob(f"{lang}-*.mo")).read_bytes()


def flipped(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:]


#: Cache entries that are not fr's catalogue: what a power cut, a full disk, another
#: program or a hand leave where fr's compiled catalogue is looked for.
BAD_ENTRIES: dict[str, Callable[[], bytes]] = {
    "empty": lambda: b"",
    "short": lambda: sealed("fr")[:20],
    "cut in half": lambda: sealed("fr")[: len(sealed("fr")) // 2],
    "cut before its seal": lambda: sealed("fr")[:-32],
    "foreign: es's catalogue": lambda: sealed("es"),
    "foreign: a bare .mo of es": lambda: i18n.compile_po(i18n.catalogue_path("es").read_bytes()),
    "a bare .mo of fr, unsealed": lambda: i18n.compile_po(
        i18n.catalogue_path("fr").read_bytes()),
    "one byte changed in a translation": lambda: flipped(sealed("fr"), len(sealed("fr")) - 60),
    "zeros": lambda: bytes(len(sealed("fr"))),
    "the magic, then noise": lambda: b"\xde\x12\x04\x95" + os.urandom(500),
    "text": lambda: b"msgid \"\"\nmsgstr \"\"\n",
}


@pytest.mark.parametrize("kind", list(BAD_ENTRIES))
def test_a_bad_cache_entry_is_compiled_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    planted = BAD_ENTRIES[kind]()
    cache.mkdir(parents=True)
    entry(cache, "fr").write_bytes(planted)
    assert i18n.translator("fr").gettext("Ignore the other dice.") == "Ignorez les autres dés."
    # The bad entry was replaced by a sound one, read from now on without compiling.
    assert entry(cache, "fr").read_bytes() == sealed("fr")
    i18n.translator.cache_clear()
    never_compiled(monkeypatch)
    assert i18n.translator("fr").gettext("Ignore the other dice.") == "Ignorez les autres dés."


def test_a_bad_cache_entry_of_a_titles_catalogue_is_compiled_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A title's catalogue is cached as the box's is: its own entry, sealed, checked."""
    title = all_titles()[0]
    po = title_catalogue(title.key, "fr")
    french_name = catalogue_messages(po)[title.name][0]
    digest = hashlib.sha256(po.read_bytes()).hexdigest()
    planted = cache / f"fr-{title.key}-{digest[:16]}.mo"
    cache.mkdir(parents=True)
    planted.write_bytes(sealed("es"))
    assert title.display_name(i18n.translator("fr")) == french_name != title.name
    assert planted.read_bytes()[:-32] == i18n.compile_po(po.read_bytes())
    i18n.translator.cache_clear()
    never_compiled(monkeypatch)
    assert title.display_name(i18n.translator("fr")) == french_name


def plant_link_to_zeros(path: Path) -> None:
    path.symlink_to("/dev/zero")


def plant_dangling_link(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere")


def plant_fifo(path: Path) -> None:
    os.mkfifo(path)


def plant_directory(path: Path) -> None:
    (path / "inside").mkdir(parents=True)


def plant_huge_file(path: Path) -> None:
    with path.open("wb") as f:
        f.truncate(64 * 1024 * 1024)


@pytest.mark.parametrize("plant", [plant_link_to_zeros, plant_dangling_link, plant_fifo,
                                   plant_directory, plant_huge_file])
def test_what_is_not_a_cache_file_is_not_read(cache: Path, plant: Callable[[Path], None]) -> None:
    """Neither followed (a link), waited on (a FIFO) nor read whole (a device, a huge file):
    the catalogue is compiled, and kept in the entry's place when that is a file or a link."""
    cache.mkdir(parents=True)
    plant(entry(cache, "fr"))
    assert i18n.translator("fr").gettext("Ignore the other dice.") == "Ignorez les autres dés."
    if plant is plant_directory:
        assert (entry(cache, "fr") / "inside").is_dir()  # not ours to remove
    else:
        assert entry(cache, "fr").read_bytes() == sealed("fr")
    assert not list(cache.glob(".*.part"))


def test_a_cache_behind_a_link_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """~/.cache is often a link to another disk: the cache works through it."""
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "cache").symlink_to(tmp_path / "elsewhere")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    i18n.compiled("es")
    assert list((tmp_path / "elsewhere" / "pitable" / "locale").glob("es-*.mo"))


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_an_unwritable_cache_is_left_alone(cache: Path) -> None:
    cache.mkdir(parents=True)
    entry(cache, "fr").write_bytes(b"")
    cache.chmod(0o500)
    try:
        assert i18n.translator("fr").gettext("Ignore the other dice.") == \
            "Ignorez les autres dés."
        assert entry(cache, "fr").read_bytes() == b""
    finally:
        cache.chmod(0o700)


def test_a_relative_xdg_cache_home_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The XDG specification: a relative path in XDG_CACHE_HOME is invalid, so ignored."""
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.chdir(cwd)
    i18n.compiled("fr")
    assert list(cwd.rglob("*")) == []
    assert list((home / ".cache" / "pitable" / "locale").glob("fr-*.mo"))


def french(message: str) -> str:
    """``message`` in French, compiled from the ``.po`` here and now, by no cache."""
    mo = i18n.compile_po(i18n.catalogue_path("fr").read_bytes())
    return gettext.GNUTranslations(io.BytesIO(mo)).gettext(message)


@pytest.mark.parametrize("kind", ["empty", "short", "foreign: es's catalogue"])
def test_the_box_speaks_french_over_a_bad_cache(
    cache: Path, tmp_path: Path, kind: str
) -> None:
    """The box itself, started as a user starts it, over a bad entry: no crash, French words."""
    cache.mkdir(parents=True)
    entry(cache, "fr").write_bytes(BAD_ENTRIES[kind]())
    env = {**os.environ, "PITABLE_BACKENDS": "sim"}
    script = (
        "import sys\n"
        "from pitable.box.sim import Simulator\n"
        "from pitable.box.terminal import status_words\n"
        "from pitable.config import load_config\n"
        "from pitable.hw.entropy import SeededSource\n"
        "sim = Simulator(load_config(sys.argv[1]), entropy=SeededSource(7))\n"
        "print(status_words(sim)[1])\n"
        "sim.close()\n"
    )
    config = tmp_path / "fr.toml"
    config.write_text('[box]\nlanguage = "fr"\n')
    box = subprocess.run([sys.executable, "-c", script, str(config)], capture_output=True,
                         text=True, env=env, timeout=60, check=False)
    assert box.returncode == 0, box.stderr
    assert box.stdout.strip() == french("Press ROLL to roll") != "Press ROLL to roll"
    # And the command that runs it, in French, over another bad entry each time.
    entry(cache, "fr").write_bytes(BAD_ENTRIES[kind]())
    sim = subprocess.run(
        [sys.executable, "-m", "pitable", "sim", "--script", "press", "--seed", "7",
         "--lang", "fr"], capture_output=True, text=True, env=env, timeout=60, check=False)
    assert (sim.returncode, sim.stderr) == (0, "")


def test_english_is_the_source_itself() -> None:
    assert i18n.translator("en").gettext("Ignore the other dice.") == "Ignore the other dice."
    assert i18n.translator("fr").gettext("Ignore the other dice.") == "Ignorez les autres dés."


def test_an_unknown_language_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(UsageError, match=f"'xx_XX': expected one of {', '.join(i18n.LANGUAGES)}"):
        i18n.check_language("xx_XX")
    with pytest.raises(UsageError, match="unknown language"):
        i18n.check_language("fr FR")


@pytest.mark.parametrize(("tag", "lang"), [
    ("fr", "fr"), ("FR", "fr"), ("fr_FR", "fr"), ("es-ES", "es"), ("fr_FR.UTF-8", "fr"),
    ("fr_BE.UTF-8@euro", "fr"), ("es_419", "es"), (" en_GB ", "en"),
])
def test_a_region_tag_names_its_language(tag: str, lang: str) -> None:
    assert i18n.check_language(tag) == lang


@pytest.mark.parametrize(("environ", "lang"), [
    ({"LC_ALL": "fr_FR.UTF-8"}, "fr"),
    ({"LANG": "es_ES.UTF-8"}, "es"),
    ({"LC_MESSAGES": "fr_CA.UTF-8", "LANG": "es_ES.UTF-8"}, "fr"),
    ({"LC_ALL": "es_MX.UTF-8", "LC_MESSAGES": "fr_FR.UTF-8"}, "es"),
    # LANGUAGE is a list, read first and item by item, past the languages the box lacks.
    ({"LANGUAGE": "it:es_ES:fr", "LANG": "fr_FR.UTF-8"}, "es"),
    ({"LANGUAGE": "it", "LANG": "fr_FR.UTF-8"}, "fr"),
    # The C locale speaks English whatever LANGUAGE says, as GNU gettext has it.
    ({"LANGUAGE": "fr", "LC_ALL": "C.UTF-8", "LANG": "fr_FR.UTF-8"}, "en"),
    ({"LANGUAGE": "fr", "LANG": "POSIX"}, "en"),
    ({"LANG": "it_IT.UTF-8"}, "en"),
    ({"LANG": "nonsense!"}, "en"),
    ({}, "en"),
])
def test_where_nothing_is_set_the_environment_names_the_language(
    environ: dict[str, str], lang: str
) -> None:
    assert i18n.box_language("", environ) == lang
    # A language the config names wins over the environment's.
    assert i18n.box_language("es_ES", environ) == "es"


def test_lc_all_alone_makes_the_screen_command_speak_french() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    env["LC_ALL"] = "fr_FR.UTF-8"
    done = subprocess.run([sys.executable, "-m", "pitable", "screen", "valley", "*,2,3",
                           "--text"], capture_output=True, text=True, env=env, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    fr = i18n.translator("fr")
    assert done.stdout.splitlines()[0] == find_title("valley").display_short_name(fr)
    assert "BUILD" != fr.gettext("BUILD") in done.stdout.splitlines()


def test_the_config_chooses_the_language_among_the_known_ones(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[box]\nlanguage = "fr_FR"\n')
    assert i18n.box_language(load_config(good).box.language) == "fr"
    bad = tmp_path / "bad.toml"
    bad.write_text('[box]\nlanguage = "xx"\n')
    with pytest.raises(ConfigError, match=r"box\.language: expected one of"):
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


def test_a_full_disk_leaves_no_partial_entry(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    assert i18n.translator("fr").gettext("Ignore the other dice.") == "Ignorez les autres dés."
    assert list(cache.iterdir()) == []


def tree_copy(tmp_path: Path) -> Path:
    """The package's sources and catalogues and the scripts, copied; the venv this runs in."""
    root = tmp_path / "tree"

    def not_sources(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if not (Path(folder, n).is_dir() and n != "__pycache__")
                and not n.endswith((".py", ".po", ".pot"))]

    shutil.copytree(PACKAGE, root / "pitable", ignore=not_sources)
    shutil.copytree(PACKAGE.parent / "scripts", root / "scripts")
    if not (Path(sys.prefix) / "bin" / "pybabel").exists():
        pytest.skip(f"no pybabel in {sys.prefix}")
    (root / ".venv").symlink_to(sys.prefix)
    return root


def translations(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(root / "scripts" / "translations"), *args],
                          capture_output=True, text=True, timeout=120, check=False, cwd=root)


TEMPLATE = PACKAGE / "locale" / "pitable.pot"


def test_the_committed_template_is_the_messages_of_the_source() -> None:
    """``pitable/locale/pitable.pot`` and each title's template are what extraction gives
    today, and every catalogue is up to date with its template: the check writes nothing and
    passes on the committed tree."""
    done = translations(PACKAGE.parent, "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    templates = [(TEMPLATE, box_messages())]
    for title in all_titles():
        folder = title_package(title)
        assert folder is not None
        templates.append((folder / "locale" / f"{title.key}.pot", title_messages(title)))
    for path, messages in templates:
        assert set(catalogue_messages(path)) == messages, path
    assert set().union(*(messages for _, messages in templates)) == source_messages()


@pytest.mark.slow  # scripts/translations on a copy of the tree: CI runs it
def test_a_template_behind_the_source_fails_the_check(tmp_path: Path) -> None:
    root = tree_copy(tmp_path)
    (root / "pitable" / "added.py").write_text('N_ = str\nNEW = N_("A message just added")\n')
    done = translations(root, "--check")
    assert done.returncode == 1
    assert "pitable.pot is not the messages of the source" in done.stdout
    assert "A message just added" not in (root / "pitable/locale/pitable.pot").read_text()


def fuzzy(po: bytes, message: str) -> bytes:
    """``po`` with ``message``'s entry marked fuzzy, as a translator's tool leaves it."""
    text = po.decode()
    line = f'msgid "{message}"'
    assert text.count(line) == 1
    return text.replace(line, f"#, fuzzy\n{line}").encode()


@pytest.mark.slow  # scripts/translations on a copy of the tree: CI runs it
def test_a_fuzzy_entry_is_unfinished(tmp_path: Path) -> None:
    """Babel compiles a fuzzy entry out, so the box shows its English: the check and the
    completeness test name it, with the command's exit status."""
    message = "Press ROLL to roll"
    po = fuzzy(i18n.catalogue_path("fr").read_bytes(), message)
    assert i18n.unfinished(po) == [(message, "fuzzy")]
    assert gettext.GNUTranslations(io.BytesIO(i18n.compile_po(po))).gettext(message) == message
    root = tree_copy(tmp_path)
    (root / "pitable/locale/fr/LC_MESSAGES/pitable.po").write_bytes(po)
    done = translations(root)
    assert done.returncode == 1
    assert f"fr/LC_MESSAGES/pitable.po: fuzzy: {message!r}" in done.stdout


def po_files(root: Path) -> dict[str, bytes]:
    """Every catalogue of the tree at ``root``, the box's and each title's, by its path."""
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted((root / "pitable").rglob("*.po"))}


@pytest.mark.slow  # scripts/translations on a copy of the tree: CI runs it
def test_updating_the_catalogues_of_an_unchanged_tree_changes_nothing(tmp_path: Path) -> None:
    root = tree_copy(tmp_path)
    before = po_files(root)
    done = translations(root)
    assert done.returncode == 0, done.stderr
    assert len(before) == len(TRANSLATED) * (1 + len(all_titles()))
    assert po_files(root) == before
    assert (root / "pitable/locale/pitable.pot").read_bytes() == TEMPLATE.read_bytes()
    assert sorted(p.name for p in (root / "pitable" / "locale").rglob("*") if p.is_file()) \
        == ["pitable.po"] * len(TRANSLATED) + ["pitable.pot"]


@pytest.mark.slow  # scripts/translations on a copy of the tree: CI runs it
def test_an_update_adds_a_new_message_and_changes_nothing_else(tmp_path: Path) -> None:
    """The catalogues are in the form the update writes: a new message is its three lines."""
    root = tree_copy(tmp_path)
    before = po_files(root)
    (root / "pitable" / "added.py").write_text('N_ = str\nNEW = N_("A message just added")\n')
    done = translations(root)
    # Updated, then checked: the new message is named, untranslated, in each language.
    assert done.returncode == 1, done.stderr
    assert done.stdout.count("untranslated: 'A message just added'") == len(TRANSLATED)
    assert 'msgid "A message just added"' in (root / "pitable/locale/pitable.pot").read_text()
    for path, after in po_files(root).items():
        expected = ['+msgid "A message just added"', '+msgstr ""', "+"] \
            if path.startswith("pitable/locale/") else []
        diff = changes(before[path], after)
        assert diff == expected, (path, diff)


def changes(before: bytes, after: bytes) -> list[str]:
    """The lines that differ between two versions of a catalogue, but for its Babel's name."""
    return [line for line in difflib.unified_diff(
        before.decode().splitlines(), after.decode().splitlines(), n=0, lineterm="")
        if line[:1] in "+-" and line[:3] not in ("+++", "---")
        # Babel writes its own version into the header: another version, another line.
        and not line[1:].startswith('"Generated-By: Babel ')]


@pytest.mark.slow  # scripts/translations on a copy of the tree: CI runs it
def test_a_new_message_of_a_title_goes_to_its_own_catalogue(tmp_path: Path) -> None:
    """Marked in a title's package, a message is that title's: its template and each of its
    catalogues gain it (three lines), the box's and the other titles' are left alone."""
    root = tree_copy(tmp_path)
    before = po_files(root)
    title = all_titles()[-1]
    folder = title_package(title)
    assert folder is not None
    package = root / folder.relative_to(PACKAGE.parent)
    (package / "added.py").write_text('N_ = str\nNEW = N_("A message just added")\n')
    done = translations(root, "--check")
    assert done.returncode == 1
    assert f"{title.key}.pot is not the messages of the source" in done.stdout
    done = translations(root)
    assert done.returncode == 1, done.stderr
    own = (package / "locale").relative_to(root).as_posix()
    assert done.stdout.count(f"{title.key}.po: untranslated: 'A message just added'") == \
        len(TRANSLATED)
    assert 'msgid "A message just added"' in (package / "locale" / f"{title.key}.pot").read_text()
    assert (root / "pitable/locale/pitable.pot").read_bytes() == TEMPLATE.read_bytes()
    for path, after in po_files(root).items():
        expected = ['+msgid "A message just added"', '+msgstr ""', "+"] \
            if path.startswith(f"{own}/") else []
        # The blank line goes before or after the entry, as the diff finds it.
        diff = changes(before[path], after)
        assert sorted(diff) == sorted(expected), (path, diff)


@pytest.mark.slow  # scripts/translations on a copy of the tree: CI runs it
def test_a_language_a_titles_package_lacks_is_created_untranslated(tmp_path: Path) -> None:
    """A title whose package has no catalogue yet (a new title's, or a new language): the
    check names each one missing; the update makes them, each message to translate."""
    root = tree_copy(tmp_path)
    title = all_titles()[0]
    folder = title_package(title)
    assert folder is not None
    locale = root / folder.relative_to(PACKAGE.parent) / "locale"
    shutil.rmtree(locale)
    done = translations(root, "--check")
    assert done.returncode == 1
    for lang in TRANSLATED:
        assert f"{lang}/LC_MESSAGES/{title.key}.po is missing" in done.stdout
    assert not locale.exists()
    done = translations(root)
    assert done.returncode == 1, done.stderr
    for lang in TRANSLATED:
        made = catalogue_messages(locale / lang / "LC_MESSAGES" / f"{title.key}.po")
        assert set(made) == title_messages(title)
        assert not any(any(strings) for strings in made.values())
    assert f"untranslated: {title.name!r}" in done.stdout
    assert set(catalogue_messages(locale / f"{title.key}.pot")) == title_messages(title)


@pytest.mark.slow  # scripts/translations on a copy of the tree: CI runs it
def test_a_new_language_gets_a_catalogue_of_the_box_and_of_each_title(tmp_path: Path) -> None:
    """A language added to LANGUAGES: the update makes its catalogues, every message of each
    to translate, and names them."""
    root = tree_copy(tmp_path)
    source = root / "pitable" / "i18n.py"
    text = source.read_text()
    assert text.count('"nl": "Nederlands",') == 1
    source.write_text(text.replace('"nl": "Nederlands",', '"nl": "Nederlands", "it": "Italiano",'))
    done = translations(root)
    assert done.returncode == 1, done.stderr
    made = {path.relative_to(root): path
            for path in (root / "pitable").rglob("it/LC_MESSAGES/*.po")}
    expected = {Path("pitable/locale/it/LC_MESSAGES/pitable.po"): box_messages()}
    for title in all_titles():
        folder = title_package(title)
        assert folder is not None
        expected[folder.relative_to(PACKAGE.parent) / "locale/it/LC_MESSAGES" /
                 f"{title.key}.po"] = title_messages(title)
    assert set(made) == set(expected)
    for path, messages in expected.items():
        assert f"Created {path}" in done.stdout
        said = catalogue_messages(made[path])
        assert set(said) == messages
        assert not any(any(strings) for strings in said.values()), path


def test_french_punctuation_keeps_its_narrow_no_break_space() -> None:
    """French sets a narrow no-break space (U+202F) before : ; ! ?, never an ordinary one,
    which a line could break at ("SERPENT" on one line, "!" at the start of the next)."""
    strings = [s for path in i18n.catalogue_paths("fr")
               for strings in catalogue_messages(path).values() for s in strings]
    loose = [s for s in strings if re.search(r" [:;!?]", s)]
    assert not loose, loose
    assert sum("\u202f" in s for s in strings) > 50


def test_text_breaks_only_at_ordinary_spaces() -> None:
    from pitable.render.text import words

    assert words("DANGER\u202f! Ignorez\u00a0les  dés") == \
        ("DANGER\u202f!", "Ignorez\u00a0les", "dés")


@pytest.mark.parametrize("size", [(128, 64), (256, 64)])
def test_no_french_line_starts_with_its_punctuation(title: Title, size: tuple[int, int]) -> None:
    """Every page of every title's screens, table and solo, for a roll of each kind."""
    from pitable.render.status import StatusView, status_lines
    from pitable.rules import Roll

    for roll in ("1,2,3", "*,2,3", "2,*,5", "1,2,*", "*,*,*", "5,5,5"):
        for solo in (False, True):
            view = StatusView(title, solo=solo, round=3 if solo else None,
                              round_limit=title.solo_rounds if solo else None,
                              options=title.options(Roll.from_str(roll), 0), hazards=0,
                              lang="fr")
            lines = [line for page in status_lines(view, size) for line in page]
            assert not [line for line in lines if line[:1] in ":;!?"], (title.key, roll)
            assert not [line for line in lines if line.endswith("\u202f")], (title.key, roll)
