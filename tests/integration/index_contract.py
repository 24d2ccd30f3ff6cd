"""The ArticleIndex contract, run on Elasticsearch (test_index_es.py) and SQLite FTS5
(test_index_sqlite.py); each module provides an `index` fixture (ensured, empty)."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from crawler.urls import url_id
from workers.index import SearchResults

ZH_BODY = ("国家统计局今天发布数据，今年前三季度国内生产总值同比增长，新能源汽车产量继续保持快速增长。"
           "专家表示，人工智能与制造业深度融合，正在成为经济增长的新动能。")
EN_BODY = ("The city council voted on Tuesday to expand the tram network. Supporters said the new "
           "lines would cut commuting times, while critics worried about the cost of construction.")


def docs():
    return [
        {"url": "https://news.example.cn/2024/05/01/econ.html", "site": "example.cn", "channel": 1,
         "channel_kind": "rss", "title": "前三季度经济数据发布 新能源汽车产量快速增长", "content": ZH_BODY,
         "pubdate": "2024-05-01T09:30:00+08:00", "crawled_at": "2024-05-01T02:00:00Z", "author": "张三",
         "source": "新华社", "lang": "zh", "page_type": "news", "method": "cevc"},
        {"url": "https://www.example.com/local/trams?utm_source=rss", "site": "example.com", "channel": 2,
         "channel_kind": "listpage", "title": "Council votes to expand tram network", "content": EN_BODY,
         "pubdate": "2024-06-02T10:00:00Z", "crawled_at": "2024-06-02T11:00:00Z", "author": "Jane Roe",
         "source": "Example Times", "lang": "en", "page_type": "news", "method": "cevc"},
        {"url": "https://forum.example.com/t/42", "site": "forum.example.com", "channel": 3,
         "channel_kind": "sitemap", "title": "Tram noise at night?", "content": "Does anyone else hear the tram "
         "network at night? The new lines are loud.", "pubdate": "2024-06-03T20:00:00Z",
         "crawled_at": "2024-06-03T21:00:00Z", "lang": "en", "page_type": "forum", "method": "pean"},
    ]


@pytest.fixture
def filled(index):
    ok, errors = index.index_bulk(docs())
    assert (ok, errors) == (3, [])
    index.refresh()
    return index


def test_bulk_is_idempotent_by_canonical_url(filled):
    again = dict(docs()[1], url="https://www.example.com/local/trams", title="Council votes to expand tram network (updated)")
    ok, errors = filled.index_bulk([again])
    filled.refresh()
    assert ok == 1 and errors == [] and filled.count() == 3
    stored = filled.get(url_id("https://www.example.com/local/trams"))
    assert stored["title"].endswith("(updated)") and stored["url"] == "https://www.example.com/local/trams"
    assert filled.get("0" * 40) is None


def test_english_search_ranks_and_highlights(filled):
    res = filled.search("tram network")
    assert isinstance(res, SearchResults) and res.total == 2
    assert res.hits[0].title == "Council votes to expand tram network"   # title match ranks first
    assert "<em>" in res.hits[0].snippet and "tram" in res.hits[0].snippet.lower()
    hit = res.hits[0]
    assert hit.id == url_id(hit.url) and hit.site == "example.com" and hit.source == "Example Times"
    assert hit.pubdate.startswith("2024-06-02")


def test_chinese_search_finds_words_inside_sentences(filled):
    for query in ("新能源汽车", "人工智能", "经济增长"):
        res = filled.search(query)
        assert res.total == 1, query
        assert res.hits[0].site == "example.cn"
        assert "<em>" in res.hits[0].snippet
    assert filled.search("量子计算机").total == 0


def test_filters_site_dates_type_and_kind(filled):
    assert filled.search("tram", site="forum.example.com").total == 1
    assert filled.search("", since=datetime(2024, 6, 1, tzinfo=timezone.utc)).total == 2
    assert filled.search("", until=datetime(2024, 6, 1, tzinfo=timezone.utc)).total == 1
    assert filled.search("", since="2024-06-02T10:00:00Z", until="2024-06-03T00:00:00Z").total == 1
    assert filled.search("tram", page_type="forum").hits[0].url == "https://forum.example.com/t/42"
    assert filled.search("", channel_kind="rss").total == 1


def test_sort_newest_and_paging(filled):
    newest = filled.search("", sort="newest")
    assert [h.site for h in newest.hits] == ["forum.example.com", "example.com", "example.cn"]
    page2 = filled.search("", sort="newest", offset=1, size=1)
    assert page2.total == 3 and [h.site for h in page2.hits] == ["example.com"]
    with pytest.raises(ValueError):
        filled.search("x", sort="random")
    with pytest.raises(ValueError):
        filled.search("x", size=0)


def test_query_syntax_in_user_input_is_literal(filled):
    for query in ('tram" OR "x', "tram AND (", "content:tram*", "NEAR(tram", "'; DROP TABLE articles; --"):
        res = filled.search(query)   # never an exception
        assert res.total >= 0
    assert filled.count() == 3


def test_bad_documents_are_reported_and_the_rest_indexed(index):
    good = docs()[0]
    ok, errors = index.index_bulk([{"title": "no url"}, good, {"url": "not a url", "title": "x"}])
    index.refresh()
    assert ok == 1 and len(errors) == 2 and all(e["error"] for e in errors)
    assert index.count() == 1


def test_counts_for_the_console(filled):
    assert dict(filled.site_counts()) == {"example.cn": 1, "example.com": 1, "forum.example.com": 1}
    hours = filled.articles_per_hour(since=datetime(2024, 6, 1, tzinfo=timezone.utc))
    assert sum(hours.values()) == 2
    stats = filled.stats()
    assert stats["documents"] == 3
