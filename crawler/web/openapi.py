"""The OpenAPI 3.1 description of the JSON API. Written out by hand (deliberately: five
endpoints do not need a schema-generation framework); tests check the live answers against
these schemas, so the description cannot drift from the code unnoticed."""
from __future__ import annotations

from crawler.store import KINDS
from crawler.web.searchform import MAX_QUERY_CHARS, SORTS
from extraction.result import PAGE_TYPES

_NULLABLE_STR = {"type": ["string", "null"]}

SCHEMAS = {
    "Error": {
        "type": "object", "required": ["error"],
        "properties": {"error": {"type": "string", "description": "what was wrong, for a person"}},
    },
    "Hit": {
        "type": "object", "required": ["id", "url", "title", "snippet"],
        "properties": {
            "id": {"type": "string", "description": "sha1 of the canonical URL"},
            "url": {"type": "string"},
            "title": _NULLABLE_STR,
            "site": _NULLABLE_STR,
            "pubdate": {**_NULLABLE_STR, "description": "publication time, ISO 8601"},
            "source": _NULLABLE_STR,
            "snippet": {**_NULLABLE_STR, "description": "text around the matches; matches wrapped in <em>…</em>, "
                        "other text NOT guaranteed HTML-escaped: escape it before putting it into a page"},
        },
    },
    "SearchResults": {
        "type": "object", "required": ["total", "page", "size", "sort", "hits"],
        "properties": {
            "total": {"type": "integer", "minimum": 0},
            "page": {"type": "integer", "minimum": 1},
            "size": {"type": "integer", "minimum": 1},
            "sort": {"type": "string", "enum": list(SORTS)},
            "hits": {"type": "array", "items": {"$ref": "#/components/schemas/Hit"}},
        },
    },
    "Article": {
        "type": "object", "required": ["id", "url"],
        "properties": {
            "id": {"type": "string"}, "url": {"type": "string"}, "site": _NULLABLE_STR,
            "channel": {"type": ["string", "integer", "null"]}, "channel_kind": _NULLABLE_STR,
            "title": _NULLABLE_STR, "content": _NULLABLE_STR, "pubdate": _NULLABLE_STR,
            "crawled_at": _NULLABLE_STR, "author": _NULLABLE_STR, "source": _NULLABLE_STR,
            "lang": _NULLABLE_STR, "page_type": _NULLABLE_STR,
            "method": {**_NULLABLE_STR, "description": "how the article was extracted (template, cevc, pean, …)"},
        },
    },
    "ChannelList": {
        "type": "object", "required": ["channels"],
        "properties": {"channels": {"type": "array", "items": {
            "type": "object", "required": ["id", "name", "kind", "enabled"],
            "properties": {"id": {"type": "integer"}, "name": {"type": "string"}, "kind": {"type": "string"},
                           "enabled": {"type": "boolean"}},
        }}},
    },
    "Status": {
        "type": "object", "required": ["queues", "articles_per_hour", "sites", "channels", "bloom", "errors"],
        "properties": {
            "generated_at": {"type": "string", "description": "when these figures were read (UTC)"},
            "total_articles": {"type": ["integer", "null"]},
            "queues": {"type": ["object", "null"], "additionalProperties": {"type": "integer"},
                       "description": "jobs, details_queued, details_claimed, details_failed"},
            "articles_per_hour": {"type": "array", "items": {
                "type": "object", "required": ["hour", "count"],
                "properties": {"hour": {"type": "string"}, "count": {"type": "integer"}}}},
            "sites": {"type": "array", "items": {
                "type": "object", "required": ["site", "count"],
                "properties": {"site": {"type": "string"}, "count": {"type": "integer"}}}},
            "channels": {"type": "array", "description": "per channel, last 24 h: found/new/extracted/invalid/errors,"
                         " invalid_rate = invalid/(extracted+invalid), error_rate = errors/(extracted+invalid+errors)",
                         "items": {"type": "object", "required": ["id", "name", "flagged", "invalid_rate", "error_rate"],
                                   "properties": {"invalid_rate": {"type": ["number", "null"]},
                                                  "error_rate": {"type": ["number", "null"]},
                                                  "flagged": {"type": "boolean"}}}},
            "bloom": {"type": ["object", "null"], "properties": {
                "fill_ratio": {"type": "number"}, "estimated_fp_rate": {"type": "number"}}},
            "errors": {"type": "object", "additionalProperties": {"type": "string"},
                       "description": "part -> why it could not be read (a backend down)"},
        },
    },
}


def _param(name, description, schema, required=False):
    return {"name": name, "in": "query", "required": required, "description": description, "schema": schema}


def _json(ref: str, description: str) -> dict:
    return {"description": description,
            "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{ref}"}}}}


SEARCH_PARAMS = [
    _param("q", "search words, Chinese or English", {"type": "string", "maxLength": MAX_QUERY_CHARS}),
    _param("site", "only this site (host name)", {"type": "string"}),
    _param("channel_kind", "only articles found by this kind of channel", {"type": "string", "enum": list(KINDS)}),
    _param("page_type", "only this page type", {"type": "string", "enum": list(PAGE_TYPES)}),
    _param("since", "published on or after this day", {"type": "string", "format": "date"}),
    _param("until", "published on or before this day (whole day)", {"type": "string", "format": "date"}),
    _param("sort", "relevance (default) or newest first", {"type": "string", "enum": list(SORTS)}),
    _param("page", "1-based page number; page*size ≤ 10000", {"type": "integer", "minimum": 1}),
    _param("size", "hits per page", {"type": "integer", "minimum": 1, "maximum": 100}),
]


def openapi_document() -> dict:
    login = {"401": _json("Error", "log-in required (session cookie from POST /login)")}
    return {
        "openapi": "3.1.0",
        "info": {"title": "mcrawl console API", "version": "1.0.0",
                 "description": "Search the crawled articles; read channel and crawl status. "
                                "Search is open unless the console is configured otherwise; "
                                "channels and status need a logged-in session."},
        "paths": {
            "/api/search": {"get": {
                "summary": "Search articles", "operationId": "search", "parameters": SEARCH_PARAMS,
                "responses": {"200": _json("SearchResults", "one page of hits"),
                              "400": _json("Error", "a bad parameter"), **login,
                              "503": _json("Error", "the article index did not answer")}}},
            "/api/articles/{id}": {"get": {
                "summary": "One article with its full text", "operationId": "getArticle",
                "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}],
                "responses": {"200": _json("Article", "the article"), "404": _json("Error", "no such article"), **login}}},
            "/api/channels": {"get": {
                "summary": "All channels with their last run", "operationId": "listChannels",
                "responses": {"200": _json("ChannelList", "the channels"), **login}}},
            "/api/status": {"get": {
                "summary": "Queue lengths, articles per hour, per-site counts, channel health, Bloom filter",
                "operationId": "status", "responses": {"200": _json("Status", "crawl status"), **login}}},
            "/api/openapi.json": {"get": {"summary": "This document", "operationId": "openapi",
                                          "responses": {"200": {"description": "OpenAPI 3.1 document"}}}},
        },
        "components": {"schemas": SCHEMAS},
    }
