"""RSS/Atom feeds via feedparser: each entry's link is a detail URL."""
from __future__ import annotations

import feedparser

from .links import EntryPage, Found, SourceError, looks_like_html, resolve


def _entry_link(entry) -> str | None:
    if entry.get("link"):
        return entry["link"]
    for link in entry.get("links", []):
        if link.get("rel", "alternate") == "alternate" and link.get("href"):
            return link["href"]
    return entry.get("id") if str(entry.get("id", "")).startswith("http") else None


def parse(page: EntryPage, job=None) -> Found:
    headers = {"content-type": page.content_type} if page.content_type else {}
    feed = feedparser.parse(page.body, response_headers=headers, sanitize_html=False,
                            resolve_relative_uris=False)
    if not feed.entries:
        if looks_like_html(page) and not feed.get("version"):
            raise SourceError(f"feed URL {page.url} returned an HTML page, not RSS/Atom "
                              f"(Content-Type {page.content_type or 'unknown'})")
        if feed.bozo:
            raise SourceError(f"malformed feed at {page.url}: {feed.get('bozo_exception')}")
        return Found(warnings=[f"feed {page.url} has no entries"])
    found = Found()
    if feed.bozo:
        # feedparser's lenient parser still recovered entries: use them, but say the XML is broken.
        found.warnings.append(f"feed {page.url} is not well-formed ({feed.get('bozo_exception')}); "
                              f"{len(feed.entries)} entries recovered")
    base = page.url  # relative entry links resolve against the feed itself
    for entry in feed.entries:
        url = resolve(base, _entry_link(entry))
        if url:
            found.add(url)
    if not found.links:
        found.warnings.append(f"feed {page.url}: {len(feed.entries)} entries but none has an http(s) link")
    return found
