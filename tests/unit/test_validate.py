"""The thesis's validation rules, with the reasons an invalid result carries."""
from datetime import datetime, timezone

from extraction.result import ExtractionResult, Post
from extraction.validate import validate

NOW = datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc)
BODY = "正文内容" * 30


def test_valid_article():
    r = validate(ExtractionResult(headline="市政府发布新规定", datePublished="2024-04-30T10:00:00+08:00", articleBody=BODY), NOW)
    assert r.valid and r.reasons == []


def test_short_headline_short_body_and_bad_dates_each_give_a_reason():
    r = validate(ExtractionResult(headline="新闻", datePublished="1999-12-31T00:00:00", articleBody="短"), NOW)
    assert not r.valid
    assert any("headline" in x for x in r.reasons)
    assert any("body" in x for x in r.reasons)
    assert any("date out of range" in x for x in r.reasons)
    future = validate(ExtractionResult(headline="市政府发布新规定", datePublished="2024-05-03T00:00:00+00:00", articleBody=BODY), NOW)
    assert any("date out of range" in x for x in future.reasons)
    garbage = validate(ExtractionResult(headline="市政府发布新规定", datePublished="yesterday-ish", articleBody=BODY), NOW)
    assert any("unparseable date" in x for x in garbage.reasons)


def test_forum_thread_with_a_short_title_is_kept_for_its_posts():
    posts = [Post(author="amy", content="Has anyone tried the new inhaler? It helped me a lot.")]
    assert validate(ExtractionResult(headline="Copd", posts=posts), NOW).valid
    assert not validate(ExtractionResult(headline="C", posts=posts), NOW).valid
    empty = validate(ExtractionResult(headline="Copd help", posts=[Post(content="  ")]), NOW)
    assert empty.reasons == ["forum posts are all empty"]
