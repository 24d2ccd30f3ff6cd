"""Author and source (作者/记者 · 来源/稿源/出处 · "By …" · byline meta) of an article page.

Read from the same text windows as the publication time (the meta line under the headline, the
footer after the body), then from the markup (rel=author, itemprop=author, byline/author classes
near the headline), then from meta/JSON-LD. Values are cleaned: labels, dates and trailing
punctuation stripped; a URL, a number or the site's own name is not an author.
"""
from __future__ import annotations

import re

from lxml import etree

from .dom import Page, normalize_space
from .pagetext import meta_windows
from .timeparse import find_times

# Labels, longest first so "信息来源" is not read as "信息" + "来源".
_SOURCE_LABELS = ("信息来源", "文章来源", "新闻来源", "消息来源", "稿件来源", "来源于", "来源", "稿源", "出处", "转自", "转载自")
_AUTHOR_LABELS = ("作者", "记者", "撰文", "撰稿", "文/", "文／", "通讯员")
# Any label ends a value written without a space before it ("证券时报网作者：李在山").
_ANY_LABEL = "|".join(re.escape(x) for x in _SOURCE_LABELS + _AUTHOR_LABELS +
                      ("编辑", "责编", "时间", "发布", "日期", "阅读", "浏览", "点击", "评论", "字号", "分享", "举报"))
_STOP_CHARS = r"\s|｜,，;；()（）【】\[\]<>《》:：/／"
_ZH_VALUE = (rf"(?P<v>[^{_STOP_CHARS}]{{1,30}}?)(?=$|[{_STOP_CHARS}]|{_ANY_LABEL}|\d{{4}}[-/年]|\d{{1,2}}[-/月]\d)")
_SOURCE_RE = re.compile(rf"(?:{'|'.join(map(re.escape, _SOURCE_LABELS))})(?P<sep>[ \t]?[:：]?[ \t]?)" + _ZH_VALUE)
# A value after 作者/记者 may be several names separated by spaces ("记者 段彦超 廖艳"): the first is kept.
_AUTHOR_RE = re.compile(rf"(?:{'|'.join(map(re.escape, _AUTHOR_LABELS))})(?P<sep>[ \t]?[:：]?[ \t]?)" + _ZH_VALUE)
_CJK = re.compile(r"[\u4e00-\u9fff]")
# Not names: placeholders and page furniture next to a date line.
_NOT_NAMES = frozenset("未知 佚名 匿名 unknown admin administrator anonymous 分享 评论 举报 字号 关注 收藏 打印 阅读 浏览 "
                       "点击 原创 整理 转载 来源 作者 编辑 责任编辑 本站 网友 更多 返回 首页 正文".split())
# A name right after the date on the meta line, unlabelled ("2019-09-26 10:56:28 证券时报网").
_AFTER_DATE_NAME = re.compile(r"[\s·•|｜]{0,3}\n?[\s·•|｜]{0,3}(?P<v>[\u4e00-\u9fff][\u4e00-\u9fffA-Za-z]{1,14})(?![\u4e00-\u9fffA-Za-z\d])")
_EN_SOURCE_RE = re.compile(r"(?:^|\b)(?:Source|Via)\s?:\s?(?P<v>[A-Z][\w&.'’ -]{1,50}?)(?=$|\s[|·•]|\n|,|\s\d)", re.M)
# Capitalised words after "By", stopping at the words that follow bylines on real pages (a month,
# share buttons, "Updated").
_NOT_NAME_WORD = (r"(?!(?i:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
                  r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?|mon(?:day)?|tue(?:s(?:day)?)?|"
                  r"wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?|"
                  r"facebook|twitter|email|e-mail|share|follow|updated|published|posted|photo|staff writer)\b)")
_NAME = (rf"{_NOT_NAME_WORD}[A-Z][\w.'’-]*(?:\s(?:{_NOT_NAME_WORD}[A-Z][\w.'’-]*|de|da|van|von|der|bin|al|and|&)){{0,5}}")
_BY_RE = re.compile(rf"(?:^|[\s(|·•])(?:[Bb]y|BY|Written by|Posted by|Author|Reporter)\s?:?\s+(?P<v>{_NAME})")
_URLISH = re.compile(r"https?:|www\.|\.(?:com|cn|net|org|html?)\b|@", re.I)
_TRIM = " \t\r\n:：,，.。;；|｜/／-—·•()（）[]【】<>《》\"'“”‘’"
_LAST_NAME_JOINERS = {"and", "&"}
_NAME_JOINERS = {"and", "&", "de", "da", "van", "von", "der", "bin", "al"}


def _labelled(pattern: re.Pattern[str], text: str, need_colon: bool = False) -> str | None:
    """The first value after a label that really is one: "原作者女儿：…" holds the word 作者 but no
    label (a CJK character before it and no colon or space after it)."""
    for m in pattern.finditer(text):
        sep = m.group("sep")
        if not sep and m.start() > 0 and _CJK.match(text[m.start() - 1]):
            continue
        if need_colon and ":" not in sep and "：" not in sep:
            continue
        rest = text[m.start("v"):m.start("v") + 80].split(maxsplit=1)
        if rest and _URLISH.search(rest[0]):
            continue  # "来源：http://…": a link, not a name
        value = _clean(m.group("v"))
        if value:
            return value
    return None


def _clean(value: str | None, max_len: int = 40) -> str | None:
    if not value:
        return None
    value = normalize_space(value).strip(_TRIM)
    if not value or len(value) > max_len or _URLISH.search(value):
        return None
    if not re.search(r"[^\W\d_]", value) or value.lower() in _NOT_NAMES:
        return None  # numbers only (a user id), punctuation, or a placeholder
    return value


def _site_names(page: Page) -> set[str]:
    names = {page.meta.get("og:site_name", ""), page.meta.get("application-name", "")}
    title = page.title or ""
    for part in re.split(r"\s*[_|｜\-–—]+\s*", title)[1:]:
        names.add(part)
    return {n.strip().lower() for n in names if n and n.strip()}


def _from_windows(page: Page, headline_node, body_node) -> tuple[str | None, str | None]:
    author = source = None
    for win, region, _anchor in meta_windows(page, headline_node, body_node):
        text = win.text
        if region == "head" and "body" in win.marks:
            # Reporter credits inside the story ("新华社讯（记者 …）") are not the page's byline.
            text = text[: win.marks["body"]]
        # Below the article only "label: value" counts ("作者最新文章" is a link list heading).
        strict = region == "foot"
        if source is None:
            source = _labelled(_SOURCE_RE, text, strict)
            if source is None:
                m = _EN_SOURCE_RE.search(text)
                source = _clean(m.group("v")) if m else None
        if author is None:
            author = _labelled(_AUTHOR_RE, text, strict)
            if author is None and not strict:
                m = _BY_RE.search(text)
                if m:
                    author = _clean(_trim_name(m.group("v")), 80)
        if author and source:
            break
    return author, source


def _trim_name(value: str) -> str:
    words = value.split()
    # "Jane O'Brien BBC News": after a name in ordinary case, an all-capitals word is the outlet.
    for i, word in enumerate(words[1:], 1):
        if word.isupper() and len(word) > 1 and any(
                not w.isupper() for w in words[:i] if w.lower() not in _NAME_JOINERS):
            words = words[:i]
            break
    while words and words[-1] in _LAST_NAME_JOINERS:
        words.pop()
    return " ".join(words)


def _after_date_name(page: Page, headline_node, body_node) -> str | None:
    """An unlabelled name following the first date of the meta line under the headline."""
    for win, region, _anchor in meta_windows(page, headline_node, body_node):
        if region != "head":
            continue
        text = win.text[: win.marks["body"]] if "body" in win.marks else win.text
        found = find_times(text, page.fetched_at)
        if found:
            m = _AFTER_DATE_NAME.match(text, found[0].end)
            if m:
                return _clean(m.group("v"), 15)
        return None
    return None


def _from_markup(page: Page, headline_node, body_node) -> str | None:
    """A byline element (class/id/rel/itemprop author or byline) on the meta line under the headline;
    the windows record them, so comment authors further down never come into it."""
    for win, region, _anchor in meta_windows(page, headline_node, body_node):
        if region != "head":
            continue
        for _offset, el in win.bylines[:10]:
            text = normalize_space(el.text_content())
            if not text or len(text) > 80:
                continue
            m = _BY_RE.search(" " + text)
            value = m.group("v") if m else _labelled(_AUTHOR_RE, text)
            if value is None:
                # "<a>扬眼</a><span>企鹅号</span>", "中国广州发布 关注": the name is the first piece.
                first = next((t for t in el.itertext() if t.strip()), "")
                value = first.split()[0] if _CJK.search(first) else first
            value = _clean(_trim_name(value), 30)
            if value and not re.search(r"\d", value) and len(value.split()) <= 4:
                return value
    return None


def _from_meta(page: Page) -> tuple[str | None, str | None]:
    author = source = None
    for item in page.jsonld:
        a = item.get("author")
        if isinstance(a, list) and a:
            a = a[0]
        if isinstance(a, dict):
            a = a.get("name")
        if author is None and isinstance(a, str):
            author = _clean(a, 80)
        pub = item.get("publisher")
        if isinstance(pub, dict):
            pub = pub.get("name")
        if source is None and isinstance(pub, str):
            source = _clean(pub)
    if author is None:
        for key in ("author", "article:author", "dc.creator", "byl", "sailthru.author", "parsely-author"):
            author = _clean(page.meta.get(key), 80)
            if author:
                break
    if source is None:
        for key in ("source", "article:source", "og:source", "mediaid"):
            source = _clean(_strip_label(page.meta.get(key)))
            if source:
                break
    return author, source


def _strip_label(value: str | None) -> str | None:
    if not value:
        return value
    m = _SOURCE_RE.search(value)
    return m.group("v") if m else value


def extract_byline(page: Page, headline_node: etree._Element | None = None,
                   body_node: etree._Element | None = None) -> tuple[str | None, str | None]:
    """Return (author, source)."""
    author, source = _from_windows(page, headline_node, body_node)
    if author is None:
        author = _from_markup(page, headline_node, body_node)
    if source is None:
        source = _after_date_name(page, headline_node, body_node)
    if author is None or source is None:
        meta_author, meta_source = _from_meta(page)
        site = _site_names(page)
        # A meta "author" naming the site itself (网易, CSDN.NET) is the publisher, not the writer.
        if author is None and meta_author and not any(
                meta_author.lower() in name or name in meta_author.lower() for name in site):
            author = meta_author
        source = source or meta_source
    return author, source
