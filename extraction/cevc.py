"""CEVC: Content Extraction via Valid Characters (body text of news/blog pages).

1. Every text leaf (an element's .text, or a child's .tail) that is not inside an <a> and contains
   a stopword contributes its characters as *valid characters*.
2. Valid characters are summed bottom-up, in one reverse pass over the elements in document order
   (children come after their parent in document order, so reversed order visits them first).
3. From <body>, step into the child with the most valid characters while the max-child ratio
   MCR = valid(best child) / valid(node) >= alpha; the node where the walk stops holds the body
   (its parent when the walk reached an element without element children).

Additions, each measured on the dev benchmark (docs/benchmarks/extraction.md) and none aware of
any site:
- furniture (noise.py: nav/aside/footer/figure tags, class/id words such as comment, sidebar,
  related, share; teaser lists of linked items) passes no valid characters up and does not
  compete in the walk, unless it holds most of the page (a misnamed wrapper);
- the walk also stops where two children are nearly as large (a body split over siblings), and
  same-class sibling sections of the stop node are merged back in;
- the output leaves out furniture, link-dense blocks (Cn = link chars / chars) and furniture
  lines (share bars, editor, copyright, caption lines);
- a page with no stopword at all (a language without a list) counts all non-link characters.

All per-node figures live in flat lists indexed by document position, so the whole computation is
a few linear passes; nothing re-walks a subtree.
"""
from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from .dom import BLOCK_TAGS, Page, iter_lines_skipping
from .noise import is_comment_block, is_noise_hints, is_noise_line
from .text import char_count, page_language, valid_char_count

ALPHA = 0.5
# A block named like furniture but holding this share of the page's valid characters is a wrapper
# ("theiaStickySidebar" around the main column, "__next"), unless it is named as reader comments.
WRAPPER_SHARE = 0.8
# Exponent of (1 - link density) in the link-discounted valid characters children compete on.
# 0 = plain valid characters: 1, 2 and 3 were measured and lost on en-articles.
LINK_POWER = 0.0
# Stop the walk where the second-largest child has this share of the largest (body split over siblings).
SPLIT_RATIO = 0.75
# In a split body, children from the first to the last one with this share of the largest are kept.
SPLIT_KEEP = 0.3
MERGE_SIBLINGS = True
# A list of at least this many items, this share of them holding a link, and this link density
# overall is a teaser list (see teaser_lists).
TEASER_LISTS = True
TEASER_MIN_ITEMS = 4
TEASER_LINKED_SHARE = 0.8
TEASER_MIN_LINK_DENSITY = 0.1


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
    noise: list[bool]  # the element is page furniture by tag or class/id words (see noise.py)

    def children(self, i: int) -> list[int]:
        return [self.index[c] for c in self.nodes[i] if isinstance(c.tag, str)]


def compute_stats(root: etree._Element, lang: str | None = None, *, stopwords: bool = True) -> NodeStats:
    """Per-element figures of the tree under `root`. With stopwords=False every non-link character
    counts as valid (the fallback for text in a language without a stopword list)."""
    nodes = list(root.iter(etree.Element))  # elements only: no comments or processing instructions
    index = {el: i for i, el in enumerate(nodes)}
    n = len(nodes)
    parent = [-1] * n
    in_link = [False] * n
    valid = [0] * n
    chars = [0] * n
    link_chars = [0] * n
    noise = [False] * n
    # Class/id pairs repeat a lot within a page (list items, paragraphs): judge each pair once.
    noise_of: dict[tuple, bool] = {}
    # Forward pass (a parent precedes its children): parent, link flag, furniture flag, and the
    # element's own text leaves: its .text, and the .tail of each child (tails belong to the parent).
    for i, el in enumerate(nodes):
        p = el.getparent()
        pi = index.get(p, -1) if p is not None else -1
        parent[i] = pi
        tag = el.tag
        link = in_link[i] = tag == "a" or (pi >= 0 and in_link[pi])
        key = (tag, el.get("class"), el.get("id"))
        flag = noise_of.get(key)
        if flag is None:
            flag = noise_of[key] = is_noise_hints(*key)
        noise[i] = flag
        text = el.text
        if text:
            c = char_count(text)
            if c:
                chars[i] += c
                if link:
                    link_chars[i] += c
                else:
                    valid[i] += valid_char_count(text, lang) if stopwords else c
        tail = el.tail
        if tail and pi >= 0:
            c = char_count(tail)
            if c:
                chars[pi] += c
                if in_link[pi]:
                    link_chars[pi] += c
                else:
                    valid[pi] += valid_char_count(tail, lang) if stopwords else c
    own_valid = valid[:]
    # Reverse pass: add each subtree's totals to its parent.
    for i in range(n - 1, 0, -1):
        pi = parent[i]
        if pi >= 0:
            valid[pi] += valid[i]
            chars[pi] += chars[i]
            link_chars[pi] += link_chars[i]
    # Furniture passes no valid characters up, so the descent never heads for comments or
    # sidebars. A "furniture" block holding most of the page's text is a misnamed wrapper
    # ("page-ad-margins", "__next") and stays in; that needs the raw totals, hence a second pass.
    wrapper_share = WRAPPER_SHARE * valid[0] if n else 0
    noise = [flag and (valid[i] < wrapper_share or is_comment_block(nodes[i].get("class"), nodes[i].get("id")))
             for i, flag in enumerate(noise)]
    if TEASER_LISTS:
        for i in teaser_lists(nodes, parent, chars, link_chars):
            if valid[i] < wrapper_share:
                noise[i] = True
    if any(noise):
        valid = own_valid
        for i in range(n - 1, 0, -1):
            pi = parent[i]
            if pi >= 0 and not noise[i]:
                valid[pi] += valid[i]
    return NodeStats(nodes, index, parent, in_link, valid, chars, link_chars, noise)


def weighted(stats: NodeStats, i: int, power: float = 2.0) -> float:
    """Valid characters discounted by the block's link density (Cn): teaser lists and link
    clouds carry stopword-rich excerpts, but most of their text sits in links."""
    if not stats.chars[i]:
        return 0.0
    return stats.valid[i] * (1.0 - stats.link_chars[i] / stats.chars[i]) ** power


def teaser_lists(nodes: list, parent: list[int], chars: list[int], link_chars: list[int]) -> list[int]:
    """Lists whose items nearly all carry a link: headline-plus-excerpt teasers ("breaking news",
    "more stories"). Their excerpts are prose with stopwords, so valid characters alone favour
    them; the repeated linked item is what gives them away (the list-noise idea of tag-path
    clustering: many sibling records of one shape, each led by a link)."""
    items: dict[int, list[int]] = {}
    for i, el in enumerate(nodes):
        if el.tag == "li" and parent[i] >= 0 and chars[i]:
            items.setdefault(parent[i], []).append(i)
    out = []
    for lst, lis in items.items():
        if len(lis) < TEASER_MIN_ITEMS or nodes[lst].tag not in ("ul", "ol"):
            continue
        linked = sum(1 for i in lis if link_chars[i])
        if linked >= TEASER_LINKED_SHARE * len(lis) and link_chars[lst] >= TEASER_MIN_LINK_DENSITY * chars[lst]:
            out.append(lst)
    return out


def descend(stats: NodeStats, start: int = 0, alpha: float = ALPHA, *, power: float = LINK_POWER,
            split: float = SPLIT_RATIO) -> tuple[int, bool]:
    """The CEVC walk: index of the node where the max-child ratio drops below alpha, and whether
    the walk stopped because the body is split over sibling blocks.

    Departures from plain CEVC, each measured on the dev benchmark: furniture children (noise.py)
    do not compete; children may compete on link-discounted valid characters (`weighted`, off by
    default: it did not pay); and the walk also stops where the runner-up child is nearly as large
    as the best one (`split`): stepping into one block would lose the others.
    """
    i = start
    while True:
        kids = [k for k in stats.children(i) if not stats.noise[k]]
        if not kids or stats.valid[i] == 0:
            break
        scores = sorted(((weighted(stats, k, power), k) for k in kids), reverse=True)
        best_score, best = scores[0]
        if best_score <= 0 or stats.valid[best] / stats.valid[i] < alpha:
            break
        if split and len(scores) > 1 and scores[1][0] >= split * best_score:
            return i, True
        i = best
    if not stats.children(i) and stats.parent[i] >= 0 and i != start:
        i = stats.parent[i]
    return i, False


def split_outside(stats: NodeStats, i: int) -> set[int]:
    """When the body is split over children of `i`: the children before the first and after the
    last large block (headers, related lists and footers around the body)."""
    kids = [k for k in stats.children(i) if not stats.noise[k]]
    top = max(stats.valid[k] for k in kids)
    big = [k for k in kids if stats.valid[k] >= SPLIT_KEEP * top]
    return {k for k in stats.children(i) if k < big[0] or k > big[-1]}


def _signature(el: etree._Element) -> tuple[str, str] | None:
    cls = (el.get("class") or "").strip()
    return (el.tag, cls) if cls else None


def same_kind_siblings(stats: NodeStats, i: int, levels: int = 2) -> tuple[int, set[int]] | None:
    """Body continued in siblings of the same tag and class (article text cut into sections by
    ads or pictures): the common parent and the children of it to leave out, or None."""
    t = i
    while levels > 0:
        p = stats.parent[t]
        if p < 0:
            return None
        kids = stats.children(p)
        if len(kids) == 1:  # a wrapper chain is one level
            t = p
            continue
        levels -= 1
        sig = _signature(stats.nodes[t])
        if sig is not None:
            group = [k for k in kids if k == t or (not stats.noise[k] and stats.valid[k] > 0
                                                  and _signature(stats.nodes[k]) == sig)]
            if len(group) > 1:
                return p, {k for k in kids if k < group[0] or k > group[-1]}
        t = p
    return None


# A block whose text is mostly link text is a link list (the list-noise coefficient Cn of
# tag-path clustering: link characters over all characters).
LINK_DENSITY_MAX = 0.5


def link_density(stats: NodeStats, i: int) -> float:
    return stats.link_chars[i] / stats.chars[i] if stats.chars[i] else 0.0


def skipped_blocks(stats: NodeStats, top: int) -> set[int]:
    """Elements under `top` to leave out of the body text: furniture and link lists."""
    skip: set[int] = set()
    # Subtrees are contiguous in document order, so one forward scan with "skip until" suffices.
    end_of = _subtree_ends(stats, top)
    i = top + 1
    stop = end_of[top]
    while i < stop:
        el = stats.nodes[i]
        drop = stats.noise[i] or el.tag == "h1"
        if not drop and el.tag in BLOCK_TAGS and stats.chars[i]:
            drop = link_density(stats, i) > LINK_DENSITY_MAX and stats.valid[i] < 0.5 * stats.chars[i]
        if drop:
            skip.add(i)
            i = end_of[i]
        else:
            i += 1
    return skip


def _subtree_ends(stats: NodeStats, top: int) -> dict[int, int]:
    """For each element under `top`: the document position just past its subtree."""
    ends: dict[int, int] = {}
    open_: list[int] = []
    end = len(stats.nodes)
    for i in range(top, end):
        while open_ and stats.parent[i] != open_[-1]:
            ends[open_.pop()] = i
        if i != top and not open_:
            break
        open_.append(i)
    else:
        i = end
    for j in open_:
        ends[j] = i
    return ends


def render(stats: NodeStats, top: int, skip: set[int]) -> str:
    """Visible text under `top` without the skipped subtrees, one line per block, noise lines dropped."""
    index = stats.index
    out = [line for line in iter_lines_skipping(stats.nodes[top], lambda el: index.get(el) in skip)
           if not is_noise_line(line)]
    return "\n".join(out)


def page_stats(page: Page) -> NodeStats:
    """CEVC's per-node figures of the page body, computed once per page: the page classifier reads
    its block statistics from them (extraction/page_features.py) before CEVC itself runs."""
    stats = page.cache.get("cevc_stats")
    if stats is None:
        stats = page.cache["cevc_stats"] = compute_stats(page.body, page_language(page.lang))
    return stats


def extract_body(page: Page, alpha: float = ALPHA) -> BodyResult:
    body = page.body
    lang = page_language(page.lang)
    stats = page_stats(page)
    if stats.nodes and stats.valid[0] == 0 and stats.chars[0] > stats.link_chars[0]:
        # No stopword anywhere: a language none of the lists covers (Thai, Amharic...) or a page
        # without prose. Non-link characters stand in for valid ones rather than returning nothing.
        stats = compute_stats(body, lang, stopwords=False)
    if not stats.nodes or stats.valid[0] == 0:
        return BodyResult(None, "")
    i, split = descend(stats, 0, alpha)
    outside: set[int] = set()
    merged = same_kind_siblings(stats, i) if MERGE_SIBLINGS else None
    if merged is not None:
        i, outside = merged
    elif split:
        outside = split_outside(stats, i)
    skip = skipped_blocks(stats, i) | outside
    return BodyResult(stats.nodes[i], render(stats, i, skip))
