"""The search page and the article page."""
from __future__ import annotations

import dataclasses

from flask import Blueprint, abort, current_app, render_template, request

from crawler.store import KINDS as CHANNEL_KINDS
from crawler.web.app import backends
from crawler.web.auth import search_access
from crawler.web.searchform import BadQuery, SearchQuery, parse_query
from crawler.web.views_common import as_dict
from extraction.result import PAGE_TYPES

bp = Blueprint("search", __name__)


def run_search(query: SearchQuery) -> tuple[int, list[dict]]:
    """(total, hits as dicts) from the article index, the same call `mcrawl search` makes."""
    tz = current_app.config["MCRAWL_SETTINGS"].default_tz
    results = backends().index.search(query.q, **query.index_kwargs(tz))
    return int(results.total), [as_dict(hit) for hit in results.hits]


@bp.route("/")
@search_access
def index():
    error, status = None, 200
    total, hits = 0, []
    try:
        query = parse_query(request.args, current_app.config["MCRAWL_WEB"].page_size)
    except BadQuery as exc:
        query, error, status = SearchQuery(q=(request.args.get("q") or "")[:500]), str(exc), 400
    searched = any(request.args.get(k) for k in ("q", "site", "channel_kind", "page_type", "since", "until"))
    if error is None:
        if not searched:  # the front page lists the newest articles: what came in lately
            query = dataclasses.replace(query, sort="newest")
        try:
            total, hits = run_search(query)
        except Exception as exc:  # the index being down is shown on the page, not as a bare 500
            current_app.logger.exception("search failed")
            error, status = f"The article index did not answer: {type(exc).__name__}: {exc}", 503
    pages = -(-total // query.size)
    return render_template("search.html", query=query, hits=hits, total=total, pages=pages,
                           searched=searched, error=error, channel_kinds=CHANNEL_KINDS,
                           page_types=PAGE_TYPES), status


@bp.route("/article/<doc_id>")
@search_access
def article(doc_id: str):
    if not doc_id.isalnum() or len(doc_id) > 128:
        abort(404)
    doc = backends().index.get(doc_id)
    if not doc:
        abort(404)
    return render_template("article.html", doc=as_dict(doc), doc_id=doc_id)
