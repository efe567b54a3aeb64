#!/usr/bin/env bash
# The dashboard's browser tests drive headless Chromium from Debian's `chromium` package
# (playwright-core downloads nothing). Installs it when missing; idempotent.
# Where it cannot be installed (no apt, no root, the install failed), says so: locally the
# browser tests then skip with that reason; under CI=true this fails, because a CI run
# whose browser tests silently skipped would report a dashboard it never opened.
set -euo pipefail

# The same path the browser tests launch (test-e2e/dashboard.test.ts).
CHROMIUM="${CHROMIUM_PATH:-/usr/bin/chromium}"

have_browser() { [ -x "$CHROMIUM" ]; }

missing() {
  if [ "${CI:-}" = "true" ]; then
    echo "ensure-browser: $1; CI=true, so this fails instead of letting the dashboard browser tests skip" >&2
    exit 1
  fi
  echo "ensure-browser: $1; the dashboard browser tests will skip" >&2
  exit 0
}

if have_browser; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v apt-get >/dev/null 2>&1; then
  missing "no Chromium at $CHROMIUM and no apt-get here (install Chromium yourself, or set CHROMIUM_PATH)"
fi
echo "ensure-browser: installing chromium from Debian packages (for the dashboard browser tests)"
if ! { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
  missing "could not install chromium"
fi
if ! have_browser; then
  missing "chromium installed, but nothing runs at $CHROMIUM (CHROMIUM_PATH)"
fi
