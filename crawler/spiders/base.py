"""The Scrapy spider of `mcrawl spiders`: pulls jobs from the job queue, fetches each job's entry
page and hands it to the parser of the channel's kind; found links go to the detail queue.

Like scrapy-redis, the spider never runs out of work on its own: a timer (every `poll_s`) takes
jobs from the queue while fewer than `max_active_jobs` are in flight, and the `spider_idle` signal
keeps the spider open. With `until_idle` it closes once the job queue is empty and nothing is in
flight (used by `mcrawl demo` and tests).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

import scrapy
from scrapy import signals
from scrapy.exceptions import DontCloseSpider
from twisted.internet import task

from . import PARSERS
from .links import EntryPage, SourceError, is_http_url

log = logging.getLogger("mcrawl.spiders")
MAX_FOLLOW_PER_JOB = 200  # sitemap index children fetched for one job


@dataclass
class JobSpec:
    """A job as the spiders need it: the channel's fields plus the URL to fetch (keyword filled in)."""

    channel_id: int | None
    kind: str
    url: str
    site: str | None = None
    keyword: str | None = None
    detail_url_regex: str | None = None
    detail_xpath: str | None = None
    politeness_delay_s: float = 1.0
    tz: str | None = None
    language: str | None = None
    overrides: dict[str, str] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_job(cls, job: Mapping[str, Any], channel=None) -> "JobSpec":
        """Fields from the job dict, missing ones from the channel row (when given)."""
        def pick(name, default=None):
            value = job.get(name)
            if value is None and channel is not None:
                value = getattr(channel, name, None)
            return default if value is None else value

        url = job.get("url") or pick("entry_url")
        keyword = job.get("keyword")
        if url and keyword and "{keyword}" in url:
            from urllib.parse import quote

            url = url.replace("{keyword}", quote(str(keyword)))
        overrides = dict(job.get("overrides") or {})
        if not overrides and channel is not None:
            overrides = {k: v for k, v in (("headline", channel.xpath_headline), ("body", channel.xpath_body),
                                           ("date", channel.xpath_date)) if v}
        return cls(channel_id=pick("channel_id", getattr(channel, "id", None)), kind=str(pick("kind", "")),
                   url=str(url or ""), site=pick("site"), keyword=keyword,
                   detail_url_regex=pick("detail_url_regex"), detail_xpath=pick("detail_xpath"),
                   politeness_delay_s=float(pick("politeness_delay_s", 1.0)), tz=pick("tz"),
                   language=pick("language"), overrides=overrides, raw=dict(job))


@dataclass
class JobRun:
    spec: JobSpec
    started: float = field(default_factory=time.monotonic)
    outstanding: int = 0  # requests of this job not answered yet
    pages: int = 0
    found: int = 0
    new: int = 0
    errors: int = 0
    messages: list[str] = field(default_factory=list)


class ChannelJobSpider(scrapy.Spider):
    name = "mcrawl"

    def __init__(self, *args, queues=None, store=None, sink=None, until_idle: bool = False,
                 max_jobs: int = 0, poll_s: float = 0.5, max_active_jobs: int = 32,
                 idle_grace_s: float = 1.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.queues = queues
        self.store = store
        self.sink = sink
        self.until_idle = until_idle
        self.max_jobs = max_jobs
        self.poll_s = poll_s
        self.max_active_jobs = max_active_jobs
        self.idle_grace_s = idle_grace_s
        self.active: set[int] = set()
        self.runs: dict[int, JobRun] = {}
        self.jobs_taken = 0
        self.jobs_done = 0
        self.totals = {"jobs": 0, "found": 0, "new": 0, "errors": 0}
        self._idle_since: float | None = None
        self._loop: task.LoopingCall | None = None
        self._closing = False

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider._opened, signal=signals.spider_opened)
        crawler.signals.connect(spider._idle, signal=signals.spider_idle)
        crawler.signals.connect(spider._closed, signal=signals.spider_closed)
        return spider

    async def start(self):
        # No start URLs: work arrives from the job queue.
        return
        yield  # noqa: unreachable (makes this an async generator)

    # ---- job intake ----------------------------------------------------------------------------
    def _opened(self, spider=None):
        self._loop = task.LoopingCall(self._poll)
        self._loop.start(self.poll_s, now=True).addErrback(lambda f: log.error("job poll loop died: %s", f))

    def _closed(self, spider=None, reason=None):
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        log.info("spiders closed (%s): %s", reason, self.totals)

    def _idle(self, spider=None):
        # As in scrapy-redis: an idle spider asks the job queue for more before it would close.
        if not self._closing:
            self._poll()
            raise DontCloseSpider

    def _poll(self) -> None:
        try:
            self._take_jobs()
        except Exception as exc:  # a Redis hiccup must not kill the loop: try again next tick
            log.warning("cannot take jobs: %s", exc)
            return
        if self.until_idle or (self.max_jobs and self.jobs_taken >= self.max_jobs):
            self._maybe_close()

    def _take_jobs(self) -> None:
        while len(self.runs) < self.max_active_jobs and not self._closing:
            if self.max_jobs and self.jobs_taken >= self.max_jobs:
                return
            job = self.queues.jobs.pop(0)
            if job is None:
                return
            self.jobs_taken += 1
            self._start_job(job)

    def _maybe_close(self) -> None:
        limit_reached = bool(self.max_jobs and self.jobs_taken >= self.max_jobs)
        # Jobs whose not-before time has not come yet (keyword searches spaced by politeness) still
        # count as work: drain mode waits for them.
        if self.runs or (not limit_reached and self._jobs_waiting()):
            self._idle_since = None
            return
        now = time.monotonic()
        if self._idle_since is None:
            self._idle_since = now
        if now - self._idle_since >= self.idle_grace_s and not self._closing:
            self._closing = True
            log.info("job queue drained: closing")
            from scrapy.utils.defer import deferred_from_coro

            deferred_from_coro(self.crawler.engine.close_spider_async(reason="finished"))

    def _jobs_waiting(self) -> bool:
        try:
            return len(self.queues.jobs) > 0
        except Exception:
            return True  # cannot tell (queue restarting): keep going rather than close early

    # ---- one job -------------------------------------------------------------------------------
    def _channel(self, job: Mapping[str, Any]):
        if self.store is None or job.get("channel_id") is None:
            return None
        if job.get("kind") and (job.get("url") or job.get("entry_url")):
            return None  # the job carries what we need; spare the database a query
        return self.store.get_channel(int(job["channel_id"]))

    def _start_job(self, job: Mapping[str, Any]) -> None:
        try:
            spec = JobSpec.from_job(job, self._channel(job))
        except Exception as exc:
            log.error("unusable job %r: %s", job, exc)
            self._log(job.get("channel_id"), "error", f"unusable job: {exc}", errors=1, level="error")
            return
        run = JobRun(spec)
        self.runs[id(run)] = run
        if spec.kind not in PARSERS:
            self._fail(run, f"unknown channel kind {spec.kind!r} (expected one of {', '.join(PARSERS)})")
        elif not is_http_url(spec.url):
            self._fail(run, f"entry URL {spec.url!r} is not an absolute http(s) URL")
        else:
            self._request(run, spec.url)
        self._finish_if_done(run)

    def _request(self, run: JobRun, url: str) -> None:
        run.outstanding += 1
        request = scrapy.Request(url, callback=self._parse, errback=self._error, dont_filter=True,
                                 meta={"run": id(run), "politeness_delay_s": run.spec.politeness_delay_s})
        self.crawler.engine.crawl(request)

    def _fail(self, run: JobRun, message: str) -> None:
        run.errors += 1
        run.messages.append(message)

    def _parse(self, response):
        run = self.runs.get(response.meta["run"])
        if run is None:
            return
        run.outstanding -= 1
        run.pages += 1
        try:
            page = EntryPage(response.url, response.body, response.headers.get("Content-Type", b"").decode("latin-1") or None)
            found = PARSERS[run.spec.kind](page, run.spec)
        except SourceError as exc:
            self._fail(run, str(exc))
        except Exception as exc:  # a parser bug must cost one job, not the process
            log.exception("parser %s failed on %s", run.spec.kind, response.url)
            self._fail(run, f"parser error on {response.url}: {type(exc).__name__}: {exc}")
        else:
            run.messages.extend(found.warnings)
            run.found += len(found.links)
            if found.links:
                try:
                    new, problems = self.sink.offer(found.links, run.spec)
                except Exception as exc:
                    self._fail(run, f"cannot queue {len(found.links)} links: {exc}")
                else:
                    run.new += new
                    run.messages.extend(problems)
            budget = MAX_FOLLOW_PER_JOB - run.pages - run.outstanding
            for url in found.follow[: max(budget, 0)]:
                self._request(run, url)
            if len(found.follow) > max(budget, 0):
                run.messages.append(f"{len(found.follow) - max(budget, 0)} child sitemaps left out (limit {MAX_FOLLOW_PER_JOB})")
        self._finish_if_done(run)

    def _error(self, failure):
        request = failure.request
        run = self.runs.get(request.meta.get("run"))
        if run is None:
            return
        run.outstanding -= 1
        self._fail(run, f"fetch {request.url} failed: {describe_failure(failure)}")
        self._finish_if_done(run)

    def _finish_if_done(self, run: JobRun) -> None:
        if run.outstanding > 0:
            return
        self.runs.pop(id(run), None)
        self.jobs_done += 1
        spec = run.spec
        for key in ("found", "new", "errors"):
            self.totals[key] += getattr(run, key)
        self.totals["jobs"] += 1
        level = "error" if run.errors else ("warning" if run.messages else "info")
        summary = f"{spec.kind} {spec.url}: found {run.found}, new {run.new}, errors {run.errors}"
        message = summary + ("; " + "; ".join(run.messages[:10]) if run.messages else "")
        log.log(logging.WARNING if run.errors else logging.INFO, message)
        self._log(spec.channel_id, "job", message, level=level, keyword=spec.keyword,
                  found=run.found, new=run.new, errors=run.errors)

    def _log(self, channel_id, event: str, message: str, *, level: str = "info", **counts) -> None:
        if self.store is None:
            return
        try:
            self.store.log_crawl(channel_id, event, message[:4000], level=level, **counts)
        except Exception as exc:  # the log is a report; losing one line must not stop crawling
            log.warning("cannot write crawl_log: %s", exc)


def describe_failure(failure) -> str:
    """A short, readable cause for crawl_log: 'HTTP 404', 'timeout after 20 s', 'robots.txt forbids'."""
    from scrapy.exceptions import IgnoreRequest
    from scrapy.spidermiddlewares.httperror import HttpError
    from twisted.internet.error import DNSLookupError, TCPTimedOutError, TimeoutError as TxTimeout

    exc = failure.value
    if isinstance(exc, HttpError):
        return f"HTTP {exc.response.status}"
    if isinstance(exc, (TxTimeout, TCPTimedOutError)):
        return "timeout"
    if isinstance(exc, DNSLookupError):
        return "DNS lookup failed"
    if isinstance(exc, IgnoreRequest):
        return f"ignored ({exc or 'robots.txt forbids it'})"
    text = str(exc) or type(exc).__name__
    if "maxsize" in text.lower() or "cancelled" in text.lower() or "size" in text.lower():
        return f"download aborted ({type(exc).__name__}: {text[:200]}; size cap?)"
    return f"{type(exc).__name__}: {text[:300]}"
