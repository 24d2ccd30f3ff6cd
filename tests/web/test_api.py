"""The JSON API against the real Elasticsearch, MariaDB and Redis, checked against the
console's own OpenAPI description."""
from __future__ import annotations

import jsonschema
import pytest

from crawler.config import Settings

from crawler.web.openapi import openapi_document
from tests.web.conftest import TAG, log_in, unique


def check_schema(payload, name: str) -> None:
    """Validate `payload` against components/schemas/<name> of the served OpenAPI document."""
    doc = openapi_document()
    schema = {"$ref": f"#/components/schemas/{name}", "components": doc["components"]}
    jsonschema.Draft202012Validator(schema).validate(payload)


def test_openapi_documents_every_api_route(app, client):
    served = client.get("/api/openapi.json")
    assert served.status_code == 200
    doc = served.get_json()
    assert doc["openapi"].startswith("3.1")
    routes = {rule.rule.replace("<doc_id>", "{id}") for rule in app.url_map.iter_rules()
              if rule.rule.startswith("/api/")}
    assert routes == set(doc["paths"])


def test_search_finds_a_chinese_word_with_highlight(client):
    response = client.get("/api/search", query_string={"q": "古镇"})
    assert response.status_code == 200
    data = response.get_json()
    check_schema(data, "SearchResults")
    urls = {hit["url"] for hit in data["hits"]}
    assert any(f"/{TAG}/1.html" in u for u in urls) and any(f"/{TAG}/5.html" in u for u in urls)
    assert all("<em>古镇</em>" in hit["snippet"] for hit in data["hits"])
    assert not any(f"/{TAG}/2.html" in u for u in urls)  # the Beijing metro article has no 古镇


def test_search_filters_sort_and_paging(client):
    by_site = client.get("/api/search", query_string={"q": "river", "site": "en.example.com"}).get_json()
    assert by_site["total"] == 2 and {h["site"] for h in by_site["hits"]} == {"en.example.com"}
    assert client.get("/api/search", query_string={"q": "river", "site": "zh.example.cn"}).get_json()["total"] == 0

    kinds = client.get("/api/search", query_string={"q": "river", "channel_kind": "sitemap"}).get_json()
    assert [h["title"] for h in kinds["hits"]] == ["City council approves new bike lanes"]
    forum = client.get("/api/search", query_string={"q": "古镇", "page_type": "forum"}).get_json()
    assert [h["title"] for h in forum["hits"]] == ["古镇游玩攻略讨论帖"]

    newest = client.get("/api/search", query_string={"site": "zh.example.cn", "sort": "newest"}).get_json()
    dates = [h["pubdate"] for h in newest["hits"]]
    assert len(dates) == 2 and dates == sorted(dates, reverse=True)

    page1 = client.get("/api/search", query_string={"q": "river", "size": 1, "sort": "newest"}).get_json()
    page2 = client.get("/api/search", query_string={"q": "river", "size": 1, "page": 2, "sort": "newest"}).get_json()
    assert page1["total"] == page2["total"] == 2
    assert page1["hits"][0]["url"] != page2["hits"][0]["url"] and page2["page"] == 2


def test_search_date_range_keeps_whole_days(client, indexed):
    newest_zh = max((d for d in indexed if d["site"] == "zh.example.cn"), key=lambda d: d["pubdate"])
    day = newest_zh["pubdate"][:10]
    # a UTC timestamp may fall on the next local day in Asia/Shanghai: ask for a two-day window
    from datetime import date, timedelta

    after = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    hits = client.get("/api/search", query_string={"site": "zh.example.cn", "since": day, "until": after}).get_json()
    assert [h["url"] for h in hits["hits"]] == [newest_zh["url"]]
    none = client.get("/api/search", query_string={"site": "zh.example.cn", "since": "2001-01-01",
                                                   "until": "2001-01-02"}).get_json()
    assert none["total"] == 0


@pytest.mark.parametrize("params, words", [
    ({"q": "x", "since": "last week"}, "not a date"),
    ({"q": "x", "sort": "oldest"}, "sort must be one of"),
    ({"q": "x", "page": "-1"}, "between 1"),
    ({"q": "x", "size": "5000"}, "between 1 and 100"),
])
def test_bad_search_parameters_get_400_with_reason(client, params, words):
    response = client.get("/api/search", query_string=params)
    assert response.status_code == 400
    check_schema(response.get_json(), "Error")
    assert words in response.get_json()["error"]


def test_article_by_id_and_unknown_id(client):
    hit = client.get("/api/search", query_string={"q": "地铁"}).get_json()["hits"][0]
    doc = client.get(f"/api/articles/{hit['id']}").get_json()
    check_schema(doc, "Article")
    assert doc["title"] == "北京地铁新线路开通" and doc["method"] == "cevc" and "十九号线" in doc["content"]
    assert client.get("/api/articles/" + "0" * 40).status_code == 404
    assert client.get("/api/articles/not-an-id!").status_code == 404


def test_management_api_needs_log_in(client, store):
    for path in ("/api/channels", "/api/status"):
        response = client.get(path)
        assert response.status_code == 401, path
        check_schema(response.get_json(), "Error")
    log_in(client)
    store.add_channel({"name": unique("api feed"), "kind": "rss", "entry_url": "http://127.0.0.1:9/feed.xml"})
    channels = client.get("/api/channels").get_json()
    check_schema(channels, "ChannelList")
    assert unique("api feed") in {c["name"] for c in channels["channels"]}
    status = client.get("/api/status").get_json()
    check_schema(status, "Status")
    assert status["errors"] == {}, status["errors"]
    assert status["total_articles"] == 5


def test_closed_search_needs_log_in(settings, indexed, queues, store):
    from crawler.web.app import create_app
    from tests.web.conftest import web_config

    app = create_app(settings, web_config(open_search=False))
    client = app.test_client()
    assert client.get("/api/search", query_string={"q": "古镇"}).status_code == 401
    assert client.get("/", query_string={"q": "古镇"}).status_code == 302
    log_in(client)
    assert client.get("/api/search", query_string={"q": "古镇"}).get_json()["total"] == 2


def test_a_backend_that_is_down_gives_503_with_a_reason(tmp_path):
    """Elasticsearch and MySQL on a closed port: the pages say which part is down, nothing crashes."""
    import socket

    from crawler.web.app import create_app
    from tests.web.conftest import web_config

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(
        db_url=f"mysql://u:p@127.0.0.1:{port}/x", queue_url=f"redis://127.0.0.1:{port}/0",
        index_url=f"http://127.0.0.1:{port}", data_dir=str(tmp_path))
    client = create_app(settings, web_config()).test_client()
    search = client.get("/api/search", query_string={"q": "古镇"})
    assert search.status_code == 503 and "did not answer" in search.get_json()["error"]
    page = client.get("/", query_string={"q": "古镇"})
    assert page.status_code == 503 and "did not answer" in page.get_data(as_text=True)
    log_in(client)
    channels = client.get("/channels/")
    assert channels.status_code == 503 and "cannot connect to MySQL" in channels.get_data(as_text=True)
    status = client.get("/api/status").get_json()
    assert set(status["errors"]) == {"queues", "index", "channels"}


def test_search_reports_the_index_time(client):
    response = client.get("/api/search", query_string={"q": "river"})
    assert float(response.headers["Server-Timing"].removeprefix("index;dur=")) > 0
