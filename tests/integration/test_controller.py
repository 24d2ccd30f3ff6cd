"""The controller on both deployments: SQLite store + local queues, and MariaDB + Redis."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from crawler.config import Settings
from crawler.controller import Controller, adapt_interval, jobs_for
from crawler.queues import open_queues
from crawler.store import Channel, open_store
from tests.integration.storage_helpers import private_mysql_db, unique_prefix

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 3, 1, 8, 0, tzinfo=timezone.utc)
SETTINGS = Settings(bloom_capacity=10_000, bloom_error_rate=1e-3, flag_after_empty_runs=3,
                    claim_lease_s=60, failed_requeue_after_s=0, failed_max_rounds=2)


@pytest.fixture(params=["embedded", "distributed"])
def urls(request, tmp_path):
    """(db_url, queue_url) of one deployment."""
    if request.param == "embedded":
        yield f"sqlite:///{tmp_path}/mcrawl.sqlite3", f"local:///{tmp_path}/queue"
        return
    mysql_url = request.getfixturevalue("mysql_url")
    redis_url = request.getfixturevalue("redis_url")
    queue_url = f"{redis_url}?prefix={unique_prefix()}"
    with private_mysql_db(mysql_url) as db_url:
        yield db_url, queue_url
    q = open_queues(queue_url, SETTINGS)
    for part in (q.jobs, q.details, q.seen):
        part.clear()


@pytest.fixture
def env(urls):
    store = open_store(urls[0])
    queues = open_queues(urls[1], SETTINGS)
    yield store, queues, Controller(store, queues, SETTINGS, owner="ctl-test")
    queues.close()
    store.close()


def drain(queues) -> list[dict]:
    jobs = []
    while (job := queues.jobs.pop()) is not None:
        jobs.append(job)
    return jobs


def test_adapt_interval_bounds():
    assert adapt_interval(600, 60, 3600, 5) == 300
    assert adapt_interval(100, 60, 3600, 5) == 60
    assert adapt_interval(600, 60, 3600, 0) == 900
    assert adapt_interval(3000, 60, 3600, 0) == 3600
    assert adapt_interval(600, 60, 3600, None) == 600
    assert adapt_interval(10, 60, 3600, None) == 60


def test_jobs_for_expands_keywords_url_encoded():
    ch = Channel(name="s", kind="metasearch", entry_url="https://news.baidu.com/ns?word={keyword}&tn=news", id=4,
                 xpath_body="//div[@id='c']")
    jobs = jobs_for(ch, ["人工智能", "a b&c"])
    assert [j["url"] for j in jobs] == ["https://news.baidu.com/ns?word=%E4%BA%BA%E5%B7%A5%E6%99%BA%E8%83%BD&tn=news",
                                        "https://news.baidu.com/ns?word=a%20b%26c&tn=news"]
    assert jobs[0]["keyword"] == "人工智能" and jobs[0]["channel_id"] == 4 and jobs[0]["overrides"] == {"body": "//div[@id='c']"}


def test_dispatch_expands_metasearch_and_rejects_bad_rows(env):
    store, queues, ctl = env
    feed = store.add_channel(Channel(name="feed", kind="rss", entry_url="https://a.example.com/rss", priority=1,
                                     politeness_delay_s=0))
    meta = store.add_channel(Channel(name="meta", kind="metasearch", priority=5, politeness_delay_s=0,
                                     entry_url="https://s.example.com/search?q={keyword}"))
    store.add_keyword("芯片", meta)
    store.add_keyword("碳中和")
    # bad rows arrive by plain SQL, bypassing add_channel's checks
    store._run("INSERT INTO channels (name, kind, entry_url, detail_url_regex) VALUES (?, ?, ?, ?)",
               ["bad regex", "listpage", "https://b.example.com/", "news/(\\d+"])
    store._run("INSERT INTO channels (name, kind, entry_url) VALUES (?, ?, ?)",
               ["bad kind", "newsletter", "https://c.example.com/"])
    store._run("INSERT INTO channels (name, kind, entry_url) VALUES (?, ?, ?)",
               ["no keyword slot", "metasearch", "https://d.example.com/?q=x"])
    report = ctl.run_pass()
    assert (report.claimed, report.dispatched, report.jobs, report.rejected) == (5, 2, 3, 3)
    jobs = drain(queues)
    assert [j["keyword"] for j in jobs[:2]] == ["碳中和", "芯片"] or [j["keyword"] for j in jobs[:2]] == ["芯片", "碳中和"]
    assert jobs[2]["channel_id"] == feed and jobs[2]["url"] == "https://a.example.com/rss"   # lower priority last
    assert all(j["kind"] == "metasearch" and "{keyword}" not in j["url"] for j in jobs[:2])
    rejected = {r["message"] for r in store.recent_log(event="rejected")}
    assert any("'bad regex' rejected: detail_url_regex" in m for m in rejected)
    assert any("'bad kind' rejected: unknown kind 'newsletter'" in m for m in rejected)
    assert any("no {keyword} placeholder" in m for m in rejected)
    assert all(r["level"] == "error" for r in store.recent_log(event="rejected"))
    assert ctl.run_pass().claimed == 0        # nothing due again yet, the bad rows included


def test_keyword_jobs_are_spaced_by_politeness(env):
    store, queues, ctl = env
    meta = store.add_channel(Channel(name="meta", kind="metasearch", politeness_delay_s=3,
                                     entry_url="https://s.example.com/search?q={keyword}"))
    for kw in ("a", "b"):
        store.add_keyword(kw, meta)
    ctl.run_pass()
    assert queues.jobs.pop() is not None
    assert queues.jobs.pop() is None               # the second search waits for the delay
    assert queues.jobs.pop(timeout=8) is not None


def test_new_rows_are_picked_up_without_restart(env):
    store, queues, ctl = env
    assert ctl.run_pass().claimed == 0
    store._run("INSERT INTO channels (name, kind, entry_url) VALUES (?, ?, ?)", ["late", "sitemap", "https://e.example.com/sitemap.xml"])
    report = ctl.run_pass()
    assert report.dispatched == 1 and drain(queues)[0]["kind"] == "sitemap"


def test_interval_adapts_to_yield_and_idle_channels_are_flagged(env):
    store, queues, ctl = env
    cid = store.add_channel(Channel(name="feed", kind="rss", entry_url="https://a.example.com/rss",
                                    interval_s=400, min_interval_s=100, max_interval_s=1000))
    now = T0
    ctl.run_pass(now)                              # first run: nothing known, interval kept
    ch = store.get_channel(cid)
    assert ch.interval_s == 400 and ch.next_run_at == now + timedelta(seconds=400) and ch.claimed_by is None
    store.log_crawl(cid, "job", found=20, new=7, at=now + timedelta(seconds=30))     # the spider's report
    store.log_crawl(cid, "extract", extracted=6, invalid=1, at=now + timedelta(seconds=60))
    assert ctl.run_pass(now + timedelta(seconds=399)).claimed == 0                     # not due yet
    now += timedelta(seconds=400)
    ctl.run_pass(now)
    ch = store.get_channel(cid)
    assert ch.interval_s == 200 and (ch.last_found, ch.last_new, ch.last_extracted, ch.last_invalid) == (20, 7, 6, 1)
    assert ch.empty_runs == 0
    intervals = []
    for _ in range(3):                             # three runs that bring nothing
        now = ch.next_run_at
        store.log_crawl(cid, "job", found=20, new=0, at=now - timedelta(seconds=5))
        ctl.run_pass(now)
        ch = store.get_channel(cid)
        intervals.append(ch.interval_s)
    assert intervals == [300, 450, 675]
    assert ch.empty_runs == 3 and ch.flagged is True
    [flag] = store.recent_log(cid, event="flagged")
    assert flag["level"] == "warning" and "no new articles in 3 runs" in flag["message"]
    now = ch.next_run_at
    ctl.run_pass(now)                              # a fourth empty run: flagged once only
    assert len(store.recent_log(cid, event="flagged")) == 1
    store.log_crawl(cid, "job", found=3, new=2, at=now + timedelta(seconds=1))
    ctl.run_pass(store.get_channel(cid).next_run_at)
    ch = store.get_channel(cid)
    assert ch.flagged is False and ch.empty_runs == 0
    assert store.recent_log(cid, event="unflagged")


def test_two_controllers_never_dispatch_one_run_twice(urls):
    setup = open_store(urls[0])
    ids = [setup.add_channel(Channel(name=f"c{i}", kind="rss", entry_url=f"https://n{i}.example.com/rss"))
           for i in range(30)]
    barrier = threading.Barrier(2)
    reports = {}

    def controller(name):
        store = open_store(urls[0])
        queues = open_queues(urls[1], SETTINGS)
        ctl = Controller(store, queues, SETTINGS, owner=name, batch=4)
        barrier.wait()
        reports[name] = ctl.run_pass()
        queues.close()
        store.close()

    threads = [threading.Thread(target=controller, args=(f"ctl-{i}",)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.dispatched for r in reports.values()) == 30
    q = open_queues(urls[1], SETTINGS)
    jobs = drain(q)
    assert sorted(j["channel_id"] for j in jobs) == sorted(ids)          # each channel exactly once
    dispatches = setup.recent_log(event="dispatch", limit=100)
    assert sorted(r["channel_id"] for r in dispatches) == sorted(ids)
    q.close()
    setup.close()


def test_failed_and_stale_detail_items_are_requeued(env):
    store, queues, ctl = env
    queues.details.push({"url": "http://ex.com/failed"})
    c = queues.details.claim("w")
    queues.details.fail(c, "HTTP 500")
    queues.details.push({"url": "http://ex.com/stale"})
    queues.details.claim("dead-worker")
    ctl.settings = dataclasses.replace(SETTINGS, detail_claim_timeout_s=0.0)
    time.sleep(0.05)
    report = ctl.run_pass()
    assert (report.failed_requeued, report.stale_requeued) == (1, 1)
    assert queues.details.stats() == {"queued": 2, "claimed": 0, "failed": 0}


def test_controller_command_once(tmp_path):
    env = dict(os.environ, MCRAWL_DB=f"sqlite:///{tmp_path}/db.sqlite3", MCRAWL_QUEUE=f"local:///{tmp_path}/q",
               MCRAWL_DATA=str(tmp_path), MCRAWL_BLOOM_N="10000")
    store = open_store(env["MCRAWL_DB"])
    store.add_channel(Channel(name="feed", kind="rss", entry_url="https://a.example.com/rss"))
    store.close()
    out = subprocess.run([sys.executable, "-m", "crawler.cli", "controller", "--once"], env=env, cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "claimed 1, dispatched 1 (1 jobs)" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "crawler.cli", "controller", "--once"],
                         env=dict(env, MCRAWL_BLOOM_P="7"), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "bloom_error_rate" in bad.stdout
