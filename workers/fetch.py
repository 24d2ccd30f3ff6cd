"""The workers' HTTP client: the same politeness and limits as the spiders, without a Scrapy reactor.

Workers are plain threads that claim one item, fetch it, extract it and move on, so a blocking
client fits them better than Twisted. urllib3 (already installed with the Elasticsearch client)
does pooling, timeouts and content decoding; redirects are followed here by hand so that a loop is
recognised as a loop and the hop count is bounded.

Politeness: requests to one host are spaced by the channel's `politeness_delay_s`, across all
threads of the process (each thread reserves the next free slot of the host, then sleeps until it),
and with `RedisHostPacer` across all worker processes of a fleet sharing one Redis.
robots.txt is obeyed per host (Protego, Scrapy's own parser), cached for an hour.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

import urllib3
from protego import Protego

USER_AGENT = "mcrawl/0.1 (+https://github.com/mcrawl; multichannel news crawler)"
MAX_PAGE_BYTES = 30 * 1024 * 1024  # same cap as the spiders' DOWNLOAD_MAXSIZE
MAX_REDIRECTS = 5
ROBOTS_TTL_S = 3600.0
RETRYABLE_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


class FetchError(Exception):
    """A fetch that produced no page. `reason` is a short code (counted in stats); `retryable`
    says whether trying again later can help (timeouts, 5xx) or not (404, redirect loop, too big)."""

    def __init__(self, reason: str, detail: str = "", *, retryable: bool):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.retryable = retryable


@dataclass
class Fetched:
    url: str  # after redirects
    status: int
    content_type: str | None
    body: bytes
    seconds: float
    redirects: list[str] = field(default_factory=list)


class HostPacer:
    """Spaces requests per host: thread-safe, O(1) per request."""

    def __init__(self) -> None:
        self._next_free: dict[str, float] = {}
        self._lock = threading.Lock()

    def wait(self, host: str, delay_s: float) -> float:
        """Block until this caller may hit `host`; returns the seconds waited."""
        if delay_s <= 0:
            return 0.0
        with self._lock:
            now = time.monotonic()
            slot = max(now, self._next_free.get(host, 0.0))
            self._next_free[host] = slot + delay_s
        wait = slot - now
        if wait > 0:
            time.sleep(wait)
        return max(wait, 0.0)


_RESERVE_SLOT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local delay = tonumber(ARGV[1])
local slot = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
redis.call('SET', KEYS[1], tostring(slot + delay), 'PX', math.ceil((slot + delay - now) * 1000) + 1000)
return tostring(slot - now)
"""


class RedisHostPacer:
    """The same slot reservation as HostPacer, kept in Redis so every worker process of a fleet
    shares it: one script call per request (the server's clock decides, so workers' clocks may differ)."""

    def __init__(self, client, prefix: str = "mcrawl"):
        self.client = client
        self.prefix = prefix
        self._reserve = client.register_script(_RESERVE_SLOT)
        self._local = HostPacer()  # fallback while Redis is unreachable

    def wait(self, host: str, delay_s: float) -> float:
        if delay_s <= 0:
            return 0.0
        try:
            wait = float(self._reserve(keys=[f"{self.prefix}:polite:{host}"], args=[delay_s]))
        except Exception:
            return self._local.wait(host, delay_s)
        if wait > 0:
            time.sleep(wait)
        return max(wait, 0.0)


class Fetcher:
    def __init__(self, *, timeout_s: float = 20.0, max_bytes: int = MAX_PAGE_BYTES,
                 max_redirects: int = MAX_REDIRECTS, obey_robots: bool = True,
                 user_agent: str = USER_AGENT, pool_size: int = 8, pacer=None):
        self.timeout = urllib3.Timeout(connect=min(timeout_s, 10.0), read=timeout_s)
        self.max_bytes = max_bytes
        self.max_redirects = max_redirects
        self.obey_robots = obey_robots
        self.user_agent = user_agent
        self.pool = urllib3.PoolManager(num_pools=64, maxsize=pool_size, retries=False,
                                        headers={"User-Agent": user_agent, "Accept-Encoding": "gzip, deflate"})
        self.pacer = pacer or HostPacer()
        self._robots: dict[str, tuple[float, Protego | None]] = {}
        self._robots_lock = threading.Lock()

    def close(self) -> None:
        self.pool.clear()

    def fetch(self, url: str, delay_s: float = 1.0) -> Fetched:
        """GET `url` politely, following at most `max_redirects` redirects. Raises FetchError."""
        start = time.monotonic()
        visited = [url]
        current = url
        while True:
            self._check_robots(current, delay_s)
            status, headers, body = self._get_once(current, delay_s)
            if status in (301, 302, 303, 307, 308):
                location = headers.get("Location")
                if not location:
                    raise FetchError("bad_redirect", f"{status} without Location at {current}", retryable=False)
                target = urljoin(current, location)
                if target in visited:
                    raise FetchError("redirect_loop", " -> ".join(visited + [target]), retryable=False)
                if len(visited) > self.max_redirects:
                    raise FetchError("too_many_redirects", f"more than {self.max_redirects} from {url}",
                                     retryable=False)
                visited.append(target)
                current = target
                continue
            if status >= 400:
                raise FetchError(f"http_{status}", current, retryable=status in RETRYABLE_STATUS)
            return Fetched(url=current, status=status, content_type=headers.get("Content-Type"), body=body,
                           seconds=time.monotonic() - start, redirects=visited[1:])

    def _get_once(self, url: str, delay_s: float) -> tuple[int, dict, bytes]:
        host = urlsplit(url).netloc.lower()
        self.pacer.wait(host, delay_s)
        try:
            resp = self.pool.request("GET", url, preload_content=False, redirect=False, timeout=self.timeout)
        except urllib3.exceptions.TimeoutError as exc:
            raise FetchError("timeout", f"{url}: {exc}", retryable=True) from None
        except urllib3.exceptions.LocationValueError as exc:
            raise FetchError("bad_url", f"{url}: {exc}", retryable=False) from None
        except urllib3.exceptions.HTTPError as exc:
            raise FetchError("connection", f"{url}: {exc}", retryable=True) from None
        complete = False
        try:
            declared = resp.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > self.max_bytes:
                raise FetchError("too_large", f"{url}: Content-Length {declared} > {self.max_bytes}", retryable=False)
            chunks, size = [], 0
            try:
                for chunk in resp.stream(64 * 1024, decode_content=True):
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise FetchError("too_large", f"{url}: more than {self.max_bytes} bytes", retryable=False)
                    chunks.append(chunk)
            except urllib3.exceptions.TimeoutError as exc:
                raise FetchError("timeout", f"{url}: {exc}", retryable=True) from None
            except (urllib3.exceptions.ProtocolError, urllib3.exceptions.DecodeError) as exc:
                raise FetchError("connection", f"{url}: {exc}", retryable=True) from None
            complete = True
            return resp.status, dict(resp.headers), b"".join(chunks)
        finally:
            if not complete:
                resp.close()  # a half-read body (size cap, timeout) must not go back to the pool
            resp.release_conn()

    def _check_robots(self, url: str, delay_s: float) -> None:
        if not self.obey_robots:
            return
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        now = time.monotonic()
        with self._robots_lock:
            cached = self._robots.get(origin)
        if cached is None or cached[0] < now:
            rules = self._load_robots(origin, delay_s)
            with self._robots_lock:
                self._robots[origin] = (now + ROBOTS_TTL_S, rules)
        else:
            rules = cached[1]
        if rules is not None and not rules.can_fetch(url, self.user_agent):
            raise FetchError("robots_disallowed", url, retryable=False)

    def _load_robots(self, origin: str, delay_s: float) -> Protego | None:
        """Parsed robots.txt, or None (= everything allowed) when the site has none or it fails."""
        try:
            status, _, body = self._get_once(origin + "/robots.txt", delay_s)
        except FetchError:
            return None
        if status != 200 or not body:
            return None
        return Protego.parse(body.decode("utf-8", "replace"))
