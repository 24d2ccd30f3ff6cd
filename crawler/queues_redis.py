"""Distributed queues on Redis. Every state change of an item is one Lua script, so it is atomic
and one round trip; the client retries on connection errors with exponential back-off, so a
Redis restart costs the callers a pause, not an exception (and the scripts are reloaded by
redis-py after a restart wiped the script cache).

Keys (prefix `mcrawl` by default):
  jobs:    {p}:jobs:delayed  ZSET id -> not_before      (not yet due)
           {p}:jobs:ready    ZSET id -> -priority*1e10 + seq   (due; lowest score pops first)
           {p}:jobs:data     HASH id -> JSON,  {p}:jobs:prio HASH id -> priority,  {p}:jobs:seq counter
  details: {p}:det:data      HASH id -> JSON {item, tries, rounds, reason}   (= the pending set)
           {p}:det:queue     ZSET id -> available_at
           {p}:det:claimed   ZSET id -> claimed_at,   {p}:det:receipt HASH id -> receipt
           {p}:det:failed    ZSET id -> failed_at
  seen:    {p}:seen:{segment}, {p}:seen:meta         (crawler.bloom.RedisBloom)
"""
from __future__ import annotations

import json
import time
import uuid
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from crawler.bloom import RedisBloom
from crawler.queues import Claim, FailedItem, Queues, QueueUnavailable, backoff_delay, item_id_of

_PRIORITY_SCALE = 1e10  # seq < 1e10 keeps FIFO order inside one priority

_JOB_PUSH = """
local id, data, prio, not_before, now = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
redis.call('HSET', KEYS[3], id, data)
redis.call('HSET', KEYS[4], id, prio)
if not_before <= now then
  local seq = redis.call('INCR', KEYS[5])
  redis.call('ZADD', KEYS[2], -prio * 1e10 + seq, id)
else
  redis.call('ZADD', KEYS[1], not_before, id)
end
return 1
"""

_JOB_POP = """
local now = tonumber(ARGV[1])
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, 100)
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[1], id)
  local prio = tonumber(redis.call('HGET', KEYS[4], id) or '0')
  local seq = redis.call('INCR', KEYS[5])
  redis.call('ZADD', KEYS[2], -prio * 1e10 + seq, id)
end
local top = redis.call('ZRANGE', KEYS[2], 0, 0)
if #top == 0 then return false end
local id = top[1]
redis.call('ZREM', KEYS[2], id)
local data = redis.call('HGET', KEYS[3], id)
redis.call('HDEL', KEYS[3], id)
redis.call('HDEL', KEYS[4], id)
return data
"""

_DET_PUSH = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  return 1
end
return 0
"""

_DET_CLAIM = """
local now = tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, 1)
if #ids == 0 then return false end
local id = ids[1]
redis.call('ZREM', KEYS[2], id)
redis.call('ZADD', KEYS[3], now, id)
redis.call('HSET', KEYS[4], id, ARGV[2])
return {id, redis.call('HGET', KEYS[1], id)}
"""

_DET_ACK = """
if redis.call('HGET', KEYS[4], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[1])
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
"""

# ARGV: id, receipt, now, delay, reason, max_tries
_DET_RETRY = """
local id = ARGV[1]
if redis.call('HGET', KEYS[4], id) ~= ARGV[2] then return 'lost' end
local now, delay, max_tries = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[6])
local rec = cjson.decode(redis.call('HGET', KEYS[1], id))
rec['tries'] = (rec['tries'] or 0) + 1
rec['reason'] = ARGV[5]
redis.call('ZREM', KEYS[3], id)
redis.call('HDEL', KEYS[4], id)
local outcome
if rec['tries'] >= max_tries then
  rec['failed_at'] = now
  redis.call('ZADD', KEYS[5], now, id)
  outcome = 'failed'
else
  redis.call('ZADD', KEYS[2], now + delay, id)
  outcome = 'queued'
end
redis.call('HSET', KEYS[1], id, cjson.encode(rec))
return outcome
"""

# a stale claim counts as a try: a page that kills every worker ends in the failed set
_DET_REQUEUE_STALE = """
local now, cutoff, max_tries = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local ids = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', cutoff)
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[4], id)
  local rec = cjson.decode(redis.call('HGET', KEYS[1], id))
  rec['tries'] = (rec['tries'] or 0) + 1
  rec['reason'] = 'claim expired: worker died or hung'
  if rec['tries'] >= max_tries then
    rec['failed_at'] = now
    redis.call('ZADD', KEYS[5], now, id)
  else
    redis.call('ZADD', KEYS[2], now, id)
  end
  redis.call('HSET', KEYS[1], id, cjson.encode(rec))
end
return #ids
"""

_DET_REQUEUE_FAILED = """
local now, cutoff, max_rounds = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local ids = redis.call('ZRANGEBYSCORE', KEYS[5], '-inf', cutoff)
local moved = 0
for _, id in ipairs(ids) do
  local rec = cjson.decode(redis.call('HGET', KEYS[1], id))
  if (rec['rounds'] or 0) < max_rounds then
    rec['rounds'] = (rec['rounds'] or 0) + 1
    rec['tries'] = 0
    redis.call('HSET', KEYS[1], id, cjson.encode(rec))
    redis.call('ZREM', KEYS[5], id)
    redis.call('ZADD', KEYS[2], now, id)
    moved = moved + 1
  end
end
return moved
"""


def redis_client(url: str) -> redis.Redis:
    """A client that rides out a Redis restart: up to ~30 s of reconnect attempts per command."""
    return redis.Redis.from_url(
        url,
        socket_connect_timeout=5,
        socket_timeout=30,
        health_check_interval=15,
        retry=Retry(ExponentialBackoff(cap=2.0, base=0.05), retries=20),
        retry_on_error=[redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, ConnectionResetError],
    )


def _call(script, keys, args, client=None):
    try:
        return script(keys=keys, args=args, client=client)
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        raise QueueUnavailable(f"Redis unreachable: {exc}") from exc


class RedisJobQueue:
    def __init__(self, client: redis.Redis, prefix: str):
        self.client = client
        self.keys = [f"{prefix}:jobs:{k}" for k in ("delayed", "ready", "data", "prio", "seq")]
        self._push = client.register_script(_JOB_PUSH)
        self._pop = client.register_script(_JOB_POP)

    def push(self, job: dict[str, Any], priority: int = 0, not_before: float = 0.0) -> None:
        if abs(int(priority)) >= 400_000:
            raise ValueError(f"priority {priority} out of range (|priority| < 400000)")
        data = json.dumps(job, ensure_ascii=False)
        _call(self._push, self.keys, [uuid.uuid4().hex, data, int(priority), float(not_before), time.time()])

    def pop(self, timeout: float = 0.0) -> dict[str, Any] | None:
        deadline = time.time() + max(0.0, timeout)
        poll = 0.02
        while True:
            data = _call(self._pop, self.keys, [time.time()])
            if data:
                return json.loads(data)
            left = deadline - time.time()
            if left <= 0:
                return None
            time.sleep(min(poll, left))
            poll = min(0.5, poll * 2)

    def __len__(self) -> int:
        return int(self.client.zcard(self.keys[0])) + int(self.client.zcard(self.keys[1]))

    def clear(self) -> None:
        self.client.delete(*self.keys)


class RedisDetailQueue:
    def __init__(self, client: redis.Redis, prefix: str, max_tries: int = 3, retry_base_s: float = 30.0):
        self.client = client
        self.max_tries = max_tries
        self.retry_base_s = retry_base_s
        self.keys = [f"{prefix}:det:{k}" for k in ("data", "queue", "claimed", "receipt", "failed")]
        self._push = client.register_script(_DET_PUSH)
        self._claim = client.register_script(_DET_CLAIM)
        self._ack = client.register_script(_DET_ACK)
        self._retry = client.register_script(_DET_RETRY)
        self._requeue_stale = client.register_script(_DET_REQUEUE_STALE)
        self._requeue_failed = client.register_script(_DET_REQUEUE_FAILED)

    def push(self, item: dict[str, Any]) -> bool:
        item_id = item_id_of(item)
        record = json.dumps({"item": item, "tries": 0, "rounds": 0}, ensure_ascii=False)
        return bool(_call(self._push, self.keys[:2], [item_id, record, time.time()]))

    def push_many(self, items: list[dict[str, Any]]) -> list[bool]:
        """Pipelined push; one bool per item as push()."""
        pipe = self.client.pipeline(transaction=False)
        now = time.time()
        for item in items:
            record = json.dumps({"item": item, "tries": 0, "rounds": 0}, ensure_ascii=False)
            self._push(keys=self.keys[:2], args=[item_id_of(item), record, now], client=pipe)
        return [bool(x) for x in pipe.execute()]

    def is_pending(self, url: str) -> bool:
        return bool(self.client.hexists(self.keys[0], item_id_of({"url": url})))

    def claim(self, worker_id: str, timeout: float = 0.0) -> Claim | None:
        deadline = time.time() + max(0.0, timeout)
        poll = 0.02
        while True:
            now = time.time()
            receipt = f"{worker_id}:{uuid.uuid4().hex}"
            got = _call(self._claim, self.keys, [now, receipt])
            if got:
                item_id = got[0].decode() if isinstance(got[0], bytes) else got[0]
                record = json.loads(got[1])
                return Claim(item=record["item"], receipt=receipt, item_id=item_id,
                             tries=int(record.get("tries", 0)), rounds=int(record.get("rounds", 0)), claimed_at=now)
            left = deadline - time.time()
            if left <= 0:
                return None
            time.sleep(min(poll, left))
            poll = min(0.5, poll * 2)

    def ack(self, claim: Claim) -> bool:
        return bool(_call(self._ack, self.keys, [claim.item_id, claim.receipt]))

    def retry(self, claim: Claim, delay: float | None = None, reason: str = "") -> str:
        wait = backoff_delay(claim.tries + 1, self.retry_base_s) if delay is None else delay
        out = _call(self._retry, self.keys, [claim.item_id, claim.receipt, time.time(), float(wait),
                                             reason or "", self.max_tries])
        return out.decode() if isinstance(out, bytes) else out

    def fail(self, claim: Claim, reason: str = "") -> str:
        """A permanent failure (404, too large...): straight to the failed set, no more tries."""
        out = _call(self._retry, self.keys, [claim.item_id, claim.receipt, time.time(), 0.0, reason or "", 0])
        return out.decode() if isinstance(out, bytes) else out

    def requeue_stale(self, older_than_s: float) -> int:
        now = time.time()
        return int(_call(self._requeue_stale, self.keys, [now, now - older_than_s, self.max_tries]))

    def requeue_failed(self, older_than_s: float = 0.0, max_rounds: int = 3) -> int:
        now = time.time()
        return int(_call(self._requeue_failed, self.keys, [now, now - older_than_s, max_rounds]))

    def failed(self, limit: int = 100) -> list[FailedItem]:
        ids = self.client.zrevrange(self.keys[4], 0, limit - 1, withscores=True)
        out = []
        for raw_id, score in ids:
            item_id = raw_id.decode() if isinstance(raw_id, bytes) else raw_id
            data = self.client.hget(self.keys[0], item_id)
            if data:
                rec = json.loads(data)
                out.append(FailedItem(rec["item"], item_id, rec.get("reason", ""), int(rec.get("tries", 0)),
                                      int(rec.get("rounds", 0)), float(score)))
        return out

    def stats(self) -> dict[str, int]:
        pipe = self.client.pipeline(transaction=False)
        for key in (self.keys[1], self.keys[2], self.keys[4]):
            pipe.zcard(key)
        queued, claimed, failed = pipe.execute()
        return {"queued": int(queued), "claimed": int(claimed), "failed": int(failed)}

    def pending_count(self) -> int:
        return int(self.client.hlen(self.keys[0]))

    def failed_count(self) -> int:
        return int(self.client.zcard(self.keys[4]))

    def __len__(self) -> int:
        return int(self.client.zcard(self.keys[1]))

    def clear(self) -> None:
        self.client.delete(*self.keys)


def split_prefix(queue_url: str, default: str = "mcrawl") -> tuple[str, str]:
    """`redis://h:6379/0?prefix=test1` -> (`redis://h:6379/0`, `test1`): one Redis, many crawls."""
    parts = urlsplit(queue_url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((v for k, v in query if k == "prefix"), default) or default
    rest = urlencode([(k, v) for k, v in query if k != "prefix"])
    return urlunsplit(parts._replace(query=rest)), prefix


def open_redis_queues(queue_url: str, settings) -> Queues:
    queue_url, prefix = split_prefix(queue_url)
    probe = redis.Redis.from_url(queue_url, socket_connect_timeout=5)  # no retries: fail fast at start-up
    try:
        probe.ping()
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as exc:
        raise QueueUnavailable(f"cannot reach Redis at {queue_url}: {exc}") from exc
    finally:
        probe.close()
    client = redis_client(queue_url)
    return Queues(
        jobs=RedisJobQueue(client, prefix),
        details=RedisDetailQueue(client, prefix, settings.detail_max_tries, settings.detail_retry_base_s),
        seen=RedisBloom(client, f"{prefix}:seen", settings.bloom_capacity, settings.bloom_error_rate),
        url=queue_url,
        extra={"client": client},
    )
