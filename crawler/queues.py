"""The queues between controller, spiders and workers, and the "seen" filter.

`open_queues(queue_url)` returns a `Queues` with
- `jobs`: crawl jobs for the spiders, highest priority first among those whose not-before time
  has come: `push(job, priority=0, not_before=0.0)`, `pop(timeout) -> dict | None`. A popped job is
  gone: if its spider dies, the controller dispatches the channel again at its next run.
- `details`: detail URLs for the workers, a reliable queue: `push(item) -> bool` (False when the
  same URL is already pending: queued, claimed or failed), `claim(worker_id, timeout) -> Claim`,
  `ack(claim)`, `retry(claim, delay=None, reason="")` (-> "queued" or "failed" after
  max_tries), `requeue_stale(older_than_s)` (claims of dead workers go back),
  `requeue_failed(older_than_s, max_rounds)` (the controller's retry set), `failed()`, `stats()`,
  `len()` = items waiting.
- `seen`: the Bloom filter (crawler.bloom): `add_if_new`, `add_many_if_new`, `in`, `fill_ratio`,
  `estimated_fp_rate`.

A detail item is a dict with at least `url`; its id is `url_id(url)` (so the pending set is keyed
by canonical URL). Workers add the URL to `seen` only when its outcome is final (indexed or
invalid) and then ack; a failed URL stays in the failed set (still pending, so not re-enqueued)
until the controller re-queues it, so a failure never leaves an URL silently marked as seen.

URLs: `redis://host:6379/0` (distributed) or `local:///var/queue` (a directory holding a SQLite
file and the Bloom filter file; survives restarts, safe across threads and processes).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from crawler.urls import url_id


@dataclass
class Claim:
    """A detail item taken by a worker; `receipt` proves the claim when acking or retrying."""
    item: dict[str, Any]
    receipt: str
    item_id: str
    tries: int = 0          # failed attempts before this one
    rounds: int = 0         # times the controller re-queued it from the failed set
    claimed_at: float = 0.0


@dataclass
class FailedItem:
    item: dict[str, Any]
    item_id: str
    reason: str
    tries: int
    rounds: int
    failed_at: float


@dataclass
class Queues:
    jobs: Any
    details: Any
    seen: Any
    url: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def close(self) -> None:
        for part in (self.jobs, self.details, self.seen, self.extra.get("client")):
            close = getattr(part, "close", None)
            if close:
                close()


class QueueUnavailable(RuntimeError):
    """The queue backend could not be reached even after reconnect attempts."""


def item_id_of(item: dict[str, Any]) -> str:
    if not isinstance(item, dict):
        raise TypeError(f"a queue item is a dict, not {type(item).__name__}")
    if item.get("url"):
        return url_id(item["url"])
    return str(item.get("id") or uuid.uuid4().hex)


def backoff_delay(tries: int, base_s: float, cap_s: float = 6 * 3600) -> float:
    """base, 2*base, 4*base, ... capped."""
    return min(cap_s, base_s * (2 ** max(0, tries - 1)))


def open_queues(queue_url: str, settings=None) -> Queues:
    """Queues for `redis://...` or `local://...`; sizes and retry rules from `settings`
    (crawler.config.Settings; defaults when None)."""
    if settings is None:
        from crawler.config import Settings

        settings = Settings()
    scheme = queue_url.split("://", 1)[0].lower() if "://" in queue_url else ""
    if scheme in ("redis", "rediss", "unix"):
        from crawler.queues_redis import open_redis_queues

        return open_redis_queues(queue_url, settings)
    if scheme == "local":
        from crawler.queues_local import open_local_queues

        return open_local_queues(queue_url, settings)
    raise ValueError(f"unsupported queue_url {queue_url!r}: expected redis://... or local://...")
