"""Helpers for the storage tests: a private MySQL database per test module, unique Redis prefixes."""
from __future__ import annotations

import contextlib
import uuid
from urllib.parse import urlsplit, urlunsplit

import pymysql


@contextlib.contextmanager
def private_mysql_db(mysql_url: str):
    """A fresh database `mcrawl_t_<random>` on the test server (the test user may create `mcrawl%`
    databases), dropped afterwards, so tests running side by side never see each other's rows."""
    parts = urlsplit(mysql_url)
    name = f"mcrawl_t_{uuid.uuid4().hex[:10]}"
    conn = pymysql.connect(host=parts.hostname, port=parts.port or 3306, user=parts.username,
                           password=parts.password or "", autocommit=True)
    try:
        with conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        yield urlunsplit(parts._replace(path=f"/{name}"))
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
        conn.close()


def unique_prefix() -> str:
    return f"mcrawl-test-{uuid.uuid4().hex[:8]}"


# A small Bloom filter for tests (240 KB in Redis instead of 24 MB at the default 10M capacity); a
# test and the `mcrawl` processes it starts must agree on it (MCRAWL_BLOOM_N).
BLOOM_N = 100_000


def drop_redis_prefix(redis_url: str, prefix: str) -> None:
    """Delete every key of a test's queue prefix (queues, pending set, Bloom filter, politeness)."""
    import redis

    client = redis.Redis.from_url(redis_url.split("?", 1)[0])
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()
