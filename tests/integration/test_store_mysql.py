"""ChannelStore contract on a real MariaDB (distributed mode), plus schema agreement checks."""
from pathlib import Path

import pymysql
import pytest

from crawler.store import Channel, open_store
from crawler.store_mysql import split_mysql_script
from tests.integration.storage_helpers import private_mysql_db
from tests.integration.store_contract import *  # noqa: F401,F403  (the shared contract tests)

SQL = Path(__file__).resolve().parents[2] / "sql"


@pytest.fixture
def db_url(mysql_url):
    with private_mysql_db(mysql_url) as url:
        yield url


@pytest.fixture
def store_factory(db_url):
    opened = []

    def make():
        s = open_store(db_url)
        opened.append(s)
        return s

    yield make
    for s in opened:
        s.close()


@pytest.fixture
def store(store_factory):
    return store_factory()


def test_both_dialects_have_the_same_tables_and_columns(store, tmp_path):
    lite = open_store(f"sqlite:///{tmp_path}/x.sqlite3")
    assert store.table_columns() == lite.table_columns()
    lite.close()


def test_schema_sql_equals_the_migrations(store, mysql_url):
    with private_mysql_db(mysql_url) as other_url:
        from crawler.store_mysql import mysql_params

        conn = pymysql.connect(**mysql_params(other_url), autocommit=True)
        with conn.cursor() as cur:
            for statement in split_mysql_script((SQL / "schema.sql").read_text()):
                cur.execute(statement)
        conn.close()
        by_file = open_store(other_url)   # finds version 1 recorded: applies nothing
        assert by_file.schema_version() == store.schema_version()
        assert by_file.table_columns() == store.table_columns()
        by_file.close()


def test_tables_are_innodb_utf8mb4_and_keep_4_byte_characters(store):
    rows, _ = store._run("SELECT TABLE_NAME AS t, ENGINE AS e, TABLE_COLLATION AS c FROM information_schema.TABLES"
                         " WHERE TABLE_SCHEMA = DATABASE()")
    assert rows and all(r["e"] == "InnoDB" and r["c"].startswith("utf8mb4") for r in rows)
    cid = store.add_channel(Channel(name="emoji 📰 𠮷", kind="rss", entry_url="https://ex.com/feed"))
    assert store.get_channel(cid).name == "emoji 📰 𠮷"


def test_one_insert_adds_a_source(store, db_url):
    from crawler.store_mysql import mysql_params

    conn = pymysql.connect(**mysql_params(db_url), autocommit=True)
    with conn.cursor() as cur:
        cur.execute("INSERT INTO channels (name, kind, entry_url) VALUES ('raw', 'rss', 'https://ex.com/rss')")
    conn.close()
    got = store.claim_due_channels(limit=10, owner="ctl")
    assert [c.name for c in got] == ["raw"]


def test_example_channels_load(store, db_url):
    from crawler.store import validate_channel
    from crawler.store_mysql import mysql_params

    conn = pymysql.connect(**mysql_params(db_url), autocommit=True, charset="utf8mb4")
    with conn.cursor() as cur:
        for statement in split_mysql_script((SQL / "example_channels.sql").read_text()):
            cur.execute(statement)
    conn.close()
    channels = store.list_channels()
    assert len(channels) == 4 and all(validate_channel(c) == [] for c in channels)
    sina = store.get_channel_by_name("Sina News - China (list page)")
    import re

    assert re.search(sina.detail_url_regex, "https://news.sina.com.cn/c/2024-05-31/doc-inaxyz123.shtml")


def test_connection_errors_are_clear():
    from crawler.store import StoreError

    with pytest.raises(StoreError, match="cannot connect to MySQL at 127.0.0.1:1"):
        open_store("mysql://u:p@127.0.0.1:1/none")


def test_a_dropped_connection_is_reopened(store, db_url):
    from crawler.store_mysql import mysql_params

    cid = store.add_channel(Channel(name="kept", kind="rss", entry_url="https://ex.com/feed"))
    conn_id = store._run("SELECT CONNECTION_ID() AS id")[0][0]["id"]
    admin = pymysql.connect(**mysql_params(db_url), autocommit=True)
    with admin.cursor() as cur:
        cur.execute(f"KILL CONNECTION {int(conn_id)}")   # as a server restart or wait_timeout would
    admin.close()
    assert store.get_channel(cid).name == "kept"
    assert store._run("SELECT CONNECTION_ID() AS id")[0][0]["id"] != conn_id
