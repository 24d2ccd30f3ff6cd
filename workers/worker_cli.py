"""`mcrawl worker`: claim detail URLs, fetch, extract, index."""
from __future__ import annotations

import argparse
import json
import logging
import signal
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="config file (TOML/YAML); MCRAWL_* variables override it")
    parser.add_argument("--concurrency", type=int, default=4, help="threads (fetch + extract) in this process")
    parser.add_argument("--batch", type=int, default=20, help="documents per bulk index request")
    parser.add_argument("--until-idle", action="store_true",
                        help="exit once the detail queue stays empty (default: run forever)")
    parser.add_argument("--idle-grace", type=float, default=2.0, help="seconds of empty queue before --until-idle exits")
    parser.add_argument("--max-items", type=int, default=0, help="exit after claiming this many items")
    parser.add_argument("--no-robots", action="store_true", help="do not fetch robots.txt (local site farms)")
    parser.add_argument("--timeout", type=float, default=20.0, help="fetch timeout in seconds")
    parser.add_argument("--templates-reload", type=float, default=300.0, metavar="S",
                        help="re-read mined templates from the store every S seconds (default 300)")
    parser.add_argument("--no-templates", action="store_true", help="template-free extraction only")
    parser.add_argument("--json", action="store_true", help="print the final stats as JSON")
    parser.add_argument("-v", "--verbose", action="store_true")


def fleet_pacer(queues, queue_url: str):
    """With Redis queues, politeness is shared by all workers of the fleet; else per process."""
    client = queues.extra.get("client")
    if client is None:
        return None
    from crawler.queues_redis import split_prefix
    from workers.fetch import RedisHostPacer

    return RedisHostPacer(client, split_prefix(queue_url)[1])


def ensure_index(index, max_wait_s: float = 600.0) -> None:
    """Create the index template/alias, waiting with back-off while the index is unreachable
    (a worker started before Elasticsearch is up waits for it instead of dying)."""
    import time

    from workers.index import IndexUnavailable

    delay, waited = 1.0, 0.0
    while True:
        try:
            index.ensure()
            return
        except IndexUnavailable as exc:
            if waited >= max_wait_s:
                raise
            logging.getLogger("mcrawl.worker").warning("index unavailable (%s); retrying in %.0f s", exc, delay)
            time.sleep(delay)
            waited += delay
            delay = min(delay * 2, 30.0)


def run(args: argparse.Namespace) -> int:
    from crawler.config import load_settings
    from crawler.queues import open_queues
    from crawler.store import open_store
    from workers.fetch import Fetcher
    from workers.index import open_index
    from workers.templates import TemplateCache
    from workers.worker import Worker

    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s", stream=sys.stderr)
    if not args.verbose:
        # one INFO line per bulk request and per connection would drown the worker's own progress lines
        for noisy in ("elastic_transport", "elasticsearch", "urllib3"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
    from crawler.config import ConfigError
    from crawler.queues import QueueUnavailable
    from crawler.store import StoreError

    try:
        settings = load_settings(args.config)
        queues = open_queues(settings.queue_url, settings)
        index = open_index(settings.index_url)
        ensure_index(index)
        store = open_store(settings.db_url)
    except (ConfigError, QueueUnavailable, StoreError, ValueError) as exc:
        print(f"mcrawl worker: {exc}", file=sys.stderr)
        return 2
    worker = Worker(queues, index, store, concurrency=args.concurrency, batch_size=args.batch,
                    fetcher=Fetcher(timeout_s=args.timeout, obey_robots=not args.no_robots,
                                    pool_size=args.concurrency, pacer=fleet_pacer(queues, settings.queue_url)),
                    default_tz=settings.default_tz,
                    templates=None if args.no_templates else TemplateCache(store, args.templates_reload))
    # SIGTERM (supervisord, docker stop): finish the batch in hand, then exit.
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    try:
        stats = worker.run(until_idle=args.until_idle, idle_grace_s=args.idle_grace, max_items=args.max_items,
                           progress=lambda s: logging.getLogger("mcrawl.worker").info("progress: %s", s))
    finally:
        queues.close()
        store.close()
    if args.json:
        print(json.dumps(stats, ensure_ascii=False), flush=True)
    else:
        print(f"worker: {stats['claimed']} claimed, {stats['indexed']} indexed, {stats['invalid']} invalid, "
              f"{sum(stats['errors'].values())} errors, {stats['retried']} retried", flush=True)
    return 0
