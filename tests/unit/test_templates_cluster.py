"""Structural similarity (depth-weighted LCS, MinHash) and clustering."""
from __future__ import annotations

import random

import numpy as np

from extraction.dom import load_page
from extraction.templates.cluster import cluster_pages, purity
from extraction.templates.mine import mine_page
from extraction.templates.similarity import (estimated_jaccard, minhash, similarity,
                                             weighted_lcs)
from tests.unit.test_templates_pages import blog_page, news_page


def feats(html):
    return mine_page("x", load_page(html)).feats


def brute_force_weighted_lcs(a, wa, b):
    table = [[0.0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            best = max(table[i - 1][j], table[i][j - 1])
            if a[i - 1] == b[j - 1]:
                best = max(best, table[i - 1][j - 1] + wa[i - 1])
            table[i][j] = best
    return table[-1][-1]


def test_weighted_lcs_equals_the_full_table_dp():
    rng = random.Random(3)
    for _ in range(30):
        a = np.array([rng.randint(0, 4) for _ in range(rng.randint(0, 25))], dtype=np.int64)
        b = np.array([rng.randint(0, 4) for _ in range(rng.randint(0, 25))], dtype=np.int64)
        w = np.array([rng.random() for _ in range(len(a))])
        assert abs(weighted_lcs(a, w, b) - brute_force_weighted_lcs(a.tolist(), w.tolist(), b.tolist())) < 1e-9


def test_similarity_is_one_for_the_same_layout_and_low_across_layouts():
    n1, n2 = feats(news_page(1)[0]), feats(news_page(2)[0])
    b1 = feats(blog_page(1)[0])
    assert similarity(n1, n1) == 1.0
    assert similarity(n1, n2) > 0.9
    assert similarity(n1, b1) < 0.3
    assert similarity(n1, n2) == similarity(n2, n1)


def test_minhash_estimates_jaccard():
    a = np.arange(0, 1000, dtype=np.uint64)
    b = np.arange(500, 1500, dtype=np.uint64)  # true Jaccard 1/3
    assert abs(estimated_jaccard(minhash(a), minhash(b)) - 1 / 3) < 0.15
    assert estimated_jaccard(minhash(a), minhash(a)) == 1.0


def test_two_layouts_mixed_give_two_pure_clusters():
    pages, truth = [], []
    for i in range(12):
        html, _ = news_page(i) if i % 2 else blog_page(i)
        pages.append(feats(html))
        truth.append("news" if i % 2 else "blog")
    result = cluster_pages(pages)
    assert len(result.clusters()) == 2
    assert purity(result.labels, truth) == 1.0
    # the LSH stage spared most pairs the exact LCS
    assert result.exact_comparisons < len(pages) * (len(pages) - 1) / 2


def test_cluster_of_nothing_and_of_one_page():
    assert cluster_pages([]).clusters() == []
    one = cluster_pages([feats(news_page(1)[0])])
    assert one.clusters() == [[0]]


def test_purity_counts_majority_labels():
    assert purity([0, 0, 1, 1], ["a", "a", "b", "a"]) == 0.75
    assert purity([], []) == 1.0
