"""The console's input checks and output escaping, without servers: bad input gets a clear
message, and nothing from a crawled page or a query string becomes markup."""
from __future__ import annotations

import pytest

from crawler.config import ConfigError, Settings
from crawler.web.channelform import check_channel, parse_form
from crawler.web.highlight import safe_highlight
from crawler.web.searchform import BadQuery, parse_query
from crawler.web.webconfig import load_web_config, read_users, set_password


def test_search_query_defaults_and_window():
    q = parse_query({"q": "  北京 天气 ", "page": "3", "size": "20", "sort": "newest",
                     "since": "2024-05-01", "until": "2024-05-31"})
    assert (q.q, q.page, q.size, q.offset, q.sort) == ("北京 天气", 3, 20, 40, "newest")
    kw = q.index_kwargs("Asia/Shanghai")
    assert kw["since"].isoformat() == "2024-05-01T00:00:00+08:00"
    assert kw["until"].isoformat() == "2024-06-01T00:00:00+08:00"  # the whole last day
    assert q.link_params(page=4) == {"q": "北京 天气", "since": "2024-05-01", "until": "2024-05-31",
                                     "sort": "newest", "page": 4}


@pytest.mark.parametrize("args, words", [
    ({"since": "yesterday"}, "not a date"),
    ({"since": "2024-06-02", "until": "2024-06-01"}, "after until"),
    ({"page": "x"}, "not a whole number"),
    ({"page": "0"}, "between 1"),
    ({"page": "600", "size": "20"}, "too deep"),
    ({"size": "1000"}, "between 1 and 100"),
    ({"sort": "random"}, "sort must be one of"),
    ({"q": "字" * 501}, "too long"),
])
def test_bad_search_input_is_refused_with_a_reason(args, words):
    with pytest.raises(BadQuery, match=words):
        parse_query(args)


def test_highlight_keeps_only_em_tags():
    out = str(safe_highlight('<script>alert(1)</script> 今天<em>北京</em>下雨 <b onmouseover="x">b</b>'))
    assert "<script>" not in out and "<b " not in out
    assert "&lt;script&gt;" in out and "<em>北京</em>" in out


def test_highlight_same_result_whether_or_not_the_index_escaped():
    raw = safe_highlight("a < b & <em>c</em>")
    pre_escaped = safe_highlight("a &lt; b &amp; <em>c</em>")
    assert str(raw) == str(pre_escaped) == "a &lt; b &amp; <em>c</em>"


def test_highlight_balances_unclosed_and_nested_tags():
    assert str(safe_highlight("<em>a<em>b</em>c")) == "<em>abc</em>"
    assert str(safe_highlight("x</em>y")) == "xy"
    assert str(safe_highlight(None)) == ""


def _form(**changes):
    form = {"name": "feed", "kind": "rss", "entry_url": "http://127.0.0.1:9/rss.xml", "interval_s": "3600",
            "min_interval_s": "300", "max_interval_s": "86400", "priority": "0", "politeness_delay_s": "1",
            "enabled": "1"}
    form.update(changes)
    return form


def test_channel_form_parses_types():
    values, problems = parse_form(_form(detail_url_regex=""))
    assert problems == {}
    assert values["interval_s"] == 3600 and values["politeness_delay_s"] == 1.0 and values["enabled"] is True
    assert values["detail_url_regex"] is None
    assert check_channel(values, problems) == []
    values, _ = parse_form({k: v for k, v in _form().items() if k != "enabled"})
    assert values["enabled"] is False  # an unticked checkbox is not sent at all


@pytest.mark.parametrize("changes, words", [
    ({"name": ""}, "Name is required"),
    ({"interval_s": "hourly"}, "not a whole number"),
    ({"politeness_delay_s": "-1"}, "between 0 and 3600"),
    ({"kind": "ftp"}, "not one of"),
    ({"entry_url": "not a url"}, "not an absolute http(s) URL"),
    ({"kind": "listpage", "detail_url_regex": "news/(\\d+"}, "does not compile"),
    ({"kind": "listpage"}, "needs detail_url_regex or detail_xpath"),
    ({"min_interval_s": "900", "max_interval_s": "60"}, "not 0 < min <= max"),
    ({"tz": "Mars/Olympus"}, "not a known time zone"),
    ({"xpath_body": "//div[@"}, "not a valid XPath"),
    ({"name": "n" * 201}, "too long"),
])
def test_channel_form_problems_are_clear(changes, words):
    values, field_problems = parse_form(_form(**changes))
    problems = check_channel(values, field_problems)
    assert any(words in p for p in problems), problems


def test_users_file_roundtrip_stores_only_hashes(tmp_path):
    path = tmp_path / "users.json"
    set_password(path, "alice", "correct horse")
    stored = read_users(path)
    assert "correct horse" not in path.read_text()
    assert stored["alice"].startswith(("scrypt:", "pbkdf2:"))
    assert (path.stat().st_mode & 0o077) == 0  # nobody else can read the hashes
    with pytest.raises(ConfigError, match="at least 8"):
        set_password(path, "bob", "short")


def test_web_config_from_env_and_bad_values(tmp_path):
    settings = Settings(data_dir=str(tmp_path))
    cfg = load_web_config(settings, env={"MCRAWL_WEB_OPEN_SEARCH": "no", "MCRAWL_WEB_ADMIN_PASSWORD": "pw-123456"})
    assert cfg.open_search is False and "admin" in cfg.users and cfg.secret_key
    assert load_web_config(settings, env={}).secret_key == cfg.secret_key  # kept across restarts
    with pytest.raises(ConfigError, match="expected true or false"):
        load_web_config(settings, env={"MCRAWL_WEB_OPEN_SEARCH": "maybe"})
    with pytest.raises(ConfigError, match="page_size"):
        load_web_config(settings, env={"MCRAWL_WEB_PAGE_SIZE": "1000"})
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(ConfigError, match="unreadable"):
        load_web_config(settings, env={"MCRAWL_WEB_USERS": str(tmp_path / "broken.json")})


def test_login_throttle_blocks_after_repeated_failures_then_forgets():
    from crawler.web.auth import LoginThrottle

    throttle = LoginThrottle(limit=3, window_s=60, max_clients=2)
    for t in (0, 1, 2):
        assert throttle.retry_after("1.2.3.4", now=t) == 0
        throttle.failed("1.2.3.4", now=t)
    assert throttle.retry_after("1.2.3.4", now=3) == 57  # until the first failure is 60 s old
    assert throttle.retry_after("5.6.7.8", now=3) == 0  # other addresses are not affected
    assert throttle.retry_after("1.2.3.4", now=61) == 0
    throttle.failed("a", now=70)
    throttle.failed("b", now=70)
    assert "1.2.3.4" not in throttle._failures  # bounded memory: the oldest address went first


def test_only_http_links_become_hrefs():
    from crawler.web.views_common import safe_href

    assert safe_href("https://news.example.cn/a?b=1") == "https://news.example.cn/a?b=1"
    assert safe_href(" JavaScript:alert(1)") == "" and safe_href("data:text/html,x") == ""
    assert safe_href(None) == "" and safe_href("http://[::1") == ""
