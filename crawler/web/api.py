"""The JSON API: search and articles (open like the search page), channels and status (log-in),
and its OpenAPI description at /api/openapi.json."""
from __future__ import annotations

import time

from flask import Blueprint, current_app, jsonify, request

from crawler.web.app import backends
from crawler.web.auth import login_required, search_access
from crawler.web.openapi import openapi_document
from crawler.web.search import run_search
from crawler.web.searchform import BadQuery, parse_query
from crawler.web.views_common import as_dict, json_safe

bp = Blueprint("api", __name__, url_prefix="/api")

HIT_FIELDS = ("id", "url", "title", "site", "pubdate", "source", "snippet")


def _error(message: str, status: int):
    return jsonify(error=message), status


@bp.route("/search")
@search_access
def search():
    try:
        query = parse_query(request.args, current_app.config["MCRAWL_WEB"].page_size)
    except BadQuery as exc:
        return _error(str(exc), 400)
    started = time.perf_counter()
    try:
        total, hits = run_search(query)
    except Exception as exc:
        current_app.logger.exception("search failed")
        return _error(f"the article index did not answer: {type(exc).__name__}", 503)
    index_ms = (time.perf_counter() - started) * 1000
    response = jsonify(total=total, page=query.page, size=query.size, sort=query.sort,
                       hits=[json_safe({k: hit.get(k) for k in HIT_FIELDS}) for hit in hits])
    # how much of a slow answer was the index's (browsers' dev tools and the benchmark read it)
    response.headers["Server-Timing"] = f"index;dur={index_ms:.1f}"
    return response


@bp.route("/articles/<doc_id>")
@search_access
def article(doc_id: str):
    if not doc_id.isalnum() or len(doc_id) > 128:
        return _error("no such article", 404)
    doc = backends().index.get(doc_id)
    if not doc:
        return _error("no such article", 404)
    doc = json_safe(as_dict(doc))
    doc.setdefault("id", doc_id)
    return jsonify(doc)


@bp.route("/channels")
@login_required
def channels():
    from crawler.web.channels import channel_rows

    return jsonify(channels=json_safe(channel_rows()))


@bp.route("/status")
@login_required
def status():
    from crawler.web.status import collect_status

    return jsonify(json_safe(collect_status()))


@bp.route("/openapi.json")
def openapi():
    return jsonify(openapi_document())
