"""The channel store: channels, keywords, templates and the crawl log, in MySQL or SQLite.

`open_store(db_url)` picks the backend from the URL (`mysql://user:pass@host:3306/db` or
`sqlite:///relative/path.sqlite3`, `sqlite:////abs/path`, `sqlite://:memory:`). Both run the
same SQL (written with `?` placeholders; the MySQL backend turns them into `%s`) against tables
of the same names and columns (sql/migrations/ and sql/migrations/sqlite/), migrated on open.

Every value goes in as a bound parameter; column names only ever come from `CHANNEL_COLUMNS`.
Times are timezone-aware UTC datetimes in Python and UTC in the database.

Who writes what:
- the controller claims due channels (`claim_due_channels`), dispatches their jobs and calls
  `finish_run` with the counts of the previous run, the new interval and next_run_at;
- spiders and workers report each job with `log_crawl(channel_id, "job" | "extract", found=...,
  new=..., extracted=..., invalid=..., errors=...)`; the controller sums those rows
  (`run_totals`) to judge a channel's yield.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping
from urllib.parse import urlsplit

SQL_DIR = Path(__file__).resolve().parent.parent / "sql"
KINDS = ("rss", "metasearch", "listpage", "sitemap")
# crawl_log events written by the controller itself; all others are job reports summed as yield
CONTROLLER_EVENTS = ("dispatch", "rejected", "flagged", "unflagged", "requeue")


class StoreError(RuntimeError):
    """The database refused an operation (message says which and why)."""


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(value: datetime | float | int | str | None) -> datetime | None:
    """datetime (naive = UTC), epoch seconds or ISO text -> aware UTC datetime."""
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, timezone.utc)
    if isinstance(value, str):
        value = datetime.fromisoformat(value.strip())
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


@dataclass
class Channel:
    """One row of `channels`."""
    name: str
    kind: str
    entry_url: str
    id: int | None = None
    detail_url_regex: str | None = None
    detail_xpath: str | None = None
    site: str | None = None
    language: str | None = None
    tz: str | None = None
    interval_s: int = 3600
    min_interval_s: int = 300
    max_interval_s: int = 86400
    priority: int = 0
    politeness_delay_s: float = 1.0
    enabled: bool = True
    next_run_at: datetime | None = None
    claimed_by: str | None = None
    claimed_until: datetime | None = None
    last_run_at: datetime | None = None
    last_found: int = 0
    last_new: int = 0
    last_extracted: int = 0
    last_invalid: int = 0
    last_errors: int = 0
    empty_runs: int = 0
    flagged: bool = False
    xpath_headline: str | None = None
    xpath_body: str | None = None
    xpath_date: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for k, v in d.items():
            if isinstance(v, datetime):
                d[k] = v.isoformat()
        return d


CHANNEL_COLUMNS = tuple(f.name for f in dataclasses.fields(Channel))
_TIME_COLUMNS = frozenset({"next_run_at", "claimed_until", "last_run_at", "created_at", "updated_at"})
_BOOL_COLUMNS = frozenset({"enabled", "flagged"})
_WRITABLE = tuple(c for c in CHANNEL_COLUMNS if c not in ("id", "created_at", "updated_at"))


@dataclass
class Template:
    """One row of `templates`: a mined extraction template for the pages under `url_prefix`."""
    site: str
    url_prefix: str
    body: dict[str, Any]
    id: int | None = None
    name: str | None = None
    quality: float = 0.0
    pages: int = 0
    enabled: bool = True
    created_at: datetime | None = None
    updated_at: datetime | None = None


def validate_channel(row: Channel | Mapping[str, Any]) -> list[str]:
    """Problems that make a channel row unusable, as sentences; [] when it is fine."""
    get = row.get if isinstance(row, Mapping) else (lambda k, d=None: getattr(row, k, d))
    problems: list[str] = []
    kind = get("kind")
    if kind not in KINDS:
        problems.append(f"unknown kind {kind!r} (expected one of {', '.join(KINDS)})")
    entry = get("entry_url") or ""
    probe = entry.replace("{keyword}", "x") if kind == "metasearch" else entry
    parts = urlsplit(probe) if isinstance(probe, str) else None
    if not parts or parts.scheme not in ("http", "https") or not parts.hostname:
        problems.append(f"entry_url {entry!r} is not an absolute http(s) URL")
    else:
        try:
            parts.port
        except ValueError:
            problems.append(f"entry_url {entry!r} has a bad port")
    if kind == "metasearch" and "{keyword}" not in entry:
        problems.append("metasearch entry_url has no {keyword} placeholder")
    if kind != "metasearch" and "{keyword}" in entry:
        problems.append(f"{{keyword}} placeholder in the entry_url of a {kind} channel")
    regex = get("detail_url_regex")
    if regex:
        try:
            re.compile(regex)
        except re.error as exc:
            problems.append(f"detail_url_regex {regex!r} does not compile: {exc}")
    xpaths = {k: get(k) for k in ("detail_xpath", "xpath_headline", "xpath_body", "xpath_date") if get(k)}
    if xpaths:
        from lxml import etree

        for key, expr in xpaths.items():
            try:
                etree.XPath(expr)
            except etree.XPathSyntaxError as exc:
                problems.append(f"{key} {expr!r} is not a valid XPath: {exc}")
    if kind == "listpage" and not regex and not get("detail_xpath"):
        problems.append("a listpage channel needs detail_url_regex or detail_xpath")
    lo, mid, hi = get("min_interval_s", 0), get("interval_s", 0), get("max_interval_s", 0)
    try:
        if not (0 < int(lo) <= int(hi)):
            problems.append(f"interval bounds min_interval_s={lo} max_interval_s={hi} are not 0 < min <= max")
        if int(mid) <= 0:
            problems.append(f"interval_s={mid} must be positive")
    except (TypeError, ValueError):
        problems.append("interval_s/min_interval_s/max_interval_s must be whole numbers")
    tz = get("tz")
    if tz:
        from zoneinfo import ZoneInfo

        try:
            ZoneInfo(tz)
        except Exception:
            problems.append(f"tz {tz!r} is not a known time zone")
    return problems


class ChannelStore:
    """SQL shared by both backends. Subclasses provide the connection, `_run` and `_insert`."""

    placeholder = "?"
    migrations_dir: Path

    # ---- backend hooks -------------------------------------------------------------------------
    def _run(self, sql: str, params: Iterable[Any] = ()) -> tuple[list[dict[str, Any]], int]:
        """Execute one statement; (rows as dicts, affected row count)."""
        raise NotImplementedError

    def _insert(self, sql: str, params: Iterable[Any]) -> int:
        """Execute an INSERT; the new row id."""
        raise NotImplementedError

    def _time_param(self, value: datetime) -> Any:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- conversions ---------------------------------------------------------------------------
    def _param(self, value: Any) -> Any:
        if isinstance(value, datetime):
            return self._time_param(as_utc(value))
        if isinstance(value, bool):
            return int(value)
        return value

    def _params(self, params: Iterable[Any]) -> list[Any]:
        return [self._param(p) for p in params]

    def _channel(self, row: Mapping[str, Any]) -> Channel:
        values = {}
        for name in CHANNEL_COLUMNS:
            v = row.get(name)
            if name in _TIME_COLUMNS:
                v = as_utc(v)
            elif name in _BOOL_COLUMNS:
                v = bool(v)
            elif name == "politeness_delay_s" and v is not None:
                v = float(v)
            values[name] = v
        return Channel(**values)

    # ---- channels ------------------------------------------------------------------------------
    def add_channel(self, channel: Channel | Mapping[str, Any]) -> int:
        """Insert a channel (validated first: ValueError lists the problems); its id."""
        if isinstance(channel, Channel):
            data = {k: getattr(channel, k) for k in _WRITABLE}
        else:
            unknown = set(channel) - set(CHANNEL_COLUMNS)
            if unknown:
                raise ValueError(f"unknown channel fields: {', '.join(sorted(unknown))}")
            missing = {"name", "kind", "entry_url"} - set(channel)
            if missing:
                raise ValueError(f"channel lacks {', '.join(sorted(missing))}")
            row = Channel(**{k: v for k, v in channel.items() if k in _WRITABLE})
            data = {k: getattr(row, k) for k in _WRITABLE}
        problems = validate_channel(data)
        if problems:
            raise ValueError(f"channel {data.get('name')!r}: " + "; ".join(problems))
        cols = ", ".join(data)
        marks = ", ".join("?" for _ in data)
        return self._insert(f"INSERT INTO channels ({cols}) VALUES ({marks})", self._params(data.values()))

    def update_channel(self, channel_id: int, **fields: Any) -> None:
        unknown = set(fields) - set(_WRITABLE)
        if unknown:
            raise ValueError(f"cannot update channel fields: {', '.join(sorted(unknown))}")
        if not fields:
            return
        current = self.get_channel(channel_id)
        if current is None:
            raise KeyError(f"no channel with id {channel_id}")
        problems = validate_channel(dataclasses.replace(current, **fields))
        if problems:
            raise ValueError(f"channel {current.name!r}: " + "; ".join(problems))
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._run(f"UPDATE channels SET {sets} WHERE id = ?", self._params([*fields.values(), channel_id]))

    def get_channel(self, channel_id: int) -> Channel | None:
        rows, _ = self._run("SELECT * FROM channels WHERE id = ?", [channel_id])
        return self._channel(rows[0]) if rows else None

    def get_channel_by_name(self, name: str) -> Channel | None:
        rows, _ = self._run("SELECT * FROM channels WHERE name = ?", [name])
        return self._channel(rows[0]) if rows else None

    def list_channels(self, enabled: bool | None = None, kind: str | None = None,
                      flagged: bool | None = None) -> list[Channel]:
        where, params = [], []
        for column, value in (("enabled", enabled), ("kind", kind), ("flagged", flagged)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(self._param(value))
        sql = "SELECT * FROM channels" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        return [self._channel(r) for r in self._run(sql, params)[0]]

    def set_enabled(self, channel_id: int, enabled: bool) -> None:
        self._run("UPDATE channels SET enabled = ? WHERE id = ?", [int(enabled), channel_id])

    def delete_channel(self, channel_id: int) -> None:
        self._run("DELETE FROM keywords WHERE channel_id = ?", [channel_id])
        self._run("DELETE FROM channels WHERE id = ?", [channel_id])

    def claim_due_channels(self, now: datetime | float | None = None, limit: int = 100,
                           owner: str = "controller", lease_s: float = 300.0) -> list[Channel]:
        """Take up to `limit` enabled channels whose next_run_at has come and which nobody holds.

        Each row is taken by a conditional UPDATE that re-checks the claim under the row lock, so
        of two controllers racing for a row exactly one sees its UPDATE affect it.
        """
        now = as_utc(now) if now is not None else utcnow()
        until = now + timedelta(seconds=lease_s)
        due = ("enabled = 1 AND (next_run_at IS NULL OR next_run_at <= ?)"
               " AND (claimed_until IS NULL OR claimed_until < ?)")
        claimed: list[Channel] = []
        # rows lost to a racing controller are no longer due, so each round makes progress;
        # fewer than `limit` returned means no due channel is left
        while len(claimed) < limit:
            rows, _ = self._run(
                f"SELECT id FROM channels WHERE {due} ORDER BY priority DESC, next_run_at, id LIMIT ?",
                self._params([now, now, int(limit) - len(claimed)]),
            )
            if not rows:
                break
            for row in rows:
                _, affected = self._run(
                    f"UPDATE channels SET claimed_by = ?, claimed_until = ? WHERE id = ? AND {due}",
                    self._params([owner, until, row["id"], now, now]),
                )
                if affected == 1:
                    channel = self.get_channel(row["id"])
                    if channel is not None and channel.claimed_by == owner:
                        claimed.append(channel)
        return claimed

    def release_channel(self, channel_id: int, owner: str | None = None) -> None:
        sql = "UPDATE channels SET claimed_by = NULL, claimed_until = NULL WHERE id = ?"
        params: list[Any] = [channel_id]
        if owner is not None:
            sql += " AND claimed_by = ?"
            params.append(owner)
        self._run(sql, params)

    def reschedule(self, channel_id: int, next_run_at: datetime | float, owner: str | None = None) -> bool:
        """Set next_run_at and release the claim without touching the run counters (used for a
        channel that was rejected or could not be dispatched)."""
        sql = "UPDATE channels SET next_run_at = ?, claimed_by = NULL, claimed_until = NULL WHERE id = ?"
        params: list[Any] = [as_utc(next_run_at), channel_id]
        if owner is not None:
            sql += " AND claimed_by = ?"
            params.append(owner)
        return self._run(sql, self._params(params))[1] == 1

    def finish_run(self, channel_id: int, stats: Mapping[str, int] | None, next_run_at: datetime | float,
                   *, interval_s: int | None = None, empty_runs: int | None = None,
                   flagged: bool | None = None, owner: str | None = None,
                   now: datetime | float | None = None) -> bool:
        """Record a run's counts (found/new/extracted/invalid/errors), schedule the next run and
        release the claim. With `owner`, only a claim still held by `owner` is finished (a
        controller whose lease ran out must not overwrite the next one's work): False then."""
        stats = stats or {}
        sets = ["last_run_at = ?", "next_run_at = ?", "claimed_by = NULL", "claimed_until = NULL"]
        params: list[Any] = [as_utc(now) if now is not None else utcnow(), as_utc(next_run_at)]
        for key in ("found", "new", "extracted", "invalid", "errors"):
            sets.append(f"last_{key} = ?")
            params.append(int(stats.get(key, 0) or 0))
        for column, value in (("interval_s", interval_s), ("empty_runs", empty_runs), ("flagged", flagged)):
            if value is not None:
                sets.append(f"{column} = ?")
                params.append(value)
        sql = f"UPDATE channels SET {', '.join(sets)} WHERE id = ?"
        params.append(channel_id)
        if owner is not None:
            sql += " AND claimed_by = ?"
            params.append(owner)
        _, affected = self._run(sql, self._params(params))
        return affected == 1

    # ---- keywords ------------------------------------------------------------------------------
    def add_keyword(self, keyword: str, channel_id: int | None = None, priority: int = 0) -> int:
        keyword = (keyword or "").strip()
        if not keyword:
            raise ValueError("empty keyword")
        return self._insert("INSERT INTO keywords (channel_id, keyword, priority) VALUES (?, ?, ?)",
                            [channel_id, keyword, priority])

    def remove_keyword(self, keyword: str, channel_id: int | None = None) -> None:
        if channel_id is None:
            self._run("DELETE FROM keywords WHERE channel_id IS NULL AND keyword = ?", [keyword])
        else:
            self._run("DELETE FROM keywords WHERE channel_id = ? AND keyword = ?", [channel_id, keyword])

    def keywords(self, channel_id: int) -> list[str]:
        """Enabled keywords of a channel plus the global ones (channel_id NULL), highest priority first."""
        rows, _ = self._run(
            "SELECT keyword, MAX(priority) AS p FROM keywords WHERE enabled = 1 AND"
            " (channel_id = ? OR channel_id IS NULL) GROUP BY keyword ORDER BY p DESC, keyword",
            [channel_id],
        )
        return [r["keyword"] for r in rows]

    def channel_keywords(self, channel_id: int) -> list[str]:
        """The channel's own keywords (not the global ones), for editing them; highest priority first."""
        rows, _ = self._run("SELECT keyword FROM keywords WHERE channel_id = ? ORDER BY priority DESC, keyword",
                            [channel_id])
        return [r["keyword"] for r in rows]

    # ---- crawl log -----------------------------------------------------------------------------
    def log_crawl(self, channel_id: int | None, event: str, message: str = "", *, level: str = "info",
                  keyword: str | None = None, found: int = 0, new: int = 0, extracted: int = 0,
                  invalid: int = 0, errors: int = 0, at: datetime | float | None = None) -> int:
        return self._insert(
            "INSERT INTO crawl_log (channel_id, event, level, keyword, found, new, extracted, invalid,"
            " errors, message, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            self._params([channel_id, event, level, keyword, found, new, extracted, invalid, errors,
                          message, as_utc(at) if at is not None else utcnow()]),
        )

    def recent_log(self, channel_id: int | None = None, limit: int = 50, event: str | None = None,
                   level: str | None = None) -> list[dict[str, Any]]:
        where, params = [], []
        for column, value in (("channel_id", channel_id), ("event", event), ("level", level)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        sql = ("SELECT * FROM crawl_log" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY id DESC LIMIT ?")
        rows, _ = self._run(sql, [*params, int(limit)])
        for r in rows:
            r["created_at"] = as_utc(r["created_at"])
        return rows

    def run_totals(self, channel_id: int, since: datetime | float | None,
                   until: datetime | float | None = None) -> dict[str, int]:
        """Sums of the job reports (all events but the controller's own) logged in [since, until)."""
        marks = ", ".join("?" for _ in CONTROLLER_EVENTS)
        sql = ("SELECT COALESCE(SUM(found),0) AS found, COALESCE(SUM(new),0) AS new,"
               " COALESCE(SUM(extracted),0) AS extracted, COALESCE(SUM(invalid),0) AS invalid,"
               " COALESCE(SUM(errors),0) AS errors, COUNT(*) AS reports FROM crawl_log"
               f" WHERE channel_id = ? AND event NOT IN ({marks})")
        params: list[Any] = [channel_id, *CONTROLLER_EVENTS]
        if since is not None:
            sql += " AND created_at >= ?"
            params.append(as_utc(since))
        if until is not None:
            sql += " AND created_at < ?"
            params.append(as_utc(until))
        rows, _ = self._run(sql, self._params(params))
        return {k: int(v or 0) for k, v in rows[0].items()}

    # ---- templates -----------------------------------------------------------------------------
    def _template(self, row: Mapping[str, Any]) -> Template:
        return Template(site=row["site"], url_prefix=row["url_prefix"], body=json.loads(row["body"]),
                        id=row["id"], name=row["name"], quality=float(row["quality"]), pages=int(row["pages"]),
                        enabled=bool(row["enabled"]), created_at=as_utc(row["created_at"]),
                        updated_at=as_utc(row["updated_at"]))

    def save_template(self, site: str, url_prefix: str, body: Mapping[str, Any], *, name: str | None = None,
                      quality: float = 0.0, pages: int = 0, enabled: bool = True) -> int:
        """Insert or replace the template of (site, url_prefix); its id."""
        text = json.dumps(body, ensure_ascii=False, sort_keys=True)
        rows, _ = self._run("SELECT id FROM templates WHERE site = ? AND url_prefix = ?", [site, url_prefix])
        if rows:
            self._run("UPDATE templates SET name = ?, body = ?, quality = ?, pages = ?, enabled = ? WHERE id = ?",
                      [name, text, quality, pages, int(enabled), rows[0]["id"]])
            return int(rows[0]["id"])
        return self._insert(
            "INSERT INTO templates (site, url_prefix, name, body, quality, pages, enabled) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [site, url_prefix, name, text, quality, pages, int(enabled)],
        )

    def get_template(self, template_id: int) -> Template | None:
        rows, _ = self._run("SELECT * FROM templates WHERE id = ?", [template_id])
        return self._template(rows[0]) if rows else None

    def list_templates(self, site: str | None = None, enabled_only: bool = True) -> list[Template]:
        where, params = [], []
        if site is not None:
            where.append("site = ?")
            params.append(site)
        if enabled_only:
            where.append("enabled = 1")
        sql = "SELECT * FROM templates" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY site, url_prefix"
        return [self._template(r) for r in self._run(sql, params)[0]]

    def delete_template(self, template_id: int) -> None:
        self._run("DELETE FROM templates WHERE id = ?", [template_id])

    # ---- schema --------------------------------------------------------------------------------
    def schema_version(self) -> int:
        rows, _ = self._run("SELECT MAX(version) AS v FROM schema_version")
        return int(rows[0]["v"] or 0)

    def table_columns(self) -> dict[str, list[str]]:
        """table -> column names in order (to check that both dialects agree)."""
        raise NotImplementedError


def migration_files(directory: Path) -> list[tuple[int, Path]]:
    """(version, file) of NNNN_name.sql files in order."""
    found = []
    for p in sorted(directory.glob("*.sql")):
        m = re.match(r"(\d+)_", p.name)
        if m:
            found.append((int(m.group(1)), p))
    return found


def open_store(db_url: str) -> ChannelStore:
    """A migrated store for `mysql://...` or `sqlite://...`."""
    scheme = db_url.split("://", 1)[0].lower() if "://" in db_url else ""
    if scheme == "sqlite":
        from crawler.store_sqlite import SQLiteStore

        return SQLiteStore(db_url)
    if scheme in ("mysql", "mysql+pymysql", "mariadb"):
        from crawler.store_mysql import MySQLStore

        return MySQLStore(db_url)
    raise ValueError(f"unsupported db_url {db_url!r}: expected mysql://... or sqlite://...")
