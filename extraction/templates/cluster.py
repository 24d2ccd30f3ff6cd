"""Cluster pages by structure: agglomerative, average linkage, cut at a distance threshold (no k).

Two phases so mining scales to thousands of pages without the n^2 exact comparisons:
1. Seeding: pages are taken in order; each looks up, through the LSH band index, the existing
   seeds that share a band with it, ranks them by estimated Jaccard, and computes the exact
   depth-weighted LCS similarity with the best few. At `seed_similarity` or above it joins that
   seed's micro-cluster, otherwise it becomes a seed. Near-identical pages (the bulk of a site)
   cost one or two exact comparisons each.
2. Agglomeration: the seeds are clustered with average linkage and a distance threshold
   (1 - `similarity`), using the exact similarity for seed pairs that share an LSH band and
   distance 1 for the rest; each page follows its seed.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .similarity import Features, band_keys, estimated_jaccard, similarity

SIMILARITY = 0.5  # same template at or above (measured: same-site pairs mostly >= 0.56, other sites <= 0.27)
SEED_SIMILARITY = 0.8
MAX_EXACT_PER_PAGE = 3


@dataclass
class Clustering:
    labels: list[int]  # cluster number of each page, clusters numbered by first page
    seeds: list[int]  # page index of each seed
    exact_comparisons: int

    def clusters(self) -> list[list[int]]:
        groups: dict[int, list[int]] = defaultdict(list)
        for page, label in enumerate(self.labels):
            groups[label].append(page)
        return [groups[k] for k in sorted(groups)]


def cluster_pages(feats: list[Features], *, similarity_threshold: float = SIMILARITY,
                  seed_similarity: float = SEED_SIMILARITY, max_exact: int = MAX_EXACT_PER_PAGE) -> Clustering:
    if not feats:
        return Clustering(labels=[], seeds=[], exact_comparisons=0)
    buckets: dict[int, list[int]] = defaultdict(list)  # band key -> seed numbers
    seeds: list[int] = []
    seed_of = [0] * len(feats)
    exact = 0
    for i, f in enumerate(feats):
        keys = band_keys(f.minhash)
        candidates = {s for k in keys for s in buckets.get(k, ())}
        best_seed, best_sim = -1, -1.0
        if candidates:
            ranked = sorted(candidates, key=lambda s: -estimated_jaccard(f.minhash, feats[seeds[s]].minhash))
            for s in ranked[:max_exact]:
                sim = similarity(f, feats[seeds[s]])
                exact += 1
                if sim > best_sim:
                    best_seed, best_sim = s, sim
        if best_sim >= seed_similarity:
            seed_of[i] = best_seed
            continue
        seed_of[i] = len(seeds)
        for k in keys:
            buckets[k].append(len(seeds))
        seeds.append(i)

    n = len(seeds)
    if n == 1:
        return Clustering(labels=[0] * len(feats), seeds=seeds, exact_comparisons=exact)
    dist = np.ones((n, n))
    np.fill_diagonal(dist, 0.0)
    pairs = {(a, b) for members in buckets.values() for ai, a in enumerate(members) for b in members[ai + 1:]}
    for a, b in pairs:
        d = 1.0 - similarity(feats[seeds[a]], feats[seeds[b]])
        dist[a, b] = dist[b, a] = d
        exact += 1
    from sklearn.cluster import AgglomerativeClustering  # slow import, only needed with 2+ seeds

    model = AgglomerativeClustering(n_clusters=None, metric="precomputed", linkage="average",
                                    distance_threshold=1.0 - similarity_threshold)
    seed_labels = model.fit_predict(dist)
    # Renumber clusters by first appearance so results are stable and readable.
    renumber: dict[int, int] = {}
    labels = []
    for i in range(len(feats)):
        lab = int(seed_labels[seed_of[i]])
        labels.append(renumber.setdefault(lab, len(renumber)))
    return Clustering(labels=labels, seeds=seeds, exact_comparisons=exact)


def purity(labels: list[int], truth: list[str]) -> float:
    """Share of pages whose cluster's majority label is their own label."""
    if not labels:
        return 1.0
    by_cluster: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for lab, t in zip(labels, truth):
        by_cluster[lab][t] += 1
    return sum(max(c.values()) for c in by_cluster.values()) / len(labels)
