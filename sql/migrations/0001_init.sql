-- mcrawl schema, version 1 (MySQL / MariaDB dialect; the SQLite twin is sqlite/0001_init.sql).
-- All DATETIME columns hold UTC: the store sets time_zone = '+00:00' on every connection.
-- Adding a source is one INSERT into channels; next_run_at NULL means "due now".

CREATE TABLE IF NOT EXISTS channels (
  id                  INT UNSIGNED NOT NULL AUTO_INCREMENT,
  name                VARCHAR(200) NOT NULL,
  -- rss | metasearch | listpage | sitemap; checked by the controller (crawler.store.validate_channel),
  -- which logs a clear rejection instead of failing the INSERT, so one bad row never stops the others
  kind                VARCHAR(16) NOT NULL,
  entry_url           VARCHAR(2048) NOT NULL,   -- feed/list/sitemap URL, or a template with {keyword}
  detail_url_regex    VARCHAR(1024) NULL,       -- list/meta-search pages: links to follow
  detail_xpath        VARCHAR(1024) NULL,       -- list/meta-search pages: where the links are
  site                VARCHAR(255) NULL,
  language            VARCHAR(16) NULL,
  tz                  VARCHAR(64) NULL,         -- for dates without a zone; NULL = settings.default_tz
  interval_s          INT NOT NULL DEFAULT 3600,
  min_interval_s      INT NOT NULL DEFAULT 300,
  max_interval_s      INT NOT NULL DEFAULT 86400,
  priority            INT NOT NULL DEFAULT 0,   -- higher first
  politeness_delay_s  DOUBLE NOT NULL DEFAULT 1.0,
  enabled             TINYINT(1) NOT NULL DEFAULT 1,
  next_run_at         DATETIME(3) NULL,
  claimed_by          VARCHAR(128) NULL,
  claimed_until       DATETIME(3) NULL,
  last_run_at         DATETIME(3) NULL,
  last_found          INT NOT NULL DEFAULT 0,
  last_new            INT NOT NULL DEFAULT 0,
  last_extracted      INT NOT NULL DEFAULT 0,
  last_invalid        INT NOT NULL DEFAULT 0,
  last_errors         INT NOT NULL DEFAULT 0,
  empty_runs          INT NOT NULL DEFAULT 0,
  flagged             TINYINT(1) NOT NULL DEFAULT 0,
  xpath_headline      VARCHAR(1024) NULL,       -- optional per-channel extraction overrides
  xpath_body          VARCHAR(1024) NULL,
  xpath_date          VARCHAR(1024) NULL,
  created_at          DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at          DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uq_channels_name (name),
  KEY ix_channels_due (enabled, next_run_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS keywords (
  id          INT UNSIGNED NOT NULL AUTO_INCREMENT,
  channel_id  INT UNSIGNED NULL,                -- NULL: used by every metasearch channel
  keyword     VARCHAR(200) NOT NULL,
  priority    INT NOT NULL DEFAULT 0,
  enabled     TINYINT(1) NOT NULL DEFAULT 1,
  created_at  DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uq_keywords (channel_id, keyword),
  CONSTRAINT fk_keywords_channel FOREIGN KEY (channel_id) REFERENCES channels (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS templates (
  id          INT UNSIGNED NOT NULL AUTO_INCREMENT,
  site        VARCHAR(255) NOT NULL,
  url_prefix  VARCHAR(500) NOT NULL,
  name        VARCHAR(200) NULL,
  body        MEDIUMTEXT NOT NULL,              -- JSON written by the template miner
  quality     DOUBLE NOT NULL DEFAULT 0,
  pages       INT NOT NULL DEFAULT 0,
  enabled     TINYINT(1) NOT NULL DEFAULT 1,
  created_at  DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  updated_at  DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  UNIQUE KEY uq_templates_prefix (site, url_prefix)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS crawl_log (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT,
  channel_id  INT UNSIGNED NULL,
  event       VARCHAR(32) NOT NULL,             -- dispatch | job | extract | rejected | flagged | error ...
  level       VARCHAR(8) NOT NULL DEFAULT 'info',
  keyword     VARCHAR(200) NULL,
  found       INT NOT NULL DEFAULT 0,
  new         INT NOT NULL DEFAULT 0,
  extracted   INT NOT NULL DEFAULT 0,
  invalid     INT NOT NULL DEFAULT 0,
  errors      INT NOT NULL DEFAULT 0,
  message     TEXT NULL,
  created_at  DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
  PRIMARY KEY (id),
  KEY ix_crawl_log_channel (channel_id, created_at),
  KEY ix_crawl_log_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
