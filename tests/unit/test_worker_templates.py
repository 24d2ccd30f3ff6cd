"""Workers extract with the templates mined into the store, and survive a store that fails."""
from __future__ import annotations

from crawler.cli import main
from crawler.store import open_store
from extraction import extract
from tests.unit.test_templates_pages import news_page
from workers.templates import TemplateCache


def _mine_into(db: str, tmp_path) -> None:
    pages = tmp_path / "pages"
    pages.mkdir()
    urls = {}
    for i in range(6):
        (pages / f"n{i}.html").write_text(news_page(i)[0], encoding="utf-8")
        urls[f"n{i}"] = {"url": f"http://town.example/news/story-{i}.html"}
    (tmp_path / "urls.json").write_text(__import__("json").dumps(urls))
    assert main(["templates", "mine", str(pages), "--site", "town", "--urls", str(tmp_path / "urls.json"),
                 "--db", db]) == 0


def test_cache_loads_store_templates_and_extraction_uses_them(tmp_path):
    db = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    store = open_store(db)
    try:
        cache = TemplateCache(store, reload_s=3600)
        assert cache.get() is None  # empty store: the template step is skipped
        _mine_into(db, tmp_path)
        cache._loaded_at = float("-inf")  # as if the reload interval had passed
        library = cache.get()
        assert library is not None and len(library) >= 1
        html, _ = news_page(42)
        result = extract(html, "http://town.example/news/story-42.html", templates=library)
        assert result.method == "template", result.reasons
        assert result.valid
    finally:
        store.close()


def test_cache_keeps_last_library_when_store_fails(tmp_path):
    db = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    _mine_into(db, tmp_path)
    store = open_store(db)
    cache = TemplateCache(store, reload_s=0)
    library = cache.get()
    assert library is not None
    store.close()  # every later read fails
    assert cache.get() is library


def test_channel_overrides_beat_a_mined_template(tmp_path):
    db = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    _mine_into(db, tmp_path)
    store = open_store(db)
    try:
        library = TemplateCache(store).get()
    finally:
        store.close()
    html, _ = news_page(7)
    plain = extract(html, "http://town.example/news/story-7.html", templates=library)
    assert plain.method == "template"
    forced = extract(html, "http://town.example/news/story-7.html", templates=library,
                     overrides={"author": "//div[@class='byline']", "headline": "//div[@class='logo']"})
    assert plain.headline != "Town News"
    assert forced.method == "template+overrides" and forced.headline == "Town News"
    assert forced.author and "Reporter 1" in forced.author
