"""The search benchmark script runs end to end on a small index (figures printed, not judged:
speed is reported by the benchmark itself, never asserted in a test)."""
from __future__ import annotations

import re

from crawler.bench_web import main, make_docs, percentile
from tests.web.conftest import TAG


def test_synthetic_docs_are_deterministic_and_complete():
    first, again = list(make_docs(50)), list(make_docs(50))
    assert first == again
    assert {d["lang"] for d in first} == {"zh", "en"}
    assert all(len(d["content"]) > 100 and d["title"] for d in first)


def test_percentile_nearest_rank():
    values = list(range(1, 101))
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (50, 95, 100)
    assert percentile([7.0], 95) == 7.0


def test_benchmark_runs_on_a_small_index(es_url, capsys):
    from workers.index import open_index

    alias = f"webtest-bench-{TAG}"
    try:
        assert main(["--es", es_url, "--alias", alias, "--docs", "300", "--queries", "20", "--warmup", "2"]) == 0
    finally:
        index = open_index(f"{es_url}?alias={alias}")
        index.drop()
        index.close()
    out = capsys.readouterr().out
    assert "index: 300 documents" in out
    assert re.search(r"p50 [\d.]+ ms .* p95 [\d.]+ ms", out)
