"""`mcrawl spiders`: the Scrapy process that turns jobs into detail URLs."""
from __future__ import annotations

import argparse
import logging
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="config file (TOML/YAML); MCRAWL_* variables override it")
    parser.add_argument("--until-idle", action="store_true",
                        help="exit once the job queue is empty and no job is in flight (default: run forever)")
    parser.add_argument("--max-jobs", type=int, default=0, help="exit after this many jobs (0 = no limit)")
    parser.add_argument("--log-level", default="INFO", help="Scrapy log level (default INFO)")
    parser.add_argument("--timeout", type=float, default=None, help="download timeout in seconds (default 20)")


def run_spiders(queues, store, *, until_idle: bool = False, max_jobs: int = 0, log_level: str = "INFO",
                extra_settings: dict | None = None) -> dict:
    """Run the job spider in this process until it closes; returns its totals (jobs/found/new/errors).

    Twisted's reactor cannot be restarted, so this runs once per process.
    """
    from scrapy.crawler import CrawlerProcess

    from crawler.pipelines import DetailSink
    from crawler.scrapy_settings import SETTINGS
    from crawler.spiders.base import ChannelJobSpider

    settings = {**SETTINGS, "LOG_LEVEL": log_level.upper(), **(extra_settings or {})}
    process = CrawlerProcess(settings=settings)
    crawler = process.create_crawler(ChannelJobSpider)
    process.crawl(crawler, queues=queues, store=store, sink=DetailSink(queues), until_idle=until_idle,
                  max_jobs=max_jobs)
    process.start(stop_after_crawl=True)
    spider = crawler.spider
    return dict(spider.totals) if spider is not None else {}


def run(args: argparse.Namespace) -> int:
    from crawler.config import load_settings
    from crawler.queues import open_queues
    from crawler.store import open_store

    from crawler.config import ConfigError
    from crawler.queues import QueueUnavailable
    from crawler.store import StoreError

    try:
        settings = load_settings(args.config)
        queues = open_queues(settings.queue_url, settings)
        store = open_store(settings.db_url)
    except (ConfigError, QueueUnavailable, StoreError, ValueError) as exc:
        # supervisord restarts us; the message says what to fix instead of a traceback
        print(f"mcrawl spiders: {exc}", file=sys.stderr)
        return 2
    try:
        extra = {"DOWNLOAD_TIMEOUT": args.timeout} if args.timeout else None
        totals = run_spiders(queues, store, until_idle=args.until_idle, max_jobs=args.max_jobs,
                             log_level=args.log_level, extra_settings=extra)
    finally:
        queues.close()
        store.close()
    logging.getLogger("mcrawl.spiders").info("totals: %s", totals)
    print(f"spiders: {totals.get('jobs', 0)} jobs, {totals.get('found', 0)} links found, "
          f"{totals.get('new', 0)} new, {totals.get('errors', 0)} errors", flush=True)
    return 0
