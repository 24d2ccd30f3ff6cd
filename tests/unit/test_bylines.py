"""Author and source lines (作者/记者, 来源/稿源/出处, "By …", byline markup, meta) on hand-written pages."""
from __future__ import annotations

import json

import pytest

from extraction.bylines import extract_byline
from extraction.dom import load_page
from extraction.cevc import extract_body
from extraction.titles import extract_headline

BODY_ZH = "<p>这是一篇新闻的正文内容，我们在这里写了很多文字，用于测试作者和来源的提取。</p>" * 4
BODY_EN = "<p>This is the body of the story, and it has quite a few words in it for the test.</p>" * 4


def byline(meta_line: str, head: str = "", body: str = BODY_ZH, footer: str = "", title: str = "测试新闻标题"):
    html = (f"<html><head><title>{title}</title>{head}</head><body><h1>{title}</h1>"
            f"<div class='info'>{meta_line}</div><div id='content'>{body}</div>{footer}</body></html>")
    page = load_page(html.encode("utf-8"))
    return extract_byline(page, page.root.find(".//h1"), page.root.find(".//div[@id='content']"))


@pytest.mark.parametrize("line, expected", [
    ("2019-09-07 13:43:45 来源: 证券市场红周刊 举报", (None, "证券市场红周刊")),
    ("2019-09-26 12:11来源：证券时报网作者：李在山", ("李在山", "证券时报网")),
    ("发表于2014-08-24 21:30| 1164次阅读| 来源CSDN| 0 条评论| 作者魏星", ("魏星", "CSDN")),
    ("时间：2019-09-25 作者：网络整理 阅读：1644", ("网络整理", None)),
    ("发布日期：2016-11-22 浏览次数： 信息来源：省发改委", (None, "省发改委")),
    ("来源于：东区办事处", (None, "东区办事处")),
    ("稿源：经济日报", (None, "经济日报")),
    ("出处：人民网-文化频道", (None, "人民网-文化频道")),
    ("澎湃新闻记者 贺梨萍 2020-06-06 10:08", ("贺梨萍", None)),
])
def test_labelled_lines(line, expected):
    assert byline(line) == expected


def test_labels_strip_trailing_punctuation_and_reject_urls():
    assert byline("来源：新华网。") == (None, "新华网")
    assert byline("来源：http://www.example.com/a.html") == (None, None)


def test_word_containing_a_label_inside_a_sentence_is_not_a_label():
    # "原作者女儿：…" contains 作者 but is a phrase, not an author line.
    assert byline("原作者女儿：改成这样不觉得拗口吗") == (None, None)


def test_reporter_credit_inside_the_story_is_not_the_byline():
    body = "<p>新京报讯（记者 陆一夫）11月25日，新京报记者登录拼多多全球购页面发现。</p>" + BODY_ZH
    assert byline("2019-11-25 11:01", body=body) == (None, None)


def test_unlabelled_name_after_the_date_is_the_source():
    assert byline("2019-09-26 10:56:28 证券时报网") == (None, "证券时报网")
    assert byline("2019-09-05 11:10 游民星空[整理] 1") == (None, "游民星空")


def test_furniture_after_the_date_is_not_a_source():
    assert byline("2019-09-26 10:56:28 分享") == (None, None)


def test_footer_needs_a_colon():
    footer = "<div><h2>作者最新文章</h2><a href='/1'>别的文章标题</a></div>"
    assert byline("2019-09-26 10:56", footer=footer) == (None, None)
    footer = "<div>来源：当代商报 时间：2019-09-23 14:34:05 作者：</div>"
    assert byline("", footer=footer) == (None, "当代商报")


def test_english_by_line():
    assert byline("By John Smith and Jane Doe | June 12, 2014", body=BODY_EN, title="A story") == \
        ("John Smith and Jane Doe", None)
    assert byline("Posted by Lucy Zhang on Wednesday", body=BODY_EN, title="A story") == ("Lucy Zhang", None)


def test_byline_markup_under_the_headline():
    line = "<span class='author-name'>加拿大必读</span><span>发布时间：10-08 12:00</span>"
    assert byline(line) == ("加拿大必读", None)


def test_comment_author_markup_below_the_article_is_ignored():
    footer = "<div class='comments'><span class='author'>路人甲</span><p>写得好</p></div>"
    assert byline("2019-09-26 10:56", footer=footer) == (None, None)


def test_meta_author_and_json_ld():
    head = ("<meta name='author' content='Maria Lopez'>"
            "<script type='application/ld+json'>{\"@type\": \"NewsArticle\", "
            "\"publisher\": {\"@type\": \"Organization\", \"name\": \"City Times\"}}</script>")
    assert byline("", head=head, body=BODY_EN, title="A story") == ("Maria Lopez", "City Times")


def test_meta_author_naming_the_site_or_a_number_is_not_an_author():
    assert byline("", head="<meta name='author' content='网易'>", title="测试新闻标题_网易新闻") == (None, None)
    assert byline("", head="<meta name='author' content='104363'>") == (None, None)


def test_meta_source_with_its_label():
    assert byline("", head="<meta name='source' content='来源：人民网-文化频道 原创稿'>") == (None, "人民网-文化频道")


@pytest.mark.bench
def test_zh_news_sources_agree_with_gold(bench_dir):
    """Author/source are not scored by score.py: checked here against the dev gold."""
    gold = json.loads((bench_dir / "zh-news" / "gold.json").read_text(encoding="utf-8"))
    with_source = [pid for pid, g in gold.items() if g.get("source")]
    right = 0
    for pid in with_source:
        page = load_page((bench_dir / "zh-news" / "html" / f"{pid}.html").read_bytes(), tz="Asia/Shanghai")
        body = extract_body(page).node
        _, headline_node = extract_headline(page, body)
        _, source = extract_byline(page, headline_node, body)
        right += source == gold[pid]["source"]
    assert right / len(with_source) >= 0.8, f"{right}/{len(with_source)} sources exact"


def test_bad_pages_give_none_not_an_exception():
    head = ("<meta name='author' content='" + "x" * 5000 + "'>"
            "<script type='application/ld+json'>{\"author\": [], \"publisher\": 5}</script>")
    assert byline("来源：", head=head) == (None, None)
    deep = "<div>" * 1500 + "<h1>测试新闻标题</h1><p>来源：新华社</p>" + "</div>" * 1500
    page = load_page(f"<html><body>{deep}</body></html>".encode())
    assert extract_byline(page, page.root.find(".//h1"), None) == (None, "新华社")
    page = load_page("<html><body><p>作者：王小明</p></body></html>".encode())
    assert extract_byline(page, None, None) == ("王小明", None)


def test_english_by_line_stops_at_the_outlet_in_capitals():
    assert byline("By Jane O'Brien BBC News, Washington", body=BODY_EN, title="A story") == ("Jane O'Brien", None)
    assert byline("By LISA MASCARO and MARY CLARE JALONICK", body=BODY_EN, title="A story") == \
        ("LISA MASCARO and MARY CLARE JALONICK", None)
