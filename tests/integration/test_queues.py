"""Job and detail queues against both backends: a real Redis (distributed) and the SQLite-file
local queue (embedded). Includes a Redis restart in the middle of a run."""
from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path

import pytest

from crawler.config import Settings
from crawler.queues import QueueUnavailable, open_queues
from crawler.urls import url_id
from tests.integration.storage_helpers import unique_prefix

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = Settings(bloom_capacity=10_000, bloom_error_rate=1e-3, detail_max_tries=3, detail_retry_base_s=0.2)


@pytest.fixture(params=["local", "redis"])
def queue_url(request, tmp_path):
    if request.param == "local":
        yield f"local:///{tmp_path}/queue"
        return
    url = f"{request.getfixturevalue('redis_url')}?prefix={unique_prefix()}"
    yield url
    q = open_queues(url, SETTINGS)
    for part in (q.jobs, q.details, q.seen):
        part.clear()


@pytest.fixture
def queues(queue_url):
    q = open_queues(queue_url, SETTINGS)
    yield q
    q.close()


def test_jobs_pop_by_priority_then_fifo_and_wait_for_not_before(queues):
    now = time.time()
    queues.jobs.push({"n": "low"}, priority=0)
    queues.jobs.push({"n": "high-1"}, priority=5)
    queues.jobs.push({"n": "high-2"}, priority=5)
    queues.jobs.push({"n": "later"}, priority=9, not_before=now + 1.5)
    assert len(queues.jobs) == 4
    assert [queues.jobs.pop()["n"] for _ in range(3)] == ["high-1", "high-2", "low"]
    assert queues.jobs.pop() is None                 # "later" is not due yet
    assert queues.jobs.pop(timeout=5)["n"] == "later"
    assert queues.jobs.pop(timeout=0.2) is None and len(queues.jobs) == 0


def test_jobs_keep_unicode_payloads(queues):
    queues.jobs.push({"url": "https://s.example.com/?q=人工智能", "keyword": "人工智能"})
    assert queues.jobs.pop()["keyword"] == "人工智能"


def test_detail_push_is_deduplicated_by_canonical_url(queues):
    assert queues.details.push({"url": "http://Example.com/a?utm_source=x#top", "channel_id": 1}) is True
    assert queues.details.push({"url": "http://example.com/a"}) is False     # already pending
    assert queues.details.is_pending("http://example.com/a")
    assert len(queues.details) == 1
    with pytest.raises(ValueError):
        queues.details.push({"url": "not a url"})


def test_claim_ack_and_stale_receipts(queues):
    for i in range(3):
        queues.details.push({"url": f"http://ex.com/{i}"})
    c0 = queues.details.claim("w1")
    assert c0.item["url"] == "http://ex.com/0" and c0.item_id == url_id("http://ex.com/0") and c0.tries == 0
    assert queues.details.stats() == {"queued": 2, "claimed": 1, "failed": 0}
    assert queues.details.ack(c0) is True
    assert queues.details.ack(c0) is False            # twice: nothing to ack
    assert not queues.details.is_pending("http://ex.com/0")
    c1 = queues.details.claim("w1")
    time.sleep(0.05)
    assert queues.details.requeue_stale(0.01) == 1    # w1 "died": its item goes back
    assert queues.details.claim("w2").item["url"] == "http://ex.com/2"
    c1b = queues.details.claim("w2")                  # back at the end of the queue
    assert c1b.item == c1.item and c1b.tries == 1      # a dead worker counts as a try
    assert queues.details.ack(c1) is False            # the dead worker's late ack does not count
    assert queues.details.ack(c1b) is True
    assert queues.details.claim("w3", timeout=0.2) is None


def test_a_page_that_kills_every_worker_ends_in_the_failed_set(queues):
    queues.details.push({"url": "http://ex.com/poison"})
    for _ in range(3):  # max_tries = 3
        assert queues.details.claim("w", timeout=1) is not None
        time.sleep(0.03)
        assert queues.details.requeue_stale(0.01) == 1
    assert queues.details.claim("w", timeout=0.2) is None
    [failed] = queues.details.failed()
    assert failed.tries == 3 and "worker died" in failed.reason


def test_retry_backs_off_then_fails_and_the_controller_requeues(queues):
    queues.details.push({"url": "http://ex.com/flaky"})
    c = queues.details.claim("w")
    assert queues.details.retry(c, delay=1.5, reason="HTTP 503") == "queued"
    assert queues.details.claim("w") is None          # backing off
    c = queues.details.claim("w", timeout=6)
    assert c is not None and c.tries == 1
    assert queues.details.retry(c, delay=0.0, reason="timeout") == "queued"
    c = queues.details.claim("w", timeout=1)
    assert c.tries == 2
    assert queues.details.retry(c, delay=0.0, reason="timeout again") == "failed"   # max_tries = 3
    assert queues.details.stats() == {"queued": 0, "claimed": 0, "failed": 1}
    [failed] = queues.details.failed()
    assert failed.item["url"] == "http://ex.com/flaky" and failed.reason == "timeout again" and failed.tries == 3
    assert queues.details.push({"url": "http://ex.com/flaky"}) is False   # still pending, not re-enqueued
    assert queues.details.requeue_failed(older_than_s=0, max_rounds=1) == 1
    c = queues.details.claim("w", timeout=1)
    assert c.tries == 0 and c.rounds == 1
    assert queues.details.fail(c, "HTTP 404") == "failed"                  # permanent failure: no retries
    assert queues.details.requeue_failed(older_than_s=0, max_rounds=1) == 0  # rounds used up
    assert queues.details.failed_count() == 1 and queues.details.pending_count() == 1


def test_parallel_claims_hand_out_each_item_once(queue_url, queues):
    urls = [f"http://ex.com/p/{i}" for i in range(120)]
    for u in urls:
        queues.details.push({"url": u})
    got: list[str] = []
    lock = threading.Lock()

    def work(name):
        q = open_queues(queue_url, SETTINGS)   # own connection, as a separate worker has
        while True:
            c = q.details.claim(name, timeout=0.3)
            if c is None:
                break
            with lock:
                got.append(c.item["url"])
            q.details.ack(c)
        q.close()

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == sorted(urls)


def test_items_survive_reopening(queue_url):
    q = open_queues(queue_url, SETTINGS)
    q.jobs.push({"j": 1}, priority=1)
    q.details.push({"url": "http://ex.com/kept"})
    q.seen.add_if_new("http://ex.com/done")
    q.close()
    q = open_queues(queue_url, SETTINGS)
    assert q.jobs.pop()["j"] == 1
    assert q.details.claim("w").item["url"] == "http://ex.com/kept"
    assert "http://ex.com/done" in q.seen
    q.close()


def test_unknown_queue_url():
    with pytest.raises(ValueError, match="unsupported queue_url"):
        open_queues("amqp://x", SETTINGS)


def test_unreachable_redis_is_reported():
    started = time.time()
    with pytest.raises(QueueUnavailable, match="cannot reach Redis"):
        open_queues("redis://127.0.0.1:1/0", Settings())
    assert time.time() - started < 20


def test_redis_restart_mid_run_loses_nothing(redis_url):
    url = f"{redis_url}?prefix={unique_prefix()}"
    q = open_queues(url, SETTINGS)
    try:
        for i in range(30):
            q.details.push({"url": f"http://ex.com/r/{i}"})
        for i in range(5):
            q.jobs.push({"j": i}, priority=i)
        held = q.details.claim("w-before")
        q.seen.add_if_new("http://ex.com/seen-before")
        errors: list[BaseException] = []
        acked: list[str] = []

        def worker():
            # keeps claiming and acking through the restart on the same client objects
            try:
                for _ in range(20):
                    c = q.details.claim("w-during", timeout=2)
                    if c is not None:
                        q.details.ack(c)
                        acked.append(c.item["url"])
                    time.sleep(0.1)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        t = threading.Thread(target=worker)
        t.start()
        time.sleep(0.3)
        subprocess.run(["bash", str(ROOT / "deploy" / "services.sh"), "restart", "redis"], check=True,
                       timeout=120, capture_output=True)
        t.join(timeout=120)
        assert not errors, errors
        stats = q.details.stats()
        assert stats["claimed"] == 1                        # the claim taken before the restart is still held
        assert stats["queued"] + len(acked) == 29           # nothing lost, nothing twice
        assert len(set(acked)) == len(acked)
        assert q.details.ack(held) is True
        assert [q.jobs.pop()["j"] for _ in range(5)] == [4, 3, 2, 1, 0]
        assert "http://ex.com/seen-before" in q.seen
        assert q.seen.add_if_new("http://ex.com/seen-after") is True   # scripts reloaded after the restart
    finally:
        for part in (q.jobs, q.details, q.seen):
            part.clear()
        q.close()
