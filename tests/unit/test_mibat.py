"""The MiBAT baseline: same interface as PEAN, needs repeated records."""
from __future__ import annotations

from extraction import mibat
from extraction.dom import load_page
from tests.unit.forum_fragments import NAMES, TEXTS, thread_page


def test_repeated_records_are_found():
    posts = mibat.extract_posts(load_page(thread_page(5)))
    assert [p.author for p in posts] == NAMES
    assert [p.content for p in posts] == TEXTS


def test_single_post_thread_is_the_known_weakness():
    # Anchor-tree similarity needs at least two records; PEAN handles this case, MiBAT does not.
    assert mibat.extract_posts(load_page(thread_page(1))) == []


def test_no_dates_no_records():
    assert mibat.extract_posts(load_page("<html><body><p>" + TEXTS[0] + "</p></body></html>")) == []
