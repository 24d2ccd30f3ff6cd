"""The status page: queue lengths, articles per hour, per-site counts, per-channel error and
invalid rates over the last 24 hours, flagged channels, and the Bloom filter's fill.

Each part is read on its own: a backend that is down blanks its part and says why, the rest of
the page still shows.
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from flask import Blueprint, current_app, render_template

from crawler.web.app import backends
from crawler.web.auth import login_required

bp = Blueprint("status", __name__, url_prefix="/status")

HOURS = 48
TOP_SITES = 20
WINDOW = timedelta(hours=24)
QUEUE_LABELS = {"jobs": "crawl jobs waiting", "details_queued": "detail URLs queued",
                "details_claimed": "detail URLs being extracted", "details_failed": "detail URLs failed (to retry)"}


def _rate(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def queue_lengths(queues) -> dict[str, int]:
    """jobs waiting; detail URLs queued, claimed by a worker, and failed (awaiting a re-queue)."""
    lengths = {"jobs": len(queues.jobs)}
    stats = queues.details.stats() if hasattr(queues.details, "stats") else {"queued": len(queues.details)}
    lengths.update({f"details_{k}": int(v) for k, v in stats.items()})
    return lengths


def channel_health(store, now: datetime) -> list[dict[str, Any]]:
    """Per channel: last-24-h totals and rates. invalid rate = invalid / (extracted + invalid),
    error rate = errors / (extracted + invalid + errors): both per detail page attempted."""
    rows = []
    for channel in store.list_channels():
        totals = store.run_totals(channel.id, since=now - WINDOW, until=now)
        attempted = totals["extracted"] + totals["invalid"] + totals["errors"]
        rows.append({
            "id": channel.id, "name": channel.name, "kind": channel.kind, "enabled": channel.enabled,
            "flagged": channel.flagged, "empty_runs": channel.empty_runs, "last_run_at": channel.last_run_at,
            "found": totals["found"], "new": totals["new"], "extracted": totals["extracted"],
            "invalid": totals["invalid"], "errors": totals["errors"], "reports": totals["reports"],
            "invalid_rate": _rate(totals["invalid"], totals["extracted"] + totals["invalid"]),
            "error_rate": _rate(totals["errors"], attempted),
        })
    return rows


def hourly_series(index, now: datetime, hours: int = HOURS) -> list[dict[str, Any]]:
    """One point per hour for the last `hours` hours, zero-filled, oldest first."""
    end = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    start = end - timedelta(hours=hours)
    counts = {as_hour(k): v for k, v in index.articles_per_hour(since=start, until=end).items()}
    return [{"hour": (start + timedelta(hours=i)).isoformat(), "count": int(counts.get(start + timedelta(hours=i), 0))}
            for i in range(hours)]


def as_hour(value) -> datetime:
    if isinstance(value, (int, float)):  # epoch milliseconds, as Elasticsearch buckets give them
        value = datetime.fromtimestamp(value / 1000, timezone.utc)
    elif isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).replace(minute=0, second=0, microsecond=0)


def collect_status(now: datetime | None = None) -> dict[str, Any]:
    now = now or datetime.now(timezone.utc)
    b = backends()
    out: dict[str, Any] = {"generated_at": now, "queues": None, "bloom": None, "articles_per_hour": [],
                           "sites": [], "total_articles": None, "channels": [], "errors": {}}

    def part(name, read):
        try:
            read()
        except Exception as exc:
            current_app.logger.warning("status: %s unavailable: %s", name, exc)
            out["errors"][name] = f"{type(exc).__name__}: {exc}"

    def read_queues():
        q = b.queues
        out["queues"] = queue_lengths(q)
        out["bloom"] = {"fill_ratio": float(q.seen.fill_ratio()), "estimated_fp_rate": float(q.seen.estimated_fp_rate())}

    def read_index():
        index = b.index
        out["total_articles"] = int(index.count())
        out["articles_per_hour"] = hourly_series(index, now)
        out["sites"] = [{"site": site, "count": int(n)} for site, n in index.site_counts(limit=TOP_SITES)]

    def read_channels():
        out["channels"] = channel_health(b.store, now)

    part("queues", read_queues)
    part("index", read_index)
    part("channels", read_channels)
    return out


@bp.route("/")
@login_required
def index():
    status = collect_status()
    flagged = [c for c in status["channels"] if c["flagged"]]
    return render_template("status.html", s=status, flagged=flagged, hours=HOURS, queue_labels=QUEUE_LABELS)
