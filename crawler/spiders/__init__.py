"""Scrapy spiders that turn a channel's entry page into detail-page URLs.

One module per channel kind (rss, metasearch, listpage, sitemap), each a pure `parse(page, job)`
function; `base.ChannelJobSpider` is the one Scrapy spider that pulls jobs from the job queue and
dispatches each fetched entry page to the parser of its kind.
"""
from . import listpage, metasearch, rss, sitemap

PARSERS = {
    "rss": rss.parse,
    "metasearch": metasearch.parse,
    "listpage": listpage.parse,
    "sitemap": sitemap.parse,
}
