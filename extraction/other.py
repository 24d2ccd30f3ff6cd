"""Pages that are neither articles nor forum threads.

"other" pages: the <title> (site name stripped) as headline, the first valid publication date,
and the densest block (the container holding the most paragraph text) as body.
List/hub pages: no article at all; the result carries the page's links for the crawler and is
marked invalid with reason "list page".
"""
from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from lxml import etree

from . import dates, titles
from .dom import BLOCK_TAGS, Page, normalize_space, text_of
from .result import ExtractionResult

MAX_LINKS = 500
# Paragraph-like block: this much non-link text, at most this share of link text.
PARAGRAPH_TEXT = 30
PARAGRAPH_LINKS = 0.3


def densest_block(page: Page) -> etree._Element:
    """The element whose direct block children hold the most paragraph text (one iterwalk)."""
    body = page.body
    stack: list[list] = [[body, 0, 0, 0]]  # element, text, link text, paragraph text of children
    link_depth = 0
    best, best_text = body, -1
    for event, el in etree.iterwalk(body, events=("start", "end")):
        tag = el.tag if isinstance(el.tag, str) else ""
        if event == "start":
            if tag == "a":
                link_depth += 1
            if tag in BLOCK_TAGS and el is not body:
                stack.append([el, 0, 0, 0])
            n = len((el.text or "").strip()) if tag else 0
            stack[-1][1] += n
            stack[-1][2] += n if link_depth else 0
        else:
            if tag in BLOCK_TAGS and el is not body and len(stack) > 1:
                node, text, links, paras = stack.pop()
                own = text - links
                if own >= PARAGRAPH_TEXT and links <= PARAGRAPH_LINKS * text:
                    stack[-1][3] += own
                score = paras + (own if own >= PARAGRAPH_TEXT else 0)
                if score > best_text:
                    best, best_text = node, score
            if tag == "a":
                link_depth -= 1
            n = len((el.tail or "").strip())
            stack[-1][1] += n
            stack[-1][2] += n if link_depth else 0
    return best


def page_links(page: Page, limit: int = MAX_LINKS) -> list[str]:
    """Absolute http(s) links of the page, in order, without duplicates or fragments."""
    seen: set[str] = set()
    out: list[str] = []
    for a in page.body.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:", "tel:")):
            continue
        url = urljoin(page.url, href) if page.url else href
        url = url.split("#", 1)[0]
        if urlsplit(url).scheme not in ("http", "https") or url in seen:
            continue
        seen.add(url)
        out.append(url)
        if len(out) >= limit:
            break
    return out


def title_headline(page: Page) -> str | None:
    """The <title> without the parts that name the site (og:site_name or the host's labels)."""
    if not page.title:
        return None
    names = [page.meta.get("og:site_name", "")]
    host = urlsplit(page.url or "").hostname or ""
    names.extend(label for label in host.split(".") if label not in ("www", "m", "com", "org", "net", "co"))
    names = ["".join(n.split()).lower() for n in names if n and len(n) >= 2]  # as titles compares them
    return titles.strip_site_name(normalize_space(page.title), names) or None


def extract_other(page: Page) -> ExtractionResult:
    headline = title_headline(page)
    node = densest_block(page)
    published = dates.extract_published(page, None, node)
    return ExtractionResult(url=page.url, page_type="other", headline=headline or None, datePublished=published,
                            articleBody=text_of(node), lang=page.lang, method="other")


def extract_list(page: Page) -> ExtractionResult:
    headline = title_headline(page)
    return ExtractionResult(url=page.url, page_type="list", headline=headline or None, links=page_links(page),
                            lang=page.lang, method="list", valid=False, reasons=["list page"])
