"""Forum and classification benchmark over ../shared/bench.

    python -m extraction.bench_forum [--bench DIR] [--no-cv] [--per-page]

Prints, as JSON:
- posts: micro precision/recall/F1 and author/time accuracy (the bench's score_posts.py) for
  the whole pipeline (classification, then engine structure, else PEAN), the forum path alone
  (engine, else PEAN), PEAN alone and the MiBAT baseline, each with pages/s on one core (CPU
  time of the extraction only, page parsing excluded);
- engines: how many forum pages an engine recogniser claimed;
- classification: accuracy of classify() over all bench pages (articles and forum threads)
  with the shipped model, and — the figure to quote — leave-one-site-out accuracy where the
  model part is retrained without the held-out site (rules are not trained).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

DEFAULT_BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"


def _scorer(bench: Path):
    sys.path.insert(0, str(bench))
    from score_posts import score  # the bench's own scorer: its figures are the ones that count

    return score


def _posts_json(posts) -> list[dict]:
    return [{"author": p.author, "datePublished": p.datePublished, "content": p.content, "floor": p.floor} for p in posts]


def bench_posts(bench: Path, per_page: bool = False) -> dict:
    from . import mibat, pean
    from .dom import load_page
    from .forums import extract_posts, recognise

    score = _scorer(bench)
    gold = json.loads((bench / "forum" / "gold.json").read_text(encoding="utf-8"))
    pages = {k: load_page((bench / "forum" / "html" / f"{k}.html").read_bytes(), v.get("url") or None) for k, v in gold.items()}
    from .pipeline import extract_page

    methods = {
        "pipeline": lambda page: extract_page(page).posts,  # classify -> engine, else PEAN
        "engine+pean": lambda page: extract_posts(page)[0],
        "pean": pean.extract_posts,
        "mibat": mibat.extract_posts,
    }
    out: dict = {}
    for name, run in methods.items():
        pred = {}
        start = time.process_time()
        for key, page in pages.items():
            pred[key] = {"posts": _posts_json(run(page))}
        cpu = time.process_time() - start
        res = score(gold, pred, per_page=per_page)
        res["pages_per_s_one_core"] = round(len(pages) / cpu, 1) if cpu else None
        out[name] = res
    engines = Counter((e.name if (e := recognise(page)) else "none") for page in pages.values())
    out["engines"] = dict(sorted(engines.items()))
    return out


def bench_classification(bench: Path, cv: bool = True) -> dict:
    from . import train_classifier as tc
    from .classify import classify, classify_rules, decide

    items = tc.bench_pages(bench)
    X, y, groups, pages = tc.featurize(items)
    shipped = [classify(p)[0] for p in pages]
    norm = {"blog": "article"}
    confusion = Counter(f"{t}->{norm.get(p, p)}" for p, t in zip(shipped, y))
    res = {
        "pages": len(y),
        "shipped_model_accuracy": round(sum(norm.get(p, p) == t for p, t in zip(shipped, y)) / len(y), 4),
        "shipped_confusion": dict(sorted(confusion.items())),
        "note": "shipped model was trained on these pages too; quote the leave-one-site-out figure",
    }
    if cv:
        gen = [(h.encode(), u, lab, g) for h, u, lab, g in tc.generated_pages(tc.GENERATED_PAGES)]
        Xg, yg, gg, _ = tc.featurize(gen)
        rules = [classify_rules(p, f) for p, f in zip(pages, X)]
        _, model_pred, model_probs = tc.leave_one_site_out(X + Xg, y + yg, groups + gg)
        final = []
        for i, ruled in enumerate(rules):
            # The same decision classify() makes, with the fold's model in place of the shipped one.
            final.append(ruled[0] if ruled is not None else decide(X[i], model_probs[i])[0])
        res["leave_one_site_out_accuracy"] = round(sum(norm.get(p, p) == t for p, t in zip(final, y)) / len(y), 4)
        res["leave_one_site_out_confusion"] = dict(sorted(Counter(f"{t}->{norm.get(p, p)}" for p, t in zip(final, y)).items()))
        gen_pred = model_pred[len(y):]
        res["generated_pages_loso_accuracy"] = round(sum(p == t for p, t in zip(gen_pred, yg)) / max(1, len(yg)), 4)
    return res


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bench", default=str(DEFAULT_BENCH))
    ap.add_argument("--no-cv", action="store_true", help="skip the leave-one-site-out classification run (minutes)")
    ap.add_argument("--no-classification", action="store_true")
    ap.add_argument("--per-page", action="store_true")
    args = ap.parse_args(argv)
    bench = Path(args.bench)
    if not (bench / "forum" / "gold.json").exists():
        print(f"bench not found at {bench}", file=sys.stderr)
        return 2
    report = {"posts": bench_posts(bench, args.per_page)}
    if not args.no_classification:
        report["classification"] = bench_classification(bench, cv=not args.no_cv)
    json.dump(report, sys.stdout, ensure_ascii=False, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
