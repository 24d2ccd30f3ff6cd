#!/usr/bin/env bash
# What the console's browser tests need: Debian's Chromium and its matching chromedriver (no
# browser download at run time: Selenium is pointed at /usr/bin/chromedriver), and Selenium in .venv.
# Idempotent; waits for another apt/dpkg run instead of failing on its lock.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get -o DPkg::Lock::Timeout=900 update -q
    $SUDO apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends \
        chromium chromium-driver fonts-noto-cjk
fi
if ! .venv/bin/python -c "import selenium" >/dev/null 2>&1; then
    .venv/bin/python -m pip install -q "selenium>=4.20"
fi
