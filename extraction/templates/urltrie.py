"""URL trie: which template made the pages under a URL prefix.

A URL becomes the segments host, path1, path2, ... (host lower-cased, "www." dropped; the last
path segment, the page's own name, and everything from the first segment holding a digit are left
out, so the prefix is the page's section). Each trie
node counts the training pages of each template below it. Lookup walks the page's segments and
keeps the deepest node that is unambiguous (one template holds at least `DOMINANCE` of its pages).
"""
from __future__ import annotations

from urllib.parse import urlsplit

DOMINANCE = 0.9


def url_segments(url: str) -> list[str]:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return []
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    if not host:
        return []
    path = [s for s in parts.path.split("/") if s][:-1]
    # Section prefixes stop at the first segment with a number: /2012/07/23/ or /194717/ name one
    # page or one day, not a part of the site that has its own template.
    for i, seg in enumerate(path):
        if any(ch.isdigit() for ch in seg):
            path = path[:i]
            break
    return [host] + path


class UrlTrie:
    def __init__(self) -> None:
        self._root: dict = {"n": {}, "c": {}}  # n: template id -> pages, c: segment -> child

    def add(self, url: str, template_id: str, pages: int = 1) -> None:
        self.add_prefix(url_segments(url), template_id, pages)

    def add_prefix(self, segments: list[str], template_id: str, pages: int = 1) -> None:
        node = self._root
        for seg in segments:
            node = node["c"].setdefault(seg, {"n": {}, "c": {}})
            node["n"][template_id] = node["n"].get(template_id, 0) + pages

    def lookup(self, url: str) -> tuple[list[str], bool]:
        """(candidate template ids, unambiguous?): the template of the deepest unambiguous node,
        else the templates of the deepest node reached (most pages first); none for an unknown host."""
        node = self._root
        best: list[str] | None = None
        reached: list[str] = []
        for seg in url_segments(url):
            node = node["c"].get(seg)
            if node is None:
                break
            counts = node["n"]
            total = sum(counts.values())
            ranked = sorted(counts, key=lambda t: -counts[t])
            reached = ranked
            if ranked and counts[ranked[0]] >= DOMINANCE * total:
                best = [ranked[0]]
        if best is not None:
            return best, True
        return reached, False

    def prefixes(self) -> dict[str, dict[str, int]]:
        """Every prefix with its per-template page counts (for display and storage)."""
        out: dict[str, dict[str, int]] = {}
        stack = [("", self._root)]
        while stack:
            prefix, node = stack.pop()
            if prefix:
                out[prefix] = dict(node["n"])
            for seg, child in node["c"].items():
                stack.append((f"{prefix}/{seg}" if prefix else seg, child))
        return out
