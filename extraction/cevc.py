"""CEVC: Content Extraction via Valid Characters (body text of news/blog pages).

STUB: to be replaced by the real implementation (issue 2).
"""
from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from .dom import Page, text_of


@dataclass
class BodyResult:
    node: etree._Element | None  # the DOM node the body was read from (None when nothing found)
    text: str  # body text, paragraphs separated by "\n"


def extract_body(page: Page) -> BodyResult:
    body = page.body
    return BodyResult(body, text_of(body))
