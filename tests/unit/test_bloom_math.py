import math
import random

import pytest

from crawler.bloom import BloomSpec, FileBloom, expected_fp_rate, optimal_bits, optimal_hashes, positions


def test_sizing_follows_the_formulas():
    n, p = 100_000_000, 1e-4
    m = optimal_bits(n, p)
    assert m == math.ceil(-n * math.log(p) / math.log(2) ** 2)
    assert 1.91e9 < m < 1.92e9          # ~228 MiB
    assert optimal_hashes(n, m) == 13
    assert expected_fp_rate(n, m, 13) == pytest.approx(p, rel=0.05)


@pytest.mark.parametrize("n, p", [(0, 0.01), (10, 0.0), (10, 1.0)])
def test_bad_sizing_is_refused(n, p):
    with pytest.raises(ValueError):
        optimal_bits(n, p)


def test_positions_are_k_in_range_and_stable():
    pos = positions("http://example.com/a", 7, 1000)
    assert len(pos) == 7 and all(0 <= x < 1000 for x in pos)
    assert pos == positions("http://example.com/a", 7, 1000)
    assert pos != positions("http://example.com/b", 7, 1000)


def test_split_layout_keeps_segments_within_the_limit():
    spec = BloomSpec(1_000_000, 1e-4, max_segment_bits=1 << 20)
    assert spec.segments == math.ceil(spec.bits / (1 << 20))
    assert spec.segment_bits <= 1 << 20
    segs = {spec.locate(f"http://x/{i}")[0] for i in range(2000)}
    assert segs == set(range(spec.segments))   # items spread over every segment


def test_file_bloom_check_and_add_and_measured_fp_rate(tmp_path):
    # n is small (20k) so the test is fast; the 1M-URL figure is measured by crawler.bench_bloom
    n, p = 20_000, 1e-3
    bloom = FileBloom(tmp_path / "seen.bloom", n, p)
    rng = random.Random(7)
    urls = [f"http://site{rng.randrange(100)}.example/{rng.getrandbits(64):x}" for _ in range(n)]
    first = bloom.add_many_if_new(urls)
    assert sum(first) >= n - 5 * n * p   # a few may collide on the way in
    assert bloom.add_many_if_new(urls[:100]) == [False] * 100
    assert all(u in bloom for u in urls)
    probes = [f"http://other.example/{i}" for i in range(50_000)]
    fp = sum(u in bloom for u in probes) / len(probes)
    assert fp <= 2 * p
    assert 0.4 < bloom.fill_ratio() < 0.6            # optimal k fills about half the bits
    assert bloom.estimated_fp_rate() == pytest.approx(p, rel=0.5)


def test_file_bloom_survives_reopen_and_refuses_other_sizing(tmp_path):
    path = tmp_path / "seen.bloom"
    bloom = FileBloom(path, 1000, 0.01)
    assert bloom.add_if_new("http://a/1") is True
    bloom.close()
    again = FileBloom(path, 1000, 0.01)
    assert "http://a/1" in again and again.add_if_new("http://a/1") is False
    again.close()
    with pytest.raises(ValueError, match="holds a filter for n=1000"):
        FileBloom(path, 5000, 0.01)
    (tmp_path / "junk").write_bytes(b"not a bloom filter at all" * 10)
    with pytest.raises(ValueError, match="not a Bloom filter"):
        FileBloom(tmp_path / "junk", 1000, 0.01)
