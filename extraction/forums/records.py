"""Turn post records (the DOM subtrees PEAN or MiBAT found) into posts: time, author, content, floor."""
from __future__ import annotations

import re
from collections import Counter
from datetime import datetime

from lxml import etree

from ..result import Post
from .anchors import Anchors
from .common import class_words, floor_marker, number_floors, post_content, time_from_element

_AUTHOR_WORDS = re.compile(r"author|user|poster|member|creator|nick|name|owner|byline", re.I)
_PROFILE_HREF = re.compile(r"member|user|profile|/u/|uid=|space-|people|account|mod=space", re.I)
_NOT_AUTHOR_TEXT = re.compile(r"^(?:#?\d+|quote|reply|report|zitat|antworten|zitieren|回复|引用|举报|\W+)$", re.I)
# Only containers are stepped into: a post whose text is one <p> still has its content block
# around it, where a later code box or list of the same post also lives.
_CONTAINERS = frozenset("div td tr tbody table article section main dd dl blockquote".split())
# A block holding at least this share of its parent's post text is "the" content, not a part of it.
CONTENT_SHARE = 0.6


def _key(record: etree._Element, el: etree._Element) -> tuple:
    """Position of `el` inside its record by tags and classes (no indexes), comparable across records."""
    parts = []
    node = el
    while node is not None and node is not record:
        # First class word only: later ones are states ("online", "bg2", "rowodd") that vary per post.
        classes = (node.get("class") or "").split()
        parts.append((node.tag, classes[0] if classes else ""))
        node = node.getparent()
    return tuple(reversed(parts))


def _descend_content(record: etree._Element, lengths: dict) -> etree._Element:
    node = record
    while True:
        total = lengths.get(node, 0)
        best, best_len = None, -1.0
        for child in node:
            if isinstance(child.tag, str) and lengths.get(child, 0) > best_len:
                best, best_len = child, lengths.get(child, 0)
        if best is None or total <= 0 or best_len < CONTENT_SHARE * total or best.tag not in _CONTAINERS:
            return node
        node = best


def _content_nodes(records: list[etree._Element], lengths: dict) -> list[etree._Element]:
    """Each record's content block, voting across records so short posts use the same block as long ones."""
    own = [_descend_content(r, lengths) for r in records]
    if len(records) < 2:
        return own
    keys = Counter(_key(r, c) for r, c in zip(records, own) if c is not r)
    if not keys:
        return own
    chosen: list[etree._Element] = []
    top = keys.most_common(1)[0][0]
    for record, fallback in zip(records, own):
        unique = _unique_by_key(record, top)
        chosen.append(fallback if unique is None else unique)
    return chosen


def _unique_by_key(record: etree._Element, key: tuple) -> etree._Element | None:
    """The one element at `key` in `record`; when several share it (paragraphs), their nearest
    unique ancestor on the key path."""
    found: dict[tuple, list] = {}
    for el in record.iter():
        if isinstance(el.tag, str) and el is not record:
            k = _key(record, el)
            if k == key[:len(k)]:
                found.setdefault(k, []).append(el)
    for length in range(len(key), 0, -1):
        at = found.get(key[:length], [])
        if len(at) == 1:
            return at[0]
        if len(at) > 1:
            continue
    return None


def _author_candidates(record: etree._Element, content: etree._Element,
                       anchors_in: list[etree._Element], lengths: dict) -> list[tuple[tuple, str, float]]:
    """(position key, text, score) of the elements of a record that may name its poster."""
    skip = set(anchors_in)
    for anchor in anchors_in:  # elements around a time ("#1 2019-09-29 10:46") are no names
        for anc in anchor.iterancestors():
            if anc is record:
                break
            skip.add(anc)
    content_nodes = set(content.iter()) if content is not record else set()
    out = []
    for order, el in enumerate(record.iter()):
        if not isinstance(el.tag, str) or el in content_nodes or el in skip or lengths.get(el, 0) > 40:
            continue  # (lengths never exceed the text length, so this skips only long elements cheaply)
        text = " ".join(el.text_content().split())
        if not 1 < len(text) <= 40 or _NOT_AUTHOR_TEXT.match(text):
            continue
        score = 0.0
        words = " ".join(class_words(el)) + " " + (el.get("itemprop") or "")
        if _AUTHOR_WORDS.search(words):
            score += 2
        if el.tag == "a" and _PROFILE_HREF.search(el.get("href") or ""):
            score += 2
        if el.tag in ("a", "strong", "b", "cite", "h3", "h4", "span"):
            score += 0.5
        if score < 0.5:
            continue
        if len(el) and re.search(r"\s\d+$", text):
            score -= 1  # "name 307": a post count or reputation shown inside the name link
        score -= order * 0.001  # earlier wins ties: the poster's name precedes what they wrote
        out.append((_key(record, el), text, score))
    return out


def _authors(records: list[etree._Element], contents: list[etree._Element], anchors: Anchors,
             lengths: dict) -> list[str | None]:
    """One author per record, voting over positions across records: a position whose text never
    changes over three or more posts is a label ("Member", "Registered User"), not a name."""
    per_record = []
    for record, content in zip(records, contents):
        inside = [a for a in anchors.inside(record) if a is not record]
        per_record.append(_author_candidates(record, content, inside, lengths))
    totals: dict[tuple, float] = {}
    texts: dict[tuple, set] = {}
    for cands in per_record:
        seen = set()
        for key, text, score in cands:
            if key in seen:
                continue
            seen.add(key)
            totals[key] = totals.get(key, 0.0) + score
            texts.setdefault(key, set()).add(text)
    if len(records) >= 3:
        for key in totals:
            if len(texts[key]) == 1:
                totals[key] *= 0.1
    best_key = max(totals, key=totals.get) if totals else None
    out = []
    for cands in per_record:
        at_key = [text for key, text, _ in cands if key == best_key]
        strong = [c for c in cands if c[2] >= 2]
        out.append(at_key[0] if at_key else (max(strong, key=lambda c: c[2])[1] if strong else None))
    return out


def _time_of(timed: list[etree._Element], now: datetime | None) -> str | None:
    if not timed:
        return None
    return time_from_element(timed[0], now)


def _time_keys(records: list[etree._Element], anchors: Anchors, now: datetime | None) -> tuple | None:
    """The position of the post time inside records: the anchor position found in most records;
    among equally common positions the one with the latest times (a post is never older than
    its author's join date; edit notes are rare)."""
    seen: Counter = Counter()
    for record in records:
        keys = set()
        for a in anchors.inside(record):
            if a in anchors.clock:
                keys.add(_key(record, a))
        for k in keys:
            seen[k] += 1
    if not seen:
        return None
    top = max(seen.values())
    candidates = [k for k, n in seen.items() if n == top]
    if len(candidates) == 1:
        return candidates[0]

    def median_time(key: tuple) -> str:
        values = sorted(time_from_element(a, now) or "" for r in records for a in anchors.inside(r)
                        if a is not r and a in anchors.clock and _key(r, a) == key)
        return values[len(values) // 2] if values else ""
    return max(candidates, key=median_time)


def posts_from_records(records: list[etree._Element], anchors: Anchors, lengths: dict,
                       now: datetime | None) -> list[Post]:
    contents = _content_nodes(records, lengths)
    time_key = _time_keys(records, anchors, now) if len(records) > 1 else None
    posts: list[Post] = []
    markers: list[int | None] = []
    authors = _authors(records, contents, anchors, lengths)
    for record, content, author in zip(records, contents, authors):
        inside = anchors.inside(record)
        content_set = set(content.iter()) if content is not record else set()
        outside_content = [a for a in inside if a not in content_set] or inside
        timed = [a for a in outside_content if a in anchors.clock] or outside_content
        if time_key is not None:
            timed = [a for a in timed if _key(record, a) == time_key] + timed
        published = _time_of(timed, now)
        skip = outside_content if content is record else ()
        text = post_content(content, skip)
        posts.append(Post(author=author, datePublished=published, content=text))
        markers.append(floor_marker(record))
    number_floors(posts, markers)
    return posts
