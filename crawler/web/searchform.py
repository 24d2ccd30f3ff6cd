"""Search parameters from a query string (page or API), checked once for both.

Bad values raise `BadQuery` with a message meant for the person who typed them; the page shows
it above the form and the API returns it with status 400.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Mapping
from zoneinfo import ZoneInfo

SORTS = ("relevance", "newest")
MAX_RESULT_WINDOW = 10_000  # Elasticsearch's default index.max_result_window: deeper pages fail there
MAX_QUERY_CHARS = 500


class BadQuery(ValueError):
    pass


@dataclass(frozen=True)
class SearchQuery:
    q: str = ""
    site: str | None = None
    channel_kind: str | None = None
    page_type: str | None = None
    since: date | None = None
    until: date | None = None
    sort: str = "relevance"
    page: int = 1
    size: int = 10

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.size

    def index_kwargs(self, tz: str = "UTC") -> dict:
        """Keyword arguments for ArticleIndex.search. Days are the crawl's local days (`tz`, the
        settings' default_tz) and `until` includes its whole day, so since=until finds that day."""
        zone = ZoneInfo(tz)
        since = datetime.combine(self.since, time.min, zone) if self.since else None
        until = datetime.combine(self.until + timedelta(days=1), time.min, zone) if self.until else None
        return dict(site=self.site, since=since, until=until, page_type=self.page_type,
                    channel_kind=self.channel_kind, sort=self.sort, offset=self.offset, size=self.size)

    def link_params(self, **changes) -> dict:
        """Query-string values reproducing this search (with `changes`), empty ones left out."""
        values = {"q": self.q, "site": self.site, "channel_kind": self.channel_kind,
                  "page_type": self.page_type, "since": self.since.isoformat() if self.since else None,
                  "until": self.until.isoformat() if self.until else None,
                  "sort": self.sort if self.sort != "relevance" else None,
                  "page": self.page if self.page != 1 else None}
        values.update(changes)
        return {k: v for k, v in values.items() if v not in (None, "")}


def _date(name: str, value: str) -> date | None:
    value = value.strip()
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise BadQuery(f"{name}: {value!r} is not a date like 2024-05-31") from None


def _int(name: str, value: str, default: int, low: int, high: int) -> int:
    value = value.strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        raise BadQuery(f"{name}: {value!r} is not a whole number") from None
    if not low <= number <= high:
        raise BadQuery(f"{name} must be between {low} and {high}, got {number}")
    return number


def parse_query(args: Mapping[str, str], default_size: int = 10) -> SearchQuery:
    q = (args.get("q") or "").strip()
    if len(q) > MAX_QUERY_CHARS:
        raise BadQuery(f"the search words are too long ({len(q)} characters, at most {MAX_QUERY_CHARS})")
    sort = (args.get("sort") or "relevance").strip()
    if sort not in SORTS:
        raise BadQuery(f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
    size = _int("size", args.get("size") or "", default_size, 1, 100)
    page = _int("page", args.get("page") or "", 1, 1, MAX_RESULT_WINDOW)
    if page * size > MAX_RESULT_WINDOW:
        raise BadQuery(f"page {page} is too deep: only the first {MAX_RESULT_WINDOW} results can be paged through")
    since = _date("since", args.get("since") or "")
    until = _date("until", args.get("until") or "")
    if since and until and since > until:
        raise BadQuery(f"since ({since}) is after until ({until})")
    return SearchQuery(q=q, site=(args.get("site") or "").strip() or None,
                       channel_kind=(args.get("channel_kind") or "").strip() or None,
                       page_type=(args.get("page_type") or "").strip() or None,
                       since=since, until=until, sort=sort, page=page, size=size)
