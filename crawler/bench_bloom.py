"""Bloom filter benchmark: `python -m crawler.bench_bloom [--redis URL] [--n N] [--p P]`.

Prints
- checks/s of pipelined check-and-add against Redis (batches of --batch URLs per round trip,
  one script call per 500 URLs), and of single-URL calls (one round trip each) for contrast;
- the false-positive rate measured by inserting n random URLs (default 1M) and probing 1M other
  random URLs, next to the target p;
- the same for the file-backed (embedded) filter.
The Redis keys live under a throw-away prefix and are deleted at the end.
"""
from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
import uuid


def random_urls(count: int, seed: int, host_tag: str) -> list[str]:
    rng = random.Random(seed)
    return [f"https://www.site{rng.randrange(5000)}-{host_tag}.example/news/{rng.getrandbits(40):x}/"
            f"{rng.getrandbits(32):x}.html" for _ in range(count)]


def measure(bloom, n: int, probes: int, batch: int) -> dict[str, float]:
    inserted = random_urls(n, 1, "in")
    t0 = time.perf_counter()
    for start in range(0, n, batch):
        bloom.add_many_if_new(inserted[start:start + batch])
    add_s = time.perf_counter() - t0
    others = random_urls(probes, 2, "out")
    t0 = time.perf_counter()
    hits = 0
    for start in range(0, probes, batch):
        hits += sum(bloom.contains_many(others[start:start + batch]))
    check_s = time.perf_counter() - t0
    single = inserted[:2000]
    t0 = time.perf_counter()
    for url in single:
        bloom.add_if_new(url)
    single_s = time.perf_counter() - t0
    return {"add_per_s": n / add_s, "check_per_s": probes / check_s, "single_per_s": len(single) / single_s,
            "fp_rate": hits / probes, "fill": bloom.fill_ratio(), "estimated_fp": bloom.estimated_fp_rate()}


def report(name: str, bloom, p: float, r: dict[str, float]) -> None:
    s = bloom.spec
    print(f"{name}: n={s.capacity:,} p={p:g} -> m={s.bits:,} bits ({s.bits / 8 / 2**20:.1f} MiB), k={s.hashes},"
          f" segments={s.segments}")
    print(f"  check-and-add, pipelined : {r['add_per_s']:>10,.0f} URLs/s")
    print(f"  check only, pipelined    : {r['check_per_s']:>10,.0f} URLs/s")
    print(f"  check-and-add, one by one: {r['single_per_s']:>10,.0f} URLs/s")
    print(f"  false-positive rate      : {r['fp_rate']:.6f} measured vs p = {p:g}"
          f" ({r['fp_rate'] / p:.2f}x p; fill {r['fill']:.3f}, estimate {r['estimated_fp']:.6f})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--redis", default=os.environ.get("MCRAWL_TEST_REDIS_URL", "redis://127.0.0.1:6379/0"))
    ap.add_argument("--n", type=int, default=1_000_000, help="URLs inserted (default 1M)")
    ap.add_argument("--probes", type=int, default=1_000_000, help="other URLs probed for false positives")
    ap.add_argument("--p", type=float, default=1e-4)
    ap.add_argument("--batch", type=int, default=5000, help="URLs per pipelined call")
    ap.add_argument("--skip-file", action="store_true")
    args = ap.parse_args(argv)

    from crawler.bloom import FileBloom, RedisBloom
    from crawler.queues_redis import redis_client

    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores"
          " (other processes share the cores: rates fall with load)")
    client = redis_client(args.redis)
    client.config_resetstat()
    bloom = RedisBloom(client, prefix=f"mcrawl-bench-{uuid.uuid4().hex[:8]}", capacity=args.n, error_rate=args.p)
    try:
        result = measure(bloom, args.n, args.probes, args.batch)
        report(f"Redis ({args.redis})", bloom, args.p, result)
        scripts = client.info("commandstats").get("cmdstat_evalsha", {})
        items = args.n + args.probes + 2000
        if scripts:
            print(f"  Redis server time in the script: {scripts['usec'] / items:.1f} us per URL"
                  f" ({items / (scripts['usec'] / 1e6):,.0f} URLs per server-second)")
    finally:
        bloom.clear()
    if not args.skip_file:
        with tempfile.TemporaryDirectory() as tmp:
            fb = FileBloom(os.path.join(tmp, "seen.bloom"), args.n, args.p)
            report("file (mmap)", fb, args.p, measure(fb, args.n, args.probes, args.batch))
            fb.close()
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
