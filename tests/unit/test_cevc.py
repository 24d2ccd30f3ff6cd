"""CEVC body extraction on small pages written for the purpose (English and Chinese)."""
from extraction.cevc import compute_stats, descend, extract_body
from extraction.dom import load_page

EN_PARAS = [
    "The city council voted on Tuesday to expand the bus network, a decision that will add twelve new routes by the end of next year.",
    "Officials said the plan had been in the works for more than two years and would be paid for with a mix of state grants and fares.",
    "Residents who spoke at the meeting were mostly in favour, although several asked why their neighbourhoods had been left out.",
]
ZH_PARAS = [
    "记者从市交通运输局获悉，今年全市将新开通十二条公交线路，进一步方便市民的日常出行。",
    "据介绍，新线路主要覆盖城市东部和南部的新建居民区，这些地区此前的公共交通服务相对不足。",
    "市交通运输局有关负责人表示，下一步还将根据客流情况对现有线路进行优化调整。",
]


def nav(n=8, text="Section"):
    return "<ul class='menu'>" + "".join(f"<li><a href='/s{i}'>{text} {i}</a></li>" for i in range(n)) + "</ul>"


def page(body: str, lang: str = "en", title: str = "A headline for the test page") -> bytes:
    return (f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body>{body}</body></html>").encode("utf-8")


def body_of(html: bytes) -> str:
    return extract_body(load_page(html)).text


def test_english_article_beats_navigation():
    html = page(f"<header>{nav()}</header><div class='main'><h1>Council expands buses</h1>"
                + "".join(f"<p>{p}</p>" for p in EN_PARAS) + f"</div><div class='footer'>{nav(5, 'About')}</div>")
    text = body_of(html)
    assert text.split("\n") == EN_PARAS  # paragraphs as lines, headline and menus left out


def test_chinese_article_in_gbk():
    html = (("<html><head><meta charset='gb2312'><title>新闻</title></head><body>" + nav(10, "频道")
             + "<div id='wrap'><div class='text'>" + "".join(f"<p>{p}</p>" for p in ZH_PARAS)
             + "</div></div></body></html>").encode("gbk"))
    assert body_of(html).split("\n") == ZH_PARAS


def test_link_heavy_list_with_prose_like_titles_loses():
    # The related list has more characters, full of stopwords, but they are all link text.
    related = "<div class='box'><ul>" + "".join(
        f"<li><a href='/r{i}'>{p} And this is why it matters for all of us</a></li>" for i, p in enumerate(EN_PARAS * 3)
    ) + "</ul></div>"
    html = page(f"<div class='col'>{''.join(f'<p>{p}</p>' for p in EN_PARAS)}</div>{related}")
    text = body_of(html)
    assert EN_PARAS[0] in text and "why it matters" not in text


def test_short_article_beside_a_long_comment_section():
    short = "<p>The museum reopens on Monday after a two-year renovation of its main hall.</p>"
    comments = "<div id='comments'>" + "".join(
        f"<div class='c'><p>I visited the museum many times when I was a child and it was wonderful {i}.</p></div>"
        for i in range(10)) + "</div>"
    html = page(f"{nav()}<div class='story'>{short}</div>{comments}")
    assert body_of(html) == "The museum reopens on Monday after a two-year renovation of its main hall."


def test_body_split_over_sibling_sections():
    part1 = "".join(f"<p>{p}</p>" for p in EN_PARAS[:2])
    part2 = f"<p>{EN_PARAS[2]}</p>"
    html = page(f"{nav()}<div class='article'><div class='chunk'>{part1}</div>"
                f"<div class='ad-slot'><a href='/buy'>Buy now</a></div>"
                f"<div class='chunk'>{part2}</div></div><div class='sidebar'>{nav(4, 'Popular')}</div>")
    assert body_of(html).split("\n") == EN_PARAS


def test_two_equal_halves_are_both_kept():
    halves = "".join(f"<section><p>{p}</p><p>{p}</p></section>" for p in EN_PARAS[:2])
    text = body_of(page(nav() + halves))
    assert EN_PARAS[0] in text and EN_PARAS[1] in text


def test_in_container_noise_is_removed():
    html = page(
        "<div class='content'>"
        + "".join(f"<p>{p}</p>" for p in ZH_PARAS)
        + "<div class='share-bar'><span>分享到：</span><a href='#'>微博</a><a href='#'>微信</a></div>"
        + "<p>责任编辑：张三</p><p>版权所有 © 2019 某某新闻网</p>"
        + "<div class='related'><h3>相关阅读</h3><ul><li><a href='/1'>公交线路将再次调整的消息</a></li></ul></div>"
        + "</div>", lang="zh-CN")
    assert body_of(html).split("\n") == ZH_PARAS


def test_figure_captions_are_not_body():
    html = page("<article>" + f"<p>{EN_PARAS[0]}</p><figure><img src='a.jpg'><figcaption>The new buses at the depot "
                "on Monday.</figcaption></figure>" + f"<p>{EN_PARAS[1]}</p></article>")
    assert body_of(html).split("\n") == EN_PARAS[:2]


def test_leaf_stop_returns_the_parent():
    # One paragraph holds all valid characters: the walk reaches it and answers with its parent.
    html = page(f"<div class='x'><p>{EN_PARAS[0]}</p><span>Tags</span></div>")
    result = extract_body(load_page(html))
    assert result.node is not None and result.node.tag == "div"
    assert result.text.startswith(EN_PARAS[0])


def test_valid_characters_are_counted_bottom_up_without_link_text():
    html = page("<div><p>the cat sat on the mat</p><p><a href='/'>the dog and the ball</a></p><p>Gadgets</p></div>")
    stats = compute_stats(load_page(html).body)
    div = next(i for i, el in enumerate(stats.nodes) if el.tag == "div")
    assert stats.valid[div] == len("thecatsatonthemat")
    assert stats.link_chars[div] == len("thedogandtheball")
    assert stats.chars[div] == len("thecatsatonthematthedogandtheballGadgets")
    assert stats.valid[0] == stats.valid[div]


def test_alpha_controls_the_descent():
    html = page("<div id='a'><div id='b'><p>the first paragraph is here</p></div>"
                "<div id='c'><p>a second one that is a good deal longer than the first</p></div></div>")
    stats = compute_stats(load_page(html).body)
    at_half, _ = descend(stats, 0, 0.5, split=0)
    assert stats.nodes[at_half].get("id") == "c"
    at_high, _ = descend(stats, 0, 0.9, split=0)
    assert stats.nodes[at_high].get("id") == "a"


def test_page_without_prose_gives_empty_body():
    assert body_of(page(nav())) == ""


def test_very_deep_nesting_does_not_recurse():
    deep = "<div>" * 1500 + f"<p>{EN_PARAS[0]}</p>" + "</div>" * 1500
    assert EN_PARAS[0] in body_of(page(deep))


def test_source_line_breaks_do_not_split_paragraphs():
    html = page("<div><p>The council voted on Tuesday\nto expand the bus network\nby twelve routes.</p>"
                "<p>Officials said the plan had been\nin the works for years.</p></div>")
    assert body_of(html).split("\n") == ["The council voted on Tuesday to expand the bus network by twelve routes.",
                                         "Officials said the plan had been in the works for years."]


def test_old_gbk_portal_with_table_layout_and_br_paragraphs():
    # Late-1990s/2000s portal style: GB2312 label, layout tables, <font>, paragraphs split by <br>,
    # a link table for navigation and a "related news" table beside the article.
    links = "".join(f"<a href='/c{i}.html'>栏目{i}</a> | " for i in range(12))
    related = "".join(f"<tr><td><a href='/n{i}.html'>·市政府召开第{i}次常务会议研究部署有关工作</a></td></tr>" for i in range(8))
    article = "<br><br>".join(f"　　{p}" for p in ZH_PARAS)
    html = ("<html><head><meta http-equiv='Content-Type' content='text/html; charset=gb2312'><title>新闻中心</title>"
            f"</head><body><table width=760><tr><td>{links}</td></tr></table>"
            "<table width=760><tr><td width=560 valign=top><font size=4><b>全市新开十二条公交线路</b></font><br>"
            f"<font size=2>2004-06-12 10:10:20 来源：本报</font><br><font size=3>{article}</font></td>"
            f"<td width=200 valign=top><table>{related}</table></td></tr></table>"
            "<table><tr><td>版权所有 &copy; 2004 某某新闻网 联系我们</td></tr></table></body></html>").encode("gbk")
    body = body_of(html)
    for p in ZH_PARAS:
        assert p in body
    assert "常务会议" not in body and "栏目" not in body and "版权所有" not in body


def test_blog_post_in_gb18030_with_comments():
    paras = ZH_PARAS + ["这篇博客写于一个下雨的周末，我在家里整理了这些年拍下的照片。"]
    comments = "".join(f"<div class='comment'><p>网友{i}：写得真好，我也有同样的感受，谢谢博主的分享。</p></div>"
                       for i in range(12))
    html = ("<html><head><meta charset='gb18030'><title>我的博客</title></head><body>"
            "<div id='blog_nav'><a href='/'>首页</a><a href='/list'>博文目录</a><a href='/pic'>图片</a></div>"
            "<div class='articalContent'>" + "".join(f"<p>{p}</p>" for p in paras) + "</div>"
            f"<div id='comment_list'>{comments}</div></body></html>").encode("gb18030")
    assert body_of(html).split("\n") == paras


def test_language_without_stopword_list_falls_back_to_plain_text():
    # Thai, no lang attribute: no stopword list matches, non-link text still finds the article.
    paras = ["กรุงเทพมหานครประกาศขยายเส้นทางรถประจำทางสายใหม่จำนวนสิบสองสายภายในปีหน้า",
             "เจ้าหน้าที่กล่าวว่าแผนนี้อยู่ระหว่างการพิจารณามานานกว่าสองปีและจะใช้งบประมาณจากหลายแหล่ง"]
    html = ("<html><head><meta charset='utf-8'><title>ข่าว</title></head><body>"
            + "".join(f"<a href='/{i}'>หมวด{i}</a>" for i in range(10))
            + "<div class='x'>" + "".join(f"<p>{p}</p>" for p in paras) + "</div></body></html>").encode("utf-8")
    assert body_of(html).split("\n") == paras


def test_teaser_list_of_linked_headlines_with_excerpts_loses():
    # Each item: a linked headline and an excerpt that is prose (stopwords and all), more text in
    # total than the article; the linked-record shape marks it as a list.
    teasers = "<div class='ticker'><ul>" + "".join(
        f"<li><a href='/s{i}'>Story {i} headline here</a> NEW YORK: This is the opening of another story "
        f"that the site wants you to read next, and it goes on for a while {i}.</li>" for i in range(8)
    ) + "</ul></div>"
    html = page(f"<div class='left'>{teasers}<div class='body'>{''.join(f'<p>{p}</p>' for p in EN_PARAS)}</div></div>")
    assert body_of(html).split("\n") == EN_PARAS


def test_bulleted_list_inside_the_article_is_kept():
    items = ["Twelve new routes by the end of next year", "Buses every ten minutes at peak times",
             "Free transfers between all the lines"]
    html = page("<div class='body'>" + "".join(f"<p>{p}</p>" for p in EN_PARAS[:2])
                + "<ul>" + "".join(f"<li>{x}</li>" for x in items) + "</ul>" + f"<p>{EN_PARAS[2]}</p></div>")
    assert body_of(html).split("\n") == EN_PARAS[:2] + items + EN_PARAS[2:]


def test_noise_lines_are_furniture_only():
    from extraction.noise import is_noise_line

    furniture = ["Share this article", "Advertisement", "Updated: Nov 18, 2019 @17:26 PM", "Photo: Jane Doe / AP",
                 "Posted in: Sports | 3 comments |", "Tags: buses, council", "责任编辑：张三", "【编辑：李四】",
                 "分享到：", "相关阅读", "▲图为新开通的公交线路。", "（新华社记者 王五 摄）", "扫描下方二维码关注我们",
                 "版权所有 © 2019 某某新闻网", "\ue60e 12"]
    prose = ["Updated figures show 3 million people were affected by the storm.",
             "Share prices fell sharply on Monday after the announcement, traders said.",
             "分享经济成为新的增长点。", "举报人称他被骗了。", "记者从市交通运输局获悉，今年将新开十二条公交线路。",
             "他们正在进行拍摄", "来源：无锡交警"]
    assert [line for line in furniture if not is_noise_line(line)] == []
    assert [line for line in prose if is_noise_line(line)] == []
