"""Forum-engine recognisers: strict markup markers, engine structure, fallback to PEAN."""
from __future__ import annotations

from extraction.dom import load_page
from extraction.forums import extract_posts, recognise
from tests.unit.forum_fragments import NAMES, TEXTS, thread_page


def _page(body: str, head: str = "") -> str:
    return f"<html><head><title>Thread</title>{head}</head><body>{body}</body></html>"


def discuz_page(n: int = 3) -> str:
    posts = "".join(
        f'<div id="post_{100 + i}"><table><tr><td class="pls"><div class="authi"><a href="space-uid-{i}.html">{NAMES[i]}</a></div></td>'
        f'<td class="plc"><div class="authi"><em id="authorposton{100 + i}">发表于 2014-5-1{i} 20:0{i}</em></div>'
        f'<table><tr><td class="t_f" id="postmessage_{100 + i}">'
        + (f'<div class="quote"><blockquote>{NAMES[i - 1]} 发表于 2014-5-1{i - 1}<br>{TEXTS[i - 1]}</blockquote></div>' if i else "")
        + f'{TEXTS[i]}</td></tr></table></td></tr></table></div>' for i in range(n))
    return _page(f'<div id="postlist">{posts}</div>')


def xenforo2_page(n: int = 3) -> str:
    posts = "".join(
        f'<article class="message message--post js-post" data-author="{NAMES[i]}" id="js-post-{i}">'
        f'<div class="message-inner"><section class="message-user"><h4 class="message-name"><a class="username">{NAMES[i]}</a></h4></section>'
        f'<div class="message-main"><header class="message-attribution"><ul class="message-attribution-main"><li>'
        f'<time class="u-dt" datetime="2020-04-0{i + 1}T1{i}:00:00+0200" title="Apr {i + 1}, 2020 at 1{i}:00">Apr {i + 1}, 2020</time></li></ul></header>'
        f'<article class="message-body"><div class="bbWrapper">'
        + (f'<blockquote class="bbCodeBlock bbCodeBlock--quote">{TEXTS[0]}</blockquote>' if i else "")
        + f'{TEXTS[i]}</div></article><aside class="message-signature"><div class="bbWrapper">my sig</div></aside>'
        f'</div></div></article>' for i in range(n))
    return _page(f'<div class="block-body">{posts}</div>')


def phpbb_page(n: int = 2) -> str:
    posts = "".join(
        f'<div id="p{i}" class="post has-profile bg{i % 2 + 1}"><div class="inner"><dl class="postprofile">'
        f'<dt><a class="username" href="./memberlist.php?u={i}">{NAMES[i]}</a></dt><dd>Posts: {10 * i}</dd></dl>'
        f'<div class="postbody"><h3>Re: Thread</h3><p class="author">by <strong>{NAMES[i]}</strong> » Sun Jul 2{i}, 2013 1:3{i} pm</p>'
        f'<div class="content">{TEXTS[i]}</div><div class="signature">sig of {NAMES[i]}</div></div></div></div>' for i in range(n))
    return _page(f'<div id="page-body">{posts}</div>')


def test_discuz_by_postmessage_cells():
    page = load_page(discuz_page())
    assert recognise(page).name == "discuz"
    posts, method = extract_posts(page)
    assert method == "engine:discuz"
    assert [p.author for p in posts] == NAMES[:3]
    assert [p.content for p in posts] == TEXTS[:3]  # quotes left out
    assert posts[1].datePublished.startswith("2014-05-11T20:01")


def test_xenforo2_uses_data_author_and_leaves_out_quotes_and_signatures():
    page = load_page(xenforo2_page())
    posts, method = extract_posts(page)
    assert method == "engine:xenforo2"
    assert [p.author for p in posts] == NAMES[:3]
    assert [p.content for p in posts] == TEXTS[:3]
    assert posts[2].datePublished == "2020-04-03T12:00:00+02:00"  # offset from the machine timestamp


def test_phpbb_time_from_the_author_line():
    posts, method = extract_posts(load_page(phpbb_page()))
    assert method == "engine:phpbb"
    assert [p.author for p in posts] == NAMES[:2]
    assert posts[1].datePublished.startswith("2013-07-21T13:31")
    assert all("sig of" not in p.content for p in posts)


def test_generic_page_has_no_engine_and_goes_to_pean():
    page = load_page(thread_page(3))
    assert recognise(page) is None
    posts, method = extract_posts(page)
    assert method == "pean" and len(posts) == 3


def test_generator_meta_alone_is_not_a_strict_marker():
    # Board and list pages of an engine carry its generator tag too; only post markup is strict.
    html = _page("<ul><li><a href='/t/1'>A topic</a></li></ul>", head='<meta name="generator" content="Discourse 2.5">')
    page = load_page(html)
    assert recognise(page, strict=True) is None
    assert recognise(page).name == "discourse"


def test_marker_without_structure_falls_back_to_pean():
    # A vBulletin-looking message div without the post containers: PEAN decides.
    html = thread_page(3).replace('<div class="thread">', '<div class="thread"><div id="post_message_1"></div>', 1)
    posts, method = extract_posts(load_page(html))
    assert method == "pean" and [p.content for p in posts] == TEXTS[:3]


def test_every_engine_marker_is_found_by_the_literal_prefilter():
    # Recognition skips a marker's XPath scan when the class/id literal it needs is absent; each
    # engine's marker, present alone on a page, must still be found.
    from extraction.forums.engines import ENGINES
    from extraction.dom import load_page as load

    markup = {
        "discuz": "<table><tr><td id='postmessage_12'>hi</td></tr></table>",
        "phpbb": "<div class='postbody x'><div class='content'>hi</div></div>",
        "vbulletin4": "<ol><li id='post_3' class='postbitlegacy postcontainer'>hi</li></ol>",
        "vbulletin3": "<div id='post_message_9'>hi</div>",
        "xenforo2": "<article class='message message--post'>hi</article>",
        "xenforo1": "<ol><li id='post-4' class='message' data-author='bob'>hi</li></ol>",
        "discourse": "<div class='topic-body crawler-post'>hi</div>",
        "invision": "<div data-role='commentContent'>hi</div>",
        "vanilla": "<ul><li class='Item ItemComment'>hi</li></ul>",
        "fluxbb": "<div class='blockpost rowodd'>hi</div>",
        "phorum": "<div id='phorum'><div class='message-body'>hi</div></div>",
        "woltlab": "<div class='wbbThreadPostList'>hi</div>",
        "inyoka": "<table class='topic'><tr id='post-7'><td>hi</td></tr></table>",
        "spirit": "<div class='comments_list__comment'>hi</div>",
    }
    assert set(markup) == {e.name for e in ENGINES}
    for name, fragment in markup.items():
        assert recognise(load(f"<html><body>{fragment}</body></html>"), strict=True).name == name, name
