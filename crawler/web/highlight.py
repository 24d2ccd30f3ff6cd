"""Snippets with search-term highlights, made safe to put into a page.

The index returns snippets as text with `<em>…</em>` around matches. Whether the rest of the text
was HTML-escaped depends on the highlighter's encoder, so every piece between the tags is first
unescaped and then escaped again: the result is the same either way, and nothing from a crawled
page can become markup; only our own <em> tags survive.
"""
from __future__ import annotations

import html
import re

from markupsafe import Markup, escape

_TAG = re.compile(r"(</?em>)", re.IGNORECASE)


def safe_highlight(snippet: str | None) -> Markup:
    if not snippet:
        return Markup("")
    out: list[str] = []
    depth = 0
    for piece in _TAG.split(snippet):
        low = piece.lower()
        if low == "<em>":
            if depth == 0:
                out.append("<em>")
            depth += 1
        elif low == "</em>":
            if depth == 1:
                out.append("</em>")
            depth = max(0, depth - 1)
        elif piece:
            out.append(str(escape(html.unescape(piece))))
    if depth:
        out.append("</em>")
    return Markup("".join(out))
