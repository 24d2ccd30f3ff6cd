"""Repeat collapse: fold the records a template's `for` loop printed (list items, paragraphs, comment
rows) into one record marked repeatable, so pages with 3 or 30 items share one sequence.

The thesis's rules — a repeat may not span two subtrees, the repeats of one group share a parent,
repeats do not overlap, and they are as long as possible — mean a repeat is always a run of whole
sibling subtrees. So instead of a suffix tree over the flat tag sequence we give every subtree a
signature (its tag plus its children's signatures, computed bottom-up after the children's own
repeats are folded) and look for tandem runs in each parent's string of child signatures. That
is the same search restricted to the candidates the rules allow, in O(n * MAX_UNIT) time; nested
repeats are folded innermost first, so an outer record compares already-collapsed insides.
Hand-written deliberately: no library offers tandem repeats over tree siblings.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .tagseq import TagSequence, subtree_ends

# Longest record, in sibling subtrees, that we look for (e.g. dt+dd is 2, h3+p+div is 3).
MAX_UNIT = 6


@dataclass
class CollapsedSequence(TagSequence):
    repeats: list[int] = field(default_factory=list)  # >1: this token heads a record printed that many times
    source: list[int] = field(default_factory=list)  # index of the token in the uncollapsed sequence
    signatures: list[int] = field(default_factory=list)  # subtree signature of each token

    def head(self, n: int) -> "CollapsedSequence":
        """The first n tokens (a prefix in pre-order is still a tree: parents come first)."""
        if n >= len(self.codes):
            return self
        return CollapsedSequence(codes=self.codes[:n], keys=self.keys[:n], depths=self.depths[:n],
                                 parents=self.parents[:n], ends=[min(e, n) for e in self.ends[:n]],
                                 elements=self.elements[:n], repeats=self.repeats[:n], source=self.source[:n],
                                 signatures=self.signatures[:n])


def tandem_runs(items: list[int], max_unit: int = MAX_UNIT) -> list[tuple[int, int, int]]:
    """Non-overlapping maximal tandem runs in `items`: (start, unit length, repetitions >= 2).

    Scans left to right; at each position takes the unit whose run covers the most items (the
    shortest such unit on ties), so runs are as long as possible and never overlap.
    """
    runs: list[tuple[int, int, int]] = []
    n = len(items)
    i = 0
    while i < n - 1:
        best_cover, best_unit, best_reps = 0, 0, 0
        for unit in range(1, min(max_unit, (n - i) // 2) + 1):
            head = items[i:i + unit]
            reps = 1
            while items[i + reps * unit:i + (reps + 1) * unit] == head:
                reps += 1
            if reps >= 2 and reps * unit > best_cover:
                best_cover, best_unit, best_reps = reps * unit, unit, reps
        if best_reps:
            runs.append((i, best_unit, best_reps))
            i += best_cover
        else:
            i += 1
    return runs


def collapse(seq: TagSequence, max_unit: int = MAX_UNIT) -> CollapsedSequence:
    """Fold repeated sibling records; the result keeps the first record of each run, marked."""
    n = len(seq)
    out = CollapsedSequence()
    if n == 0:
        return out
    kids = seq.children()
    sig = [0] * n
    kept: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # per token: (child, repeats)
    for i in range(n - 1, -1, -1):  # reverse pre-order: children are done before their parent
        children = kids[i]
        if children:
            child_sigs = [sig[c] for c in children]
            pos = 0
            for start, unit, reps in tandem_runs(child_sigs, max_unit):
                kept[i].extend((children[j], 1) for j in range(pos, start))
                kept[i].extend((children[j], reps) for j in range(start, start + unit))
                pos = start + unit * reps
            kept[i].extend((children[j], 1) for j in range(pos, len(children)))
            sig[i] = hash((seq.codes[i], tuple(sig[c] for c, _ in kept[i])))
        else:
            sig[i] = hash((seq.codes[i],))
    roots = [i for i in range(n) if seq.parents[i] < 0]
    stack: list[tuple[int, int, int]] = [(r, -1, 1) for r in reversed(roots)]
    while stack:
        i, new_parent, reps = stack.pop()
        me = len(out.codes)
        out.codes.append(seq.codes[i])
        out.keys.append(seq.keys[i])
        out.depths.append(seq.depths[i])
        out.parents.append(new_parent)
        out.elements.append(seq.elements[i] if seq.elements else None)
        out.repeats.append(reps)
        out.source.append(i)
        out.signatures.append(sig[i])
        for child, child_reps in reversed(kept[i]):
            stack.append((child, me, child_reps))
    out.ends = subtree_ends(out.parents)
    return out
