"""URL canonicalisation and the document id derived from it.

Two spellings of one page (`HTTP://Example.com:80/a?b=2&a=1#top`, `http://example.com/a?a=1&b=2`,
the same with `utm_source=...`) must get one id, so the Bloom filter, the pending set and the
index all agree. Percent-encoding and query sorting are left to w3lib (Scrapy's own URL library);
the host/port/tracking-parameter rules on top are ours.
"""
from __future__ import annotations

import hashlib
import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

DEFAULT_PORTS = {"http": 80, "https": 443}

# Parameters that only say where a click came from. Exact names, then prefixes (utm_source,
# utm_medium, ...). `from`/`spm` are the common Chinese portal ones (from=timeline, spm=a2c4...).
TRACKING_PARAMS = frozenset({
    "spm", "from", "fbclid", "gclid", "dclid", "yclid", "msclkid", "igshid", "mc_cid", "mc_eid",
    "_hsenc", "_hsmi", "scm", "share_token", "wt.mc_id", "ref_src", "cmpid", "_ga", "ncid",
})
TRACKING_PREFIXES = ("utm_", "pk_", "hmsr")

_SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


class BadURL(ValueError):
    """Not an absolute http(s) URL."""


def _is_tracking(name: str) -> bool:
    name = name.lower()
    return name in TRACKING_PARAMS or name.startswith(TRACKING_PREFIXES)


def canonicalize(url: str) -> str:
    """The canonical spelling of an absolute http(s) URL; raises BadURL otherwise."""
    if not isinstance(url, str) or not url.strip():
        raise BadURL(f"empty URL: {url!r}")
    url = url.strip()
    if not _SCHEME_RE.match(url):
        raise BadURL(f"not an absolute URL: {url!r}")
    try:
        parts = urlsplit(url)
        port = parts.port  # raises ValueError on a non-numeric or out-of-range port
    except ValueError as exc:
        raise BadURL(f"malformed URL {url!r}: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise BadURL(f"not an http(s) URL: {url!r}")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise BadURL(f"URL without a host: {url!r}")
    netloc = host if ":" not in host else f"[{host}]"  # IPv6 literal
    if parts.username or parts.password:
        netloc = f"{parts.username or ''}{':' + parts.password if parts.password else ''}@{netloc}"
    if port is not None and port != DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _is_tracking(k)]
    ) if parts.query else ""
    rebuilt = urlunsplit((scheme, netloc, parts.path or "/", query, ""))
    # w3lib: lower-cases/IDNA-encodes the host, sorts the query, normalises percent-encoding,
    # drops the fragment.
    return canonicalize_url(rebuilt, keep_fragments=False)


def url_id(url: str) -> str:
    """sha1 hex of the canonical URL: the Elasticsearch document id and the queue item id."""
    return hashlib.sha1(canonicalize(url).encode("utf-8")).hexdigest()


def host_of(url: str) -> str:
    """Lower-case host of an URL (for politeness buckets and the `site` field)."""
    return (urlsplit(canonicalize(url)).hostname or "").lower()


def site_of(url: str) -> str:
    """The host without a leading `www.`: `https://www.example.com/x` -> `example.com`."""
    host = host_of(url)
    return host[4:] if host.startswith("www.") else host
