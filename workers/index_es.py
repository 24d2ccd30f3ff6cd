"""Elasticsearch backend of the article index (official `elasticsearch` 8.x client).

Writes go to an alias (`mcrawl-articles`) whose write index is `mcrawl-articles-000001`, created
from an index template, so the index can be rolled over without touching the writers. The
template body comes from deploy/elasticsearch/index-template.json when present (its
index_patterns are re-pointed at our alias); otherwise from TEMPLATE_FALLBACK below, which uses
the built-in `cjk` analyzer so it works on a node without analysis plugins.
Searches go through the alias; highlights come back as <em>...</em>.
"""
from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from elasticsearch import Elasticsearch, helpers
from elasticsearch import exceptions as es_exc

from crawler.urls import url_id
from workers.index import (DEFAULT_ALIAS, DOC_FIELDS, IndexUnavailable, SearchHit, SearchResults,
                           check_search_args, iso_utc)

TEMPLATE_FILE = Path(__file__).resolve().parent.parent / "deploy" / "elasticsearch" / "index-template.json"

# used only when deploy/elasticsearch/index-template.json is missing (e.g. an installed wheel)
_TEXT = {"type": "text", "analyzer": "mcrawl_text"}
TEMPLATE_FALLBACK: dict[str, Any] = {
    "priority": 100,
    "template": {
        "settings": {"number_of_shards": 1, "number_of_replicas": 0,
                     "analysis": {"analyzer": {"mcrawl_text": {"type": "cjk"}}}},
        "mappings": {
            "dynamic": False,
            "properties": {
                "url": {"type": "keyword", "ignore_above": 4096},
                "site": {"type": "keyword"},
                "channel": {"type": "keyword"},
                "channel_kind": {"type": "keyword"},
                "title": {**_TEXT, "fields": {"keyword": {"type": "keyword", "ignore_above": 1024}}},
                "content": _TEXT,
                "pubdate": {"type": "date", "ignore_malformed": True},
                "crawled_at": {"type": "date"},
                "author": {"type": "keyword", "ignore_above": 512, "fields": {"text": _TEXT}},
                "source": {"type": "keyword", "ignore_above": 512, "fields": {"text": _TEXT}},
                "lang": {"type": "keyword"},
                "page_type": {"type": "keyword"},
                "method": {"type": "keyword"},
            },
        },
    },
}

_UNAVAILABLE = (es_exc.ConnectionError, es_exc.ConnectionTimeout)


def _root_cause(exc: es_exc.ApiError) -> str:
    try:
        return exc.body["error"]["root_cause"][0]["reason"]
    except (KeyError, IndexError, TypeError):
        return str(exc.body)[:200]


def _split_url(index_url: str) -> tuple[str, str]:
    parts = urlsplit(index_url)
    query = parse_qsl(parts.query)
    alias = next((v for k, v in query if k == "alias"), DEFAULT_ALIAS) or DEFAULT_ALIAS
    rest = urlencode([(k, v) for k, v in query if k != "alias"])
    return urlunsplit(parts._replace(query=rest, path="")), alias


def load_template(alias: str) -> dict[str, Any]:
    """The composable index template body for indices `{alias}-*`."""
    if TEMPLATE_FILE.exists():
        body = json.loads(TEMPLATE_FILE.read_text(encoding="utf-8"))
    else:
        body = copy.deepcopy(TEMPLATE_FALLBACK)
    body = {k: v for k, v in body.items() if k in ("template", "priority", "version", "_meta", "composed_of")}
    template = body.setdefault("template", {})
    template.pop("aliases", None)  # the alias is attached to the first index only (its write index)
    body["index_patterns"] = [f"{alias}-*"]
    body.setdefault("priority", 200)
    return body


class ElasticIndex:
    def __init__(self, index_url: str, request_timeout: float = 30.0):
        self.url, self.alias = _split_url(index_url)
        self.client = Elasticsearch(self.url, request_timeout=request_timeout, max_retries=2,
                                    retry_on_timeout=True)

    def _guard(self, call, *args, **kwargs):
        try:
            return call(*args, **kwargs)
        except _UNAVAILABLE as exc:
            raise IndexUnavailable(f"Elasticsearch at {self.url} unreachable: {exc}") from exc

    # ---- setup -----------------------------------------------------------------------------------
    def ensure(self) -> None:
        """Index template + first index with the alias as its write index (idempotent). A node
        without the smartcn plugin gets the template's built-in fallback analyzer (cjk)."""
        body = load_template(self.alias)
        try:
            self._guard(self.client.indices.put_index_template, name=self.alias, **body)
        except es_exc.BadRequestError as exc:
            analyzers = body.get("template", {}).get("settings", {}).get("analysis", {}).get("analyzer", {})
            if "smartcn" not in str(exc) or "mcrawl_text" not in analyzers:
                raise
            analyzers["mcrawl_text"] = body.get("_meta", {}).get("mcrawl_text_fallback") or {"type": "cjk"}
            self._guard(self.client.indices.put_index_template, name=self.alias, **body)
        if not self._guard(self.client.indices.exists_alias, name=self.alias):
            try:
                self._guard(self.client.indices.create, index=f"{self.alias}-000001",
                            aliases={self.alias: {"is_write_index": True}})
            except es_exc.BadRequestError as exc:
                if "resource_already_exists_exception" not in str(exc):
                    raise

    def drop(self) -> None:
        """Delete the indices behind the alias and the template (tests, resets)."""
        # named one by one: clusters refuse wildcard deletes (action.destructive_requires_name)
        names = list(self._guard(self.client.options(ignore_status=404).indices.get, index=f"{self.alias}-*"))
        for name in names:
            if name.startswith(f"{self.alias}-"):
                self._guard(self.client.options(ignore_status=404).indices.delete, index=name)
        self._guard(self.client.options(ignore_status=404).indices.delete_index_template, name=self.alias)

    def refresh(self) -> None:
        self._guard(self.client.indices.refresh, index=self.alias)

    # ---- writing ---------------------------------------------------------------------------------
    def _action(self, doc: dict[str, Any]) -> dict[str, Any]:
        source = {k: doc.get(k) for k in DOC_FIELDS if doc.get(k) not in (None, "")}
        for key in ("pubdate", "crawled_at"):
            if key in source:
                source[key] = iso_utc(source[key])
        if "channel" in source:
            source["channel"] = str(source["channel"])
        return {"_op_type": "index", "_index": self.alias, "_id": url_id(doc["url"]), "_source": source}

    def index_bulk(self, docs: Iterable[dict[str, Any]], refresh: bool = False) -> tuple[int, list[dict[str, str]]]:
        actions, errors = [], []
        for doc in docs:
            try:
                actions.append(self._action(doc))
            except (KeyError, ValueError, TypeError) as exc:
                errors.append({"id": str(doc.get("id") or doc.get("url")), "error": f"bad document: {exc}"})
        if not actions:
            return 0, errors
        ok, failed = self._guard(helpers.bulk, self.client, actions, raise_on_error=False,
                                 raise_on_exception=False, refresh="wait_for" if refresh else False)
        for item in failed:
            body = next(iter(item.values()))
            if body.get("status") in (None, 429, 503) and not body.get("error"):
                raise IndexUnavailable(f"bulk request failed: {body}")
            error = body.get("error")
            reason = error.get("reason", error) if isinstance(error, dict) else error
            errors.append({"id": body.get("_id"), "error": str(reason)[:300]})
        return int(ok), errors

    # ---- reading ---------------------------------------------------------------------------------
    def search(self, query: str, site: str | None = None, since=None, until=None, page_type: str | None = None,
               channel_kind: str | None = None, sort: str = "relevance", offset: int = 0,
               size: int = 10) -> SearchResults:
        check_search_args(sort, offset, size)
        filters: list[dict[str, Any]] = []
        for name, value in (("site", site), ("page_type", page_type), ("channel_kind", channel_kind)):
            if value:
                filters.append({"term": {name: value}})
        if since or until:
            span = {}
            if since:
                span["gte"] = iso_utc(since)
            if until:
                span["lt"] = iso_utc(until)
            filters.append({"range": {"pubdate": span}})
        query = (query or "").strip()
        must = ({"multi_match": {"query": query, "fields": ["title^3", "content", "source.text", "author.text"],
                                 "type": "most_fields", "operator": "and"}}
                if query else {"match_all": {}})
        order: list[Any] = (["_score", {"pubdate": {"order": "desc", "missing": "_last"}}] if sort == "relevance"
                            else [{"pubdate": {"order": "desc", "missing": "_last"}}, "_score"])
        t0 = time.perf_counter()
        try:
            resp = self._guard(
                self.client.search, index=self.alias, query={"bool": {"must": [must], "filter": filters}},
                sort=order, from_=offset, size=size, track_total_hits=True,
                highlight={"pre_tags": ["<em>"], "post_tags": ["</em>"], "encoder": "default",
                           "fields": {"content": {"fragment_size": 160, "number_of_fragments": 2},
                                      "title": {"number_of_fragments": 0}}},
            )
        except es_exc.BadRequestError as exc:  # e.g. a page beyond index.max_result_window
            raise ValueError(f"Elasticsearch refused the search: {_root_cause(exc)}") from None
        hits = []
        for h in resp["hits"]["hits"]:
            src = h.get("_source", {})
            fragments = h.get("highlight", {}).get("content") or []
            snippet = " … ".join(fragments) if fragments else (src.get("content") or "")[:160]
            hits.append(SearchHit(id=h["_id"], url=src.get("url", ""), title=src.get("title"), site=src.get("site"),
                                  pubdate=src.get("pubdate"), source=src.get("source"), snippet=snippet,
                                  score=h.get("_score"), author=src.get("author"),
                                  channel_kind=src.get("channel_kind"), page_type=src.get("page_type"),
                                  crawled_at=src.get("crawled_at"), lang=src.get("lang")))
        return SearchResults(total=int(resp["hits"]["total"]["value"]), hits=hits,
                             took_ms=(time.perf_counter() - t0) * 1000)

    def get(self, doc_id: str) -> dict[str, Any] | None:
        try:
            resp = self._guard(self.client.get, index=self.alias, id=doc_id)
        except es_exc.NotFoundError:
            return None
        return {"id": resp["_id"], **resp["_source"]}

    def count(self) -> int:
        return int(self._guard(self.client.count, index=self.alias)["count"])

    def site_counts(self, limit: int = 20) -> list[tuple[str, int]]:
        resp = self._guard(self.client.search, index=self.alias, size=0,
                           aggs={"sites": {"terms": {"field": "site", "size": limit}}})
        return [(b["key"], int(b["doc_count"])) for b in resp["aggregations"]["sites"]["buckets"]]

    def articles_per_hour(self, since=None, until=None) -> dict[int, int]:
        """{epoch ms of the hour: documents crawled in it}."""
        span = {k: iso_utc(v) for k, v in (("gte", since), ("lt", until)) if v}
        query = {"range": {"crawled_at": span}} if span else {"match_all": {}}
        resp = self._guard(self.client.search, index=self.alias, size=0, query=query,
                           aggs={"hours": {"date_histogram": {"field": "crawled_at", "fixed_interval": "1h",
                                                              "min_doc_count": 1}}})
        return {int(b["key"]): int(b["doc_count"]) for b in resp["aggregations"]["hours"]["buckets"]}

    def stats(self) -> dict[str, Any]:
        resp = self._guard(self.client.indices.stats, index=self.alias, metric=["docs", "store"])
        total = resp["_all"]["total"]
        return {"backend": "elasticsearch", "url": self.url, "alias": self.alias,
                "documents": int(total["docs"]["count"]), "size_bytes": int(total["store"]["size_in_bytes"])}

    def close(self) -> None:
        self.client.close()
