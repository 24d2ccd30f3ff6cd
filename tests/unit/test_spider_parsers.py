"""The spiders' link parsers, on small hand-written feeds, list pages and sitemaps (no network)."""
import gzip
from types import SimpleNamespace

import pytest

from crawler.spiders import PARSERS
from crawler.spiders.links import EntryPage, SourceError

JOB = SimpleNamespace(detail_url_regex=r"/a/\d+", detail_xpath=None, keyword=None)


def page(body: bytes, url="http://site.test/dir/entry", ctype=None) -> EntryPage:
    return EntryPage(url, body, ctype)


def test_rss_relative_and_absolute_links_in_order_without_repeats():
    body = (b'<rss version="2.0"><channel><item><link>/a/1</link></item><item><link>http://x.test/a/2</link></item>'
            b'<item><link>/a/1</link></item><item><title>no link</title></item></channel></rss>')
    found = PARSERS["rss"](page(body), JOB)
    assert found.links == ["http://site.test/a/1", "http://x.test/a/2"]


def test_rss_html_instead_of_feed_and_garbage():
    with pytest.raises(SourceError, match="HTML page, not RSS"):
        PARSERS["rss"](page(b"<html><body>hi</body></html>", ctype="text/html"), JOB)
    with pytest.raises(SourceError, match="malformed feed"):
        PARSERS["rss"](page(b"<rss><<<"), JOB)


def test_empty_feed_is_a_warning_not_an_error():
    found = PARSERS["rss"](page(b'<rss version="2.0"><channel><title>t</title></channel></rss>'), JOB)
    assert found.links == [] and "no entries" in found.warnings[0]


def test_list_page_regex_xpath_base_and_bad_links():
    html = (b'<html><head><base href="http://cdn.test/base/"></head><body><div id="main"><a href="a/1">1</a>'
            b'<a href="mailto:x@y">m</a><a href="javascript:void(0)">j</a></div><a href="/a/2">outside</a></body></html>')
    assert PARSERS["listpage"](page(html), JOB).links == ["http://cdn.test/base/a/1", "http://cdn.test/a/2"]
    only_main = SimpleNamespace(detail_url_regex=None, detail_xpath="//div[@id='main']", keyword=None)
    assert PARSERS["listpage"](page(html), only_main).links == ["http://cdn.test/base/a/1"]


def test_list_page_errors_are_clear():
    with pytest.raises(SourceError, match="invalid detail_url_regex"):
        PARSERS["listpage"](page(b"<html><body><a href='/a/1'>x</a></body></html>"),
                            SimpleNamespace(detail_url_regex="(", detail_xpath=None, keyword=None))
    with pytest.raises(SourceError, match="invalid detail_xpath"):
        PARSERS["listpage"](page(b"<html><body></body></html>"),
                            SimpleNamespace(detail_url_regex=None, detail_xpath="//div[", keyword=None))
    found = PARSERS["listpage"](page(b"<html><body><a href='/about'>x</a></body></html>"), JOB)
    assert found.links == [] and "0 links" in found.warnings[0]


def test_sitemap_index_urlset_gzip_and_robots():
    index = (b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://site.test/s1.xml'
             b'</loc></sitemap></sitemapindex>')
    assert PARSERS["sitemap"](page(index), None).follow == ["http://site.test/s1.xml"]
    urlset = gzip.compress(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://site.test/a/1'
                           b'</loc></url><url><loc>http://site.test/b/2</loc></url></urlset>')
    assert PARSERS["sitemap"](page(urlset), JOB).links == ["http://site.test/a/1"]
    robots = page(b"User-agent: *\nSitemap: http://site.test/sm.xml\n", url="http://site.test/robots.txt")
    assert PARSERS["sitemap"](robots, None).follow == ["http://site.test/sm.xml"]
    with pytest.raises(SourceError, match="neither <urlset> nor <sitemapindex>"):
        PARSERS["sitemap"](page(b"<html><body>x</body></html>"), None)


def test_sitemap_does_not_resolve_entities():
    evil = (b'<?xml version="1.0"?><!DOCTYPE u [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://site.test/a/1&x;</loc></url></urlset>')
    found = PARSERS["sitemap"](page(evil), None)
    assert all("root:" not in link for link in found.links)
