"""List pages: every link (inside `detail_xpath`, if given) whose absolute URL matches
`detail_url_regex` is a detail URL. List pages themselves are fetched every run, never deduplicated."""
from __future__ import annotations

from lxml import etree, html

from .links import EntryPage, Found, SourceError, compile_regex, resolve


def _decode(page: EntryPage) -> etree._Element:
    # The extraction library's decoder knows <meta charset>, BOMs and the gb2312-means-gbk rules.
    from extraction.decode import decode_html

    text = decode_html(page.body, page.content_type).text
    try:
        return html.document_fromstring(text, parser=html.HTMLParser(remove_comments=True))
    except (etree.ParserError, ValueError) as exc:
        raise SourceError(f"list page {page.url} is not HTML: {exc}") from None


def hrefs(root: etree._Element, xpath: str | None) -> list[str]:
    """href values of links, in page order: all <a> (or those under/at `xpath`), or the strings it selects."""
    if not xpath:
        return [a.get("href") for a in root.iter("a") if a.get("href")]
    try:
        selected = root.xpath(xpath)
    except etree.XPathError as exc:
        raise SourceError(f"invalid detail_xpath {xpath!r}: {exc}") from None
    out: list[str] = []
    for item in selected if isinstance(selected, list) else [selected]:
        if isinstance(item, etree._Element):
            if item.tag == "a" and item.get("href"):
                out.append(item.get("href"))
            else:
                out.extend(a.get("href") for a in item.iter("a") if a.get("href"))
        elif isinstance(item, str):
            out.append(str(item))
    return out


def links_from_html(page: EntryPage, regex: str | None, xpath: str | None) -> Found:
    pattern = compile_regex(regex)
    if pattern is None and not xpath:
        raise SourceError("a list or meta-search channel needs detail_url_regex or detail_xpath")
    root = _decode(page)
    base_el = root.find(".//base")
    base = resolve(page.url, base_el.get("href")) if base_el is not None and base_el.get("href") else page.url
    found = Found()
    candidates = hrefs(root, xpath)
    for href in candidates:
        url = resolve(base or page.url, href)
        if url and (pattern is None or pattern.search(url)):
            found.add(url)
    if not found.links:
        found.warnings.append(f"0 links on {page.url} matched (of {len(candidates)} candidate links; "
                              f"regex={regex!r}, xpath={xpath!r})")
    return found


def parse(page: EntryPage, job) -> Found:
    return links_from_html(page, job.detail_url_regex, job.detail_xpath)
