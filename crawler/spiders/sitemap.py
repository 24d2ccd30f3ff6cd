"""Sitemaps: urlset (incl. Google News sitemaps), sitemap indexes (their children are fetched as
part of the same job), gzipped sitemaps, and robots.txt `Sitemap:` lines.

Parsed with lxml directly (Scrapy's own Sitemap class is documented as an unstable API); entities
are not resolved and the input is already capped by the download size limit.
"""
from __future__ import annotations

import gzip
import io
import re

from lxml import etree

from .links import EntryPage, Found, SourceError, compile_regex, resolve

MAX_UNZIPPED = 50 * 1024 * 1024  # the sitemap protocol's own limit per file
_ROBOTS_SITEMAP = re.compile(rb"^\s*sitemap\s*:\s*(\S+)", re.I | re.M)


def _unzip(page: EntryPage) -> bytes:
    body = page.body
    if body[:2] != b"\x1f\x8b":
        return body
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(body)) as gz:
            data = gz.read(MAX_UNZIPPED + 1)
    except (OSError, EOFError) as exc:
        raise SourceError(f"sitemap {page.url}: broken gzip ({exc})") from None
    if len(data) > MAX_UNZIPPED:
        raise SourceError(f"sitemap {page.url}: more than {MAX_UNZIPPED} bytes unzipped")
    return data


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def parse(page: EntryPage, job=None) -> Found:
    if page.url.rstrip("/").endswith("/robots.txt"):
        follow = [u for u in (resolve(page.url, m.decode("utf-8", "replace")) for m in _ROBOTS_SITEMAP.findall(page.body)) if u]
        return Found(follow=follow, warnings=[] if follow else [f"{page.url} names no sitemap"])
    data = _unzip(page)
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, remove_comments=True)
    try:
        root = etree.fromstring(data, parser=parser)
    except etree.XMLSyntaxError as exc:
        root = None
        detail = str(exc)
    else:
        detail = "no root element"
    if root is None:
        raise SourceError(f"sitemap {page.url} is not XML ({detail})")
    kind = _local(root.tag)
    if kind not in ("urlset", "sitemapindex"):
        raise SourceError(f"sitemap {page.url}: root element <{kind}> is neither <urlset> nor <sitemapindex>")
    pattern = compile_regex(getattr(job, "detail_url_regex", None))
    found = Found()
    for entry in root:
        if _local(entry.tag) not in ("url", "sitemap"):
            continue
        loc = next((c.text for c in entry if _local(c.tag) == "loc" and c.text), None)
        url = resolve(page.url, loc)
        if not url:
            continue
        if kind == "sitemapindex":
            found.follow.append(url)
        elif pattern is None or pattern.search(url):
            found.add(url)
    if not found.links and not found.follow:
        found.warnings.append(f"sitemap {page.url} lists no URLs")
    return found
