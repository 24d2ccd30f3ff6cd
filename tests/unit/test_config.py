import pytest

from crawler.config import ConfigError, Settings, load_settings


def test_defaults_are_the_embedded_mode():
    s = load_settings(env={})
    assert s == Settings()
    assert s.db_url.startswith("sqlite://") and s.queue_url.startswith("local://")
    assert s.bloom_capacity == 10_000_000 and s.bloom_error_rate == 1e-4


def test_toml_file_then_environment_wins(tmp_path):
    f = tmp_path / "mcrawl.toml"
    f.write_text('db_url = "mysql://u:p@db:3306/mcrawl"\nbloom_capacity = 100_000_000\n'
                 'queue_url = "redis://r:6379/0"\n[spiders]\nconcurrency = 8\n')
    s = load_settings(f, env={"MCRAWL_QUEUE": "redis://other:6379/1", "MCRAWL_BLOOM_P": "1e-5"})
    assert s.db_url == "mysql://u:p@db:3306/mcrawl"
    assert s.queue_url == "redis://other:6379/1"
    assert s.bloom_capacity == 100_000_000 and s.bloom_error_rate == 1e-5
    assert s.extra["spiders"] == {"concurrency": 8}


def test_yaml_file_with_mcrawl_section(tmp_path):
    f = tmp_path / "mcrawl.yaml"
    f.write_text("mcrawl:\n  index_url: http://es:9200\n  default_tz: Europe/Berlin\n")
    s = load_settings(f, env={})
    assert s.index_url == "http://es:9200" and s.default_tz == "Europe/Berlin"


def test_config_path_from_environment(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('data_dir = "/srv/mcrawl"\n')
    assert load_settings(env={"MCRAWL_CONFIG": str(f)}).data_dir == "/srv/mcrawl"


@pytest.mark.parametrize("env, words", [
    ({"MCRAWL_BLOOM_N": "lots"}, "bloom_capacity"),
    ({"MCRAWL_BLOOM_N": "1.5"}, "whole number"),
    ({"MCRAWL_BLOOM_P": "2"}, "bloom_error_rate"),
    ({"MCRAWL_TZ": "Mars/Olympus"}, "time zone"),
    ({"MCRAWL_DB": "var/db.sqlite3"}, "not a URL"),
    ({"MCRAWL_MAX_TRIES": "0"}, "detail_max_tries"),
])
def test_bad_environment_values_are_refused(env, words):
    with pytest.raises(ConfigError, match=words):
        load_settings(env=env)


def test_unknown_key_and_broken_files_are_refused(tmp_path):
    f = tmp_path / "typo.toml"
    f.write_text('bloom_capacty = 5\n')
    with pytest.raises(ConfigError, match="unknown setting 'bloom_capacty'"):
        load_settings(f, env={})
    g = tmp_path / "broken.toml"
    g.write_text('db_url = "unterminated\n')
    with pytest.raises(ConfigError, match="not valid"):
        load_settings(g, env={})
    with pytest.raises(ConfigError, match="cannot read"):
        load_settings(tmp_path / "missing.toml", env={})
    h = tmp_path / "list.yaml"
    h.write_text("- a\n- b\n")
    with pytest.raises(ConfigError, match="mapping"):
        load_settings(h, env={})
