"""Headline extraction on small hand-written pages (Chinese and English)."""
from __future__ import annotations

from extraction.dom import load_page
from extraction.titles import extract_headline, lcs_length, split_title, strip_site_name

ARTICLE_ZH = "<p>这是一篇新闻的正文内容，我们在这里写了很多文字，用于测试。</p>" * 5
ARTICLE_EN = "<p>This is the body of the story, and it has quite a few words in it for the test.</p>" * 5


def page(title: str, body: str, head_extra: str = "", url: str | None = None):
    html = f"<html><head><title>{title}</title>{head_extra}</head><body>{body}</body></html>"
    return load_page(html.encode("utf-8"), url=url)


def body_node(p):
    return p.root.find(".//div[@id='content']")


def test_lcs_length():
    assert lcs_length("多地项目连环爆雷_网易财经", "多地项目连环爆雷") == 8
    assert lcs_length("abc", "xyz") == 0
    assert lcs_length("", "abc") == 0


def test_h1_matching_title_is_the_headline_and_its_node_is_returned():
    p = page("姚明对周琦说了啥？周琦上下半场判若两人_网易新闻",
             f"<h2 class='title'>大家都爱看</h2><h1>姚明对周琦说了啥？周琦上下半场判若两人</h1>"
             f"<div id='content'>{ARTICLE_ZH}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "姚明对周琦说了啥？周琦上下半场判若两人"
    assert node is not None and node.tag == "h1"


def test_common_part_shorter_than_five_uses_title_without_site_name():
    # The <h1> is the site's banner: it shares only 4 characters with <title>.
    p = page("明日股市预测--最新出炉联合国贸发报告：全球经济增长率降至2.3%",
             f"<h1>今日股市行情_明日大盘_股市预测</h1><div id='content'>{ARTICLE_ZH}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "最新出炉联合国贸发报告：全球经济增长率降至2.3%"
    assert node is None


def test_empty_title_uses_h1():
    p = page("", f"<h1>A perfectly ordinary headline about rivers</h1><div id='content'>{ARTICLE_EN}</div>")
    headline, _ = extract_headline(p, body_node(p))
    assert headline == "A perfectly ordinary headline about rivers"


def test_logo_h1_sharing_the_site_name_does_not_win_over_the_real_heading():
    p = page("山西品牌丝路行（南美站）正式启动 - 山西省人民政府门户网站",
             f"<h1>山西省人民政府网站</h1><h2>山西品牌丝路行（南美站）正式启动</h2><div id='content'>{ARTICLE_ZH}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "山西品牌丝路行（南美站）正式启动"
    assert node.tag == "h2"


def test_logo_h1_alone_falls_back_to_stripped_title():
    p = page("山西品牌丝路行（南美站）正式启动 - 山西省人民政府门户网站",
             f"<h1>山西省人民政府网站</h1><div id='content'>{ARTICLE_ZH}</div>")
    headline, _ = extract_headline(p, body_node(p))
    assert headline == "山西品牌丝路行（南美站）正式启动"


def test_heading_with_category_link_and_dateline_is_trimmed_to_the_headline():
    p = page("US elections: Turnout appears high in many parts of the country - World News - IBNLive",
             "<h1>US elections: Turnout appears high in many parts of the country "
             "<span><a href='/world/'>World</a>, Updated Nov 07, 2012 at 02:56am IST</span></h1>"
             f"<div id='content'>{ARTICLE_EN}</div>")
    headline, _ = extract_headline(p, body_node(p))
    assert headline == "US elections: Turnout appears high in many parts of the country"


def test_quotes_differing_only_in_typography_still_match():
    p = page("W. Kamau Bell Asks, 'What's So Wrong With Cat Calling?'",
             f"<h1>W. Kamau Bell Asks, ‘What’s So Wrong With Cat Calling?’</h1><div id='content'>{ARTICLE_EN}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "W. Kamau Bell Asks, ‘What’s So Wrong With Cat Calling?’"
    assert node is not None


def test_title_naming_only_the_section_gives_way_to_the_heading_over_the_body():
    p = page("新闻动态--中国地理学会官网",
             "<div class='logo'><h2>中国地理学会</h2></div>"
             f"<h5>2019年中国人文地理学术年会在重庆成功举行！</h5><div id='content'>{ARTICLE_ZH}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "2019年中国人文地理学术年会在重庆成功举行！"
    assert node.tag == "h5"


def test_og_title_used_when_title_is_only_the_site_name():
    p = page("Example News", f"<div id='content'>{ARTICLE_EN}</div>",
             head_extra="<meta property='og:title' content='Council approves the new riverside park'>"
                        "<meta property='og:site_name' content='Example News'>")
    headline, _ = extract_headline(p, body_node(p))
    assert headline == "Council approves the new riverside park"


def test_title_named_element_without_h_tags():
    p = page("顺德区大良街道党工委委员一行到众创金融街开展调研工作 东区办事处_中山网",
             "<table><tr><td><span class='Title'><b>顺德区大良街道党工委委员一行到众创金融街开展调研工作</b></span>"
             f"</td></tr></table><div id='content'>{ARTICLE_ZH}</div>")
    headline, _ = extract_headline(p, body_node(p))
    assert headline == "顺德区大良街道党工委委员一行到众创金融街开展调研工作"


def test_heading_in_related_list_is_not_taken():
    p = page("Local bakery wins national bread award - Town Herald",
             "<div class='sidebar'><h3>Local bakery wins national bread award</h3></div>"
             f"<div id='content'>{ARTICLE_EN}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "Local bakery wins national bread award"
    assert node is None  # from <title>, not from the sidebar heading


def test_split_and_strip_site_name():
    assert strip_site_name("多地项目连环爆雷_网易财经") == "多地项目连环爆雷"
    assert strip_site_name("Storm hits coast | BBC News", ["bbc news"]) == "Storm hits coast"
    assert strip_site_name("BBC News - Storm hits the southern coast overnight") == \
        "Storm hits the southern coast overnight"
    assert strip_site_name("交通运输部：着力打造京津冀区域综合立体交通网络-股票频道-和讯网") == \
        "交通运输部：着力打造京津冀区域综合立体交通网络"
    assert strip_site_name("阿里发布最强AI芯片：性能“吊打”同行-EDN 电子技术设计") == "阿里发布最强AI芯片：性能“吊打”同行"
    # Hyphens inside words and numbers are not separators.
    assert split_title("1-10月德清县固定资产投资结构趋稳趋优") == ["1-10月德清县固定资产投资结构趋稳趋优"]
    assert split_title("X-Men review: the best one yet") == ["X-Men review: the best one yet"]
    assert split_title("COVID-19 cases fall again") == ["COVID-19 cases fall again"]
    # Only trailing name-like pieces come off at a bare hyphen; a hyphen inside a headline stays.
    assert strip_site_name("王者荣耀-新英雄上线，玩家：太强了_游戏频道") == "王者荣耀-新英雄上线，玩家：太强了"


def test_no_title_and_no_heading_gives_none():
    p = page("", f"<div id='content'>{ARTICLE_EN}</div>")
    assert extract_headline(p, body_node(p)) == (None, None)


def test_h1_shorter_than_a_long_seo_title_still_matches():
    p = page("Storm batters the coast as thousands lose power overnight in three counties | The Herald",
             f"<h1>Storm batters the coast tonight</h1><div id='content'>{ARTICLE_EN}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "Storm batters the coast tonight"
    assert node.tag == "h1"


def test_logo_heading_sharing_only_the_named_site_is_not_the_headline():
    p = page("Short news item | The Daily Herald",
             f"<h1>The Daily Herald</h1><div id='content'>{ARTICLE_EN}</div>",
             head_extra="<meta property='og:site_name' content='The Daily Herald'>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "Short news item"
    assert node is None


def test_bad_pages_give_a_result_not_an_exception():
    # A title of 50 000 characters, a page nested 1500 levels deep, a page without <body>.
    huge = page("标题" * 25_000, f"<div id='content'>{ARTICLE_ZH}</div>")
    headline, _ = extract_headline(huge, body_node(huge))
    assert headline is not None and len(headline) <= 400
    deep = page("Deep page headline here - Site", "<div>" * 1500 + "<h1>Deep page headline here</h1>" + "</div>" * 1500)
    headline, node = extract_headline(deep, None)
    assert headline == "Deep page headline here" and node.tag == "h1"
    bare = load_page(b"<title>Only a title, nothing else</title>")
    assert extract_headline(bare, None) == ("Only a title, nothing else", None)


def test_heading_equal_to_a_short_title_part_next_to_the_body():
    p = page("About bugs – Vortex Cannon Entertainment",
             f"<h1>About bugs</h1><div id='content'>{ARTICLE_EN}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "About bugs" and node.tag == "h1"
    # The same words in a logo far from the body are not taken: the title's longest part is.
    p = page("Vortex Cannon – About bugs and their fixes in the game",
             f"<h1>Vortex Cannon</h1><h2>Latest</h2><div id='content'>{ARTICLE_EN}</div>")
    assert extract_headline(p, body_node(p)) == ("About bugs and their fixes in the game", None)


def test_short_headline_equal_to_a_heading_is_taken_with_its_node():
    p = page("国务院常务会议_新闻中心_示例网",
             f"<h1>国务院常务会议</h1><h3>相关阅读列表</h3><div id='content'>{ARTICLE_ZH}</div>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "国务院常务会议" and node.tag == "h1"


def test_article_title_meta_is_a_reference():
    p = page("新闻中心", "<p class='con-title'>1-10月德清县固定资产投资结构趋稳趋优</p>"
             f"<div id='content'>{ARTICLE_ZH}</div>",
             head_extra="<meta name='ArticleTitle' content='1-10月德清县固定资产投资结构趋稳趋优'>")
    headline, node = extract_headline(p, body_node(p))
    assert headline == "1-10月德清县固定资产投资结构趋稳趋优" and node is not None
