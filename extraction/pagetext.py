"""The page's visible text as one string, with the offsets where chosen elements start and end.

Dates and bylines are looked for in windows of text around the headline and the body node
(the meta line under a headline, the "发布日期：…" line under an article). One iterative walk
builds the text and records the marks; it stops a little after the last mark has closed, so the
rest of a long page (footer, link farms) is never visited.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml import etree

from .dom import BLOCK_TAGS

_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u3000\u200b\ufeff]+")


@dataclass
class MarkedText:
    text: str
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # mark name -> [start, end) in text
    # <time datetime=…> / itemprop=datePublished values met on the way: (offset, value, says "published")
    attr_times: list[tuple[int, str, bool]] = field(default_factory=list)

    def span(self, name: str) -> tuple[int, int] | None:
        return self.spans.get(name)


def _clean(piece: str) -> str:
    return _SPACES.sub(" ", piece.replace("\n", " "))


def marked_text(root: etree._Element, marks: dict[str, etree._Element | None],
                tail_chars: int = 1500) -> MarkedText:
    """Text of `root` (block elements break lines) with the spans of the `marks` elements.

    The walk ends `tail_chars` characters after every mark has been closed. Marks that are not
    inside `root` are absent from the result's spans.
    """
    wanted = {el: name for name, el in marks.items() if el is not None}
    open_marks: dict[str, int] = {}
    spans: dict[str, tuple[int, int]] = {}
    attr_times: list[tuple[int, str, bool]] = []
    parts: list[str] = []
    length = 0
    stop_at: int | None = None

    def add(piece: str) -> None:
        nonlocal length
        # Consecutive line breaks (nested blocks) count once, so distances are in visible characters.
        if piece == "\n" and (not parts or parts[-1].endswith("\n")):
            return
        if piece:
            parts.append(piece)
            length += len(piece)

    stack: list[tuple[etree._Element, bool]] = [(root, True)]
    while stack:
        if stop_at is not None and length > stop_at:
            break
        node, entering = stack.pop()
        tag = node.tag if isinstance(node.tag, str) else ""
        if entering:
            if tag in BLOCK_TAGS:
                add("\n")
            name = wanted.get(node)
            if name is not None:
                open_marks[name] = length
            if tag:
                stamp = node.get("datetime") if tag == "time" else None
                prop = (node.get("itemprop") or "").lower()
                if prop in ("datepublished", "datecreated"):
                    stamp = node.get("datetime") or node.get("content") or stamp
                if stamp:
                    attr_times.append((length, stamp, bool(prop) or node.get("pubdate") is not None))
                if node.text:
                    add(_clean(node.text))
            stack.append((node, False))
            for child in reversed(node):
                stack.append((child, True))
        else:
            if tag in BLOCK_TAGS:
                add("\n")
            name = wanted.get(node)
            if name is not None and name in open_marks:
                spans[name] = (open_marks.pop(name), length)
                if len(spans) == len(wanted):
                    stop_at = length + tail_chars
            if node is not root and node.tail:
                add(_clean(node.tail))
    return MarkedText("".join(parts), spans, attr_times)

