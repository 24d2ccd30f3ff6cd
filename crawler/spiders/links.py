"""What every kind parser gets and returns: the fetched entry page in, detail links out."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit


class SourceError(ValueError):
    """The entry page cannot yield links (HTML instead of a feed, unparseable sitemap, bad regex).

    The message is written to crawl_log as it is, so it says what was expected and what came.
    """


@dataclass
class EntryPage:
    url: str  # after redirects: relative links resolve against it
    body: bytes
    content_type: str | None = None


@dataclass
class Found:
    links: list[str] = field(default_factory=list)   # absolute detail URLs, page order, no repeats
    follow: list[str] = field(default_factory=list)  # more entry pages of the same job (sitemap index)
    warnings: list[str] = field(default_factory=list)

    def add(self, url: str) -> None:
        if url not in self._seen:
            self._seen.add(url)
            self.links.append(url)

    def __post_init__(self) -> None:
        self._seen = set(self.links)


def is_http_url(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def resolve(base: str, href: str | None) -> str | None:
    """Absolute http(s) URL for a link as written on a page; None for javascript:, mailto:, empty."""
    if not href:
        return None
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    url = urljoin(base, href)
    return url if is_http_url(url) else None


def compile_regex(pattern: str | None) -> re.Pattern[str] | None:
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise SourceError(f"invalid detail_url_regex {pattern!r}: {exc}") from None


def looks_like_html(page: EntryPage) -> bool:
    ctype = (page.content_type or "").lower()
    head = page.body[:512].lstrip().lower()
    return "html" in ctype or head.startswith((b"<!doctype html", b"<html"))
