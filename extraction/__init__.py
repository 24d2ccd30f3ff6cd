"""Template-free and template-based extraction of articles and forum posts from web pages.

A pure library: no network, no storage, no global mutable state. The public API::

    from extraction import extract
    result = extract(page_bytes, url="https://example.com/a.html")
    result.headline, result.datePublished, result.articleBody, result.valid, result.reasons
"""
from .pipeline import extract, extract_page
from .result import ExtractionResult, Post

__all__ = ["extract", "extract_page", "ExtractionResult", "Post"]
