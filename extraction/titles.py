"""Headline extraction. STUB: to be replaced by the real implementation (issue 2)."""
from __future__ import annotations

from lxml import etree

from .dom import Page


def extract_headline(page: Page, body_node: etree._Element | None = None) -> tuple[str | None, etree._Element | None]:
    """Return (headline, the element it was read from or None)."""
    return (page.title or None), None
