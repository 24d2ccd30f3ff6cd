"""MySQL / MariaDB backend of the channel store (distributed mode), over PyMySQL.

Autocommit on, so each conditional UPDATE of a claim is its own transaction and InnoDB's row
lock makes it atomic across controllers. The session time zone is UTC so that DATETIME columns,
CURRENT_TIMESTAMP and our parameters all mean the same instant. A dropped connection (server
restart, wait_timeout) is reopened once and the statement retried.
"""
from __future__ import annotations

import threading
from datetime import datetime, timezone
from typing import Any, Iterable
from urllib.parse import parse_qsl, unquote, urlsplit

import pymysql
import pymysql.cursors

from crawler.store import SQL_DIR, ChannelStore, StoreError, migration_files

# connection-level errors after which a retry on a new connection is safe
_RECONNECT_CODES = {2006, 2013, 2055}  # server gone away, lost connection, lost (ssl/io)


def mysql_params(db_url: str) -> dict[str, Any]:
    parts = urlsplit(db_url)
    if not parts.hostname:
        raise ValueError(f"bad MySQL URL {db_url!r}: expected mysql://user:pass@host:port/database")
    database = parts.path.lstrip("/")
    if not database:
        raise ValueError(f"MySQL URL {db_url!r} names no database")
    params: dict[str, Any] = {
        "host": parts.hostname, "port": parts.port or 3306, "user": unquote(parts.username or "root"),
        "password": unquote(parts.password or ""), "database": unquote(database),
    }
    for key, value in parse_qsl(parts.query):
        if key == "unix_socket":
            params["unix_socket"] = value
    return params


class MySQLStore(ChannelStore):
    migrations_dir = SQL_DIR / "migrations"

    def __init__(self, db_url: str):
        self._connect_params = mysql_params(db_url)
        self._lock = threading.RLock()
        self._conn = None
        self._connect()
        self.migrate()

    def _connect(self) -> None:
        try:
            self._conn = pymysql.connect(
                **self._connect_params, charset="utf8mb4", autocommit=True,
                cursorclass=pymysql.cursors.DictCursor, connect_timeout=10,
                init_command="SET time_zone = '+00:00'",
            )
        except pymysql.err.OperationalError as exc:
            p = self._connect_params
            raise StoreError(f"cannot connect to MySQL at {p['host']}:{p['port']}/{p['database']}: {exc.args[-1]}") from exc

    def _time_param(self, value: datetime) -> datetime:
        return value.astimezone(timezone.utc).replace(tzinfo=None)

    def _execute(self, sql: str, params: list[Any], want_id: bool) -> tuple[list[dict[str, Any]], int, int]:
        sql = sql.replace("?", "%s")  # our SQL has no literal '?'; values are always bound
        for attempt in (1, 2):
            try:
                if self._conn is None:
                    self._connect()
                with self._conn.cursor() as cur:
                    affected = cur.execute(sql, params)
                    rows = list(cur.fetchall()) if cur.description else []
                    return rows, affected, cur.lastrowid if want_id else 0
            except pymysql.err.OperationalError as exc:
                if attempt == 1 and exc.args and exc.args[0] in _RECONNECT_CODES:
                    self._conn = None
                    continue
                raise StoreError(f"MySQL: {exc.args[-1]}") from exc
            except (pymysql.err.InterfaceError, BrokenPipeError, ConnectionError) as exc:
                if attempt == 1:
                    self._conn = None
                    continue
                raise StoreError(f"MySQL connection: {exc}") from exc
            except pymysql.err.MySQLError as exc:
                raise StoreError(f"MySQL: {exc.args[-1] if exc.args else exc}") from exc
        raise AssertionError("unreachable")

    def _run(self, sql: str, params: Iterable[Any] = ()) -> tuple[list[dict[str, Any]], int]:
        with self._lock:
            rows, affected, _ = self._execute(sql, list(params), False)
            return rows, affected

    def _insert(self, sql: str, params: Iterable[Any]) -> int:
        with self._lock:
            return int(self._execute(sql, list(params), True)[2])

    def migrate(self) -> int:
        """Apply the migrations not yet in schema_version, under a named lock so that two
        processes starting together do not both run them."""
        with self._lock:
            self._run("CREATE TABLE IF NOT EXISTS schema_version (version INT NOT NULL PRIMARY KEY,"
                      " applied_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3))"
                      " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4")
            got = self._run("SELECT GET_LOCK('mcrawl_migrate', 60) AS ok")[0][0]["ok"]
            if got != 1:
                raise StoreError("could not take the migration lock 'mcrawl_migrate' within 60 s")
            try:
                current = self.schema_version()
                for version, path in migration_files(self.migrations_dir):
                    if version > current:
                        for statement in split_mysql_script(path.read_text(encoding="utf-8")):
                            self._run_literal(statement)
                        self._run("INSERT INTO schema_version (version) VALUES (?)", [version])
            finally:
                self._run("SELECT RELEASE_LOCK('mcrawl_migrate')")
        return self.schema_version()

    def _run_literal(self, statement: str) -> None:
        """A DDL statement from our own migration files, run without parameter substitution."""
        with self._lock:
            try:
                with self._conn.cursor() as cur:
                    cur.execute(statement)
            except pymysql.err.MySQLError as exc:
                raise StoreError(f"MySQL migration failed: {exc.args[-1]} in {statement[:80]!r}") from exc

    def table_columns(self) -> dict[str, list[str]]:
        rows, _ = self._run(
            "SELECT TABLE_NAME AS t, COLUMN_NAME AS c FROM information_schema.COLUMNS"
            " WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION")
        out: dict[str, list[str]] = {}
        for r in rows:
            out.setdefault(r["t"], []).append(r["c"])
        return out

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                try:
                    self._conn.close()
                except pymysql.err.Error:
                    pass
                self._conn = None


def split_mysql_script(script: str) -> list[str]:
    """Statements of one of our migration files: `--` comments dropped, split at `;` ending a line
    (the files hold no procedures or string literals with `;`)."""
    statements, buf = [], []
    for line in script.splitlines():
        code = line.split("--", 1)[0].rstrip() if "--" in line else line.rstrip()
        if not code.strip():
            continue
        buf.append(code)
        if code.endswith(";"):
            statements.append("\n".join(buf).rstrip(";").strip())
            buf = []
    if any(s.strip() for s in buf):
        raise StoreError(f"unterminated statement in migration: {' '.join(buf)[:80]!r}")
    return statements
