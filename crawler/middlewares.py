"""Downloader middleware: the channel's politeness delay becomes its host's download-slot delay."""
from __future__ import annotations


class PolitenessMiddleware:
    """Requests carry `meta["politeness_delay_s"]`; the delay of their download slot (one per host)
    becomes the largest delay any channel asked for on that host, so two channels of one site
    never make it faster than either wants. Requests without it (robots.txt) use the slot as set."""

    def __init__(self, crawler):
        self.crawler = crawler
        self.wanted: dict[str, float] = {}

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_request(self, request, spider=None):
        delay = request.meta.get("politeness_delay_s")
        if delay is None:
            return None
        downloader = self.crawler.engine.downloader
        key = downloader.get_slot_key(request)
        wanted = max(float(delay), self.wanted.get(key, 0.0))
        self.wanted[key] = wanted
        downloader.per_slot_settings.setdefault(key, {})["delay"] = wanted
        slot = downloader.slots.get(key)
        if slot is not None:
            slot.delay = wanted
        return None
