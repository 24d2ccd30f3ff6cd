"""Simple Tree Matching (Yang 1991): the size of the largest order-preserving common subtree
of two DOM trees, by dynamic programming over the children at each level.

Bounded on purpose: the recursion stops at `max_depth` levels and looks at most at
`max_children` children per node, so one comparison costs at most O(max_children² · nodes
within max_depth) whatever the page, and Python's recursion limit is never approached.
"""
from __future__ import annotations

from lxml import etree

MAX_DEPTH = 6
MAX_CHILDREN = 30


def _children(el: etree._Element, max_children: int) -> list[etree._Element]:
    out = []
    for child in el:
        if isinstance(child.tag, str):
            out.append(child)
            if len(out) >= max_children:
                break
    return out


def simple_tree_matching(a: etree._Element, b: etree._Element, max_depth: int = MAX_DEPTH,
                         max_children: int = MAX_CHILDREN) -> int:
    """Number of matched node pairs between the (capped) trees rooted at `a` and `b`."""
    if a.tag != b.tag:
        return 0
    if max_depth <= 1:
        return 1
    ca, cb = _children(a, max_children), _children(b, max_children)
    if not ca or not cb:
        return 1
    m, n = len(ca), len(cb)
    prev = [0] * (n + 1)
    for i in range(1, m + 1):
        row = [0] * (n + 1)
        x = ca[i - 1]
        for j in range(1, n + 1):
            y = cb[j - 1]
            w = simple_tree_matching(x, y, max_depth - 1, max_children) if x.tag == y.tag else 0
            row[j] = max(row[j - 1], prev[j], prev[j - 1] + w)
        prev = row
    return prev[n] + 1


def tree_size(el: etree._Element, max_depth: int = MAX_DEPTH, max_children: int = MAX_CHILDREN) -> int:
    """Node count of the tree as simple_tree_matching sees it (same caps), iteratively."""
    count = 0
    stack = [(el, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth < max_depth:
            stack.extend((c, depth + 1) for c in _children(node, max_children))
    return count


def tree_similarity(a: etree._Element, b: etree._Element, max_depth: int = MAX_DEPTH,
                    max_children: int = MAX_CHILDREN) -> float:
    """Matched nodes over the mean size of both trees: 1.0 for identical shapes, 0.0 for different roots."""
    size = (tree_size(a, max_depth, max_children) + tree_size(b, max_depth, max_children)) / 2
    if size == 0:
        return 0.0
    return min(1.0, simple_tree_matching(a, b, max_depth, max_children) / size)
