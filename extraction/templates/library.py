"""TemplateLibrary: the mined templates of one or more sites, found by URL trie or by structure.

`find(page)` picks a template for a parsed page: by its URL (deepest unambiguous prefix in the
trie) or, for a page without a URL, by structure (templates whose required nodes mostly occur on
the page, best match score first). `extract(page)` reads the labelled slots and returns an
ExtractionResult with method "template", or None when no template matches well enough — the
caller then falls back to the template-free path. JSON files hold {"version": 1, "templates": [...]}.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from .. import bylines, dates, titles
from ..dom import Page, normalize_space
from ..result import ExtractionResult
from .match import Match, align, body_text, page_sequence, skeleton, skeleton_depth, slot_text
from .model import Template
from .tagseq import TagSequence
from .urltrie import UrlTrie, url_segments

FORMAT_VERSION = 1
STRUCTURE_CANDIDATES = 3  # templates aligned when a page is matched by structure alone
MIN_CONTAINMENT = 0.5  # share of a template's distinct tokens the page must have to be aligned at all
# A body slot shorter than this share of its shortest training text means fall back (a video or
# gallery page whose slot holds a line). Low because clusters are mined from a few pages, so their
# shortest text says little about how short a real article of the template can be.
ATYPICAL_SHARE = 0.2


class TemplateLibraryError(ValueError):
    pass


class TemplateLibrary:
    def __init__(self, templates: Iterable[Template] = ()) -> None:
        self.templates: dict[str, Template] = {}
        self.trie = UrlTrie()
        for t in templates:
            self.add(t)

    def __len__(self) -> int:
        return len(self.templates)

    def __iter__(self):
        return iter(self.templates.values())

    def add(self, template: Template) -> None:
        if template.id in self.templates:
            raise TemplateLibraryError(f"duplicate template id {template.id!r}")
        self.templates[template.id] = template
        for prefix, pages in template.url_prefixes.items():
            self.trie.add_prefix([s for s in prefix.split("/") if s], template.id, pages)

    # -- lookup and extraction -------------------------------------------------------------
    def find(self, page: Page, seq: TagSequence | None = None) -> Match | None:
        """The best-matching template for the page (any score), or None when none applies."""
        if not self.templates:
            return None
        candidates: list[Template]
        if page.url and url_segments(page.url):
            ids, _ = self.trie.lookup(page.url)
            candidates = [self.templates[i] for i in ids[:STRUCTURE_CANDIDATES]]
            if not candidates:
                return None
            if seq is None:
                seq = page_sequence(page, max(skeleton_depth(t) for t in candidates))
        else:
            if seq is None:
                seq = page_sequence(page, max(skeleton_depth(t) for t in self.templates.values()))
            codes = set(seq.codes)
            scored = []
            for t in self.templates.values():
                wanted = set(skeleton(t)[1])
                if wanted:
                    share = len(wanted & codes) / len(wanted)
                    if share >= MIN_CONTAINMENT:
                        scored.append((share, t.id))
            scored.sort(reverse=True)
            candidates = [self.templates[i] for _, i in scored[:STRUCTURE_CANDIDATES]]
        best: Match | None = None
        for t in candidates:
            m = align(t, seq)
            if best is None or m.score > best.score:
                best = m
            if m.score >= t.threshold:
                break
        return best

    def extract(self, page: Page) -> ExtractionResult | None:
        """The article read with the page's template, or None (no template, or score too low)."""
        match = self.find(page)
        if match is None or match.score < match.template.threshold or "body" not in match.template.slots:
            return None
        result = read_article(page, match)
        typical = match.template.slots["body"].typical_chars
        if typical and len(result.articleBody) < ATYPICAL_SHARE * typical:
            return None  # the slot is nearly empty here (a video or gallery page): not this template's article
        return result

    # -- persistence -----------------------------------------------------------------------
    def to_dict(self) -> dict:
        return {"version": FORMAT_VERSION, "templates": [t.to_dict() for t in self.templates.values()]}

    @classmethod
    def from_dict(cls, data: dict) -> "TemplateLibrary":
        if not isinstance(data, dict) or not isinstance(data.get("templates"), list):
            raise TemplateLibraryError("not a template library: expected an object with a 'templates' list")
        if data.get("version", FORMAT_VERSION) != FORMAT_VERSION:
            raise TemplateLibraryError(f"unsupported template library version {data.get('version')!r}")
        try:
            return cls(Template.from_dict(t) for t in data["templates"])
        except (TypeError, ValueError) as exc:
            raise TemplateLibraryError(f"bad template: {exc}") from exc

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> "TemplateLibrary":
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise TemplateLibraryError(f"cannot read template library {path}: {exc}") from exc
        except ValueError as exc:
            raise TemplateLibraryError(f"template library {path} is not JSON: {exc}") from exc
        return cls.from_dict(data)


def read_article(page: Page, match: Match) -> ExtractionResult:
    """Read body and headline from the template's slots; date and byline come from the date and
    byline extractors, given the headline and body slots' nodes as anchors (the labelled date slot
    is shown to people but not parsed here: date parsing belongs to extraction.dates)."""
    body, body_el = slot_text(match, "body")
    headline, headline_el = slot_text(match, "headline")
    headline = normalize_space(headline.replace("\n", " ")) if headline else None
    if not headline:
        headline, headline_el = titles.extract_headline(page, body_el)
        body = body_text(match, headline_el)
    published = dates.extract_published(page, headline_el, body_el)
    author, source = bylines.extract_byline(page, headline_el, body_el)
    return ExtractionResult(url=page.url, page_type="article", headline=headline, datePublished=published,
                            author=author, source=source, articleBody=body, lang=page.lang, method="template")
