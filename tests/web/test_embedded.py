"""The console in embedded mode (SQLite channel store, local queue, SQLite FTS index): the
setting `mcrawl demo` uses, so the same pages must work there without any server."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from crawler.config import Settings
from crawler.web.app import create_app
from tests.web.conftest import articles, log_in, web_config


@pytest.fixture()
def embedded(tmp_path):
    from workers.index import open_index

    settings = Settings(db_url=f"sqlite:///{tmp_path}/c.sqlite3", queue_url=f"local:///{tmp_path}/q",
                        index_url=f"sqlite:///{tmp_path}/i.sqlite3", data_dir=str(tmp_path), bloom_capacity=10_000)
    index = open_index(settings.index_url)
    index.ensure()
    assert index.index_bulk(articles(datetime.now(timezone.utc).replace(microsecond=0)), refresh=True)[0] == 5
    index.close()
    return create_app(settings, web_config()).test_client()


def test_embedded_search_status_and_channels(embedded):
    data = embedded.get("/api/search", query_string={"q": "古镇"}).get_json()
    assert data["total"] == 2 and all("<em>" in h["snippet"] for h in data["hits"])
    page = embedded.get("/", query_string={"q": "地铁"}).get_data(as_text=True)
    assert "北京地铁新线路开通" in page
    log_in(embedded)
    status = embedded.get("/api/status").get_json()
    assert status["errors"] == {}, status["errors"]
    assert sum(p["count"] for p in status["articles_per_hour"]) == 5 and status["total_articles"] == 5
    assert embedded.get("/channels/").status_code == 200


def test_serve_in_thread_with_an_admin_password(tmp_path):
    """What `mcrawl demo` calls: a URL that answers, and the given password opens the channels page."""
    import http.cookiejar
    import re
    import urllib.parse
    import urllib.request

    from crawler.web.app import serve_in_thread, stop_server

    settings = Settings(db_url=f"sqlite:///{tmp_path}/c.sqlite3", queue_url=f"local:///{tmp_path}/q",
                        index_url=f"sqlite:///{tmp_path}/i.sqlite3", data_dir=str(tmp_path))
    url = serve_in_thread(settings, "127.0.0.1", 0, admin_password="demo-password")
    try:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        login = opener.open(url + "login", timeout=10).read().decode()
        token = re.search(r'name="csrf_token" value="([^"]+)"', login).group(1)
        form = urllib.parse.urlencode({"user": "admin", "password": "demo-password", "csrf_token": token}).encode()
        page = opener.open(url + "login", data=form, timeout=10)
        assert page.url.endswith("/channels/") and "Add a channel" in page.read().decode()
    finally:
        stop_server(url)
