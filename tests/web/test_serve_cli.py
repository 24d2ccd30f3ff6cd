"""`mcrawl serve` as a person runs it: a subprocess on a free port, answering over HTTP, and the
`--add-user` and bad-argument paths."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MCRAWL = [sys.executable, "-m", "crawler.cli"]


def _env(tmp_path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCRAWL_")}
    env.update(MCRAWL_DATA=str(tmp_path), MCRAWL_DB=f"sqlite:///{tmp_path}/c.sqlite3",
               MCRAWL_INDEX=f"sqlite:///{tmp_path}/i.sqlite3", MCRAWL_QUEUE=f"local:///{tmp_path}/q", **extra)
    return env


def test_serve_answers_on_the_printed_url(tmp_path):
    proc = subprocess.Popen([*MCRAWL, "serve", "--port", "0"], cwd=ROOT, env=_env(tmp_path),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("mcrawl console on http://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() is not None else "")
        url = line.split(" on ", 1)[1].strip()
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(url + "api/openapi.json", timeout=5) as response:
                    assert response.status == 200
                    assert json.load(response)["info"]["title"] == "mcrawl console API"
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        with urllib.request.urlopen(url + "login", timeout=5) as response:
            assert "No console users are set up yet" in response.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_add_user_stores_a_hash(tmp_path):
    result = subprocess.run([*MCRAWL, "serve", "--add-user", "alice"], cwd=ROOT, input="s3cret-enough\n",
                            env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    users = json.loads((tmp_path / "web-users.json").read_text())
    assert set(users) == {"alice"} and "s3cret-enough" not in users["alice"]
    short = subprocess.run([*MCRAWL, "serve", "--add-user", "bob"], cwd=ROOT, input="short\n",
                           env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert short.returncode == 2 and "at least 8 characters" in short.stderr


def test_bad_settings_are_reported_not_raised(tmp_path):
    result = subprocess.run([*MCRAWL, "serve"], cwd=ROOT, env=_env(tmp_path, MCRAWL_WEB_OPEN_SEARCH="perhaps"),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "expected true or false" in result.stderr
    port = subprocess.run([*MCRAWL, "serve", "--port", "70000"], cwd=ROOT, env=_env(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert port.returncode == 2 and "out of range" in port.stderr
