"""Mining: pages of a site -> clusters -> one labelled template per cluster -> TemplateLibrary.

The steps are the package's modules in order (tagseq, repeats, similarity, cluster, induce, label).
Pages may be mined without keeping their parsed trees (`keep_page=False`, e.g. when features are
computed elsewhere); labelling then re-parses, through `reload`, only the few pages per cluster
the template-free extractors run on.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..dom import Page, PageError, load_page
from .cluster import cluster_pages, purity
from .induce import induce_template
from .label import label_template
from .library import TemplateLibrary
from .repeats import CollapsedSequence, collapse
from .similarity import Features, features
from .tagseq import tag_sequence
from .urltrie import url_segments

LABEL_SAMPLE = 12  # pages per cluster the template-free extractors run on for labelling
MIN_TEMPLATE_PAGES = 2  # smaller clusters get a template too, but it is marked and not used for extraction


@dataclass
class MinedPage:
    page_id: str
    url: str | None
    seq: CollapsedSequence
    feats: Features
    page: Page | None = None  # kept when mining in one process (labelling reads it)


@dataclass
class MiningReport:
    pages: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (page id, reason)
    clusters: list[list[str]] = field(default_factory=list)  # page ids per cluster
    purity: float | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    exact_comparisons: int = 0


# Bounds on hostile pages. Real article pages collapse to well under 2,000 tokens; beyond
# MAX_MINING_TOKENS the page is judged on its first tokens (the page frame comes first), which keeps
# every exact LCS and alignment within a few megabytes and a fraction of a second.
MAX_RAW_TOKENS = 200_000
MAX_MINING_TOKENS = 5_000


def page_tokens(page: Page) -> CollapsedSequence:
    return collapse(tag_sequence(page.body, max_tokens=MAX_RAW_TOKENS)).head(MAX_MINING_TOKENS)


def mine_page(page_id: str, page: Page, keep_page: bool = True) -> MinedPage:
    """Features of one parsed page. Without `keep_page` the page's tree is let go (the sequence's
    element references are dropped too): thousands of kept lxml trees would cost gigabytes."""
    seq = page_tokens(page)
    if not keep_page:
        seq.elements = []
    return MinedPage(page_id, page.url, seq, features(seq), page if keep_page else None)


def mine(pages: Sequence[MinedPage], site: str = "", *, labels: Sequence[str] | None = None,
         reload: Callable[[str], Page] | None = None, skipped: Sequence[tuple[str, str]] = ()) -> tuple[TemplateLibrary, MiningReport]:
    """Cluster, induce and label. `reload(page_id)` re-parses a page when it was not kept."""
    report = MiningReport(pages=len(pages), skipped=list(skipped))
    t0 = time.perf_counter()
    clustering = cluster_pages([p.feats for p in pages])
    report.exact_comparisons = clustering.exact_comparisons
    t1 = time.perf_counter()
    report.seconds["cluster"] = t1 - t0
    groups = clustering.clusters()
    report.clusters = [[pages[i].page_id for i in g] for g in groups]
    if labels is not None:
        report.purity = purity(clustering.labels, list(labels))
    library = TemplateLibrary()
    label_time = 0.0
    for number, members in enumerate(groups):
        tid = f"{site or 'site'}#{number}"
        template = induce_template([pages[i].seq for i in members], [pages[i].feats for i in members], tid, site)
        prefixes: Counter = Counter()
        for i in members:
            if pages[i].url:
                segs = url_segments(pages[i].url)
                if segs:
                    prefixes["/".join(segs)] += 1
        template.url_prefixes = dict(prefixes)
        if len(members) < MIN_TEMPLATE_PAGES:
            template.threshold = 1.01  # one page says nothing about what varies: never extract with it
        tl = time.perf_counter()
        sample = members if len(members) <= LABEL_SAMPLE else \
            [members[round(k * (len(members) - 1) / (LABEL_SAMPLE - 1))] for k in range(LABEL_SAMPLE)]
        label_pages, label_seqs = [], []
        for i in sample:
            page, seq = pages[i].page, pages[i].seq
            if page is None and reload is not None:
                page = reload(pages[i].page_id)
                seq = page_tokens(page)
            if page is not None:
                label_pages.append(page)
                label_seqs.append(seq)
        label_template(template, label_pages, label_seqs)
        label_time += time.perf_counter() - tl
        library.add(template)
    report.seconds["induce+label"] = time.perf_counter() - t1
    report.seconds["label"] = label_time
    return library, report


KEEP_PAGES_UP_TO = 300  # above this many pages, trees are re-parsed for labelling instead of kept


def _featurize(item: tuple[str, bytes, str | None], keep: bool) -> MinedPage | tuple[str, str]:
    page_id, data, url = item
    try:
        page = load_page(data, url)
    except PageError as exc:
        return (page_id, str(exc))
    return mine_page(page_id, page, keep_page=keep)


def _featurize_dropping(item: tuple[str, bytes, str | None]) -> MinedPage | tuple[str, str]:
    return _featurize(item, False)


def load_and_mine(items: Sequence[tuple[str, bytes, str | None]], *, keep_pages: bool | None = None,
                  workers: int = 1) -> tuple[list[MinedPage], list[tuple[str, str]]]:
    """Parse raw pages (id, bytes, url) and compute their features; bad pages are listed, not fatal.

    `workers` > 1 spreads parsing over processes (trees are never kept then: they cannot cross
    process boundaries)."""
    keep = (len(items) <= KEEP_PAGES_UP_TO) if keep_pages is None else keep_pages
    if workers > 1 and len(items) > 1:
        import multiprocessing  # only for large page sets

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_featurize_dropping, items, chunksize=64)
    else:
        results = [_featurize(item, keep) for item in items]
    mined = [r for r in results if isinstance(r, MinedPage)]
    skipped = [r for r in results if not isinstance(r, MinedPage)]
    return mined, skipped


def mine_items(items: Sequence[tuple[str, bytes, str | None]], site: str = "", *, labels: dict[str, str] | None = None,
               workers: int = 1) -> tuple[TemplateLibrary, MiningReport]:
    """Parse, cluster, induce and label raw pages (id, bytes, url) in one call."""
    started = time.perf_counter()
    mined, skipped = load_and_mine(items, workers=workers)
    parsed = time.perf_counter()
    by_id = {page_id: (data, url) for page_id, data, url in items}

    def reload(page_id: str) -> Page:
        data, url = by_id[page_id]
        return load_page(data, url)

    truth = [labels.get(m.page_id, "?") for m in mined] if labels is not None else None
    library, report = mine(mined, site, labels=truth, reload=reload, skipped=skipped)
    report.seconds["parse+features"] = parsed - started
    return library, report
