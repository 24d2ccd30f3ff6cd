"""Fixtures for the console tests: the real MariaDB, Redis and Elasticsearch of
deploy/services.sh, each namespaced per test session (Redis key prefix, Elasticsearch alias,
unique channel names) so runs never see each other's data."""
from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from werkzeug.security import generate_password_hash

from crawler.config import Settings
from crawler.web.app import create_app
from crawler.web.webconfig import WebConfig

ADMIN, PASSWORD = "admin", "test-password-1"
TAG = uuid.uuid4().hex[:8]


def articles(now: datetime) -> list[dict]:
    """A few documents written for these tests: two Chinese, two English, one forum thread."""
    def doc(n, site, title, content, pubdate, **extra):
        return {"url": f"http://{site}/{TAG}/{n}.html", "site": site, "channel": 1, "channel_kind": "rss",
                "title": title, "content": content, "pubdate": pubdate.isoformat(), "crawled_at": now.isoformat(),
                "author": "记者 王明", "source": "新华社", "lang": "zh", "page_type": "article", "method": "cevc",
                **extra}
    day = timedelta(days=1)
    return [
        doc(1, "zh.example.cn", "乌镇古镇迎来旅游高峰",
            "国庆假期，乌镇古镇迎来旅游高峰。游客在古镇的石板路上漫步，欣赏江南水乡的风景。\n"
            "当地政府表示，今年的游客数量比去年增加了两成。", now - 2 * day),
        doc(2, "zh.example.cn", "北京地铁新线路开通",
            "北京地铁十九号线今天正式开通运营，沿线居民出行更加方便。\n地铁公司表示将继续加密班次。", now - 10 * day),
        doc(3, "en.example.com", "River festival draws record crowds",
            "The annual river festival drew record crowds this weekend, organisers said.\n"
            "Boats lined the river <script>alert('x')</script> as fireworks lit the sky.", now - 1 * day,
            lang="en", author="Jane Doe", source="Example News"),
        doc(4, "en.example.com", "City council approves new bike lanes",
            "The city council approved a plan for new bike lanes along the river on Tuesday.", now - 5 * day,
            lang="en", author="John Roe", source="Example News", channel_kind="sitemap"),
        doc(5, "bbs.example.cn", "古镇游玩攻略讨论帖",
            "楼主：去古镇玩要注意什么？\n回复：早点去，人少。", now - 3 * day, page_type="forum", method="pean"),
    ]


@pytest.fixture(scope="session")
def settings(mysql_url, redis_url, es_url, tmp_path_factory) -> Settings:
    return Settings(db_url=mysql_url, queue_url=f"{redis_url}?prefix=webtest-{TAG}",
                    index_url=f"{es_url}?alias=webtest-{TAG}", data_dir=str(tmp_path_factory.mktemp("web")),
                    bloom_capacity=100_000)


@pytest.fixture(scope="session")
def indexed(settings):
    """The test articles in a fresh Elasticsearch alias; dropped after the session."""
    from workers.index import open_index

    index = open_index(settings.index_url)
    index.ensure()
    docs = articles(datetime.now(timezone.utc).replace(microsecond=0))
    ok, errors = index.index_bulk(docs, refresh=True)
    assert (ok, errors) == (len(docs), [])
    yield docs
    index.drop()
    index.close()


@pytest.fixture(scope="session")
def queues(settings):
    from crawler.queues import open_queues

    q = open_queues(settings.queue_url, settings)
    yield q
    q.jobs.clear()
    q.details.clear()
    client = q.extra.get("client")
    if client is not None:
        client.delete(f"webtest-{TAG}:seen")
    q.close()


@pytest.fixture(scope="session")
def store(settings):
    from crawler.store import open_store

    s = open_store(settings.db_url)
    yield s
    for channel in s.list_channels():
        if TAG in channel.name:
            s.delete_channel(channel.id)
    s.close()


def web_config(**changes) -> WebConfig:
    values = dict(open_search=True, users={ADMIN: generate_password_hash(PASSWORD)}, secret_key="test-" + TAG,
                  page_size=10)
    values.update(changes)
    return WebConfig(**values)


@pytest.fixture()
def app(settings, indexed, queues, store):
    app = create_app(settings, web_config())
    app.config["TESTING"] = True
    return app


@pytest.fixture()
def client(app):
    return app.test_client()


_TOKEN = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf_token(client, path: str = "/login") -> str:
    page = client.get(path)
    match = _TOKEN.search(page.get_data(as_text=True))
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def log_in(client, user: str = ADMIN, password: str = PASSWORD):
    return client.post("/login", data={"user": user, "password": password, "csrf_token": csrf_token(client)})


@pytest.fixture()
def admin(client):
    response = log_in(client)
    assert response.status_code == 302
    return client


def unique(name: str) -> str:
    return f"{name} {TAG}"
