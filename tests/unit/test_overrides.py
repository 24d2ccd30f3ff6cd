"""Per-channel XPath overrides applied by the extraction pipeline."""
from extraction import extract
from extraction.overrides import check_overrides, parse_date_text

PARAGRAPH = ("The council agreed on Tuesday to extend the tram line to the harbour, after two years of "
             "consultations with residents, shop owners and the port authority, which had asked for a stop "
             "near the ferry terminal. Work is expected to start next spring and to last eighteen months. ")
PAGE = ("<html><head><title>Tram line to the harbour - City News</title></head><body>"
        "<div class='nav'><a href='/'>Home</a> <a href='/news'>News</a> <a href='/sport'>Sport</a></div>"
        "<h2 class='x'>The real headline of it</h2><span class='d'>发布于 2025年10月14日 20:15</span>"
        f"<div class='b'><p>{PARAGRAPH}</p><p>{PARAGRAPH}</p><p>second paragraph</p></div>"
        "<div class='footer'>Copyright City News</div></body></html>")
LIST_LIKE = ("<html><body>" + "".join(f"<p><a href='/a/{i}'>Item {i}</a></p>" for i in range(30))
             + "<div class='b'><p>" + PARAGRAPH + "</p></div></body></html>")


def test_overrides_replace_headline_body_and_date_in_channel_zone():
    r = extract(PAGE, "http://site.test/a", tz="Asia/Shanghai",
                overrides={"headline": "//h2[@class='x']", "date": "//span[@class='d']", "body": "//div[@class='b']"})
    assert r.headline == "The real headline of it"
    assert r.datePublished == "2025-10-14T20:15:00+08:00"
    assert r.articleBody.endswith("second paragraph") and "Home News" not in r.articleBody
    assert r.method.endswith("+overrides") and r.valid


def test_override_matching_nothing_keeps_automatic_value():
    auto = extract(PAGE, "http://site.test/a")
    r = extract(PAGE, "http://site.test/a", overrides={"headline": "//h9"})
    assert r.headline == auto.headline


def test_invalid_override_is_reported_and_does_not_break_extraction():
    assert any("invalid XPath" in p for p in check_overrides({"headline": "//h2["}))
    assert any("unknown override field" in p for p in check_overrides({"title": "//h1"}))
    assert check_overrides({"headline": "//h1", "date": "//time/@datetime"}) == []
    r = extract(PAGE, "http://site.test/a", overrides={"headline": "//h2["})
    assert r == extract(PAGE, "http://site.test/a")  # ignored: the automatic result stands


def test_body_override_overrules_the_page_classifier():
    auto = extract(LIST_LIKE, "http://site.test/l")
    r = extract(LIST_LIKE, "http://site.test/l", overrides={"body": "//div[@class='b']", "headline": "//a[1]"})
    assert r.page_type == "article" and r.articleBody.startswith("The council agreed"), (auto.page_type, r)


def test_parse_date_text_without_date_is_none():
    assert parse_date_text("no date here at all") is None
    assert parse_date_text("Published 17 October 2025, 07:45", "Europe/London") == "2025-10-17T07:45:00+01:00"
