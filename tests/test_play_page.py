"""The phone's sheet page (/play) is served by the box with every asset it names, keeps the
player's token out of its URLs, and has each of its words in every language of the box."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pitable.box.phones import PhoneTable
from pitable.box.store import SessionStore
from pitable.i18n import LANGUAGES, SOURCE_LANGUAGE
from pitable.web.app import STATIC
from pitable.web.server import WebServer
from pitable.web.words import PAGE_WORDS, page_words
from tests.support.box import make
from tests.support.web import PIN, Page, english_defaults


def test_the_phone_s_page_and_every_asset_it_names_are_served(tmp_path: Path) -> None:
    store = SessionStore.open(tmp_path)
    sim = make("2,3,4", mode="solo", title="temple", store=store)
    server = WebServer("127.0.0.1", 0, PIN, sim.box.post, phones=PhoneTable(store))
    server.start()
    page = Page(server, None, [])  # type: ignore[arg-type]
    try:
        status, headers, html = page.request("GET", "/play")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert html == (STATIC / "play.html").read_bytes()
        assets = re.findall(r'(?:src|href)="([^"]+)"', html.decode())
        assert {"/static/play.js", "/static/play.css", "/static/dice.js",
                "/static/stream.js"} <= set(assets)
        for asset in assets:
            status, _, body = page.request("GET", asset)
            assert status == 200 and body == (STATIC / asset.removeprefix("/static/")
                                              ).read_bytes(), asset
        # The table's page links to it.
        assert 'href="/play"' in page.request("GET", "/")[2].decode()
    finally:
        server.close()
        sim.close()


def test_the_token_travels_in_a_header_never_in_a_url() -> None:
    script = (STATIC / "play.js").read_text()
    assert '"X-Pitable-Player"' in script
    urls = re.findall(r"`(/api/[^`]*)`|\"(/api/[^\"]*)\"", script)
    assert urls and not any("token" in "".join(u) for u in urls), urls


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE])
def test_every_word_of_the_phone_s_page_is_in_every_language(lang: str) -> None:
    """Each word the phone's page shows is translated (the same as English only where the
    language writes it so, as "Score" in French and "live" in German)."""
    english = english_defaults((STATIC / "play.js").read_text())
    said = page_words(lang)["words"]
    assert isinstance(said, dict)
    assert set(english) <= set(said)
    untranslated = {key for key in english if said[key] == PAGE_WORDS[key]}
    # "{die}: {face}" has no word to translate.
    alike = {"die_face"} | {"fr": {"score", "total"}, "es": {"total"}, "de": {"live"},
                            "nl": {"live", "score"}}.get(lang, set())
    assert untranslated <= alike, untranslated - alike
