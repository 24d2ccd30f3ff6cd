"""Bytes to text: pick the page's charset from the BOM, the HTTP header, the <meta> tag, then detection.

Declarations lie often enough on Chinese sites (pages that say gb2312 but are UTF-8, GBK pages
that say gb2312 and use characters outside it) that every declared charset is checked by a strict
decode before it is trusted.
"""
from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

from charset_normalizer import from_bytes

# Legacy Chinese charsets are decoded with their supersets: a page labelled gb2312 routinely
# contains GBK/GB18030 characters, and big5 pages HKSCS ones.
_SUPERSETS = {
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "gb_2312-80": "gb18030",
    "cp936": "gb18030",
    "euc-cn": "gb18030",
    "big5": "big5hkscs",
    "big5-hkscs": "big5hkscs",
    "cp950": "big5hkscs",
    "x-euc-tw": "big5hkscs",
    "iso-8859-1": "cp1252",  # browsers treat latin-1 labels as windows-1252
    "latin1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
}

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.I)
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([a-zA-Z0-9_\-:.]+)""", re.I)
_XML_DECL = re.compile(rb"""<\?xml[^>]+encoding\s*=\s*["']([a-zA-Z0-9_\-:.]+)""", re.I)

# How far into the document a <meta charset> is looked for (HTML5 says 1024 bytes; real pages
# put it later, after long comments or scripts).
META_SCAN_BYTES = 16384


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str
    how: str  # "bom", "header", "meta", "utf-8", "lenient" (a few bad bytes replaced), "detected" or "fallback"


def normalize_charset(name: str | None) -> str | None:
    """Map a charset label to a Python codec name, widening legacy labels to their supersets."""
    if not name:
        return None
    label = name.strip().strip("\"'").lower()
    label = _SUPERSETS.get(label, label)
    try:
        return codecs.lookup(label).name
    except LookupError:
        return None


def charset_from_content_type(content_type: str | None) -> str | None:
    if not content_type:
        return None
    m = _HEADER_CHARSET.search(content_type)
    return normalize_charset(m.group(1)) if m else None


def charset_from_markup(data: bytes) -> str | None:
    head = data[:META_SCAN_BYTES]
    m = _XML_DECL.search(head) or _META_CHARSET.search(head)
    return normalize_charset(m.group(1).decode("ascii", "ignore")) if m else None


def _strict(data: bytes, encoding: str) -> str | None:
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None


# Han characters looked at to tell GBK from Big5: plenty to decide, cheap enough for every page.
HAN_SAMPLE = 400
_CHINESE_CODECS = frozenset({"gb18030", "gbk", "gb2312", "big5hkscs", "big5", "cp950", "cp936"})
_HAN = re.compile("[\u4e00-\u9fff]")


def _common_han_share(text: str) -> float:
    """Share of Han characters that are everyday characters: GB2312 level 1 (the 3755 most used
    simplified characters, bytes B0A1-D7FE) or Big5 "frequently used" (A440-C67E). Decoding with
    the wrong Chinese charset yields valid but rare characters, so this tells GBK from Big5 on
    short undeclared pages where statistical detection guesses."""
    han = _HAN.findall(text)[:HAN_SAMPLE]
    if not han:
        return 0.0
    common = 0
    for ch in han:
        try:
            if b"\xb0\xa1" <= ch.encode("gb2312") <= b"\xd7\xfe":
                common += 1
                continue
        except UnicodeEncodeError:
            pass
        try:
            if b"\xa4\x40" <= ch.encode("big5") <= b"\xc6\x7e":
                common += 1
        except UnicodeEncodeError:
            pass
    return common / len(han)


def _likelier_chinese(data: bytes) -> str | None:
    """gb18030 or big5hkscs, whichever decodes the page strictly into more everyday characters."""
    sample = data[:20_000]
    scored = []
    for enc in ("gb18030", "big5hkscs"):
        text = sample.decode(enc, errors="ignore") if len(data) > len(sample) else _strict(data, enc)
        if text is not None:
            scored.append((_common_han_share(text), enc == "gb18030", enc))
    return max(scored)[2] if scored else None


def decode_html(data: bytes | str, content_type: str | None = None) -> Decoded:
    """Decode page bytes to text. Never raises on bad bytes: the last resort replaces them."""
    if isinstance(data, str):
        return Decoded(data, "unicode", "given")
    for bom, enc in _BOMS:
        if data.startswith(bom):
            text = _strict(data, enc)
            if text is not None:
                return Decoded(text, enc, "bom")
    declared = [(charset_from_content_type(content_type), "header"), (charset_from_markup(data), "meta")]
    # Bytes that are valid UTF-8 and not plain ASCII are UTF-8 whatever the label says: multi-byte
    # UTF-8 sequences practically never occur by accident in GBK, Big5 or Latin text, while
    # "gb2312" labels on UTF-8 pages (templates copied from old sites) are common.
    if not data.isascii():
        utf8 = _strict(data, "utf-8")
        if utf8 is not None:
            return Decoded(utf8, "utf-8", "utf-8")
    for enc, how in declared:
        # A utf-16/32 label without a BOM is a copy-paste error (the HTML standard reads it as UTF-8).
        if enc and not enc.startswith(("utf-16", "utf-32")):
            text = _strict(data, enc)
            if text is not None:
                if enc in _CHINESE_CODECS:
                    # GBK bytes are mostly valid Big5 and back: a strict decode proves little here.
                    other = "big5hkscs" if enc.startswith("gb") else "gb18030"
                    other_text = _strict(data, other)
                    if other_text is not None and _common_han_share(other_text) > _common_han_share(text) + 0.3:
                        return Decoded(other_text, other, "detected")
                return Decoded(text, enc, how)
    if data.isascii():
        return Decoded(data.decode("ascii"), "ascii", "utf-8")
    # A few bad bytes (a page cut off mid-character, one corrupt byte in an old GBK portal) do not
    # make the declared charset, or UTF-8, wrong; a statistical guess on such a page often is.
    for enc in [e for e, _ in declared if e and not e.startswith(("utf-16", "utf-32"))] + ["utf-8"]:
        text = data.decode(enc, errors="replace")
        if text.count("\ufffd") <= max(2, len(text) // 1000):
            return Decoded(text, enc, "lenient")
    best = from_bytes(data[:200_000]).best()
    if best is not None and best.encoding:
        enc = normalize_charset(best.encoding) or best.encoding
        if enc in _CHINESE_CODECS:
            enc = _likelier_chinese(data) or enc
        text = _strict(data, enc)
        if text is not None:
            return Decoded(text, enc, "detected")
    # The declared charset with a few bad bytes beats a wrong guess.
    enc = next((e for e, _ in declared if e), None) or (best.encoding if best is not None else "utf-8")
    return Decoded(data.decode(enc, errors="replace"), enc, "fallback")
