"""Parse a page once into a `Page`: the cleaned lxml tree plus the metadata read before cleaning.

Every extractor works on the same `Page`; nothing re-parses. Traversals here are iterative so a
page nested thousands of levels deep cannot exhaust Python's recursion limit.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Iterator

from lxml import etree, html

from .decode import decode_html

# Above this a page is refused rather than parsed: real article pages are far smaller, and a
# multi-megabyte "page" is a file dump or a trap that would stall a worker.
MAX_PAGE_BYTES = 8 * 1024 * 1024

# Dropped with their content: never part of the visible article.
DROP_TAGS = ("script", "style", "noscript", "template", "svg", "canvas", "iframe", "object",
             "embed", "select", "textarea", "button", "head")

_DROP_FIRST = tuple(t for t in DROP_TAGS if t != "noscript")
# A <noscript> holding at least this many characters and this share of the page's visible text is
# the page itself, served to clients without JavaScript (Discourse renders every post there);
# ordinary pages use <noscript> for tracking pixels, image fallbacks and "enable JavaScript".
NOSCRIPT_MIN_CHARS = 200
NOSCRIPT_MIN_SHARE = 0.5

# Elements that break text into separate lines when rendered.
BLOCK_TAGS = frozenset("""address article aside blockquote body center dd details dialog dir div dl dt
fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html li main menu nav
ol p pre section summary table tbody thead tfoot tr td th ul br caption legend option""".split())

_WS = re.compile(r"[ \t\r\f\v\u00a0\u3000\u200b\ufeff]+")
_XML_DECL_TEXT = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)


class PageError(ValueError):
    """The input cannot be treated as an HTML page; `reason` is a short machine-readable code."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


@dataclass
class Page:
    url: str | None
    root: etree._Element  # <html>, cleaned of scripts, styles and comments
    encoding: str
    title: str  # raw <title> text
    meta: dict[str, str] = field(default_factory=dict)  # lower-cased name/property/itemprop -> content
    jsonld: list[dict] = field(default_factory=list)  # JSON-LD objects, @graph flattened
    lang: str | None = None
    fetched_at: datetime | None = None
    tz: str | None = None  # the channel's default IANA zone for times without an offset
    # Per-page results several steps need (block statistics, PEAN records), computed once per page.
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def body(self) -> etree._Element:
        body = self.root.find("body")
        return body if body is not None else self.root


def _looks_binary(data: bytes) -> bool:
    sample = data[:4096]
    if b"\x00" in sample and not (sample.startswith((b"\xff\xfe", b"\xfe\xff"))):
        return True
    return False


def _read_jsonld(root: etree._Element) -> list[dict]:
    out: list[dict] = []
    for script in root.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            data = json.loads(script.text or "", strict=False)
        except (ValueError, RecursionError):
            continue
        stack = [data]
        while stack and len(out) < 50:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(reversed(item))
            elif isinstance(item, dict):
                out.append(item)
                if isinstance(item.get("@graph"), list):
                    stack.extend(reversed(item["@graph"]))
    return out


def _read_meta(root: etree._Element) -> dict[str, str]:
    meta: dict[str, str] = {}
    for el in root.iter("meta"):
        key = el.get("property") or el.get("name") or el.get("itemprop")
        content = el.get("content")
        if key and content and key.strip().lower() not in meta:
            meta[key.strip().lower()] = content.strip()
    return meta


def parse_html(text: str) -> etree._Element:
    text = _XML_DECL_TEXT.sub("", text, count=1)
    parser = html.HTMLParser(remove_comments=True, remove_pis=True, huge_tree=True)
    try:
        root = html.document_fromstring(text, parser=parser)
    except (etree.ParserError, ValueError) as exc:
        raise PageError("unparseable", str(exc)[:200]) from exc
    if root is None:
        raise PageError("empty", "no elements")
    return root


def _chars(el: etree._Element) -> int:
    """Non-space characters of the element's text."""
    return len("".join("".join(el.itertext()).split()))


def _keep_noscript_content(root: etree._Element) -> None:
    """Turn into a <div> each <noscript> that holds block markup and most of the visible text
    (a JavaScript application's server-rendered fallback); the others are dropped by the caller."""
    candidates = [el for el in root.iter("noscript") if len(el)]
    if not candidates:
        return
    sizes = [(el, _chars(el)) for el in candidates]
    if all(n < NOSCRIPT_MIN_CHARS for _, n in sizes):
        return
    body = root.find("body")
    total = _chars(body if body is not None else root)
    for el, n in sizes:
        if (n >= NOSCRIPT_MIN_CHARS and n >= NOSCRIPT_MIN_SHARE * total
                and any(isinstance(d.tag, str) and d.tag in BLOCK_TAGS for d in el.iterdescendants())):
            el.tag = "div"
            el.set("data-mcrawl-noscript", "")


def load_page(data: bytes | str, url: str | None = None, *, content_type: str | None = None,
              fetched_at: datetime | None = None, tz: str | None = None,
              max_bytes: int = MAX_PAGE_BYTES) -> Page:
    """Decode, parse and clean a page. Raises PageError with a reason for input that is not a page."""
    size = len(data)
    if size == 0 or (isinstance(data, str) and not data.strip()) or (isinstance(data, bytes) and not data.strip()):
        raise PageError("empty", "no content")
    if size > max_bytes:
        raise PageError("too_large", f"{size} bytes > limit {max_bytes}")
    if isinstance(data, bytes) and _looks_binary(data):
        raise PageError("binary", "NUL bytes: not a text page")
    decoded = decode_html(data, content_type)
    if "<" not in decoded.text[:100_000]:
        raise PageError("not_html", "no markup")
    root = parse_html(decoded.text)
    title_el = root.find(".//title")
    title = normalize_space(title_el.text_content().replace("\n", " ")) if title_el is not None else ""
    meta = _read_meta(root)
    jsonld = _read_jsonld(root)
    lang = root.get("lang") or meta.get("og:locale") or meta.get("language")
    etree.strip_elements(root, *_DROP_FIRST, with_tail=False)
    _keep_noscript_content(root)
    etree.strip_elements(root, "noscript", with_tail=False)
    # lxml keeps the <html> element even for fragments; a page without any body text is empty.
    return Page(url=url, root=root, encoding=decoded.encoding, title=title, meta=meta, jsonld=jsonld,
                lang=(lang or None), fetched_at=fetched_at, tz=tz)


def jsonld_types(page: Page) -> set[str]:
    """The lower-cased JSON-LD @type values of the page ("newsarticle", "blogposting", ...)."""
    types: set[str] = set()
    for item in page.jsonld:
        t = item.get("@type")
        for value in (t if isinstance(t, list) else [t]):
            if isinstance(value, str):
                types.add(value.lower())
    return types


def is_inside(el: etree._Element, ancestor: etree._Element | None) -> bool:
    """`el` is `ancestor` or one of its descendants (walks up: bounded by the depth, no recursion)."""
    node = el
    while node is not None and ancestor is not None:
        if node is ancestor:
            return True
        node = node.getparent()
    return False


def normalize_space(text: str | None) -> str:
    return _WS.sub(" ", text or "").strip()


def iter_text_lines(el: etree._Element) -> Iterator[str]:
    """Yield the element's visible text, one string per rendered line (block elements break lines)."""
    return iter_lines_skipping(el, None)


def source_text(text: str, in_pre: bool) -> str:
    """A text node as rendered: line breaks in the HTML source are spaces, except inside <pre>."""
    return text if in_pre else text.replace("\n", " ").replace("\r", " ")


def iter_lines_skipping(el: etree._Element, skip) -> Iterator[str]:
    """Like iter_text_lines, leaving out the subtrees of elements for which `skip(element)` is true
    (their tails stay: they belong to the parent)."""
    parts: list[str] = []
    pre_depth = 0
    # Iterative pre/post-order walk: (element, entering?) pairs.
    stack: list[tuple[etree._Element, bool]] = [(el, True)]
    while stack:
        node, entering = stack.pop()
        tag = node.tag if isinstance(node.tag, str) else ""
        if entering:
            if skip is not None and tag and node is not el and skip(node):
                if node.tail:
                    parts.append(source_text(node.tail, pre_depth > 0))
                continue
            if tag in BLOCK_TAGS:
                parts.append("\n")
            if tag == "pre":
                pre_depth += 1
            if node.text and tag:
                parts.append(source_text(node.text, pre_depth > 0))
            stack.append((node, False))
            for child in reversed(node):
                stack.append((child, True))
        else:
            if tag == "pre":
                pre_depth -= 1
            if tag in BLOCK_TAGS:
                parts.append("\n")
            if node is not el and node.tail:
                parts.append(source_text(node.tail, pre_depth > 0))
    for line in "".join(parts).split("\n"):
        line = normalize_space(line)
        if line:
            yield line


def text_of(el: etree._Element) -> str:
    """Visible text of an element with one line per paragraph/block."""
    return "\n".join(iter_text_lines(el))


def iter_depth_first(el: etree._Element) -> Iterator[etree._Element]:
    """Elements in document order (lxml's iter() is already iterative; comments/PIs skipped)."""
    for node in el.iter():
        if isinstance(node.tag, str):
            yield node
