"""Extraction with a template: align a page to the template's required nodes and read the slots.

The match score is the depth-weighted share of the template's required nodes found, in order, on
the page (1.0: every required node aligned). Below the template's threshold the page is not from
this template (or the site changed) and the caller falls back to the template-free path.
"""
from __future__ import annotations

from dataclasses import dataclass

from lxml import etree

from ..dom import Page, text_of
from .induce import aligned_pairs
from .model import Template
from .repeats import CollapsedSequence, collapse
from .similarity import depth_weights
from .tagseq import tag_sequence


@dataclass
class Match:
    template: Template
    score: float
    positions: list[int]  # page token index of each required node, -1 where not aligned
    seq: CollapsedSequence

    def element(self, node: int) -> etree._Element | None:
        pos = self.positions[node] if 0 <= node < len(self.positions) else -1
        return self.seq.elements[pos] if pos >= 0 else None


def page_sequence(page: Page) -> CollapsedSequence:
    return collapse(tag_sequence(page.body))


def align(template: Template, seq: CollapsedSequence) -> Match:
    positions = [-1] * len(template.keys)
    if not template.keys:
        return Match(template, 0.0, positions, seq)
    for r, j in aligned_pairs(template.codes, seq.codes):
        positions[r] = j
    weights = depth_weights(template.depths)
    total = float(weights.sum())
    found = float(sum(w for w, p in zip(weights.tolist(), positions) if p >= 0))
    return Match(template, found / total if total else 0.0, positions, seq)


def slot_text(match: Match, field: str) -> tuple[str, etree._Element | None]:
    """The text of a labelled slot on the matched page, template text lines removed."""
    slot = match.template.slots.get(field)
    if slot is None:
        return "", None
    el = match.element(slot.node)
    if el is None:
        return "", None
    text = text_of(el)
    if slot.drop_lines:
        drop = set(slot.drop_lines)
        text = "\n".join(line for line in text.split("\n") if line not in drop)
    return text, el
