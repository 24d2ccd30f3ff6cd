"""The mined templates a worker extracts with: read from the channel store, refreshed periodically.

`mcrawl templates mine ... --db URL` writes templates while workers run; a worker picks them up at
its next refresh without a restart. A store that cannot be read keeps the last good library (the
template-free path still works without any), so a database hiccup never stops extraction.
"""
from __future__ import annotations

import logging
import threading
import time

log = logging.getLogger("mcrawl.worker")


def library_from_store(store, site: str | None = None):
    """The enabled templates of an open store as an extraction TemplateLibrary."""
    from extraction.templates.library import TemplateLibrary
    from extraction.templates.model import Template

    return TemplateLibrary(Template.from_dict(row.body) for row in store.list_templates(site))


class TemplateCache:
    def __init__(self, store, reload_s: float = 300.0):
        self.store = store
        self.reload_s = reload_s
        self._library = None
        self._loaded_at = float("-inf")
        self._lock = threading.Lock()

    def get(self):
        """The current library, or None when the store holds no templates (skips the template step)."""
        if time.monotonic() - self._loaded_at >= self.reload_s and self._lock.acquire(blocking=False):
            try:
                library = library_from_store(self.store)
                self._library = library if len(library) else None
                log.info("templates: %d loaded from the store", len(library))
            except Exception as exc:  # noqa: BLE001 - keep extracting with what we had
                log.warning("templates: cannot load from the store (%s); keeping %s", exc,
                            "the previous library" if self._library else "the template-free path")
            finally:
                self._loaded_at = time.monotonic()
                self._lock.release()
        return self._library
