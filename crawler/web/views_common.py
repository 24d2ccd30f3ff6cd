"""Small helpers shared by the blueprints: turning backend records into plain dicts, and
formatting times for people."""
from __future__ import annotations

import dataclasses
from datetime import datetime, timezone, tzinfo
from typing import Any


def as_dict(record: Any) -> dict:
    """A plain dict of a backend record (dataclass, mapping or simple object)."""
    if record is None:
        return {}
    if isinstance(record, dict):
        return dict(record)
    if dataclasses.is_dataclass(record):
        return {f.name: getattr(record, f.name) for f in dataclasses.fields(record)}
    if hasattr(record, "_asdict"):
        return dict(record._asdict())
    return {k: v for k, v in vars(record).items() if not k.startswith("_")}


def to_datetime(value: Any) -> datetime | None:
    """datetime from a datetime, an ISO string or epoch seconds; None when it is none of those."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, timezone.utc)
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def fmt_time(value: Any, tz: tzinfo | None = None) -> str:
    """'2024-05-31 08:30 +0800': in `tz` (the crawl's default zone) when the time has a zone."""
    when = to_datetime(value)
    if when is None:
        return "" if value in (None, "") else str(value)
    if when.tzinfo is not None and tz is not None:
        when = when.astimezone(tz)
    return when.strftime("%Y-%m-%d %H:%M") + (when.strftime(" %z") if when.tzinfo else "")


def json_safe(value: Any) -> Any:
    """Datetimes as ISO strings, recursively, for JSON answers."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value


def fmt_duration(seconds: Any) -> str:
    """3600 -> '1 h', 90 -> '90 s', 86400 -> '1 d' (the largest unit that divides evenly, else one decimal)."""
    if seconds in (None, ""):
        return ""
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return str(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if s >= size:
            value = s / size
            return f"{value:g} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{s:g} s"


def safe_href(url: Any) -> str:
    """`url` for an href only when it is http(s): a stored `javascript:` URL must not become a
    clickable script (escaping alone does not stop that)."""
    from urllib.parse import urlsplit

    text = str(url or "").strip()
    try:
        scheme = urlsplit(text).scheme.lower()
    except ValueError:
        return ""
    return text if scheme in ("http", "https") else ""
