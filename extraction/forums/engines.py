"""Open-source forum engines, recognised by the markup they generate (never by URL), each with
the XPaths of its post structure.

A recogniser needs a *strict* marker: an id/class pattern only that engine emits (Discuz!'s
`postmessage_` cells, vBulletin's `post_message_` divs, XenForo's `data-author` posts ...) or
the engine's `<meta name="generator">`. When the marker is present but the structure yields
nothing, the caller falls back to PEAN.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree

from ..dom import Page
from ..result import Post
from .common import first_text, floor_marker, number_floors, post_content, time_from_element


def has_class(name: str) -> str:
    """XPath predicate: the class attribute holds `name` as a whole word."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


@dataclass(frozen=True)
class Engine:
    name: str
    marker: str  # XPath that must match for the page to be this engine's
    posts: str  # XPath of the post containers, in page order
    author: str  # relative XPath of the author element (or an attribute)
    time: str  # relative XPath of the element showing the post time
    content: str  # relative XPath of the post body
    skip: str = ""  # relative XPath (from the body) of extra subtrees to leave out
    generator: str = ""  # lower-case prefix of <meta name=generator> that also identifies it


C = has_class
ENGINES: tuple[Engine, ...] = (
    Engine("discuz", "//td[starts-with(@id,'postmessage_')]",
           "//div[starts-with(@id,'post_')][.//td[starts-with(@id,'postmessage_')]]",
           f".//div[{C('authi')}]/a[1] | .//a[{C('xw1')}]",
           ".//em[starts-with(@id,'authorposton')]",
           ".//td[starts-with(@id,'postmessage_')]",
           f".//div[{C('quote')}] | .//i[{C('pstatus')}]", generator="discuz"),
    Engine("phpbb", f"//div[{C('postbody')}]/div[{C('content')}] | //body[@id='phpbb']",
           f"//div[{C('post')}][.//div[{C('postbody')}]]",
           f".//dl[{C('postprofile')}]//a[contains(@class,'username')] | .//p[{C('author')}]//a[contains(@class,'username')]"
           f" | .//dl[{C('postprofile')}]//dt//strong | .//p[{C('author')}]//strong",
           f".//p[{C('author')}] | .//*[{C('author')}]",
           f".//div[{C('postbody')}]//div[{C('content')}]", generator="phpbb"),
    Engine("vbulletin4", f"//li[starts-with(@id,'post_')][{C('postcontainer')}]",
           f"//li[starts-with(@id,'post_')][{C('postcontainer')}]",
           f".//a[contains(@class,'username')] | .//*[{C('username')}]",
           f".//span[{C('date')}] | .//div[{C('posthead')}]",
           ".//div[starts-with(@id,'post_message_')]",
           f".//div[{C('bbcode_container')}]", generator="vbulletin"),
    Engine("vbulletin3", "//div[starts-with(@id,'post_message_')]",
           "//table[starts-with(@id,'post')][.//div[starts-with(@id,'post_message_')]]",
           f".//a[{C('bigusername')}] | .//div[starts-with(@id,'postmenu_')]",
           f".//td[{C('thead')}][1]",
           ".//div[starts-with(@id,'post_message_')]",
           "./div[div[@class='smallfont'] and table]", generator="vbulletin"),
    Engine("xenforo2", f"//article[{C('message--post')}]",
           f"//article[{C('message--post')}]",
           "@data-author",
           f".//*[{C('message-attribution-main')}]//time | .//header[contains(@class,'message-attribution')]//time",
           f".//article[{C('message-body')}]//div[{C('bbWrapper')}]", generator="xenforo"),
    Engine("xenforo1", f"//li[starts-with(@id,'post-')][{C('message')}][@data-author]",
           f"//li[starts-with(@id,'post-')][{C('message')}][@data-author]",
           "@data-author",
           f".//*[{C('datePermalink')}] | .//*[{C('DateTime')}]",
           f".//blockquote[{C('messageText')}]",
           f".//*[{C('messageTextEndMarker')}] | .//*[{C('bbCodeQuote')}]", generator="xenforo"),
    Engine("discourse", "//meta[@name='generator'][starts-with(@content,'Discourse')] | //div[contains(@class,'crawler-post')]",
           f"//div[{C('crawler-post')}] | //div[@itemprop='comment'] | //div[@itemprop='articleBody']/ancestor::div[{C('topic-body')}][1]",
           f".//span[{C('creator')}]//*[@itemprop='name'] | .//span[{C('creator')}]",
           ".//time[@itemprop='datePublished'] | .//*[@itemprop='datePublished']",
           f".//div[{C('post')}][@itemprop='articleBody' or @itemprop='text'] | .//div[{C('post')}]",
           ".//aside[contains(@class,'quote')]", generator="discourse"),
    Engine("invision", "//article[starts-with(@id,'elComment_')] | //div[@data-role='commentContent']",
           "//article[starts-with(@id,'elComment_')]",
           ".//*[contains(@class,'cAuthorPane_author')]//a | .//*[contains(@class,'cAuthorPane_author')]",
           ".//time",
           ".//div[@data-role='commentContent']",
           ".//div[@data-role='memberSignature']", generator="invision"),
    Engine("vanilla", f"//li[{C('ItemComment')}] | //div[{C('ItemDiscussion')}]",
           f"//div[{C('ItemDiscussion')}] | //li[{C('ItemComment')}]",
           f".//a[{C('Username')}] | .//*[{C('Author')}]//a",
           ".//time",
           f".//div[{C('Message')}]", generator="vanilla"),
    Engine("fluxbb", f"//div[{C('blockpost')}]",
           f"//div[{C('blockpost')}]",
           f".//div[{C('postleft')}]//dt//strong | .//div[{C('postleft')}]//dt",
           ".//h2",
           f".//div[{C('postmsg')}]", generator="fluxbb"),
    Engine("phorum", f"//div[@id='phorum']//div[{C('message-body')}]",
           f"//div[@id='phorum']//div[{C('message')}][.//div[{C('message-body')}]]",
           ".//div[contains(@class,'message-author')]/a | .//div[contains(@class,'message-author')]",
           ".//small",
           f".//div[{C('message-body')}]", generator="phorum"),
    Engine("woltlab", f"//article[contains(@class,'wbbPost')] | //*[{C('wbbThreadPostList')}]",
           "//article[contains(@class,'wbbPost')]",
           f"@data-username | .//*[{C('messageAuthor')}]//*[{C('username')}]",
           f".//*[{C('messageHeader')}]//time | .//time",
           f".//div[{C('messageText')}]", generator="woltlab"),
    Engine("inyoka", "//table[contains(@class,'topic')]//tr[starts-with(@id,'post-')]",
           "//table[contains(@class,'topic')]//tr[starts-with(@id,'post-')]",
           f".//td[{C('author')}]//p[{C('username')}]//a | .//td[{C('author')}]//p[{C('username')}]",
           f".//div[{C('postinfo')}] | .//td[{C('post')}]//*[contains(@class,'linklist')]",
           f".//td[{C('post')}]//div[{C('text')}]", generator="inyoka"),
    Engine("spirit", f"//div[{C('comments_list__comment')}]",
           f"//div[{C('comments_list__comment')}]",
           f".//a[{C('comment__info__username__link')}] | .//*[{C('comment__info__username')}]",
           f".//*[{C('comment__info')}]//li[@title] | .//*[{C('comment__date')}]",
           f".//div[{C('comment__text')}]", generator="spirit"),
)


# Literals a marker branch needs in a class, id or data-role value (has_class, contains(@class),
# starts-with(@id), @id= / @data-role=): a branch whose literal no such value contains cannot
# match, so its whole-document XPath scan is skipped. Fourteen scans per page were a tenth of
# the extraction time of an ordinary article.
_LITERAL = re.compile(r"normalize-space\(@class\), ' '\), ' ([^' ]+) '\)|contains\(@class,\s*'([^']+)'\)"
                      r"|starts-with\(@id,\s*'([^']+)'\)|@(?:id|data-role)='([^']+)'")
_ATTR_VALUES = etree.XPath("//@class | //@id | //@data-role", smart_strings=False)


@lru_cache(maxsize=64)
def _branches(marker: str) -> tuple[tuple[etree.XPath, tuple[str, ...]], ...]:
    """(compiled XPath, required literals) per " | " branch of a marker; bad XPaths are left out."""
    out = []
    for branch in marker.split(" | "):
        try:
            xpath = etree.XPath(branch.strip())
        except etree.XPathError:
            continue
        literals = tuple(lit for m in _LITERAL.finditer(branch) for lit in m.groups() if lit)
        out.append((xpath, literals))
    return tuple(out)


def _marker_found(root: etree._Element, engine: Engine, attr_text: str) -> bool:
    for xpath, literals in _branches(engine.marker):
        if any(lit not in attr_text for lit in literals):
            continue
        try:
            if xpath(root):
                return True
        except etree.XPathError:
            continue
    return False


def _find_engine_markup(root: etree._Element) -> Engine | None:
    attr_text = "\n".join(_ATTR_VALUES(root))
    return next((e for e in ENGINES if _marker_found(root, e, attr_text)), None)


def recognise(page: Page, strict: bool = False) -> Engine | None:
    """The engine that generated the page, by its markup (strict markers) or, unless `strict`,
    by its generator meta (which board and list pages of the engine carry as well)."""
    # Markup is checked once per page (the classifier and the forum path both ask); markers are
    # absolute paths, so one evaluation from the root covers the whole document.
    if "engine_markup" not in page.cache:
        page.cache["engine_markup"] = _find_engine_markup(page.root)
    if page.cache["engine_markup"] is not None:
        return page.cache["engine_markup"]
    generator = (page.meta.get("generator") or "").lower()
    if generator and not strict:
        for engine in ENGINES:
            if engine.generator and generator.startswith(engine.generator):
                return engine
    return None


def _alternatives(xpath: str) -> list[str]:
    # "a | b" in a spec means "a, else b" (XPath unions would return document order instead).
    return [part.strip() for part in xpath.split(" | ")]


def _first(el: etree._Element, xpath: str):
    for alternative in _alternatives(xpath):
        found = el.xpath(alternative)
        if found:
            return found[0]
    return None


def _author(el: etree._Element, xpath: str) -> str | None:
    for alternative in _alternatives(xpath):
        for found in el.xpath(alternative):
            text = " ".join(found.split()) if isinstance(found, str) else first_text(found)
            if text:
                return text
    return None


def extract_with_engine(page: Page, engine: Engine) -> list[Post]:
    """Posts by the engine's own structure; [] when the structure is not there."""
    containers = page.root.xpath(engine.posts)
    # Nested matches (a container inside another) would duplicate posts: keep the outermost.
    chosen: list[etree._Element] = []
    chosen_set: set = set()
    for el in containers:
        if any(anc in chosen_set for anc in el.iterancestors()):
            continue
        chosen.append(el)
        chosen_set.add(el)
    posts: list[Post] = []
    markers: list[int | None] = []
    for el in chosen:
        body = _first(el, engine.content)
        if body is None or isinstance(body, str):
            continue
        skip = body.xpath(engine.skip) if engine.skip else []
        content = post_content(body, skip)
        time_el = _first(el, engine.time)
        published = time_from_element(time_el, page.fetched_at) if time_el is not None and not isinstance(time_el, str) else None
        posts.append(Post(author=_author(el, engine.author), datePublished=published, content=content))
        markers.append(floor_marker(el))
    number_floors(posts, markers)
    return posts
