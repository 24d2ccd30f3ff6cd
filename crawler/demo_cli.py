"""`mcrawl demo`: the whole pipeline offline, in one process, in well under a minute.

Starts the demo news site on 127.0.0.1 (a free port), registers its RSS feed, list page and news
sitemap as channels in a SQLite store, then runs the real components one after the other — one
controller pass, the Scrapy spiders until the job queue is drained, the extraction worker until
the detail queue is drained — and finally searches the SQLite FTS index. Embedded mode: no server
is needed; everything lands under --data (default ./var/demo).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import sys
import time
from pathlib import Path

DEMO_QUERIES = ("古镇 数字化", "夜市", "公交", "solar farm", "library tools", "night trains")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", default="var/demo", help="where the demo's database, queue and index go")
    parser.add_argument("--keep", action="store_true", help="keep data of an earlier demo run (default: start fresh)")
    parser.add_argument("--query", action="append", help="search for this after the crawl (repeatable)")
    serve = parser.add_mutually_exclusive_group()
    serve.add_argument("--serve", dest="serve", action="store_true", default=None,
                       help="keep the web console and the demo site running afterwards until Ctrl-C "
                            "(the default on a terminal)")
    serve.add_argument("--no-serve", dest="serve", action="store_false",
                       help="print the console URL and exit (the default when not on a terminal)")


def _say(text: str = "") -> None:
    print(text, flush=True)


def _hit(hit, name: str):
    return hit.get(name) if isinstance(hit, dict) else getattr(hit, name, None)


def highlight(snippet: str | None) -> str:
    """<em>word</em> -> terminal bold (or [word] when output is not a terminal)."""
    snippet = re.sub(r"\s+", " ", snippet or "").strip()
    if sys.stdout.isatty():
        return snippet.replace("<em>", "\033[1;33m").replace("</em>", "\033[0m")
    return snippet.replace("<em>", "[").replace("</em>", "]")


def start_console(settings) -> tuple[str, str]:
    """The web console over the demo's data in a background thread: (its URL, the admin password)."""
    import secrets

    from crawler.web.app import serve_in_thread

    password = secrets.token_urlsafe(9)
    return serve_in_thread(settings, "127.0.0.1", 0, admin_password=password), password


def demo_channels(site) -> list:
    from crawler.store import Channel

    common = {"site": "demo-news.local", "tz": "Asia/Shanghai", "politeness_delay_s": 0.05,
              "interval_s": 600, "min_interval_s": 60}
    return [
        Channel(name="demo: RSS feed", kind="rss", entry_url=site.url("/rss.xml"), **common),
        Channel(name="demo: list page", kind="listpage", entry_url=site.url("/list.html"),
                detail_url_regex=r"/news/[a-z]{2}-\d+\.html", **common),
        Channel(name="demo: news sitemap", kind="sitemap", entry_url=site.url("/sitemap.xml"), **common),
    ]


def run(args: argparse.Namespace) -> int:
    import logging

    from crawler.config import load_settings
    from crawler.controller import Controller
    from crawler.demo.server import demo_site
    from crawler.queues import open_queues
    from crawler.spiders_cli import run_spiders
    from crawler.store import open_store
    from workers.fetch import Fetcher
    from workers.index import open_index
    from workers.worker import Worker

    logging.basicConfig(level=logging.WARNING, format="%(name)s %(levelname)s %(message)s")
    for handler in logging.getLogger().handlers:
        # Scrapy lowers the root logger's level for its run; the handler keeps the demo's output clean.
        handler.setLevel(logging.WARNING)
    started = time.monotonic()
    data = Path(args.data).resolve()
    if data.exists() and not args.keep:
        shutil.rmtree(data)
    data.mkdir(parents=True, exist_ok=True)
    # Embedded mode, whatever MCRAWL_* says: the demo never touches a real deployment's data.
    env = {"MCRAWL_DB": f"sqlite:///{data}/channels.sqlite3", "MCRAWL_QUEUE": f"local:///{data}/queue",
           "MCRAWL_INDEX": f"sqlite:///{data}/index.sqlite3", "MCRAWL_DATA": str(data)}
    settings = load_settings(env={**{k: v for k, v in os.environ.items() if k == "MCRAWL_TZ"}, **env})

    site = demo_site().start()
    _say(f"1. demo news site running at {site.base_url}/ (RSS {site.url('/rss.xml')}, list page, news sitemap)")
    store = open_store(settings.db_url)
    queues = open_queues(settings.queue_url, settings)
    index = open_index(settings.index_url)
    index.ensure()
    try:
        for channel in demo_channels(site):
            existing = store.get_channel_by_name(channel.name)
            if existing is None:
                store.add_channel(channel)
            else:  # --keep: the site has a new port this time
                store.update_channel(existing.id, entry_url=channel.entry_url, next_run_at=None)
        _say(f"2. channels in {settings.db_url}:")
        for ch in store.list_channels():
            _say(f"     #{ch.id} {ch.kind:9} {ch.name}  {ch.entry_url}")

        report = Controller(store, queues, settings).run_pass()
        _say(f"3. controller pass: {report.summary()}")

        t0 = time.monotonic()
        totals = run_spiders(queues, store, until_idle=True, log_level="ERROR",
                             extra_settings={"LOGSTATS_INTERVAL": 0})
        # Scrapy re-configured the root logger for its run; back to warnings only for the rest.
        logging.getLogger().setLevel(logging.WARNING)
        _say(f"4. spiders: {totals.get('jobs', 0)} jobs, {totals.get('found', 0)} links found, "
             f"{totals.get('new', 0)} new detail URLs queued, {totals.get('errors', 0)} errors "
             f"({time.monotonic() - t0:.1f} s)")
        for row in reversed(store.recent_log(event="job", limit=10)):
            _say(f"     crawl_log: {row['message'][:150]}")

        t0 = time.monotonic()
        worker = Worker(queues, index, store, concurrency=4, batch_size=10, flush_s=0.3,
                        fetcher=Fetcher(timeout_s=10), default_tz=settings.default_tz)
        stats = worker.run(until_idle=True, idle_grace_s=0.5)
        _say(f"5. worker: {stats['claimed']} pages fetched, {stats['indexed']} articles indexed, "
             f"{stats['invalid']} dropped as invalid{' ' + str(stats['invalid_reasons']) if stats['invalid'] else ''}, "
             f"{sum(stats['errors'].values())} errors ({time.monotonic() - t0:.1f} s; fetch {stats['fetch_s']:.2f} s,"
             f" extract {stats['extract_s']:.2f} s, index {stats['index_s']:.2f} s)")

        _say("6. searches (SQLite FTS5, jieba tokens):")
        for query in args.query or DEMO_QUERIES:
            results = index.search(query, size=3)
            total = _hit(results, "total")
            _say(f"   » {query!r}: {total} hit(s)")
            for hit in (_hit(results, "hits") or [])[:3]:
                _say(f"       {_hit(hit, 'title')}  [{_hit(hit, 'pubdate') or 'no date'}]")
                _say(f"         {_hit(hit, 'url')}")
                _say(f"         …{highlight(_hit(hit, 'snippet'))[:160]}…")
        _say(f"7. data: channels {data / 'channels.sqlite3'}, queue {data / 'queue'}, index {data / 'index.sqlite3'}")
        _say(f"   search it again: MCRAWL_DB={env['MCRAWL_DB']} MCRAWL_INDEX={env['MCRAWL_INDEX']} "
             f"MCRAWL_QUEUE={env['MCRAWL_QUEUE']} .venv/bin/mcrawl search 古镇")
        _say(f"demo finished in {time.monotonic() - started:.1f} s")
        serve = args.serve if args.serve is not None else (sys.stdin.isatty() and sys.stdout.isatty())
        console_url, password = start_console(settings)
        _say(f"8. web console: {console_url}  (search is open; management log-in: admin / {password})")
        if serve:
            _say(f"   serving the console and the demo site at {site.base_url}/ — Ctrl-C to stop")
            # Scrapy's run left its own SIGINT/SIGTERM handlers behind (they only stop a crawl):
            # give Ctrl-C and `kill` their usual meaning back.
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                pass
        else:
            _say("   (the console stops with this command; `mcrawl demo --serve` keeps it running)")
        ok = stats["indexed"] > 0
        return 0 if ok else 1
    finally:
        site.stop()
        queues.close()
        store.close()
        close = getattr(index, "close", None)
        if close:
            close()
