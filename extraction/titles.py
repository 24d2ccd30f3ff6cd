"""Headline extraction: <title> against heading candidates by longest common substring.

The thesis rule: a heading (h1…, or an element named like a title) whose longest common substring
with <title> is at least 5 characters is the headline; otherwise <title> is, and when <title> is
empty the first <h1>. Additions that keep the rule honest on real pages:
- og:title and the JSON-LD headline are compared too (some sites' <title> is only the site name);
- a site logo in an <h1> shares the site name with the <title> suffix, so the shared part must also
  be a good share of the title's main segment (half of it, at most NEED_CAP characters) and must
  not lie only in a part known to name the site; a heading equal to a short title part counts
  when it is the heading nearest the body;
- headings are h1–h6; elements named like a title (class/id "title", "headline", …) are looked at
  only when no heading matched, and only around the body node;
- a heading that wraps the headline with a category link or a dateline is trimmed to its part
  that matches;
- the <title> fallback loses its site-name parts (" - 网易新闻", "_新浪网", "| BBC News"): split
  at separators, drop parts that name the site (og:site_name, the host) and keep the longest;
- a title that is only a section/site name (short after stripping) gives way to the heading that
  opens the article body.
"""
from __future__ import annotations

import re
import unicodedata
from urllib.parse import urlsplit

from lxml import etree

from .dom import Page, is_inside, normalize_space

MIN_COMMON = 5  # the thesis's threshold on the shared part of <title> and a heading
MAX_HEADING_CHARS = 200
MAX_CANDIDATES = 400
# Below this many characters a stripped <title> is a section or site name rather than a headline.
WEAK_TITLE_CHARS = 10
NEED_CAP = 20  # characters: an <h1> shorter than a long SEO <title> still matches
MAX_TITLE_CHARS = 400
MAX_HEADING_CHILDREN = 20

_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")
# Elements named like a title, looked for only when no h1–h6 matched, and only in the elements just
# before the body node and at its top: a page-wide attribute test costs milliseconds on big pages.
_TITLE_NAMED = ("contains(@class,'itle') or contains(@id,'itle') or contains(@class,'eadline') or "
                "contains(@id,'eadline') or contains(@class,'biaoti') or contains(@class,'topic') or "
                "contains(@class,'subject') or @itemprop='headline'")
NAMED_BEFORE_BODY = 300  # elements
NAMED_BODY_TOP = 80
_NAMED_BEFORE = etree.XPath(f"preceding::*[position()<={NAMED_BEFORE_BODY}][{_TITLE_NAMED}]")
_NAMED_INSIDE = etree.XPath(f"descendant::*[position()<={NAMED_BODY_TOP}][{_TITLE_NAMED}]")
_NAMED_ANYWHERE = etree.XPath(f"descendant::*[position()<={NAMED_BEFORE_BODY * 4}][{_TITLE_NAMED}]")
_HEADING_RANK = {"h1": 0, "h2": 1, "h3": 2, "h4": 3, "h5": 3, "h6": 3}
_OUTSIDE_ARTICLE = re.compile(r"(?:^|[\s_-])(?:nav|menu|footer|foot|sidebar|side|aside|logo|breadcrumb|crumb|"
                              r"related|recommend|hot|rank|comment|copyright)(?:$|[\s_-])", re.I)
_LIST_AND_LINK_TAGS = frozenset(("a", "nav", "footer", "li", "option"))
_WRAPPER_HINT = re.compile(r"wrap|content|main|container|article|body|page|layout", re.I)
_NON_ARTICLE_TAGS = frozenset(("a", "nav", "footer", "aside", "li", "ul", "ol", "option", "label", "title", "head"))

# Separators between a headline and the site name in <title>. A bare hyphen next to a digit never
# splits ("COVID-19", "1-10月").
_SEPARATORS = re.compile(r"\s+[-–—|·:»/]\s+|\s*(?:_+|\||｜|-{2,}|——|—|–|»|::|>>)\s*")
_BARE_HYPHEN = re.compile(r"(?<=[^\W\d])-(?=[^\W\d])|(?<=[\u3000-\u9fff\uff00-\uffef])-|-(?=[\u3000-\u9fff\uff00-\uffef])")
_HOSTLIKE = re.compile(r"(?:www\.|\.(?:com|cn|net|org|gov|edu|co|io|info|uk|de|fr|jp)\b)", re.I)
_AFFIX_LIKE = re.compile(r"[\u3000-\u9fff\uff00-\uffef]|" + _HOSTLIKE.pattern, re.I)
# Headings that are the byline or meta line, not the headline.
_BYLINE_HINT = re.compile(r"byline|author|date|time|source|info|meta|tag|categor", re.I)
_SPACES = re.compile(r"\s+")


# Titles and headings of one page often differ only in typography (curly vs straight quotes,
# full-width vs ASCII punctuation, dashes): compared after folding those.
_TYPOGRAPHY = str.maketrans({"‘": "'", "’": "'", "‚": "'", "′": "'", "“": '"', "”": '"', "„": '"', "″": '"',
                             "「": '"', "」": '"', "–": "-", "—": "-", "―": "-", "‐": "-", "‑": "-", "…": "..."})


def _norm(text: str) -> str:
    return unicodedata.normalize("NFKC", _SPACES.sub("", text)).translate(_TYPOGRAPHY).lower()


class _Grams:
    """k-gram sets of one reference string, built on demand, for longest-common-substring lengths.

    Hand-written: the stdlib's difflib is O(n·m) per pair in Python; with the k-gram sets the length
    of the longest common substring is found by binary search over k (presence is monotone in k),
    a few set probes per candidate character.
    """

    def __init__(self, text: str):
        self.text = text
        self._sets: dict[int, set[str]] = {}

    def _has(self, other: str, k: int) -> bool:
        if k == 0:
            return True
        grams = self._sets.get(k)
        if grams is None:
            t = self.text
            grams = {t[i:i + k] for i in range(len(t) - k + 1)}
            self._sets[k] = grams
        return any(other[i:i + k] in grams for i in range(len(other) - k + 1))

    def common(self, other: str, at_least: int = 1) -> int:
        """Length of the longest common substring; 0 when it is shorter than `at_least`."""
        hi = min(len(other), len(self.text))
        if hi < at_least or not self._has(other, at_least):
            return 0
        lo = at_least
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._has(other, mid):
                lo = mid
            else:
                hi = mid - 1
        return lo


def lcs_length(a: str, b: str) -> int:
    """Length of the longest common substring of a and b."""
    return _Grams(a).common(b)


def split_title(title: str) -> list[str]:
    """The parts of a <title> between site-name separators, in order, empty parts dropped."""
    parts = [p.strip() for p in _SEPARATORS.split(title)]
    out: list[str] = []
    for part in parts:
        if not part:
            continue
        # A bare hyphen separates a trailing site/section name ("…GPU-EDN 电子技术设计", "…-CSDN.NET",
        # "…网络-股票频道-和讯网") but is also part of words and headlines ("X-Men", "王者荣耀-新英雄"):
        # only trailing pieces that look like names (CJK or a domain, at most 20 characters) come off.
        pieces = [p.strip() for p in _BARE_HYPHEN.split(part)]
        tail: list[str] = []
        while len(pieces) > 1 and pieces[-1] and len(pieces[-1]) <= 20 and _AFFIX_LIKE.search(pieces[-1]) \
                and len("-".join(pieces[:-1])) >= len(pieces[-1]):
            tail.insert(0, pieces.pop())
        if tail:
            out.append(_rejoin(part, pieces))
            out.extend(tail)
        else:
            out.append(part)
    return out


def _rejoin(part: str, pieces: list[str]) -> str:
    """The leading pieces of a hyphen split, as written in `part`."""
    joined = "-".join(pieces)
    return part[: len(joined)] if part.startswith(joined) else joined


def _site_names(page: Page) -> list[str]:
    names = [page.meta.get(k, "") for k in ("og:site_name", "application-name", "apple-mobile-web-app-title",
                                             "twitter:site")]
    for item in page.jsonld:
        pub = item.get("publisher")
        if isinstance(pub, dict) and isinstance(pub.get("name"), str):
            names.append(pub["name"])
        if item.get("@type") in ("WebSite", "Organization") and isinstance(item.get("name"), str):
            names.append(item["name"])
    if page.url:
        host = urlsplit(page.url).hostname or ""
        labels = [lb for lb in host.split(".") if lb not in ("www", "m", "news", "com", "cn", "net", "org", "co")]
        names.extend(labels)
    return [_norm(n.lstrip("@")) for n in names if n and len(n) >= 2]


def _is_site_part(part: str, site_names: list[str]) -> bool:
    p = _norm(part)
    if not p:
        return True
    if _HOSTLIKE.search(part):
        return True
    # The part is the site name, or a small variation of it ("网易新闻" for 网易, "NHL Network" for NHL);
    # a headline that merely mentions the site is much longer than the name.
    return any(p == name or p in name or (name in p and len(p) <= 2 * len(name) + 6) for name in site_names)


def strip_site_name(title: str, site_names: list[str] | None = None) -> str:
    """The headline part of a <title>: parts naming the site dropped, the longest part kept."""
    title = normalize_space(title)
    parts = split_title(title)
    names = site_names or []
    if len(parts) <= 1:
        # A <title> that is the site's name and nothing else holds no headline.
        return "" if _norm(title) in names else title
    kept = [p for p in parts if not _is_site_part(p, names)] or parts
    return max(kept, key=len)


def _heading_text(el: etree._Element) -> str:
    return " ".join(el.text_content().split())


def _outside_article(el: etree._Element) -> bool:
    """The element sits in navigation, a sidebar, a footer or a link (a heading there is not the article's).

    An <h1> is judged only by the tags around it: pages have one <h1>, the headline, and some put it
    in an <aside> or a box named "side…" for layout."""
    node = el
    is_h1 = el.tag == "h1"
    for _ in range(8):
        if node is None:
            return False
        tag = node.tag if isinstance(node.tag, str) else ""
        if node is not el and tag in (_LIST_AND_LINK_TAGS if is_h1 else _NON_ARTICLE_TAGS):
            return True
        hint = f"{node.get('class') or ''} {node.get('id') or ''}"
        # "content-sidebar-wrap", "main-with-sidebar" name layout wrappers around the article too.
        if not is_h1 and hint.strip() and _OUTSIDE_ARTICLE.search(hint) and not _WRAPPER_HINT.search(hint):
            return True
        node = node.getparent()
    return False


def _precedes(el: etree._Element, body: etree._Element | None) -> bool:
    """The element comes before the body node in the document (source line order; equal lines count as before)."""
    if body is None:
        return False
    a, b = el.sourceline, body.sourceline
    if a is None or b is None or a > b:
        return False
    return a < b or not is_inside(el, body)


def _candidates(elements, body_node: etree._Element | None):
    """(element, text, rank, position, before_body) per heading candidate, in document order."""
    out = []
    for pos, el in enumerate(elements):
        if pos >= MAX_CANDIDATES:
            break
        if not isinstance(el.tag, str) or el.tag in ("html", "body", "title", "meta", "a"):
            continue
        rank = _HEADING_RANK.get(el.tag, 4)
        # Class-named wrappers often hold a whole block; only short, single-purpose ones are headings.
        # (An <h2> wrapping dozens of elements is a misused tag around a section, not a headline.)
        if len(el) > (3 if rank == 4 else MAX_HEADING_CHILDREN):
            continue
        text = _heading_text(el)
        if not (2 <= len(text) <= MAX_HEADING_CHARS):
            continue
        out.append((el, text, rank, pos, _precedes(el, body_node)))
    return out


def _named_title_elements(page: Page, body_node: etree._Element | None) -> list[etree._Element]:
    if body_node is None or body_node is page.body:
        return _NAMED_ANYWHERE(page.body)
    return _NAMED_BEFORE(body_node) + _NAMED_INSIDE(body_node)


def _sub_texts(el: etree._Element) -> list[tuple[etree._Element, str]]:
    """The heading's own text (children's text left out) and each child's text: a heading may wrap
    the headline together with a category link or a dateline."""
    own = [el.text or ""] + [child.tail or "" for child in el]
    out = [(el, normalize_space(" ".join(own)))]
    for child in el:
        if isinstance(child.tag, str):
            out.append((child, _heading_text(child)))
    return [(node, text) for node, text in out if text]


def _reference_titles(page: Page) -> list[str]:
    # "ArticleTitle" is how TRS and other CMSs common on Chinese government and news sites state it.
    refs = [page.title, page.meta.get("og:title", ""), page.meta.get("twitter:title", ""),
            page.meta.get("articletitle", "")]
    for item in page.jsonld:
        headline = item.get("headline")
        if isinstance(headline, str):
            refs.append(headline)
    # A <title> of thousands of characters is not a headline; bounded so matching stays cheap.
    return [normalize_space(r)[:MAX_TITLE_CHARS] for r in refs if r and r.strip()]


def extract_headline(page: Page, body_node: etree._Element | None = None) -> tuple[str | None, etree._Element | None]:
    """Return (headline, the element it was read from or None)."""
    refs = _reference_titles(page)
    site_names = _site_names(page)
    title = normalize_space(page.title)[:MAX_TITLE_CHARS]
    main = strip_site_name(title, site_names) if title else ""
    main_norm = _norm(main)
    refs = [r for r in refs if len(_norm(strip_site_name(r, site_names))) >= WEAK_TITLE_CHARS]
    grams = [_Grams(_norm(r)) for r in refs]
    # The shared part must be a good share of the title's main part (a logo <h1> shares only the
    # site name), capped so that an <h1> shorter than a long SEO <title> still counts.
    need = max(MIN_COMMON, min((len(main_norm) + 1) // 2, NEED_CAP)) if main_norm else MIN_COMMON
    # Parts of <title> known to name the site cannot be what a heading shares with it.
    parts = split_title(title)
    site_parts = [p for p in parts if _is_site_part(p, site_names)] if len(parts) > 1 else []
    not_site = _Grams(_norm(" ".join(p for p in parts if p not in site_parts))) if site_parts else None

    # A heading equal to one part of <title> ("About bugs – Vortex Cannon Entertainment") is the
    # headline even when shorter than `need`, if it is the heading nearest the body (not a logo).
    exact_parts = {_norm(p) for p in parts if p not in site_parts and len(_norm(p)) >= MIN_COMMON} \
        if len(parts) > 1 else set()

    def match(cands):
        found = _best_match(cands, grams, need, not_site)
        if found is None and exact_parts:
            nearest = [c for c in cands if c[4] and not _outside_article(c[0])]
            if nearest and _norm(nearest[-1][1]) in exact_parts:
                return nearest[-1][0], nearest[-1][1]
        return found

    headings = _candidates(page.root.iter(*_HEADING_TAGS), body_node)
    found = match(headings) if grams else None
    if found is None and grams:
        found = match(_candidates(_named_title_elements(page, body_node), body_node))
    if found is not None:
        return found[1], found[0]
    if len(main_norm) >= WEAK_TITLE_CHARS:
        return main, None
    # <title> names only the site or section: a stated headline, else the heading opening the article.
    for ref in refs:
        stated = strip_site_name(ref, site_names)
        if len(_norm(stated)) >= WEAK_TITLE_CHARS:
            return stated, None
    # A short headline ("国务院常务会议_新闻中心") is still the headline when a heading says the same.
    if len(main_norm) >= MIN_COMMON:
        same = [c for c in headings if _norm(c[1]) == main_norm and not _outside_article(c[0])]
        if same:
            chosen = ([c for c in same if c[4]] or same)[-1]
            return chosen[1], chosen[0]
    heading = _opening_heading(headings) or _opening_heading(
        _candidates(_named_title_elements(page, body_node), body_node))
    if heading is not None:
        return heading[1], heading[0]
    return (main or None), None


def _best_match(candidates, grams: list[_Grams], need: int,
                not_site: _Grams | None = None) -> tuple[etree._Element, str] | None:
    """The candidate sharing most with a reference title, trimmed to the part of it that matches."""
    best = None
    for el, text, rank, pos, before_body in candidates:
        cand = _norm(text)
        if len(cand) < need or _outside_article(el):
            continue
        common = max(g.common(cand, need) for g in grams)
        if common < need:
            continue
        if not_site is not None and not not_site.common(cand, MIN_COMMON):
            continue  # it shares only the site's name with <title>
        node = el
        if common < len(cand):
            for sub_el, sub_text in _sub_texts(el):
                sub = _norm(sub_text)
                if len(sub) >= need and max(g.common(sub, need) for g in grams) >= 0.9 * max(len(sub), common):
                    node, text = sub_el, sub_text
                    break
        # Most shared first; then a heading that is nearly all title (not title + date line).
        key = (common, common >= 0.9 * len(_norm(text)), -rank, before_body, -pos)
        if best is None or key > best[0]:
            best = (key, node, text)
    return None if best is None else (best[1], best[2])


def _opening_heading(candidates):
    """The heading nearest before the body node, else the first <h1>; None when neither exists."""
    usable = [c for c in candidates if len(_norm(c[1])) >= MIN_COMMON and not _outside_article(c[0])
              and not _BYLINE_HINT.search(f"{c[0].get('class') or ''} {c[0].get('id') or ''}")]
    before = [c for c in usable if c[4]]
    if before:
        return before[-1]
    for c in usable:
        if c[2] == 0:
            return c
    return None
