"""The article index contract on SQLite FTS5 with jieba tokens, plus the search CLI."""
import subprocess
import sys

import pytest

from tests.integration.index_contract import *  # noqa: F401,F403  (the shared contract tests)
from tests.integration.index_contract import docs
from workers.index import open_index
from workers.index_sqlite import make_snippet, query_terms


@pytest.fixture
def index_url(tmp_path):
    return f"sqlite:///{tmp_path}/index.sqlite3"


@pytest.fixture
def index(index_url):
    ix = open_index(index_url)
    ix.ensure()
    yield ix
    ix.close()


def test_snippets_are_cut_from_the_original_text():
    text = "前文" * 100 + "人工智能正在改变制造业" + "后文" * 100
    snippet = make_snippet(text, query_terms("人工智能 制造业"))
    assert "<em>人工智能</em>" in snippet and "<em>制造业</em>" in snippet
    assert snippet.startswith("…") and snippet.endswith("…") and " " not in snippet
    assert make_snippet("", ["x"]) == ""


def test_index_survives_reopening(index_url, index):
    index.index_bulk(docs())
    index.close()
    again = open_index(index_url)
    assert again.search("新能源汽车").total == 1
    again.close()


def test_unwritable_location_is_unavailable(tmp_path):
    from workers.index import IndexUnavailable

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(IndexUnavailable):
        open_index(f"sqlite:///{blocker}/sub/index.sqlite3").ensure()


def test_search_cli_prints_ranked_highlighted_results(filled, index_url):
    cmd = [sys.executable, "-m", "crawler.cli", "search", "tram", "network", "--index", index_url]
    out = subprocess.run(cmd + ["--color", "always"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("2 result(s) for 'tram network'")
    assert "Council votes to expand tram network" in out.stdout
    assert "\033[1m" in out.stdout and "<em>" not in out.stdout
    plain = subprocess.run(cmd + ["--site", "forum.example.com"], capture_output=True, text=True, timeout=120)
    assert "\033[" not in plain.stdout and "1 result(s)" in plain.stdout
    bad = subprocess.run(cmd + ["--since", "yesterday"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "not a date" in bad.stderr
    days = subprocess.run([sys.executable, "-m", "crawler.cli", "search", "--since", "2024-06-02", "--until",
                           "2024-06-02", "--index", index_url], capture_output=True, text=True, timeout=120)
    assert days.stdout.startswith("1 result(s)")
