"""Numeric features of a page for classification (article / forum thread / list page): text and
link amounts, block statistics including the list-noise coefficient Cn, heading and tag counts,
time strings, URL and <meta> signals, and what PEAN's record finder sees.

Block statistics and tag counts are read off CEVC's per-node figures (one tree pass, shared with
the body extraction); everything is computed at most once per page and kept in `page.cache`."""
from __future__ import annotations

import math
import re
from urllib.parse import urlsplit

from lxml import etree

from .cevc import page_stats
from .dom import BLOCK_TAGS, Page, jsonld_types
from .forums.times import find_times

COUNTED_TAGS = ("h1", "h2", "h3", "p", "li", "a", "img", "table", "tr", "td", "div", "span", "form",
                "input", "blockquote", "time", "article", "br", "dl", "dd")
_FORUM_WORDS = re.compile(r"\b(?:reply|replies|quote|posts?|joined|member|registered|thread|"
                          r"antworten|zitat|beiträge|registriert|mitglied|thema)\b|回复|楼|发表于|帖子|注册|引用|积分", re.I)
_ARTICLE_WORDS = re.compile(r"\b(?:share|editor|reporter|correspondent|published|updated|copyright|"
                            r"newsletter|subscribe|related)\b|记者|编辑|来源|责任编辑|原标题|分享", re.I)
_THREAD_URL = re.compile(r"thread|topic|viewtopic|showthread|/t/|discussion|mod=viewthread|/post", re.I)
_LIST_URL = re.compile(r"forumdisplay|/forums?/?$|/category/|/categories|/tags?/|/page/\d+|/list|index\.\w+$|/archive|/section/|/search", re.I)
_DATE_URL = re.compile(r"/(?:19|20)\d{2}[/-]?\d{2}[/-]?(?:\d{2})?/|(?:19|20)\d{6}")
_ARTICLE_LD = {"newsarticle", "article", "blogposting", "reportagenewsarticle", "analysisnewsarticle", "webpage_article"}

FEATURE_NAMES = (
    ["log_text", "log_links", "link_text_ratio", "cn_blocks", "cn_text", "log_max_block", "max_block_share",
     "log_long_blocks", "log_blocks", "mean_block_len", "log_times", "log_clock_times", "times_per_kchar",
     "forum_words_per_kchar", "article_words_per_kchar", "log_elements", "url_depth", "url_digits",
     "url_thread", "url_list", "url_date", "url_html", "url_root", "og_article", "meta_published",
     "ld_article", "ld_forum", "ld_list", "title_len", "meta_desc_len", "repeat_siblings", "link_density_anchor",
     "log_para_container", "para_container_share",
     "log_pean_records", "log_pean_text_per_record", "pean_record_link_ratio", "pean_record_text_share"]
    + [f"log_{t}" for t in COUNTED_TAGS] + [f"ratio_{t}" for t in COUNTED_TAGS]
)


# Date strings plus <time> elements a page needs before PEAN's records are looked for: the
# thread-evidence guard in classify.py wants at least three records, each with its own time.
PEAN_MIN_DATES = 3

# A paragraph: a block with this much non-link text and at most this share of link text.
PARAGRAPH_TEXT = 30
PARAGRAPH_LINKS = 0.3


def _blocks_from_stats(stats) -> tuple[list[tuple[int, int]], dict[str, int], int, int, int]:
    """(text, link text) per block element, tag counts, total text and link text, and the largest
    amount of paragraph text held directly by one container, read off CEVC's per-node figures
    (cevc.NodeStats: non-space characters and link characters per subtree) in one reverse pass,
    so classification does not walk the tree again.

    A block's own text is its subtree's minus that of the nearest blocks below it. The largest
    paragraph container separates articles (one container of consecutive paragraphs) from lists
    with summaries (each summary alone in its own item) when both have short paragraphs."""
    nodes, parent, chars, link_chars = stats.nodes, stats.parent, stats.chars, stats.link_chars
    n = len(nodes)
    if not n:
        return [], {}, 0, 0, 0
    tags = [el.tag for el in nodes]
    counts: dict[str, int] = {}
    for tag in tags:
        counts[tag] = counts.get(tag, 0) + 1
    inner_chars = [0] * n  # characters of the nearest block subtrees below the node
    inner_links = [0] * n
    para = [0] * n  # paragraph text of the nearest blocks below the node
    blocks: list[tuple[int, int]] = []
    best_container = 0
    for i in range(n - 1, -1, -1):
        is_block = i == 0 or tags[i] in BLOCK_TAGS
        if is_block:
            own, own_links = chars[i] - inner_chars[i], link_chars[i] - inner_links[i]
            if own > 0:
                blocks.append((own, own_links))
            free = own - own_links
            best_container = max(best_container, para[i] + (free if free >= PARAGRAPH_TEXT else 0))
        p = parent[i]
        if p < 0:
            continue
        if is_block:
            inner_chars[p] += chars[i]
            inner_links[p] += link_chars[i]
            if free >= PARAGRAPH_TEXT and own_links <= PARAGRAPH_LINKS * own:
                para[p] += free
        else:
            inner_chars[p] += inner_chars[i]
            inner_links[p] += inner_links[i]
            para[p] += para[i]
    blocks.reverse()
    return blocks, counts, chars[0], link_chars[0], best_container


def _repeat_siblings(body: etree._Element) -> int:
    """Largest run of siblings sharing tag and class: list pages repeat one item shape many times."""
    best = 0
    for el in body.iter():
        if not isinstance(el.tag, str) or len(el) < 5:
            continue
        seen: dict[tuple, int] = {}
        for child in el:
            if isinstance(child.tag, str):
                key = (child.tag, child.get("class"))
                seen[key] = seen.get(key, 0) + 1
        if seen:
            best = max(best, max(seen.values()))
    return best


def _nonspace(text: str) -> int:
    return sum(len(word) for word in text.split())


def _record_features(page: Page, total: int) -> list[float]:
    """What PEAN's record finder sees: thread posts carry their own text beside the time line,
    while list items are mostly a link (headline) with a date."""
    from .pean import find_records, text_beside_time

    records, anchors, lengths = find_records(page)
    if not records:
        return [0.0, 0.0, 0.0, 0.0]
    beside = sum(max(0.0, text_beside_time(r, anchors, lengths)) for r in records) / len(records)
    text = links = 0
    for record in records:  # non-space characters, as `total` counts them
        text += _nonspace("".join(record.itertext()))
        links += sum(_nonspace("".join(a.itertext())) for a in record.iter("a"))
    return [math.log1p(len(records)), math.log1p(beside), links / text if text else 0.0,
            text / total if total else 0.0]


def block_stats(page: Page) -> tuple[list[tuple[int, int]], dict[str, int], int, int, int]:
    """Block statistics of the page's body (see _blocks_from_stats), computed once per page: the
    rule layer and the model both read them."""
    stats = page.cache.get("block_stats")
    if stats is None:
        stats = page.cache["block_stats"] = _blocks_from_stats(page_stats(page))
    return stats


def hub_figures(page: Page) -> dict[str, float]:
    """The few figures the hub-page rule reads, without the costlier features the model needs."""
    blocks, counts, total, links, para_container = block_stats(page)
    link_chars = sum(b[0] for b in blocks if b[0] >= 5 and b[1] / b[0] >= 0.7)
    return {"log_text": math.log1p(total), "log_links": math.log1p(counts.get("a", 0)),
            "link_text_ratio": links / total if total else 0.0,
            "cn_text": link_chars / total if total else 0.0,
            "log_para_container": math.log1p(para_container)}


def page_features(page: Page) -> list[float]:
    cached = page.cache.get("features")
    if cached is not None:
        return list(cached)
    body = page.body
    blocks, counts, total, links, para_container = block_stats(page)
    n_elements = max(1, sum(counts.values()))
    kchar = max(total, 1) / 1000
    link_blocks = [b for b in blocks if b[0] >= 5 and b[1] / b[0] >= 0.7]
    long_blocks = [b for b in blocks if b[0] - b[1] >= 80]
    max_block = max((b[0] - b[1] for b in blocks), default=0)
    text = " ".join(body.itertext())[:100_000]
    times = find_times(text[:30_000], None, limit=400)
    clock = sum(1 for t in times if t.has_clock)
    url = page.url or ""
    parts = urlsplit(url)
    path = parts.path or "/"
    segments = [s for s in path.split("/") if s]
    ld = jsonld_types(page)
    og_type = (page.meta.get("og:type") or "").lower()
    feats = [
        math.log1p(total), math.log1p(counts.get("a", 0)), links / total if total else 0.0,
        len(link_blocks) / len(blocks) if blocks else 0.0,
        sum(b[0] for b in link_blocks) / total if total else 0.0,
        math.log1p(max_block), max_block / total if total else 0.0,
        math.log1p(len(long_blocks)), math.log1p(len(blocks)),
        math.log1p(sum(b[0] for b in blocks) / len(blocks)) if blocks else 0.0,
        math.log1p(len(times)), math.log1p(clock), len(times) / kchar,
        len(_FORUM_WORDS.findall(text)) / kchar, len(_ARTICLE_WORDS.findall(text)) / kchar,
        math.log1p(n_elements), float(len(segments)), float(sum(c.isdigit() for c in path)) / 10,
        float(bool(_THREAD_URL.search(url))), float(bool(_LIST_URL.search(path))), float(bool(_DATE_URL.search(path))),
        float(path.endswith((".html", ".htm", ".shtml"))), float(len(segments) == 0 and bool(url)),
        float(og_type == "article"), float(bool(page.meta.get("article:published_time"))),
        float(bool(ld & _ARTICLE_LD)), float(any("forum" in t or "discussion" in t for t in ld)),
        float(any(t in ("itemlist", "collectionpage", "searchresultspage") for t in ld)),
        math.log1p(len(page.title)), math.log1p(len(page.meta.get("description", ""))),
        math.log1p(_repeat_siblings(body)), counts.get("a", 0) / kchar,
        math.log1p(para_container), para_container / total if total else 0.0,
    ]
    # PEAN's record finder is the costliest feature; with fewer dates than a run of posts needs
    # it has nothing to find (its lone-post reading is left to the other features).
    dates_shown = len(times) + counts.get("time", 0)
    feats += _record_features(page, total) if dates_shown >= PEAN_MIN_DATES else [0.0, 0.0, 0.0, 0.0]
    feats += [math.log1p(counts.get(t, 0)) for t in COUNTED_TAGS]
    feats += [counts.get(t, 0) / n_elements for t in COUNTED_TAGS]
    page.cache["features"] = feats
    return list(feats)
