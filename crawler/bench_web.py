"""Search API latency: p50/p95/p99 of GET /api/search over real HTTP, on an Elasticsearch index of
synthetic articles (default 100,000; target p95 <= 200 ms on this machine).

    .venv/bin/python -m crawler.bench_web [--es http://127.0.0.1:9201] [--docs 100000] [--queries 400]

The articles are made up here from fixed Chinese and English word lists with a seeded random
generator (Zipf-like word frequencies, so common words hit many documents and rare ones few),
indexed through workers.index (the same mapping and analyzers as the crawl) under their own alias
(`mcrawl-bench-web`, reused by later runs when it already holds --docs documents; --fresh rebuilds
it). The console runs in this process on a free 127.0.0.1 port (`serve_in_thread`) and a client
sends the queries one at a time, so a figure is the whole path: HTTP, Flask, parameter checks,
the Elasticsearch query with highlighting, JSON. The query mix: one word (most), two words, a word
with a site or date filter, newest-first, and deeper pages. Default --es comes from
MCRAWL_TEST_ES_URL (deploy/services.env).
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone

ZH_WORDS = (
    "经济 发展 政府 企业 市场 国家 社会 城市 公司 技术 文化 教育 医院 学校 工作 问题 记者 工程 项目 服务 "
    "建设 管理 投资 产业 创新 改革 政策 环境 农村 农民 交通 地铁 铁路 机场 航班 旅游 游客 古镇 景区 酒店 "
    "天气 降雨 台风 高温 气温 空气 污染 能源 电力 石油 汽车 新能源 电池 芯片 手机 网络 互联网 数据 人工智能 平台 "
    "银行 股市 基金 保险 利率 房价 消费 价格 物价 出口 进口 贸易 合作 会议 代表 委员 人大 法院 警方 案件 "
    "安全 事故 救援 消防 医生 患者 疫苗 健康 体育 比赛 冠军 足球 篮球 球员 电影 音乐 演出 艺术 博物馆 "
    "历史 文物 考古 大学 学生 老师 考试 招生 就业 工资 养老 医保 住房 社区 居民 志愿者 春节 国庆 假期 "
    "北京 上海 广州 深圳 杭州 南京 成都 重庆 武汉 西安 天津 苏州 乌镇 长江 黄河 江南 西部 东北 沿海 边境 "
    "科学 研究 实验 卫星 火箭 航天 海洋 森林 湿地 动物 保护 农业 粮食 水稻 小麦 丰收 乡村 振兴 扶贫 "
    "今天 昨天 目前 近日 记者 表示 指出 介绍 显示 报道 发布 宣布 举行 开幕 闭幕 启动 完成 增长 下降 提高"
).split()
EN_WORDS = (
    "economy growth government company market country society city technology culture education hospital "
    "school work problem reporter project service building management investment industry innovation reform "
    "policy environment rural farmer traffic metro railway airport flight tourism visitor town scenic hotel "
    "weather rain typhoon heat temperature air pollution energy power oil car electric battery chip phone "
    "network internet data intelligence platform bank stock fund insurance rate housing price consumer export "
    "import trade cooperation meeting delegate court police case safety accident rescue fire doctor patient "
    "vaccine health sport match champion football basketball player film music concert art museum history "
    "heritage university student teacher exam jobs wage pension community resident volunteer festival holiday "
    "river coast border science research experiment satellite rocket space ocean forest wetland animal "
    "protection agriculture grain rice wheat harvest village today yesterday officials said announced "
    "launched opened closed completed increased decreased improved council mayor minister election vote "
    "budget tax law bill report survey study expert analyst crowd record storm flood drought bridge port"
).split()
# fillers so sentences read like text and common words are really common
ZH_FILLER = "的 了 在 是 和 与 对 将 也 为 有 这 一 等 中 上".split()
EN_FILLER = "the of and to in a for on with that is was by at from as it".split()
SITES = [f"news{i:02d}.example.{'cn' if i % 2 else 'com'}" for i in range(40)]
KINDS = ("rss", "metasearch", "listpage", "sitemap")
PAGE_TYPES = ("article", "article", "article", "blog", "forum")
DEFAULT_ALIAS = "mcrawl-bench-web"


def zipf_weights(n: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(n)]


def make_docs(count: int, seed: int = 7, now: datetime | None = None):
    """`count` synthetic documents with the crawl's fields, deterministic for a seed."""
    rng = random.Random(seed)
    now = now or datetime(2026, 11, 1, tzinfo=timezone.utc)
    zh_w, en_w = zipf_weights(len(ZH_WORDS)), zipf_weights(len(EN_WORDS))
    for i in range(count):
        zh = i % 2 == 0
        words, weights, filler = (ZH_WORDS, zh_w, ZH_FILLER) if zh else (EN_WORDS, en_w, EN_FILLER)
        joiner, stop = ("", "。") if zh else (" ", ". ")
        paragraphs = []
        for _ in range(rng.randint(3, 7)):
            sentences = []
            for _ in range(rng.randint(3, 6)):
                picked = rng.choices(words, weights, k=rng.randint(6, 12))
                for pos in range(1, len(picked), 3):
                    picked.insert(pos, rng.choice(filler))
                sentences.append(joiner.join(picked) + stop)
            paragraphs.append("".join(sentences))
        title = joiner.join(rng.choices(words, weights, k=rng.randint(4, 7)))
        published = now - timedelta(minutes=rng.randint(0, 365 * 24 * 60))
        site = rng.choice(SITES)
        yield {"url": f"http://{site}/bench/{i}.html", "site": site, "channel": rng.randint(1, 200),
               "channel_kind": rng.choice(KINDS), "title": title, "content": "\n".join(paragraphs),
               "pubdate": published.isoformat(), "crawled_at": (published + timedelta(hours=1)).isoformat(),
               "author": None, "source": site, "lang": "zh" if zh else "en",
               "page_type": rng.choice(PAGE_TYPES), "method": "cevc"}


def build_index(index, count: int, batch: int = 2000) -> float:
    """Index `count` documents; seconds taken."""
    t0 = time.perf_counter()
    docs, done = [], 0
    for doc in make_docs(count):
        docs.append(doc)
        if len(docs) == batch:
            done += _bulk(index, docs)
            docs = []
            print(f"\r  indexed {done}/{count}", end="", file=sys.stderr, flush=True)
    if docs:
        done += _bulk(index, docs)
    print(file=sys.stderr)
    index.refresh()
    return time.perf_counter() - t0


def _bulk(index, docs) -> int:
    ok, errors = index.index_bulk(docs)
    if errors:
        raise SystemExit(f"the index refused {len(errors)} documents, e.g. {errors[0]}")
    return ok


def query_mix(n: int, seed: int = 11) -> list[dict]:
    """Query strings like people type them: mostly one word, some two, some filtered or paged."""
    rng = random.Random(seed)
    zh_w, en_w = zipf_weights(len(ZH_WORDS)), zipf_weights(len(EN_WORDS))
    queries = []
    for _ in range(n):
        words, weights = (ZH_WORDS, zh_w) if rng.random() < 0.5 else (EN_WORDS, en_w)
        roll = rng.random()
        q = {"q": rng.choices(words, weights)[0]}
        if roll < 0.25:
            q["q"] += " " + rng.choices(words, weights)[0]
        elif roll < 0.35:
            q["site"] = rng.choice(SITES)
        elif roll < 0.45:
            start = datetime(2026, 11, 1) - timedelta(days=rng.randint(10, 300))
            q["since"], q["until"] = start.date().isoformat(), (start + timedelta(days=30)).date().isoformat()
        elif roll < 0.55:
            q["sort"] = "newest"
        elif roll < 0.62:
            q["page"] = str(rng.randint(2, 20))
        queries.append(q)
    return queries


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of an ascending list."""
    rank = max(1, min(len(sorted_values), math.ceil(pct / 100 * len(sorted_values))))
    return sorted_values[rank - 1]


def main(argv: list[str] | None = None) -> int:
    from workers.bench_e2e import services_env

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--es", default=os.environ.get("MCRAWL_TEST_ES_URL") or services_env().get("MCRAWL_TEST_ES_URL"),
                        help="Elasticsearch URL (default $MCRAWL_TEST_ES_URL or deploy/services.env)")
    parser.add_argument("--alias", default=DEFAULT_ALIAS)
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--fresh", action="store_true", help="drop and rebuild the benchmark index")
    args = parser.parse_args(argv)
    if not args.es:
        parser.error("no Elasticsearch URL: pass --es or start the test servers (bash deploy/services.sh start)")
    if args.docs < 1 or args.queries < 1:
        parser.error("--docs and --queries must be positive")

    import urllib3

    from crawler.config import Settings
    from crawler.web.app import serve_in_thread, stop_server
    from crawler.web.webconfig import WebConfig
    from workers.index import open_index

    index_url = f"{args.es}?alias={args.alias}"
    index = open_index(index_url)
    if args.fresh:
        index.drop()
    index.ensure()
    have = index.count()
    if have != args.docs:
        if have:
            index.drop()
            index.ensure()
        print(f"building the index: {args.docs} synthetic articles under alias {args.alias}", file=sys.stderr)
        seconds = build_index(index, args.docs)
        print(f"indexed {args.docs} documents in {seconds:.1f} s ({args.docs / seconds:.0f} docs/s)")
    stats = index.stats()
    print(f"index: {stats['documents']} documents, {stats['size_bytes'] / 2**20:.0f} MiB")

    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(index_url=index_url, db_url=f"sqlite:///{tmp}/bench.sqlite3",
                            queue_url=f"local:///{tmp}/queue", data_dir=tmp)
        url = serve_in_thread(settings, "127.0.0.1", 0, WebConfig(open_search=True, secret_key="bench"))
        http = urllib3.PoolManager(maxsize=1)
        try:
            for q in query_mix(args.warmup, seed=99):
                http.request("GET", url + "api/search", fields=q)
            times, index_times, totals = [], [], []
            for q in query_mix(args.queries):
                t0 = time.perf_counter()
                response = http.request("GET", url + "api/search", fields=q)
                times.append((time.perf_counter() - t0) * 1000)
                if response.status != 200:
                    raise SystemExit(f"GET /api/search {q} -> {response.status}: {response.data[:200]!r}")
                totals.append(response.json()["total"])
                index_times.append(float(response.headers["Server-Timing"].split("dur=")[1]))
        finally:
            stop_server(url)
            http.clear()
            index.close()
    times.sort()
    load = os.getloadavg()
    print(f"search API over HTTP, {len(times)} queries one at a time ({platform.node()}, "
          f"{os.cpu_count()} cores, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}):")
    print(f"  p50 {percentile(times, 50):.1f} ms   p90 {percentile(times, 90):.1f} ms   "
          f"p95 {percentile(times, 95):.1f} ms   p99 {percentile(times, 99):.1f} ms   max {times[-1]:.1f} ms   "
          f"mean {statistics.fmean(times):.1f} ms")
    index_times.sort()
    print(f"  of which the index call (Server-Timing): p50 {percentile(index_times, 50):.1f} ms   "
          f"p95 {percentile(index_times, 95):.1f} ms")
    print(f"  hits per query: median {statistics.median(totals):.0f}, max {max(totals)}")
    target = percentile(times, 95) <= 200
    print(f"  target p95 <= 200 ms: {'met' if target else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
