"""Publication time of an article page.

Order of evidence:
1. structured data: JSON-LD datePublished, meta article:published_time / pubdate / publishdate / …,
   <time datetime> and itemprop=datePublished in the page;
2. dates written in the text around the headline (the meta line under it), at the top of the body
   node and just after it ("发布日期：…" footers), scored by a label ("发布时间", "Published"),
   completeness (year, time of day) and distance from the headline — a sidebar full of dates is
   never looked at, because only these windows are searched;
3. a date in the URL path.
When the structured value and the visible text agree on the day, the text's time of day wins
(it is what readers see; structured values are often the crawl or build time of that day); when
the visible time is the structured instant on another clock (meta in UTC, page in local time), the
visible one is returned with that offset. Generic keys (<meta name="date">) count only when the
text shows no date.

Result: ISO 8601 with seconds; the offset the page states, else the channel's zone (page.tz), else
a naive local time. Times written without a year take it from a structured date of the same
day when the page has one, else the latest year that does not put them in the future.
"""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import date, datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from lxml import etree

from .dom import Page
from .pagetext import Window, meta_windows
from .timeparse import FoundTime, find_times, local_now, parse_time_value, to_iso

# meta keys (lower-cased name/property/itemprop) stating the publication time, most trusted first.
PUBLISHED_META = (
    "article:published_time", "og:article:published_time", "og:published_time", "article:published",
    "published_time", "datepublished", "publishdate", "publish_date", "publish-date", "publishtime",
    "publish_time", "pubdate", "pubtime", "pub_date", "og:release_date", "releasedate", "release_date",
    "dc.date.issued", "dcterms.issued", "dc.date.created", "dcterms.created",
    "sailthru.date", "parsely-pub-date", "article.published", "citation_publication_date",
    "citation_date", "weibo:article:create_at", "og:time", "apub:time", "firstpublishedtime",
    "publication_date", "article_date_original", "originalpublicationdate",
)
# Generic keys that some CMSs fill with the build or crawl time: used when the text shows no date.
WEAK_PUBLISHED_META = ("dc.date", "dcterms.date", "date", "created")
# Keys of other times (modification, build): not the publication time, but they tell the year of
# a date written without one.
OTHER_TIME_META = (
    "article:modified_time", "og:updated_time", "datemodified", "dateupdate", "lastmodified",
    "last-modified", "modified", "maketime", "dc.date.modified", "dcterms.modified", "updated_time",
)

_STRONG_LABEL = re.compile(r"(?:发布|发表|发稿|刊发|出版|首发)(?:时间|日期|于)?|published|posted|pub(?:lished)?\s?date|"
                           r"release[sd]?|erschienen|publié", re.I)
_WEAK_LABEL = re.compile(r"时间|日期|\b(?:date|time|on)\b", re.I)
_UPDATE_LABEL = re.compile(r"更新|修改|updated|modified|last\s?edit|编辑于", re.I)
_LABEL_REACH = 14  # characters before a date searched for its label
_URL_DATE = re.compile(r"(?<!\d)(20\d{2})[/_-]?(1[0-2]|0[1-9])[/_-]?(3[01]|[12]\d|0[1-9])(?!\d)")
_RELATIVE_LINE_MAX = 40  # a relative time ("昨天", "3小时前") counts only on a short meta line
STORY_PENALTY = 1.5  # score taken off an unlabelled date inside the body's first lines


def _zone(page: Page) -> tzinfo | None:
    if not page.tz:
        return None
    try:
        return ZoneInfo(page.tz)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def _structured(page: Page, now: datetime | None,
                zone: tzinfo | None) -> tuple[FoundTime | None, FoundTime | None, list[date]]:
    """(the stated publication time, one from a generic key, dates of all structured times for year hints)."""
    published: FoundTime | None = None
    weak: FoundTime | None = None
    hints: list[date] = []
    values: list[tuple[str, str]] = []
    for item in page.jsonld:
        for key, kind in (("datePublished", "pub"), ("dateCreated", "pub"), ("dateModified", "other"),
                          ("uploadDate", "other")):
            v = item.get(key)
            if isinstance(v, str):
                values.append((kind, v))
    for keys, kind in ((PUBLISHED_META, "pub"), (WEAK_PUBLISHED_META, "weak"), (OTHER_TIME_META, "other")):
        for key in keys:
            v = page.meta.get(key)
            if v:
                values.append((kind, v))
    for kind, v in values:
        parsed = parse_time_value(v, now, zone)
        if parsed is None:
            continue
        hints.append(parsed.value.date())
        if kind == "pub" and published is None:
            published = parsed
        elif kind == "weak" and weak is None:
            weak = parsed
    return published, weak, hints


def _label_score(text: str, start: int) -> float:
    line_start = text.rfind("\n", max(0, start - _LABEL_REACH), start) + 1
    before = text[max(line_start, start - _LABEL_REACH):start]
    if not before.strip():
        return 0.0
    if _UPDATE_LABEL.search(before):
        return -2.0
    if _STRONG_LABEL.search(before):
        return 10.0
    if _WEAK_LABEL.search(before):
        return 3.0
    return 0.0


def _line_length(text: str, start: int, end: int) -> int:
    a = text.rfind("\n", 0, start) + 1
    b = text.find("\n", end)
    return (b if b >= 0 else len(text)) - a


_REGION_BONUS = {"head": 6.0, "foot": 3.0, "pre": 2.0}


def _text_candidates(wins: list[tuple[Window, str, int]], now: datetime | None, zone: tzinfo | None,
                     hints: list[date]) -> list[tuple[float, FoundTime]]:
    scored: list[tuple[float, FoundTime]] = []
    for win, region, anchor in wins:
        text = win.text
        body_at = win.marks.get("body")
        for found in find_times(text, now, zone, hints):
            a, b = found.start, found.end
            if found.relative and (region == "foot" or _line_length(text, a, b) > _RELATIVE_LINE_MAX):
                continue  # "今天下午" in a sentence, "Today's paper" in a footer menu: not the publication time
            label = _label_score(text, a)
            # A date inside the article's first lines is more often the story's ("9月20日，…") than its own.
            in_story = STORY_PENALTY if body_at is not None and a >= body_at and not label else 0.0
            score = (_REGION_BONUS[region] + label + 4.0 * found.has_year + 2.0 * found.has_time
                     - abs(a - anchor) / 200.0 - in_story)
            scored.append((score, found))
        for offset, value, says_published in win.attr_times:
            parsed = parse_time_value(value, now, zone)
            if parsed is None:
                continue
            score = (_REGION_BONUS[region] + (10.0 if says_published else 3.0) + 4.0 + 2.0 * parsed.has_time
                     - abs(offset - anchor) / 200.0)
            scored.append((score, parsed))
    return scored


def _url_date(url: str | None, now: datetime | None, zone: tzinfo | None) -> FoundTime | None:
    if not url:
        return None
    m = _URL_DATE.search(url)
    if not m:
        return None
    try:
        value = datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None
    if value > local_now(now, zone) + timedelta(days=1):
        return None
    return FoundTime(0, 0, value, False, True)


def _with_text_years(candidates: list[tuple[float, FoundTime]], hints: list[date]) -> list[tuple[float, FoundTime]]:
    """A date written without a year takes it from a full date of the same day elsewhere in the
    windows (when no structured time gave one)."""
    full = [f.value.date() for _, f in candidates if f.has_year and not f.relative]
    out = []
    for score, found in candidates:
        if not found.has_year and not any((h.month, h.day) == (found.value.month, found.value.day) for h in hints):
            same_day = next((d for d in full if (d.month, d.day) == (found.value.month, found.value.day)), None)
            if same_day is not None:
                found = replace(found, value=found.value.replace(year=same_day.year))
        out.append((score, found))
    return out


def _same_instant(seen: FoundTime, stated: FoundTime) -> datetime | None:
    """The visible time with its offset, when it is the structured instant shown on some clock
    (meta in UTC, page in local time): the page's own wall time and day are what readers see."""
    if not (seen.has_time and stated.has_time) or seen.relative or seen.value.tzinfo is not None \
            or stated.value.tzinfo is None:
        return None
    shown = seen.value.replace(second=0, microsecond=0)
    utc = stated.value.astimezone(timezone.utc).replace(tzinfo=None, second=0, microsecond=0)
    offset = shown - utc
    if abs(offset) > timedelta(hours=14) or offset.total_seconds() % 900:
        return None
    return seen.value.replace(tzinfo=timezone(offset))


def _wall_date(found: FoundTime) -> date:
    return found.value.date()


def extract_published(page: Page, headline_node: etree._Element | None = None,
                      body_node: etree._Element | None = None, *, use_structured: bool = True) -> str | None:
    """ISO 8601 publication time (with the page's/channel's zone offset when known), or None.

    `use_structured=False` ignores meta/JSON-LD (the benchmark measures the visible-text path with it)."""
    zone = _zone(page)
    now = page.fetched_at
    stated, weak, hints = _structured(page, now, zone) if use_structured else (None, None, [])
    candidates = _with_text_years(_text_candidates(meta_windows(page, headline_node, body_node), now, zone, hints), hints)
    seen = max(candidates, key=lambda c: c[0])[1] if candidates else None
    if stated is None and seen is None:
        stated = weak
    if stated is not None and seen is not None:
        shown = _same_instant(seen, stated)
        if shown is not None:
            return to_iso(shown, None)
    if stated is not None and zone is not None and stated.value.tzinfo is not None:
        # The same instant on the channel's clock, so its day compares with the page's visible dates.
        stated = replace(stated, value=stated.value.astimezone(zone))

    if stated is not None:
        if seen is not None and seen.has_time and _wall_date(seen) == _wall_date(stated):
            value = seen.value
            if value.tzinfo is None and stated.value.tzinfo is not None and stated.has_time:
                value = value.replace(tzinfo=stated.value.tzinfo)
            return to_iso(value, zone)
        return to_iso(stated.value, zone)
    if seen is not None:
        return to_iso(seen.value, zone)
    from_url = _url_date(page.url, now, zone)
    return to_iso(from_url.value, zone) if from_url is not None else None
