"""Bad input for mining and template extraction: clear results, no RecursionError, bounded work."""
from __future__ import annotations

import tracemalloc

import pytest

from extraction.dom import load_page
from extraction.pipeline import extract
from extraction.templates.induce import InductionError, induce_template
from extraction.templates.library import TemplateLibrary
from extraction.templates.match import MAX_MATCH_TOKENS, align, page_sequence
from extraction.templates.mine import MAX_MINING_TOKENS, load_and_mine, mine, mine_page
from tests.unit.test_templates_pages import news_page


def deep_page(levels: int, text: str) -> str:
    return ("<html><body><div class='top'><h1>Deep page headline here</h1>" + "<div>" * levels
            + f"<p>{text}</p>" + "</div>" * levels + "</div></body></html>")


def wide_page(nodes: int, seed: int) -> str:
    # Seven different siblings in turn: a period longer than any repeat unit, so nothing collapses.
    tags = ["h1", "h2", "h3", "h4", "h5", "h6", "p"]
    cells = "".join(f"<{tags[i % 7]}>w{(i + seed) % 97}</{tags[i % 7]}>" for i in range(nodes))
    return f"<html><body><div class='wrap'>{cells}</div></body></html>"


def test_mining_nothing_gives_an_empty_library():
    library, report = mine([], "empty")
    assert len(library) == 0 and report.clusters == [] and report.pages == 0


def test_empty_cluster_cannot_be_induced():
    with pytest.raises(InductionError, match="empty cluster"):
        induce_template([], [], "x")


def test_unreadable_pages_are_listed_not_fatal():
    mined, skipped = load_and_mine([("a", b"", None), ("b", b"\x00\x01binary", None), ("c", news_page(1)[0].encode(), None)])
    assert [m.page_id for m in mined] == ["c"]
    assert {pid for pid, _ in skipped} == {"a", "b"}
    assert all(reason for _, reason in skipped)


def test_one_page_cluster_is_kept_but_never_used_for_extraction():
    library, report = mine([mine_page("only", load_page(news_page(1)[0], "http://one.example/news/a"))], "one")
    assert len(library) == 1 and report.clusters == [["only"]]
    template = next(iter(library))
    assert template.pages == 1 and template.threshold > 1
    page = load_page(news_page(2)[0], "http://one.example/news/b")
    assert library.extract(page) is None
    assert extract(news_page(2)[0].encode(), "http://one.example/news/b", templates=library).method != "template"


def test_pages_deeper_than_1000_levels_mine_and_match_without_recursion_errors():
    text = "the deep paragraph is the only text on this page and it is long enough to be a body " * 3
    pages = [mine_page(str(i), load_page(deep_page(1500, text + str(i)))) for i in range(3)]
    assert max(pages[0].seq.depths) > 1000
    library, report = mine(pages, "deep")
    assert len(report.clusters) == 1
    template = next(iter(library))
    match = align(template, page_sequence(load_page(deep_page(1500, text))))
    assert match.score > 0.9
    library.extract(load_page(deep_page(1500, text)))  # must not raise


def test_100k_node_pages_are_bounded():
    html = wide_page(100_000, 0)
    page = load_page(html)
    assert sum(1 for _ in page.body.iter()) > 100_000
    mined = [mine_page("a", page, keep_page=False), mine_page("b", load_page(wide_page(100_000, 1)), keep_page=False)]
    assert len(mined[0].seq) == MAX_MINING_TOKENS  # judged on its first tokens
    tracemalloc.start()
    library, report = mine(mined, "wide")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(report.clusters) == 1
    # exact LCS with two rows, alignment on the capped sequences: far below a full 5,000 x 5,000 table
    assert peak < 64 * 1024 * 1024
    template = next(iter(library))
    seq = page_sequence(page)
    assert len(seq) <= MAX_MATCH_TOKENS
    assert align(template, seq).score > 0.9


def test_a_repetitive_100k_node_page_collapses_to_a_few_tokens():
    rows = "".join(f"<div class='row'><h3>t{i}</h3><p>x</p><ul><li>a</li><li>b</li></ul></div>" for i in range(25_000))
    page = load_page(f"<html><body><div class='list'>{rows}</div></body></html>")
    mined = mine_page("rows", page)
    assert len(mined.seq) < 10
    assert mined.seq.repeats[mined.seq.keys.index("div.row")] == 25_000


def test_library_of_one_template_without_slots_on_a_deep_page():
    library = TemplateLibrary()
    assert library.extract(load_page(deep_page(1200, "x"))) is None
