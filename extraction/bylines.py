"""Author and source (作者 / 来源 / byline) extraction. STUB: to be replaced (issue 2)."""
from __future__ import annotations

from lxml import etree

from .dom import Page


def extract_byline(page: Page, headline_node: etree._Element | None = None,
                   body_node: etree._Element | None = None) -> tuple[str | None, str | None]:
    """Return (author, source)."""
    return None, None
