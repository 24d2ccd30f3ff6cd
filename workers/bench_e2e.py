"""End-to-end throughput: detail queue (real Redis) -> N worker processes -> real Elasticsearch.

A local site farm stands in for the internet: `--sites` HTTP servers on 127.0.0.1 (one port each,
so each is its own politeness bucket) serve the pages of ../shared/bench/zh-news and en-articles,
read from there at start-up (never copied). Every page is served under `--repeat` URLs so a run has
enough items to measure; the detail items are pushed straight into the detail queue (the spiders'
part is small and measured by the spider tests), then `mcrawl worker` processes drain it.

    python -m workers.bench_e2e --redis redis://127.0.0.1:6379/0 --es http://127.0.0.1:9200

prints articles extracted+indexed per second and the time split fetch / extract / index (summed
over worker threads, from the workers' own counters). Defaults for --redis/--es come from
MCRAWL_TEST_REDIS_URL / MCRAWL_TEST_ES_URL or deploy/services.env.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BENCH = Path(os.environ.get("MCRAWL_BENCH", ROOT.parent / "shared" / "bench"))


def services_env() -> dict[str, str]:
    values: dict[str, str] = {}
    env_file = ROOT / "deploy" / "services.env"
    if env_file.exists():
        for line in env_file.read_text().splitlines():
            line = line.strip().removeprefix("export ")
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                values[k.strip()] = v.strip().strip("'\"")
    values.update({k: v for k, v in os.environ.items() if k.startswith("MCRAWL_TEST_")})
    return values


def load_pages(bench: Path) -> list[tuple[str, bytes]]:
    """(id, raw bytes) of the zh-news and en-articles pages."""
    pages = []
    for set_name in ("zh-news", "en-articles"):
        for path in sorted((bench / set_name / "html").iterdir()):
            data = path.read_bytes()
            if path.name.endswith(".gz"):
                data = gzip.decompress(data)
            pages.append((f"{set_name}-{path.name.split('.')[0][:16]}", data))
    if not pages:
        raise SystemExit(f"no pages under {bench}")
    return pages


def start_farm(pages: list[tuple[str, bytes]], sites: int, repeat: int):
    """`sites` servers; page i lives on site i % sites under `repeat` paths. Returns (servers, urls)."""
    from crawler.demo.server import LocalSite, Response

    farms = [LocalSite() for _ in range(sites)]
    urls = []
    for i, (page_id, data) in enumerate(pages):
        site = farms[i % sites]
        # No charset in the header: the pages' own <meta charset> decides, as on the original sites.
        response = Response(200, data, {"Content-Type": "text/html"})
        for r in range(repeat):
            path = f"/{page_id}/{r}.html"
            site.routes[path] = response
            urls.append(site.url(path))
    for site in farms:
        site.start()
    return farms, urls


def es_cpu_ms(index) -> float:
    """CPU time used so far by the Elasticsearch node(s) (JVM process), from the node stats API."""
    stats = index.client.nodes.stats(metric="process")
    return float(sum(n["process"]["cpu"]["total_in_millis"] for n in stats["nodes"].values()))


def drop_index(index) -> None:
    """Delete the run's indices by name (ES refuses wildcard deletes by default) and its template."""
    client = index.client.options(ignore_status=404)
    if client.indices.exists_alias(name=index.alias):
        client.indices.delete(index=",".join(client.indices.get_alias(name=index.alias).keys()))
    client.indices.delete_index_template(name=index.alias)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bench", default=str(DEFAULT_BENCH))
    parser.add_argument("--redis", help="Redis URL (default: MCRAWL_TEST_REDIS_URL)")
    parser.add_argument("--es", help="Elasticsearch URL (default: MCRAWL_TEST_ES_URL)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--concurrency", type=int, default=4, help="threads per worker")
    parser.add_argument("--sites", type=int, default=8, help="HTTP servers in the farm")
    parser.add_argument("--repeat", type=int, default=6, help="URLs per bench page")
    parser.add_argument("--delay", type=float, default=0.0, help="politeness delay per site (s)")
    parser.add_argument("--json", action="store_true")


def index_url_for(es: str, name: str) -> str:
    """The ES URL with a fresh alias, so a run never mixes with real data or an earlier run."""
    return f"{es.rstrip('/')}{'&' if '?' in es else '?'}alias={name}"


def run(args: argparse.Namespace) -> int:
    env_values = services_env()
    redis_url = args.redis or env_values.get("MCRAWL_TEST_REDIS_URL")
    es_url = args.es or env_values.get("MCRAWL_TEST_ES_URL")
    if not redis_url or not es_url:
        print("need --redis and --es (or deploy/services.env from `bash deploy/services.sh start`)", file=sys.stderr)
        return 2
    from crawler.config import Settings
    from crawler.queues import open_queues
    from crawler.urls import canonicalize, site_of, url_id
    from workers.index import open_index

    run_id = uuid.uuid4().hex[:8]
    sep = "&" if "?" in redis_url else "?"
    queue_url = f"{redis_url}{sep}prefix=bench-{run_id}"
    index_url = index_url_for(es_url, f"bench-e2e-{run_id}")
    pages = load_pages(Path(args.bench))
    farms, urls = start_farm(pages, args.sites, args.repeat)
    queues = open_queues(queue_url, Settings(queue_url=queue_url))
    index = open_index(index_url)
    index.ensure()
    workdir = Path(tempfile.mkdtemp(prefix=f"mcrawl-bench-{run_id}-"))  # the workers' crawl_log
    try:
        for url in urls:
            c = canonicalize(url)
            queues.details.push({"url": c, "url_id": url_id(c), "channel_id": None, "channel_kind": "listpage",
                                 "site": site_of(c), "tz": "Asia/Shanghai", "politeness_delay_s": args.delay})
        env = {**os.environ, "MCRAWL_QUEUE": queue_url, "MCRAWL_INDEX": index_url,
               "MCRAWL_DB": f"sqlite:///{workdir}/db.sqlite3", "MCRAWL_DATA": str(workdir)}
        cmd = [sys.executable, "-m", "crawler.cli", "worker", "--concurrency", str(args.concurrency),
               "--until-idle", "--idle-grace", "1", "--no-robots", "--json", "--batch", "50"]
        load_before = [round(x, 2) for x in os.getloadavg()]
        es_cpu_before = es_cpu_ms(index)
        farm_cpu_before = os.times()
        started = time.monotonic()
        procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                 for _ in range(args.workers)]
        outs = [p.communicate(timeout=1800)[0] for p in procs]
        wall = time.monotonic() - started - 1.0  # the workers' idle grace at the end is not work
        farm_cpu_end = os.times()
        es_cpu = (es_cpu_ms(index) - es_cpu_before) / 1000.0
        farm_cpu = (farm_cpu_end.user - farm_cpu_before.user) + (farm_cpu_end.system - farm_cpu_before.system)
        stats = [json.loads(o.strip().splitlines()[-1]) for o in outs]
        refresh = getattr(index, "refresh", None)
        if refresh:
            refresh()
        in_index = index.count()
    finally:
        for site in farms:
            site.stop()
        try:
            drop_index(index)
        except Exception as exc:
            print(f"(could not drop the bench index: {exc})", file=sys.stderr)
        shutil.rmtree(workdir, ignore_errors=True)
        # the run's queue, pending set and Bloom filter (up to 24 MB) go too
        client = queues.extra.get("client")
        if client is not None:
            keys = list(client.scan_iter(match=f"bench-{run_id}:*", count=1000))
            if keys:
                client.delete(*keys)
    indexed = sum(s["indexed"] for s in stats)
    invalid = sum(s["invalid"] for s in stats)
    pages_done = max(indexed + invalid, 1)
    # CPU spent per page by each party; with the machine to themselves, 2 cores could do
    # cores * 1000 / (sum of these) pages per second: a load-independent capacity figure.
    cpu_per_page = {"workers": round(1000 * sum(s["process_cpu_s"] for s in stats) / pages_done, 1),
                    "elasticsearch": round(1000 * es_cpu / pages_done, 1),
                    "site_farm": round(1000 * farm_cpu / pages_done, 1)}
    split = {k: sum(s[k] for s in stats) for k in ("fetch_s", "extract_s", "index_s")}
    extract_cpu = sum(s.get("extract_cpu_s", 0.0) for s in stats)
    busy = sum(split.values()) or 1.0
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "pages": len(pages), "urls": len(urls), "sites": args.sites, "workers": args.workers,
        "threads_per_worker": args.concurrency, "politeness_delay_s": args.delay,
        "indexed": indexed, "invalid": invalid, "documents_in_index": in_index,
        "errors": sum(sum(s["errors"].values()) for s in stats),
        "wall_s": round(wall, 2), "articles_per_s": round(indexed / wall, 1) if wall > 0 else None,
        "pages_per_s": round((indexed + invalid) / wall, 1) if wall > 0 else None,
        "split_s": {k: round(v, 2) for k, v in split.items()},
        "split_pct": {k: round(100 * v / busy, 1) for k, v in split.items()},
        "invalid_reasons": {k: v for s in stats for k, v in s["invalid_reasons"].items()},
        "extract_cpu_ms_per_page": round(1000 * extract_cpu / max(indexed + invalid, 1), 1),
        "cpu_ms_per_page": cpu_per_page,
        "cpu_bound_capacity_per_s": round(os.cpu_count() * 1000 / sum(cpu_per_page.values()), 1),
        "load_avg_before": load_before, "load_avg_after": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=1))
    else:
        print(f"end-to-end, {args.workers} workers x {args.concurrency} threads, {args.sites} sites, "
              f"{len(urls)} URLs ({len(pages)} bench pages x {args.repeat})")
        print(f"  indexed {indexed}, invalid {invalid}, errors {report['errors']}, documents in index {in_index}")
        print(f"  wall {report['wall_s']} s -> {report['articles_per_s']} articles/s "
              f"({report['pages_per_s']} pages/s incl. invalid)")
        print("  time split (thread-seconds): " + ", ".join(
            f"{k[:-2]} {split[k]:.1f} s ({report['split_pct'][k]}%)" for k in split))
        print(f"  extraction CPU per page: {report['extract_cpu_ms_per_page']} ms (thread CPU time, no GIL waits)")
        print(f"  CPU per page: {cpu_per_page} ms -> capacity of {os.cpu_count()} otherwise idle cores: "
              f"{report['cpu_bound_capacity_per_s']} pages/s (derived, not measured)")
        print(f"  invalid reasons: {report['invalid_reasons']}")
        print(f"  machine: {report['machine']}; load average before/after: {load_before} / {report['load_avg_after']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
