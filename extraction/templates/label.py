"""Slot labelling without a human: the template-free extractors (CEVC body, headline, date) are run
on the cluster's pages and each field is given to the template node they point at on most pages.

For the body, the voted node and its nearest required ancestors and children compete on how well
their text agrees with CEVC's text over all pages; lines that are the same on most pages inside
the chosen node are template text (share buttons, "Related", fixed captions) and are dropped when
reading. What only the cluster can tell is then added to the body slot: where the article starts
(the headline, when it heads the body's container with little varying text in between:
_article_header), which furniture-looking blocks hold page content (_keep_keys), and that the
headline is not noise (_unskip_headline). A label set by a person (Template.set_slot) is never
overwritten here.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Sequence

from lxml import etree

from .. import cevc, dates, titles
from ..dom import Page, normalize_space, text_of
from ..noise import is_comment_block, is_noise_block
from .match import Match, align, read_span, read_text
from .model import Slot, Template
from .repeats import CollapsedSequence
from .tagseq import element_key

MIN_AGREEMENT = 0.5  # a field is labelled only when the extractors agree on at least half the pages
TEMPLATE_LINE_SHARE = 0.6
CLEARLY_BETTER = 0.01
HEADLINE_SAME_SHARE = 0.8
SKIP_KEPT_SHARE = 0.02  # an element key is skipped when CEVC kept at most this share of its text  # a line on this share of the pages (and on 2 or more) is template text

_DIGIT = re.compile(r"\d")
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+", re.UNICODE)


def token_f1(a: str, b: str) -> float:
    ta, tb = Counter(_TOKEN.findall(a.lower())), Counter(_TOKEN.findall(b.lower()))
    common = sum((ta & tb).values())
    if not common:
        return 0.0
    p, r = common / sum(ta.values()), common / sum(tb.values())
    return 2 * p * r / (p + r)


def _required_node_of(match: Match, el: etree._Element | None, index: dict) -> int | None:
    """The required node at or above `el` on the matched page."""
    by_pos = {p: r for r, p in enumerate(match.positions) if p >= 0}
    while el is not None and el not in index:
        el = el.getparent()
    pos = index.get(el) if el is not None else None
    while pos is not None and pos >= 0:
        if pos in by_pos:
            return by_pos[pos]
        pos = match.seq.parents[pos]
    return None


def _template_lines(texts: list[str]) -> list[str]:
    if len(texts) < 2:
        return []
    # Lines with digits are left alone: a date or count shared by the training pages (fetched the
    # same day) is still data that differs on the next page.
    counts = Counter(line for t in texts for line in set(t.split("\n")) if line and not _DIGIT.search(line))
    need = max(2, TEMPLATE_LINE_SHARE * len(texts))
    return sorted(line for line, c in counts.items() if c >= need)


SKIP_LEVELS = 4  # noise blocks are looked for this many levels below the slot ...
SKIP_MAX_NODES = 2_000  # ... and among this many elements (bounds the work on huge slots)


def _blocks_below(el: etree._Element) -> list[etree._Element]:
    out: list[etree._Element] = []
    stack = [(child, 1) for child in reversed(el)]
    while stack and len(out) < SKIP_MAX_NODES:
        node, level = stack.pop()
        if not isinstance(node.tag, str):
            continue
        out.append(node)
        if level < SKIP_LEVELS:
            stack.extend((child, level + 1) for child in reversed(node))
    return out


def _skip_keys(elements: list, bodies: list[str]) -> list[str]:
    """Keys of the elements inside the slot whose text CEVC leaves out on (nearly) all pages:
    the noise blocks (related links, share bars, captions) that CEVC skips, learnt once here."""
    kept: Counter = Counter()
    total: Counter = Counter()
    for el, body in zip(elements, bodies):
        if el is None or not body:
            continue
        for node in _blocks_below(el):
            key = element_key(node)
            for line in text_of(node).split("\n"):
                if line:
                    total[key] += len(line)
                    if line in body:
                        kept[key] += len(line)
    # Only keys with a class name: a bare <div> or <p> names no particular block.
    return sorted(k for k, n in total.items() if "." in k and n >= 20 and kept[k] <= SKIP_KEPT_SHARE * n)


KEEP_MAX_LINK_SHARE = 0.2  # a block mostly of link text is a list of links (related, tags), not content
KEEP_DISTINCT_SHARE = 0.8  # its text differs on at least this share of the pages it occurs on


def _keep_keys(elements: list) -> list[str]:
    """Keys of blocks inside the slot that the generic furniture test drops (by a class word such
    as "caption") but that hold page content on this template: their text differs from page to
    page, they occur on two or more pages, and they are not mostly links. A single page cannot
    tell a long caption or a standfirst from a share bar by its class; the cluster can."""
    texts: dict[str, list[str]] = defaultdict(list)
    links: Counter = Counter()
    sizes: Counter = Counter()
    for el in elements:
        if el is None:
            continue
        seen: dict[str, list[str]] = defaultdict(list)
        for node in _blocks_below(el):
            if not is_noise_block(node) or is_comment_block(node.get("class"), node.get("id")):
                continue
            key = element_key(node)
            text = normalize_space(node.text_content())
            seen[key].append(text)
            sizes[key] += len(text)
            links[key] += sum(len(normalize_space(a.text_content())) for a in node.iter("a"))
        for key, found in seen.items():
            texts[key].append("\n".join(found))
    keep = []
    for key, found in texts.items():
        present = [t for t in found if t]
        if len(present) < 2 or links[key] > KEEP_MAX_LINK_SHARE * sizes[key]:
            continue
        if len(set(present)) >= KEEP_DISTINCT_SHARE * len(present):
            keep.append(key)
    return sorted(keep)


def _agreement(matches: list[Match], bodies: list[str], node: int, drop: list[str], skip: list[str]) -> float:
    scores = []
    for m, b in zip(matches, bodies):
        el = m.element(node)
        scores.append(token_f1(read_text(el, drop, skip), b) if el is not None else 0.0)
    return sum(scores) / len(scores)


def _label_body(template: Template, matches: list[Match], bodies: list[str], votes: Counter) -> Slot | None:
    if not votes:
        return None
    voted, count = votes.most_common(1)[0]
    if count < MIN_AGREEMENT * len(matches):
        return None
    kids = defaultdict(list)
    for r, p in enumerate(template.parents):
        kids[p].append(r)
    candidates = {voted}
    up = voted
    for _ in range(2):
        up = template.parents[up]
        if up < 0:
            break
        candidates.add(up)
    candidates.update(kids[voted])
    best: Slot | None = None
    # The voted node first: another candidate, or skipping blocks, must agree clearly better.
    for node in [voted] + sorted(candidates - {voted}):
        elements = [m.element(node) for m in matches]
        drop = _template_lines([text_of(el) if el is not None else "" for el in elements])
        skip = _skip_keys(elements, bodies)
        for keys in ([], skip) if skip else ([],):
            agreement = _agreement(matches, bodies, node, drop, keys)
            if best is None or agreement > best.agreement + CLEARLY_BETTER:
                best = Slot(field="body", node=node, agreement=round(agreement, 4), drop_lines=drop, skip_keys=keys)
    if best is not None:
        best.keep_keys = [k for k in _keep_keys([m.element(best.node) for m in matches]) if k not in best.skip_keys]
        lengths = sorted(len(read_text(m.element(best.node), best.drop_lines, best.skip_keys, keep_keys=best.keep_keys))
                         for m in matches if m.element(best.node) is not None)
        best.typical_chars = lengths[0] if lengths else 0
    return best


CONTAINER_LEVELS = 3  # the article container is at most this many required levels above the body slot
CONTAINER_EXTRA_SHARE = 0.25  # ... and adds at most this share of the body's length besides the headline


def _ancestors(template: Template, node: int) -> list[int]:
    out = [node]
    while template.parents[out[-1]] >= 0:
        out.append(template.parents[out[-1]])
    return out


def _tokens(text: str) -> int:
    return len(_TOKEN.findall(text))


def _article_header(template: Template, matches: list[Match], body: Slot, headline_node: int,
                    found_headlines: list) -> Slot | None:
    """The body slot, made to start at the headline when the headline sits in the body's own
    container (the headline slot's nearest common template node with the body slot, or the node
    the headline votes went to when it holds the body slot, is at most CONTAINER_LEVELS above the
    body slot) and the text between headline and body that varies from page to page is short: the
    byline and date line, a standfirst. Text the same on most pages there is template text and
    stays out (drop lines), as do the blocks the body slot already skips.

    Why: CEVC's node is the run of paragraphs; the article as a reader sees it (and as the
    template-sites gold has it) starts at the headline. One page cannot tell a header block from
    page furniture; the cluster can, by what varies and what does not.

    `found_headlines`: the headline extractor's element on each page, used when the headline is no
    required node of its own (it sits in an optional gap of the container the votes went to).
    """
    body_up = _ancestors(template, body.node)
    head_up = _ancestors(template, headline_node)
    near = set(body_up[1:CONTAINER_LEVELS + 1])
    if body.node in head_up or headline_node == body.node:
        return None
    if headline_node in body_up:
        if headline_node not in near:
            return None
        heads = [h if h is not None and m.element(headline_node) is not None
                 and h in set(m.element(headline_node).iter()) else None
                 for m, h in zip(matches, found_headlines)]
    else:
        if next((a for a in head_up if a in near), None) is None:
            return None
        heads = [m.element(headline_node) for m in matches]
    spans, pairs = [], []
    for m, head in zip(matches, heads):
        inner = m.element(body.node)
        span = read_span(head, inner) if head is not None and inner is not None else None
        if span is None:
            return None  # the headline does not come before the body on every page
        spans.append(span)
        pairs.append((head, inner))
    drop = sorted(set(_template_lines(spans)) | set(body.drop_lines))
    shares, lengths = [], []
    for head, inner in pairs:
        n_body = _tokens(read_text(inner, body.drop_lines, body.skip_keys, keep_keys=body.keep_keys))
        n_head = _tokens(normalize_space(head.text_content()))
        span = read_span(head, inner, drop, body.skip_keys, body.keep_keys) or ""
        lengths.append(len(span))
        shares.append(max(0, _tokens(span) - n_body - n_head) / max(n_body, 1))
    shares.sort()
    if shares[len(shares) // 2] > CONTAINER_EXTRA_SHARE:
        return None
    return Slot(field="body", node=body.node, agreement=body.agreement, drop_lines=drop,
                skip_keys=body.skip_keys, keep_keys=body.keep_keys, typical_chars=min(lengths),
                start_node=headline_node)


def _unskip_headline(matches: list[Match], body: Slot, found_headlines: list) -> list[str]:
    """The body slot's skip keys without those of the headline (and its wrappers) when the
    headline sits inside the body slot: CEVC leaves the headline out of its text, so the headline
    block looks like noise to _skip_keys, but the article starts there."""
    headline_keys: set[str] = set()
    for m, head in zip(matches, found_headlines):
        el = m.element(body.node)
        node = head
        while node is not None and el is not None and node is not el:
            if node.getparent() is None:
                break  # the headline is outside the body slot on this page
            node = node.getparent()
        if node is None or node is not el or head is None:
            continue
        node = head
        while node is not el:
            headline_keys.add(element_key(node))
            node = node.getparent()
    return [k for k in body.skip_keys if k not in headline_keys]


def _text_votes(matches: list[Match], values: list[str | None], accept) -> Counter:
    """Votes for the deepest required node whose own text `accept`s the extractor's value."""
    votes: Counter = Counter()
    for m, value in zip(matches, values):
        if not value:
            continue
        best, best_depth = None, -1
        for r, pos in enumerate(m.positions):
            if pos < 0:
                continue
            el = m.seq.elements[pos]
            if m.template.depths[r] <= best_depth:
                continue
            text = normalize_space(el.text_content())
            if text and len(text) <= 4 * len(value) + 40 and accept(text, value):
                best, best_depth = r, m.template.depths[r]
        if best is not None:
            votes[best] += 1
    return votes


def _headline_ok(text: str, headline: str) -> bool:
    return text == headline or (text in headline and len(text) >= 0.5 * len(headline)) or \
        (headline in text and len(headline) >= 0.7 * len(text))


def _date_ok(text: str, iso: str) -> bool:
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", iso)
    if not m or len(text) > 120:
        return False
    year, month, day = m.group(1), str(int(m.group(2))), str(int(m.group(3)))
    return year in text and day in text and (month in text or len(text) > 6)


def label_template(template: Template, pages: Sequence[Page], seqs: Sequence[CollapsedSequence]) -> Template:
    """Label the template's body/headline/date slots from the template-free extractors (in place)."""
    if not pages:
        return template
    matches = [align(template, s) for s in seqs]
    body_votes: Counter = Counter()
    headline_votes: Counter = Counter()
    bodies, headlines, published, found_headlines = [], [], [], []
    for page, m in zip(pages, matches):
        index = {el: i for i, el in enumerate(m.seq.elements)}
        body = cevc.extract_body(page)
        headline, headline_node = titles.extract_headline(page, body.node)
        bodies.append(body.text or "")
        headlines.append(normalize_space(headline) if headline else None)
        found_headlines.append(headline_node)
        published.append(dates.extract_published(page, headline_node, body.node))
        node = _required_node_of(m, body.node, index) if body.node is not None else None
        if node is not None:
            body_votes[node] += 1
        if headline_node is not None:
            node = _required_node_of(m, headline_node, index)
            if node is not None:
                headline_votes[node] += 1
    need = MIN_AGREEMENT * len(pages)
    auto: dict[str, Slot] = {}
    body_slot = _label_body(template, matches, bodies, body_votes)
    if body_slot is not None:
        auto["body"] = body_slot
    if not headline_votes:
        headline_votes = _text_votes(matches, headlines, _headline_ok)
    if headline_votes and headline_votes.most_common(1)[0][1] >= need:
        node = headline_votes.most_common(1)[0][0]
        # The slot's own text must *be* the extracted headline on most pages (the extractor may have
        # cut a site name or a kicker off the node's text): otherwise reading it would do worse
        # than the headline extractor, which the template path then runs instead.
        same = sum(1 for m, h in zip(matches, headlines)
                   if h and m.element(node) is not None and normalize_space(m.element(node).text_content()) == h)
        if same >= HEADLINE_SAME_SHARE * len(pages):
            auto["headline"] = Slot(field="headline", node=node, agreement=round(same / len(pages), 4))
    if body_slot is not None and body_slot.skip_keys:
        body_slot.skip_keys = _unskip_headline(matches, body_slot, found_headlines)
    if body_slot is not None and headline_votes and headline_votes.most_common(1)[0][1] >= need:
        wider = _article_header(template, matches, body_slot, headline_votes.most_common(1)[0][0], found_headlines)
        if wider is not None:
            auto["body"] = wider
    date_votes = _text_votes(matches, published, _date_ok)
    if date_votes and date_votes.most_common(1)[0][1] >= need:
        node, count = date_votes.most_common(1)[0]
        auto["date"] = Slot(field="date", node=node, agreement=round(count / len(pages), 4))
    for name, slot in auto.items():
        current = template.slots.get(name)
        if current is None or current.source != "manual":
            template.slots[name] = slot
    return template
