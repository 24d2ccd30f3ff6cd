"""The ChannelStore contract, run against both backends (test_store_sqlite.py, test_store_mysql.py
import these tests and provide the `store` and `store_factory` fixtures)."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone

import pytest

from crawler.store import Channel, StoreError, validate_channel

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def rss(name="feed", **kw):
    return Channel(name=name, kind="rss", entry_url=f"https://news.example.com/{name}.xml", **kw)


def test_add_get_update_list(store):
    cid = store.add_channel(rss(site="example.com", language="zh", tz="Asia/Shanghai", priority=3))
    got = store.get_channel(cid)
    assert got.name == "feed" and got.kind == "rss" and got.site == "example.com" and got.priority == 3
    assert got.enabled is True and got.flagged is False and got.next_run_at is None
    assert got.created_at is not None and got.created_at.tzinfo is not None
    store.update_channel(cid, interval_s=120, min_interval_s=60, xpath_body="//article")
    got = store.get_channel(cid)
    assert (got.interval_s, got.min_interval_s, got.xpath_body) == (120, 60, "//article")
    store.set_enabled(cid, False)
    assert store.list_channels(enabled=True) == []
    assert [c.id for c in store.list_channels(enabled=False)] == [cid]
    assert store.get_channel_by_name("feed").id == cid
    assert store.get_channel(cid + 1000) is None
    with pytest.raises(ValueError, match="cannot update"):
        store.update_channel(cid, id=5)
    with pytest.raises(ValueError, match="does not compile"):
        store.update_channel(cid, detail_url_regex="[unclosed")


def test_add_from_a_dict_and_refusals(store):
    cid = store.add_channel({"name": "list", "kind": "listpage", "entry_url": "https://ex.com/news/",
                             "detail_url_regex": r"/news/\d+\.html$"})
    assert store.get_channel(cid).detail_url_regex == r"/news/\d+\.html$"
    with pytest.raises(ValueError, match="unknown kind"):
        store.add_channel({"name": "x", "kind": "atom", "entry_url": "https://ex.com/"})
    with pytest.raises(ValueError, match="lacks entry_url"):
        store.add_channel({"name": "x", "kind": "rss"})
    with pytest.raises(ValueError, match="unknown channel fields"):
        store.add_channel({"name": "x", "kind": "rss", "entry_url": "https://ex.com/", "colour": 1})
    with pytest.raises(StoreError):
        store.add_channel(rss("list"))  # the name is taken


def test_sql_like_strings_are_stored_verbatim(store):
    evil = "x'); DROP TABLE channels; -- \" ` \\ %s ? ;"
    cid = store.add_channel(Channel(name=evil, kind="listpage", entry_url="https://ex.com/?q=1'--",
                                    detail_url_regex=r"'; DELETE FROM channels WHERE '1'='1", site=evil,
                                    language="zh'", tz=None))
    got = store.get_channel(cid)
    assert got.name == evil and got.site == evil
    assert got.detail_url_regex == r"'; DELETE FROM channels WHERE '1'='1"
    assert got.entry_url == "https://ex.com/?q=1'--"
    store.log_crawl(cid, "job", evil, keyword=evil)
    assert store.recent_log(cid)[0]["message"] == evil
    kid = store.add_keyword(evil, cid)
    assert kid and store.keywords(cid) == [evil]
    assert store.get_channel_by_name(evil).id == cid
    assert len(store.list_channels()) == 1  # nothing dropped or deleted


def test_validate_channel_messages():
    assert validate_channel(rss()) == []
    problems = validate_channel({"kind": "metasearch", "entry_url": "https://s.example.com/?q=x",
                                 "min_interval_s": 10, "interval_s": 10, "max_interval_s": 5})
    assert any("{keyword}" in p for p in problems)
    assert any("interval bounds" in p for p in problems)
    assert validate_channel({"kind": "listpage", "entry_url": "notaurl", "detail_xpath": "//a[",
                             "min_interval_s": 1, "interval_s": 1, "max_interval_s": 1, "tz": "No/Where"})[:1] \
        == ["entry_url 'notaurl' is not an absolute http(s) URL"]
    ok = {"kind": "metasearch", "entry_url": "https://news.baidu.com/ns?word={keyword}&tn=news",
          "min_interval_s": 1, "interval_s": 1, "max_interval_s": 1}
    assert validate_channel(ok) == []


def test_claim_due_channels_respects_time_priority_and_claims(store):
    a = store.add_channel(rss("a", priority=1))
    b = store.add_channel(rss("b", priority=5))
    c = store.add_channel(rss("c", next_run_at=T0 + timedelta(hours=1)))
    d = store.add_channel(rss("d", enabled=False))
    got = store.claim_due_channels(T0, 10, "ctl-1", lease_s=60)
    assert [ch.id for ch in got] == [b, a]           # due ones, higher priority first
    assert all(ch.claimed_by == "ctl-1" for ch in got)
    assert store.claim_due_channels(T0, 10, "ctl-2") == []      # held
    later = store.claim_due_channels(T0 + timedelta(seconds=61), 10, "ctl-2")
    assert {ch.id for ch in later} == {a, b}         # lease expired: taken over
    assert store.claim_due_channels(T0 + timedelta(seconds=62), 10, "ctl-3") == []
    # an hour later c is due too, and the earlier claims (300 s lease) have run out
    assert {ch.id for ch in store.claim_due_channels(T0 + timedelta(hours=2), 10, "ctl-3")} == {a, b, c}
    assert d not in [ch.id for ch in store.list_channels(enabled=True)]


def test_finish_run_only_by_the_claim_holder(store):
    cid = store.add_channel(rss())
    store.claim_due_channels(T0, 10, "ctl-1", lease_s=60)
    assert store.finish_run(cid, {"found": 9, "new": 4}, T0 + timedelta(minutes=5), owner="ctl-2", now=T0) is False
    assert store.finish_run(cid, {"found": 9, "new": 4, "errors": 1}, T0 + timedelta(minutes=5),
                            interval_s=300, empty_runs=0, owner="ctl-1", now=T0) is True
    got = store.get_channel(cid)
    assert (got.last_found, got.last_new, got.last_errors, got.interval_s) == (9, 4, 1, 300)
    assert got.claimed_by is None and got.next_run_at == T0 + timedelta(minutes=5) and got.last_run_at == T0
    assert store.claim_due_channels(T0 + timedelta(minutes=4), 10, "ctl-1") == []
    assert len(store.claim_due_channels(T0 + timedelta(minutes=5), 10, "ctl-1")) == 1


def test_concurrent_claims_never_take_one_run_twice(store_factory):
    setup = store_factory()
    ids = [setup.add_channel(rss(f"c{i}")) for i in range(40)]
    results: dict[str, list[int]] = {}
    barrier = threading.Barrier(4)

    def claim(owner):
        s = store_factory()  # each racer has its own connection, as separate controllers do
        barrier.wait()
        got = []
        for _ in range(5):
            got += [ch.id for ch in s.claim_due_channels(T0, 7, owner)]
        results[owner] = got
        s.close()

    threads = [threading.Thread(target=claim, args=(f"ctl-{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [cid for got in results.values() for cid in got]
    assert sorted(everything) == sorted(ids)          # all claimed, none twice
    for owner, got in results.items():
        assert all(setup.get_channel(cid).claimed_by == owner for cid in got)


def test_keywords_channel_and_global(store):
    a = store.add_channel(Channel(name="s", kind="metasearch", entry_url="https://s.example.com/?q={keyword}"))
    b = store.add_channel(Channel(name="t", kind="metasearch", entry_url="https://t.example.com/?q={keyword}"))
    store.add_keyword("人工智能", a, priority=5)
    store.add_keyword("芯片", a)
    store.add_keyword("碳中和")                        # every metasearch channel
    store.add_keyword("only-b", b)
    assert store.keywords(a) == ["人工智能", "碳中和", "芯片"]
    assert store.keywords(b) == ["only-b", "碳中和"]
    store.remove_keyword("碳中和")
    assert store.keywords(b) == ["only-b"]
    with pytest.raises(ValueError):
        store.add_keyword("  ", a)


def test_crawl_log_and_run_totals_window(store):
    cid = store.add_channel(rss())
    store.log_crawl(cid, "dispatch", "2 jobs", at=T0)
    store.log_crawl(cid, "job", found=10, new=3, at=T0 + timedelta(seconds=5))
    store.log_crawl(cid, "extract", extracted=2, invalid=1, at=T0 + timedelta(seconds=9))
    store.log_crawl(cid, "job", found=4, new=0, errors=1, at=T0 + timedelta(minutes=10))
    first = store.run_totals(cid, T0, T0 + timedelta(minutes=1))
    assert first == {"found": 10, "new": 3, "extracted": 2, "invalid": 1, "errors": 0, "reports": 2}
    assert store.run_totals(cid, T0 + timedelta(minutes=1))["errors"] == 1
    log = store.recent_log(cid, limit=2)
    assert [r["event"] for r in log] == ["job", "extract"] and log[0]["created_at"].tzinfo is not None
    assert store.recent_log(event="dispatch")[0]["message"] == "2 jobs"


def test_templates_crud(store):
    tid = store.save_template("example.com", "https://example.com/news/", {"headline": "//h1", "n": 1},
                              quality=0.8, pages=12)
    again = store.save_template("example.com", "https://example.com/news/", {"headline": "//h2"}, pages=20)
    assert again == tid
    t = store.get_template(tid)
    assert t.body == {"headline": "//h2"} and t.pages == 20
    store.save_template("other.org", "https://other.org/", {"x": "中文"}, enabled=False)
    assert [x.site for x in store.list_templates()] == ["example.com"]
    assert [x.body for x in store.list_templates("other.org", enabled_only=False)] == [{"x": "中文"}]
    store.delete_template(tid)
    assert store.get_template(tid) is None


def test_schema_is_migrated_once(store_factory):
    first = store_factory()
    assert first.schema_version() >= 1
    second = store_factory()  # opening again applies nothing new
    assert second.schema_version() == first.schema_version()
    assert set(second.table_columns()) >= {"channels", "keywords", "templates", "crawl_log", "schema_version"}
