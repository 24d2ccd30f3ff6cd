"""Extraction with a template: align a page to the template and read the labelled slots.

Only the template's skeleton takes part: its required nodes no deeper than its deepest slot (all
of them while no slot is labelled). The page is walked down to that depth only — the article's own
paragraphs below it are never tokenised — and without repeat collapse (extra list items are just
unaligned tokens), so matching costs a fraction of a template-free extraction. The match score is
the depth-weighted share of skeleton nodes found, in order, on the page (1.0: all of them). Below
the template's threshold the page is not from this template (or the site changed) and the caller
falls back to the template-free path.
"""
from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from ..dom import Page, iter_lines_skipping
from ..noise import is_noise_block, is_noise_line
from .induce import aligned_pairs
from .model import Template
from .similarity import depth_weights
from .tagseq import TagSequence, element_key, tag_sequence


@dataclass
class Match:
    template: Template
    score: float
    positions: list[int]  # page token index of each required node, -1 where not aligned (or not in the skeleton)
    seq: TagSequence

    def element(self, node: int) -> etree._Element | None:
        pos = self.positions[node] if 0 <= node < len(self.positions) else -1
        return self.seq.elements[pos] if pos >= 0 else None


def skeleton_depth(template: Template) -> int:
    if template.slots:
        return max(template.depths[s.node] for s in template.slots.values())
    return max(template.depths, default=0)


def skeleton(template: Template) -> tuple[list[int], list[int], float]:
    """(required node numbers, their codes, their total weight) down to the skeleton depth."""
    depth = skeleton_depth(template)
    cached = getattr(template, "_skeleton", None)
    if cached is not None and cached[0] == depth:
        return cached[1]
    nodes = [i for i, d in enumerate(template.depths) if d <= depth]
    codes = [template.codes[i] for i in nodes]
    total = float(depth_weights([template.depths[i] for i in nodes]).sum()) if nodes else 0.0
    template._skeleton = (depth, (nodes, codes, total))
    return nodes, codes, total


# A page wider than this at skeleton depth is matched on its first tokens (bounds the alignment).
MAX_MATCH_TOKENS = 50_000


def page_sequence(page: Page, max_depth: int | None = None) -> TagSequence:
    return tag_sequence(page.body, max_depth=max_depth, max_tokens=MAX_MATCH_TOKENS)


def align(template: Template, seq: TagSequence) -> Match:
    positions = [-1] * len(template.keys)
    nodes, codes, total = skeleton(template)
    if not nodes or total <= 0:
        return Match(template, 0.0, positions, seq)
    found = 0.0
    for k, j in aligned_pairs(codes, seq.codes):
        node = nodes[k]
        positions[node] = j
        found += 1.0 / (1.0 + template.depths[node])
    return Match(template, found / total, positions, seq)


def slot_text(match: Match, field: str) -> tuple[str, etree._Element | None]:
    """The text of a labelled slot on the matched page, template text lines removed."""
    slot = match.template.slots.get(field)
    if slot is None:
        return "", None
    el = match.element(slot.node)
    if el is None:
        return "", None
    start = match.element(slot.start_node) if slot.start_node >= 0 else None
    if start is not None and start in set(el.iterancestors()):
        # The start node holds the body slot: the article starts at the page's headline inside
        # it, which only the caller knows (see body_text).
        start = None
    if start is not None:
        span = read_span(start, el, slot.drop_lines, slot.skip_keys, slot.keep_keys)
        if span is not None:
            return span, el
    return read_text(el, slot.drop_lines, slot.skip_keys, keep_keys=slot.keep_keys), el


def body_text(match: Match, headline_el: etree._Element | None) -> str:
    """The body slot's text, read from the page's headline when the body slot starts at a node
    that holds it and the headline element lies inside that node (else as slot_text reads it)."""
    slot = match.template.slots.get("body")
    text, el = slot_text(match, "body")
    if slot is None or el is None or slot.start_node < 0 or headline_el is None:
        return text
    holder = match.element(slot.start_node)
    if holder is None or holder not in set(el.iterancestors()) or holder not in set(headline_el.iterancestors()):
        return text
    span = read_span(headline_el, el, slot.drop_lines, slot.skip_keys, slot.keep_keys)
    return span if span is not None else text


def read_span(start: etree._Element, end: etree._Element, drop_lines=(), skip_keys=(), keep_keys=()) -> str | None:
    """Text from the beginning of `start` to the end of `end` (the article header through the body
    slot), read inside their nearest common ancestor; None when `start` does not come before `end`
    or one holds the other (then there is no span to read)."""
    ancestors = set(start.iterancestors())
    if end in ancestors or start in set(end.iterancestors()) or start is end:
        return None
    common = next((a for a in end.iterancestors() if a in ancestors), None)
    if common is None:
        return None
    position = {node: i for i, node in enumerate(common.iter())}
    first, last = position[start], _last_position(end, position)
    if first > position[end]:
        return None

    def outside(node: etree._Element) -> bool:
        return _last_position(node, position) < first or position[node] > last

    return read_text(common, drop_lines, skip_keys, outside, keep_keys)


def _last_position(node: etree._Element, position: dict) -> int:
    """Pre-order position of the last node of `node`'s subtree (walks down the last children)."""
    while len(node):
        node = node[-1]
    return position[node]


def read_text(el: etree._Element, drop_lines=(), skip_keys=(), skip_also=None, keep_keys=()) -> str:
    """Text of `el`, one line per block, without the subtrees whose key is in `skip_keys` and
    without the lines in `drop_lines`."""
    # Besides the learnt keys, the template-free path's furniture test (nav, aside, share bars,
    # captions by tag or class words) applies: such blocks turn up on pages the miner never saw.
    # `keep_keys` name blocks that test would drop but whose text the cluster showed to be page
    # content (a caption or standfirst that differs on every page and is not a list of links).
    skip = frozenset(skip_keys)
    keep = frozenset(keep_keys)
    skip_tags = frozenset(k.split(".", 1)[0] for k in skip)
    lines = iter_lines_skipping(el, lambda node: (node.tag in skip_tags and element_key(node) in skip)
                                or (is_noise_block(node) and not (keep and element_key(node) in keep))
                                or (skip_also is not None and skip_also(node)))
    # The template-free path's line filter (paging, share prompts, photo credits) applies here too:
    # those lines vary from page to page, so the template's constant-line test cannot catch them.
    drop = frozenset(drop_lines)
    return "\n".join(line for line in lines if line and line not in drop and not is_noise_line(line))
