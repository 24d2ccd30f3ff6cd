"""CEVC: Content Extraction via Valid Characters (body text of news/blog pages).

1. Every text leaf (an element's .text, or a child's .tail) that is not inside an <a> and contains
   a stopword contributes its characters as *valid characters*.
2. Valid characters are summed bottom-up, in one reverse pass over the elements in document order
   (children come after their parent in document order, so reversed order visits them first).
3. From <body>, step into the child with the most valid characters while the max-child ratio
   MCR = valid(best child) / valid(node) >= alpha; the node where the walk stops holds the body
   (its parent when the walk reached an element without element children).

All per-node figures live in flat lists indexed by document position, so the whole computation is
two linear passes; nothing re-walks a subtree.
"""
from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from .dom import Page, text_of
from .text import char_count, valid_char_count

ALPHA = 0.5


@dataclass
class BodyResult:
    node: etree._Element | None  # the DOM node the body was read from (None when nothing found)
    text: str  # body text, paragraphs separated by "\n"


@dataclass
class NodeStats:
    """Per-element figures of one tree, indexed by the element's position in document order."""

    nodes: list[etree._Element]
    index: dict[etree._Element, int]
    parent: list[int]  # -1 for the root
    in_link: list[bool]  # the element is an <a> or inside one
    valid: list[int]  # valid characters in the subtree
    chars: list[int]  # all non-space characters in the subtree
    link_chars: list[int]  # characters of link text in the subtree

    def children(self, i: int) -> list[int]:
        return [self.index[c] for c in self.nodes[i] if isinstance(c.tag, str)]


def compute_stats(root: etree._Element) -> NodeStats:
    nodes = [el for el in root.iter() if isinstance(el.tag, str)]
    index = {el: i for i, el in enumerate(nodes)}
    n = len(nodes)
    parent = [-1] * n
    in_link = [False] * n
    valid = [0] * n
    chars = [0] * n
    link_chars = [0] * n
    # Forward pass: parents and the link flag (a parent precedes its children).
    for i, el in enumerate(nodes):
        p = el.getparent()
        pi = index.get(p, -1) if p is not None else -1
        parent[i] = pi
        in_link[i] = el.tag == "a" or (pi >= 0 and in_link[pi])
    # Own text leaves: an element's .text is its own; a child's .tail belongs to the element too.
    for i, el in enumerate(nodes):
        if el.text:
            c = char_count(el.text)
            if c:
                chars[i] += c
                if in_link[i]:
                    link_chars[i] += c
                else:
                    valid[i] += valid_char_count(el.text)
        if el.tail and parent[i] >= 0:
            pi = parent[i]
            c = char_count(el.tail)
            if c:
                chars[pi] += c
                if in_link[pi]:
                    link_chars[pi] += c
                else:
                    valid[pi] += valid_char_count(el.tail)
    # Reverse pass: add each subtree's totals to its parent.
    for i in range(n - 1, 0, -1):
        pi = parent[i]
        if pi >= 0:
            valid[pi] += valid[i]
            chars[pi] += chars[i]
            link_chars[pi] += link_chars[i]
    return NodeStats(nodes, index, parent, in_link, valid, chars, link_chars)


def descend(stats: NodeStats, start: int = 0, alpha: float = ALPHA) -> int:
    """The CEVC walk: index of the node where the max-child ratio drops below alpha."""
    i = start
    while True:
        kids = stats.children(i)
        if not kids or stats.valid[i] == 0:
            break
        best = max(kids, key=stats.valid.__getitem__)
        if stats.valid[best] / stats.valid[i] < alpha:
            break
        i = best
    if not stats.children(i) and stats.parent[i] >= 0 and i != start:
        i = stats.parent[i]
    return i


def extract_body(page: Page, alpha: float = ALPHA) -> BodyResult:
    body = page.body
    stats = compute_stats(body)
    if not stats.nodes or stats.valid[0] == 0:
        return BodyResult(None, "")
    i = descend(stats, 0, alpha)
    node = stats.nodes[i]
    return BodyResult(node, text_of(node))
