"""Bloom filters for "have we finished this URL already?": Redis-backed and file-backed.

Sizing follows the textbook optimum for n expected items and false-positive rate p:
    m = ceil(-n ln p / (ln 2)^2) bits,   k = round(m / n * ln 2) hash functions,
never hand-set. The k bit positions come from one blake2b digest by enhanced double hashing
(Kirsch & Mitzenmacher), so an item costs one hash, not k.

Redis: a Redis string holds at most 2^32 bits, so a larger filter is split over several keys;
each item lives wholly in one key (chosen by a third slice of its digest), which keeps the
check-and-add of one item atomic in one script call. SETBIT returns the old bit, so "set all k
bits and report whether any was 0" is check-and-add in one pass. Batches go to the server as
one script call per chunk, which is the pipelining that makes ~10^5 checks/s possible.

Keys are hashed as given: callers pass canonical URLs (crawler.urls.canonicalize).
"""
from __future__ import annotations

import fcntl
import hashlib
import math
import mmap
import os
import struct
import threading
from pathlib import Path
from typing import Iterable, Sequence

REDIS_MAX_BITS = 2 ** 32  # a Redis string is at most 512 MB


def optimal_bits(n: int, p: float) -> int:
    if n < 1 or not 0 < p < 1:
        raise ValueError(f"need n >= 1 and 0 < p < 1, got n={n}, p={p}")
    return int(math.ceil(-n * math.log(p) / (math.log(2) ** 2)))


def optimal_hashes(n: int, m: int) -> int:
    return max(1, int(round(m / n * math.log(2))))


def expected_fp_rate(n: int, m: int, k: int) -> float:
    """(1 - e^(-kn/m))^k: the false-positive rate after n insertions."""
    return (1.0 - math.exp(-k * n / m)) ** k


def _digest(key: str | bytes) -> tuple[int, int, int]:
    data = key.encode("utf-8") if isinstance(key, str) else key
    d = hashlib.blake2b(data, digest_size=24).digest()
    return struct.unpack("<QQQ", d)


def positions(key: str | bytes, k: int, m: int) -> list[int]:
    """k bit positions in [0, m) by enhanced double hashing."""
    h1, h2, _ = _digest(key)
    a, b = h1 % m, h2 % m
    out = []
    for i in range(k):
        out.append(a)
        a = (a + b) % m
        b = (b + i) % m
    return out


class BloomSpec:
    """m, k and the segment layout for n items at rate p."""

    def __init__(self, capacity: int, error_rate: float, max_segment_bits: int = REDIS_MAX_BITS):
        self.capacity = int(capacity)
        self.error_rate = float(error_rate)
        self.bits = optimal_bits(self.capacity, self.error_rate)
        self.hashes = optimal_hashes(self.capacity, self.bits)
        self.segments = max(1, math.ceil(self.bits / max_segment_bits))
        self.segment_bits = math.ceil(self.bits / self.segments)

    def locate(self, key: str | bytes) -> tuple[int, list[int]]:
        """(segment, k offsets inside it) of a key."""
        h1, h2, h3 = _digest(key)
        m = self.segment_bits
        a, b = h1 % m, h2 % m
        offsets = []
        for i in range(self.hashes):
            offsets.append(a)
            a = (a + b) % m
            b = (b + i) % m
        return h3 % self.segments, offsets

    def __repr__(self) -> str:
        return (f"BloomSpec(n={self.capacity}, p={self.error_rate}, m={self.bits}, k={self.hashes},"
                f" segments={self.segments})")


# ---- Redis ------------------------------------------------------------------------------------
_ADD_LUA = """
local k = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS do
  local base = 1 + (i - 1) * k
  local new = 0
  for j = 1, k do
    if redis.call('SETBIT', KEYS[i], ARGV[base + j], 1) == 0 then new = 1 end
  end
  out[i] = new
end
return out
"""

_CHECK_LUA = """
local k = tonumber(ARGV[1])
local out = {}
for i = 1, #KEYS do
  local base = 1 + (i - 1) * k
  local present = 1
  for j = 1, k do
    if redis.call('GETBIT', KEYS[i], ARGV[base + j]) == 0 then present = 0 break end
  end
  out[i] = present
end
return out
"""


class RedisBloom:
    """The distributed filter: keys `{prefix}:{segment}` plus `{prefix}:meta` with the sizing,
    so that a process opening the filter with a different n/p fails loudly instead of reading
    bits laid out for another size."""

    chunk = 500  # items per script call

    def __init__(self, client, prefix: str = "mcrawl:seen", capacity: int = 10_000_000,
                 error_rate: float = 1e-4, max_segment_bits: int = REDIS_MAX_BITS):
        self.client = client
        self.prefix = prefix
        self.spec = BloomSpec(capacity, error_rate, max_segment_bits)
        self._add = client.register_script(_ADD_LUA)
        self._check = client.register_script(_CHECK_LUA)
        meta = f"m={self.spec.bits};k={self.spec.hashes};segments={self.spec.segments}"
        client.set(f"{prefix}:meta", meta, nx=True)
        stored = client.get(f"{prefix}:meta")
        stored = stored.decode() if isinstance(stored, bytes) else stored
        if stored != meta:
            raise ValueError(f"Bloom filter {prefix!r} was created as {stored}, not {meta}: use another"
                             " prefix or delete the old filter")

    def _keys_args(self, urls: Sequence[str]) -> tuple[list[str], list[int]]:
        keys, args = [], [self.spec.hashes]
        for url in urls:
            segment, offsets = self.spec.locate(url)
            keys.append(f"{self.prefix}:{segment}")
            args.extend(offsets)
        return keys, args

    def add_if_new(self, url: str) -> bool:
        """Add the URL; True if it was not in the filter (atomic, one round trip)."""
        keys, args = self._keys_args([url])
        return bool(self._add(keys=keys, args=args)[0])

    def add_many_if_new(self, urls: Iterable[str]) -> list[bool]:
        urls = list(urls)
        out: list[bool] = []
        pipe = self.client.pipeline(transaction=False)
        for start in range(0, len(urls), self.chunk):
            keys, args = self._keys_args(urls[start:start + self.chunk])
            self._add(keys=keys, args=args, client=pipe)
        for chunk_result in pipe.execute():
            out.extend(bool(x) for x in chunk_result)
        return out

    def contains_many(self, urls: Iterable[str]) -> list[bool]:
        urls = list(urls)
        out: list[bool] = []
        pipe = self.client.pipeline(transaction=False)
        for start in range(0, len(urls), self.chunk):
            keys, args = self._keys_args(urls[start:start + self.chunk])
            self._check(keys=keys, args=args, client=pipe)
        for chunk_result in pipe.execute():
            out.extend(bool(x) for x in chunk_result)
        return out

    def __contains__(self, url: str) -> bool:
        keys, args = self._keys_args([url])
        return bool(self._check(keys=keys, args=args)[0])

    def fill_ratio(self) -> float:
        """Share of bits set (BITCOUNT: O(m), for monitoring, not the hot path)."""
        ones = sum(int(self.client.bitcount(f"{self.prefix}:{s}")) for s in range(self.spec.segments))
        return ones / (self.spec.segment_bits * self.spec.segments)

    def estimated_fp_rate(self) -> float:
        return self.fill_ratio() ** self.spec.hashes

    def clear(self) -> None:
        self.client.delete(*[f"{self.prefix}:{s}" for s in range(self.spec.segments)], f"{self.prefix}:meta")


# ---- file-backed --------------------------------------------------------------------------------
_MAGIC = b"MCBLOOM1"
_HEADER = struct.Struct("<8sQQId")  # magic, m, n, k, p
_HEADER_SIZE = 64


class FileBloom:
    """The embedded filter: a bit array in a memory-mapped file, so it survives restarts and
    costs no RAM beyond the pages in use. Check-and-add holds a thread lock (threads share one
    file description, on which flock does not exclude them) and an exclusive flock (other
    processes of the same machine), so it is atomic for both."""

    def __init__(self, path: str | os.PathLike, capacity: int = 10_000_000, error_rate: float = 1e-4):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.spec = BloomSpec(capacity, error_rate, max_segment_bits=1 << 62)
        m, k = self.spec.bits, self.spec.hashes
        size = _HEADER_SIZE + (m + 7) // 8
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            current = os.fstat(self._fd).st_size
            if current == 0:
                os.ftruncate(self._fd, size)
                os.pwrite(self._fd, _HEADER.pack(_MAGIC, m, self.spec.capacity, k, self.spec.error_rate), 0)
            else:
                header = os.pread(self._fd, _HEADER.size, 0)
                magic, fm, fn, fk, fp = _HEADER.unpack(header) if len(header) == _HEADER.size else (b"", 0, 0, 0, 0.0)
                if magic != _MAGIC:
                    raise ValueError(f"{self.path} is not a Bloom filter file")
                if (fm, fk) != (m, k) or current != size:
                    raise ValueError(f"{self.path} holds a filter for n={fn}, p={fp} (m={fm}, k={fk}), not"
                                     f" n={capacity}, p={error_rate}: move it away or keep the old sizing")
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._map = mmap.mmap(self._fd, size)
        self._lock = threading.Lock()

    def _test_and_set(self, offsets: list[int]) -> bool:
        bits = self._map
        new = False
        for off in offsets:
            i = _HEADER_SIZE + (off >> 3)
            mask = 1 << (off & 7)
            byte = bits[i]
            if not byte & mask:
                bits[i] = byte | mask
                new = True
        return new

    def add_if_new(self, url: str) -> bool:
        offsets = self.spec.locate(url)[1]
        with self._lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                return self._test_and_set(offsets)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def add_many_if_new(self, urls: Iterable[str]) -> list[bool]:
        located = [self.spec.locate(u)[1] for u in urls]
        with self._lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                return [self._test_and_set(offsets) for offsets in located]
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def contains_many(self, urls: Iterable[str]) -> list[bool]:
        return [url in self for url in urls]

    def __contains__(self, url: str) -> bool:
        bits = self._map
        for off in self.spec.locate(url)[1]:
            if not bits[_HEADER_SIZE + (off >> 3)] & (1 << (off & 7)):
                return False
        return True

    def fill_ratio(self) -> float:
        ones, step = 0, 1 << 22
        total = len(self._map) - _HEADER_SIZE
        for start in range(_HEADER_SIZE, len(self._map), step):
            ones += int.from_bytes(self._map[start:min(start + step, len(self._map))], "little").bit_count()
        return ones / (total * 8)

    def estimated_fp_rate(self) -> float:
        return self.fill_ratio() ** self.spec.hashes

    def flush(self) -> None:
        self._map.flush()

    def close(self) -> None:
        if not self._map.closed:
            self._map.flush()
            self._map.close()
            os.close(self._fd)
