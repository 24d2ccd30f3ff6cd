"""`mcrawl controller`: turns channel rows into crawl jobs, pass after pass.

One pass:
1. detail items held by dead workers go back to the queue (`requeue_stale`), and failed URLs old
   enough get another round of tries past the Bloom filter (`requeue_failed`: the retry set);
2. due channels are claimed atomically in the store (two controllers never dispatch one run);
3. each claimed row is validated; a bad row is rejected with a clear crawl_log message and
   rescheduled, the others go on;
4. the yield of the channel's previous run (the job reports in crawl_log since its last dispatch)
   adapts its interval: halved toward min_interval_s when it brought new articles, grown by half
   toward max_interval_s when it brought none; after `flag_after_empty_runs` empty runs in a row
   the channel is flagged (crawl_log event "flagged") and unflagged when it yields again;
5. jobs are pushed: one per channel, or one per keyword for a meta-search channel, spaced by the
   channel's politeness delay through their not-before time; the run is recorded and the claim
   released with next_run_at = now + interval.
Rows are read fresh every pass, so a channel added by one INSERT is picked up without restart.
"""
from __future__ import annotations

import logging
import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from crawler.store import Channel, ChannelStore, utcnow, validate_channel

log = logging.getLogger("mcrawl.controller")

GROWTH = 1.5            # interval factor after an empty run
SHRINK = 0.5            # interval factor after a run with new articles
REJECT_RETRY_S = 600    # a rejected row is looked at again after this long (it may have been fixed)


def adapt_interval(current: int, lo: int, hi: int, new_items: int | None) -> int:
    """The next interval from the last run's yield (None: no previous run, keep it)."""
    current = max(lo, min(hi, int(current)))
    if new_items is None:
        return current
    nxt = current * SHRINK if new_items > 0 else current * GROWTH
    return int(max(lo, min(hi, round(nxt))))


def jobs_for(channel: Channel, keywords: list[str]) -> list[dict[str, Any]]:
    """The job dicts of one run (spiders read them as crawler.spiders.base.JobSpec)."""
    base = {
        "channel_id": channel.id, "kind": channel.kind, "site": channel.site,
        "detail_url_regex": channel.detail_url_regex, "detail_xpath": channel.detail_xpath,
        "politeness_delay_s": channel.politeness_delay_s, "tz": channel.tz, "language": channel.language,
        "overrides": {k: v for k, v in (("headline", channel.xpath_headline), ("body", channel.xpath_body),
                                         ("date", channel.xpath_date)) if v},
    }
    if channel.kind != "metasearch":
        return [{**base, "url": channel.entry_url, "keyword": None}]
    return [{**base, "url": channel.entry_url.replace("{keyword}", quote(kw)), "keyword": kw} for kw in keywords]


@dataclass
class PassReport:
    claimed: int = 0
    dispatched: int = 0
    jobs: int = 0
    rejected: int = 0
    flagged: int = 0
    stale_requeued: int = 0
    failed_requeued: int = 0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (f"claimed {self.claimed}, dispatched {self.dispatched} ({self.jobs} jobs), rejected {self.rejected},"
                f" flagged {self.flagged}, re-queued {self.stale_requeued} stale + {self.failed_requeued} failed")


class Controller:
    def __init__(self, store: ChannelStore, queues, settings, owner: str | None = None, batch: int = 100):
        self.store = store
        self.queues = queues
        self.settings = settings
        self.owner = owner or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
        self.batch = batch

    def run_pass(self, now: datetime | None = None) -> PassReport:
        report = PassReport()
        details = self.queues.details
        try:
            report.stale_requeued = details.requeue_stale(self.settings.detail_claim_timeout_s)
            report.failed_requeued = details.requeue_failed(self.settings.failed_requeue_after_s,
                                                            self.settings.failed_max_rounds)
        except Exception as exc:  # the queue may be restarting: channels can still be scheduled later
            report.errors.append(f"re-queue failed: {exc}")
            log.warning("re-queue of stale/failed detail items failed: %s", exc)
        while True:
            stamp = now or utcnow()
            channels = self.store.claim_due_channels(stamp, self.batch, self.owner, self.settings.claim_lease_s)
            report.claimed += len(channels)
            for channel in channels:
                self._dispatch(channel, stamp, report)
            if len(channels) < self.batch:
                break
        return report

    def _dispatch(self, channel: Channel, now: datetime, report: PassReport) -> None:
        store = self.store
        problems = validate_channel(channel)
        if problems:
            report.rejected += 1
            message = f"channel {channel.name!r} rejected: " + "; ".join(problems)
            log.error(message)
            store.log_crawl(channel.id, "rejected", message, level="error", errors=1, at=now)
            store.reschedule(channel.id, now + timedelta(seconds=REJECT_RETRY_S), owner=self.owner)
            return
        keywords = store.keywords(channel.id) if channel.kind == "metasearch" else []
        if channel.kind == "metasearch" and not keywords:
            message = f"metasearch channel {channel.name!r} has no keywords: nothing to search"
            store.log_crawl(channel.id, "rejected", message, level="warning", at=now)
            report.rejected += 1
            store.reschedule(channel.id, now + timedelta(seconds=channel.interval_s), owner=self.owner)
            return

        # the yield of the previous run: what its jobs reported since it was dispatched
        previous = None
        totals = {"found": 0, "new": 0, "extracted": 0, "invalid": 0, "errors": 0}
        if channel.last_run_at is not None:
            totals = store.run_totals(channel.id, since=channel.last_run_at, until=now)
            previous = totals["new"]
        interval = adapt_interval(channel.interval_s, channel.min_interval_s, channel.max_interval_s, previous)
        empty_runs = channel.empty_runs
        flagged = channel.flagged
        if previous is not None:
            empty_runs = 0 if previous > 0 else empty_runs + 1
            if empty_runs >= self.settings.flag_after_empty_runs and not flagged:
                flagged = True
                report.flagged += 1
                since = now.isoformat(timespec="seconds")
                store.log_crawl(channel.id, "flagged",
                                f"channel {channel.name!r} brought no new articles in {empty_runs} runs"
                                f" (as of {since}); interval now {interval} s", level="warning", at=now)
            elif previous > 0 and flagged:
                flagged = False
                store.log_crawl(channel.id, "unflagged", f"channel {channel.name!r} yields again", at=now)

        jobs = jobs_for(channel, keywords)
        try:
            start = now.timestamp()
            for i, job in enumerate(jobs):
                # keyword searches of one site are spaced by its politeness delay
                self.queues.jobs.push(job, priority=channel.priority,
                                      not_before=start + i * float(channel.politeness_delay_s or 0))
        except Exception as exc:
            report.errors.append(f"{channel.name}: {exc}")
            log.error("cannot queue jobs of channel %r: %s", channel.name, exc)
            store.log_crawl(channel.id, "dispatch", f"cannot queue jobs: {exc}", level="error", errors=1, at=now)
            store.release_channel(channel.id, owner=self.owner)  # due again at the next pass
            return
        store.log_crawl(channel.id, "dispatch", f"{len(jobs)} job(s); interval {interval} s", at=now)
        store.finish_run(channel.id, totals, now + timedelta(seconds=interval), interval_s=interval,
                         empty_runs=empty_runs, flagged=flagged, owner=self.owner, now=now)
        report.dispatched += 1
        report.jobs += len(jobs)

    def run_forever(self, interval_s: float, passes: int = 0) -> None:
        done = 0
        while True:
            started = time.monotonic()
            try:
                report = self.run_pass()
                log.info("pass: %s", report.summary())
            except Exception as exc:  # a database hiccup costs one pass, not the controller
                log.exception("controller pass failed: %s", exc)
            done += 1
            if passes and done >= passes:
                return
            time.sleep(max(0.0, interval_s - (time.monotonic() - started)))


# ---- CLI ----------------------------------------------------------------------------------------
def add_arguments(parser) -> None:
    parser.add_argument("--config", help="settings file (TOML or YAML); env MCRAWL_* wins")
    parser.add_argument("--once", action="store_true", help="run one pass and exit")
    parser.add_argument("--interval", type=float, default=None, help="seconds between passes (default: settings)")
    parser.add_argument("--passes", type=int, default=0, help="stop after this many passes (0 = run until killed)")


def run(args) -> int:
    from crawler.config import ConfigError, load_settings
    from crawler.queues import open_queues
    from crawler.store import open_store

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(f"mcrawl controller: {exc}")
        return 2
    store = open_store(settings.db_url)
    queues = open_queues(settings.queue_url, settings)
    controller = Controller(store, queues, settings)
    try:
        if args.once:
            report = controller.run_pass()
            print(report.summary())
            return 1 if report.errors else 0
        controller.run_forever(args.interval if args.interval is not None else settings.controller_interval_s,
                               args.passes)
        return 0
    finally:
        queues.close()
        store.close()
