"""Short windows of visible text before and after an element, read without walking the page.

Dates and bylines sit in the few lines around the headline and the body node (the meta line under
a headline, a "发布日期：…" footer under the article). Walking the whole page to get at them costs
more than everything else in date extraction, so these walks start at the element and stop after
`limit` characters (or `max_elements` elements): the cost follows the window, not the page.
Block elements break lines ("\n"); whitespace inside text is collapsed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from lxml import etree

import re

from .dom import BLOCK_TAGS, Page, is_inside

MAX_ELEMENTS = 400  # per window: an empty link farm cannot make a window walk the page

_BYLINE_HINT = re.compile(r"author|byline|writer|reporter|zuozhe", re.I)

# The windows searched for dates and bylines, in characters of visible text.
BEFORE_HEADLINE = 200  # a dateline above the headline
AFTER_HEADLINE = 1200  # the meta line(s) between headline and body
BODY_TOP = 200  # the dateline inside the body node
AFTER_BODY = 500  # "发布日期：…" footers right after the article
NO_HEADLINE_BEFORE_BODY = 500


@dataclass
class Window:
    text: str
    marks: dict[str, int] = field(default_factory=dict)  # mark name -> offset where that element starts
    # (offset, value, says "published") of <time datetime> / itemprop=datePublished met in the window
    attr_times: list[tuple[int, str, bool]] = field(default_factory=list)
    # (offset, element) of elements named like a byline (class/id/rel/itemprop author, byline)
    bylines: list[tuple[int, etree._Element]] = field(default_factory=list)


def _tag(el) -> str:
    return el.tag if isinstance(el.tag, str) else ""


def _stamp(el) -> tuple[str, bool] | None:
    tag = _tag(el)
    prop = (el.get("itemprop") or "").lower() if tag else ""
    if prop in ("datepublished", "datecreated"):
        value = el.get("datetime") or el.get("content")
        if value:
            return value, True
    if tag == "time" and el.get("datetime"):
        return el.get("datetime"), el.get("pubdate") is not None
    return None


class _Collector:
    def __init__(self, limit: int, hints: bool = False):
        self.hints: list[tuple[int, etree._Element]] | None = [] if hints else None
        self.parts: list[str] = []
        self.length = 0
        self.limit = limit
        self.visited = 0
        self.marks: dict[str, int] = {}
        self.attr_times: list[tuple[int, str, bool]] = []

    @property
    def full(self) -> bool:
        return self.length >= self.limit or self.visited >= MAX_ELEMENTS

    def add(self, piece: str | None) -> None:
        if not piece:
            return
        if piece == "\n":
            if self.parts and self.parts[-1] != "\n":
                self.parts.append("\n")
                self.length += 1
            return
        if piece.isspace():
            if self.parts and self.parts[-1] not in ("\n", " "):
                self.parts.append(" ")
                self.length += 1
            return
        lead = " " if piece[0].isspace() else ""
        trail = " " if piece[-1].isspace() else ""
        text = lead + " ".join(piece.split()) + trail
        self.parts.append(text)
        self.length += len(text)

    def text(self) -> str:
        return "".join(self.parts)


def _forward(col: _Collector, start: list, marks: dict) -> None:
    """Emit text in document order from a stack of pending actions (LIFO)."""
    stack = start
    add = col.add
    hints = col.hints
    while stack and col.length < col.limit and col.visited < MAX_ELEMENTS:
        kind, item = stack.pop()
        if kind == "s":
            if item:
                add(item)
            continue
        el = item  # kind "e": element with its tail; "n": without (the walk's starting element)
        col.visited += 1
        tag = el.tag
        if not isinstance(tag, str):  # comment or processing instruction: only its tail is text
            if kind == "e" and el.tail:
                stack.append(("s", el.tail))
            continue
        if marks:
            name = marks.get(el)
            if name is not None and name not in col.marks:
                col.marks[name] = col.length
        prop = el.get("itemprop")
        if tag == "time" or prop:
            stamp = _stamp(el)
            if stamp is not None:
                col.attr_times.append((col.length, stamp[0], stamp[1]))
        if hints is not None:
            hint = f"{el.get('class') or ''} {el.get('id') or ''} {el.get('rel') or ''} {prop or ''}"
            if len(hint) > 3 and _BYLINE_HINT.search(hint):
                hints.append((col.length, el))
        block = tag in BLOCK_TAGS
        # Pushed in reverse of emission: "\n", text, children, "\n", tail.
        if kind == "e" and el.tail:
            stack.append(("s", el.tail))
        if block:
            stack.append(("s", "\n"))
        for child in reversed(el):
            stack.append(("e", child))
        if block:
            add("\n")
        if el.text:
            add(el.text)


def text_after(el: etree._Element, limit: int, *, include_self: bool = False,
               marks: dict[etree._Element, str] | None = None, byline_hints: bool = False) -> Window:
    """Up to `limit` characters of the text that follows `el`'s start (include_self) or its end."""
    col = _Collector(limit, byline_hints)
    marks = marks or {}
    if include_self:
        _forward(col, [("n", el)], marks)
    elif _tag(el) in BLOCK_TAGS:
        col.add("\n")
    node = el
    col.add(node.tail)
    while node is not None and not col.full:
        _forward(col, _sibling_stack(node), marks)
        parent = node.getparent()
        if parent is None or col.full:
            break
        if _tag(parent) in BLOCK_TAGS:
            col.add("\n")
        col.add(parent.tail)
        node = parent
    return Window(col.text()[: limit + 200], col.marks, col.attr_times, col.hints or [])


def _sibling_stack(node: etree._Element) -> list:
    """Pending actions for the following siblings of `node`, nearest on top (a bounded number)."""
    sibs = []
    for sib in node.itersiblings():
        sibs.append(("e", sib))
        if len(sibs) >= MAX_ELEMENTS:
            break
    sibs.reverse()
    return sibs


def _reverse_pieces(el: etree._Element) -> Iterator[str]:
    """Text pieces preceding `el`, nearest first (reverse document order)."""
    node = el
    visited = 0
    while node is not None:
        for sib in node.itersiblings(preceding=True):
            stack: list = [("e", sib)]
            while stack:
                kind, item = stack.pop()
                if kind == "s":
                    if item:
                        yield item
                    continue
                visited += 1
                if visited > MAX_ELEMENTS:
                    return
                x = item
                tag = _tag(x)
                block = tag in BLOCK_TAGS
                # Emission in reverse: tail, "\n", children (last first), text, "\n"; pushed reversed.
                if block:
                    stack.append(("s", "\n"))
                if tag:
                    stack.append(("s", x.text))
                    for child in x:
                        stack.append(("e", child))
                if block:
                    stack.append(("s", "\n"))
                if x.tail:
                    yield x.tail
        parent = node.getparent()
        if parent is None:
            return
        if parent.text:
            yield parent.text
        if _tag(parent) in BLOCK_TAGS:
            yield "\n"
        node = parent


def text_before(el: etree._Element, limit: int) -> str:
    """Up to `limit` characters of the text that precedes `el`, in reading order."""
    col = _Collector(limit)
    pieces: list[str] = []
    length = 0
    for piece in _reverse_pieces(el):
        pieces.append(piece)
        length += len(piece) if not piece.isspace() else 1
        if length >= limit:
            break
    for piece in reversed(pieces):
        col.add(piece)
    text = col.text()
    return text[-limit:] if len(text) > limit else text


def meta_windows(page: Page, headline_node: etree._Element | None,
                 body_node: etree._Element | None) -> list[tuple[Window, str, int]]:
    """(window, region, anchor) for the text around headline and body where dates and bylines sit.

    Regions: "pre" (just above the headline), "head" (from the headline to a little into the body,
    or around the body start when there is no headline near it), "foot" (just after the body).
    `anchor` is the offset in the window's text that distances are measured from. The head window's
    `marks["body"]` is where the body node starts when it starts inside that window.
    Computed once per (page, headline, body): dates and bylines read the same windows.
    """
    cached = getattr(page, "_meta_windows", None)
    if cached is not None and cached[0] is headline_node and cached[1] is body_node:
        return cached[2]
    out: list[tuple[Window, str, int]] = []
    near_body = False
    if headline_node is not None:
        pre = text_before(headline_node, BEFORE_HEADLINE)
        out.append((Window(pre), "pre", len(pre)))
        marks = {body_node: "body"} if body_node is not None else None
        head = text_after(headline_node, AFTER_HEADLINE, marks=marks, byline_hints=True)
        if "body" in head.marks:
            near_body = True
            cut = head.marks["body"] + BODY_TOP
            head = Window(head.text[:cut], head.marks, [t for t in head.attr_times if t[0] <= cut],
                          [h for h in head.bylines if h[0] <= head.marks["body"]])
        elif body_node is not None and is_inside(headline_node, body_node):
            near_body = True
        out.append((head, "head", 0))
    if body_node is not None:
        if not near_body:
            before = text_before(body_node, NO_HEADLINE_BEFORE_BODY)
            out.append((Window(before), "head", len(before)))
            top = text_after(body_node, BODY_TOP, include_self=True, byline_hints=True)
            top.marks["body"] = 0
            out.append((top, "head", 0))
        out.append((text_after(body_node, AFTER_BODY), "foot", 0))
    if not out:
        out.append((text_after(page.body, NO_HEADLINE_BEFORE_BODY + BODY_TOP, include_self=True), "head", 0))
    # Per-page memo (the Page is this page's own object; nothing is shared between pages). A Page
    # that cannot take the attribute (slots, frozen) just computes the windows again.
    try:
        setattr(page, "_meta_windows", (headline_node, body_node, out))
    except AttributeError:
        pass
    return out
