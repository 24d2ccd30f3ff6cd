"""Benchmark of the article metadata extractors (headline, publication time, author/source).

    python -m extraction.bench_meta [--bench DIR]

Prints, from ../shared/bench (read in place):
- zh-news: headline and date accuracy by the bench's score.py, through these modules on the CEVC
  body node (the article path of the pipeline, without the page classifier in front);
- zh-news with structured data (meta/JSON-LD) ignored: how well the visible-text path alone does;
- zh-news author and source: exact agreement with the gold (score.py does not score them);
- template-sites: headline accuracy per site and overall (generalisation to other sites);
- CPU milliseconds per page spent in titles + dates + bylines over every bench page.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from . import bylines, cevc, dates, titles
from .bench import default_bench_dir, load_scorer
from .dom import PageError, load_page

ZH_TZ = "Asia/Shanghai"


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if path.name.endswith(".gz") else data


def _page_file(set_dir: Path, page_id: str) -> Path | None:
    for suffix in (".html", ".html.gz", ".htm"):
        path = set_dir / "html" / f"{page_id}{suffix}"
        if path.exists():
            return path
    return None


def _meta(data: bytes, tz: str | None, fetched_at: datetime, structured: bool = True):
    page = load_page(data, fetched_at=fetched_at, tz=tz)
    body = cevc.extract_body(page).node
    t0 = time.process_time()
    headline, node = titles.extract_headline(page, body)
    published = dates.extract_published(page, node, body, use_structured=structured)
    author, source = bylines.extract_byline(page, node, body)
    spent = time.process_time() - t0
    return {"headline": headline, "datePublished": published, "author": author, "source": source}, spent


def zh_news(bench: Path, scorer, fetched_at: datetime) -> dict:
    set_dir = bench / "zh-news"
    gold = json.loads((set_dir / "gold.json").read_text(encoding="utf-8"))
    preds, text_only = {}, {}
    for page_id in gold:
        data = _read(_page_file(set_dir, page_id))
        preds[page_id], _ = _meta(data, ZH_TZ, fetched_at)
        text_only[page_id], _ = _meta(data, ZH_TZ, fetched_at, structured=False)
    scores = scorer.score(gold, preds)
    text_scores = scorer.score(gold, text_only)
    out = {"pages": len(gold), "headline_accuracy": scores.get("headline_accuracy"),
           "date_day_accuracy": scores.get("date_day_accuracy"),
           "date_minute_accuracy": scores.get("date_minute_accuracy"),
           "text_only_date_day_accuracy": text_scores.get("date_day_accuracy")}
    for field in ("author", "source"):
        with_gold = [k for k, g in gold.items() if g.get(field)]
        out[f"{field}_exact"] = f"{sum(preds[k][field] == gold[k][field] for k in with_gold)}/{len(with_gold)}"
        out[f"{field}_given_where_gold_has_none"] = sum(
            1 for k, g in gold.items() if not g.get(field) and preds[k][field])
    return out


def template_sites(bench: Path, scorer, fetched_at: datetime) -> dict:
    per_site, right, total = {}, 0, 0
    for site_dir in sorted(p for p in (bench / "template-sites").iterdir() if (p / "gold.json").exists()):
        gold = json.loads((site_dir / "gold.json").read_text(encoding="utf-8"))
        ok = n = 0
        for page_id, g in gold.items():
            path = _page_file(site_dir, page_id)
            if not g.get("headline") or path is None:
                continue
            pred, _ = _meta(_read(path), None, fetched_at)
            n += 1
            ok += scorer.norm_title(pred["headline"]) == scorer.norm_title(g["headline"])
        if n:
            per_site[site_dir.name] = f"{ok}/{n}"
            right, total = right + ok, total + n
    return {"headline_accuracy": round(right / total, 4) if total else None, "pages": total, "per_site": per_site}


def cpu_per_page(bench: Path, fetched_at: datetime) -> dict:
    spent, pages = 0.0, 0
    for path in sorted(bench.glob("*/html/*")) + sorted(bench.glob("template-sites/*/html/*")):
        try:
            _, seconds = _meta(_read(path), None, fetched_at)
        except PageError:
            continue
        spent, pages = spent + seconds, pages + 1
    return {"pages": pages, "cpu_ms_per_page": round(spent / pages * 1000, 3) if pages else None}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", type=Path, default=None)
    args = parser.parse_args(argv)
    bench = args.bench or default_bench_dir()
    if not (bench / "score.py").exists():
        print(f"bench folder not found at {bench}; nothing to measure", file=sys.stderr)
        return 0
    scorer = load_scorer(bench)
    fetched_at = datetime.now(timezone.utc)
    report = {"zh-news": zh_news(bench, scorer, fetched_at),
              "template-sites": template_sites(bench, scorer, fetched_at),
              "speed (titles+dates+bylines)": cpu_per_page(bench, fetched_at)}
    print(json.dumps(report, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
