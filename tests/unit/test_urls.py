import pytest

from crawler.urls import BadURL, canonicalize, host_of, site_of, url_id


@pytest.mark.parametrize("url, expected", [
    ("HTTP://Example.COM:80/a?b=2&a=1#top", "http://example.com/a?a=1&b=2"),
    ("https://example.com:443", "https://example.com/"),
    ("https://example.com:8443/x", "https://example.com:8443/x"),
    ("http://example.com/news?id=7&utm_source=rss&utm_medium=feed", "http://example.com/news?id=7"),
    ("http://example.com/a?spm=a2c4.b&from=timeline&fbclid=X&id=1", "http://example.com/a?id=1"),
    ("http://example.com/a?UTM_Campaign=x", "http://example.com/a"),
    ("http://example.com/a b", "http://example.com/a%20b"),
    ("http://example.com./x", "http://example.com/x"),
    ("  http://example.com/x  ", "http://example.com/x"),
])
def test_canonical_spelling(url, expected):
    assert canonicalize(url) == expected


def test_meaningful_parameters_are_kept_and_sorted():
    assert canonicalize("http://ex.com/s?q=a&page=2&empty=") == "http://ex.com/s?empty=&page=2&q=a"


def test_non_ascii_host_and_path_are_encoded_stably():
    once = canonicalize("http://例子.中国/新闻?q=中文")
    assert once.startswith("http://xn--")
    assert canonicalize(once) == once


def test_spellings_of_one_page_share_an_id():
    a = url_id("HTTP://Example.com:80/a?b=2&a=1#x")
    b = url_id("http://example.com/a?a=1&b=2&utm_source=t")
    assert a == b and len(a) == 40
    assert a != url_id("http://example.com/a?a=1&b=3")


@pytest.mark.parametrize("bad", ["", "   ", "/relative/path", "ftp://example.com/f", "mailto:x@y.z",
                                 "http://", "http://example.com:99999/", "http://example.com:abc/", None])
def test_bad_urls_raise_a_clear_error(bad):
    with pytest.raises(BadURL):
        canonicalize(bad)


def test_host_and_site():
    assert host_of("https://WWW.Example.com:8080/x") == "www.example.com"
    assert site_of("https://www.example.com/x") == "example.com"
    assert site_of("https://news.example.com/x") == "news.example.com"
