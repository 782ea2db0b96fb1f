#!/usr/bin/env bash
# The browser tests: Kenning's web app in Debian's chromium (driven by
# chromium-driver from the Python environment given as $1), with a real
# OpenID provider run by node, for the binary $2. Says loudly what it
# skipped when a part is missing.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
export KENNING_BIN="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
missing=()
for tool in chromium chromedriver node; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ -d "$here/node_modules/oidc-provider" ] || missing+=("node_modules (npm ci in tests/browser)")
if [ ${#missing[@]} -gt 0 ]; then
  echo "NOT RUN: the browser tests; missing: ${missing[*]}"
  exit 0
fi
# Firefox runs where it and geckodriver are (GECKODRIVER names the driver).
if ! { command -v firefox-esr >/dev/null || command -v firefox >/dev/null; } \
   || ! { [ -n "${GECKODRIVER:-}" ] || command -v geckodriver >/dev/null; }; then
  echo "NOT RUN: the browser tests in Firefox (firefox-esr or geckodriver missing); Chromium only"
fi
cd "$here"
exec "$python" -m pytest -q -p no:cacheprovider test_web.py
