"""Shared test fixtures: where the benchmark pages are, and where the real test servers listen.

The servers (MariaDB, Redis, Elasticsearch) are started by `bash deploy/services.sh start`, which
writes their URLs to deploy/services.env; the README test command does that before pytest runs.
Tests that need a server fail with a clear message when it is not reachable: they never skip.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(os.environ.get("MCRAWL_BENCH", ROOT.parent / "shared" / "bench"))
SERVICES_ENV = ROOT / "deploy" / "services.env"


def _services_env() -> dict[str, str]:
    """Values from deploy/services.env (lines `export KEY=value`), overridden by the real environment."""
    values: dict[str, str] = {}
    if SERVICES_ENV.exists():
        for line in SERVICES_ENV.read_text().splitlines():
            line = line.strip()
            if line.startswith("export "):
                line = line[len("export "):]
            if "=" in line and not line.startswith("#"):
                key, value = line.split("=", 1)
                values[key.strip()] = value.strip().strip("'\"")
    values.update({k: v for k, v in os.environ.items() if k.startswith("MCRAWL_TEST_")})
    return values


def service_url(name: str) -> str:
    key = f"MCRAWL_TEST_{name}_URL"
    url = _services_env().get(key)
    if not url:
        pytest.fail(f"{key} is not set: start the test servers with `bash deploy/services.sh start`")
    return url


@pytest.fixture(scope="session")
def bench_dir() -> Path:
    """../shared/bench; tests using it are skipped (and say so) where it is absent."""
    if not (BENCH / "score.py").exists():
        pytest.skip(f"benchmark pages not found at {BENCH} (set MCRAWL_BENCH); skipped")
    return BENCH


@pytest.fixture(scope="session")
def mysql_url() -> str:
    return service_url("MYSQL")


@pytest.fixture(scope="session")
def redis_url() -> str:
    return service_url("REDIS")


@pytest.fixture(scope="session")
def es_url() -> str:
    return service_url("ES")
