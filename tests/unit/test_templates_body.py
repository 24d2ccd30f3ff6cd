"""What a template knows about the body beyond one page: where the article starts (headline and
byline in the body's container), which furniture-looking blocks hold page content (captions
that differ on every page), and what stays out (constant lines, link lists)."""
from __future__ import annotations

import random

import pytest
from lxml import html as lxml_html

from extraction.dom import load_page
from extraction.templates.library import TemplateLibrary
from extraction.templates.match import read_span
from extraction.templates.mine import load_and_mine, mine
from extraction.templates.model import Template
from tests.unit.test_templates_pages import news_page, paragraph


def mined_library(pages: list[str], url) -> TemplateLibrary:
    mined, skipped = load_and_mine([(str(i), html.encode(), url(i)) for i, html in enumerate(pages)])
    assert not skipped
    library, report = mine(mined, "site")
    assert len(report.clusters) == 1
    return library


def news_url(i: int) -> str:
    return f"https://www.town.example/news/local/story-{i}.html"


@pytest.fixture(scope="module")
def news_library() -> TemplateLibrary:
    return mined_library([news_page(i)[0] for i in range(6)], news_url)


def test_body_starts_at_the_headline_when_it_heads_the_body_container(news_library):
    template = next(iter(news_library))
    body, headline = template.slots["body"], template.slots["headline"]
    assert body.start_node == headline.node
    html, meta = news_page(42, paragraphs=5, related=9)
    result = news_library.extract(load_page(html, news_url(42)))
    lines = result.articleBody.split("\n")
    assert lines[0] == meta["headline"]
    assert lines[1] == "By Reporter 0"  # the byline varies page to page: page content
    assert lines[2:] == meta["paragraphs"]  # the constant share line and the sidebar stay out
    assert result.headline == meta["headline"]


def crowded_page(seed: int) -> str:
    """Between headline and body, other stories' teasers: a third as long as the article."""
    rng = random.Random(seed)
    paras = "".join(f"<p>{paragraph(rng)}</p>" for _ in range(8))
    teasers = "".join(f"<div class='teaser'><span>{paragraph(rng, 30)}</span></div>" for _ in range(4))
    return f"""<html><body><div class="main"><h1 class="headline">Story {seed} about the park</h1>
<div class="more">{teasers}</div><div class="story-body">{paras}</div></div></body></html>"""


def test_body_keeps_its_start_when_much_other_text_lies_between_headline_and_body():
    library = mined_library([crowded_page(i) for i in range(5)], news_url)
    template = next(iter(library))
    assert template.keys[template.slots["body"].node] == "div.story-body"
    assert template.slots["body"].start_node == -1
    result = library.extract(load_page(crowded_page(9), news_url(9)))
    assert result is not None and not result.articleBody.startswith("Story 9")


def captioned_page(seed: int) -> str:
    rng = random.Random(seed)
    paras = [paragraph(rng) for _ in range(4)]
    caption = f"The river bank seen from bridge {seed}, where the {rng.choice(['new', 'old'])} park will open."
    related = "".join(f"<a href='/r{seed}{i}'>Other story {seed}-{i}</a> " for i in range(4))
    return f"""<html><body><div class="main"><div class="story-body"><p>{paras[0]}</p>
<div class="wp-caption"><img src="/p{seed}.jpg"><p>{caption}</p></div>
{''.join(f'<p>{p}</p>' for p in paras[1:])}<div class="related-links">{related}</div></div></div></body></html>"""


def test_caption_blocks_that_vary_are_kept_link_lists_are_not():
    library = mined_library([captioned_page(i) for i in range(5)], news_url)
    body = next(iter(library)).slots["body"]
    assert "div.wp-caption" in body.keep_keys
    assert not any("related" in k for k in body.keep_keys)
    result = library.extract(load_page(captioned_page(11), news_url(11)))
    assert "The river bank seen from bridge 11" in result.articleBody
    assert "Other story" not in result.articleBody


def test_read_span_needs_the_start_before_the_end():
    root = lxml_html.fromstring("<div><h1>Title</h1><p>By A</p><div><p>Body one</p></div><p>After</p></div>")
    h1, body = root.find("h1"), root.find("div")
    assert read_span(h1, body) == "Title\nBy A\nBody one"
    assert read_span(body, h1) is None  # start after end
    assert read_span(body.find("p"), body) is None  # one holds the other


def test_slot_start_and_kept_keys_survive_json_and_bad_start_is_an_error():
    data = {"id": "t", "keys": ["div", "h1", "div"], "depths": [0, 1, 1], "parents": [-1, 0, 0],
            "slots": {"body": {"field": "body", "node": 2, "start_node": 1, "keep_keys": ["div.wp-caption"]}}}
    back = Template.from_dict(Template.from_dict(data).to_dict())
    assert back.slots["body"].start_node == 1 and back.slots["body"].keep_keys == ["div.wp-caption"]
    data["slots"]["body"]["start_node"] = 7
    with pytest.raises(ValueError, match="starts at node 7"):
        Template.from_dict(data)
