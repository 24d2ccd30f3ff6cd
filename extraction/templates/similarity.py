"""Structural similarity of two pages.

Exact measure (the thesis's): Sim = elcs(S1, S2) / max(sum f(depth) over S1, sum f(depth) over S2),
where elcs is the longest common subsequence of the (tag, depth) tokens with each matched token
weighted by f(depth) = 1 / (1 + depth): nodes near the root (page frame, main columns) weigh more
than deep leaves (one paragraph's markup). Computed row by row with two rows (O(len) memory).

Cheap first stage (Buttler's survey, the thesis appendix): each page's set of path shingles
(the keys of a token and its two nearest ancestors) is summarised by a MinHash signature and
indexed by LSH bands; only pages sharing a band become candidate pairs for the exact LCS.
MinHash and banding are hand-written on numpy on purpose: vectorised over a page's whole shingle
set at once, it costs well under a millisecond a page, and the mining code needs the raw
signatures for ranking candidates anyway.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from .repeats import CollapsedSequence

NUM_PERM = 64
BANDS = 16  # 16 bands x 4 rows: pairs with Jaccard >= ~0.5 meet in some band with high probability
ROWS = NUM_PERM // BANDS
# Multiply-shift hash family (Dietzfelbinger): h(x) = (a*x + b mod 2^64) >> 32, a odd. Fixed seed:
# signatures must agree between processes and runs.
_RNG = np.random.default_rng(20121121)
_A = (_RNG.integers(1, 2**63, size=NUM_PERM, dtype=np.uint64) << np.uint64(1)) | np.uint64(1)
_B = _RNG.integers(0, 2**63, size=NUM_PERM, dtype=np.uint64)
_A.setflags(write=False)
_B.setflags(write=False)


def depth_weights(depths) -> np.ndarray:
    return 1.0 / (1.0 + np.asarray(depths, dtype=np.float64))


@dataclass
class Features:
    """What clustering needs of one page (picklable: no lxml elements)."""

    codes: np.ndarray  # int64 token codes of the collapsed sequence
    weights: np.ndarray  # f(depth) per token
    total: float  # sum of weights
    minhash: np.ndarray  # uint64[NUM_PERM]

    def __len__(self) -> int:
        return len(self.codes)


def path_shingles(seq: CollapsedSequence) -> np.ndarray:
    out = np.empty(len(seq.codes), dtype=np.uint64)
    parents, codes = seq.parents, seq.codes
    for i, code in enumerate(codes):
        p = parents[i]
        gp = parents[p] if p >= 0 else -1
        out[i] = zlib.crc32(b"%d/%d/%d" % (codes[gp] if gp >= 0 else 0, codes[p] if p >= 0 else 0, code))
    return np.unique(out)


def minhash(shingles: np.ndarray) -> np.ndarray:
    if shingles.size == 0:
        return np.full(NUM_PERM, np.iinfo(np.uint64).max, dtype=np.uint64)
    with np.errstate(over="ignore"):
        hashed = (np.outer(_A, shingles) + _B[:, None]) >> np.uint64(32)
    return hashed.min(axis=1)


def features(seq: CollapsedSequence) -> Features:
    weights = depth_weights(seq.depths)
    return Features(codes=np.asarray(seq.codes, dtype=np.int64), weights=weights, total=float(weights.sum()),
                    minhash=minhash(path_shingles(seq)))


def band_keys(signature: np.ndarray) -> list[int]:
    return [hash((b, signature[b * ROWS:(b + 1) * ROWS].tobytes())) for b in range(BANDS)]


def estimated_jaccard(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.count_nonzero(a == b)) / NUM_PERM


def weighted_lcs(a_codes: np.ndarray, a_weights: np.ndarray, b_codes: np.ndarray) -> float:
    """Depth-weighted LCS length of two token-code arrays (codes include depth, so a match has
    the same depth on both sides and the row token's weight is the match's weight).

    Row recurrence: new[j] = max(prev[j], new[j-1], prev[j-1] + w if a[i] == b[j]); taking
    c[j] = max(prev[j], prev[j-1] + w*match) first leaves a running maximum, so each row is a few
    vectorised numpy calls and only two rows are ever held.
    """
    if len(a_codes) == 0 or len(b_codes) == 0:
        return 0.0
    m = len(b_codes)
    prev = np.zeros(m + 1)
    cur = np.zeros(m + 1)
    for code, w in zip(a_codes.tolist(), a_weights.tolist()):
        hit = b_codes == code
        np.maximum(prev[1:], np.where(hit, prev[:-1] + w, 0.0), out=cur[1:])
        np.maximum.accumulate(cur, out=cur)
        prev, cur = cur, prev
    return float(prev[m])


def similarity(a: Features, b: Features) -> float:
    """Sim in [0, 1]; 1 for identical structure. The shorter sequence drives the Python loop."""
    denom = max(a.total, b.total)
    if denom <= 0:
        return 1.0 if len(a) == len(b) == 0 else 0.0
    if len(a) > len(b):
        a, b = b, a
    return min(1.0, weighted_lcs(a.codes, a.weights, b.codes) / denom)  # min: float rounding
