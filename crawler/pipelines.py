"""Where the spiders' detail links go: canonical URL -> Bloom filter (finished already?) ->
pending set (queued already?) -> detail queue, as one work item for the extraction workers.

The item carries what the worker needs from the channel (time zone, politeness, XPath overrides),
so a worker never queries the channel database per page.
"""
from __future__ import annotations

import time

from crawler.urls import BadURL, canonicalize, site_of, url_id


class DetailSink:
    def __init__(self, queues):
        self.queues = queues

    def offer(self, urls: list[str], spec) -> tuple[int, list[str]]:
        """Queue the links not seen before; returns (how many were new, problems to report)."""
        problems: list[str] = []
        canonical: list[str] = []
        unique: set[str] = set()
        for url in urls:
            try:
                c = canonicalize(url)
            except BadURL as exc:
                problems.append(str(exc))
                continue
            if c not in unique:
                unique.add(c)
                canonical.append(c)
        if not canonical:
            return 0, problems
        finished = self.queues.seen.contains_many(canonical)
        new = 0
        now = time.time()
        for url, done in zip(canonical, finished):
            if done:
                continue
            item = {
                "url": url,
                "url_id": url_id(url),
                "channel_id": spec.channel_id,
                "channel_kind": spec.kind,
                "site": spec.site or site_of(url),
                "tz": spec.tz,
                "lang": spec.language,
                "politeness_delay_s": spec.politeness_delay_s,
                "overrides": spec.overrides or {},
                "keyword": spec.keyword,
                "found_at": now,
            }
            if self.queues.details.push(item) is not False:  # False: already pending
                new += 1
        return new, problems
