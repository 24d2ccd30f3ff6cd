"""Page classification: rules, the shipped model, and bad input."""
from __future__ import annotations

import json

import pytest

from extraction.classify import ModelError, classify, is_detail_page, load_model, predict_proba
from extraction.dom import load_page
from extraction.page_features import FEATURE_NAMES, page_features
from extraction.pipeline import extract
from extraction.train_classifier import generated_pages
from tests.unit.forum_fragments import thread_page
from tests.unit.test_forum_engines import discuz_page

ARTICLE = ("<html><head><title>Council approves budget - City Times</title>"
           "<meta property='og:type' content='article'></head><body><nav>" + "<a href='/s'>Section</a>" * 12 + "</nav>"
           "<article><h1>Council approves budget</h1><p class='by'>By A. Reporter, 2021-05-04 09:30</p>"
           + "".join(f"<p>Paragraph {i} of the report explains how the council voted on the housing and transport budget after a long debate.</p>" for i in range(8))
           + "</article><footer>© City Times</footer></body></html>")
HUB = ("<html><head><title>News</title></head><body><nav>" + "<a href='/s'>Section</a>" * 10 + "</nav><ul>"
       + "".join(f"<li><a href='/news/{i}.html'>Headline {i}: the council votes on the new transport plan</a> <span>2021-05-0{1 + i % 9}</span></li>" for i in range(40))
       + "</ul></body></html>")


def test_engine_markup_is_forum_by_rule():
    assert classify(load_page(discuz_page()))[0] == "forum"


def test_article_by_open_graph_type():
    page_type, score = classify(load_page(ARTICLE, "https://citytimes.example/2021/05/04/budget"))
    assert page_type == "article" and score > 0.5


def test_blog_when_the_site_is_a_blog():
    assert classify(load_page(ARTICLE, "https://blog.example.org/2021/05/budget"))[0] == "blog"


def test_hub_page_is_list_and_not_a_detail_page():
    page = load_page(HUB, "https://citytimes.example/news/")
    assert classify(page)[0] == "list"
    assert not is_detail_page(page)


def test_generic_thread_is_forum_through_the_model():
    page_type, _ = classify(load_page(thread_page(5)))
    assert page_type == "forum"


def test_pipeline_dispatch_sets_page_type_posts_and_list_reason():
    forum = extract(thread_page(4), "https://forum.example/t/1")
    assert forum.page_type == "forum" and forum.method == "pean" and len(forum.posts) == 4 and forum.valid
    hub = extract(HUB, "https://citytimes.example/news/")
    assert hub.page_type == "list" and not hub.valid and hub.reasons == ["list page"] and len(hub.links) == 41  # 40 headlines + the one distinct nav link
    data = json.loads(forum.to_json())
    assert data["page_type"] == "forum" and data["posts"][0]["content"]


def test_generated_training_pages_are_deterministic_and_labelled():
    a, b = generated_pages(40, seed=3), generated_pages(40, seed=3)
    assert a == b and {label for _, _, label, _ in a} <= {"list", "other", "forum"}


def test_model_probabilities_sum_to_one():
    probs = predict_proba(page_features(load_page(HUB)), load_model())
    assert abs(sum(probs.values()) - 1) < 1e-9


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="cannot read"):
        load_model(str(tmp_path / "absent.json"))


def test_model_for_other_features_is_refused(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"features": list(FEATURE_NAMES)[:-1]}))
    with pytest.raises(ModelError, match="retrain"):
        load_model(str(path))


def test_empty_body_is_not_an_error():
    page_type, _ = classify(load_page("<html><head><title>x</title></head><body></body></html>"))
    assert page_type in ("other", "list", "article")


def test_other_page_gets_title_headline_and_densest_block_body():
    from extraction.other import extract_other

    html = ("<html><head><title>About us | Example Org</title></head><body><nav>" + "<a href='/x'>Link</a>" * 8 + "</nav>"
            "<div class='side'><p>Short note.</p></div><div class='text'>"
            + "<p>We are a small association that repairs bicycles for schools and lends them to families.</p>" * 4
            + "</div></body></html>")
    result = extract_other(load_page(html, "https://example.org/about"))
    assert result.page_type == "other" and result.method == "other"
    assert result.headline and result.headline.startswith("About us")
    assert result.articleBody.count("repairs bicycles") == 4 and "Short note" not in result.articleBody


def test_long_engineless_thread_is_forum_not_list():
    from tests.unit.forum_fragments import post_block

    posts = "".join(post_block(i, f"user{i}", f"Reply number {i}: the router still drops the connection every evening, "
                                             "even after the reset you suggested.", f"2021-03-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}")
                    for i in range(30))
    page = load_page(f"<html><body><div class='thread'>{posts}</div></body></html>")
    assert classify(page)[0] == "forum"
    result = extract(f"<html><body><div class='thread'>{posts}</div></body></html>")
    assert result.page_type == "forum" and len(result.posts) == 30


def _short_article_in_link_chrome(dates: int) -> str:
    """A short post inside heavy link chrome: most of the page's text is links, and there is no
    long paragraph container; `dates` date strings are shown."""
    chrome = "".join(f"<li><a href='/s/{i}'>More stories from the section number {i} today</a></li>" for i in range(60))
    dated = "".join(f"<span>2021-05-{1 + i:02d} 09:{10 + i}</span>" for i in range(dates))
    return ("<html><head><title>Cat costume - Site</title><meta property='og:type' content='article'></head><body>"
            f"<nav><ul>{chrome}</ul></nav><article><h1>This cat's costume beats yours</h1>{dated}"
            "<p>The cat wore a tiny pumpkin hat and refused to take it off all evening long.</p></article>"
            f"<aside><ul>{chrome}</ul></aside></body></html>")


def test_short_link_rich_article_that_declares_itself_is_article():
    page = load_page(_short_article_in_link_chrome(dates=1), "https://site.example/5955626/cat-costume")
    assert classify(page)[0] == "article"


def test_link_rich_page_with_many_dates_is_list_despite_article_meta():
    # Article metadata on a page listing many dated items does not make it one article.
    page = load_page(_short_article_in_link_chrome(dates=12), "https://site.example/section")
    assert classify(page)[0] == "list"


def test_block_figures_come_from_cevc_statistics():
    from extraction.page_features import block_stats

    page = load_page("<html><body><div><p>" + "word " * 20 + "</p><p>" + "text " * 10 + "<a href='/x'>link here</a></p></div>"
                     "<ul><li><a href='/y'>item</a></li></ul></body></html>")
    blocks, counts, total, links, para = block_stats(page)
    assert counts["p"] == 2 and counts["a"] == 2
    assert total == 80 + 40 + 8 + 4 and links == 12
    assert sorted(blocks) == sorted([(80, 0), (48, 8), (4, 4)])
    assert para == 80 + 40  # both paragraphs sit in one <div>, the second has few links
    assert block_stats(page) is block_stats(page)  # computed once per page


def test_pean_records_are_looked_for_only_when_the_page_shows_enough_dates():
    features = dict(zip(FEATURE_NAMES, page_features(article := load_page(ARTICLE))))
    assert features["log_pean_records"] == 0 and "pean_records" not in article.cache
    thread = load_page(thread_page(5))
    features = dict(zip(FEATURE_NAMES, page_features(thread)))
    assert features["log_pean_records"] > 0 and "pean_records" in thread.cache


def test_thread_without_clock_time_falls_back_to_the_next_class_not_other():
    from extraction.classify import decide

    features = [0.0] * len(FEATURE_NAMES)  # log_clock_times 0: no clock time on the page
    label, score = decide(features, {"forum": 0.9, "article": 0.08, "list": 0.01, "other": 0.01})
    assert label == "article" and score == pytest.approx(0.8)
    # "other" still wins when the model said so after the thread is ruled out.
    assert decide(features, {"forum": 0.6, "article": 0.1, "list": 0.1, "other": 0.2})[0] == "other"
