"""The `mcrawl spiders` process against a real Redis, with a local HTTP site standing in for the web.

One spider run (a subprocess: Twisted's reactor cannot restart inside pytest) takes a batch of jobs
covering every kind and the bad inputs (malformed feed, feed that is HTML, list page with 0 links,
404/500/timeout, redirect loop, 30 MB page, wrong charset, invalid regex, robots.txt); the tests
then read what it reported to crawl_log and what it put in the detail queue.
"""
from __future__ import annotations

import gzip
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from crawler.config import Settings
from crawler.demo.server import LocalSite, Response
from crawler.queues import open_queues
from crawler.store import Channel, open_store
from crawler.urls import canonicalize
from tests.integration.storage_helpers import BLOOM_N, drop_redis_prefix

ROOT = Path(__file__).resolve().parents[2]
HTML = {"Content-Type": "text/html; charset=utf-8"}
XML = {"Content-Type": "application/xml"}


def rss(*links: str) -> bytes:
    items = "".join(f"<item><title>t{i}</title><link>{link}</link></item>" for i, link in enumerate(links))
    return f'<?xml version="1.0"?><rss version="2.0"><channel><title>f</title>{items}</channel></rss>'.encode()


def list_page(*hrefs: str, extra: str = "") -> bytes:
    links = "".join(f'<li><a href="{h}">item {i}</a></li>' for i, h in enumerate(hrefs))
    return f"<html><body><div class='nav'><a href='/about.html'>about</a></div><ul>{links}</ul>{extra}</body></html>".encode()


def routes() -> dict:
    sitemap_news = (b'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
                    b'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"><url><loc>{{BASE}}/sm/a1.html</loc>'
                    b'<news:news><news:title>x</news:title></news:news></url><url><loc>{{BASE}}/sm/a2.html</loc></url></urlset>')
    def sitemap_gz(path, headers):  # gzipped: the server cannot fill in {{BASE}}, so use the Host header
        return Response(200, gzip.compress(
            f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f'<url><loc>http://{headers["Host"]}/sm/b1.html</loc></url></urlset>'.encode()),
            {"Content-Type": "application/x-gzip"})

    gbk_list = ('<html><head><meta charset="gbk"><title>新闻列表</title></head><body>'
                '<a href="/gbk/新闻-1.html">第一条新闻</a><a href="gbk/2.html">第二条</a></body></html>').encode("gbk")
    return {
        "/robots.txt": Response(200, b"User-agent: *\nDisallow: /private/\n", {"Content-Type": "text/plain"}),
        "/feed.xml": Response(200, rss("{{BASE}}/news/1.html?utm_source=rss", "/news/2.html", "{{BASE}}/news/3.html#c"), XML),
        "/atom.xml": Response(200, b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>a</title>'
                                   b'<entry><title>e</title><link href="{{BASE}}/atom/1.html"/></entry>'
                                   b'<entry><title>f</title><link rel="alternate" href="/atom/2.html"/></entry></feed>', XML),
        "/broken.xml": Response(200, b'<rss><channel><item><link>{{BASE}}/broken/1.html</link></item>'
                                     b'<item><link>{{BASE}}/broken/2.html</link>', XML),
        "/garbage.xml": Response(200, b"<rss><chan<<&&", XML),
        "/page.html": Response(200, b"<!DOCTYPE html><html><body><p>not a feed</p></body></html>", HTML),
        "/list.html": Response(200, list_page("news/4.html", "./news/5.html?from=list", "/news/6.html",
                                               "http://elsewhere.invalid/x.html", "javascript:void(0)"), HTML),
        "/empty-list.html": Response(200, list_page("/about.html", "/contact.html"), HTML),
        # declared utf-8 in the header, really GBK (with its own <meta charset>)
        "/gbk-list.html": Response(200, gbk_list, {"Content-Type": "text/html; charset=utf-8"}),
        "/search": lambda path, headers: Response(200, (
            "<html><body><div class='ads'><a href='/ad/1.html'>ad</a></div><div id='results'>"
            f"<h3><a href='/found/{path.rsplit('=', 1)[-1]}-1.html'>r1</a></h3>"
            f"<h3><a href='/found/{path.rsplit('=', 1)[-1]}-2.html'>r2</a></h3></div></body></html>").encode(), HTML),
        "/sitemap_index.xml": Response(200, b'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                                            b'<sitemap><loc>{{BASE}}/sitemap-news.xml</loc></sitemap>'
                                            b'<sitemap><loc>{{BASE}}/sitemap2.xml.gz</loc></sitemap></sitemapindex>', XML),
        "/sitemap-news.xml": Response(200, sitemap_news, XML),
        "/sitemap2.xml.gz": sitemap_gz,
        "/error500.xml": Response(500, b"<html><body>oops</body></html>", HTML),
        "/slow.xml": Response(200, rss("{{BASE}}/slow/1.html"), XML, delay_s=2.5),
        "/loop-a.html": Response(302, b"", {"Location": "/loop-b.html"}),
        "/loop-b.html": Response(302, b"", {"Location": "/loop-a.html"}),
        "/huge.html": Response(200, b"<html><body>" + b"<a href='/news/9.html'>x</a>" * 1_200_000 + b"</body></html>", HTML),
        "/private/list.html": Response(200, list_page("/news/7.html"), HTML),
    }


JOBS = {
    # name: (kind, path, extra job fields)
    "rss": ("rss", "/feed.xml", {}),
    "atom": ("rss", "/atom.xml", {}),
    "broken_feed": ("rss", "/broken.xml", {}),
    "garbage_feed": ("rss", "/garbage.xml", {}),
    "html_feed": ("rss", "/page.html", {}),
    "list": ("listpage", "/list.html", {"detail_url_regex": r"/news/\d+\.html"}),
    "empty_list": ("listpage", "/empty-list.html", {"detail_url_regex": r"/news/\d+\.html"}),
    "gbk_list": ("listpage", "/gbk-list.html", {"detail_url_regex": r"/gbk/"}),
    "bad_regex": ("listpage", "/list.html", {"detail_url_regex": r"/news/(\d+"}),
    "search": ("metasearch", "/search?q={keyword}", {"detail_xpath": "//div[@id='results']//a", "keyword": "solar"}),
    "sitemap": ("sitemap", "/sitemap_index.xml", {}),
    "not_found": ("rss", "/missing.xml", {}),
    "server_error": ("rss", "/error500.xml", {}),
    "timeout": ("rss", "/slow.xml", {}),
    "redirect_loop": ("listpage", "/loop-a.html", {"detail_url_regex": "news"}),
    "huge": ("listpage", "/huge.html", {"detail_url_regex": "news"}),
    "robots": ("listpage", "/private/list.html", {"detail_url_regex": "news"}),
}


def run_spiders(env: dict, timeout_s: float = 1.0) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "crawler.cli", "spiders", "--until-idle", "--log-level", "WARNING",
           "--timeout", str(timeout_s)]
    proc = subprocess.run(cmd, env={**os.environ, "MCRAWL_BLOOM_N": str(BLOOM_N), **env}, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc


def drain(queues) -> list[dict]:
    items = []
    while (claim := queues.details.claim("test", 0)) is not None:
        items.append(claim.item)
        queues.details.ack(claim)
    return items


@pytest.fixture(scope="module")
def crawl(redis_url, tmp_path_factory):
    """Run every job of JOBS through one spider process; returns what came out."""
    tmp = tmp_path_factory.mktemp("spiders")
    prefix = f"test-spiders-{uuid.uuid4().hex[:8]}"
    queue_url = f"{redis_url}{'&' if '?' in redis_url else '?'}prefix={prefix}"
    db_url = f"sqlite:///{tmp}/db.sqlite3"
    settings = Settings(queue_url=queue_url, db_url=db_url, bloom_capacity=BLOOM_N)
    queues = open_queues(queue_url, settings)
    store = open_store(db_url)
    site = LocalSite(routes()).start()
    polite = LocalSite({"/robots.txt": Response(200, b"", {"Content-Type": "text/plain"}),
                        **{f"/l{i}.html": Response(200, list_page(f"/p/{i}.html"), HTML) for i in range(4)}}).start()
    try:
        ids = {}
        # already finished before this run: the Bloom filter must keep it out of the queue
        queues.seen.add_if_new(canonicalize(site.url("/news/6.html")))
        for name, (kind, path, extra) in JOBS.items():
            # the row only names the channel (the store validates it); the job carries the fields under test
            ids[name] = store.add_channel(Channel(name=name, kind=kind, entry_url=site.url(path),
                                                  detail_url_regex=".", politeness_delay_s=0.0))
            queues.jobs.push({"channel_id": ids[name], "kind": kind, "url": site.url(path.replace(
                "{keyword}", extra.get("keyword", ""))), "politeness_delay_s": 0.0, **extra})
        # the list page again in the same run: list pages are never deduplicated
        queues.jobs.push({"channel_id": ids["list"], "kind": "listpage", "url": site.url("/list.html"),
                          "detail_url_regex": r"/news/\d+\.html", "politeness_delay_s": 0.0})
        ids["polite"] = store.add_channel(Channel(name="polite", kind="listpage", entry_url=polite.url("/l0.html"),
                                                  detail_url_regex="/p/"))
        for i in range(4):
            queues.jobs.push({"channel_id": ids["polite"], "kind": "listpage", "url": polite.url(f"/l{i}.html"),
                              "detail_url_regex": "/p/", "politeness_delay_s": 0.4})
        proc = run_spiders({"MCRAWL_QUEUE": queue_url, "MCRAWL_DB": db_url})
        logs = {}
        for row in store.recent_log(limit=200, event="job"):
            logs.setdefault(row["channel_id"], []).append(row)
        by_name = {name: logs.get(cid, []) for name, cid in ids.items()}
        items = drain(queues)
        yield {"site": site, "polite": polite, "logs": by_name, "items": items, "ids": ids,
               "stdout": proc.stdout, "queues": queues}
    finally:
        site.stop()
        polite.stop()
        drop_redis_prefix(redis_url, prefix)
        store.close()


def one(crawl, name) -> dict:
    rows = crawl["logs"][name]
    assert len(rows) == 1, f"{name}: expected one job report, got {rows}"
    return rows[0]


def queued_urls(crawl, name) -> set[str]:
    return {i["url"] for i in crawl["items"] if i["channel_id"] == crawl["ids"][name]}


def test_rss_links_are_canonicalised_resolved_and_queued_with_channel(crawl):
    site = crawl["site"]
    row = one(crawl, "rss")
    assert (row["found"], row["errors"]) == (3, 0)
    assert queued_urls(crawl, "rss") == {site.url("/news/1.html"), site.url("/news/2.html"), site.url("/news/3.html")}
    item = next(i for i in crawl["items"] if i["url"] == site.url("/news/1.html"))
    assert item["channel_kind"] == "rss" and item["url_id"] and item["site"] == "127.0.0.1"


def test_atom_feed(crawl):
    assert queued_urls(crawl, "atom") == {crawl["site"].url("/atom/1.html"), crawl["site"].url("/atom/2.html")}


def test_malformed_feed_recovers_entries_with_a_warning(crawl):
    row = one(crawl, "broken_feed")
    assert row["found"] == 2 and row["errors"] == 0 and "not well-formed" in row["message"]


def test_unparseable_feed_is_a_clear_error(crawl):
    row = one(crawl, "garbage_feed")
    assert row["errors"] == 1 and row["level"] == "error" and "malformed feed" in row["message"]


def test_feed_that_is_html_is_a_clear_error(crawl):
    row = one(crawl, "html_feed")
    assert row["errors"] == 1 and "returned an HTML page, not RSS/Atom" in row["message"]


def test_list_page_resolves_relative_links_filters_by_regex_and_is_never_deduplicated(crawl):
    site = crawl["site"]
    rows = crawl["logs"]["list"]
    assert len(rows) == 2, "the list page must be fetched by both jobs"
    assert crawl["site"].hits["/list.html"] >= 3  # twice for `list`, once for `bad_regex`
    assert all(r["found"] == 3 for r in rows)
    # news/6 was finished before (Bloom filter); 4 and 5 queued once although found twice
    assert queued_urls(crawl, "list") == {site.url("/news/4.html"), site.url("/news/5.html")}
    assert sorted(r["new"] for r in rows) == [0, 2]


def test_list_page_with_zero_links_is_logged_not_an_error(crawl):
    row = one(crawl, "empty_list")
    assert (row["found"], row["errors"]) == (0, 0)
    assert "0 links" in row["message"] and row["level"] == "warning"


def test_wrong_charset_in_header_still_finds_links(crawl):
    urls = queued_urls(crawl, "gbk_list")
    assert len(urls) == 2
    assert any("%E6%96%B0%E9%97%BB" in u for u in urls), urls  # 新闻 decoded as GBK, then percent-encoded


def test_invalid_regex_is_reported(crawl):
    row = one(crawl, "bad_regex")
    assert row["errors"] == 1 and "invalid detail_url_regex" in row["message"]


def test_metasearch_uses_xpath_and_keyword(crawl):
    site = crawl["site"]
    assert queued_urls(crawl, "search") == {site.url("/found/solar-1.html"), site.url("/found/solar-2.html")}
    assert one(crawl, "search")["keyword"] == "solar"


def test_sitemap_index_news_sitemap_and_gzip(crawl):
    site = crawl["site"]
    assert queued_urls(crawl, "sitemap") == {site.url("/sm/a1.html"), site.url("/sm/a2.html"), site.url("/sm/b1.html")}
    assert one(crawl, "sitemap")["errors"] == 0


@pytest.mark.parametrize("name, words", [
    ("not_found", "HTTP 404"),
    ("server_error", "HTTP 500"),
    ("timeout", "timeout"),
    ("redirect_loop", "fetch"),
    ("huge", "size cap"),
    ("robots", "robots"),
])
def test_fetch_failures_end_the_job_with_a_clear_error(crawl, name, words):
    row = one(crawl, name)
    assert row["errors"] == 1 and row["found"] == 0, row
    assert words.lower() in row["message"].lower(), row["message"]


def test_server_errors_are_retried(crawl):
    assert crawl["site"].hits["/error500.xml"] == 3  # RETRY_TIMES = 2


def test_politeness_delay_spaces_requests_to_one_host(crawl):
    times = sorted(t for t, path in crawl["polite"].hit_times if path.startswith("/l"))
    assert len(times) == 4
    gaps = [b - a for a, b in zip(times, times[1:])]
    assert min(gaps) >= 0.3, gaps  # 0.4 s by the slot; margin for scheduling on a loaded machine


def test_until_idle_waits_for_jobs_whose_time_has_not_come(redis_url, tmp_path):
    """Drain mode must not close while a job waits for its not-before time (spaced keyword searches)."""
    import time as _time

    prefix = f"test-notbefore-{uuid.uuid4().hex[:8]}"
    queue_url = f"{redis_url}{'&' if '?' in redis_url else '?'}prefix={prefix}"
    db_url = f"sqlite:///{tmp_path}/db.sqlite3"
    queues = open_queues(queue_url, Settings(queue_url=queue_url, db_url=db_url, bloom_capacity=BLOOM_N))
    with LocalSite({"/feed.xml": Response(200, rss("/n/1.html"), XML),
                    "/later.xml": Response(200, rss("/n/2.html"), XML)}) as site:
        queues.jobs.push({"channel_id": 1, "kind": "rss", "url": site.url("/feed.xml"), "politeness_delay_s": 0})
        queues.jobs.push({"channel_id": 1, "kind": "rss", "url": site.url("/later.xml"), "politeness_delay_s": 0},
                         not_before=_time.time() + 3)
        try:
            run_spiders({"MCRAWL_QUEUE": queue_url, "MCRAWL_DB": db_url})
            assert site.hits.get("/later.xml") == 1
            assert {i["url"] for i in drain(queues)} == {site.url("/n/1.html"), site.url("/n/2.html")}
        finally:
            drop_redis_prefix(redis_url, prefix)
