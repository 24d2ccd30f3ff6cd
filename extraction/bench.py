"""Extraction benchmark: run the full pipeline over ../shared/bench article sets and score it.

    python -m extraction.bench [--bench DIR] [--sets en-articles,zh-news] [--limit N]
                               [--json] [--per-page] [--no-process]
    mcrawl bench ...           (the same)

For each set: pages, body shingle-F1 and LCS-F1, headline and date (day) accuracy as computed by
the bench's own score.py, and extraction speed in pages/s on one core (read bytes in memory,
`extraction.extract` timed per page: decode + parse + all extractors; single process). Then the
same pages as whole processes: wall time of `mcrawl extract DIR` against a process that runs
trafilatura over the same files (column skipped with a note when trafilatura is not installed:
`pip install -e .[bench]`).

The bench folder is read in place (never copied). When it is absent the command says so and exits 0.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

DEFAULT_SETS = ("en-articles", "zh-news")
# The channel-level default zone a crawler would configure for each set (times without offset).
SET_TZ = {"zh-news": "Asia/Shanghai"}


def default_bench_dir() -> Path:
    env = os.environ.get("MCRAWL_BENCH")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "shared" / "bench"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bench", type=Path, default=None,
                        help="bench folder with score.py and the sets (default: $MCRAWL_BENCH or ../shared/bench)")
    parser.add_argument("--sets", default=",".join(DEFAULT_SETS), help="comma-separated set names")
    parser.add_argument("--limit", type=int, default=0, help="only the first N pages of each set (0 = all)")
    parser.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    parser.add_argument("--per-page", type=int, nargs="?", const=15, default=0, metavar="N",
                        help="also show the N worst pages of each set (default 15)")
    parser.add_argument("--no-process", action="store_true",
                        help="skip the whole-process timings (mcrawl extract vs trafilatura)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="time the in-process extraction this many times and keep the best (noise on shared machines)")


def load_scorer(bench: Path):
    spec = importlib.util.spec_from_file_location("bench_score", bench / "score.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def set_pages(set_dir: Path, limit: int = 0) -> tuple[dict, list[Path]]:
    """Gold of the set and its page files (sorted by id; the first `limit` when limit > 0)."""
    from .files import iter_page_files, page_id

    gold = json.loads((set_dir / "gold.json").read_text(encoding="utf-8"))
    files = [p for p in iter_page_files([str(set_dir / "html")]) if page_id(p) in gold]
    if limit > 0:
        files = files[:limit]
        ids = {page_id(p) for p in files}
        gold = {k: v for k, v in gold.items() if k in ids}
    return gold, files


def run_in_process(files: list[Path], tz: str | None, repeat: int = 1) -> tuple[dict, float, dict]:
    """Extract every page in this process. Returns predictions, the best total extraction time (CPU
    time of this process: what one core spends, unaffected by other work on a shared machine), and
    the pages whose extraction raised (id -> error): they score as empty, the run goes on."""
    from .files import page_id, read_page_bytes
    from .pipeline import extract

    raw = [(page_id(p), read_page_bytes(p)) for p in files]
    fetched_at = datetime.now(timezone.utc)
    # One untimed page first: one-off loads (models, dictionaries) belong to start-up, which the
    # whole-process figures measure, not to the per-page rate.
    if raw:
        try:
            extract(raw[0][1], fetched_at=fetched_at, tz=tz)
        except Exception:  # noqa: BLE001 - reported below when the timed run raises too
            pass
    best = float("inf")
    preds: dict = {}
    errors: dict = {}
    for _ in range(max(1, repeat)):
        preds, errors = {}, {}
        spent = 0.0
        for pid, data in raw:
            t0 = time.process_time()
            try:
                preds[pid] = extract(data, fetched_at=fetched_at, tz=tz).to_dict()
            except Exception as exc:  # noqa: BLE001 - a crashing extractor is reported, not fatal
                errors[pid] = f"{type(exc).__name__}: {exc}"
            spent += time.process_time() - t0
        best = min(best, spent)
    return preds, best, errors


_TRAFILATURA_SCRIPT = r"""
import sys, json
from pathlib import Path
import trafilatura
sys.path.insert(0, sys.argv[1])
from extraction.files import read_page_bytes
for name in sys.argv[2:]:
    data = read_page_bytes(Path(name))
    text = trafilatura.extract(data) or ""
    sys.stdout.write(json.dumps({"file": name, "articleBody": text}) + "\n")
"""


def _time_process(cmd: list[str]) -> tuple[float, float] | None:
    """Wall time and CPU time (user + system of the child) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        print(f"bench: {' '.join(cmd[:4])} ... failed: {proc.stderr.decode(errors='replace')[-300:]}", file=sys.stderr)
        return None
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def _process_figures(prefix: str, pages: int, timing: tuple[float, float] | None) -> dict:
    if not timing:
        return {f"{prefix}_process_s": None, f"{prefix}_process_pages_s": None}
    wall, cpu = timing
    return {f"{prefix}_process_s": round(wall, 3), f"{prefix}_process_cpu_s": round(cpu, 3),
            f"{prefix}_process_pages_s": round(pages / cpu, 1) if cpu else None,
            f"{prefix}_process_wall_pages_s": round(pages / wall, 1) if wall else None}


def run_processes(files: list[Path], tz: str | None) -> dict:
    """Whole processes over the same files, `mcrawl extract` and trafilatura: start-up, imports,
    reading, extraction and output. Pages/s are per CPU second of the child (one core); wall
    figures are kept alongside."""
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="mcrawl-bench-") as tmp:
        # A folder of links so both tools see exactly the selected files.
        folder = Path(tmp)
        for p in files:
            (folder / p.name).symlink_to(p.resolve())
        cmd = [sys.executable, "-m", "crawler.cli", "extract", "--quiet", str(folder)]
        if tz:
            cmd[5:5] = ["--tz", tz]
        out.update(_process_figures("mcrawl", len(files), _time_process(cmd)))
        if importlib.util.find_spec("trafilatura") is None:
            out["trafilatura_note"] = "trafilatura not installed (pip install -e .[bench]); column skipped"
        else:
            root = str(Path(__file__).resolve().parent.parent)
            timing = _time_process([sys.executable, "-c", _TRAFILATURA_SCRIPT, root, *map(str, files)])
            out.update(_process_figures("trafilatura", len(files), timing))
    return out


def bench_set(bench: Path, name: str, scorer, limit: int, per_page: int, processes: bool, repeat: int) -> dict:
    gold, files = set_pages(bench / name, limit)
    tz = SET_TZ.get(name)
    preds, spent, errors = run_in_process(files, tz, repeat)
    if errors:
        first = next(iter(errors.items()))
        print(f"bench: {len(errors)} page(s) of {name} raised, scored as empty; first: {first[0]}: {first[1]}",
              file=sys.stderr)
    scores = scorer.score(gold, preds, per_page=bool(per_page))
    row = {
        "set": name,
        "pages": len(files),
        "shingle_f1": scores.get("shingle_f1"),
        "lcs_f1": scores.get("lcs_f1"),
        "shingle_precision": scores.get("shingle_precision"),
        "shingle_recall": scores.get("shingle_recall"),
        "lcs_precision": scores.get("lcs_precision"),
        "lcs_recall": scores.get("lcs_recall"),
        "headline_accuracy": scores.get("headline_accuracy"),
        "date_day_accuracy": scores.get("date_day_accuracy"),
        "date_minute_accuracy": scores.get("date_minute_accuracy"),
        "extract_s": round(spent, 3),
        "pages_per_s": round(len(files) / spent, 1) if spent else None,
        "errors": len(errors),
    }
    if processes and files:
        row.update(run_processes(files, tz))
    if per_page:
        worst = sorted(scores.get("per_page", []), key=lambda r: r["shingle_f1"])[:per_page]
        row["worst_pages"] = worst
    return row


def _fmt(value, rate: bool = False) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}" if rate else f"{value:.4f}"
    return str(value)


def print_table(report: dict) -> None:
    cols = ["set", "pages", "shingle_f1", "lcs_f1", "headline_accuracy", "date_day_accuracy", "pages_per_s",
            "mcrawl_process_wall_pages_s", "mcrawl_process_pages_s", "trafilatura_process_wall_pages_s",
            "trafilatura_process_pages_s"]
    heads = ["set", "pages", "shingle_f1", "lcs_f1", "headline_acc", "date_day_acc", "pages/s 1 core",
             "mcrawl extract wall", "cpu", "trafilatura wall", "cpu"]
    rows = [[_fmt(r.get(c), "pages_s" in c or "per_s" in c) for c in cols] for r in report["sets"] + [report["total"]]]
    widths = [max(len(h), *(len(r[k]) for r in rows)) for k, h in enumerate(heads)]
    print("  ".join(h.ljust(w) for h, w in zip(heads, widths)))
    for r in rows:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
    print("pages/s 1 core: extract() in one process (decode + parse + extractors), per CPU second.\n"
          "mcrawl extract / trafilatura: whole processes over the same files (start-up, imports, reading,"
          " output), pages per wall-clock second and per CPU second of the process.")
    for r in report["sets"]:
        if r.get("trafilatura_note"):
            print(f"note: {r['trafilatura_note']}")
            break
    for r in report["sets"]:
        if r.get("worst_pages"):
            print(f"\nworst pages of {r['set']}:")
            for page in r["worst_pages"]:
                print("  " + "  ".join(f"{k}={v}" for k, v in page.items()))


def run(args: argparse.Namespace) -> int:
    bench = args.bench or default_bench_dir()
    if not (bench / "score.py").exists():
        msg = f"bench folder not found at {bench} (set --bench or MCRAWL_BENCH): skipped"
        print(json.dumps({"skipped": msg}) if args.json else msg)
        return 0
    scorer = load_scorer(bench)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    sets = []
    for name in names:
        if not (bench / name / "gold.json").exists():
            print(f"bench: no set {name} under {bench}; skipped", file=sys.stderr)
            continue
        sets.append(bench_set(bench, name, scorer, args.limit, args.per_page, not args.no_process, args.repeat))
    pages = sum(r["pages"] for r in sets)
    spent = sum(r["extract_s"] for r in sets)
    total = {"set": "all", "pages": pages, "extract_s": round(spent, 3),
             "pages_per_s": round(pages / spent, 1) if spent else None}
    for key in ("mcrawl_process", "trafilatura_process"):
        cpu = [r.get(f"{key}_cpu_s") for r in sets]
        wall = [r.get(f"{key}_s") for r in sets]
        if sets and all(c for c in cpu) and all(w for w in wall):
            total[f"{key}_s"] = round(sum(wall), 3)
            total[f"{key}_cpu_s"] = round(sum(cpu), 3)
            total[f"{key}_pages_s"] = round(pages / sum(cpu), 1)
            total[f"{key}_wall_pages_s"] = round(pages / sum(wall), 1)
    report = {"bench": str(bench), "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "sets": sets, "total": total}
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        print_table(report)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m extraction.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
