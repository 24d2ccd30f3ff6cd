"""The product end to end on real servers: a channel row INSERTed by SQL into MariaDB is picked up by
`mcrawl controller`, crawled by `mcrawl spiders`, extracted and indexed by `mcrawl worker` (all three
as separate processes, as deployed), and the articles are found by a query in Elasticsearch.

The internet is a local site farm: the demo news site and a second "site" on another port.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pymysql
import pytest

from crawler.demo.server import SITE_DIR, LocalSite, Response, demo_site, file_routes
from crawler.store import open_store
from crawler.urls import canonicalize
from workers.index import open_index

ROOT = Path(__file__).resolve().parents[2]


def mysql_connect(url: str, database: str | None = None):
    p = urlsplit(url)
    return pymysql.connect(host=p.hostname, port=p.port or 3306, user=p.username, password=p.password or "",
                           database=database, charset="utf8mb4", autocommit=True)


@pytest.fixture
def fresh_db(mysql_url):
    """A database of its own (the test user may create `mcrawl%` databases), dropped afterwards."""
    name = f"mcrawl_e2e_{uuid.uuid4().hex[:8]}"
    conn = mysql_connect(mysql_url)
    with conn.cursor() as cur:
        cur.execute(f"CREATE DATABASE {name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
    db_url = mysql_url.rsplit("/", 1)[0] + "/" + name
    open_store(db_url).close()  # applies the schema (sql/migrations)
    yield db_url, name
    with conn.cursor() as cur:
        cur.execute(f"DROP DATABASE IF EXISTS {name}")
    conn.close()


@pytest.fixture
def farm():
    news = demo_site().start()
    # a second site on another port: a list page linking to articles that live on it
    other_routes = {"/robots.txt": Response(200, b"", {"Content-Type": "text/plain"}),
                    "/latest/": Response(200, (
                        "<html><body><div class='nav'><a href='/'>home</a></div><ul>"
                        "<li><a href='../story/1.html'>one</a></li><li><a href='/story/2.html?utm_medium=x'>two</a></li>"
                        "</ul></body></html>").encode(), {"Content-Type": "text/html; charset=utf-8"})}
    demo_pages = file_routes(SITE_DIR)
    other_routes["/story/1.html"] = demo_pages["/news/zh-3.html"]
    other_routes["/story/2.html"] = demo_pages["/news/en-4.html"]
    other = LocalSite(other_routes).start()
    yield news, other
    news.stop()
    other.stop()


def test_channel_row_by_sql_to_articles_found_in_elasticsearch(fresh_db, farm, redis_url, es_url, tmp_path):
    db_url, db_name = fresh_db
    news, other = farm
    tag = uuid.uuid4().hex[:8]
    queue_url = f"{redis_url}{'&' if '?' in redis_url else '?'}prefix=test-e2e-{tag}"
    alias = f"test-e2e-{tag}"
    index_url = f"{es_url}?alias={alias}"

    # Adding a source = one INSERT. The second row's name is SQL-like text that must stay text.
    sql_like = "x'); DROP TABLE channels; --"
    conn = mysql_connect(db_url.rsplit("/", 1)[0], db_name)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO channels (name, kind, entry_url, site, tz, politeness_delay_s) VALUES"
                    " ('demo feed', 'rss', %s, 'demo-news', 'Asia/Shanghai', 0.1)", (news.url("/rss.xml"),))
        cur.execute("INSERT INTO channels (name, kind, entry_url, detail_url_regex, politeness_delay_s) VALUES"
                    " (%s, 'listpage', %s, %s, 0.1)", (sql_like, other.url("/latest/"), r"/story/\d+\.html"))
        # a broken row: rejected with a clear message, the others go on
        cur.execute("INSERT INTO channels (name, kind, entry_url, detail_url_regex) VALUES"
                    " ('broken', 'listpage', %s, '([unclosed')", (other.url("/latest/"),))

    env = {**os.environ, "MCRAWL_DB": db_url, "MCRAWL_QUEUE": queue_url, "MCRAWL_INDEX": index_url,
           "MCRAWL_BLOOM_N": "100000",  # 240 KB in Redis instead of 24 MB
           "MCRAWL_DATA": str(tmp_path), "MCRAWL_CONTROLLER_INTERVAL": "1"}
    cli = [sys.executable, "-m", "crawler.cli"]
    spiders = subprocess.Popen(cli + ["spiders", "--log-level", "WARNING"], env=env, cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    worker = subprocess.Popen(cli + ["worker", "--concurrency", "2"], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    controller = subprocess.Popen(cli + ["controller"], env=env, cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    index = open_index(index_url)
    expected = {canonicalize(news.url(f"/news/{p}.html")) for p in ("zh-1", "zh-2", "en-1", "en-2")}
    expected |= {canonicalize(other.url("/story/1.html")), canonicalize(other.url("/story/2.html"))}
    try:
        deadline = time.monotonic() + 90
        found: set[str] = set()
        while time.monotonic() < deadline and found != expected:
            time.sleep(1)
            for proc, name in ((spiders, "spiders"), (worker, "worker"), (controller, "controller")):
                assert proc.poll() is None, f"{name} died: {proc.communicate()[1][-3000:]}"
            try:
                index.refresh()
                found = {h.url for h in index.search("", size=50).hits}
            except Exception:
                continue  # the worker creates the index on start
    finally:
        for proc in (controller, spiders, worker):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        outputs = {}
        for proc, name in ((controller, "controller"), (spiders, "spiders"), (worker, "worker")):
            try:
                outputs[name] = proc.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                outputs[name] = proc.communicate()
    try:
        assert found == expected, f"indexed {sorted(found)}; worker log: {outputs['worker'][1][-2000:]}"
        # found by a query, with highlights
        hits = index.search("古镇")
        assert hits.total >= 1 and hits.hits[0].url == canonicalize(news.url("/news/zh-1.html"))
        assert "<em>" in (hits.hits[0].snippet or "")
        hits = index.search("trees park")
        assert [h.url for h in hits.hits] == [canonicalize(other.url("/story/2.html"))]
        assert hits.hits[0].channel_kind == "listpage"
        # the crawl log in MariaDB tells what happened, per channel
        store = open_store(db_url)
        channels = {c.name: c for c in store.list_channels()}
        assert set(channels) == {"demo feed", sql_like, "broken"}  # the SQL-like name is data, nothing dropped
        feed_jobs = store.recent_log(channels["demo feed"].id, event="job")
        assert feed_jobs and feed_jobs[-1]["found"] == 4 and feed_jobs[-1]["new"] == 4
        extracted = sum(r["extracted"] for r in store.recent_log(channels["demo feed"].id, event="extract"))
        assert extracted == 4
        rejected = store.recent_log(channels["broken"].id, event="rejected")
        assert rejected and "detail_url_regex" in rejected[0]["message"]
        store.close()
        # no process crashed; the worker and spiders shut down cleanly on SIGTERM
        assert worker.returncode == 0, outputs["worker"][1][-2000:]
        assert spiders.returncode == 0, outputs["spiders"][1][-2000:]
    finally:
        import redis

        rclient = redis.Redis.from_url(redis_url.split("?", 1)[0])
        keys = list(rclient.scan_iter(match=f"test-e2e-{tag}:*", count=1000))
        if keys:
            rclient.delete(*keys)
        rclient.close()
        client = index.client.options(ignore_status=404)
        if client.indices.exists_alias(name=alias):
            client.indices.delete(index=",".join(client.indices.get_alias(name=alias).keys()))
        client.indices.delete_index_template(name=alias)
        index.close()
