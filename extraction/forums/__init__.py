"""Forum thread extraction: the engine's own structure when the page comes from a known
open-source forum engine, otherwise PEAN."""
from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..dom import Page
from ..result import ExtractionResult, Post
from .engines import ENGINES, Engine, extract_with_engine, recognise


def extract_posts(page: Page) -> tuple[list[Post], str]:
    """Posts of a thread page and the method that found them ("engine:<name>" or "pean")."""
    from .. import pean  # imported here: pean imports forums.common/times, not the other way round

    engine = recognise(page)
    if engine is not None:
        posts = extract_with_engine(page, engine)
        if posts:
            return posts, f"engine:{engine.name}"
    return pean.extract_posts(page), "pean"


def _in_zone(value: str | None, tz: str) -> str | None:
    """A time shown without offset is in the channel's zone (`tz`); unknown zones leave it as is."""
    if not value:
        return value
    try:
        parsed = datetime.fromisoformat(value)
        if parsed.tzinfo is not None:
            return value
        return parsed.replace(tzinfo=ZoneInfo(tz)).isoformat(timespec="seconds")
    except (ValueError, ZoneInfoNotFoundError):
        return value


def extract_forum(page: Page) -> ExtractionResult | None:
    """A forum-thread result: posts, with the thread title as headline and the first post's
    author, time and text as the article fields; None when no post is found."""
    from .. import titles

    posts, method = extract_posts(page)
    if not posts:
        return None
    if page.tz:
        for post in posts:
            post.datePublished = _in_zone(post.datePublished, page.tz)
    headline, _ = titles.extract_headline(page, None)
    first = posts[0]
    return ExtractionResult(url=page.url, page_type="forum", headline=headline, datePublished=first.datePublished,
                            author=first.author, articleBody=first.content, posts=posts, lang=page.lang,
                            method=method)


__all__ = ["extract_forum", "ENGINES", "Engine", "extract_posts", "extract_with_engine", "recognise"]
