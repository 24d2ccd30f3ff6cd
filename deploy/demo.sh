#!/usr/bin/env bash
# The README's first command: install the project into .venv (idempotent) and run the offline demo:
# a local demo news site on 127.0.0.1 is crawled (RSS, list page, sitemap), extracted, indexed into
# SQLite FTS and searched. No servers, no network beyond loopback. Extra arguments go to `mcrawl demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash deploy/setup-python.sh
exec .venv/bin/mcrawl demo "$@"
