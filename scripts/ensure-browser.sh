#!/usr/bin/env bash
# The dashboard's browser tests drive headless Chromium from Debian's `chromium` package
# (playwright-core downloads nothing). Installs it when missing; idempotent. Where it
# cannot be installed (no apt, no root), says so: the browser tests then skip with that reason.
set -euo pipefail

if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-browser: no apt-get here; install Chromium yourself (the dashboard browser tests skip without it)" >&2
  exit 0
fi
echo "ensure-browser: installing chromium from Debian packages (for the dashboard browser tests)"
if ! { $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }; then
  echo "ensure-browser: could not install chromium; the dashboard browser tests will skip" >&2
fi
