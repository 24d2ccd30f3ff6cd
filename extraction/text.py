"""Text measures used by the body extractor: stopwords, valid characters, CJK detection.

CEVC calls a text leaf's characters *valid* when the leaf is not link text and contains at least
one stopword: running prose is full of function words, menus and labels are not. Stopwords come
from the maintained `stopwordsiso` lists (English and Chinese), never from a hand-typed list.

Chinese has no spaces, so "contains a stopword" needs word boundaries: `jieba` gives them where a
caller needs words (`words()`). The hot path (`is_valid_text`, run on every text leaf of every
page) deliberately does not segment: a leaf qualifies when it contains one of the single-character
stopwords (的, 了, 在, 是, 。, ...), or a multi-character stopword as a substring. Over whole
sentences this agrees with segment-then-look-up, and it costs a set lookup per character instead
of a jieba call. Measured on the dev benchmark: segmenting the short leaves with jieba (where
labels such as 财经 would differ) gave the same scores and cost a quarter of the speed, plus
about a second of dictionary loading per process.
"""
from __future__ import annotations

import re
from functools import lru_cache

import stopwordsiso

_CJK_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_CHAR = re.compile(f"[{_CJK_RANGES}]")
_LATIN_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?", re.UNICODE)
_SPACE = re.compile(r"\s+")
_ADDRESS = re.compile(r"(?:https?://|www\.)\S+|\S+@\S+\.\w+|\b[\w.-]+\.(?:com|net|org|gov|edu|cn|co)(?:\.\w+)?(?:/\S*)?", re.I)


@lru_cache(maxsize=None)
def stopwords(lang: str) -> frozenset[str]:
    """The stopword set for an ISO 639-1 code from stopwordsiso ("en", "zh", ...)."""
    return frozenset(w.lower() for w in stopwordsiso.stopwords(lang))


# Used when the page does not say its language: the languages most often met besides English.
FALLBACK_LANGS = ("en", "de", "fr", "es", "pt", "it", "nl", "id", "ru", "pl", "tr", "sv")


@lru_cache(maxsize=1)
def _zh_tables() -> tuple[frozenset[str], re.Pattern[str] | None]:
    words = stopwords("zh")
    singles = frozenset(w for w in words if len(w) == 1)
    # Multi-character stopwords not already caught by one of their own characters.
    multi = sorted((w for w in words if len(w) > 1 and not (set(w) & singles)), key=len, reverse=True)
    return singles, (re.compile("|".join(map(re.escape, multi))) if multi else None)


def page_language(lang: str | None) -> str | None:
    """ISO 639-1 code from an html lang / og:locale value ("en-US", "pt_BR" -> "en", "pt")."""
    if not lang:
        return None
    code = re.split(r"[-_]", lang.strip().lower(), maxsplit=1)[0]
    return code if len(code) == 2 and code.isalpha() else None


@lru_cache(maxsize=64)
def word_stopwords(lang: str | None) -> frozenset[str]:
    """Space-separated-language stopwords to test a page's words against: its language's list plus
    English (menus and bylines are often English on any site), or several languages when unknown."""
    langs = ("en", lang) if lang and lang not in ("zh", "ja") else FALLBACK_LANGS
    out: set[str] = set()
    for code in langs:
        try:
            out |= stopwords(code)
        except (KeyError, ValueError):
            continue
    return frozenset(out)


@lru_cache(maxsize=1)
def _ja_tables() -> tuple[frozenset[str], re.Pattern[str] | None]:
    words = stopwords("ja")
    singles = frozenset(w for w in words if len(w) == 1)
    multi = sorted((w for w in words if len(w) > 1), key=len, reverse=True)
    return singles, (re.compile("|".join(map(re.escape, multi))) if multi else None)


_KANA = re.compile("[\u3040-\u30ff]")


def has_cjk(text: str) -> bool:
    return CJK_CHAR.search(text) is not None


def cjk_ratio(text: str) -> float:
    """Share of non-space characters that are CJK ideographs."""
    compact = _SPACE.sub("", text)
    if not compact:
        return 0.0
    return len(CJK_CHAR.findall(compact)) / len(compact)


def has_stopword(text: str, lang: str | None = None) -> bool:
    """True when the text contains at least one stopword (of the page's language, English, Chinese)."""
    ws = word_stopwords(lang)
    if "/" in text or "@" in text or "www." in text:
        # Addresses are not prose, and the stopword lists hold "com", "www", country codes.
        text = _ADDRESS.sub(" ", text)
    for match in _LATIN_WORD.finditer(text):  # lazily: prose usually has a stopword in its first words
        if match.group().lower() in ws:
            return True
    if CJK_CHAR.search(text) is None and _KANA.search(text) is None:
        return False
    for singles, multi in (_zh_tables(), _ja_tables()) if lang == "ja" else (_zh_tables(),):
        if not singles.isdisjoint(text):
            return True
        if multi is not None and multi.search(text):
            return True
    return False


def char_count(text: str) -> int:
    """Characters that carry content: everything but white space."""
    return sum(map(len, text.split()))


def valid_char_count(text: str | None, lang: str | None = None) -> int:
    """CEVC valid characters of one (non-link) text leaf: its characters if it has a stopword, else 0."""
    if not text:
        return 0
    n = char_count(text)
    if n == 0:
        return 0
    return n if has_stopword(text, lang) else 0


def words(text: str) -> list[str]:
    """Words of a text: jieba segmentation for Chinese runs, letter runs for the rest."""
    if not has_cjk(text):
        return [w.lower() for w in _LATIN_WORD.findall(text)]
    import jieba  # imported on first use: loading its dictionary takes about a second

    jieba.setLogLevel(60)
    return [w.lower() for w in jieba.lcut(text) if w.strip()]


def stopword_count(text: str) -> int:
    """How many words of the text are stopwords (segmented with `words`)."""
    en, zh = stopwords("en"), stopwords("zh")
    return sum(1 for w in words(text) if w in en or w in zh)
