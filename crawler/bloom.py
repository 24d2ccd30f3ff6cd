"""Bloom filters for "have we finished this URL already?": Redis-backed and file-backed.

Sizing follows the textbook optimum for n expected items and false-positive rate p:
    m = ceil(-n ln p / (ln 2)^2) bits,   k = round(m / n * ln 2) hash functions,
never hand-set. The k bit positions come from one blake2b digest by enhanced double hashing
(Kirsch & Mitzenmacher: x_i = a + i*b + C(i,3) mod m), so an item costs one hash, not k; batches
compute them with numpy.

Redis: a Redis string holds at most 2^32 bits, so a larger filter is split over several keys;
each item lives wholly in one key (chosen by a third slice of its digest), which keeps the
check-and-add of one item atomic inside one script call. The script sets the k bits of a group
of items with one BITFIELD (its SET sub-commands return the old bits: an item was new if one was
0) and checks with one BITFIELD_RO, instead of k GETBIT/SETBIT calls per item. Offsets travel as
one packed little-endian uint32 string per chunk, so a batch of thousands of URLs is one round
trip.

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

import numpy as np
from redis.exceptions import NoScriptError

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


def _digest(key: str | bytes) -> bytes:
    data = key.encode("utf-8") if isinstance(key, str) else key
    return hashlib.blake2b(data, digest_size=24).digest()


def positions(key: str | bytes, k: int, m: int) -> list[int]:
    """k bit positions in [0, m) by enhanced double hashing."""
    h1, h2, _ = struct.unpack("<QQQ", _digest(key))
    a, b = h1 % m, h2 % m
    return [(a + i * b + i * (i - 1) * (i - 2) // 6) % m for i in range(k)]


class BloomSpec:
    """m, k and the segment layout for n items at rate p."""

    def __init__(self, capacity: int, error_rate: float, max_segment_bits: int = REDIS_MAX_BITS):
        self.capacity = int(capacity)
        self.error_rate = float(error_rate)
        self.bits = optimal_bits(self.capacity, self.error_rate)
        self.hashes = optimal_hashes(self.capacity, self.bits)
        self.segments = max(1, math.ceil(self.bits / max_segment_bits))
        self.segment_bits = math.ceil(self.bits / self.segments)
        i = np.arange(self.hashes, dtype=np.uint64)
        self._steps = i                                   # i
        self._cubic = i * (i - 1) * (i - 2) // 6 if self.hashes > 2 else np.zeros_like(i)

    def locate(self, key: str | bytes) -> tuple[int, list[int]]:
        """(segment, k offsets inside it) of a key."""
        h1, h2, h3 = struct.unpack("<QQQ", _digest(key))
        m, k = self.segment_bits, self.hashes
        a, b = h1 % m, h2 % m
        return h3 % self.segments, [(a + i * b + i * (i - 1) * (i - 2) // 6) % m for i in range(k)]

    def locate_many(self, keys: Sequence[str | bytes]) -> tuple[np.ndarray, np.ndarray]:
        """(segments[n], offsets[n, k]) of many keys; the same numbers as locate(), vectorised."""
        raw = b"".join(_digest(key) for key in keys)
        h = np.frombuffer(raw, dtype="<u8").reshape(-1, 3)
        m = np.uint64(self.segment_bits)
        a = (h[:, 0] % m)[:, None]
        b = (h[:, 1] % m)[:, None]
        # a, b < m <= 2^32 and i, C(i,3) are small: no uint64 overflow before the final modulo
        offsets = (a + self._steps[None, :] * b + (self._cubic[None, :] % m)) % m
        return (h[:, 2] % np.uint64(self.segments)).astype(np.int64), offsets

    def __repr__(self) -> str:
        return (f"BloomSpec(n={self.capacity}, p={self.error_rate}, m={self.bits}, k={self.hashes},"
                f" segments={self.segments})")


# ---- Redis ------------------------------------------------------------------------------------
# KEYS[1]: the segment key; ARGV[1]: k; ARGV[2]: packed '<u4' offsets, k per item; ARGV[3]: 1 = add.
# Returns one 0/1 per item: add -> 1 if it was new; check -> 1 if present.
# Check reads the bits of a group of items with one BITFIELD_RO. Add sets them with one BITFIELD
# whose SET sub-commands return the old bits: an item was new when one of them was 0. Adds are
# nearly always of new URLs (spiders check, workers add once an outcome is final), so setting
# without reading first is the cheaper path. Argument lists stay under Lua's unpack limit
# (~8000). Items of one call are distinct (the client folds repeats), and a group is set in
# order, so an item whose bits an earlier item of the same group set is reported as seen, as it
# would be one call later.
_BLOOM_LUA = """
local k = tonumber(ARGV[1])
local blob = ARGV[2]
local add = ARGV[3] == '1'
local n = #blob / (4 * k)
local width = add and 4 or 3
local group = math.floor(6000 / (width * k))
local fmt = '<' .. string.rep('I4', k)
local call, sunpack, key = redis.call, struct.unpack, KEYS[1]
local args = {}
local out = {}
local pos = 1
local first = 1
while first <= n do
  local last = math.min(n, first + group - 1)
  local a = 0
  for _ = first, last do
    local t = {sunpack(fmt, blob, pos)}
    pos = t[k + 1]
    for j = 1, k do
      if add then
        args[a + 1] = 'SET'; args[a + 2] = 'u1'; args[a + 3] = t[j]; args[a + 4] = 1
        a = a + 4
      else
        args[a + 1] = 'GET'; args[a + 2] = 'u1'; args[a + 3] = t[j]
        a = a + 3
      end
    end
  end
  for j = #args, a + 1, -1 do args[j] = nil end
  local bits = call(add and 'BITFIELD' or 'BITFIELD_RO', key, unpack(args))
  local c = 0
  for it = first, last do
    local missing = false
    for _ = 1, k do
      c = c + 1
      if bits[c] == 0 then missing = true end
    end
    if add then out[it] = missing and 1 or 0 else out[it] = missing and 0 or 1 end
  end
  first = last + 1
end
return out
"""


class RedisBloom:
    """The distributed filter: keys `{prefix}:{segment}` plus `{prefix}:meta` with the sizing,
    so that a process opening the filter with a different n/p fails loudly instead of reading
    bits laid out for another size."""

    chunk = 2000  # items per script call

    def __init__(self, client, prefix: str = "mcrawl:seen", capacity: int = 10_000_000,
                 error_rate: float = 1e-4, max_segment_bits: int = REDIS_MAX_BITS):
        self.client = client
        self.prefix = prefix
        self.spec = BloomSpec(capacity, error_rate, min(max_segment_bits, REDIS_MAX_BITS))
        self._script = client.register_script(_BLOOM_LUA)
        meta = f"m={self.spec.bits};k={self.spec.hashes};segments={self.spec.segments}"
        client.set(f"{prefix}:meta", meta, nx=True)
        stored = client.get(f"{prefix}:meta")
        stored = stored.decode() if isinstance(stored, bytes) else stored
        if stored != meta:
            raise ValueError(f"Bloom filter {prefix!r} was created as {stored}, not {meta}: use another"
                             " prefix or delete the old filter")

    def _run(self, urls: Sequence[str], add: bool) -> list[bool]:
        """Repeats folded, then one script call per (segment, chunk), all in one pipeline."""
        if not urls:
            return []
        first_of: dict[str, int] = {}
        repeats: list[tuple[int, int]] = []
        for i, url in enumerate(urls):
            j = first_of.setdefault(url, i)
            if j != i:
                repeats.append((i, j))
        if repeats:
            unique = list(first_of)
            flags = self._run(unique, add)
            by_url = dict(zip(unique, flags))
            # a repeat of a URL added in this batch is no longer new; a check repeats the answer
            return [by_url[u] if (first_of[u] == i or not add) else False for i, u in enumerate(urls)]
        segments, offsets = self.spec.locate_many(urls)
        offsets = offsets.astype("<u4")
        calls = []  # (item indexes, key, packed offsets)
        if self.spec.segments == 1:
            groups = [(np.arange(len(urls)), 0)]
        else:
            order = np.argsort(segments, kind="stable")
            bounds = np.flatnonzero(np.diff(segments[order])) + 1
            groups = [(idx, int(segments[idx[0]])) for idx in np.split(order, bounds)]
        for idx, segment in groups:
            for start in range(0, len(idx), self.chunk):
                part = idx[start:start + self.chunk]
                calls.append((part, f"{self.prefix}:{segment}", offsets[part].tobytes()))
        args_flag = "1" if add else "0"
        for attempt in (1, 2):
            pipe = self.client.pipeline(transaction=False)
            for _, key, blob in calls:
                self._script(keys=[key], args=[self.spec.hashes, blob, args_flag], client=pipe)
            try:
                results = pipe.execute()
                break
            except NoScriptError:
                # Redis restarted between loading the script and running it: no call of this
                # pipeline ran (each needs the script), so running it again is safe
                if attempt == 2:
                    raise
        out = [False] * len(urls)
        for (part, _, _), flags in zip(calls, results):
            for i, flag in zip(part.tolist(), flags):
                out[i] = bool(flag)
        return out

    def _one(self, url: str, add: bool) -> bool:
        """One URL without numpy or a pipeline (redis-py reloads the script after a restart)."""
        segment, offsets = self.spec.locate(url)
        blob = struct.pack(f"<{len(offsets)}I", *offsets)
        return bool(self._script(keys=[f"{self.prefix}:{segment}"],
                                 args=[self.spec.hashes, blob, "1" if add else "0"])[0])

    def add_if_new(self, url: str) -> bool:
        """Add the URL; True if it was not in the filter (atomic, one round trip)."""
        return self._one(url, add=True)

    def add_many_if_new(self, urls: Iterable[str]) -> list[bool]:
        """Pipelined check-and-add; a URL repeated in the batch is new only the first time."""
        return self._run(list(urls), add=True)

    def contains_many(self, urls: Iterable[str]) -> list[bool]:
        return self._run(list(urls), add=False)

    def __contains__(self, url: str) -> bool:
        return self._one(url, add=False)

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
        urls = list(urls)
        if not urls:
            return []
        located = self.spec.locate_many(urls)[1].tolist()
        with self._lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                return [self._test_and_set(offsets) for offsets in located]
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def contains_many(self, urls: Iterable[str]) -> list[bool]:
        urls = list(urls)
        if not urls:
            return []
        bits = self._map
        out = []
        for offsets in self.spec.locate_many(urls)[1].tolist():
            out.append(all(bits[_HEADER_SIZE + (off >> 3)] & (1 << (off & 7)) for off in offsets))
        return out

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
