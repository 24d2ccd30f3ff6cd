"""Scrapy settings of the `mcrawl spiders` process (entry pages only: feeds, list pages,
meta-search result pages, sitemaps; detail pages are fetched by the workers)."""
from __future__ import annotations

from workers.fetch import MAX_PAGE_BYTES, USER_AGENT

SETTINGS = {
    "BOT_NAME": "mcrawl",
    "USER_AGENT": USER_AGENT,
    "ROBOTSTXT_OBEY": True,
    # Politeness: one request at a time per host, spaced by the channel's politeness_delay_s
    # (set per download slot by PolitenessMiddleware; this is the fallback).
    "CONCURRENT_REQUESTS": 16,
    "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
    "DOWNLOAD_DELAY": 1.0,
    "DOWNLOAD_DELAY_JITTER": 0,
    "DOWNLOAD_TIMEOUT": 20,
    "DOWNLOAD_MAXSIZE": MAX_PAGE_BYTES,
    "DOWNLOAD_WARNSIZE": 0,
    "RETRY_ENABLED": True,
    "RETRY_TIMES": 2,
    "REDIRECT_MAX_TIMES": 5,
    "COOKIES_ENABLED": False,
    "TELNETCONSOLE_ENABLED": False,
    "LOG_LEVEL": "INFO",
    "LOGSTATS_INTERVAL": 60,
    "DOWNLOADER_MIDDLEWARES": {"crawler.middlewares.PolitenessMiddleware": 50},
    # Entry pages are fetched every run: Scrapy's request fingerprint filter must not drop a list page
    # it saw in an earlier job (requests carry dont_filter too).
    "DUPEFILTER_CLASS": "scrapy.dupefilters.BaseDupeFilter",
}
