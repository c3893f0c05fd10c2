#!/usr/bin/env bash
# Installs everything the test suite needs and runs it. This is the README's test command,
# and .ci/run calls it too, so what CI runs is exactly what a developer runs.
set -euo pipefail
cd "$(dirname "$0")/.."

# A real browser for the e2e tests: Debian's Chromium plus CJK fonts (without them every
# Korean glyph in a screenshot is an empty box). Never `playwright install`: it downloads.
need_pkgs=()
[ -x /usr/bin/chromium ] || need_pkgs+=(chromium)
fc-list 2>/dev/null | grep -qi "noto sans cjk" || need_pkgs+=(fonts-noto-cjk)
# A real PostgreSQL for the database tests (tests/pg.py starts a throw-away server per session).
command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need_pkgs+=(postgresql)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  echo "installing ${need_pkgs[*]} (Debian packages for the browser and PostgreSQL tests)"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# The test tools at the versions recorded in tests/constraints.txt (the runtime stays ranges).
.venv/bin/python -m pip install -q -e '.[test]' -c tests/constraints.txt
# Linters and types first (scope in pyproject.toml: [tool.ruff] include, [tool.mypy] files).
.venv/bin/python -m ruff check
.venv/bin/python -m mypy
exec .venv/bin/python -m pytest "$@"
