"""Boilerplate recognisers for the body extractor: blocks and lines that sit inside or beside the
article container but are not the article (share bars, "related" lists, comments, editor and
copyright lines, link lists).

Everything here judges one element or one line from its own tag, class/id words and text; none of
it knows any site.
"""
from __future__ import annotations

import re

from lxml import etree

# Tags whose subtree is page furniture wherever it appears.
NOISE_TAGS = frozenset({"nav", "aside", "footer", "menu", "dialog", "figure", "figcaption"})

# class/id words of furniture blocks. Long distinctive words match anywhere in the attribute
# (camelCase and run-together names are common: "commentsContainer", "sharebar"); short ones
# only as whole words.
_NEGATIVE_ANYWHERE = (
    "comment", "disqus", "sidebar", "side-bar", "related", "recommend", "footer",
    "breadcrumb", "social", "sharing", "share-", "-share", "sharebar", "subscribe", "newsletter",
    "advert", "sponsor", "promo", "popular", "trending", "mostread", "most-read", "outbrain",
    "taboola", "cookie", "pagination", "paging", "signup", "sign-up", "login", "toolbar",
    "copyright", "masthead", "navbar", "navigation", "dropdown", "modal", "popup", "banner",
    "rightrail", "right-rail", "leftrail", "skyscraper", "byline-share", "author-bio", "authorbio",
    "caption", "gallery", "slideshow", "photo-credit", "image-credit", "read-more", "readmore", "more-stories", "morestories", "newsletter", "jiathis", "bdshare",
    # Pinyin names on Chinese portals: recommended, related, share, disclaimer, ranking, comments.
    "tuijian", "xiangguan", "fenxiang", "shengming", "shenming", "paihang", "pinglun",
)
_NEGATIVE_WORDS = ("nav", "menu", "ads", "tags", "rail", "share", "foot", "aside", "print", "xgyd",
                   "xgwz", "pinglun")
_POSITIVE_WORDS = re.compile(r"article|content|entry|story|post-?body|main|text|body|detail|zhengwen|artibody")

_NEGATIVE_RE = re.compile(
    "|".join(map(re.escape, _NEGATIVE_ANYWHERE))
    + "|" + r"(?:^|[\s_\-])(?:" + "|".join(map(re.escape, _NEGATIVE_WORDS)) + r")(?:$|[\s_\-\d])"
)


def hint_text(el: etree._Element) -> str:
    return f"{el.get('class') or ''} {el.get('id') or ''}".lower().strip()


def is_noise_block(el: etree._Element) -> bool:
    """Furniture by tag or by class/id words (unless the words also say it holds the article)."""
    return is_noise_hints(el.tag, el.get("class"), el.get("id"))


def is_noise_hints(tag: str, cls: str | None, id_: str | None) -> bool:
    if tag in NOISE_TAGS:
        return True
    if not (cls or id_) or tag in ("body", "html"):
        return False
    hints = f"{cls or ''} {id_ or ''}".lower()
    if _NEGATIVE_RE.search(hints) is None:
        return False
    return _POSITIVE_WORDS.search(hints) is None


_COMMENTS_RE = re.compile(r"comment|disqus|pinglun|replies|reply-list")


def is_comment_block(cls: str | None, id_: str | None) -> bool:
    """Reader comments: furniture even when they outweigh the article (short news, long threads)."""
    hints = f"{cls or ''} {id_ or ''}".lower()
    return _COMMENTS_RE.search(hints) is not None and _POSITIVE_WORDS.search(hints) is None


# Whole lines that are furniture even inside the article container.
_NOISE_LINE = re.compile(
    r"""^(?:
        (?:责任编辑|责编|编辑|本文编辑|校对|审核|值班编辑)\s*[:：|丨]?.{0,20}$
      | (?:copyright|©|\(c\)|版权所有|版权声明|免责声明).{0,200}$
      | (?:share|share\s+this(?:\s+article|\s+story)?|share\s+on\s+\w+|tweet|email|print|advertisement|advertisement\s*-\s*continue\s+reading\s+below|continue\s+reading|read\s+more|related(?:\s+(?:articles?|stories|posts|content|coverage|reading))?|more\s+from\s+.{0,40}|recommended(?:\s+for\s+you)?|sponsored(?:\s+content)?|sign\s+up.{0,80}|subscribe.{0,80}|follow\s+us.{0,60}|click\s+here.{0,60}|caption|close|back\s+to\s+gallery|advert|continue\s+reading\s+below|don['’]t\s+miss|like\s+this\s+(?:story|article)\?.{0,60}|(?:photo|image|picture|credit)s?\s*:.{0,80}|\((?:photo|image|picture)s?\s*:.{0,80}\)|like\s+this|like\s+loading\.*|comments?|leave\s+a\s+(?:comment|reply)|\d+\s+comments?)\s*[:.!]?$
      | (?=.{0,90}$)(?:posted|updated|published|last\s+updated|发布时间|发表于|更新时间)\s*(?:on|at)?\s*[:：]?\s*
          [\w ,./:|·-]{0,40}(?:\d{1,4}\s*[-/.年]\s*\d{1,2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}|\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)|\d{1,2}:\d{2})[\w ,./:|·@-]{0,60}$
      | (?:分享到|分享至|相关阅读|相关新闻|相关文章|相关资讯|延伸阅读|延伸\s*·\s*推荐|推荐阅读|为你推荐|热门推荐|更多精彩|点击进入|返回首页|打印本页|关闭窗口|【纠错】|扫一扫|微信扫一扫|您所在的位置|当前位置\s*[:：]).{0,40}$
      | (?:分享|举报|收藏|点赞|打印|关闭)\s*[:：]?$
      | (?:posted|filed)\s+(?:in|under)\s*:.{0,100}$
      | (?:tags?|categories|category|topics|标签|关键词|关键字|tag)\s*[:：].{0,100}$
      | [▲△↑].{0,80}$
      | [(（]?.{0,40}(?:记者|通讯员|摄影|[\s/])\S{1,12}\s*(?:摄|供图)[）)]?$
      | [(（]?(?:图片来源|图源|来源[:：].{0,20}图|资料图|视频截图).{0,30}$
      | .{0,80}(?:资料图|截图)[）)]?[。.]?$
      | .{0,80}[(（]\S{1,12}\s*摄[）)][。.]?$
      | (?:图为|上图|下图|图[:：]).{0,80}$
      | [【(（]?\s*(?:责任编辑|编辑|责编)\s*[:：].{0,20}[】)）]?$
      | .{0,40}责任编辑\s*[:：].{0,30}$
      | (?:您的浏览器暂时无法播放此视频|your\s+browser\s+does\s+not\s+support.{0,40}).{0,10}$
      | .{0,20}(?:扫描|扫码|长按|识别).{0,10}二维码.{0,30}$
    )""",
    re.I | re.X,
)


# Icon-font glyphs (private use area) and undecodable bytes carry no text.
_GLYPH_ONLY = re.compile(r"^[\ue000-\uf8ff\ufffd\d\s\W]*$")
_GLYPHS = re.compile(r"[\ue000-\uf8ff\ufffd]")


def is_noise_line(line: str) -> bool:
    if _GLYPHS.search(line) and _GLYPH_ONLY.match(line):
        return True
    return _NOISE_LINE.match(line) is not None
