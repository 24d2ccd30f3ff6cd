"""Publication time: formats, relative times against a fixed fetch time, range checks, preference
for the date nearest the headline, and the zh-news dev figures."""
from __future__ import annotations

import importlib.util
import json
from datetime import datetime, timezone

import pytest

from extraction.dates import extract_published
from extraction.dom import load_page
from extraction.cevc import extract_body
from extraction.titles import extract_headline
from extraction.timeparse import find_times, parse_time_value

FETCHED = datetime(2020, 6, 15, 4, 0, tzinfo=timezone.utc)  # 12:00 in Asia/Shanghai
BODY_ZH = "<p>这是一篇新闻的正文内容，我们在这里写了很多文字，用于测试日期的提取是否正确。</p>" * 4


def published(body: str, head: str = "", tz: str | None = "Asia/Shanghai", fetched=FETCHED, url=None):
    html = f"<html><head><title>标题测试新闻稿件一篇</title>{head}</head><body>{body}</body></html>"
    page = load_page(html.encode("utf-8"), url=url, fetched_at=fetched, tz=tz)
    h1 = page.root.find(".//h1")
    content = page.root.find(".//div[@id='content']")
    return extract_published(page, h1, content)


def with_meta_line(line: str, **kw) -> str | None:
    return published(f"<h1>标题测试新闻稿件一篇</h1><div class='info'>{line}</div><div id='content'>{BODY_ZH}</div>", **kw)


@pytest.mark.parametrize("line, expected", [
    ("2014-06-12 10:10:20 来源：新华网", "2014-06-12T10:10:20+08:00"),
    ("2014/6/12 10:10", "2014-06-12T10:10:00+08:00"),
    ("2016年06月13日 06:56", "2016-06-13T06:56:00+08:00"),
    ("2016年6月13日", "2016-06-13T00:00:00+08:00"),
    ("2019年06月15日08:18 来源：人民网", "2019-06-15T08:18:00+08:00"),
    ("发布时间：2019-09-26 10:09:11", "2019-09-26T10:09:11+08:00"),
    ("2019-09-26 12:11来源：证券时报网作者：李在山", "2019-09-26T12:11:00+08:00"),
    ("时间：2012年6月24日12时55分", "2012-06-24T12:55:00+08:00"),
    ("June 12, 2014 10:10 pm", "2014-06-12T22:10:00+08:00"),
    ("Published 12 Jun 2014 10:10 GMT", "2014-06-12T10:10:00+00:00"),
    ("2019-09-07T13:43:45+08:00", "2019-09-07T13:43:45+08:00"),
    ("Updated 11/19/2019 10:05 AM", "2019-11-19T10:05:00+08:00"),
    ("Veröffentlicht 19.11.2019 10:05", "2019-11-19T10:05:00+08:00"),
    ("Posted 25/12/2019", "2019-12-25T00:00:00+08:00"),
    ("19-09-07 13:43", "2019-09-07T13:43:00+08:00"),
])
def test_formats_on_the_meta_line(line, expected):
    assert with_meta_line(line) == expected


def test_month_day_without_year_takes_the_latest_year_not_in_the_future():
    assert with_meta_line("发布时间：06-13 10:20") == "2020-06-13T10:20:00+08:00"
    # Later in the year than the fetch: last year's.
    assert with_meta_line("发布时间：10-0812:00") == "2019-10-08T12:00:00+08:00"
    assert with_meta_line("6月13日 10:20") == "2020-06-13T10:20:00+08:00"


def test_month_day_without_year_takes_the_year_of_a_structured_time_of_that_day():
    head = "<meta name='dateUpdate' content='2017-10-08 12:00:57'>"
    assert with_meta_line("发布时间：10-0812:00", head=head) == "2017-10-08T12:00:00+08:00"


@pytest.mark.parametrize("line, expected", [
    ("3小时前", "2020-06-15T09:00:00+08:00"),
    ("刚刚", "2020-06-15T12:00:00+08:00"),
    ("昨天 10:20", "2020-06-14T10:20:00+08:00"),
    ("前天", "2020-06-13T00:00:00+08:00"),
    ("2 hours ago", "2020-06-15T10:00:00+08:00"),
    ("Posted yesterday", "2020-06-14T00:00:00+08:00"),
    ("5分钟前 来源：新华网", "2020-06-15T11:55:00+08:00"),
    ("三小时前", "2020-06-15T09:00:00+08:00"),
])
def test_relative_times_resolve_against_the_fetch_time(line, expected):
    assert with_meta_line(line) == expected


def test_relative_word_inside_a_story_sentence_is_not_a_date():
    body = ("<h1>标题测试新闻稿件一篇</h1><div id='content'><p>今天下午，记者来到现场采访了很多市民，"
            "大家都说这个活动办得非常好，明年还要再来参加这样的活动。</p>" + BODY_ZH + "</div>")
    assert published(body) is None


def test_future_and_too_old_dates_are_rejected():
    assert with_meta_line("2031-01-01 10:00") is None
    assert with_meta_line("1998-05-01 10:00") is None
    assert with_meta_line("发布时间：2031-01-01 10:00 更早：2019-01-02 08:00") == "2019-01-02T08:00:00+08:00"


def test_nearest_date_under_the_headline_wins_over_the_sidebar_full_of_dates():
    sidebar = "".join(f"<li><a href='/{i}'>其他新闻标题{i}</a> 2020-05-{i:02d} 09:00</li>" for i in range(1, 28))
    body = (f"<div class='side'><ul>{sidebar}</ul></div>"
            "<h1>标题测试新闻稿件一篇</h1><div>2020-06-01 08:30 来源：新华社</div>"
            f"<div id='content'>{BODY_ZH}</div><ul>{sidebar}</ul>")
    assert published(body) == "2020-06-01T08:30:00+08:00"


def test_labelled_date_wins_over_a_nearer_unlabelled_one():
    body = ("<h1>标题测试新闻稿件一篇</h1><div>会议于2020-05-20 09:00召开</div>"
            "<div>发布时间：2020-06-02 07:00</div>"
            f"<div id='content'>{BODY_ZH}</div>")
    assert published(body) == "2020-06-02T07:00:00+08:00"


def test_date_in_footer_after_the_body_when_none_under_the_headline():
    body = (f"<h1>标题测试新闻稿件一篇</h1><div id='content'>{BODY_ZH}</div>"
            "<div>发布日期：2019-03-06 浏览次数：100</div>")
    assert published(body) == "2019-03-06T00:00:00+08:00"


def test_structured_time_comes_first_and_keeps_its_offset():
    head = "<meta property='article:published_time' content='2019-09-07T05:43:45Z'>"
    body = f"<h1>标题测试新闻稿件一篇</h1><div id='content'>{BODY_ZH}</div>"
    # No zone configured: the stated offset is kept as written.
    assert published(body, head=head, tz=None) == "2019-09-07T05:43:45+00:00"
    # A channel zone shows the same instant on the channel's clock.
    assert published(body, head=head) == "2019-09-07T13:43:45+08:00"


def test_visible_time_of_the_same_day_refines_a_structured_time():
    head = "<meta name='apub:time' content='2019-9-7 21:30:50'>"
    assert with_meta_line("2019 09/07 19:02", head=head) == "2019-09-07T19:02:00+08:00"


def test_structured_date_wins_when_the_text_disagrees_on_the_day():
    head = "<script type='application/ld+json'>{\"@type\": \"NewsArticle\", \"datePublished\": \"2018-03-04\"}</script>"
    assert with_meta_line("2018-03-09 10:00", head=head) == "2018-03-04T00:00:00+08:00"


def test_time_element_with_datetime_attribute():
    body = ("<h1>标题测试新闻稿件一篇</h1><div><time datetime='2018-02-03T04:05:06-05:00'>Feb 3</time></div>"
            f"<div id='content'>{BODY_ZH}</div>")
    assert published(body) == "2018-02-03T04:05:06-05:00"


def test_naive_time_without_channel_zone_stays_naive():
    assert with_meta_line("2016-06-13 06:56", tz=None) == "2016-06-13T06:56:00"


def test_url_date_is_the_last_resort():
    body = f"<h1>标题测试新闻稿件一篇</h1><div id='content'>{BODY_ZH}</div>"
    assert published(body, url="http://example.com/news/2019/03/06/a.html") == "2019-03-06T00:00:00+08:00"
    assert published(body) is None


def test_unknown_zone_name_is_ignored_not_an_error():
    assert with_meta_line("2016-06-13 06:56", tz="Not/AZone") == "2016-06-13T06:56:00"


def test_find_times_reports_positions_and_skips_ranges_and_scores():
    text = "比分77-73，1-10月数据，发布于2019-09-26 10:56"
    found = find_times(text, FETCHED)
    assert len(found) == 1
    assert text[found[0].start:found[0].end].startswith("2019-09-26")


def test_parse_time_value_rejects_garbage():
    assert parse_time_value("not a date", FETCHED) is None
    assert parse_time_value("", FETCHED) is None
    assert parse_time_value("0", FETCHED) is None
    assert parse_time_value("2019-09-07", FETCHED).value == datetime(2019, 9, 7)
    assert parse_time_value("Sat, 07 Sep 2019 13:43:45 GMT", FETCHED).value.hour == 13


@pytest.mark.bench
def test_zh_news_headline_and_date_figures(bench_dir):
    """The dev set's headline and date figures, scored by the bench's own scorer."""
    spec = importlib.util.spec_from_file_location("bench_score", bench_dir / "score.py")
    scorer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scorer)
    gold = json.loads((bench_dir / "zh-news" / "gold.json").read_text(encoding="utf-8"))
    pred = {}
    for pid in gold:
        # This module's part only (the body from CEVC, as the article path runs it); the whole
        # pipeline's figures come from `python -m extraction.bench`.
        page = load_page((bench_dir / "zh-news" / "html" / f"{pid}.html").read_bytes(),
                         fetched_at=datetime.now(timezone.utc), tz="Asia/Shanghai")
        body = extract_body(page).node
        headline, headline_node = extract_headline(page, body)
        pred[pid] = {"headline": headline, "datePublished": extract_published(page, headline_node, body)}
    figures = scorer.score(gold, pred)
    assert figures["headline_accuracy"] >= 0.95, figures
    assert figures["date_day_accuracy"] >= 0.97, figures


def test_bad_values_and_pages_give_none_not_an_exception():
    head = ("<meta property='article:published_time' content='2019-13-45T99:99:99'>"
            "<meta name='pubdate' content='yesterday-ish'>"
            "<script type='application/ld+json'>{\"datePublished\": 20190907}</script>")
    body = f"<h1>标题测试新闻稿件一篇</h1><div>2019-02-30 10:00 · 31/31/2019</div><div id='content'>{BODY_ZH}</div>"
    assert published(body, head=head) is None
    # Nested 1500 levels deep: the window walks are iterative.
    deep = "<div>" * 1500 + "<h1>标题测试新闻稿件一篇</h1><p>发布时间：2019-09-01 08:00</p>" + "</div>" * 1500
    page = load_page(f"<html><body>{deep}</body></html>".encode(), fetched_at=FETCHED)
    assert extract_published(page, page.root.find(".//h1"), None) == "2019-09-01T08:00:00"
    # No headline node and no body node: the top of the page is searched.
    page = load_page("<html><body><p>2018年3月4日 12:00</p></body></html>".encode(), fetched_at=FETCHED)
    assert extract_published(page, None, None) == "2018-03-04T12:00:00"


def test_generic_date_meta_gives_way_to_the_visible_date():
    # <meta name="date"> is often the page's build time; the visible dateline wins, and the generic
    # value is used only when the page shows no date.
    head = "<meta name='date' content='2020-06-15'>"
    assert with_meta_line("发布时间：2019-11-02 09:00", head=head) == "2019-11-02T09:00:00+08:00"
    body = f"<h1>标题测试新闻稿件一篇</h1><div id='content'>{BODY_ZH}</div>"
    assert published(body, head=head) == "2020-06-15T00:00:00+08:00"


def test_menu_words_and_glued_clock():
    # "Today's paper" in a menu is not a relative time; a clock glued to the year still parses.
    body = (f"<h1>标题测试新闻稿件一篇</h1><div id='content'>{BODY_ZH * 3}</div>"
            "<ul><li>today's paper</li><li>today</li></ul>")
    assert published(body) is None
    assert with_meta_line("Nov 20 20194:29 AM EST") == "2019-11-20T04:29:00+08:00"


def test_text_windows_around_an_element():
    from extraction.pagetext import text_after, text_before

    page = load_page("<html><body><div><p>one</p><p>two <b>bold</b> end</p></div><h1>Head</h1>"
                     "<div id='x'><p>three</p><span>four</span></div><p>five</p></body></html>".encode())
    h1 = page.root.find(".//h1")
    content = page.root.find(".//div[@id='x']")
    assert text_before(h1, 100).split("\n")[-3:] == ["one", "two bold end", ""]
    after = text_after(h1, 100, marks={content: "body"})
    assert [line for line in after.text.split("\n") if line] == ["three", "four", "five"]
    assert after.text[after.marks["body"]:].lstrip("\n").startswith("three")
    assert "five" not in text_after(h1, 3).text  # the walk stops once the limit is reached
    assert text_after(content, 100, include_self=True).text.split() == ["three", "four", "five"]


def test_visible_local_time_of_a_utc_meta_instant_keeps_the_page_day_and_gets_the_offset():
    head = "<meta property='article:published_time' content='2019-11-20T02:59:46Z'>"
    # Shown on the page as US Central time, the evening before; no channel zone configured.
    assert with_meta_line("Nov. 19, 2019 8:59 PM", head=head, tz=None) == "2019-11-19T20:59:00-06:00"


def test_unlabelled_footer_dateline_beats_a_story_date_at_the_top_of_the_body():
    story = "<p>2019年2月27日，佛山顺德区的调研组一行八人到众创金融街进行实地考察调研。</p>" + BODY_ZH
    body = (f"<h1>标题测试新闻稿件一篇</h1><div id='content'>{story}</div>"
            "<div>2019-03-06 10:00 东区办事处</div>")
    assert published(body) == "2019-03-06T10:00:00+08:00"
