"""Publication time extraction. STUB: to be replaced by the real implementation (issue 2)."""
from __future__ import annotations

from lxml import etree

from .dom import Page


def extract_published(page: Page, headline_node: etree._Element | None = None,
                      body_node: etree._Element | None = None) -> str | None:
    """ISO 8601 publication time (with the page's/channel's zone offset when known), or None."""
    return None
