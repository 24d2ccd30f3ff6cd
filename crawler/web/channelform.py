"""The channel form: which Channel fields a person edits, how their text becomes values, and
the checks run before saving (type errors here, then crawler.store.validate_channel).

Everything else in a channels row (claims, last-run counts, flags) belongs to the controller and
is never written from the form.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from crawler.store import KINDS, Channel, validate_channel


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str = "text"  # text | int | float | bool | choice
    help: str = ""
    required: bool = False
    choices: tuple[str, ...] = ()


FIELDS = (
    Field("name", "Name", required=True, help="unique, shown in lists and the log"),
    Field("kind", "Kind", "choice", required=True, choices=KINDS,
          help="rss: a feed · metasearch: a search-result URL with {keyword} · listpage: a page of links · sitemap"),
    Field("entry_url", "Entry URL", required=True, help="absolute http(s) URL; metasearch: contains {keyword}"),
    Field("detail_url_regex", "Detail URL regex", help="links to follow (list and meta-search pages)"),
    Field("detail_xpath", "Detail links XPath", help="where on the page the links are (optional)"),
    Field("site", "Site", help="host name the articles are filed under (optional)"),
    Field("language", "Language", help="zh, en, … (optional)"),
    Field("tz", "Time zone", help="for dates written without a zone, e.g. Asia/Shanghai (optional)"),
    Field("interval_s", "Interval (s)", "int", required=True, help="time between runs; adapted between min and max"),
    Field("min_interval_s", "Min interval (s)", "int", required=True),
    Field("max_interval_s", "Max interval (s)", "int", required=True),
    Field("priority", "Priority", "int", required=True, help="higher runs first"),
    Field("politeness_delay_s", "Delay per request (s)", "float", required=True),
    Field("enabled", "Enabled", "bool"),
    Field("xpath_headline", "Headline XPath override"),
    Field("xpath_body", "Body XPath override"),
    Field("xpath_date", "Date XPath override"),
)
FIELD_NAMES = tuple(f.name for f in FIELDS)
MAX_TEXT = {"name": 200, "entry_url": 2048, "site": 255, "language": 16, "tz": 64}  # column widths
DEFAULT_MAX_TEXT = 1024
MAX_KEYWORD = 200  # keywords.keyword column width
MAX_KEYWORDS = 500


def form_values(channel: Channel | None) -> dict[str, Any]:
    """The form's initial values: a channel's, or the defaults of a new one."""
    source = channel or Channel(name="", kind="rss", entry_url="")
    return {f.name: getattr(source, f.name) for f in FIELDS}


def parse_form(form: Mapping[str, str]) -> tuple[dict[str, Any], dict[str, str]]:
    """(values, {field: problem}). Values keep what was typed where it did not parse, so the
    form can be shown again with the person's input intact."""
    values: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for f in FIELDS:
        if f.kind == "bool":
            values[f.name] = form.get(f.name) in ("1", "on", "true", "yes")
            continue
        raw = (form.get(f.name) or "").strip()
        values[f.name] = raw
        if not raw:
            if f.required:
                problems[f.name] = f"{f.label} is required"
            else:
                values[f.name] = None
            continue
        if f.kind == "int":
            try:
                values[f.name] = int(raw)
            except ValueError:
                problems[f.name] = f"{f.label}: {raw!r} is not a whole number"
        elif f.kind == "float":
            try:
                number = float(raw)
            except ValueError:
                problems[f.name] = f"{f.label}: {raw!r} is not a number"
            else:
                if not 0 <= number <= 3600:
                    problems[f.name] = f"{f.label} must be between 0 and 3600 seconds"
                values[f.name] = number
        elif f.kind == "choice" and raw not in f.choices:
            problems[f.name] = f"{f.label}: {raw!r} is not one of {', '.join(f.choices)}"
        elif len(raw) > MAX_TEXT.get(f.name, DEFAULT_MAX_TEXT):
            problems[f.name] = f"{f.label} is too long (at most {MAX_TEXT.get(f.name, DEFAULT_MAX_TEXT)} characters)"
    return values, problems


def check_channel(values: Mapping[str, Any], field_problems: Mapping[str, str]) -> list[str]:
    """All problems as sentences: the form's own, then the store's rules (only once the values
    have their types, since validate_channel compares numbers)."""
    problems = list(field_problems.values())
    if not problems:
        problems = validate_channel(dict(values))
    return problems


def parse_keywords(text: str | None) -> tuple[list[str], list[str]]:
    """(keywords, problems) from a one-per-line text box: trimmed, blank lines and repeats dropped."""
    keywords: list[str] = []
    seen: set[str] = set()
    problems: list[str] = []
    for line in (text or "").splitlines():
        keyword = line.strip()
        if not keyword or keyword in seen:
            continue
        if len(keyword) > MAX_KEYWORD:
            problems.append(f"keyword {keyword[:30]!r}… is too long (at most {MAX_KEYWORD} characters)")
            continue
        seen.add(keyword)
        keywords.append(keyword)
    if len(keywords) > MAX_KEYWORDS:
        problems.append(f"{len(keywords)} keywords: at most {MAX_KEYWORDS} per channel")
    return keywords, problems
