"""The article index: Elasticsearch (distributed) or SQLite FTS5 with jieba tokens (embedded).

`open_index(index_url)` -> an ArticleIndex with
  ensure()                         create index template/alias (ES) or tables (SQLite)
  index_bulk(docs) -> (ok, errors) idempotent: document id = url_id(doc["url"]); errors are
                                   [{"id": ..., "error": ...}] for documents the index refused
  search(query, site=None, since=None, until=None, page_type=None, channel_kind=None,
         sort="relevance"|"newest", offset=0, size=10) -> SearchResults
  get(doc_id) -> dict | None,  count(),  stats(),  site_counts(limit),  articles_per_hour(since, until)
Both backends return the same shapes; snippets mark matches with <em>...</em>.

URLs: `http://host:9200` (optional `?alias=name`, default `mcrawl-articles`) or
`sqlite:///var/mcrawl.sqlite3` / `sqlite:////abs/path`.
`IndexUnavailable` means the backend cannot be reached: callers keep their items queued and retry.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

DOC_FIELDS = ("url", "site", "channel", "channel_kind", "title", "content", "pubdate", "crawled_at",
              "author", "source", "lang", "page_type", "method")
SORTS = ("relevance", "newest")
DEFAULT_ALIAS = "mcrawl-articles"


class IndexUnavailable(RuntimeError):
    """The index backend cannot be reached (down, refusing connections, timing out)."""


@dataclass
class SearchHit:
    id: str
    url: str
    title: str | None = None
    site: str | None = None
    pubdate: str | None = None
    source: str | None = None
    snippet: str | None = None
    score: float | None = None
    author: str | None = None
    channel_kind: str | None = None
    page_type: str | None = None
    crawled_at: str | None = None
    lang: str | None = None


@dataclass
class SearchResults:
    total: int
    hits: list[SearchHit] = field(default_factory=list)
    took_ms: float = 0.0


def iso_utc(value: Any) -> str | None:
    """date/datetime/ISO text/epoch -> ISO 8601 text in UTC (naive values are taken as UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        value = datetime.fromtimestamp(value, timezone.utc)
    elif isinstance(value, str):
        value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    elif isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).isoformat(timespec="seconds")


def check_search_args(sort: str, offset: int, size: int) -> None:
    if sort not in SORTS:
        raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
    if offset < 0 or size < 1 or size > 1000:
        raise ValueError(f"need offset >= 0 and 1 <= size <= 1000, got offset={offset}, size={size}")


def open_index(index_url: str):
    scheme = index_url.split("://", 1)[0].lower() if "://" in index_url else ""
    if scheme in ("http", "https"):
        from workers.index_es import ElasticIndex

        return ElasticIndex(index_url)
    if scheme == "sqlite":
        from workers.index_sqlite import SQLiteIndex

        return SQLiteIndex(index_url)
    raise ValueError(f"unsupported index_url {index_url!r}: expected http(s)://host:9200 or sqlite://...")
