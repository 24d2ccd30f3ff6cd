"""PEAN — Post Extraction via Anchor Nodes.

1. Anchors: the lowest nodes whose text holds a post time (forums/anchors.py).
2. From <body>, step into the child holding most anchors until more than one child holds
   anchors and their counts are even enough: RMD (relative mean deviation of the non-zero
   counts) < ALPHA and MPR (largest count / all anchors) < BETA.
3. Among that node's anchored children the one with most anchors is the reference post; the
   others are ranked by simple-tree-matching similarity to it and kept in that order until a
   score falls below half the previous one. Kept children, in page order, are the posts.
4. A thread page with a single post (or a first post laid out unlike the replies) has no
   repeating siblings: the post is the largest subtree around the lone anchor that holds no
   other anchor, found next to the records.
Regions whose "posts" carry almost no text of their own (a sidebar of dated links) are
rejected and the descent is repeated without their anchors.
"""
from __future__ import annotations

from lxml import etree

from .dom import Page
from .forums.common import time_from_element
from .forums.anchors import Anchors, anchor_candidates, find_anchors, text_lengths
from .forums.records import posts_from_records
from .result import Post
from .treematch import tree_similarity

ALPHA = 0.5  # RMD bound: anchor counts of the record siblings deviate little from their mean
BETA = 0.7  # MPR bound: no single child holds most of the anchors
MIN_SIMILARITY = 0.25  # below this a sibling is page furniture, whatever the half-previous rule says
MIN_POST_TEXT = 15  # mean characters of own text per record for a region to count as posts
MAX_ROUNDS = 3
MAX_FIRST_POST_ANCHORS = 5  # post time, edit time, dates quoted in the opening post


def _anchored_children(node: etree._Element, anchors: Anchors) -> list[etree._Element]:
    return [c for c in node if isinstance(c.tag, str) and anchors.count.get(c, 0) > 0]


def _even(counts: list[int]) -> bool:
    total = sum(counts)
    mean = total / len(counts)
    rmd = sum(abs(c - mean) for c in counts) / len(counts) / mean
    return rmd < ALPHA and max(counts) / total < BETA


def find_record_parent(body: etree._Element, anchors: Anchors, lengths: dict) -> tuple[etree._Element, list[etree._Element]]:
    """The node whose children are the posts, and the descent path from <body> to it."""
    node, path = body, [body]
    while True:
        kids = _anchored_children(node, anchors)
        if not kids:
            return node, path
        ranked = sorted(kids, key=lambda c: (anchors.count[c], lengths.get(c, 0)), reverse=True)
        if len(kids) > 1 and _even([anchors.count[c] for c in kids]):
            # Even counts over dissimilar children (a header date next to one post) are no record list.
            if tree_similarity(ranked[0], ranked[1]) >= MIN_SIMILARITY:
                return node, path
        node = ranked[0]
        path.append(node)


def select_records(parent: etree._Element, anchors: Anchors) -> list[etree._Element]:
    kids = _anchored_children(parent, anchors)
    if len(kids) < 2:
        return []
    reference = max(kids, key=lambda c: anchors.count[c])
    scored = sorted(((tree_similarity(reference, c), i, c) for i, c in enumerate(kids) if c is not reference),
                    key=lambda t: t[0], reverse=True)
    kept = {id(reference)}
    previous = 1.0
    for score, _, child in scored:
        if score < MIN_SIMILARITY or score < previous / 2:
            break
        kept.add(id(child))
        previous = score
    return [c for c in kids if id(c) in kept]


def _lone_post(path: list[etree._Element], anchors: Anchors) -> etree._Element | None:
    """The highest node on the descent path that holds exactly one anchor: a single post (its
    content block is then found inside it like any record's)."""
    for node in path[1:]:
        if anchors.count.get(node, 0) == 1:
            return node
    return None


def _same_time(block: etree._Element, record: etree._Element, anchors: Anchors, now) -> bool:
    """A thread header repeats the first post's time ("started by X, <time>"); a post does not."""
    def times(el):
        return {time_from_element(a, now) for a in anchors.inside(el)}
    return bool(times(block) & times(record))


def _first_post_before(records: list[etree._Element], anchors: Anchors, lengths: dict,
                       now=None) -> etree._Element | None:
    """A first post laid out unlike the replies: an anchored block just before the record list
    (within a few levels), holding a few anchors and real text beside its time line."""
    first = records[0]
    node = first
    for _ in range(4):
        parent = node.getparent()
        if parent is None:
            return None
        for sib in node.itersiblings(preceding=True):
            if not isinstance(sib.tag, str):
                continue
            n = anchors.count.get(sib, 0)
            if 1 <= n <= MAX_FIRST_POST_ANCHORS and text_beside_time(sib, anchors, lengths) >= 40 \
                    and not _same_time(sib, first, anchors, now):
                return sib
            if n:
                return None
        node = parent
    return None


MAX_LINE_TEXT = 60  # a post header line (name, time, permalink) is short


def text_beside_time(block: etree._Element, anchors: Anchors, lengths: dict) -> float:
    """Text of `block` outside the line that holds its time: a thread header ("started by X,
    10 April 2020") has none, a first post has its content."""
    lines: set = set()
    for anchor in anchors.inside(block):
        if anchor is block:
            return 0.0  # the block is nothing but its time line
        line = anchor
        for anc in anchor.iterancestors():
            if anc is block or lengths.get(anc, 0) > MAX_LINE_TEXT:
                break
            line = anc
        lines.add(line)
    return lengths.get(block, 0) - sum(lengths.get(line, 0) for line in lines)


def _own_text(records: list[etree._Element], anchors: Anchors, lengths: dict) -> float:
    """Mean text per record outside its time line: posts say something, dated link lists do not."""
    return sum(text_beside_time(r, anchors, lengths) for r in records) / max(1, len(records))


def find_records(page: Page) -> tuple[list[etree._Element], Anchors, dict]:
    """Post records, their anchors and text lengths; computed once per page (the classifier reads
    them before the forum path does)."""
    cached = page.cache.get("pean_records")
    if cached is None:
        cached = page.cache["pean_records"] = _find_records(page)
    return cached


def _find_records(page: Page) -> tuple[list[etree._Element], Anchors, dict]:
    body = page.body
    lengths = text_lengths(body)
    excluded: tuple = ()
    candidates = anchor_candidates(body, page.fetched_at)
    anchors = find_anchors(body, page.fetched_at, candidates=candidates)
    for _ in range(MAX_ROUNDS):
        if not anchors.nodes:
            return [], anchors, lengths
        parent, path = find_record_parent(body, anchors, lengths)
        records = select_records(parent, anchors)
        if records:
            first = _first_post_before(records, anchors, lengths, page.fetched_at)
            if first is not None:
                records = [first] + records
        else:
            lone = _lone_post(path, anchors)
            records = [lone] if lone is not None else []
        if records and _own_text(records, anchors, lengths) >= MIN_POST_TEXT:
            return records, anchors, lengths
        if not records:
            return [], anchors, lengths
        # Dated links without text (an archive sidebar): forget that region and descend again.
        excluded = excluded + (parent if len(records) > 1 else records[0],)
        anchors = find_anchors(body, page.fetched_at, exclude=excluded, candidates=candidates)
    return [], anchors, lengths


def extract_posts(page: Page) -> list[Post]:
    """Posts of a thread page by PEAN; [] when the page has no post times at all."""
    records, anchors, lengths = find_records(page)
    if not records:
        return []
    return posts_from_records(records, anchors, lengths, page.fetched_at)
