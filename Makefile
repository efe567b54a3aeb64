# Gridlab: the two commands of the README are `make start` and `make test`.
# Both install what is missing (pnpm via corepack, PostgreSQL, Redis, NATS from Debian
# packages), start the infrastructure, and are safe to run again.

SHELL := /bin/bash
export COREPACK_ENABLE_DOWNLOAD_PROMPT := 0
PNPM := corepack pnpm

.PHONY: start dev reset test bench typecheck infra deps database clean-test-data

## start: build the bundles production runs and run the whole suite from them in the foreground (devnet
## with history, indexer, all services); a crashed process is restarted with back-off; Ctrl-C stops it.
## `make start REPLICAS=2` runs two replicas of each service
start: infra deps database
	@node scripts/build.mjs --local
	@GRIDLAB_REPLICAS=$(or $(REPLICAS),$(GRIDLAB_REPLICAS),1) node --enable-source-maps $${GRIDLAB_BUILD_DIR:-.gridlab/build}/suite/main.js

## dev: the same suite from the sources under `tsx watch`: a process restarts when a file it loaded changes
dev: infra deps database
	@GRIDLAB_DEV=1 GRIDLAB_REPLICAS=$(or $(REPLICAS),$(GRIDLAB_REPLICAS),1) node --import tsx deploy/local/run-suite.ts

## reset: start over from genesis: deletes the devnet ledger (.gridlab/devnet), the database, the JetStream
## streams and live bucket, and the Redis keys of this checkout together (refuses while the suite runs)
reset: infra deps
	@$(PNPM) -s gridlab devnet reset

## test: type-check, lint (typescript-eslint, knip) and run every test (unit, integration against real servers, end to end); the summary
## counts skipped tests, and under CI=true a skipped test (or a browser that cannot be installed) fails the run
test: infra deps
	@scripts/ensure-browser.sh
	@$(PNPM) -s typecheck
	@$(PNPM) -s lint
	@mkdir -p .gridlab
	@$(PNPM) -s exec jest --ci --maxWorkers=2 --json --outputFile=.gridlab/jest-results.json 2>&1 | tee .gridlab/jest-output.log; \
	  status=$${PIPESTATUS[0]}; \
	  node scripts/test-summary.mjs .gridlab/jest-results.json .gridlab/jest-output.log || status=1; \
	  exit $$status

## bench: measure the SPEC 8 figures; prints a table and writes bench/results.json
bench: infra deps
	@node --import tsx bench/run.ts

typecheck: deps
	@$(PNPM) -s typecheck

infra:
	@scripts/ensure-infra.sh

deps:
	@scripts/ensure-deps.sh

database:
	@psql -h 127.0.0.1 -U postgres -d postgres -Atqc "SELECT 1 FROM pg_database WHERE datname = 'gridlab'" | grep -q 1 \
	  || psql -h 127.0.0.1 -U postgres -d postgres -qc 'CREATE DATABASE gridlab'

## clean-test-data: drop databases left behind by interrupted test runs
clean-test-data:
	@psql -h 127.0.0.1 -U postgres -d postgres -Atc "SELECT datname FROM pg_database WHERE datname LIKE 'gridlab\_test\_%'" \
	  | while read -r db; do psql -h 127.0.0.1 -U postgres -d postgres -qc "DROP DATABASE \"$$db\" WITH (FORCE)"; done
