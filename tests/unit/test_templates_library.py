"""Labelling, matching, the template library (URL trie, JSON) and the fusion pipeline."""
from __future__ import annotations

import json

import pytest

from extraction.dom import load_page
from extraction.pipeline import extract
from extraction.templates.library import TemplateLibrary, TemplateLibraryError
from extraction.templates.match import align, page_sequence
from extraction.templates.mine import load_and_mine, mine
from extraction.templates.model import Template
from extraction.templates.urltrie import UrlTrie, url_segments
from tests.unit.test_templates_pages import blog_page, news_page


def news_url(i: int) -> str:
    return f"https://www.town.example/news/local/story-{i}.html"


@pytest.fixture(scope="module")
def library() -> TemplateLibrary:
    items = [(str(i), news_page(i)[0].encode(), news_url(i)) for i in range(6)]
    items += [(f"b{i}", blog_page(i)[0].encode(), f"https://garden.example/2012/05/{i}/notes") for i in range(4)]
    mined, skipped = load_and_mine(items)
    assert not skipped
    lib, report = mine(mined, "mixed")
    assert len(report.clusters) == 2
    return lib


def test_slots_are_labelled_from_the_extractors_agreement(library):
    news = next(t for t in library if "town.example/news/local" in t.url_prefixes)
    assert news.keys[news.slots["body"].node] in ("div.story-body", "div.story")
    assert news.keys[news.slots["headline"].node] == "h1.headline"
    assert news.slots["body"].source == "auto" and news.slots["body"].agreement > 0.8


def test_extraction_with_a_template_reads_the_article(library):
    html, meta = news_page(42, paragraphs=5, related=9)
    page = load_page(html, news_url(42))
    result = library.extract(page)
    assert result is not None and result.method == "template"
    assert result.headline == meta["headline"]
    for p in meta["paragraphs"]:
        assert p in result.articleBody
    assert "Most read" not in result.articleBody and "Copyright" not in result.articleBody


def test_page_without_url_is_matched_by_structure(library):
    html, meta = blog_page(77)
    result = library.extract(load_page(html))
    assert result is not None and result.method == "template"
    assert meta["paragraphs"][0] in result.articleBody


def test_unrelated_page_gets_no_template(library):
    other = "<html><body><div id='x'><form><p>Login</p></form></div></body></html>"
    assert library.extract(load_page(other, "https://elsewhere.example/a/b")) is None
    assert library.extract(load_page(other)) is None


def test_match_score_drops_when_the_site_changes(library):
    news = next(t for t in library if "town.example/news/local" in t.url_prefixes)
    good = load_page(news_page(50)[0])
    changed = load_page(news_page(50)[0].replace('class="main"', 'class="wrap"').replace('class="header"', 'class="top"')
                        .replace('class="story"', 'class="article"'))
    s_good = align(news, page_sequence(good)).score
    s_changed = align(news, page_sequence(changed)).score
    assert s_good > 0.95 and s_changed < news.threshold


def test_fusion_pipeline_uses_the_template_and_falls_back(library):
    html, meta = news_page(43)
    result = extract(html.encode(), news_url(43), templates=library)
    assert result.method == "template" and result.valid
    # an article of another layout on the same host: template match fails, template-free path runs
    other = blog_page(5)[0].replace("<table class=\"layout\">", "<div class='new-layout'><table class='x'>")
    fallback = extract(other.encode(), news_url(44), templates=library)
    assert fallback.method != "template"


def test_json_round_trip_keeps_templates_and_trie(library, tmp_path):
    path = tmp_path / "lib.json"
    library.save(path)
    loaded = TemplateLibrary.load(path)
    assert [t.to_dict() for t in loaded] == [t.to_dict() for t in library]
    page = load_page(news_page(44)[0], news_url(44))
    assert loaded.extract(page).articleBody == library.extract(page).articleBody


def test_manual_label_wins_and_survives_saving(library, tmp_path):
    data = library.to_dict()
    lib = TemplateLibrary.from_dict(json.loads(json.dumps(data)))
    news = next(t for t in lib if "town.example/news/local" in t.url_prefixes)
    node = news.keys.index("div.byline")
    news.set_slot("headline", node)
    path = tmp_path / "lib.json"
    lib.save(path)
    again = TemplateLibrary.load(path)
    t = again.templates[news.id]
    assert t.slots["headline"].source == "manual" and t.slots["headline"].node == node
    assert again.extract(load_page(news_page(9)[0], news_url(9))).headline == "By Reporter 0"
    with pytest.raises(ValueError, match="out of range"):
        t.set_slot("body", 10_000)
    with pytest.raises(ValueError, match="unknown field"):
        t.set_slot("price", 1)


def test_bad_library_files_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(TemplateLibraryError, match="not JSON"):
        TemplateLibrary.load(bad)
    bad.write_text(json.dumps({"templates": [{"keys": ["div"]}]}))
    with pytest.raises(TemplateLibraryError, match="'id'"):
        TemplateLibrary.load(bad)
    bad.write_text(json.dumps({"templates": [{"id": "t", "keys": ["div"], "depths": [0], "parents": [-1],
                                              "slots": {"body": {"field": "body", "node": 5}}}]}))
    with pytest.raises(TemplateLibraryError, match="node 5"):
        TemplateLibrary.load(bad)
    with pytest.raises(TemplateLibraryError, match="cannot read"):
        TemplateLibrary.load(tmp_path / "missing.json")
    assert len(TemplateLibrary.from_dict({"version": 1, "templates": []})) == 0


def test_url_segments_keep_the_section():
    assert url_segments("https://WWW.Example.com/news/world/story-1.html?x=1") == ["example.com", "news", "world"]
    assert url_segments("http://blog.example/2012/07/23/title/") == ["blog.example"]
    assert url_segments("not a url") == []


def test_trie_prefers_the_longest_unambiguous_prefix():
    trie = UrlTrie()
    for i in range(5):
        trie.add(f"http://s.example/news/a{i}", "news")
        trie.add(f"http://s.example/sport/a{i}", "sport")
    trie.add("http://s.example/sport/live/x", "live")
    assert trie.lookup("http://s.example/news/new-story") == (["news"], True)
    assert trie.lookup("http://s.example/sport/live/y") == (["live"], True)
    ids, unambiguous = trie.lookup("http://s.example/other/page")
    assert not unambiguous and set(ids) == {"news", "sport", "live"}
    assert trie.lookup("http://unknown.example/news/x") == ([], False)


def test_template_without_body_slot_is_not_used():
    t = Template(id="t", keys=["body"], depths=[0], parents=[-1], repeatable=[False])
    lib = TemplateLibrary([t])
    assert lib.extract(load_page("<html><body><p>x</p></body></html>")) is None
