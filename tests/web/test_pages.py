"""The server-rendered pages with Flask's test client against the real servers: escaping,
log-in, CSRF, channel add/edit/pause with validation, channel test, status."""
from __future__ import annotations

import html
import re
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from crawler.demo.server import LocalSite, Response
from tests.web.conftest import TAG, csrf_token, unique

XSS = "<script>alert('xss')</script>"
IMG_XSS = '<img src=x onerror="alert(1)">'


def channel_form(client, **changes) -> dict:
    form = {"name": unique("feed"), "kind": "rss", "entry_url": "http://127.0.0.1:9/rss.xml", "interval_s": "3600",
            "min_interval_s": "300", "max_interval_s": "86400", "priority": "0", "politeness_delay_s": "0",
            "enabled": "1", "csrf_token": csrf_token(client, "/channels/new")}
    form.update(changes)
    return form


def test_search_page_shows_highlighted_hits(client):
    page = client.get("/", query_string={"q": "古镇"})
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<em>古镇</em>" in text and "乌镇古镇迎来旅游高峰" in text
    assert re.search(r'id="result-count">2 results', text)


def test_query_and_crawled_text_are_escaped(client):
    page = client.get("/", query_string={"q": XSS})
    text = page.get_data(as_text=True)
    assert XSS not in text and html.escape(XSS, quote=False).replace("'", "&#39;") in text
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    # the English article's body holds a script tag: its snippet must show it as text
    river = client.get("/", query_string={"q": "fireworks"}).get_data(as_text=True)
    assert "<script>alert" not in river and "&lt;script&gt;alert" in river


def test_search_page_bad_input_keeps_the_form(client):
    page = client.get("/", query_string={"q": "古镇", "since": "tomorrow"})
    assert page.status_code == 400
    text = page.get_data(as_text=True)
    assert "is not a date" in text and 'value="古镇"' in text


def test_article_page_shows_full_text_url_method_and_crawl_time(client, indexed):
    hit = client.get("/api/search", query_string={"q": "地铁"}).get_json()["hits"][0]
    text = client.get(f"/article/{hit['id']}").get_data(as_text=True)
    doc = next(d for d in indexed if d["url"] == hit["url"])
    assert "地铁公司表示将继续加密班次" in text and doc["url"] in text
    crawled = datetime.fromisoformat(doc["crawled_at"]).astimezone(ZoneInfo("Asia/Shanghai"))
    assert '<dd id="method">cevc</dd>' in text and crawled.strftime("%Y-%m-%d %H:%M +0800") in text
    assert client.get("/article/" + "f" * 40).status_code == 404


def test_management_pages_refuse_unauthenticated_requests(client, store):
    for path in ("/channels/", "/channels/new", "/status/"):
        response = client.get(path)
        assert response.status_code == 302 and "/login" in response.headers["Location"], path
    token = csrf_token(client)  # a valid CSRF token, but no log-in
    form = {"name": unique("sneaky"), "kind": "rss", "entry_url": "http://127.0.0.1:9/x", "interval_s": "60",
            "min_interval_s": "60", "max_interval_s": "60", "priority": "0", "politeness_delay_s": "0",
            "csrf_token": token}
    assert client.post("/channels/new", data=form).status_code == 401
    assert store.get_channel_by_name(unique("sneaky")) is None


def test_log_in_checks_the_password_and_the_next_target(client):
    bad = client.post("/login", data={"user": "admin", "password": "wrong", "csrf_token": csrf_token(client)})
    assert bad.status_code == 401 and "Wrong user name or password" in bad.get_data(as_text=True)
    assert client.get("/channels/").status_code == 302
    evil = client.post("/login", data={"user": "admin", "password": "test-password-1", "next": "//evil.example/",
                                       "csrf_token": csrf_token(client)})
    assert evil.status_code == 302 and evil.headers["Location"] == "/channels/"
    assert client.get("/channels/").status_code == 200


def test_forms_without_csrf_token_are_refused(admin, store):
    form = channel_form(admin, name=unique("no token"))
    del form["csrf_token"]
    response = admin.post("/channels/new", data=form)
    assert response.status_code == 400 and "security token" in response.get_data(as_text=True)
    assert store.get_channel_by_name(unique("no token")) is None


def test_add_edit_pause_a_channel(admin, store):
    response = admin.post("/channels/new", data=channel_form(admin, name=unique("Xinhua RSS")))
    assert response.status_code == 302
    row = store.get_channel_by_name(unique("Xinhua RSS"))
    assert row is not None and row.kind == "rss" and row.enabled and row.politeness_delay_s == 0.0

    edit = channel_form(admin, name=unique("Xinhua RSS"), interval_s="600", min_interval_s="60", enabled="1")
    edit["csrf_token"] = csrf_token(admin, f"/channels/{row.id}/edit")
    assert admin.post(f"/channels/{row.id}/edit", data=edit).status_code == 302
    assert store.get_channel(row.id).interval_s == 600

    token = csrf_token(admin, "/channels/")
    assert admin.post(f"/channels/{row.id}/enabled", data={"enabled": "0", "csrf_token": token}).status_code == 302
    assert store.get_channel(row.id).enabled is False
    listing = admin.get("/channels/").get_data(as_text=True)
    assert f'id="channel-{row.id}" class="paused' in listing and "Resume" in listing


def test_invalid_channel_is_not_saved_and_the_reason_is_shown(admin, store):
    bad = channel_form(admin, name=unique("bad list"), kind="listpage", detail_url_regex="news/(\\d+",
                       interval_s="often")
    response = admin.post("/channels/new", data=bad)
    text = response.get_data(as_text=True)
    assert response.status_code == 400 and "is not a whole number" in text
    assert 'value="news/(\\d+"' in text  # the typed input is kept
    bad["interval_s"] = "3600"
    text = admin.post("/channels/new", data=bad).get_data(as_text=True)
    assert "does not compile" in text
    assert re.search(r'<div class="field bad">\s*<label for="f-detail_url_regex">', text)
    assert store.get_channel_by_name(unique("bad list")) is None


def test_duplicate_channel_name_is_refused(admin, store):
    assert admin.post("/channels/new", data=channel_form(admin, name=unique("twice"))).status_code == 302
    response = admin.post("/channels/new", data=channel_form(admin, name=unique("twice")))
    assert response.status_code == 400 and "already exists" in response.get_data(as_text=True)


def test_channel_name_xss_is_escaped(admin, store):
    name = f"{IMG_XSS} {TAG}"
    assert admin.post("/channels/new", data=channel_form(admin, name=name)).status_code == 302
    assert store.get_channel_by_name(name) is not None  # stored as typed ...
    for path in ("/channels/", "/status/"):
        text = admin.get(path).get_data(as_text=True)
        assert IMG_XSS not in text and "&lt;img src=x onerror=" in text, path  # ... shown as text


def test_channel_test_now_lists_detail_urls_and_extracts_the_first(admin, store):
    article = ("<html><head><title>古镇夜游项目正式启动</title></head><body><h1>古镇夜游项目正式启动</h1>"
               "<div class='time'>2025-10-01 08:30</div><div class='content'>"
               + "<p>当地文化旅游部门今天宣布，古镇夜游项目正式启动，游客可以乘船欣赏两岸灯光。</p>" * 6
               + "</div></body></html>").encode()
    listing = ("<html><body><ul><li><a href='/news/101.html'>one</a></li><li><a href='/news/102.html'>two</a></li>"
               "<li><a href='/about.html'>about</a></li></ul></body></html>").encode()
    html_type = {"Content-Type": "text/html; charset=utf-8"}
    site = LocalSite({"/robots.txt": Response(404), "/list.html": Response(200, listing, html_type),
                      "/news/101.html": Response(200, article, html_type),
                      "/news/102.html": Response(200, article, html_type)}).start()
    try:
        channel_id = store.add_channel({"name": unique("local list"), "kind": "listpage",
                                        "entry_url": site.url("/list.html"), "detail_url_regex": r"/news/\d+\.html$",
                                        "politeness_delay_s": 0.0})
        token = csrf_token(admin, "/channels/")
        text = admin.post(f"/channels/{channel_id}/test", data={"csrf_token": token}).get_data(as_text=True)
    finally:
        site.stop()
    assert site.url("/news/101.html") in text and site.url("/news/102.html") in text
    assert "/about.html" not in text
    assert "Detail URLs it would take (2)" in text
    assert "古镇夜游项目正式启动" in text and "游客可以乘船欣赏两岸灯光" in text


def test_channel_test_now_reports_a_dead_entry_page(admin, store):
    site = LocalSite({"/robots.txt": Response(404), "/gone.xml": Response(404)}).start()
    try:
        channel_id = store.add_channel({"name": unique("dead feed"), "kind": "rss",
                                        "entry_url": site.url("/gone.xml"), "politeness_delay_s": 0.0})
        token = csrf_token(admin, "/channels/")
        response = admin.post(f"/channels/{channel_id}/test", data={"csrf_token": token})
    finally:
        site.stop()
    assert response.status_code == 200
    assert "fetching the entry page failed: http_404" in response.get_data(as_text=True)


def test_status_page_shows_queues_rates_flags_bloom_and_chart_data(admin, store, queues):
    now = datetime.now(timezone.utc)
    good = store.add_channel({"name": unique("status good"), "kind": "rss", "entry_url": "http://127.0.0.1:9/a"})
    dead = store.add_channel({"name": unique("status dead"), "kind": "rss", "entry_url": "http://127.0.0.1:9/b"})
    store.log_crawl(good, "extract", extracted=6, invalid=2, errors=2, at=now - timedelta(hours=1))
    store.log_crawl(good, "extract", extracted=100, at=now - timedelta(hours=30))  # outside the 24 h window
    store.finish_run(dead, {}, now + timedelta(hours=1), empty_runs=12, flagged=True)
    queues.jobs.push({"channel_id": good}, priority=1)
    queues.details.push({"url": f"http://127.0.0.1:9/{TAG}/detail.html"})
    queues.seen.add_if_new(f"http://127.0.0.1:9/{TAG}/seen.html")

    text = admin.get("/status/").get_data(as_text=True)
    assert 'data-queue="jobs">1<' in text and 'data-queue="details_queued">1<' in text
    assert 'id="bloom-fill"' in text and 'id="bloom-fp"' in text
    flagged = re.search(r'<ul id="flagged">(.*?)</ul>', text, re.S).group(1)
    assert f'<a href="/channels/{dead}/edit">{unique("status dead")}</a>: no yield for 12 runs' in flagged
    assert unique("status good") not in flagged
    row = re.search(r"status good " + TAG + r"</td>(.*?)</tr>", text, re.S).group(1)
    cells = re.findall(r'<td class="num[^"]*">([^<]*)</td>', row)
    assert cells == ["0", "0", "6", "2", "2", "25 %", "20 %"]  # invalid 2/8, errors 2/10
    assert 'id="hourly-data"' in text and "chart.js" in text

    status = admin.get("/api/status").get_json()
    assert sum(p["count"] for p in status["articles_per_hour"]) == 5  # all test articles crawled "now"
    assert len(status["articles_per_hour"]) == 48
    assert {"site": "zh.example.cn", "count": 2} in status["sites"]
    assert 0 < status["bloom"]["fill_ratio"] < 0.001 and status["bloom"]["estimated_fp_rate"] < 1e-6


def test_front_page_lists_the_newest_articles(client):
    text = client.get("/").get_data(as_text=True)
    assert 'id="newest">Newest of' in text
    titles = re.findall(r'class="title" href="[^"]+">([^<]+)</a>', text)
    assert titles[:2] == ["River festival draws record crowds", "乌镇古镇迎来旅游高峰"]  # 1 and 2 days old


def test_repeated_wrong_passwords_are_throttled(settings, indexed, queues, store):
    from crawler.web.app import create_app
    from tests.web.conftest import web_config

    client = create_app(settings, web_config()).test_client()
    token = csrf_token(client)
    codes = [client.post("/login", data={"user": "admin", "password": f"guess {i}", "csrf_token": token}).status_code
             for i in range(6)]
    assert codes == [401] * 5 + [429]
    right = client.post("/login", data={"user": "admin", "password": "test-password-1", "csrf_token": token})
    assert right.status_code == 429 and int(right.headers["Retry-After"]) > 0  # even the right one waits


def test_metasearch_keywords_are_kept_in_order_and_edited(admin, store):
    form = channel_form(admin, name=unique("meta"), kind="metasearch",
                        entry_url="http://127.0.0.1:9/search?q={keyword}", detail_url_regex=r"/news/\d+",
                        keywords="台风\n  高温 \n\n台风\nflood")
    assert admin.post("/channels/new", data=form).status_code == 302
    row = store.get_channel_by_name(unique("meta"))
    assert store.channel_keywords(row.id) == ["台风", "高温", "flood"]
    edit_page = admin.get(f"/channels/{row.id}/edit").get_data(as_text=True)
    assert ">台风\n高温\nflood</textarea>" in edit_page

    form = channel_form(admin, name=unique("meta"), kind="metasearch",
                        entry_url="http://127.0.0.1:9/search?q={keyword}", detail_url_regex=r"/news/\d+",
                        keywords="flood\n暴雨")
    form["csrf_token"] = csrf_token(admin, f"/channels/{row.id}/edit")
    assert admin.post(f"/channels/{row.id}/edit", data=form).status_code == 302
    assert store.channel_keywords(row.id) == ["flood", "暴雨"]
    expanded = store.keywords(row.id)  # what the controller will expand (global keywords too), in order
    assert expanded.index("flood") < expanded.index("暴雨")

    too_long = channel_form(admin, name=unique("meta long"), kind="metasearch",
                            entry_url="http://127.0.0.1:9/search?q={keyword}", keywords="字" * 201)
    response = admin.post("/channels/new", data=too_long)
    assert response.status_code == 400 and "is too long" in response.get_data(as_text=True)
    assert store.get_channel_by_name(unique("meta long")) is None
