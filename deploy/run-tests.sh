#!/usr/bin/env bash
# The whole test suite on a fresh machine: installs what the tests need (Python deps into .venv,
# MariaDB and Redis from Debian, Elasticsearch from Maven Central), starts those servers on
# 127.0.0.1 (idempotent: already-running servers are reused), then runs pytest.
# Extra arguments go to pytest, e.g. `bash deploy/run-tests.sh tests/unit -x`.
set -euo pipefail
cd "$(dirname "$0")/.."

bash deploy/setup-python.sh
bash deploy/setup-browser.sh  # Chromium + chromedriver for the console's browser tests (tests/web)
bash deploy/services.sh start
# shellcheck disable=SC1091
source deploy/services.env

set +e
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
# pytest exit code 5 means "no tests collected": a wrong path, not a pass.
exit $rc
