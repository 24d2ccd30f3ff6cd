"""Faults of the running service: Elasticsearch unavailable, a worker killed mid-job, Redis restarted
under a running worker. Real servers throughout; the Redis that gets restarted is a private
redis-server started by the test (so other tests' Redis is never disturbed)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from crawler.config import Settings
from crawler.demo.server import SITE_DIR, LocalSite, Response, file_routes
from crawler.queues import open_queues
from crawler.urls import canonicalize, url_id
from workers.fetch import Fetcher
from workers.index import open_index
from workers.worker import Worker
from tests.integration.storage_helpers import BLOOM_N, drop_redis_prefix

ROOT = Path(__file__).resolve().parents[2]


DEMO_ARTICLES = ["zh-1", "zh-2", "zh-3", "zh-4", "en-1", "en-2", "en-3", "en-4"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(check, timeout_s: float, what: str, step: float = 0.1):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


class TcpProxy:
    """127.0.0.1:port -> target, started and stopped at will: Elasticsearch 'goes down' and 'comes back'."""

    def __init__(self, port: int, target: tuple[str, int]):
        self.port, self.target = port, target
        self._server: socket.socket | None = None
        self._conns: list[socket.socket] = []

    def start(self) -> None:
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", self.port))
        srv.listen(64)
        self._server = srv
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        srv = self._server
        while True:
            try:
                client, _ = srv.accept()
            except OSError:
                return
            upstream = socket.create_connection(self.target)
            self._conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def stop(self) -> None:
        if self._server:
            self._server.close()
            self._server = None
        for c in self._conns:
            try:
                c.close()
            except OSError:
                pass
        self._conns = []


def drop_index(index) -> None:
    client = index.client.options(ignore_status=404)
    if client.indices.exists_alias(name=index.alias):
        client.indices.delete(index=",".join(client.indices.get_alias(name=index.alias).keys()))
    client.indices.delete_index_template(name=index.alias)


@pytest.fixture
def site():
    routes = file_routes(SITE_DIR)
    routes["/slow/1.html"] = Response(200, routes["/news/en-1.html"].body, delay_s=4.0)
    with LocalSite(routes) as s:
        yield s


@pytest.fixture
def es_alias(es_url):
    alias = f"test-faults-{uuid.uuid4().hex[:8]}"
    index = open_index(f"{es_url}?alias={alias}")
    index.ensure()
    yield alias, index
    drop_index(index)
    index.close()


def push_articles(queues, site, paths, delay_s: float = 0.0) -> list[str]:
    urls = []
    for path in paths:
        url = canonicalize(site.url(path))
        queues.details.push({"url": url, "url_id": url_id(url), "channel_id": 1, "channel_kind": "rss",
                             "politeness_delay_s": delay_s, "tz": "Asia/Shanghai"})
        urls.append(url)
    return urls


def worker_env(queue_url: str, index_url: str, tmp: Path) -> dict:
    return {**os.environ, "MCRAWL_QUEUE": queue_url, "MCRAWL_INDEX": index_url, "MCRAWL_BLOOM_N": str(BLOOM_N),
            "MCRAWL_DB": f"sqlite:///{tmp}/db.sqlite3", "MCRAWL_DATA": str(tmp)}


@pytest.fixture
def fresh_prefix(redis_url):
    """A queue prefix of its own; all its keys (queues, Bloom filter) are deleted afterwards."""
    prefix = f"test-faults-{uuid.uuid4().hex[:8]}"
    yield prefix
    drop_redis_prefix(redis_url, prefix)


def test_elasticsearch_unavailable_items_stay_queued_and_are_indexed_when_it_returns(redis_url, es_url, es_alias, site,
                                                                                      fresh_prefix):
    alias, real_index = es_alias
    queue_url = f"{redis_url}?prefix={fresh_prefix}"
    queues = open_queues(queue_url, Settings(queue_url=queue_url, detail_max_tries=2, detail_retry_base_s=0.2,
                                             bloom_capacity=BLOOM_N))
    urls = push_articles(queues, site, [f"/news/{a}.html" for a in DEMO_ARTICLES[:4]])
    es_port = int(es_url.rsplit(":", 1)[1].strip("/"))
    proxy = TcpProxy(free_port(), ("127.0.0.1", es_port))  # not started: Elasticsearch is "down"
    down_index = open_index(f"http://127.0.0.1:{proxy.port}?alias={alias}")
    worker = Worker(queues, down_index, None, concurrency=2, batch_size=10, flush_s=0.2, fetcher=Fetcher(timeout_s=5),
                    index_backoff_max_s=2.0)
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: worker.stats.index_failures >= 2, 30, "the worker to hit the dead index twice")
        stats = queues.details.stats()
        # nothing lost, nothing failed, nothing marked seen, nothing acked
        assert stats["failed"] == 0 and stats["queued"] + stats["claimed"] == 4, stats
        assert worker.stats.indexed == 0 and not any(u in queues.seen for u in urls)
        proxy.start()  # Elasticsearch is back
        wait_for(lambda: worker.stats.indexed == 4, 60, "the held documents to be indexed")
    finally:
        worker.stop()
        thread.join(30)
        proxy.stop()
    real_index.refresh()
    assert real_index.count() == 4
    assert queues.details.stats() == {"queued": 0, "claimed": 0, "failed": 0}
    assert all(u in queues.seen for u in urls)


def test_worker_killed_mid_job_item_is_redelivered_without_duplicates(redis_url, es_url, es_alias, site, tmp_path,
                                                                       fresh_prefix):
    alias, index = es_alias
    queue_url = f"{redis_url}?prefix={fresh_prefix}"
    index_url = f"{es_url}?alias={alias}"
    queues = open_queues(queue_url, Settings(queue_url=queue_url, bloom_capacity=BLOOM_N))
    urls = push_articles(queues, site, ["/news/zh-1.html", "/news/en-2.html", "/slow/1.html"])
    cmd = [sys.executable, "-m", "crawler.cli", "worker", "--concurrency", "3", "--batch", "1"]
    env = worker_env(queue_url, index_url, tmp_path)
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # the fast pages get indexed; the slow one is being fetched when the worker dies
        wait_for(lambda: site.hits.get("/slow/1.html"), 30, "the worker to start the slow page")
        index.refresh()
        wait_for(lambda: index.refresh() or index.count() >= 2, 30, "the fast pages to be indexed")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    stats = queues.details.stats()
    assert stats["claimed"] >= 1, stats  # the dead worker's item is still claimed ...
    assert queues.details.requeue_stale(0) >= 1  # ... until the controller hands it out again
    # Also redeliver an already indexed item, as if the worker had died between index and ack.
    queues.details.push({"url": urls[0], "url_id": url_id(urls[0]), "channel_id": 1, "channel_kind": "rss"})
    done = subprocess.run(cmd + ["--until-idle", "--idle-grace", "1"], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    index.refresh()
    assert index.count() == 3  # three URLs, three documents: none lost, none twice
    for url in urls:
        assert index.get(url_id(url))["url"] == url
    assert queues.details.stats() == {"queued": 0, "claimed": 0, "failed": 0}


@pytest.fixture
def private_redis(tmp_path):
    """A redis-server of our own (Debian's binary), with an append-only file so a restart keeps data."""
    binary = shutil.which("redis-server")
    assert binary, "redis-server not installed: run `bash deploy/services.sh start`"
    port = free_port()
    data = tmp_path / "redis"
    data.mkdir()

    def start():
        proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(data),
                                 "--appendonly", "yes", "--appendfsync", "always", "--save", ""],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: _ping(port), 10, "redis-server to accept connections")
        return proc

    state = {"proc": start()}

    def restart(down_s: float = 2.0):
        state["proc"].send_signal(signal.SIGTERM)  # SIGTERM: redis flushes the AOF and exits
        state["proc"].wait(10)
        time.sleep(down_s)
        state["proc"] = start()

    yield f"redis://127.0.0.1:{port}/0", restart
    state["proc"].kill()
    state["proc"].wait(10)


def _ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def test_redis_restarted_mid_run_worker_reconnects_and_queued_items_survive(private_redis, es_url, es_alias, site, tmp_path):
    redis_url, restart = private_redis
    alias, index = es_alias
    queue_url = f"{redis_url}?prefix=test-restart"
    queues = open_queues(queue_url, Settings(queue_url=queue_url, bloom_capacity=BLOOM_N))
    # 8 pages x 3 query variants -> 24 URLs; the politeness delay (one host) spreads them over ~7 s,
    # so the restart lands in the middle of the run
    paths = [f"/news/{a}.html" for a in DEMO_ARTICLES]
    urls = []
    for extra in ("", "?v=2", "?v=3"):
        urls += push_articles(queues, site, [p + extra for p in paths], delay_s=0.3)
    cmd = [sys.executable, "-m", "crawler.cli", "worker", "--concurrency", "1", "--batch", "2",
           "--until-idle", "--idle-grace", "3", "--json"]
    env = worker_env(queue_url, f"{es_url}?alias={alias}", tmp_path)
    proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: sum(site.hits.get(p, 0) for p in paths) >= 4, 60, "the worker to get going")
        hits_before = sum(site.hits.get(p, 0) for p in paths)
        restart(down_s=2.0)
        assert hits_before < len(urls) and proc.poll() is None, "the restart must land mid-run"
        out, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err[-3000:]
    print(err[-2000:])  # shows the reconnect warnings with -s
    assert sum(site.hits.get(p, 0) for p in paths) >= len(urls)
    index.refresh()
    assert index.count() == len(urls), out  # every queued URL survived the restart and got indexed
    check = open_queues(queue_url, Settings(queue_url=queue_url, bloom_capacity=BLOOM_N))
    assert check.details.stats() == {"queued": 0, "claimed": 0, "failed": 0}
    assert all(u in check.seen for u in urls)


@pytest.mark.parametrize("command", ["worker", "spiders"])
def test_unreachable_queue_at_start_is_a_clear_error(command, tmp_path):
    env = {**os.environ, "MCRAWL_QUEUE": f"redis://127.0.0.1:{free_port()}/0",
           "MCRAWL_DB": f"sqlite:///{tmp_path}/db.sqlite3", "MCRAWL_INDEX": f"sqlite:///{tmp_path}/index.sqlite3"}
    proc = subprocess.run([sys.executable, "-m", "crawler.cli", command], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert f"mcrawl {command}: cannot reach Redis" in proc.stderr and "Traceback" not in proc.stderr
