#!/usr/bin/env bash
# Installs the workspace's dependencies with the pnpm version pinned in package.json,
# through corepack (shipped with Node). Skips the install when node_modules already
# matches the lockfile. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

# package.json pins pnpm by its sha512: corepack checks the download against it (no
# registry signatures needed, and none are trusted instead of it).
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0

node -e 'const [maj] = process.versions.node.split(".").map(Number); if (maj < 20) { console.error(`Node ${process.versions.node} is too old: Gridlab needs Node 20 or newer`); process.exit(1); }'

# `pnpm -s gridlab …` (the README's CLI) needs a pnpm shim on PATH; corepack provides
# it where it may write next to node (root, or a user-owned Node install).
if ! command -v pnpm >/dev/null 2>&1; then
  corepack enable pnpm 2>/dev/null || echo "ensure-deps: could not install the pnpm shim; use 'corepack pnpm' where the README says 'pnpm'"
fi

stamp=node_modules/.pnpm/lock.yaml
if ! { [ -f "$stamp" ] && [ "$stamp" -nt pnpm-lock.yaml ] && [ "$stamp" -nt package.json ]; }; then
  echo "ensure-deps: installing dependencies (pnpm via corepack)"
  corepack pnpm install --frozen-lockfile
fi

# The dashboard the gateway serves at /: built when missing or older than its sources.
web=apps/web
if [ ! -f "$web/dist/index.html" ] || [ -n "$(find "$web/src" "$web/index.html" "$web/vite.config.ts" "$web/package.json" libs/client/src -newer "$web/dist/index.html" -print -quit)" ]; then
  echo "ensure-deps: building the dashboard ($web)"
  corepack pnpm --filter @gridlab/web -s build >/dev/null
fi
