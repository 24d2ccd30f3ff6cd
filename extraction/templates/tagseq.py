"""Tag sequences: a page's cleaned DOM as the pre-order list of (tag, depth) tokens.

Following the thesis, tags that carry no layout (void tags such as img/br/input/meta) and inline
formatting tags (b, em, font, a, span, ...) are left out of the sequence; their text stays with the
enclosing block, so a paragraph reads the same however its words are marked up. Depth counts only
the kept ancestors. Each token may also carry the element's stable class names, which tell apart
the many <div>s of one template; class names holding digits are dropped because they are usually
per-page ids ("post-12345").
"""
from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field

from lxml import etree

# Tokens that never hold layout: dropped from the sequence (their children, if any, are promoted).
SKIP_TAGS = frozenset("""script style link input br img meta wbr hr param source track area base col
noscript template svg canvas iframe object embed option select textarea button head title""".split())
# Inline formatting: dropped from the sequence, children and text kept.
FORMATTING_TAGS = frozenset("""a abbr acronym b bdi bdo big blink cite code del dfn em font i ins kbd mark
nobr q s samp small span strike strong sub sup time tt u var label""".split())

_HAS_DIGIT = re.compile(r"\d")


def element_key(el: etree._Element, with_class: bool = True) -> str:
    """The element's token key: its tag, plus its stable class names (sorted, at most two)."""
    tag = el.tag.lower() if isinstance(el.tag, str) else ""
    if not with_class:
        return tag
    cls = el.get("class")
    if not cls:
        return tag
    names = sorted(c for c in cls.split() if not _HAS_DIGIT.search(c))[:2]
    return tag + "." + ".".join(names) if names else tag


def token_code(key: str, depth: int) -> int:
    # crc32 rather than hash(): str hashes change between processes, and codes are stored in
    # template files and compared across worker processes.
    return zlib.crc32(f"{key}@{depth}".encode("utf-8"))


@dataclass
class TagSequence:
    """Pre-order tokens of one page; parallel lists indexed by token position."""

    codes: list[int] = field(default_factory=list)  # token_code(key, depth)
    keys: list[str] = field(default_factory=list)
    depths: list[int] = field(default_factory=list)
    parents: list[int] = field(default_factory=list)  # token index of the parent, -1 for the root
    ends: list[int] = field(default_factory=list)  # exclusive end of the token's subtree
    elements: list = field(default_factory=list)  # the lxml element of each token (not serialised)

    def __len__(self) -> int:
        return len(self.codes)

    def children(self) -> list[list[int]]:
        kids: list[list[int]] = [[] for _ in self.codes]
        for i, p in enumerate(self.parents):
            if p >= 0:
                kids[p].append(i)
        return kids


def tag_sequence(root: etree._Element, *, with_class: bool = True, max_tokens: int = 200_000,
                 max_depth: int | None = None) -> TagSequence:
    """Walk `root` (usually page.body) iteratively and return its tag sequence.

    `max_tokens` bounds memory on hostile pages: tokens past the limit are not recorded (the
    sequence is then a prefix of the page, which is enough to recognise its template).
    `max_depth` stops the walk below that token depth (template matching needs only the skeleton).
    """
    deepest = max_depth if max_depth is not None else 1 << 30
    code_of: dict[tuple[str, str | None, int], tuple[int, str]] = {}  # per call: keys repeat a lot
    seq = TagSequence()
    codes, keys, depths, parents, elements = seq.codes, seq.keys, seq.depths, seq.parents, seq.elements
    # (element, index of the nearest kept ancestor token, depth the element would get if kept)
    stack: list[tuple[etree._Element, int, int]] = [(root, -1, 0)]
    while stack and len(codes) < max_tokens:
        el, parent, depth = stack.pop()
        tag = el.tag
        if not isinstance(tag, str):  # comments, PIs, entities
            continue
        tag = tag.lower()
        if tag in SKIP_TAGS:
            continue
        if tag in FORMATTING_TAGS and parent >= 0:
            me, child_depth = parent, depth
        else:
            cls = el.get("class") if with_class else None
            cached = code_of.get((tag, cls, depth))
            if cached is None:
                key = element_key(el, with_class)
                cached = code_of[(tag, cls, depth)] = (token_code(key, depth), key)
            me, child_depth = len(codes), depth + 1
            codes.append(cached[0])
            keys.append(cached[1])
            depths.append(depth)
            parents.append(parent)
            elements.append(el)
            if child_depth > deepest:
                continue
        for child in reversed(el):
            stack.append((child, me, child_depth))
    seq.ends = subtree_ends(parents)
    return seq


def subtree_ends(parents: list[int]) -> list[int]:
    """Exclusive end of each token's subtree, from the parent links of a pre-order sequence."""
    ends = [i + 1 for i in range(len(parents))]
    for i in range(len(parents) - 1, 0, -1):  # pre-order: every descendant follows its ancestor
        p = parents[i]
        if p >= 0 and ends[i] > ends[p]:
            ends[p] = ends[i]
    return ends
