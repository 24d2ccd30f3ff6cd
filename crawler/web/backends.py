"""The storage backends the console reads and writes, opened lazily from Settings.

Opening is lazy so the console starts (and shows which part is down) even when, say,
Elasticsearch is not up yet. The channel store is opened once per thread because a database
connection (pymysql, sqlite3) must not be shared between the server's request threads; the
queue (Redis) and index (Elasticsearch) clients are thread-safe and shared.
"""
from __future__ import annotations

import threading
from typing import Any

from crawler.config import Settings


class Backends:
    def __init__(self, settings: Settings):
        self.settings = settings
        self._local = threading.local()
        self._lock = threading.Lock()
        self._queues: Any = None
        self._index: Any = None

    @property
    def store(self):
        store = getattr(self._local, "store", None)
        if store is None:
            from crawler.store import open_store

            store = self._local.store = open_store(self.settings.db_url)
        return store

    @property
    def queues(self):
        with self._lock:
            if self._queues is None:
                from crawler.queues import open_queues

                self._queues = open_queues(self.settings.queue_url, self.settings)
            return self._queues

    @property
    def index(self):
        with self._lock:
            if self._index is None:
                from workers.index import open_index

                self._index = open_index(self.settings.index_url)
            return self._index
