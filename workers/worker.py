"""The extraction worker: claim a detail URL, fetch it, extract the article, bulk-index, then ack.

Threads share one process: fetching waits on the network while another thread parses, so a few
threads keep one core busy (run one worker process per core for more). The life of an item:

    claim -> fetch (polite, capped) -> extract (channel tz + XPath overrides) -> valid?
       valid   -> batch -> index_bulk -> ack (outcome final: the URL enters the Bloom filter)
       invalid -> ack, reason counted (final too: re-fetching would give the same page)
       fetch/extract error -> retry with back-off; the queue marks it failed after the last try
       index unavailable   -> the batch is kept, claims held, indexing retried with back-off;
                              if the worker dies meanwhile, requeue_stale hands the items out again
                              and the document id (= url_id) keeps the index free of duplicates.
"""
from __future__ import annotations

import logging
import os
import re
import socket
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone

from crawler.urls import url_id
from extraction import extract

from .fetch import Fetcher, FetchError
from .index import IndexUnavailable

log = logging.getLogger("mcrawl.worker")


@dataclass
class Stats:
    """Counters shared by the threads (guarded by `lock`)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    claimed: int = 0
    indexed: int = 0
    invalid: Counter = field(default_factory=Counter)
    errors: Counter = field(default_factory=Counter)
    retried: int = 0
    index_failures: int = 0
    fetch_s: float = 0.0
    extract_s: float = 0.0
    index_s: float = 0.0
    extract_cpu_s: float = 0.0  # CPU time of this process's threads in extraction (no GIL waits)
    # per channel, not yet written to crawl_log: channel_id -> Counter(extracted/invalid/errors)
    pending_log: dict = field(default_factory=lambda: defaultdict(Counter))

    def add(self, **values) -> None:
        with self.lock:
            for key, value in values.items():
                setattr(self, key, getattr(self, key) + value)

    def count(self, channel_id, key: str, n: int = 1) -> None:
        with self.lock:
            self.pending_log[channel_id][key] += n

    def snapshot(self) -> dict:
        with self.lock:
            return {"claimed": self.claimed, "indexed": self.indexed, "invalid": sum(self.invalid.values()),
                    "invalid_reasons": dict(self.invalid), "errors": dict(self.errors), "retried": self.retried,
                    "index_failures": self.index_failures, "fetch_s": round(self.fetch_s, 3),
                    "extract_s": round(self.extract_s, 3), "index_s": round(self.index_s, 3),
                    "extract_cpu_s": round(self.extract_cpu_s, 3)}


def document(item: dict, result, fetched_at: datetime) -> dict:
    """The index document of a valid result (fields of docs/architecture.md)."""
    content = result.articleBody
    if result.posts and not content:
        content = "\n\n".join(p.content for p in result.posts if p.content)
    return {
        "id": item.get("url_id") or url_id(item["url"]),
        "url": item["url"],
        "site": item.get("site"),
        "channel": item.get("channel_id"),
        "channel_kind": item.get("channel_kind"),
        "title": result.headline,
        "content": content,
        "pubdate": result.datePublished,
        "crawled_at": fetched_at.isoformat(),
        "author": result.author,
        "source": result.source,
        "lang": result.lang or item.get("lang"),
        "page_type": result.page_type,
        "method": result.method,
    }


def short_reason(reasons: list[str]) -> str:
    """The first reason without its particulars, so counts add up per kind of reason:
    "date out of range 2031-01-01T00:00:00+00:00" -> "date out of range #"."""
    if not reasons:
        return "unknown"
    return re.sub(r"'[^']*'|\"[^\"]*\"|\d[\d\-:T+.,]*", "#", reasons[0]).strip()[:80]


class Worker:
    def __init__(self, queues, index, store=None, *, concurrency: int = 4, fetcher: Fetcher | None = None,
                 worker_id: str | None = None, batch_size: int = 20, flush_s: float = 1.0,
                 default_tz: str | None = "Asia/Shanghai",
                 index_backoff_max_s: float = 30.0, claim_timeout_s: float = 1.0,
                 log_every_s: float = 10.0, templates=None):
        self.queues = queues
        self.templates = templates  # a TemplateCache (workers/templates.py) or None
        self.index = index
        self.store = store
        self.concurrency = max(1, int(concurrency))
        self.fetcher = fetcher or Fetcher(pool_size=self.concurrency)
        self.worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}"
        self.batch_size = batch_size
        self.flush_s = flush_s
        self.default_tz = default_tz
        self.index_backoff_max_s = index_backoff_max_s
        self.claim_timeout_s = claim_timeout_s
        self.log_every_s = log_every_s
        self.stats = Stats()
        self.stop_event = threading.Event()
        self._batch: list[tuple[object, dict, dict]] = []  # (claim, item, doc)
        self._batch_lock = threading.Lock()
        self._flush_lock = threading.Lock()  # one bulk request at a time; others keep extracting
        self._batch_started = time.monotonic()
        self._index_ok = threading.Event()
        self._index_ok.set()
        self._busy = 0
        self._busy_lock = threading.Lock()
        self._last_claim = time.monotonic()

    # ---- the loop ------------------------------------------------------------------------------
    def run(self, *, until_idle: bool = False, idle_grace_s: float = 2.0, max_items: int = 0,
            progress=None) -> dict:
        """Work until stopped (or, with `until_idle`, until the queue stays empty for idle_grace_s)."""
        cpu_start = os.times()
        threads = [threading.Thread(target=self._thread_main, args=(max_items,), name=f"worker-{i}", daemon=True)
                   for i in range(self.concurrency)]
        for t in threads:
            t.start()
        last_log = time.monotonic()
        try:
            while not self.stop_event.is_set():
                self.stop_event.wait(min(self.flush_s, 0.5))
                self._flush_if_due()
                now = time.monotonic()
                if now - last_log >= self.log_every_s:
                    self._write_log()
                    last_log = now
                    if progress:
                        progress(self.stats.snapshot())
                if max_items and self.stats.claimed >= max_items and self._idle():
                    break
                if until_idle and self._idle() and now - self._last_claim >= idle_grace_s:
                    try:
                        if len(self.queues.details) == 0:
                            break
                    except Exception:
                        pass
        except KeyboardInterrupt:
            log.info("interrupted: finishing the current batch")
        finally:
            self.stop_event.set()
            for t in threads:
                t.join(timeout=60)
            self._flush(force=True)
            self._write_log()
        cpu_end = os.times()
        snapshot = self.stats.snapshot()
        snapshot["process_cpu_s"] = round((cpu_end.user - cpu_start.user) + (cpu_end.system - cpu_start.system), 3)
        return snapshot

    def stop(self) -> None:
        self.stop_event.set()

    def _idle(self) -> bool:
        with self._busy_lock:
            busy = self._busy
        with self._batch_lock:
            return busy == 0 and not self._batch

    def _thread_main(self, max_items: int) -> None:
        backoff = 0.5
        while not self.stop_event.is_set():
            if not self._index_ok.is_set():
                # The index is down: claiming more would only pile up held items.
                self._index_ok.wait(1.0)
                continue
            if max_items and self.stats.claimed >= max_items:
                self.stop_event.wait(0.2)
                continue
            try:
                claim = self.queues.details.claim(self.worker_id, self.claim_timeout_s)
            except Exception as exc:  # Redis restarting: redis-py reconnects on the next call
                log.warning("cannot claim (queue unavailable?): %s; retrying in %.1f s", exc, backoff)
                self.stop_event.wait(backoff)
                backoff = min(backoff * 2, 10.0)
                continue
            backoff = 0.5
            if claim is None:
                continue
            self._last_claim = time.monotonic()
            with self._busy_lock:
                self._busy += 1
            try:
                self.stats.add(claimed=1)
                self.process(claim)
            except Exception as exc:  # never lose an item to a bug: it goes back with back-off
                log.exception("unexpected error on %s", getattr(claim, "item", {}).get("url"))
                self._retry(claim, f"worker error: {type(exc).__name__}: {exc}")
            finally:
                with self._busy_lock:
                    self._busy -= 1
            self._flush_if_due()

    # ---- one item ------------------------------------------------------------------------------
    def process(self, claim) -> None:
        item = claim.item
        url = item["url"]
        channel_id = item.get("channel_id")
        t0 = time.perf_counter()
        try:
            fetched = self.fetcher.fetch(url, float(item.get("politeness_delay_s") or 0.0))
        except FetchError as exc:
            self.stats.add(fetch_s=time.perf_counter() - t0)
            with self.stats.lock:
                self.stats.errors[exc.reason] += 1
            self.stats.count(channel_id, "errors")
            # Not-retryable errors (404, redirect loop, too large) go the same way: the queue's tries
            # are few and spaced, and a site that was down for a moment gets another chance.
            self._retry(claim, str(exc))
            return
        t1 = time.perf_counter()
        c1 = time.thread_time()
        fetched_at = datetime.now(timezone.utc)
        result = extract(fetched.body, url, content_type=fetched.content_type, fetched_at=fetched_at,
                         tz=item.get("tz") or self.default_tz, overrides=item.get("overrides") or None,
                         templates=self.templates.get() if self.templates else None)
        t2 = time.perf_counter()
        self.stats.add(fetch_s=t1 - t0, extract_s=t2 - t1, extract_cpu_s=time.thread_time() - c1)
        if not result.valid:
            reason = short_reason(result.reasons)
            with self.stats.lock:
                self.stats.invalid[reason] += 1
            self.stats.count(channel_id, "invalid")
            self.stats.count(channel_id, "reason:" + reason)
            log.debug("invalid %s: %s", url, "; ".join(result.reasons))
            self._finish([claim])
            return
        doc = document(item, result, fetched_at)
        with self._batch_lock:
            if not self._batch:
                self._batch_started = time.monotonic()
            self._batch.append((claim, item, doc))

    def _finish(self, claims: list) -> None:
        """Outcome final: the URLs enter the Bloom filter, then the claims are acked (in this order,
        so a crash in between leaves an URL seen *and* redelivered, never lost)."""
        if not claims:
            return
        self.queues.seen.add_many_if_new([c.item["url"] for c in claims])
        for claim in claims:
            self.queues.details.ack(claim)

    def _retry(self, claim, reason: str) -> None:
        """Back to the queue with the queue's exponential back-off; after the last try the queue
        moves it to the failed set (still pending, not seen), which the controller re-queues."""
        self.stats.add(retried=1)
        try:
            outcome = self.queues.details.retry(claim, None, reason)
        except Exception as exc:
            # The claim stays held; requeue_stale returns it once it is old enough.
            log.warning("cannot put %s back for retry: %s", claim.item.get("url"), exc)
            return
        if outcome == "failed":
            with self.stats.lock:
                self.stats.errors["failed_after_last_try"] += 1
            log.info("failed for good (until the controller re-queues it): %s: %s", claim.item.get("url"), reason)

    # ---- indexing ------------------------------------------------------------------------------
    def _flush_if_due(self) -> None:
        with self._batch_lock:
            due = len(self._batch) >= self.batch_size or (
                self._batch and time.monotonic() - self._batch_started >= self.flush_s)
        if due:
            self._flush()

    def _flush(self, force: bool = False) -> None:
        if not self._flush_lock.acquire(blocking=force):
            return  # another thread is flushing; this batch goes with the next one
        try:
            with self._batch_lock:
                batch, self._batch = self._batch, []
            if not batch:
                return
            backoff = 1.0
            while True:
                t0 = time.perf_counter()
                try:
                    ok, errors = self.index.index_bulk([doc for _, _, doc in batch])
                except IndexUnavailable as exc:
                    self.stats.add(index_failures=1)
                    self._index_ok.clear()
                    log.warning("index unavailable (%s): %d documents held, retrying in %.0f s",
                                exc, len(batch), backoff)
                    # at shutdown a few quick tries only (1 + 2 + 4 s), then leave it to redelivery
                    if self.stop_event.is_set() and (not force or backoff > min(4.0, self.index_backoff_max_s)):
                        # Shutting down: the claims stay held and requeue_stale redelivers them.
                        log.warning("stopping with %d documents not indexed; they will be redelivered", len(batch))
                        if not force:
                            with self._batch_lock:
                                self._batch = batch + self._batch
                        return
                    if self.stop_event.is_set():
                        time.sleep(backoff)
                    else:
                        self.stop_event.wait(backoff)
                    backoff = min(backoff * 2, self.index_backoff_max_s * 1.01)
                    continue
                except Exception as exc:
                    # Not an outage (a bug, a rejected request): waiting would not help, so the items
                    # take the queue's retry path and end in the failed set if it persists.
                    log.exception("indexing %d documents failed", len(batch))
                    self.stats.add(index_failures=1)
                    with self.stats.lock:
                        self.stats.errors["index_error"] += len(batch)
                    for claim, item, _ in batch:
                        self.stats.count(item.get("channel_id"), "errors")
                        self._retry(claim, f"index error: {type(exc).__name__}: {exc}"[:300])
                    return
                self.stats.add(index_s=time.perf_counter() - t0)
                self._index_ok.set()
                break
            failed_ids = self._failed_ids(errors)
            done = []
            for claim, item, doc in batch:
                if doc["id"] in failed_ids:
                    self.stats.count(item.get("channel_id"), "errors")
                    with self.stats.lock:
                        self.stats.errors["index_rejected"] += 1
                    self._retry(claim, f"index rejected the document: {failed_ids[doc['id']]}")
                else:
                    done.append(claim)
                    self.stats.count(item.get("channel_id"), "extracted")
            self._finish_after_index(done)
        finally:
            self._flush_lock.release()

    def _finish_after_index(self, claims: list) -> None:
        backoff = 0.5
        while True:
            try:
                self._finish(claims)
                break
            except Exception as exc:  # Redis restarting: documents are indexed, acks must follow
                if self.stop_event.is_set() and backoff > 8:
                    log.warning("cannot ack %d indexed items (%s); they will be redelivered (same ids)", len(claims), exc)
                    return
                log.warning("cannot ack %d indexed items (%s); retrying in %.1f s", len(claims), exc, backoff)
                time.sleep(backoff)
                backoff = min(backoff * 2, 10.0)
        self.stats.add(indexed=len(claims))

    @staticmethod
    def _failed_ids(errors) -> dict[str, str]:
        """index_bulk's errors as {doc id: reason}; accepts a list of dicts/ids or a count."""
        out: dict[str, str] = {}
        if not errors or isinstance(errors, int):
            return out
        for err in errors:
            if isinstance(err, str):
                out[err] = "rejected"
            elif isinstance(err, dict):
                body = next(iter(err.values())) if len(err) == 1 and isinstance(next(iter(err.values())), dict) else err
                doc_id = body.get("_id") or body.get("id")
                if doc_id:
                    out[str(doc_id)] = str(body.get("error") or body.get("reason") or "rejected")[:300]
        return out

    # ---- crawl_log -----------------------------------------------------------------------------
    def _write_log(self) -> None:
        with self.stats.lock:
            pending, self.stats.pending_log = self.stats.pending_log, defaultdict(Counter)
        if self.store is None:
            return
        for channel_id, counts in pending.items():
            if not (counts["extracted"] or counts["invalid"] or counts["errors"]):
                continue
            reasons = ", ".join(f"{k[len('reason:'):]}: {n}" for k, n in counts.most_common()
                                if k.startswith("reason:"))
            try:
                self.store.log_crawl(channel_id, "extract",
                                     f"worker {self.worker_id}: extracted {counts['extracted']}, "
                                     f"invalid {counts['invalid']}{f' ({reasons})' if reasons else ''}, "
                                     f"errors {counts['errors']}",
                                     extracted=counts["extracted"], invalid=counts["invalid"],
                                     errors=counts["errors"])
            except Exception as exc:
                log.warning("cannot write crawl_log: %s", exc)
