"""PEAN on hand-written thread fragments, including the bad inputs the issue names."""
from __future__ import annotations

from datetime import datetime

import pytest

from extraction import pean
from extraction.dom import load_page
from extraction.forums.times import find_times
from extraction.treematch import simple_tree_matching, tree_similarity
from tests.unit.forum_fragments import NAMES, TEXTS, thread_page


def _posts(html: str, now: datetime | None = None):
    return pean.extract_posts(load_page(html, "https://forum.example/t/1", fetched_at=now))


def test_multi_floor_thread_gives_every_post_in_order_with_fields():
    posts = _posts(thread_page(5))
    assert [p.author for p in posts] == NAMES
    assert [p.content for p in posts] == TEXTS
    assert posts[0].datePublished.startswith("2021-03-01T10:20")
    assert posts[4].datePublished.startswith("2021-03-05T14:24")
    assert [p.floor for p in posts] == [1, 2, 3, 4, 5]


def test_signatures_are_left_out():
    posts = _posts(thread_page(3))
    assert all("sent from my phone" not in p.content for p in posts)


def test_quoted_posts_inside_posts_are_left_out():
    posts = _posts(thread_page(4, quotes=True))
    assert len(posts) == 4
    assert posts[1].content == TEXTS[1]  # without the quoted first post
    assert all("wrote:" not in p.content for p in posts)


def test_single_floor_thread_still_gives_the_first_post():
    posts = _posts(thread_page(1))
    assert len(posts) == 1
    assert posts[0].content == TEXTS[0]
    assert posts[0].author == NAMES[0]
    assert posts[0].datePublished.startswith("2021-03-01T10:20")


def test_hundreds_of_dates_in_a_sidebar_do_not_become_posts():
    archive = "".join(f'<li><a href="/a/{i}">Old news {i}</a> 2019-01-{1 + i % 28:02d} 0{i % 10}:15</li>' for i in range(300))
    posts = _posts(thread_page(4, sidebar=f'<ul class="archive">{archive}</ul>'))
    assert [p.content for p in posts] == TEXTS[:4]


def test_first_post_with_a_different_layout_is_kept():
    first = ('<div class="opening"><h2>Router problem</h2><p class="meta">by <a class="author" href="/member/alice">alice</a>'
             ' on 2021-03-01 10:20</p><div class="text"><p>' + TEXTS[0] + '</p><p>Details: model X, firmware 2.1,'
             ' cable connection, no VPN.</p></div></div>')
    html = thread_page(5).replace('<div class="thread">', f'{first}<div class="thread">', 1)
    # drop the regular first post so only the opening block carries it
    html = html.replace(html[html.index('<div class="post" id="p1">'):html.index('<div class="post" id="p2">')], "")
    posts = _posts(html)
    assert posts[0].content.startswith(TEXTS[0])
    assert [p.content for p in posts[1:]] == TEXTS[1:]


def test_page_without_any_dates_gives_no_posts():
    html = "<html><body><div><p>" + " ".join(TEXTS) + "</p><ul>" + "<li><a href='/x'>x</a></li>" * 20 + "</ul></div></body></html>"
    assert _posts(html) == []


def test_relative_times_resolve_against_fetch_time():
    html = thread_page(2).replace("2021-03-01 10:20", "3 小时前").replace("2021-03-02 11:21", "vor 2 Stunden")
    posts = _posts(html, now=datetime(2022, 5, 1, 12, 0))
    assert posts[0].datePublished.startswith("2022-05-01T09:00")
    assert posts[1].datePublished.startswith("2022-05-01T10:00")


def test_relative_times_without_fetch_time_are_not_invented():
    assert find_times("3 小时前", None) == []


@pytest.mark.parametrize("text,expected", [
    ("发表于 2014-5-13 20:07", "2014-05-13T20:07"),
    ("2014/6/12 10:10", "2014-06-12T10:10"),
    ("Sun Jul 28, 2013 1:34 pm", "2013-07-28T13:34"),
    ("10. April 2020 um 18:23 Uhr", "2020-04-10T18:23"),
    ("29.01.19 um 16:01 Uhr", "2019-01-29T16:01"),
    ("10-31-2017, 01:56 PM", "2017-10-31T13:56"),
])
def test_time_forms(text, expected):
    found = find_times(text)
    assert found and found[0].value.isoformat().startswith(expected)


def test_tree_matching_is_bounded_and_scores_identical_shapes_one():
    page = load_page(thread_page(3))
    posts = page.body.xpath("//div[@class='post']")
    assert tree_similarity(posts[0], posts[1]) == 1.0
    deep = load_page("<html><body>" + "<div>" * 3000 + "x" + "</div>" * 3000 + "</body></html>")
    node = deep.body[0]
    assert simple_tree_matching(node, node) <= 6  # depth cap, no recursion error


def test_channel_zone_is_attached_to_times_without_offset():
    from extraction.pipeline import extract

    result = extract(thread_page(2), "https://forum.example/t/1", tz="Europe/Berlin")
    assert result.posts[0].datePublished == "2021-03-01T10:20:00+01:00"
    assert extract(thread_page(2), tz="Not/AZone").posts[0].datePublished == "2021-03-01T10:20:00"
