"""Downloader middleware: the channel's politeness delay becomes its host's download-slot delay."""
from __future__ import annotations


class PolitenessMiddleware:
    """Requests carry `meta["politeness_delay_s"]`; the delay of their download slot (one per host)
    is set to the largest delay any channel asked for on that host, so two channels of one site
    never make it faster than either wants."""

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def process_request(self, request, spider=None):
        delay = request.meta.get("politeness_delay_s")
        if delay is None:
            return None
        downloader = self.crawler.engine.downloader
        key = downloader.get_slot_key(request)
        wanted = float(delay)
        slot_settings = downloader.per_slot_settings.setdefault(key, {})
        if wanted > slot_settings.get("delay", -1.0):
            slot_settings["delay"] = wanted
        slot = downloader.slots.get(key)
        if slot is not None and slot.delay < wanted:
            slot.delay = wanted
        return None
