"""Post-time strings: the anchors PEAN counts and the times every forum extractor reports.

Hand-written on purpose: forum times are short, mixed-language, often relative ("3 小时前",
"Heute, 15:02", "vor 2 Stunden") and split over markup, and a matcher that also tells *where*
in the text the time sits is needed for anchor detection; dateparser-style libraries parse one
string but do not find times inside text, and are far too slow to run over every text node.
extraction/dates.py (article publication time) is written separately; once it exposes a
reusable finder, this module can delegate to it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

_MONTHS = {
    # English
    "jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
    "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8, "sep": 9, "sept": 9,
    "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
    # German
    "januar": 1, "jän": 1, "jänner": 1, "februar": 2, "mär": 3, "märz": 3, "maerz": 3, "mai": 5,
    "juni": 6, "juli": 7, "okt": 10, "oktober": 10, "dez": 12, "dezember": 12,
    # French
    "janv": 1, "janvier": 1, "févr": 2, "février": 2, "mars": 3, "avr": 4, "avril": 4, "juin": 6,
    "juil": 7, "juillet": 7, "août": 8, "déc": 12, "décembre": 12,
}
# Chinese month names as Spirit/Django render them ("21 八月 '24").
_ZH_MONTHS = {"一月": 1, "二月": 2, "三月": 3, "四月": 4, "五月": 5, "六月": 6, "七月": 7, "八月": 8,
              "九月": 9, "十月": 10, "十一月": 11, "十二月": 12}
# A letter run checked against _MONTHS afterwards: a regex alternation of ~70 month names is
# tried at every position of the text and was the slowest part of anchor finding.
_MONTH_RE = r"[^\W\d_]{3,9}"
_TIME = (r"(?:[\s,]*(?:um|at|à|@|-|\||kl\.)?\s*(?P<H>\d{1,2})[:：](?P<M>\d{2})(?:[:：](?P<S>\d{2}))?"
         r"(?:\s*Uhr)?\s*(?P<ampm>[ap]\.?\s?m\.?|上午|下午)?(?![\d]))?")
_PATTERNS = [
    ("ymd", re.compile(r"(?<!\d)(?P<y>(?:19|20)\d{2})\s?[-/.年]\s?(?P<m>\d{1,2})\s?[-/.月]\s?(?P<d>\d{1,2})(?!\d)日?(?:T(?=\d))?"
                       + _TIME, re.I)),
    ("dmy_dot", re.compile(r"(?<![\d.])(?P<d>\d{1,2})\.\s?(?P<m>\d{1,2})\.\s?(?P<y>(?:19|20)?\d{2})(?![\d.])" + _TIME, re.I)),
    ("mdy_slash", re.compile(r"(?<![\d/])(?P<m>\d{1,2})[/-](?P<d>\d{1,2})[/-](?P<y>(?:19|20)\d{2})(?![\d/])" + _TIME, re.I)),
    ("d_mon_y", re.compile(r"(?<!\w)(?P<d>\d{1,2})(?:st|nd|rd|th)?\.?[\s-]*(?P<mon>" + _MONTH_RE + r")\.?[\s,-]*(?P<y>(?:19|20)\d{2})(?!\d)" + _TIME, re.I)),
    ("mon_d_y", re.compile(r"(?<!\w)(?P<mon>" + _MONTH_RE + r")\.?\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>(?:19|20)\d{2})(?!\d)" + _TIME, re.I)),
    ("d_zhmon_y", re.compile(r"(?<!\d)(?P<d>\d{1,2})\s+(?P<zmon>十[一二]?月|[一二三四五六七八九]月)\s+'?(?P<y>\d{2,4})(?!\d)" + _TIME)),
    ("rel_day", re.compile(r"(?P<rel>today|yesterday|heute|gestern|vorgestern|aujourd'hui|hier|今天|昨天|前天)[\s,]*" + _TIME, re.I)),
    ("rel_ago", re.compile(r"(?P<n>\d{1,3}|an?|one|einer?|einem)\s*(?P<unit>sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?|days?|weeks?|"
                           r"Sekunden?|Minuten?|Stunden?|Tagen?|Wochen?|秒钟?|分钟|小时|个小时|天|周)\s*(?:ago|前)", re.I)),
    ("vor", re.compile(r"vor\s+(?P<n>\d{1,3}|einer?|einem)\s+(?P<unit>Sekunden?|Minuten?|Stunden?|Tagen?|Wochen?)", re.I)),
    ("just_now", re.compile(r"(?P<now>just now|gerade eben|刚刚)", re.I)),
]
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800, "秒": 1, "分": 60, "小": 3600, "个": 3600, "天": 86400, "周": 604800}


_RELATIVE_KINDS = {"rel_day", "rel_ago", "vor", "just_now"}
_RELATIVE_WORDS = ("ago", "vor ", "前", "today", "yesterday", "heute", "gestern", "aujourd", "hier",
                   "今天", "昨天", "just now", "gerade", "刚刚")


@dataclass(frozen=True)
class TimeMatch:
    start: int
    end: int
    value: datetime  # naive local time, or aware when the string carried an offset
    has_clock: bool  # hours and minutes were present (a bare date is a weaker anchor)


def _year(text: str) -> int:
    y = int(text)
    return y + 2000 if y < 100 else y


def _clock(m: re.Match) -> tuple[int, int, int, bool]:
    if m.group("H") is None:
        return 0, 0, 0, False
    h, mi, s = int(m.group("H")), int(m.group("M")), int(m.group("S") or 0)
    ampm = (m.group("ampm") or "").lower().replace(".", "").replace(" ", "")
    if ampm in ("pm", "下午") and h < 12:
        h += 12
    elif ampm in ("am", "上午") and h == 12:
        h = 0
    return h, mi, s, True


def _unit_seconds(unit: str) -> int:
    u = unit.lower()
    if u.startswith(("min", "分")):
        return 60
    if u.startswith(("std", "stu")):
        return 3600
    if u.startswith("tag"):
        return 86400
    if u.startswith("wo"):
        return 604800
    return _UNIT_SECONDS.get(u[0], 0)


def _build(kind: str, m: re.Match, now: datetime | None) -> tuple[datetime, bool] | None:
    try:
        if kind in ("ymd", "dmy_dot", "mdy_slash", "d_mon_y", "mon_d_y", "d_zhmon_y"):
            y = _year(m.group("y"))
            d = int(m.group("d"))
            if kind == "d_zhmon_y":
                mo = _ZH_MONTHS[m.group("zmon")]
            elif "mon" in m.re.groupindex:
                mo = _MONTHS.get(m.group("mon").lower())
                if mo is None:
                    return None
            else:
                mo = int(m.group("m"))
            if kind == "mdy_slash" and mo > 12 >= d:  # day/month/year written with slashes
                mo, d = d, mo
            h, mi, s, clock = _clock(m)
            return datetime(y, mo, d, h, mi, s), clock
        if now is None:
            return None  # a relative time means nothing without the fetch time
        base = now.replace(tzinfo=None)
        if kind == "rel_day":
            rel = m.group("rel").lower()
            back = 0 if rel in ("today", "heute", "aujourd'hui", "今天") else 2 if rel in ("vorgestern", "前天") else 1
            h, mi, s, clock = _clock(m)
            day = base - timedelta(days=back)
            return day.replace(hour=h, minute=mi, second=s, microsecond=0), clock
        if kind in ("rel_ago", "vor"):
            n_text = m.group("n").lower()
            n = int(n_text) if n_text.isdigit() else 1
            return (base - timedelta(seconds=n * _unit_seconds(m.group("unit")))).replace(microsecond=0), True
        if kind == "just_now":
            return base.replace(microsecond=0), True
    except (ValueError, KeyError, OverflowError):
        return None
    return None


def find_times(text: str, now: datetime | None = None, limit: int = 50) -> list[TimeMatch]:
    """All post-time strings in `text`, left to right, non-overlapping (longest match wins)."""
    if not text or not any(c.isdigit() for c in text) and not re.search(r"just now|gerade|刚刚|today|heute", text, re.I):
        return []
    found: list[TimeMatch] = []
    lowered = text.lower()
    relative = any(w in lowered for w in _RELATIVE_WORDS)
    for kind, rx in _PATTERNS:
        if kind in _RELATIVE_KINDS and not relative:
            continue
        for m in rx.finditer(text):
            built = _build(kind, m, now)
            if built is None:
                continue
            value, clock = built
            if not 1990 <= value.year <= 2100:
                continue
            found.append(TimeMatch(m.start(), m.end(), value, clock))
            if len(found) > limit * 4:
                break
    found.sort(key=lambda t: (t.start, -(t.end - t.start)))
    out: list[TimeMatch] = []
    for t in found:
        if out and t.start < out[-1].end:
            if t.end - t.start > out[-1].end - out[-1].start and t.start == out[-1].start:
                out[-1] = t
            continue
        out.append(t)
    return out[:limit]


def parse_time(text: str | None, now: datetime | None = None) -> TimeMatch | None:
    """The first time string in `text` (a title attribute, a date cell), or None."""
    if not text:
        return None
    found = find_times(text, now, limit=3)
    return found[0] if found else None


def parse_iso(text: str | None) -> datetime | None:
    """A machine-readable timestamp (ISO 8601 with or without offset, or Unix seconds)."""
    if not text:
        return None
    text = text.strip()
    if text.isdigit() and 9 <= len(text) <= 10:
        return datetime.fromtimestamp(int(text), tz=timezone.utc)
    iso = text.replace("Z", "+00:00")
    iso = re.sub(r"([+-]\d{2})(\d{2})$", r"\1:\2", iso)
    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return value if 1990 <= value.year <= 2100 else None


def to_iso(value: datetime) -> str:
    return value.isoformat(timespec="seconds")
