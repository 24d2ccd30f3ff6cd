"""SQLite backend of the channel store (embedded mode).

One connection shared by the threads of a process behind a lock; WAL mode and a busy timeout
so several processes (controller, spiders, workers of a one-machine setup) can share the file.
Claims run their conditional UPDATE in autocommit mode: SQLite serialises writers, so the
re-checked WHERE clause makes a claim atomic across processes as it does in MySQL.
"""
from __future__ import annotations

import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from crawler.store import SQL_DIR, ChannelStore, StoreError, migration_files


def sqlite_path(db_url: str) -> str:
    """`sqlite:///var/x.sqlite3` -> `var/x.sqlite3`; `sqlite:////tmp/x` -> `/tmp/x`; `:memory:`."""
    rest = db_url.split("://", 1)[1] if "://" in db_url else db_url
    if rest in (":memory:", "/:memory:"):
        return ":memory:"
    if not rest.startswith("/"):
        raise ValueError(f"bad sqlite URL {db_url!r}: use sqlite:///relative/path or sqlite:////absolute/path")
    return rest[1:]


class SQLiteStore(ChannelStore):
    migrations_dir = SQL_DIR / "migrations" / "sqlite"

    def __init__(self, db_url: str):
        path = sqlite_path(db_url)
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._conn.execute("PRAGMA foreign_keys = ON")
        if path != ":memory:":
            self._conn.execute("PRAGMA journal_mode = WAL")
        self.migrate()

    def _time_param(self, value: datetime) -> str:
        # fixed-width text so that comparisons in SQL order by time
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]

    def _run(self, sql: str, params: Iterable[Any] = ()) -> tuple[list[dict[str, Any]], int]:
        with self._lock:
            try:
                cur = self._conn.execute(sql, list(params))
                rows = [dict(r) for r in cur.fetchall()]
                return rows, cur.rowcount
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite: {exc} in {sql.split()[0]} statement") from exc

    def _insert(self, sql: str, params: Iterable[Any]) -> int:
        with self._lock:
            try:
                return int(self._conn.execute(sql, list(params)).lastrowid)
            except sqlite3.IntegrityError as exc:
                raise StoreError(f"SQLite: {exc}") from exc
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite: {exc} in INSERT statement") from exc

    def migrate(self) -> int:
        """Apply the migrations not yet recorded in schema_version; the resulting version."""
        with self._lock:
            conn = self._conn
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY,"
                         " applied_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)")
            conn.execute("BEGIN IMMEDIATE")  # one process migrates, the others wait and find it done
            try:
                current = conn.execute("SELECT COALESCE(MAX(version), 0) FROM schema_version").fetchone()[0]
                for version, path in migration_files(self.migrations_dir):
                    if version > current:
                        # executescript would COMMIT our transaction; run statement by statement instead
                        for statement in _split_sqlite_script(path.read_text(encoding="utf-8")):
                            conn.execute(statement)
                        conn.execute("INSERT INTO schema_version (version) VALUES (?)", (version,))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return self.schema_version()

    def table_columns(self) -> dict[str, list[str]]:
        tables = [r["name"] for r in self._run(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")[0]]
        return {t: [r["name"] for r in self._run(f'PRAGMA table_info("{t}")')[0]] for t in tables}

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _split_sqlite_script(script: str) -> list[str]:
    """Statements of a script; sqlite3.complete_statement keeps trigger bodies (BEGIN ...; END;) whole."""
    statements, buf = [], ""
    for line in script.splitlines(keepends=True):
        if not buf and line.strip().startswith("--"):
            continue
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                statements.append(buf.strip())
            buf = ""
    if buf.strip():
        raise StoreError(f"unterminated statement in migration: {buf.strip()[:80]!r}")
    return statements
