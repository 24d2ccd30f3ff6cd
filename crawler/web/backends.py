"""The storage backends the console reads and writes, opened lazily from Settings.

Opening is lazy so the console starts (and shows which part is down) even when, say,
Elasticsearch is not up yet; a backend that failed to open is tried again on the next request.
One instance of each is shared by the server's request threads: the channel stores serialise
their statements behind a lock (crawler.store_mysql, crawler.store_sqlite) and the Redis and
Elasticsearch clients are thread-safe.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

from crawler.config import Settings


class Backends:
    def __init__(self, settings: Settings):
        self.settings = settings
        # one lock per backend: a database that hangs on connect must not hold up the search page
        self._locks = {name: threading.Lock() for name in ("store", "queues", "index")}
        self._opened: dict[str, Any] = {}

    def _get(self, name: str, open_it: Callable[[], Any]) -> Any:
        with self._locks[name]:
            if name not in self._opened:
                self._opened[name] = open_it()
            return self._opened[name]

    @property
    def store(self):
        from crawler.store import open_store

        return self._get("store", lambda: open_store(self.settings.db_url))

    @property
    def queues(self):
        from crawler.queues import open_queues

        return self._get("queues", lambda: open_queues(self.settings.queue_url, self.settings))

    @property
    def index(self):
        from workers.index import open_index

        return self._get("index", lambda: open_index(self.settings.index_url))

    def close(self) -> None:
        for name, lock in self._locks.items():
            with lock:
                backend = self._opened.pop(name, None)
                close = getattr(backend, "close", None)
                if close:
                    close()
