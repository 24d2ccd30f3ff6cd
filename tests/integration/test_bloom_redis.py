"""The Redis Bloom filter on a real Redis: atomic check-and-add, batches, split keys, sizing guard,
and the measured false-positive rate (small n here so it runs fast; the 1M-URL figure comes from
`python -m crawler.bench_bloom`)."""
from __future__ import annotations

import random
import threading

import pytest

from crawler.bloom import RedisBloom
from crawler.queues_redis import redis_client
from tests.integration.storage_helpers import unique_prefix


@pytest.fixture
def client(redis_url):
    c = redis_client(redis_url)
    yield c
    c.close()


@pytest.fixture
def make_bloom(client):
    made = []

    def make(**kw):
        b = RedisBloom(client, prefix=unique_prefix(), **kw)
        made.append(b)
        return b

    yield make
    for b in made:
        b.clear()


def test_check_and_add(make_bloom):
    b = make_bloom(capacity=1000, error_rate=0.01)
    assert b.add_if_new("http://ex.com/1") is True
    assert b.add_if_new("http://ex.com/1") is False
    assert "http://ex.com/1" in b and "http://ex.com/2" not in b
    assert b.add_many_if_new(["http://ex.com/2", "http://ex.com/1", "http://ex.com/2"]) == [True, False, False]
    assert b.contains_many(["http://ex.com/2", "http://ex.com/3"]) == [True, False]
    assert b.add_many_if_new([]) == []


def test_concurrent_adders_see_each_url_new_exactly_once(make_bloom, client):
    b = make_bloom(capacity=10_000, error_rate=1e-4)
    urls = [f"http://ex.com/c/{i}" for i in range(2000)]
    wins: list[bool] = []
    lock = threading.Lock()

    def add(chunk_seed):
        mine = urls[:]
        random.Random(chunk_seed).shuffle(mine)
        other = RedisBloom(client, prefix=b.prefix, capacity=10_000, error_rate=1e-4)
        got = other.add_many_if_new(mine)
        with lock:
            wins.extend(got)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # every URL was reported new by exactly one adder (allowing the rare false positive)
    assert len(urls) - 3 <= sum(wins) <= len(urls)


def test_split_over_several_keys(make_bloom, client):
    b = make_bloom(capacity=20_000, error_rate=1e-3, max_segment_bits=1 << 16)
    assert b.spec.segments > 1
    urls = [f"http://ex.com/s/{i}" for i in range(5000)]
    assert sum(b.add_many_if_new(urls)) >= 4990
    assert all(b.contains_many(urls))
    used = [k for k in client.keys(f"{b.prefix}:*") if not k.endswith(b":meta")]
    assert len(used) == b.spec.segments
    assert all(client.strlen(k) * 8 <= (1 << 16) for k in used)


def test_measured_false_positive_rate_is_within_twice_p(make_bloom):
    n, p = 20_000, 1e-3
    b = make_bloom(capacity=n, error_rate=p)
    rng = random.Random(11)
    b.add_many_if_new([f"http://s{rng.randrange(50)}.example/{rng.getrandbits(64):x}" for _ in range(n)])
    probes = [f"http://probe.example/{i}" for i in range(50_000)]
    fp = sum(b.contains_many(probes)) / len(probes)
    assert fp <= 2 * p, fp
    assert 0.4 < b.fill_ratio() < 0.6
    assert b.estimated_fp_rate() == pytest.approx(p, rel=0.5)


def test_reopening_with_another_sizing_is_refused(make_bloom, client):
    b = make_bloom(capacity=1000, error_rate=0.01)
    b.add_if_new("x")
    with pytest.raises(ValueError, match="was created as"):
        RedisBloom(client, prefix=b.prefix, capacity=5000, error_rate=0.01)
    same = RedisBloom(client, prefix=b.prefix, capacity=1000, error_rate=0.01)
    assert "x" in same


def test_single_and_batch_calls_agree(make_bloom):
    b = make_bloom(capacity=5000, error_rate=1e-3, max_segment_bits=1 << 12)
    assert b.spec.segments > 1
    urls = [f"http://ex.com/agree/{i}" for i in range(300)]
    assert [b.add_if_new(u) for u in urls[:150]].count(True) >= 149
    assert b.contains_many(urls[:150]) == [True] * 150
    assert all(u in b for u in urls[:150])
    assert sum(b.add_many_if_new(urls)) >= 149          # only the second half is new
    assert sum(u in b for u in (f"http://ex.com/other/{i}" for i in range(300))) <= 3
