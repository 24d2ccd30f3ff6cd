"""The real test servers started by deploy/services.sh: MariaDB keeps utf8mb4 text, Redis keeps
queued items across a restart, Elasticsearch is 8.x and the project's index template installs,
segments Chinese text into words and survives a rollover. Plus the script's own failure paths."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pymysql
import pytest
import redis
from elasticsearch import Elasticsearch

ROOT = Path(__file__).resolve().parents[2]
SERVICES_SH = ROOT / "deploy" / "services.sh"
TEMPLATE = ROOT / "deploy" / "elasticsearch" / "index-template.json"

pytestmark = pytest.mark.services


def _services(*args: str, env: dict[str, str] | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SERVICES_SH), *args], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, **(env or {})})


# ---------------------------------------------------------------- MariaDB

def _mysql(url: str, database: str | None = None) -> pymysql.connections.Connection:
    parts = urlsplit(url)
    return pymysql.connect(host=parts.hostname, port=parts.port or 3306, user=parts.username,
                           password=parts.password or "", database=database, charset="utf8mb4",
                           autocommit=True)


def test_mariadb_round_trips_chinese_and_four_byte_text(mysql_url):
    text = "新华社北京11月21日电 记者：张三 🚀 ｢全角｣"
    table = f"svc_{uuid.uuid4().hex[:10]}"
    conn = _mysql(mysql_url, urlsplit(mysql_url).path.lstrip("/"))
    try:
        with conn.cursor() as cur:
            # No table-level charset: the server default must already be utf8mb4.
            cur.execute(f"CREATE TABLE `{table}` (id INT PRIMARY KEY, body TEXT) ENGINE=InnoDB")
            cur.execute(f"INSERT INTO `{table}` VALUES (1, %s)", (text,))
            cur.execute(f"SELECT body, CHAR_LENGTH(body) FROM `{table}` WHERE id = 1")
            body, length = cur.fetchone()
            cur.execute("SELECT @@character_set_database")
            charset = cur.fetchone()[0]
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS `{table}`")
        conn.close()
    assert body == text
    assert length == len(text)
    assert charset == "utf8mb4"


def test_mariadb_user_may_create_and_drop_project_databases(mysql_url):
    name = f"mcrawl_svc_{uuid.uuid4().hex[:8]}"
    conn = _mysql(mysql_url)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{name}`")
            cur.execute("SHOW DATABASES")
            assert name in {row[0] for row in cur.fetchall()}
            cur.execute(f"DROP DATABASE `{name}`")
    finally:
        conn.close()


def test_mariadb_user_may_not_touch_other_databases(mysql_url):
    conn = _mysql(mysql_url)
    try:
        with conn.cursor() as cur, pytest.raises(pymysql.err.OperationalError) as err:
            cur.execute("CREATE DATABASE `other_project`")
    finally:
        conn.close()
    assert err.value.args[0] == 1044  # access denied for user to database


# ---------------------------------------------------------------- Redis

def test_redis_is_append_only(redis_url):
    client = redis.Redis.from_url(redis_url)
    assert client.config_get("appendonly") == {"appendonly": "yes"}


def test_redis_keeps_queued_items_across_a_restart(redis_url):
    key = f"mcrawl-test-svc-{uuid.uuid4().hex[:8]}"
    items = [f"https://example.test/{i}" for i in range(50)]
    client = redis.Redis.from_url(redis_url)
    client.rpush(key, *items)
    pid_before = client.info("server")["process_id"]
    client.close()

    result = _services("restart", "redis", env={"MCRAWL_REDIS_PORT": str(urlsplit(redis_url).port)})
    assert result.returncode == 0, result.stderr

    client = redis.Redis.from_url(redis_url)
    try:
        assert client.info("server")["process_id"] != pid_before, "Redis was not really restarted"
        assert [v.decode() for v in client.lrange(key, 0, -1)] == items
    finally:
        client.delete(key)
        client.close()


# ---------------------------------------------------------------- Elasticsearch

@pytest.fixture
def es(es_url):
    client = Elasticsearch(es_url, request_timeout=60)
    yield client
    client.close()


@pytest.fixture
def template_body() -> dict:
    return json.loads(TEMPLATE.read_text(encoding="utf-8"))


def test_elasticsearch_is_8x_like_the_python_client(es):
    import elasticsearch

    info = es.info()
    assert info["version"]["number"].split(".")[0] == "8"
    assert elasticsearch.__versionstr__.split(".")[0] == "8"
    assert es.cluster.health(wait_for_status="yellow", timeout="30s")["status"] in ("green", "yellow")


def test_index_template_covers_the_article_fields(template_body):
    props = template_body["template"]["mappings"]["properties"]
    for keyword in ("url", "site", "channel", "channel_kind", "lang", "page_type", "method"):
        assert props[keyword]["type"] == "keyword", keyword
    for text in ("title", "content"):
        assert props[text]["type"] == "text" and props[text]["analyzer"] == "mcrawl_text"
    assert props["title"]["fields"]["keyword"]["type"] == "keyword"
    for both in ("author", "source"):
        assert props[both]["type"] == "keyword" and props[both]["fields"]["text"]["type"] == "text"
    assert props["pubdate"]["type"] == props["crawled_at"]["type"] == "date"
    assert template_body["index_patterns"] == ["mcrawl-articles-*"]
    # A template that defines the rollover alias makes rollover fail; the alias is bootstrapped instead.
    assert "aliases" not in template_body["template"]
    assert template_body["_meta"]["alias"] == "mcrawl-articles"


@pytest.fixture
def private_template(es, template_body):
    """The project template installed under a test-only name and index pattern, removed afterwards,
    so it cannot disturb the real mcrawl-articles indices of other tests."""
    tag = f"mcrawl-svctest-{uuid.uuid4().hex[:8]}"
    body = dict(template_body)
    body["index_patterns"] = [f"{tag}-*"]
    body["priority"] = template_body["priority"] + 1
    es.indices.put_index_template(name=tag, **body)
    yield tag
    # Elasticsearch 8 refuses wildcard deletes (action.destructive_requires_name): name each index.
    for index in es.indices.get(index=f"{tag}-*", expand_wildcards="all"):
        es.options(ignore_status=404).indices.delete(index=index)
    es.options(ignore_status=404).indices.delete_index_template(name=tag)


def test_template_segments_chinese_into_words(es, private_template):
    index = f"{private_template}-000001"
    es.indices.create(index=index)
    text = "中华人民共和国国务院今天发布新闻"
    tokens = [t["token"] for t in es.indices.analyze(index=index, analyzer="mcrawl_text", text=text)["tokens"]]
    # Words, not single characters or overlapping bigrams: the tokens tile the text exactly once.
    assert "".join(tokens) == text
    assert "国务院" in tokens
    assert len(tokens) < len(text) / 2


def test_template_indexes_and_finds_chinese_article(es, private_template):
    index = f"{private_template}-000001"
    alias = private_template
    es.indices.create(index=index, aliases={alias: {"is_write_index": True}})
    mapping = es.indices.get_mapping(index=index)[index]["mappings"]["properties"]
    assert mapping["content"]["analyzer"] == "mcrawl_text"
    assert mapping["pubdate"]["type"] == "date"
    es.index(index=alias, id="a1", refresh="wait_for", document={
        "url": "https://news.example.test/a1", "site": "news.example.test", "channel": "demo",
        "channel_kind": "rss", "title": "国务院发布新闻", "content": "北京大学的学生在图书馆看书。" * 5,
        "pubdate": "2026-11-21T08:00:00+08:00", "crawled_at": "2026-11-21T01:00:00Z",
        "author": "张三", "source": "新华社", "lang": "zh", "page_type": "news", "method": "cevc",
    })
    hits = es.search(index=alias, query={"match": {"content": "图书馆"}})["hits"]["hits"]
    assert [h["_id"] for h in hits] == ["a1"]
    # A word the text does not contain as a word (only as characters) must not match.
    assert es.search(index=alias, query={"match_phrase": {"title": "务院发"}})["hits"]["total"]["value"] == 0
    exact = es.search(index=alias, query={"term": {"title.keyword": "国务院发布新闻"}})["hits"]["hits"]
    assert [h["_id"] for h in exact] == ["a1"]


def test_template_alias_rolls_over_to_a_new_index_with_the_same_mapping(es, private_template):
    alias = private_template
    es.indices.create(index=f"{alias}-000001", aliases={alias: {"is_write_index": True}})
    result = es.indices.rollover(alias=alias)
    assert result["rolled_over"] and result["new_index"] == f"{alias}-000002"
    new_mapping = es.indices.get_mapping(index=f"{alias}-000002")[f"{alias}-000002"]["mappings"]
    assert new_mapping["properties"]["title"]["analyzer"] == "mcrawl_text"
    write_index = [name for name, meta in es.indices.get_alias(name=alias).items()
                   if meta["aliases"][alias].get("is_write_index")]
    assert write_index == [f"{alias}-000002"]


# ---------------------------------------------------------------- deploy/services.sh itself

def test_services_status_reports_all_up():
    result = _services("status", timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [
        ["mysql", "up"], ["redis", "up"], ["es", "up"]]


def test_services_start_is_idempotent_and_reuses_running_servers():
    result = _services("start", timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("(reused)") == 3, result.stderr


def test_services_rejects_an_unknown_server_name():
    result = _services("start", "postgres", timeout=30)
    assert result.returncode != 0
    assert "unknown server 'postgres'" in result.stderr


def test_services_refuses_a_port_taken_by_another_program(tmp_path):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        port = squatter.getsockname()[1]
        result = _services("start", "redis", timeout=60, env={
            "MCRAWL_SERVICES_DIR": str(tmp_path / "svc"), "MCRAWL_SERVICES_ENV": str(tmp_path / "env"),
            "MCRAWL_REDIS_PORT": str(port)})
    assert result.returncode != 0
    assert f"port {port} is taken" in result.stderr
    assert not (tmp_path / "env").exists()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_concurrent_starts_share_one_server_and_release_the_lock(tmp_path):
    """Two `start`s at once (two test runs, or CI beside a developer) get one Redis, and the started
    server must not keep the script's lock: a later `stop` must not wait for it."""
    env = {**os.environ, "MCRAWL_SERVICES_DIR": str(tmp_path / "svc"), "MCRAWL_SERVICES_ENV": str(tmp_path / "env"),
           "MCRAWL_REDIS_PORT": str(_free_port())}
    both = [subprocess.Popen(["bash", str(SERVICES_SH), "start", "redis"], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    try:
        outputs = [p.communicate(timeout=60)[1] for p in both]
        assert [p.returncode for p in both] == [0, 0], outputs
        assert sum("starting Redis" in o for o in outputs) == 1, outputs
        assert sum("(reused)" in o for o in outputs) == 1, outputs
    finally:
        stop = subprocess.run(["bash", str(SERVICES_SH), "stop", "redis"], env=env, capture_output=True,
                              text=True, timeout=30)
    assert stop.returncode == 0, stop.stderr
    assert "redis stopped" in stop.stderr


def test_services_shows_the_log_tail_when_a_server_fails_to_start(tmp_path):
    # Redis rejects this port number at startup: the script must say so and show Redis's own words.
    result = _services("start", "redis", timeout=60, env={
        "MCRAWL_SERVICES_DIR": str(tmp_path / "svc"), "MCRAWL_SERVICES_ENV": str(tmp_path / "env"),
        "MCRAWL_REDIS_PORT": "70000", "MCRAWL_START_TIMEOUT": "20"})
    assert result.returncode != 0
    assert "Redis did not start" in result.stderr
    assert "last lines of" in result.stderr
    assert not (tmp_path / "env").exists()
