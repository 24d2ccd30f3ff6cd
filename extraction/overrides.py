"""Per-channel XPath overrides: the escape hatch for a site the automatic extractors get wrong.

A channel row may carry XPaths for `headline`, `body` and `date` (also accepted: `author`,
`source`). Each one that matches replaces the automatic value; one that matches nothing leaves the
automatic value alone, so a site redesign degrades to the template-free result instead of to
nothing. Pure: works on the already-parsed `Page`, no I/O.
"""
from __future__ import annotations

import re
from datetime import datetime
from typing import Mapping
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from dateutil import parser as date_parser
from lxml import etree

from .dom import Page, normalize_space, text_of
from .result import ExtractionResult

FIELDS = ("headline", "body", "date", "author", "source")
# Chinese date words -> separators dateutil understands ("2025年10月14日 20时15分" -> "2025-10-14 20:15").
_ZH_DATE = str.maketrans({"年": "-", "月": "-", "日": " ", "时": ":", "点": ":", "分": " ", "秒": " "})
_DATE_HINT = re.compile(r"\d{4}\s*[-/.年]\s*\d{1,2}\s*[-/.月]\s*\d{1,2}[^\n]{0,40}")


class OverrideError(ValueError):
    """An override the channel row carries cannot be used (unknown field, invalid XPath)."""


def check_overrides(overrides: Mapping[str, str] | None) -> list[str]:
    """Problems with a channel's overrides, as readable messages (empty list = usable)."""
    problems = []
    for name, xpath in (overrides or {}).items():
        if name not in FIELDS:
            problems.append(f"unknown override field {name!r} (expected one of {', '.join(FIELDS)})")
            continue
        try:
            etree.XPath(xpath)
        except etree.XPathSyntaxError as exc:
            problems.append(f"invalid XPath for {name}: {xpath!r} ({exc})")
    return problems


def _select_text(page: Page, xpath: str, multiline: bool) -> str | None:
    try:
        found = page.root.xpath(xpath)
    except etree.XPathError:
        # check_overrides reports these when the channel is loaded; here the automatic value stands.
        return None
    if not isinstance(found, list):
        found = [found]
    parts = []
    for item in found:
        if isinstance(item, etree._Element):
            text = text_of(item) if multiline else normalize_space(item.text_content())
        else:
            text = str(item) if multiline else normalize_space(str(item))
        if text.strip():
            parts.append(text.strip())
    if not parts:
        return None
    return "\n".join(parts) if multiline else normalize_space(" ".join(parts))


def parse_date_text(text: str, tz: str | None = None) -> str | None:
    """ISO 8601 time from the text an override selected; None when it holds no recognisable date.

    A time written without an offset is read in the channel's zone `tz`.
    """
    hint = _DATE_HINT.search(text)
    candidate = (hint.group(0) if hint else text).translate(_ZH_DATE)
    if not re.search(r"\d{4}", candidate):
        return None  # no year: fuzzy parsing would invent one from the default
    try:
        dt = date_parser.parse(candidate, fuzzy=True, default=datetime(2000, 1, 1))
    except (ValueError, OverflowError):
        return None
    if dt.tzinfo is None and tz:
        try:
            dt = dt.replace(tzinfo=ZoneInfo(tz))
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return dt.isoformat()


def apply_overrides(result: ExtractionResult, page: Page, overrides: Mapping[str, str] | None) -> ExtractionResult:
    """Replace the fields whose override XPath matches something on the page (in place)."""
    if not overrides:
        return result
    for name, xpath in overrides.items():
        if name not in FIELDS or not xpath:
            continue
        text = _select_text(page, xpath, multiline=(name == "body"))
        if text is None:
            continue
        if name == "headline":
            result.headline = text
        elif name == "body":
            result.articleBody = text
            if result.page_type in ("list", "other"):
                # The channel says where the article body is: trust it over the page classifier.
                result.page_type = "article"
                result.reasons = []
        elif name == "date":
            parsed = parse_date_text(text, page.tz)
            if parsed:
                result.datePublished = parsed
        elif name == "author":
            result.author = text
        elif name == "source":
            result.source = text
        result.method = result.method if result.method.endswith("+overrides") else result.method + "+overrides"
    return result
