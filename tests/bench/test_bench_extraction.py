"""The extraction benchmark runs end to end on a few bench pages and reports sane figures.

Checks sanity (the scorer ran, pages were extracted and timed), not the targets: the targets are
read off the full run (`python -m extraction.bench`), recorded in docs/benchmarks/extraction.md.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.bench


def run_bench(*args: str) -> tuple[dict, subprocess.CompletedProcess]:
    proc = subprocess.run([sys.executable, "-m", "extraction.bench", "--json", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), proc


def test_bench_on_a_few_pages_gives_sane_figures(bench_dir):
    report, _ = run_bench("--bench", str(bench_dir), "--limit", "6", "--per-page", "3")
    sets = {row["set"]: row for row in report["sets"]}
    assert set(sets) == {"en-articles", "zh-news"}
    for row in sets.values():
        assert row["pages"] == 6
        assert row["shingle_f1"] > 0.5 and row["lcs_f1"] > 0.5
        assert row["pages_per_s"] > 1
        assert len(row["worst_pages"]) == 3
        assert row["mcrawl_process_pages_s"] > 0
        assert row.get("trafilatura_process_pages_s") or row.get("trafilatura_note")
    assert sets["zh-news"]["headline_accuracy"] is not None  # zh-news gold has headlines and dates
    assert sets["zh-news"]["date_day_accuracy"] is not None
    assert report["total"]["pages"] == 12


def test_bench_folder_absent_is_skipped_not_failed(tmp_path):
    report, _ = run_bench("--bench", str(tmp_path / "nowhere"))
    assert "skipped" in report and "nowhere" in report["skipped"]


def test_mcrawl_bench_command_runs(bench_dir):
    proc = subprocess.run([sys.executable, "-m", "crawler.cli", "bench", "--bench", str(bench_dir), "--sets",
                           "zh-news", "--limit", "2", "--no-process"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].split()[:4] == ["set", "pages", "shingle_f1", "lcs_f1"]
