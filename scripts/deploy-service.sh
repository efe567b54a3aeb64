#!/usr/bin/env bash
# A runnable production copy of one service or tool in <out>: its bundle (scripts/build.mjs,
# run first) and only its production npm dependencies, installed flat by `pnpm deploy --prod`;
# no sources, no tests, no workspace packages (they are compiled into the bundle), no tsx.
#   scripts/deploy-service.sh indexer /out        then: cd /out && node dist/main.js
set -euo pipefail
cd "$(dirname "$0")/.."
export COREPACK_ENABLE_DOWNLOAD_PROMPT=0

name="${1:?usage: deploy-service.sh <service-or-tool> <out>}"
out="${2:?usage: deploy-service.sh <service-or-tool> <out>}"
if [ -d "services/$name" ]; then dir="services/$name"; elif [ -d "tools/$name" ]; then dir="tools/$name"; else
  echo "deploy-service: no services/$name or tools/$name" >&2
  exit 1
fi
[ -f "$dir/dist/main.js" ] || { echo "deploy-service: $dir/dist/main.js is missing: run 'pnpm build' first" >&2; exit 1; }
package="$(node -p "require('./$dir/package.json').name")"

rm -rf "$out"
# Peers a library only names for its own build (typescript for @solana/codecs) are not installed.
corepack pnpm --filter "$package" deploy --prod --legacy --config.node-linker=hoisted --config.auto-install-peers=false "$out" >/dev/null
# Keep the manifest and the installed dependencies; the workspace's packages are in the bundle.
find "$out" -mindepth 1 -maxdepth 1 ! -name node_modules ! -name package.json -exec rm -rf {} +
rm -rf "$out/node_modules/@gridlab" "$out/node_modules/.bin"
node -e '
  const fs = require("node:fs");
  const file = process.argv[1];
  const m = JSON.parse(fs.readFileSync(file, "utf8"));
  const deps = Object.fromEntries(Object.entries(m.dependencies ?? {}).filter(([n]) => !n.startsWith("@gridlab/")));
  fs.writeFileSync(file, JSON.stringify({ name: m.name, version: m.version, private: true, type: "commonjs", main: "dist/main.js", dependencies: deps }, null, 2) + "\n");
' "$out/package.json"
cp -r "$dir/dist" "$out/dist"
echo "deploy-service: $dir → $out ($(du -sh "$out" | cut -f1))"
