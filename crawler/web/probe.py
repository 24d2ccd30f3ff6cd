""""Test this channel now": one fetch of the entry page, the detail URLs the channel's spider
would take from it, and the extraction of the first one.

It reuses the crawler's own parts (the workers' polite Fetcher, the spiders' per-kind link
parsers, the extraction pipeline) so the answer is what the crawl would do. Nothing is written:
no Bloom filter entry, no queue item, no index document.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

MAX_DELAY_S = 5.0  # a person is waiting for the page: cap a very slow channel's politeness delay


@dataclass
class ProbeResult:
    entry_url: str
    status: int | None = None
    bytes: int = 0
    seconds: float = 0.0
    error: str | None = None
    detail_urls: list[str] | None = None
    warnings: list[str] = field(default_factory=list)
    first: dict[str, Any] | None = None


def entry_url_for(channel, keyword: str | None) -> str:
    if channel.kind == "metasearch":
        return channel.entry_url.replace("{keyword}", quote(keyword or "", safe=""))
    return channel.entry_url


def overrides_of(channel) -> dict[str, str]:
    pairs = (("headline", channel.xpath_headline), ("body", channel.xpath_body), ("date", channel.xpath_date))
    return {name: xpath for name, xpath in pairs if xpath}


def probe_channel(channel, settings, keyword: str | None = None, *, timeout_s: float = 15.0) -> ProbeResult:
    from crawler.spiders import PARSERS
    from crawler.spiders.links import EntryPage, SourceError
    from extraction.pipeline import extract
    from workers.fetch import FetchError, Fetcher

    if channel.kind == "metasearch" and not keyword:
        return ProbeResult(entry_url=channel.entry_url, error="a metasearch channel needs a keyword to test with")
    url = entry_url_for(channel, keyword)
    result = ProbeResult(entry_url=url)
    delay = min(float(channel.politeness_delay_s or 0.0), MAX_DELAY_S)
    fetcher = Fetcher(timeout_s=timeout_s)
    try:
        try:
            fetched = fetcher.fetch(url, delay_s=delay)
        except FetchError as exc:
            result.error = f"fetching the entry page failed: {exc}"
            return result
        result.status, result.bytes, result.seconds = fetched.status, len(fetched.body), fetched.seconds
        job = SimpleNamespace(channel_id=channel.id, kind=channel.kind, keyword=keyword,
                              detail_url_regex=channel.detail_url_regex, detail_xpath=channel.detail_xpath)
        try:
            found = PARSERS[channel.kind](EntryPage(fetched.url, fetched.body, fetched.content_type), job)
        except SourceError as exc:
            result.error = str(exc)
            return result
        result.detail_urls, result.warnings = list(found.links), list(found.warnings)
        if not found.links:
            return result
        first_url = found.links[0]
        try:
            page = fetcher.fetch(first_url, delay_s=delay)
        except FetchError as exc:
            result.first = {"url": first_url, "error": f"fetching failed: {exc}"}
            return result
        try:
            extracted = extract(page.body, page.url, content_type=page.content_type,
                                fetched_at=datetime.now(timezone.utc), tz=channel.tz or settings.default_tz,
                                overrides=overrides_of(channel) or None)
        except Exception as exc:  # extract() promises not to raise; if it does, show it, not a 500 page
            result.first = {"url": page.url, "error": f"extraction failed: {type(exc).__name__}: {exc}"}
            return result
        result.first = {"url": page.url, "valid": extracted.valid, "reason": "; ".join(extracted.reasons),
                        "page_type": extracted.page_type, "method": extracted.method,
                        "title": extracted.headline, "pubdate": extracted.datePublished,
                        "author": extracted.author, "source": extracted.source,
                        "content": extracted.articleBody or "\n".join(p.content for p in extracted.posts),
                        "posts": len(extracted.posts)}
        return result
    finally:
        fetcher.close()
