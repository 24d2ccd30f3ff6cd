"""Settings: one URL per backend picks embedded (SQLite, local files) or distributed (MySQL,
Redis, Elasticsearch) mode.

Values come from, in rising order of precedence: the defaults below, a config file (TOML or
YAML, `--config FILE` or `MCRAWL_CONFIG`), and `MCRAWL_*` environment variables. A bad value
raises `ConfigError` naming the key and where it came from, so a typo never silently falls back
to a default.
"""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping


class ConfigError(ValueError):
    """A setting is unknown, malformed or out of range."""


@dataclass(frozen=True)
class Settings:
    db_url: str = "sqlite:///var/mcrawl.sqlite3"
    queue_url: str = "local:///var/queue"
    index_url: str = "sqlite:///var/mcrawl.sqlite3"
    data_dir: str = "./var"
    bloom_capacity: int = 10_000_000
    bloom_error_rate: float = 1e-4
    default_tz: str = "Asia/Shanghai"
    # controller
    controller_interval_s: float = 10.0     # pause between two passes
    claim_lease_s: float = 300.0            # a claim older than this is taken over by another controller
    flag_after_empty_runs: int = 10         # a channel yielding nothing this many runs in a row is flagged
    # detail queue
    detail_max_tries: int = 3               # fetch/extract attempts before an URL goes to the failed set
    detail_retry_base_s: float = 30.0       # first back-off; doubles per try
    detail_claim_timeout_s: float = 600.0   # a worker's claim older than this goes back (worker presumed dead)
    failed_requeue_after_s: float = 3600.0  # the controller re-queues failed URLs this old ...
    failed_max_rounds: int = 3              # ... this many times, then they stay failed for good
    extra: Mapping[str, Any] = field(default_factory=dict)  # unknown keys of other components' sections


# setting -> environment variable
ENV_NAMES = {
    "db_url": "MCRAWL_DB",
    "queue_url": "MCRAWL_QUEUE",
    "index_url": "MCRAWL_INDEX",
    "data_dir": "MCRAWL_DATA",
    "bloom_capacity": "MCRAWL_BLOOM_N",
    "bloom_error_rate": "MCRAWL_BLOOM_P",
    "default_tz": "MCRAWL_TZ",
    "controller_interval_s": "MCRAWL_CONTROLLER_INTERVAL",
    "claim_lease_s": "MCRAWL_CLAIM_LEASE",
    "flag_after_empty_runs": "MCRAWL_FLAG_AFTER",
    "detail_max_tries": "MCRAWL_MAX_TRIES",
    "detail_retry_base_s": "MCRAWL_RETRY_BASE",
    "detail_claim_timeout_s": "MCRAWL_CLAIM_TIMEOUT",
    "failed_requeue_after_s": "MCRAWL_FAILED_REQUEUE_AFTER",
    "failed_max_rounds": "MCRAWL_FAILED_MAX_ROUNDS",
}

_FIELDS = {f.name: f for f in dataclasses.fields(Settings) if f.name != "extra"}


def _coerce(name: str, value: Any, source: str) -> Any:
    kind = type(getattr(Settings, name))
    try:
        if kind is int:
            if isinstance(value, bool):
                raise ValueError("a boolean is not a number")
            # accept "10_000_000" and "1e7" from env vars, but not 1.5
            number = float(str(value).replace("_", "")) if isinstance(value, str) else value
            if float(number) != int(number):
                raise ValueError("not a whole number")
            value = int(number)
        elif kind is float:
            if isinstance(value, bool):
                raise ValueError("a boolean is not a number")
            value = float(str(value).replace("_", "")) if isinstance(value, str) else float(value)
        else:
            if not isinstance(value, str) or not value.strip():
                raise ValueError("expected a non-empty string")
            value = value.strip()
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{name} = {value!r} from {source}: {exc}") from None
    return value


def _check(settings: Settings) -> None:
    if settings.bloom_capacity < 1:
        raise ConfigError(f"bloom_capacity must be >= 1, got {settings.bloom_capacity}")
    if not 0.0 < settings.bloom_error_rate < 1.0:
        raise ConfigError(f"bloom_error_rate must be between 0 and 1, got {settings.bloom_error_rate}")
    for name in ("controller_interval_s", "claim_lease_s", "detail_retry_base_s", "detail_claim_timeout_s",
                 "failed_requeue_after_s"):
        if getattr(settings, name) < 0:
            raise ConfigError(f"{name} must not be negative")
    for name in ("flag_after_empty_runs", "detail_max_tries", "failed_max_rounds"):
        if getattr(settings, name) < 1:
            raise ConfigError(f"{name} must be >= 1")
    for name in ("db_url", "queue_url", "index_url"):
        if "://" not in getattr(settings, name):
            raise ConfigError(f"{name} = {getattr(settings, name)!r} is not a URL (scheme://...)")
    try:
        from zoneinfo import ZoneInfo

        ZoneInfo(settings.default_tz)
    except Exception:
        raise ConfigError(f"default_tz = {settings.default_tz!r} is not a known time zone") from None


def read_config_file(path: str | os.PathLike) -> dict[str, Any]:
    """The mapping in a TOML (.toml) or YAML (.yaml/.yml) file; a `[mcrawl]` section, if any, is used."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config file {p}: {exc.strerror}") from None
    try:
        if p.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text) or {}
        else:
            data = tomllib.loads(text)
    except Exception as exc:  # tomllib.TOMLDecodeError, yaml.YAMLError
        raise ConfigError(f"config file {p} is not valid {p.suffix.lstrip('.') or 'TOML'}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"config file {p} must hold a mapping, not {type(data).__name__}")
    if isinstance(data.get("mcrawl"), dict):
        data = data["mcrawl"]
    return data


def load_settings(path: str | os.PathLike | None = None, env: Mapping[str, str] | None = None) -> Settings:
    """Defaults < config file < environment. `path` defaults to $MCRAWL_CONFIG (none if unset)."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    path = path or env.get("MCRAWL_CONFIG")
    if path:
        for key, value in read_config_file(path).items():
            if key in _FIELDS:
                values[key] = _coerce(key, value, str(path))
            elif isinstance(value, dict):
                extra[key] = value  # another component's section, e.g. [spiders]
            else:
                raise ConfigError(f"unknown setting {key!r} in {path}; known: {', '.join(sorted(_FIELDS))}")
    for name, env_name in ENV_NAMES.items():
        if env.get(env_name, "") != "":
            values[name] = _coerce(name, env[env_name], f"${env_name}")
    settings = Settings(**values, extra=extra)
    _check(settings)
    return settings


def data_path(settings: Settings, *parts: str) -> Path:
    """A path under data_dir, created on demand."""
    base = Path(settings.data_dir)
    base.mkdir(parents=True, exist_ok=True)
    return base.joinpath(*parts)
