"""Template induction: required and optional nodes, bad clusters."""
from __future__ import annotations

import pytest

from extraction.dom import load_page
from extraction.templates.induce import InductionError, induce_template
from extraction.templates.mine import mine_page
from tests.unit.test_templates_pages import news_page


def mined(htmls):
    return [mine_page(str(i), load_page(h)) for i, h in enumerate(htmls)]


def test_required_nodes_are_the_layout_and_optional_nodes_the_extras():
    pages = [news_page(i)[0] for i in range(5)]
    # one page carries an extra block (an editor's note) after the byline
    pages[2] = pages[2].replace('<div class="story-body">', '<div class="note"><p>Editor note</p></div><div class="story-body">')
    m = mined(pages)
    t = induce_template([p.seq for p in m], [p.feats for p in m], "news#0", "news")
    for key in ("div.header", "h1.headline", "div.byline", "div.story-body", "div.sidebar", "div.footer"):
        assert key in t.keys
    assert "div.note" not in t.keys
    gaps = [alt["keys"] for o in t.optional for alt in o["alternatives"]]
    assert any(keys[0].startswith("div.note@") for keys in gaps)
    note = next(o for o in t.optional if any(a["keys"][0].startswith("div.note@") for a in o["alternatives"]))
    assert note["pages"] == pytest.approx(1 / 5)
    # repeated paragraphs and list items are one record marked repeatable
    assert t.keys.count("p") >= 1 and any(t.repeatable)
    assert t.pages == 5 and len(t.keys) == len(t.depths) == len(t.parents)


def test_parents_point_at_required_ancestors():
    m = mined([news_page(i)[0] for i in range(3)])
    t = induce_template([p.seq for p in m], [p.feats for p in m], "t")
    body = t.keys.index("div.story-body")
    assert t.keys[t.parents[body]] == "div.story"
    assert t.parents[0] == -1


def test_empty_cluster_is_a_clear_error():
    with pytest.raises(InductionError, match="empty cluster"):
        induce_template([], [], "t")


def test_one_page_cluster_gives_that_page_as_template():
    m = mined([news_page(1)[0]])
    t = induce_template([m[0].seq], [m[0].feats], "t")
    assert t.keys == m[0].seq.keys and t.optional == [] and t.pages == 1


def test_self_similar_step_groups_many_alternatives():
    variants = ["<h4>a</h4><h5>b</h5><h6>c</h6>", "<h4>a</h4><h5>b</h5><h6>c</h6><h3>d</h3>",
                "<ul><li>x</li></ul><ol><li>y</li></ol>"]
    pages = [news_page(i)[0].replace('<div class="footer">', variants[i % 3] + '<div class="footer">') for i in range(6)]
    m = mined(pages)
    t = induce_template([p.seq for p in m], [p.feats for p in m], "t")
    grouped = [o for o in t.optional if "groups" in o]
    assert len(grouped) == 1, t.optional
    groups = sorted(grouped[0]["groups"], key=lambda g: -g["count"])
    assert len(groups) == 2
    assert groups[0]["count"] == 4 and groups[0]["required"] == ["h4@1", "h5@1", "h6@1"]
    assert groups[1]["count"] == 2
