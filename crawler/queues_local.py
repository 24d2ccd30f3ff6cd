"""Embedded queues: one SQLite file (WAL) for jobs and detail items, a memory-mapped file for the
Bloom filter. Items survive a restart of the process; each take is one `BEGIN IMMEDIATE`
transaction, so threads and processes sharing the directory never take the same item."""
from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

from crawler.bloom import FileBloom
from crawler.queues import Claim, FailedItem, Queues, backoff_delay, item_id_of

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  priority INTEGER NOT NULL,
  not_before REAL NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS ix_jobs_due ON jobs (not_before);
CREATE TABLE IF NOT EXISTS details (
  id TEXT PRIMARY KEY,
  data TEXT NOT NULL,
  state TEXT NOT NULL,            -- queued | claimed | failed
  available_at REAL NOT NULL,
  tries INTEGER NOT NULL DEFAULT 0,
  rounds INTEGER NOT NULL DEFAULT 0,
  receipt TEXT,
  claimed_by TEXT,
  claimed_at REAL,
  failed_at REAL,
  reason TEXT
);
CREATE INDEX IF NOT EXISTS ix_details_state ON details (state, available_at);
"""


def local_dir(queue_url: str) -> Path:
    """`local:///var/queue` -> var/queue (relative); `local:////srv/q` -> /srv/q."""
    rest = queue_url.split("://", 1)[1]
    if not rest.startswith("/"):
        raise ValueError(f"bad local queue URL {queue_url!r}: use local:///relative/dir or local:////absolute/dir")
    return Path(rest[1:])


class _DB:
    """A SQLite connection per thread (sqlite3 objects are not shareable while a transaction runs)."""

    def __init__(self, path: Path):
        self.path = path
        self._local = threading.local()
        with self.connect() as conn:
            conn.executescript(_SCHEMA)

    def connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._local.conn = conn
        return conn

    def transaction(self):
        return _Tx(self.connect())


class _Tx:
    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> sqlite3.Connection:
        self.conn.execute("BEGIN IMMEDIATE")
        return self.conn

    def __exit__(self, exc_type, *_):
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _wait(deadline: float, poll: float) -> bool:
    """Sleep a poll step; False when the deadline has passed."""
    left = deadline - time.time()
    if left <= 0:
        return False
    time.sleep(min(poll, left))
    return True


class LocalJobQueue:
    def __init__(self, db: _DB):
        self.db = db

    def push(self, job: dict[str, Any], priority: int = 0, not_before: float = 0.0) -> None:
        data = json.dumps(job, ensure_ascii=False)
        with self.db.transaction() as conn:
            conn.execute("INSERT INTO jobs (priority, not_before, data) VALUES (?, ?, ?)",
                         (int(priority), float(not_before), data))

    def pop(self, timeout: float = 0.0) -> dict[str, Any] | None:
        deadline = time.time() + max(0.0, timeout)
        while True:
            with self.db.transaction() as conn:
                row = conn.execute("SELECT id, data FROM jobs WHERE not_before <= ? ORDER BY priority DESC, id LIMIT 1",
                                   (time.time(),)).fetchone()
                if row:
                    conn.execute("DELETE FROM jobs WHERE id = ?", (row[0],))
                    return json.loads(row[1])
            if not _wait(deadline, 0.05):
                return None

    def __len__(self) -> int:
        return self.db.connect().execute("SELECT COUNT(*) FROM jobs").fetchone()[0]

    def clear(self) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM jobs")


class LocalDetailQueue:
    def __init__(self, db: _DB, max_tries: int = 3, retry_base_s: float = 30.0):
        self.db = db
        self.max_tries = max_tries
        self.retry_base_s = retry_base_s

    def push(self, item: dict[str, Any]) -> bool:
        item_id = item_id_of(item)
        data = json.dumps(item, ensure_ascii=False)
        with self.db.transaction() as conn:
            # rowid keeps insertion order among items available at the same time
            cur = conn.execute("INSERT OR IGNORE INTO details (id, data, state, available_at)"
                               " VALUES (?, ?, 'queued', ?)", (item_id, data, time.time()))
            return cur.rowcount == 1

    def is_pending(self, url: str) -> bool:
        row = self.db.connect().execute("SELECT 1 FROM details WHERE id = ?", (item_id_of({"url": url}),)).fetchone()
        return row is not None

    def claim(self, worker_id: str, timeout: float = 0.0) -> Claim | None:
        deadline = time.time() + max(0.0, timeout)
        while True:
            now = time.time()
            with self.db.transaction() as conn:
                row = conn.execute("SELECT id, data, tries, rounds FROM details WHERE state = 'queued'"
                                   " AND available_at <= ? ORDER BY available_at, rowid LIMIT 1", (now,)).fetchone()
                if row:
                    receipt = uuid.uuid4().hex
                    conn.execute("UPDATE details SET state = 'claimed', receipt = ?, claimed_by = ?, claimed_at = ?"
                                 " WHERE id = ?", (receipt, worker_id, now, row[0]))
                    return Claim(item=json.loads(row[1]), receipt=receipt, item_id=row[0], tries=row[2],
                                 rounds=row[3], claimed_at=now)
            if not _wait(deadline, 0.05):
                return None

    def ack(self, claim: Claim) -> bool:
        """Done with the item; False if the claim had expired and was handed to someone else."""
        with self.db.transaction() as conn:
            cur = conn.execute("DELETE FROM details WHERE id = ? AND state = 'claimed' AND receipt = ?",
                               (claim.item_id, claim.receipt))
            return cur.rowcount == 1

    def retry(self, claim: Claim, delay: float | None = None, reason: str = "") -> str:
        """Put the item back after `delay` (default: exponential back-off), or into the failed set
        after max_tries; "queued", "failed", or "lost" when the claim was no longer ours."""
        tries = claim.tries + 1
        now = time.time()
        with self.db.transaction() as conn:
            if tries >= self.max_tries:
                cur = conn.execute("UPDATE details SET state = 'failed', tries = ?, reason = ?, failed_at = ?,"
                                   " receipt = NULL, claimed_by = NULL WHERE id = ? AND state = 'claimed' AND receipt = ?",
                                   (tries, reason, now, claim.item_id, claim.receipt))
                outcome = "failed"
            else:
                wait = backoff_delay(tries, self.retry_base_s) if delay is None else delay
                cur = conn.execute("UPDATE details SET state = 'queued', tries = ?, reason = ?, available_at = ?,"
                                   " receipt = NULL, claimed_by = NULL WHERE id = ? AND state = 'claimed' AND receipt = ?",
                                   (tries, reason, now + wait, claim.item_id, claim.receipt))
                outcome = "queued"
            return outcome if cur.rowcount == 1 else "lost"

    def fail(self, claim: Claim, reason: str = "") -> str:
        """A permanent failure (404, too large...): straight to the failed set, no more tries."""
        with self.db.transaction() as conn:
            cur = conn.execute("UPDATE details SET state = 'failed', tries = tries + 1, reason = ?, failed_at = ?,"
                               " receipt = NULL, claimed_by = NULL WHERE id = ? AND state = 'claimed' AND receipt = ?",
                               (reason, time.time(), claim.item_id, claim.receipt))
            return "failed" if cur.rowcount == 1 else "lost"

    def requeue_stale(self, older_than_s: float) -> int:
        """Claims older than this go back to the queue (their worker died or hung). That counts
        as a try, so a page that kills every worker ends in the failed set instead of looping."""
        now = time.time()
        with self.db.transaction() as conn:
            cutoff = now - older_than_s
            failed = conn.execute("UPDATE details SET state = 'failed', tries = tries + 1, failed_at = ?,"
                                  " reason = 'claim expired: worker died or hung', receipt = NULL, claimed_by = NULL"
                                  " WHERE state = 'claimed' AND claimed_at < ? AND tries + 1 >= ?",
                                  (now, cutoff, self.max_tries)).rowcount
            back = conn.execute("UPDATE details SET state = 'queued', tries = tries + 1, receipt = NULL,"
                                " claimed_by = NULL, reason = 'claim expired: worker died or hung', available_at = ?"
                                " WHERE state = 'claimed' AND claimed_at < ?", (now, cutoff)).rowcount
            return failed + back

    def requeue_failed(self, older_than_s: float = 0.0, max_rounds: int = 3) -> int:
        """Give failed items another round of tries, at most `max_rounds` times each."""
        with self.db.transaction() as conn:
            return conn.execute("UPDATE details SET state = 'queued', tries = 0, rounds = rounds + 1,"
                                " available_at = ? WHERE state = 'failed' AND failed_at <= ? AND rounds < ?",
                                (time.time(), time.time() - older_than_s, max_rounds)).rowcount

    def failed(self, limit: int = 100) -> list[FailedItem]:
        rows = self.db.connect().execute(
            "SELECT id, data, reason, tries, rounds, failed_at FROM details WHERE state = 'failed'"
            " ORDER BY failed_at DESC LIMIT ?", (limit,)).fetchall()
        return [FailedItem(json.loads(r[1]), r[0], r[2] or "", r[3], r[4], r[5]) for r in rows]

    def stats(self) -> dict[str, int]:
        counts = dict(self.db.connect().execute("SELECT state, COUNT(*) FROM details GROUP BY state").fetchall())
        return {s: int(counts.get(s, 0)) for s in ("queued", "claimed", "failed")}

    def pending_count(self) -> int:
        return sum(self.stats().values())

    def failed_count(self) -> int:
        return self.stats()["failed"]

    def __len__(self) -> int:
        return self.stats()["queued"]

    def clear(self) -> None:
        with self.db.transaction() as conn:
            conn.execute("DELETE FROM details")


def open_local_queues(queue_url: str, settings) -> Queues:
    directory = local_dir(queue_url)
    directory.mkdir(parents=True, exist_ok=True)
    db = _DB(directory / "queue.sqlite3")
    seen = FileBloom(directory / "seen.bloom", settings.bloom_capacity, settings.bloom_error_rate)
    return Queues(jobs=LocalJobQueue(db),
                  details=LocalDetailQueue(db, settings.detail_max_tries, settings.detail_retry_base_s),
                  seen=seen, url=queue_url)
