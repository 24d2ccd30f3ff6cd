"""The console's own settings: the `[web]` section of the config file, overridden by MCRAWL_WEB_* env.

| key             | env                       | default                                   |
|-----------------|---------------------------|-------------------------------------------|
| open_search     | MCRAWL_WEB_OPEN_SEARCH    | true: search pages and API need no log-in |
| users_file      | MCRAWL_WEB_USERS          | <data_dir>/web-users.json                 |
| secret_key      | MCRAWL_WEB_SECRET         | random, kept in <data_dir>/web-secret     |
| admin_password  | MCRAWL_WEB_ADMIN_PASSWORD | unset; when set, user "admin" logs in with it (hashed in memory) |
| page_size       | MCRAWL_WEB_PAGE_SIZE      | 10                                        |
"""
from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from werkzeug.security import generate_password_hash

from crawler.config import ConfigError, Settings


@dataclass
class WebConfig:
    open_search: bool = True
    users: dict[str, str] = field(default_factory=dict)  # name -> werkzeug password hash
    users_file: Path | None = None
    secret_key: str = ""
    page_size: int = 10


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ConfigError(f"web.{name} = {value!r}: expected true or false")


def read_users(path: Path) -> dict[str, str]:
    """name -> password hash from a JSON users file; a missing file means no users."""
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"web users file {path} is unreadable: {exc}") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise ConfigError(f"web users file {path} must map user names to password hashes")
    return data


def set_password(path: Path, user: str, password: str) -> None:
    """Store (or replace) `user`'s hashed password in the users file, readable only by its owner."""
    if not user.strip():
        raise ConfigError("user name must not be empty")
    if len(password) < 8:
        raise ConfigError("password must have at least 8 characters")
    users = read_users(path)
    users[user.strip()] = generate_password_hash(password)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(users, fh, indent=1, sort_keys=True)
    os.replace(tmp, path)


def _secret_key(data_dir: Path) -> str:
    """A per-installation random key, kept on disk so sessions survive restarts."""
    path = data_dir / "web-secret"
    if path.exists():
        return path.read_text().strip()
    data_dir.mkdir(parents=True, exist_ok=True)
    key = secrets.token_hex(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(key)
    return key


def load_web_config(settings: Settings, env: Mapping[str, str] | None = None) -> WebConfig:
    env = os.environ if env is None else env
    section = dict(settings.extra.get("web", {}) or {})
    for key, env_name in (("open_search", "MCRAWL_WEB_OPEN_SEARCH"), ("users_file", "MCRAWL_WEB_USERS"),
                          ("secret_key", "MCRAWL_WEB_SECRET"), ("admin_password", "MCRAWL_WEB_ADMIN_PASSWORD"),
                          ("page_size", "MCRAWL_WEB_PAGE_SIZE")):
        if env.get(env_name, "") != "":
            section[key] = env[env_name]
    unknown = set(section) - {"open_search", "users_file", "secret_key", "admin_password", "page_size"}
    if unknown:
        raise ConfigError(f"unknown web setting(s): {', '.join(sorted(unknown))}")
    data_dir = Path(settings.data_dir)
    cfg = WebConfig(open_search=_bool("open_search", section.get("open_search", True)))
    cfg.users_file = Path(section.get("users_file") or data_dir / "web-users.json")
    cfg.users = read_users(cfg.users_file)
    if section.get("admin_password"):
        cfg.users.setdefault("admin", generate_password_hash(str(section["admin_password"])))
    cfg.secret_key = str(section.get("secret_key") or _secret_key(data_dir))
    try:
        cfg.page_size = int(section.get("page_size", 10))
    except (TypeError, ValueError):
        raise ConfigError(f"web.page_size = {section.get('page_size')!r}: expected a whole number") from None
    if not 1 <= cfg.page_size <= 100:
        raise ConfigError("web.page_size must be between 1 and 100")
    return cfg
