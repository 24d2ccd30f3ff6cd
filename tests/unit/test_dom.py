"""Parsing a page once: cleaning, metadata, visible text, and clear errors for non-pages."""
import pytest

from extraction.dom import PageError, load_page, normalize_space, text_of

PAGE = b"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html lang="en-GB"><head>
<title>  Council expands
 buses | The Daily Example </title>
<meta property="og:title" content="Council expands buses">
<meta name="Author" content="Jane Doe">
<meta name="author" content="Someone Else">
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
  {"@type": "WebPage", "name": "page"}, {"@type": "NewsArticle", "headline": "Council expands buses"}]}</script>
<script type="application/ld+json">{not json</script>
<style>p { color: red }</style>
</head><body>
<!-- a comment that must not show -->
<script>var x = "script text";</script>
<noscript>Enable JavaScript</noscript>
<div><p>First   paragraph,
  wrapped in the source.</p><p>Second <b>bold</b> paragraph.</p>
<pre>line one
line two</pre></div>
</body></html>"""


def test_metadata_read_before_cleaning():
    page = load_page(PAGE, "https://example.com/a")
    assert page.url == "https://example.com/a"
    assert page.title == "Council expands buses | The Daily Example"
    assert page.meta["og:title"] == "Council expands buses"
    assert page.meta["author"] == "Jane Doe"  # first one wins, keys lower-cased
    assert [d["@type"] for d in page.jsonld if "@type" in d] == ["WebPage", "NewsArticle"]  # @graph flattened, bad JSON skipped
    assert page.lang == "en-GB"


def test_scripts_styles_and_comments_are_gone():
    text = text_of(load_page(PAGE).body)
    assert "script text" not in text and "color: red" not in text
    assert "Enable JavaScript" not in text and "a comment" not in text


def test_visible_text_lines():
    lines = text_of(load_page(PAGE).body).split("\n")
    assert lines == ["First paragraph, wrapped in the source.", "Second bold paragraph.", "line one", "line two"]


def test_fetch_time_and_zone_are_carried():
    from datetime import datetime, timezone

    when = datetime(2020, 1, 2, tzinfo=timezone.utc)
    page = load_page(PAGE, fetched_at=when, tz="Asia/Shanghai")
    assert page.fetched_at == when and page.tz == "Asia/Shanghai"


@pytest.mark.parametrize("data, reason", [
    (b"", "empty"),
    (b"   \n\t ", "empty"),
    (b"\x00\x01\x02\x03binary\x00" * 100, "binary"),
    (b"just some words without any markup", "not_html"),
])
def test_non_pages_raise_page_error_with_reason(data, reason):
    with pytest.raises(PageError) as err:
        load_page(data)
    assert err.value.reason == reason


def test_too_large_is_refused_before_parsing():
    with pytest.raises(PageError) as err:
        load_page(b"<html><body>" + b"x" * 2000 + b"</body></html>", max_bytes=1000)
    assert err.value.reason == "too_large"


def test_utf16_with_bom_is_not_mistaken_for_binary():
    page = load_page("<html><body><p>wide text</p></body></html>".encode("utf-16"))
    assert "wide text" in text_of(page.body)


def test_broken_html_still_parses():
    page = load_page(b"<html><body><div><p>unclosed <b>tags <i>everywhere<div>and more</body>")
    assert "unclosed tags everywhere" in text_of(page.body)


def test_fragment_without_html_or_body():
    page = load_page(b"<p>only a paragraph</p>")
    assert text_of(page.body) == "only a paragraph"


def test_deep_nesting_text_walk_is_iterative():
    html = b"<html><body>" + b"<span>" * 1500 + b"deep text" + b"</span>" * 1500 + b"</body></html>"
    assert "deep text" in text_of(load_page(html).body)


def test_normalize_space():
    assert normalize_space(" a\u00a0 b\u3000c\u200b ") == "a b c"
    assert normalize_space(None) == ""


POST = "<div class='post'><span class='who'>user{i}</span> <span class='when'>2021-03-0{i} 10:1{i}</span><p>Reply {i}: the transfer went through after I logged out and back in, thanks for the tip.</p></div>"
JS_SHELL = ("<html><head><title>Can I transfer back? - Forums</title></head><body>"
            "<div id='app'></div><noscript><img src='/pixel.gif'></noscript>"
            "<noscript data-path='/t/can-i-transfer/1'><header><a href='/'>Forums</a></header>"
            "<div id='main-outlet'>" + "".join(POST.format(i=i) for i in range(1, 6)) + "</div>"
            "<footer>Powered by the forum</footer></noscript></body></html>")


def test_noscript_holding_the_page_is_kept_as_a_div():
    # A JavaScript application's server-rendered fallback (Discourse puts every post there).
    page = load_page(JS_SHELL)
    assert "Reply 3: the transfer went through" in text_of(page.body)
    assert not page.root.xpath("//noscript") and not page.root.xpath("//img")
    assert page.root.xpath("//div[@data-mcrawl-noscript]/div[@id='main-outlet']")


def test_small_noscript_beside_an_article_is_dropped():
    # Fallback markup that is not most of the page (an image fallback, an embed's alternative
    # text) must not leak into the article body.
    fallback = "<noscript><div><p>" + "Please enable JavaScript to view the comments powered by the widget. " * 4 + "</p></div></noscript>"
    article = "<article>" + "<p>The council approved the budget after a long debate about buses and trains.</p>" * 12 + "</article>"
    page = load_page(f"<html><body>{article}{fallback}</body></html>")
    assert "enable JavaScript" not in text_of(page.body)
    assert "approved the budget" in text_of(page.body)


def test_short_noscript_without_blocks_is_dropped():
    page = load_page(PAGE)
    assert "Enable JavaScript" not in text_of(page.body)
