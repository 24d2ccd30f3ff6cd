"""SQLite FTS5 backend of the article index (embedded mode).

SQLite's tokenizers do not split Chinese into words and Python cannot plug a tokenizer into
FTS5, so text is segmented with jieba before it is indexed (search-engine mode: 人工智能 is
indexed as 人工, 智能 and 人工智能) and queries are segmented the same way; English passes
through (FTS5's unicode61 tokenizer folds case and splits on punctuation). The FTS table holds
only the segmented text; the original fields live in `articles`. Snippets are cut from the
original text around the query terms, so they read naturally (no spaces between Chinese words).
Ranking: bm25 with the title weighted 3x the body.
"""
from __future__ import annotations

import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterable

from crawler.urls import url_id
from workers.index import DOC_FIELDS, IndexUnavailable, SearchHit, SearchResults, check_search_args, iso_utc

_SCHEMA = """
CREATE TABLE IF NOT EXISTS articles (
  rid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  url TEXT NOT NULL, site TEXT, channel TEXT, channel_kind TEXT, title TEXT, content TEXT,
  pubdate TEXT, crawled_at TEXT, author TEXT, source TEXT, lang TEXT, page_type TEXT, method TEXT
);
CREATE INDEX IF NOT EXISTS ix_articles_site ON articles (site);
CREATE INDEX IF NOT EXISTS ix_articles_pubdate ON articles (pubdate);
CREATE INDEX IF NOT EXISTS ix_articles_crawled ON articles (crawled_at);
CREATE VIRTUAL TABLE IF NOT EXISTS articles_fts USING fts5(title, content, tokenize = 'unicode61');
"""
SNIPPET_CHARS = 160
_WORD = re.compile(r"\w", re.UNICODE)


def _jieba():
    import jieba

    jieba.setLogLevel(60)  # its "Building prefix dict" chatter goes to stderr otherwise
    return jieba


def segment_for_index(text: str | None) -> str:
    if not text:
        return ""
    return " ".join(t for t in _jieba().cut_for_search(text) if t.strip())


def query_terms(query: str) -> list[str]:
    """Words of a query, segmented like the index; punctuation dropped."""
    return [t.strip() for t in _jieba().cut(query or "") if _WORD.search(t)]


def fts_query(terms: list[str]) -> str:
    """All terms required; each quoted so FTS5 syntax in user input (AND, *, :, ") is literal."""
    return " ".join('"' + t.replace('"', '""') + '"' for t in terms)


def make_snippet(text: str | None, terms: list[str], width: int = SNIPPET_CHARS) -> str:
    """A window of `text` around the first match, matches wrapped in <em>."""
    if not text:
        return ""
    lowered = text.lower()
    needles = sorted({t.lower() for t in terms if t}, key=len, reverse=True)
    first = min((p for p in (lowered.find(n) for n in needles) if p >= 0), default=0)
    start = max(0, first - width // 4)
    window = text[start:start + width]
    if needles:
        pattern = re.compile("|".join(re.escape(n) for n in needles), re.IGNORECASE)
        window = pattern.sub(lambda m: f"<em>{m.group(0)}</em>", window).replace("</em><em>", "")
    return ("…" if start > 0 else "") + window + ("…" if start + width < len(text) else "")


def time_range(column: str, since, until, where: list[str], params: list) -> None:
    """Add `since <= column < until` (either end optional) to a WHERE clause being built."""
    if since:
        where.append(f"{column} >= ?")
        params.append(iso_utc(since))
    if until:
        where.append(f"{column} < ?")
        params.append(iso_utc(until))


def index_path(index_url: str) -> str:
    rest = index_url.split("://", 1)[1]
    if rest in (":memory:", "/:memory:"):
        return ":memory:"
    if not rest.startswith("/"):
        raise ValueError(f"bad sqlite URL {index_url!r}: use sqlite:///relative/path or sqlite:////absolute/path")
    return rest[1:]


class SQLiteIndex:
    def __init__(self, index_url: str):
        self.url = index_url
        self.path = index_path(index_url)
        self._lock = threading.RLock()
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=30.0, isolation_level=None, check_same_thread=False)
            self._conn.row_factory = sqlite3.Row
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
        except (OSError, sqlite3.Error) as exc:
            raise IndexUnavailable(f"cannot open SQLite index {self.path}: {exc}") from exc
        self._ready = False

    def _db(self) -> sqlite3.Connection:
        if not self._ready:
            self.ensure()
        return self._conn

    def ensure(self) -> None:
        with self._lock:
            try:
                self._conn.executescript(_SCHEMA)
            except sqlite3.Error as exc:
                raise IndexUnavailable(f"SQLite index {self.path}: {exc}") from exc
            self._ready = True

    def drop(self) -> None:
        with self._lock:
            self._conn.executescript("DROP TABLE IF EXISTS articles_fts; DROP TABLE IF EXISTS articles;")
            self._ready = False

    def refresh(self) -> None:
        """Writes are visible at once; kept for the same interface as Elasticsearch."""

    # ---- writing ---------------------------------------------------------------------------------
    def _row(self, doc: dict[str, Any]) -> dict[str, Any]:
        row = {k: doc.get(k) for k in DOC_FIELDS}
        if not row["url"]:
            raise ValueError("document without url")
        row["id"] = url_id(row["url"])
        for key in ("pubdate", "crawled_at"):
            row[key] = iso_utc(row[key])
        if row["channel"] is not None:
            row["channel"] = str(row["channel"])
        return row

    def index_bulk(self, docs: Iterable[dict[str, Any]], refresh: bool = False) -> tuple[int, list[dict[str, str]]]:
        rows, errors = [], []
        for doc in docs:
            try:
                row = self._row(doc)
            except (KeyError, ValueError, TypeError) as exc:
                errors.append({"id": str(doc.get("id") or doc.get("url")), "error": f"bad document: {exc}"})
                continue
            # segmenting is the slow part: done before taking the lock
            rows.append((row, segment_for_index(row["title"]), segment_for_index(row["content"])))
        if not rows:
            return 0, errors
        cols = ("id",) + DOC_FIELDS
        with self._lock:
            conn = self._db()
            try:
                conn.execute("BEGIN IMMEDIATE")
                for row, title_tokens, content_tokens in rows:
                    old = conn.execute("SELECT rid FROM articles WHERE id = ?", (row["id"],)).fetchone()
                    if old:  # re-indexing the same URL replaces it: idempotent
                        conn.execute("DELETE FROM articles_fts WHERE rowid = ?", (old[0],))
                        conn.execute("DELETE FROM articles WHERE rid = ?", (old[0],))
                    cur = conn.execute(f"INSERT INTO articles ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                                       [row[c] for c in cols])
                    conn.execute("INSERT INTO articles_fts (rowid, title, content) VALUES (?, ?, ?)",
                                 (cur.lastrowid, title_tokens, content_tokens))
                conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                conn.execute("ROLLBACK")
                raise IndexUnavailable(f"SQLite index {self.path}: {exc}") from exc
        return len(rows), errors

    # ---- reading ---------------------------------------------------------------------------------
    def search(self, query: str, site: str | None = None, since=None, until=None, page_type: str | None = None,
               channel_kind: str | None = None, sort: str = "relevance", offset: int = 0,
               size: int = 10) -> SearchResults:
        check_search_args(sort, offset, size)
        t0 = time.perf_counter()
        terms = query_terms(query)
        where, params = [], []
        for name, value in (("a.site", site), ("a.page_type", page_type), ("a.channel_kind", channel_kind)):
            if value:
                where.append(f"{name} = ?")
                params.append(value)
        time_range("a.pubdate", since, until, where, params)
        if terms:
            source = "articles_fts f JOIN articles a ON a.rid = f.rowid"
            where.insert(0, "articles_fts MATCH ?")
            params.insert(0, fts_query(terms))
            rank = "bm25(articles_fts, 3.0, 1.0)"
        else:
            source, rank = "articles a", "NULL"
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        newest = "a.pubdate IS NULL, a.pubdate DESC"
        if not terms:
            order = newest  # nothing to rank by: newest first either way
        else:
            order = f"{rank}, {newest}" if sort == "relevance" else f"{newest}, {rank}"
        with self._lock:
            conn = self._db()
            total = conn.execute(f"SELECT COUNT(*) FROM {source}{clause}", params).fetchone()[0]
            rows = conn.execute(f"SELECT a.*, {rank} AS score FROM {source}{clause} ORDER BY {order}, a.rid"
                                f" LIMIT ? OFFSET ?", [*params, size, offset]).fetchall()
        hits = [SearchHit(id=r["id"], url=r["url"], title=r["title"], site=r["site"], pubdate=r["pubdate"],
                          source=r["source"], snippet=make_snippet(r["content"], terms),
                          score=-float(r["score"]) if terms else None, author=r["author"],
                          channel_kind=r["channel_kind"], page_type=r["page_type"], crawled_at=r["crawled_at"],
                          lang=r["lang"]) for r in rows]
        return SearchResults(total=int(total), hits=hits, took_ms=(time.perf_counter() - t0) * 1000)

    def get(self, doc_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._db().execute("SELECT * FROM articles WHERE id = ?", (doc_id,)).fetchone()
        if row is None:
            return None
        out = dict(row)
        out.pop("rid", None)
        return out

    def count(self) -> int:
        with self._lock:
            return int(self._db().execute("SELECT COUNT(*) FROM articles").fetchone()[0])

    def site_counts(self, limit: int = 20) -> list[tuple[str, int]]:
        with self._lock:
            rows = self._db().execute("SELECT site, COUNT(*) AS n FROM articles WHERE site IS NOT NULL"
                                      " GROUP BY site ORDER BY n DESC, site LIMIT ?", (limit,)).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    def articles_per_hour(self, since=None, until=None) -> dict[str, int]:
        """{ISO hour (UTC): documents crawled in it}."""
        where, params = ["crawled_at IS NOT NULL"], []
        time_range("crawled_at", since, until, where, params)
        with self._lock:
            rows = self._db().execute(
                "SELECT substr(crawled_at, 1, 13) || ':00:00+00:00' AS hour, COUNT(*) FROM articles WHERE "
                + " AND ".join(where) + " GROUP BY hour ORDER BY hour", params).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def stats(self) -> dict[str, Any]:
        size = Path(self.path).stat().st_size if self.path != ":memory:" and Path(self.path).exists() else 0
        return {"backend": "sqlite-fts5", "url": self.url, "documents": self.count(), "size_bytes": size}

    def close(self) -> None:
        with self._lock:
            self._conn.close()
