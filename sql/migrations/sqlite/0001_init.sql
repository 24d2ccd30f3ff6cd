-- mcrawl schema, version 1, SQLite dialect: the same tables and columns as ../0001_init.sql
-- (a test checks they agree). Times are UTC text 'YYYY-MM-DD HH:MM:SS[.mmm]', which sorts as time.

CREATE TABLE IF NOT EXISTS channels (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  name                TEXT NOT NULL UNIQUE,
  kind                TEXT NOT NULL,
  entry_url           TEXT NOT NULL,
  detail_url_regex    TEXT NULL,
  detail_xpath        TEXT NULL,
  site                TEXT NULL,
  language            TEXT NULL,
  tz                  TEXT NULL,
  interval_s          INTEGER NOT NULL DEFAULT 3600,
  min_interval_s      INTEGER NOT NULL DEFAULT 300,
  max_interval_s      INTEGER NOT NULL DEFAULT 86400,
  priority            INTEGER NOT NULL DEFAULT 0,
  politeness_delay_s  REAL NOT NULL DEFAULT 1.0,
  enabled             INTEGER NOT NULL DEFAULT 1,
  next_run_at         TEXT NULL,
  claimed_by          TEXT NULL,
  claimed_until       TEXT NULL,
  last_run_at         TEXT NULL,
  last_found          INTEGER NOT NULL DEFAULT 0,
  last_new            INTEGER NOT NULL DEFAULT 0,
  last_extracted      INTEGER NOT NULL DEFAULT 0,
  last_invalid        INTEGER NOT NULL DEFAULT 0,
  last_errors         INTEGER NOT NULL DEFAULT 0,
  empty_runs          INTEGER NOT NULL DEFAULT 0,
  flagged             INTEGER NOT NULL DEFAULT 0,
  xpath_headline      TEXT NULL,
  xpath_body          TEXT NULL,
  xpath_date          TEXT NULL,
  created_at          TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at          TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS ix_channels_due ON channels (enabled, next_run_at);
-- MySQL's ON UPDATE CURRENT_TIMESTAMP
CREATE TRIGGER IF NOT EXISTS tr_channels_updated AFTER UPDATE ON channels
  WHEN NEW.updated_at = OLD.updated_at
  BEGIN UPDATE channels SET updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE id = NEW.id; END;

CREATE TABLE IF NOT EXISTS keywords (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  channel_id  INTEGER NULL REFERENCES channels (id) ON DELETE CASCADE,
  keyword     TEXT NOT NULL,
  priority    INTEGER NOT NULL DEFAULT 0,
  enabled     INTEGER NOT NULL DEFAULT 1,
  created_at  TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (channel_id, keyword)
);

CREATE TABLE IF NOT EXISTS templates (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  site        TEXT NOT NULL,
  url_prefix  TEXT NOT NULL,
  name        TEXT NULL,
  body        TEXT NOT NULL,
  quality     REAL NOT NULL DEFAULT 0,
  pages       INTEGER NOT NULL DEFAULT 0,
  enabled     INTEGER NOT NULL DEFAULT 1,
  created_at  TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at  TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,
  UNIQUE (site, url_prefix)
);
CREATE TRIGGER IF NOT EXISTS tr_templates_updated AFTER UPDATE ON templates
  WHEN NEW.updated_at = OLD.updated_at
  BEGIN UPDATE templates SET updated_at = strftime('%Y-%m-%d %H:%M:%f', 'now') WHERE id = NEW.id; END;

CREATE TABLE IF NOT EXISTS crawl_log (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  channel_id  INTEGER NULL,
  event       TEXT NOT NULL,
  level       TEXT NOT NULL DEFAULT 'info',
  keyword     TEXT NULL,
  found       INTEGER NOT NULL DEFAULT 0,
  new         INTEGER NOT NULL DEFAULT 0,
  extracted   INTEGER NOT NULL DEFAULT 0,
  invalid     INTEGER NOT NULL DEFAULT 0,
  errors      INTEGER NOT NULL DEFAULT 0,
  message     TEXT NULL,
  created_at  TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX IF NOT EXISTS ix_crawl_log_channel ON crawl_log (channel_id, created_at);
CREATE INDEX IF NOT EXISTS ix_crawl_log_created ON crawl_log (created_at);
