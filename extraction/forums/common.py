"""Pieces every post extractor shares: text without quotes/signatures, post times from markup,
and the result assembly."""
from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from typing import Iterable

from lxml import etree, html

from ..dom import BLOCK_TAGS, normalize_space
from ..result import Post
from .times import TimeMatch, parse_iso, parse_time, to_iso

# Class/id words that mark an embedded earlier post, a signature, or editing/attachment chrome
# inside a post body. Matched as whole words of the class/id attribute.
QUOTE_WORDS = ("quote", "bbcodequote", "bbcode_quote", "bbcodeblock--quote", "quotebox", "ipsquote",
               "quotecontainer", "bbcode_container", "quotecontent", "userquote", "quote_block", "reply-quote")
SIGNATURE_WORDS = ("signature", "postsignature", "sig", "usersignature", "message-signature",
                   "messagesignature", "signaturecontainer")
CHROME_WORDS = ("postedit", "editedby", "edit-note", "message-lastedit", "lastedit", "editnote",
                "message-attachments", "attachments", "likesbar", "reactionsbar", "message-footer",
                "post-actions", "postfoot", "pstatus", "message-options", "modified")
_WORD_SPLIT = re.compile(r"[\s]+")


def class_words(el: etree._Element) -> set[str]:
    raw = f"{el.get('class') or ''} {el.get('id') or ''}".lower()
    return {w for w in _WORD_SPLIT.split(raw) if w}


# Engines that wrap the post body itself in <blockquote> (vBulletin 4, XenForo 1).
_BODY_BLOCKQUOTE = re.compile(r"postcontent|messagetext|restore|ugc", re.I)


def _word_re(words: tuple[str, ...], prefixes: str = "") -> re.Pattern:
    alternatives = "|".join(re.escape(w) for w in words)
    extra = f"|{prefixes}" if prefixes else ""
    return re.compile(rf"(?:^|\s)(?:(?:{alternatives})(?=\s|$){extra})", re.I)


# One regex search per attribute instead of set building per element: these run on every node.
_QUOTE_RE = _word_re(QUOTE_WORDS, r"quote\S*|bbcodeblock--quote\S*")
_SIGNATURE_RE = _word_re(SIGNATURE_WORDS, r"\S*signature\S*")
_CHROME_RE = _word_re(CHROME_WORDS)


def _attrs(el: etree._Element) -> str:
    cls, ident = el.get("class"), el.get("id")
    if cls and ident:
        return f"{cls} {ident}"
    return cls or ident or ""


def is_quote(el: etree._Element) -> bool:
    if el.tag == "blockquote":
        return not _BODY_BLOCKQUOTE.search(el.get("class") or "")
    attrs = _attrs(el)
    return bool(attrs) and _QUOTE_RE.search(attrs) is not None


def is_signature(el: etree._Element) -> bool:
    attrs = _attrs(el)
    return bool(attrs) and _SIGNATURE_RE.search(attrs) is not None


def is_chrome(el: etree._Element) -> bool:
    attrs = _attrs(el)
    return bool(attrs) and _CHROME_RE.search(attrs) is not None


def is_excluded(el: etree._Element) -> bool:
    """Quoted earlier post, signature or editing chrome: never part of what this post says."""
    if el.tag == "blockquote":
        return is_quote(el)
    attrs = _attrs(el)
    if not attrs:
        return False
    return (_QUOTE_RE.search(attrs) is not None or _SIGNATURE_RE.search(attrs) is not None
            or _CHROME_RE.search(attrs) is not None)


_QUOTE_LABEL = re.compile(r"^(?:quote|zitat|citation|cita|引用|quote from \S+|zitat von \S+|originally posted by \S+|"
                          r".{1,40} (?:wrote|schrieb|a écrit|escribió)|.{1,40}说)\s*:?$", re.I)


def starts_like_quote(el: etree._Element) -> bool:
    """A small wrapper that opens with a "Quote:" / "X wrote:" label: a quoted earlier post
    in engines that mark quotes only by that label (vBulletin 3 and many custom boards)."""
    kids = [c for c in el if isinstance(c.tag, str)]
    if not 1 <= len(kids) <= 3 or (el.text or "").strip():
        return False
    if any((c.tail or "").strip() for c in kids):
        return False
    for node in kids[0].iter():
        text = (node.text or "").strip()
        if text:
            return bool(_QUOTE_LABEL.match(" ".join(text.split())))
    return False


def text_skipping(el: etree._Element, skip) -> str:
    """Visible text of `el`, one line per block, leaving out subtrees for which `skip(node)` is true.

    Works on the shared tree without modifying it (other extractors read the same Page)."""
    parts: list[str] = []
    stack: list[tuple[etree._Element, bool]] = [(el, True)]
    while stack:
        node, entering = stack.pop()
        tag = node.tag if isinstance(node.tag, str) else ""
        if entering:
            if tag and node is not el and skip(node):
                if node.tail:
                    parts.append(node.tail)
                continue
            if tag in BLOCK_TAGS:
                parts.append("\n")
            if node.text and tag:
                parts.append(node.text)
            stack.append((node, False))
            for child in reversed(node):
                stack.append((child, True))
        else:
            if tag in BLOCK_TAGS:
                parts.append("\n")
            if node is not el and node.tail:
                parts.append(node.tail)
    lines = (normalize_space(line) for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)


def post_content(el: etree._Element, extra_skip: Iterable[etree._Element] = ()) -> str:
    """Post body text without quoted earlier posts, signatures and edit notes."""
    extra = set(extra_skip)
    text = text_skipping(el, lambda n: n in extra or is_excluded(n) or starts_like_quote(n))
    if len(_ESCAPED_TAG.findall(text, 0, 20000)) >= 2:
        # Some boards double-escape their HTML, so the post shows its own markup as text: read
        # that text as HTML once more (bounded: a post, not a page) and clean it the same way.
        try:
            fragment = html.fragment_fromstring(text.replace("\n", " ")[:200_000], create_parent="div")
        except (etree.ParserError, ValueError):
            return text
        return text_skipping(fragment, is_excluded)
    return text


_ESCAPED_TAG = re.compile(r"</?(?:p|br|div|span|b|i|u|strong|em|a|ul|ol|li|blockquote|pre|code|img|h[1-6])\b[^<>]*>", re.I)


def time_from_element(el: etree._Element, now: datetime | None) -> str | None:
    """The post time shown by `el`: a human-readable title or text (the forum's own local time)
    first, then machine attributes. Titles/text are preferred because several engines put UTC in
    `datetime` while the page shows, and users mean, the board's local time; a machine timestamp
    of the same moment only supplies the UTC offset."""
    candidates = [el] + [d for d in el.iter("time", "abbr", "span", "li") if d is not el and (d.get("title") or d.get("datetime") or d.get("data-time"))]
    machine = None
    for node in candidates:
        for attr in ("datetime", "content", "data-time", "data-timestamp"):
            machine = parse_iso(node.get(attr))
            if machine is not None:
                break
        if machine is not None:
            break
    best_date_only: TimeMatch | None = None
    for node in candidates:
        for attr in ("title", "data-datestring"):
            match = parse_time(node.get(attr), now)
            if match and match.has_clock:
                return _with_offset(match.value, machine)
            if match and best_date_only is None:
                best_date_only = match
    match = parse_time(normalize_space(el.text_content())[:300], now)
    if match and match.has_clock:
        return _with_offset(match.value, machine)
    if machine is not None:
        return to_iso(machine)
    if match:
        return to_iso(match.value)
    return to_iso(best_date_only.value) if best_date_only else None


def _with_offset(shown: datetime, machine: datetime | None) -> str:
    """`shown` (naive wall time) with the UTC offset implied by a machine timestamp of the same
    moment, when the two differ by a plausible zone offset (whole quarter hours, under 15 h)."""
    if machine is None or machine.tzinfo is None or shown.tzinfo is not None:
        return to_iso(shown)
    utc = machine.astimezone(timezone.utc).replace(tzinfo=None)
    delta = (shown.replace(second=0) - utc.replace(second=0)).total_seconds()
    if abs(delta) < 15 * 3600 and delta % 900 == 0:
        return to_iso(shown.replace(tzinfo=timezone(timedelta(seconds=delta))))
    return to_iso(shown)


def first_text(el: etree._Element | None, limit: int = 80) -> str | None:
    if el is None:
        return None
    text = " ".join(el.text_content().split())
    return text[:limit] if text else None


_FLOOR = re.compile(r"^(?:#\s?(\d{1,6})|(\d{1,6})\s?(?:楼|#|F))$")


def floor_marker(el: etree._Element) -> int | None:
    """A post number the page prints ("#12", "12楼"), if any short element shows one."""
    for node in el.iter("a", "span", "em", "strong", "li", "div"):
        text = (node.text or "").strip()
        if 1 < len(text) <= 8:
            m = _FLOOR.match(text)
            if m:
                return int(m.group(1) or m.group(2))
    return None


def number_floors(posts: list[Post], markers: list[int | None]) -> None:
    """Floors from printed markers when they increase down the page, else the page order."""
    usable = [m for m in markers if m is not None]
    if len(usable) == len(posts) and all(b > a for a, b in zip(usable, usable[1:])):
        for post, m in zip(posts, usable):
            post.floor = m
        return
    for i, post in enumerate(posts, 1):
        post.floor = i
