"""Anchor nodes for PEAN/MiBAT and the per-page text lengths both use to turn records into posts."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from lxml import etree

from .common import is_excluded
from .times import find_times, parse_iso, parse_time

# A text longer than this is a paragraph that mentions a date, not a post header's time.
MAX_ANCHOR_TEXT = 160
_RELATIVE_HINT = re.compile(r"ago|vor |前|heute|today|yesterday|gestern|昨天|今天|刚刚|just now", re.I)


@dataclass
class Anchors:
    nodes: list[etree._Element]  # anchor nodes, in document order
    clock: set = field(default_factory=set)  # anchors whose time has hours and minutes
    count: dict = field(default_factory=dict)  # element -> number of anchors in its subtree

    def inside(self, block: etree._Element) -> list[etree._Element]:
        """Anchors within `block` (itself included), in document order; linear in the block's size
        and free when the block holds none."""
        if not self.count.get(block):
            return []
        members = self.members
        return [el for el in block.iter() if el in members]

    @property
    def members(self) -> set:
        cached = self.__dict__.get("_members")
        if cached is None or len(cached) != len(self.nodes):
            cached = self.__dict__["_members"] = set(self.nodes)
        return cached


def _direct_text(el: etree._Element) -> str:
    parts = [el.text or ""]
    parts.extend(child.tail or "" for child in el)
    return "".join(parts)


def _small(el: etree._Element, limit: int = 8) -> bool:
    for n, _ in enumerate(el.iter()):
        if n > limit:
            return False
    return True


def anchor_candidates(root: etree._Element, now: datetime | None) -> dict[etree._Element, bool]:
    """Every lowest node whose own text (or time attributes) holds a post-time string -> whether
    that time has a clock. The costly part of find_anchors (a time search per text node), kept
    apart so PEAN's repeated descents reuse it."""
    found: dict[etree._Element, bool] = {}
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        if el.get("datetime") or el.get("title") or el.get("data-time"):
            iso = parse_iso(el.get("datetime") or el.get("data-time"))
            shown = parse_time(el.get("title"), now)
            if iso is not None or shown is not None:
                found[el] = (shown is not None and shown.has_clock) or (iso is not None and "T" in (el.get("datetime") or "T"))
                continue
        text = _direct_text(el)
        if not text.strip() or len(text) > 2000:
            continue
        if not any(c.isdigit() for c in text) and not _RELATIVE_HINT.search(text):
            continue
        # A date split over markup ("14.12.2019 <span>21:42</span>") needs the small subtree's
        # text; larger subtrees are containers, whose own text is checked alone (linear cost).
        full = " ".join(el.text_content().split()) if _small(el) else ""
        if not full or len(full) > MAX_ANCHOR_TEXT:
            full = " ".join(text.split())
            if len(full) > MAX_ANCHOR_TEXT:
                continue
        matches = find_times(full, now, limit=2)
        if matches:
            found[el] = any(m.has_clock for m in matches)
    # Keep the lowest: drop a node when one of its descendants is itself an anchor.
    for el in list(found):
        for depth, anc in enumerate(el.iterancestors()):
            if depth >= 4:
                break
            found.pop(anc, None)
    return found


def find_anchors(root: etree._Element, now: datetime | None, exclude: tuple[etree._Element, ...] = (),
                 candidates: dict[etree._Element, bool] | None = None) -> Anchors:
    """The lowest nodes whose own text (or time attributes) hold a post-time string, outside the
    `exclude`d subtrees; `candidates` is anchor_candidates(root, now) when the caller has it."""
    excluded = set(exclude)
    found = candidates if candidates is not None else anchor_candidates(root, now)
    nodes = [el for el in root.iter() if el in found and not (excluded and any(a in excluded for a in el.iterancestors()))]
    if sum(1 for el in nodes if found[el]) >= 2:
        # Post headers carry a clock time; bare dates on such a page are join dates and dates
        # written inside posts, which would pull the descent into one long post.
        nodes = [el for el in nodes if found[el]]
    anchors = Anchors(nodes=nodes, clock={el for el in nodes if found[el]})
    count = anchors.count
    for el in nodes:
        count[el] = count.get(el, 0) + 1
        for anc in el.iterancestors():
            count[anc] = count.get(anc, 0) + 1
    return anchors


def text_lengths(root: etree._Element) -> dict:
    """Element -> characters of post-like text below it: quotes, signatures and editing chrome
    count zero and link text counts a third (author boxes and menus are mostly links)."""
    lengths: dict = {}
    in_link: dict = {}
    for el in root.iter():  # pre-order: parents before children
        if not isinstance(el.tag, str):
            continue
        parent = el.getparent()
        in_link[el] = el.tag == "a" or (parent is not None and in_link.get(parent, False))
    for el in reversed([e for e in root.iter() if isinstance(e.tag, str)]):
        if is_excluded(el):
            lengths[el] = 0
            continue
        own = len((el.text or "").strip())
        total = own / 3 if in_link[el] else own
        for child in el:
            if isinstance(child.tag, str):
                total += lengths.get(child, 0)
                tail = len((child.tail or "").strip())
                total += tail / 3 if in_link[el] else tail
        lengths[el] = total
    return lengths
