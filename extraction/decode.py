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
    how: str  # "bom", "header", "meta", "utf-8", "detected" or "fallback"


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
    for enc, how in declared:
        if enc:
            text = _strict(data, enc)
            if text is not None:
                # A page declared as single-byte but valid UTF-8 with non-ASCII bytes is UTF-8:
                # cp1252 decodes anything, so its success proves nothing.
                if enc == "cp1252" and not data.isascii():
                    utf8 = _strict(data, "utf-8")
                    if utf8 is not None:
                        return Decoded(utf8, "utf-8", "utf-8")
                return Decoded(text, enc, how)
    # Declared charset missing or wrong: UTF-8 is by far the most common truth, and a strict
    # UTF-8 decode of non-UTF-8 bytes with many high bytes practically never succeeds.
    text = _strict(data, "utf-8")
    if text is not None:
        return Decoded(text, "utf-8", "utf-8")
    best = from_bytes(data[:200_000]).best()
    if best is not None and best.encoding:
        enc = normalize_charset(best.encoding) or best.encoding
        text = _strict(data, enc)
        if text is not None:
            return Decoded(text, enc, "detected")
    # The declared charset with a few bad bytes beats a wrong guess.
    enc = next((e for e, _ in declared if e), None) or (best.encoding if best is not None else "utf-8")
    return Decoded(data.decode(enc, errors="replace"), enc, "fallback")
