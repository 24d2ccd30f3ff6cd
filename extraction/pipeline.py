"""The fusion pipeline: template match -> template extraction -> validate; otherwise classify the page
and run the template-free extractor that fits it (CEVC for news/blogs, PEAN for forums)."""
from __future__ import annotations

from datetime import datetime
from typing import Any, Mapping

from . import bylines, cevc, dates, forums, other, titles
from .classify import classify
from .dom import Page, PageError, load_page
from .overrides import apply_overrides
from .result import ExtractionResult
from .validate import validate


def extract(data: bytes | str, url: str | None = None, *, content_type: str | None = None,
            fetched_at: datetime | None = None, tz: str | None = None,
            templates: Any = None, overrides: Mapping[str, str] | None = None) -> ExtractionResult:
    """Extract the article (or forum posts) from one page.

    `data` is the raw page (bytes are decoded here); `content_type` the HTTP header, for its charset;
    `fetched_at` anchors relative times ("3小时前"); `tz` is the channel's default IANA zone for
    times written without an offset; `templates` a mined template library; `overrides` optional
    per-channel XPaths for headline/body/date. Never raises on bad input: an unreadable page
    comes back with valid=False and a reason.
    """
    try:
        page = load_page(data, url, content_type=content_type, fetched_at=fetched_at, tz=tz)
    except PageError as exc:
        return ExtractionResult.failure(str(exc), url=url)
    return extract_page(page, templates=templates, overrides=overrides)


def extract_page(page: Page, *, templates: Any = None, overrides: Mapping[str, str] | None = None) -> ExtractionResult:
    if templates is not None:
        # Fusion step 1: a mined template for this page (URL trie, else structure) whose match
        # score clears its threshold, and a result that validates; otherwise the template-free path.
        mined = templates.extract(page)
        if mined is not None:
            # the channel's XPath overrides are a person's word about this site: they beat a mined slot too
            mined = apply_overrides(mined, page, overrides)
            if validate(mined, now=page.fetched_at).valid:
                return mined
    result = apply_overrides(extract_by_type(page), page, overrides)
    if result.page_type == "list":
        return result  # a hub page has no article to validate; it keeps its reason "list page"
    return validate(result, now=page.fetched_at)


def extract_by_type(page: Page) -> ExtractionResult:
    """Fusion step 2: classify the page, then run the template-free extractor for its type."""
    page_type, _ = classify(page)
    if page_type == "forum":
        result = forums.extract_forum(page)
        if result is not None:
            return result
    elif page_type == "list":
        return other.extract_list(page)
    elif page_type == "other":
        return other.extract_other(page)
    result = extract_article(page)  # news, blogs, and threads where no post was found
    result.page_type = page_type
    return result


def extract_article(page: Page) -> ExtractionResult:
    """The news/blog path: CEVC body, headline, publication time, author and source."""
    body = cevc.extract_body(page)
    headline, headline_node = titles.extract_headline(page, body.node)
    published = dates.extract_published(page, headline_node, body.node)
    author, source = bylines.extract_byline(page, headline_node, body.node)
    return ExtractionResult(url=page.url, page_type="article", headline=headline, datePublished=published,
                            author=author, source=source, articleBody=body.text, lang=page.lang,
                            method="cevc")
