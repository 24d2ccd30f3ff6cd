"""Validation rules from the thesis: a result is kept only when it looks like a real article."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from .result import ExtractionResult

MIN_HEADLINE_CHARS = 5
# Forum thread titles are written by users and are often one short word ("Copd", "求助"); the
# posts, not the title, are what makes a thread page worth keeping.
MIN_THREAD_TITLE_CHARS = 2
MIN_BODY_CHARS = 100
EARLIEST = datetime(2000, 1, 1, tzinfo=timezone.utc)


def _parse_iso(value: str) -> datetime | None:
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def validate(result: ExtractionResult, now: datetime | None = None) -> ExtractionResult:
    """Set `valid` and `reasons` on the result (in place) and return it."""
    reasons: list[str] = []
    headline = (result.headline or "").strip()
    min_headline = MIN_THREAD_TITLE_CHARS if result.posts else MIN_HEADLINE_CHARS
    if len(headline) < min_headline:
        reasons.append(f"headline shorter than {min_headline} characters")
    if result.datePublished:
        dt = _parse_iso(result.datePublished)
        now = now or datetime.now(timezone.utc)
        if now.tzinfo is None:
            now = now.replace(tzinfo=timezone.utc)
        if dt is None:
            reasons.append(f"unparseable date {result.datePublished!r}")
        elif dt < EARLIEST or dt > now + timedelta(days=1):
            reasons.append(f"date out of range {result.datePublished}")
    if result.posts:
        if not any(p.content.strip() for p in result.posts):
            reasons.append("forum posts are all empty")
    elif len(result.articleBody.strip()) < MIN_BODY_CHARS:
        reasons.append(f"body shorter than {MIN_BODY_CHARS} characters")
    result.reasons = reasons
    result.valid = not reasons
    return result
