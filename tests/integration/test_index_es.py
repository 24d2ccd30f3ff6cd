"""The article index contract on a real Elasticsearch node (template + alias, smartcn or cjk),
plus what happens when Elasticsearch is down."""
import socket
import subprocess
import sys
import uuid

import pytest

from tests.integration.index_contract import *  # noqa: F401,F403  (the shared contract tests)
from tests.integration.index_contract import docs
from workers.index import IndexUnavailable, open_index


@pytest.fixture
def index_url(es_url):
    return f"{es_url}?alias=mcrawl-test-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def index(index_url):
    ix = open_index(index_url)
    ix.ensure()
    yield ix
    ix.drop()
    ix.close()


def test_template_and_alias_are_in_place(index):
    client = index.client
    assert client.indices.exists_alias(name=index.alias)
    indices = client.indices.get_alias(name=index.alias)
    assert list(indices) == [f"{index.alias}-000001"]
    assert indices[f"{index.alias}-000001"]["aliases"][index.alias]["is_write_index"] is True
    mapping = client.indices.get_mapping(index=index.alias)[f"{index.alias}-000001"]["mappings"]
    assert mapping["properties"]["pubdate"]["type"] == "date"
    assert mapping["properties"]["site"]["type"] == "keyword"
    index.ensure()   # idempotent


def test_rollover_keeps_documents_searchable(index):
    index.index_bulk(docs())
    index.refresh()
    index.client.indices.rollover(alias=index.alias)
    index.index_bulk([dict(docs()[0], url="https://news.example.cn/2024/05/02/more.html")])
    index.refresh()
    assert index.count() == 4 and index.search("新能源汽车").total == 2


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_elasticsearch_down_raises_index_unavailable():
    ix = open_index(f"http://127.0.0.1:{_closed_port()}")
    with pytest.raises(IndexUnavailable):
        ix.ensure()
    with pytest.raises(IndexUnavailable):
        ix.index_bulk(docs())
    with pytest.raises(IndexUnavailable):
        ix.search("tram")


def test_search_cli_against_elasticsearch(filled, index_url):
    out = subprocess.run([sys.executable, "-m", "crawler.cli", "search", "人工智能", "--index", index_url],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("1 result(s)") and "example.cn" in out.stdout and "<em>" not in out.stdout
    down = subprocess.run([sys.executable, "-m", "crawler.cli", "search", "x", "--index",
                           f"http://127.0.0.1:{_closed_port()}"], capture_output=True, text=True, timeout=120)
    assert down.returncode == 3 and "index unavailable" in down.stderr


def test_a_page_beyond_the_result_window_is_a_clear_error(filled):
    with pytest.raises(ValueError, match="Result window is too large"):
        filled.search("tram", offset=9_995, size=10)
