"""Find publication-time expressions inside text and parse structured time values.

Hand-written on purpose: the article date sits inside running text ("2019-09-26 12:11来源：…",
"发布时间：10-0812:00", "June 12, 2014 10:10 GMT", "3小时前"), and the caller needs *where* each
match is to prefer the one nearest the headline. dateparser/htmldate parse a whole string or a
whole page and are far too slow for a per-page budget of a few milliseconds; python-dateutil is
used only as the last resort for structured (meta / JSON-LD) values no pattern here understands.

All patterns are compiled once at import; `find_times` is one pass per pattern over a short window.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone, tzinfo

# Earliest publication time accepted: older "dates" on news pages are founding years, history.
EARLIEST = datetime(2000, 1, 1)

_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
           "sep": 9, "oct": 10, "nov": 11, "dec": 12}
_MON = r"(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}\.?"

# Time of day: "10:10", "10:10:20", "12时55分", "下午3:05", "10:10 pm", optionally followed by a zone.
_CLOCK = (r"(?P<ampm1>上午|下午|晚上|凌晨|中午)?\s?(?P<H>[01]?\d|2[0-3])\s?(?::|：|时)\s?(?P<M>[0-5]\d)(?!\d)"
          r"(?:\s?(?::|：|分)\s?(?P<S>[0-5]\d)(?!\d))?(?:\.\d{1,6})?秒?"
          r"(?:\s?(?P<ampm2>[ap]\.?m\.?)(?![a-z]))?")
_ZONE = (r"(?:\s?(?P<zone>Z(?![a-z])|[+-](?:[01]\d):?[0-5]\d(?!\d)|(?:GMT|UTC)(?:\s?[+-]\d{1,2}(?::?\d{2})?)?"
         r"|北京时间))?")
_TIME_TAIL = rf"(?:(?:\s{{0,3}}|\s?[T,@|]\s?|\s?at\s)(?:{_CLOCK}){_ZONE})?"

# Two-digit day glued to the clock ("10-0812:00") is allowed because the day is at most two digits.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # 2014-06-12 10:10:20 / 2014/6/12 10:10 / 2016年06月13日 06:56 / 2014.06.12 / 2019 09/07 19:02
    ("ymd", re.compile(r"(?<![\d.])(?P<y>20\d{2}|19\d{2})(?:\s?[-/.年]\s?|\s+(?=\d{1,2}[/-]\d))"
                       r"(?P<m>1[0-2]|0?[1-9])\s?[-/.月]\s?(?P<d>3[01]|[12]\d|0?[1-9])(?!\d)\s?日?" + _TIME_TAIL,
                       re.I)),
    # 12/06/2014, 06/12/2014, 12.06.2014: day or month first by which one exceeds 12, else "/" is
    # read month-first (US usage) and "." day-first (European usage)
    ("num_y", re.compile(r"(?<![\d./-])(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})(?P=sep)(?P<y>20\d{2}|19\d{2})(?!\d)"
                         + _TIME_TAIL, re.I)),
    # June 12, 2014 / Jun. 12 2014 10:10 GMT
    ("mdy", re.compile(r"(?<![a-z])" + _MON + r"\s?(?P<d>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?,?\s(?P<y>20\d{2}|19\d{2})"
                       r"(?:(?!\d)|(?=\d{1,2}:\d{2}))"  # "Nov 20 20194:29 AM": the clock glued on
                       + _TIME_TAIL, re.I)),
    # 12 Jun 2014 10:10 GMT / 12 June, 2014
    ("dmy", re.compile(r"(?<!\d)(?P<d>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?\s?" + _MON + r",?\s(?P<y>20\d{2}|19\d{2})(?!\d)"
                       + _TIME_TAIL, re.I)),
    # 6月13日 [10:20] (no year)
    ("md_zh", re.compile(r"(?<!\d)(?P<m>1[0-2]|0?[1-9])月(?P<d>3[01]|[12]\d|0?[1-9])[日号]" + _TIME_TAIL)),
    # 19-09-07 13:43 (two-digit year: only with a clock)
    ("y2md", re.compile(r"(?<![\d./-])(?P<y2>\d{2})-(?P<m>1[0-2]|0[1-9])-(?P<d>3[01]|[12]\d|0[1-9])(?![\d-])\s{0,3}"
                        + _CLOCK + _ZONE)),
    # 06-13 10:20, 06/13 10:20, 10-0812:00 (no year: only with a clock, else it is a range or a score)
    ("md_num", re.compile(r"(?<![\d./-])(?P<m>1[0-2]|0?[1-9])[-/](?P<d>3[01]|[12]\d|0[1-9]|[1-9](?!\d))(?![/-]\d)\s{0,3}"
                          + _CLOCK + _ZONE)),
    # 3小时前 / 5 分钟前 / 2 hours ago / an hour ago
    ("ago", re.compile(r"(?P<n>\d{1,3}|an?|one|[一两二三四五六七八九十半])\s?(?P<unit>秒钟?|分钟|小时|个小时|天|周|个?星期|"
                       r"sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?|days?|weeks?)\s?(?:ago|前)", re.I)),
    # 今天 10:20 / 昨天 / 前天 / yesterday at 10:20 / today
    ("day_word", re.compile(r"(?P<word>今天|昨天|前天|today|yesterday)(?![a-z'’])" + _TIME_TAIL, re.I)),
    # 刚刚 / just now
    ("now", re.compile(r"刚刚|just now", re.I)),
]

_UNIT_SECONDS = {"秒": 1, "sec": 1, "分": 60, "min": 60, "小": 3600, "个": 3600, "hou": 3600, "hrs": 3600,
                 "hr": 3600, "天": 86400, "day": 86400, "周": 604800, "星": 604800, "wee": 604800}
_ZH_NUMBERS = {"半": 0.5, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_DAY_WORD_OFFSET = {"今天": 0, "today": 0, "昨天": 1, "yesterday": 1, "前天": 2}


@dataclass(frozen=True, slots=True)
class FoundTime:
    """One time expression: its span in the searched text and its value."""

    start: int
    end: int
    value: datetime  # aware when the text states a zone, else naive local time
    has_time: bool  # a time of day was written (or implied by a relative expression)
    has_year: bool  # the year was written (relative expressions count as having one)
    relative: bool = False


def _zone_of(token: str | None) -> tzinfo | None:
    if not token:
        return None
    t = token.strip().upper()
    if t in ("Z", "UTC", "GMT"):
        return timezone.utc
    if t == "北京时间":
        return timezone(timedelta(hours=8))
    m = re.fullmatch(r"(?:GMT|UTC)?\s?([+-])(\d{1,2}):?(\d{2})?", t)
    if not m:
        return None
    hours, minutes = int(m.group(2)), int(m.group(3) or 0)
    if hours > 14 or minutes > 59:
        return None
    sign = 1 if m.group(1) == "+" else -1
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def _clock_of(m: re.Match[str]) -> time | None:
    gd = m.groupdict()
    if gd.get("H") is None:
        return None
    hour, minute, second = int(gd["H"]), int(gd["M"]), int(gd.get("S") or 0)
    ampm = (gd.get("ampm1") or gd.get("ampm2") or "").lower().replace(".", "")
    if ampm in ("下午", "晚上", "pm") and hour < 12:
        hour += 12
    elif ampm in ("am", "凌晨") and hour == 12:
        hour = 0
    return time(hour, minute, second)


def _safe_date(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def local_now(now: datetime | None, zone: tzinfo | None) -> datetime:
    """`now` (default: the current time) as a naive wall-clock time in `zone` (or in UTC/local)."""
    if now is None:
        now = datetime.now(timezone.utc)
    if now.tzinfo is not None:
        now = now.astimezone(zone) if zone is not None else now
        return now.replace(tzinfo=None)
    return now


def _infer_year(month: int, day: int, now_local: datetime, year_hints: list[date]) -> int | None:
    """Year for a date written without one: a hint with the same day, else the latest year not in the future."""
    for hint in year_hints:
        if hint.month == month and hint.day == day:
            return hint.year
    # A structured time a few weeks away (a modification time) still tells the year.
    for hint in year_hints:
        near = _safe_date(hint.year, month, day)
        if near is not None and abs((near - hint).days) <= 60:
            return hint.year
    year = now_local.year
    candidate = _safe_date(year, month, day)
    if candidate is None or candidate > now_local.date():
        year -= 1
    return year


def _wall_clock(value: datetime, zone: tzinfo | None) -> datetime:
    """Naive wall-clock time of `value` on the page's clock (as written when it has no zone)."""
    if value.tzinfo is not None and zone is not None:
        value = value.astimezone(zone)
    return value.replace(tzinfo=None)


def find_times(text: str, now: datetime | None = None, zone: tzinfo | None = None,
               year_hints: list[date] | None = None) -> list[FoundTime]:
    """Every plausible time expression in `text`, in text order, overlapping matches removed.

    `now` anchors relative times and bounds the future; `zone` is the page's zone, used to read `now`
    as local wall-clock time; `year_hints` are full dates known from elsewhere on the page, used
    for dates written without a year.
    """
    now_local = local_now(now, zone)
    hints = year_hints or []
    found: list[FoundTime] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            start, end = m.span()
            if any(s < end and start < e for s, e in taken):
                continue
            item = _build(kind, m, now_local, hints)
            if item is None:
                continue
            wall = _wall_clock(item.value, zone)
            # A day of slack: a page's stated zone may be ahead of the fetch clock's.
            if wall < EARLIEST or wall > now_local + timedelta(days=1):
                continue
            taken.append((start, end))
            found.append(item)
    found.sort(key=lambda f: f.start)
    return found


def _build(kind: str, m: re.Match[str], now_local: datetime, hints: list[date]) -> FoundTime | None:
    gd = m.groupdict()
    start, end = m.span()
    if kind in ("ymd", "y2md", "num_y", "mdy", "dmy", "md_zh", "md_num"):
        if kind == "num_y":
            a, b = int(gd["a"]), int(gd["b"])
            month_first = b > 12 or (a <= 12 and gd["sep"] == "/")
            month, day = (a, b) if month_first else (b, a)
        else:
            month = _MONTHS[gd["mon"][:3].lower()] if gd.get("mon") else int(gd["m"])
            day = int(gd["d"])
        has_year = gd.get("y") is not None or gd.get("y2") is not None
        if gd.get("y2") is not None:
            year = 2000 + int(gd["y2"])
        else:
            year = int(gd["y"]) if has_year else _infer_year(month, day, now_local, hints)
        if year is None:
            return None
        d = _safe_date(year, month, day)
        if d is None:
            return None
        clock = _clock_of(m)
        value = datetime.combine(d, clock or time(0, 0))
        zone = _zone_of(gd.get("zone"))
        if zone is not None and clock is not None:
            value = value.replace(tzinfo=zone)
        return FoundTime(start, end, value, clock is not None, has_year)
    if kind == "ago":
        n_text = gd["n"].lower()
        n = 1 if n_text in ("a", "an", "one") else _ZH_NUMBERS.get(n_text) or int(n_text)
        unit = gd["unit"].lower()
        seconds = _UNIT_SECONDS.get(unit[:3]) or _UNIT_SECONDS.get(unit[:2]) or _UNIT_SECONDS.get(unit[:1])
        if seconds is None:
            return None
        value = now_local - timedelta(seconds=n * seconds)
        return FoundTime(start, end, value.replace(microsecond=0), True, True, relative=True)
    if kind == "day_word":
        offset = _DAY_WORD_OFFSET[gd["word"].lower()]
        d = now_local.date() - timedelta(days=offset)
        clock = _clock_of(m)
        value = datetime.combine(d, clock) if clock else datetime.combine(d, time(0, 0))
        return FoundTime(start, end, value, clock is not None, True, relative=True)
    if kind == "now":
        return FoundTime(start, end, now_local.replace(microsecond=0), True, True, relative=True)
    return None


_ISO_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_time_value(value: str, now: datetime | None = None, zone: tzinfo | None = None) -> FoundTime | None:
    """Parse a structured time value (meta content, JSON-LD, <time datetime>): ISO 8601 first,
    then the text patterns, then python-dateutil. None when nothing sane comes out."""
    value = (value or "").strip()
    if not value or len(value) > 100:
        return None
    now_local = local_now(now, zone)
    parsed: FoundTime | None = None
    try:
        dt = datetime.fromisoformat(value.replace("z", "Z")) if value[:4].isdigit() else None
    except ValueError:
        dt = None
    if dt is not None:
        parsed = FoundTime(0, len(value), dt, not _ISO_DATE_ONLY.match(value), True)
    elif value.isdigit() and len(value) in (10, 13):
        # Unix epoch seconds / milliseconds, as some CMSs write into meta tags.
        seconds = int(value) / (1000 if len(value) == 13 else 1)
        try:
            dt = datetime.fromtimestamp(seconds, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
        parsed = FoundTime(0, len(value), dt.astimezone(zone) if zone else dt, True, True)
    else:
        found = [f for f in find_times(value, now, zone) if not f.relative and f.has_year]
        if found:
            parsed = found[0]
        else:
            parsed = _dateutil_parse(value)
    if parsed is None:
        return None
    wall = _wall_clock(parsed.value, zone)
    if wall < EARLIEST or wall > now_local + timedelta(days=1):
        return None
    return parsed


def _dateutil_parse(value: str) -> FoundTime | None:
    from dateutil import parser as du_parser  # imported on demand: rarely needed

    if not re.search(r"(?:19|20)\d{2}", value):
        return None  # dateutil fills a missing year from today, which would invent a date
    try:
        dt = du_parser.parse(value, fuzzy=False)
    except (ValueError, OverflowError, TypeError):
        return None
    return FoundTime(0, len(value), dt, bool(dt.hour or dt.minute or dt.second), True)


def to_iso(value: datetime, zone: tzinfo | None) -> str:
    """ISO 8601 with seconds; the stated offset is kept, a naive time gets `zone` when known."""
    value = value.replace(microsecond=0)
    if value.tzinfo is None and zone is not None:
        value = value.replace(tzinfo=zone)
    return value.isoformat(timespec="seconds")
