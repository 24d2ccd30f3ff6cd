"""Meta-search result pages (a search engine's news results for one keyword): the result links are
picked by the channel's `detail_xpath` and/or `detail_url_regex`, like a list page's."""
from __future__ import annotations

from .links import EntryPage, Found
from .listpage import links_from_html


def parse(page: EntryPage, job) -> Found:
    found = links_from_html(page, job.detail_url_regex, job.detail_xpath)
    if job.keyword and not found.links:
        found.warnings.append(f"keyword {job.keyword!r}: no results")
    return found
