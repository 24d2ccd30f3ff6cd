-- Example channels: each source is one INSERT; the controller picks it up at its next pass
-- (next_run_at NULL = due now). Runs unchanged on MySQL/MariaDB and on SQLite.
--   mysql mcrawl < sql/example_channels.sql        sqlite3 var/mcrawl.sqlite3 < sql/example_channels.sql

-- RSS feed of a news site
INSERT INTO channels (name, kind, entry_url, site, language, tz, interval_s, min_interval_s, max_interval_s, priority, politeness_delay_s)
VALUES ('BBC News - World (RSS)', 'rss', 'https://feeds.bbci.co.uk/news/world/rss.xml', 'bbc.co.uk', 'en', 'Europe/London',
        900, 300, 21600, 10, 2.0);

-- Meta-search: one job per keyword, {keyword} URL-encoded into the result page URL
INSERT INTO channels (name, kind, entry_url, detail_xpath, language, tz, interval_s, min_interval_s, max_interval_s, priority, politeness_delay_s)
VALUES ('Baidu News search', 'metasearch', 'https://news.baidu.com/ns?word={keyword}&tn=news',
        '//div[contains(@class, "result")]//h3/a', 'zh', 'Asia/Shanghai', 1800, 600, 43200, 5, 5.0);
-- keywords of that channel, and one used by every meta-search channel (channel_id NULL)
INSERT INTO keywords (channel_id, keyword, priority)
SELECT id, '人工智能', 10 FROM channels WHERE name = 'Baidu News search';
INSERT INTO keywords (channel_id, keyword, priority)
SELECT id, '新能源汽车', 5 FROM channels WHERE name = 'Baidu News search';
INSERT INTO keywords (channel_id, keyword, priority) VALUES (NULL, '碳中和', 0);

-- A list page: article links picked by URL pattern (relative links are resolved)
INSERT INTO channels (name, kind, entry_url, detail_url_regex, site, language, tz, interval_s, min_interval_s, max_interval_s, politeness_delay_s)
VALUES ('Sina News - China (list page)', 'listpage', 'https://news.sina.com.cn/china/',
        '^https?://news[.]sina[.]com[.]cn/c/[0-9]{4}-[0-9]{2}-[0-9]{2}/doc-[a-z0-9]+[.]shtml$', 'sina.com.cn', 'zh', 'Asia/Shanghai',
        1200, 300, 21600, 2.0);

-- A news sitemap
INSERT INTO channels (name, kind, entry_url, site, language, tz, interval_s, min_interval_s, max_interval_s, politeness_delay_s)
VALUES ('The Guardian (news sitemap)', 'sitemap', 'https://www.theguardian.com/sitemaps/news.xml', 'theguardian.com', 'en',
        'Europe/London', 1800, 600, 43200, 2.0);
