"""MiBAT-style baseline (Song et al., "Automatic extraction of web data records containing
user-generated content", CIKM 2010), behind the same interface as PEAN for the benchmark.

The idea kept here: records are found from *anchor trees* — anchors sharing one tag path are
occurrences of the same record field (the post time); the pivot is their lowest common
ancestor, each anchor's record is the pivot child holding it, and records are kept when their
trees are similar (simple tree matching) to the other anchor trees. Like the original it needs
at least two repeated records, so a single-post thread yields nothing — the weakness PEAN's
descent rule and lone-post handling address. Field extraction is shared with PEAN so the
comparison measures record finding only.
"""
from __future__ import annotations

from collections import defaultdict

from lxml import etree

from .dom import Page
from .forums.anchors import Anchors, find_anchors, text_lengths
from .forums.records import posts_from_records
from .result import Post
from .treematch import tree_similarity

NEIGHBOURS = 3  # records compared on each side
SIMILARITY = 0.5  # anchor trees below this similarity to the pivot's majority are not records


def _tag_path(el: etree._Element) -> tuple[str, ...]:
    path = [el.tag]
    path.extend(a.tag for a in el.iterancestors())
    return tuple(reversed(path))


def _lowest_common_ancestor(nodes: list[etree._Element]) -> etree._Element:
    common = list(reversed([nodes[0]] + list(nodes[0].iterancestors())))
    for node in nodes[1:]:
        chain = list(reversed([node] + list(node.iterancestors())))
        depth = 0
        while depth < min(len(common), len(chain)) and common[depth] is chain[depth]:
            depth += 1
        common = common[:depth]
    return common[-1]


def find_records(page: Page) -> tuple[list[etree._Element], Anchors, dict]:
    body = page.body
    anchors = find_anchors(body, page.fetched_at)
    lengths = text_lengths(body)
    groups: dict[tuple, list[etree._Element]] = defaultdict(list)
    for anchor in anchors.nodes:
        groups[_tag_path(anchor)].append(anchor)
    repeated = [g for g in groups.values() if len(g) >= 2]
    if not repeated:
        return [], anchors, lengths
    group = max(repeated, key=len)
    pivot = _lowest_common_ancestor(group)
    records: list[etree._Element] = []
    for anchor in group:
        node = anchor
        for anc in anchor.iterancestors():
            if anc is pivot:
                break
            node = anc
        if node is not pivot and (not records or records[-1] is not node):
            records.append(node)
    if len(records) < 2:
        return [], anchors, lengths
    # Keep the records whose anchor trees resemble most of their neighbours (a window, not all
    # pairs, so the cost stays linear in the number of records).
    kept = []
    for i, rec in enumerate(records):
        others = records[max(0, i - NEIGHBOURS):i] + records[i + 1:i + 1 + NEIGHBOURS]
        similar = sum(1 for other in others if tree_similarity(rec, other) >= SIMILARITY)
        if similar >= len(others) / 2:
            kept.append(rec)
    return kept, anchors, lengths


def extract_posts(page: Page) -> list[Post]:
    records, anchors, lengths = find_records(page)
    if not records:
        return []
    return posts_from_records(records, anchors, lengths, page.fetched_at)
