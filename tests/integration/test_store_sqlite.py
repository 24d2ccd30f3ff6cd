"""ChannelStore contract on SQLite (embedded mode), plus the SQLite-only details."""
import sqlite3

import pytest

from crawler.store import CHANNEL_COLUMNS, open_store
from tests.integration.store_contract import *  # noqa: F401,F403  (the shared contract tests)


@pytest.fixture
def store_factory(tmp_path):
    opened = []

    def make():
        s = open_store(f"sqlite:///{tmp_path}/mcrawl.sqlite3")
        opened.append(s)
        return s

    yield make
    for s in opened:
        try:
            s.close()
        except Exception:
            pass


@pytest.fixture
def store(store_factory):
    return store_factory()


def test_channel_columns_match_the_dataclass(store):
    assert set(store.table_columns()["channels"]) == set(CHANNEL_COLUMNS)


def test_one_insert_adds_a_source(tmp_path, store):
    path = tmp_path / "mcrawl.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO channels (name, kind, entry_url) VALUES ('raw', 'rss', 'https://ex.com/rss')")
    conn.commit()
    conn.close()
    got = store.claim_due_channels(limit=10, owner="ctl")
    assert [c.name for c in got] == ["raw"] and got[0].interval_s == 3600


def test_example_channels_load_and_validate(store):
    from pathlib import Path

    from crawler.store import validate_channel

    script = (Path(__file__).resolve().parents[2] / "sql" / "example_channels.sql").read_text()
    store._conn.executescript(script)
    channels = store.list_channels()
    assert {c.kind for c in channels} == {"rss", "metasearch", "listpage", "sitemap"}
    assert all(validate_channel(c) == [] for c in channels)
    baidu = store.get_channel_by_name("Baidu News search")
    assert "人工智能" in store.keywords(baidu.id)


def test_bad_sqlite_urls():
    with pytest.raises(ValueError):
        open_store("postgres://x/y")
    with pytest.raises(ValueError):
        open_store("sqlite://relative-without-slash")
