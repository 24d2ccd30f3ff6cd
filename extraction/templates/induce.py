"""Template induction: one template per cluster of structurally similar pages.

Star alignment from the cluster centre (the medoid by structural similarity): every other page is
aligned to the centre's collapsed sequence; centre tokens aligned on (nearly) every page are the
required nodes EN, and the page tokens left between two consecutive required nodes form the
optional node ON of that gap, kept as alternatives with their page frequencies. When a gap holds
several different alternatives they are clustered and templated in turn (the thesis's
self-similar step), one level deep.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from typing import Sequence

from rapidfuzz.distance import LCSseq

from .model import Template
from .repeats import CollapsedSequence
from .similarity import Features, similarity

MIN_SUPPORT = 0.8  # a centre node is required when aligned on at least this share of the other pages
MEDOID_SAMPLE = 12  # the centre is chosen among (and against) at most this many pages
MAX_ALTERNATIVES = 5
MAX_ALTERNATIVE_KEYS = 40


class InductionError(ValueError):
    pass


def aligned_pairs(a: Sequence[int], b: Sequence[int]) -> list[tuple[int, int]]:
    """Positions (i in a, j in b) of one longest common subsequence of two code lists.

    rapidfuzz's bit-parallel LCS (C++) gives the alignment in O(len(a)*len(b)/64) word operations;
    it ignores the depth weights, which here only rank whole pages, not single alignments (the
    codes already include depth, so aligned tokens always sit at the same depth).
    """
    pairs: list[tuple[int, int]] = []
    if not a or not b:
        return pairs
    for op in LCSseq.opcodes(a, b):
        if op.tag == "equal":
            pairs.extend(zip(range(op.src_start, op.src_end), range(op.dest_start, op.dest_end)))
    return pairs


def medoid(feats: Sequence[Features]) -> int:
    n = len(feats)
    sample = list(range(n)) if n <= MEDOID_SAMPLE else [round(i * (n - 1) / (MEDOID_SAMPLE - 1)) for i in range(MEDOID_SAMPLE)]
    if len(sample) <= 2:
        return sample[0]
    totals = {i: 0.0 for i in sample}
    for x, i in enumerate(sample):
        for j in sample[x + 1:]:
            s = similarity(feats[i], feats[j])
            totals[i] += s
            totals[j] += s
    return max(sample, key=lambda i: totals[i])


def _group_alternatives(alternatives: list[tuple[tuple[str, ...], int]]) -> list[dict]:
    """Cluster a gap's alternatives by key-sequence LCS and keep each group's common subsequence."""
    groups: list[dict] = []
    for keys, count in alternatives:
        for g in groups:
            rep = g["_rep"]
            if LCSseq.normalized_similarity(rep, keys) >= 0.5:
                common = [rep[i] for i, _ in aligned_pairs(rep, keys)]
                g["_rep"], g["count"] = tuple(common), g["count"] + count
                break
        else:
            groups.append({"_rep": keys, "count": count})
    return [{"count": g["count"], "required": list(g["_rep"][:MAX_ALTERNATIVE_KEYS])} for g in groups]


def induce_template(seqs: Sequence[CollapsedSequence], feats: Sequence[Features], template_id: str,
                    site: str = "", min_support: float = MIN_SUPPORT) -> Template:
    """Build the template of one cluster. Raises InductionError on an empty cluster."""
    if not seqs:
        raise InductionError("empty cluster: no pages to induce a template from")
    if len(seqs) != len(feats):
        raise InductionError("pages and features differ in number")
    centre_at = medoid(feats) if len(seqs) > 1 else 0
    centre = seqs[centre_at]
    others = [s for i, s in enumerate(seqs) if i != centre_at]
    alignments = [aligned_pairs(centre.codes, s.codes) for s in others]
    support = Counter(i for pairs in alignments for i, _ in pairs)
    need = min_support * len(others)
    required = [i for i in range(len(centre.codes)) if support[i] >= need]
    req_index = {c: r for r, c in enumerate(required)}
    parents = []
    for c in required:
        p = centre.parents[c]
        while p >= 0 and p not in req_index:
            p = centre.parents[p]
        parents.append(req_index.get(p, -1))
    repeat_votes = Counter()
    # Gaps: page tokens not aligned to a required node, placed after the last required node before them.
    gap_contents: dict[int, Counter] = {}
    for seq, pairs in zip([centre] + others, [[(c, c) for c in range(len(centre.codes))]] + alignments):
        anchor_pos, anchor_req = [], []
        for c, j in pairs:
            r = req_index.get(c)
            if r is not None:
                anchor_pos.append(j)
                anchor_req.append(r)
                if seq.repeats[j] > 1:
                    repeat_votes[r] += 1
        anchored = set(anchor_pos)
        per_gap: dict[int, list[str]] = {}
        for j in range(len(seq.codes)):
            if j in anchored:
                continue
            k = bisect_left(anchor_pos, j)
            gap = anchor_req[k - 1] + 1 if k > 0 else 0
            per_gap.setdefault(gap, []).append(f"{seq.keys[j]}@{seq.depths[j]}")
        for gap, keys in per_gap.items():
            gap_contents.setdefault(gap, Counter())[tuple(keys)] += 1
    optional = []
    for gap in sorted(gap_contents):
        alts = gap_contents[gap].most_common()
        entry = {"gap": gap, "pages": round(sum(c for _, c in alts) / len(seqs), 3),
                 "alternatives": [{"keys": list(k[:MAX_ALTERNATIVE_KEYS]), "length": len(k), "count": c}
                                  for k, c in alts[:MAX_ALTERNATIVES]]}
        if len(alts) >= 3:
            entry["groups"] = _group_alternatives(alts[:50])
        optional.append(entry)
    half = len(seqs) / 2
    return Template(id=template_id, site=site, keys=[centre.keys[c] for c in required],
                    depths=[centre.depths[c] for c in required], parents=parents,
                    repeatable=[repeat_votes[r] >= half for r in range(len(required))],
                    optional=optional, pages=len(seqs))
