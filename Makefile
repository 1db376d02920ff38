# sluice — see README.md. Every target installs dependencies first if they are missing.
SHELL := /bin/bash
NODE_MODULES := node_modules/.package-lock.json

.PHONY: all install generate build run test bench check typecheck lint clean

all: build

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $(NODE_MODULES)

install: $(NODE_MODULES)

## generate: compile specs/*.yaml into generated/ (deterministic)
generate: $(NODE_MODULES)
	npx tsx generator/main.ts

## build: compile TypeScript to dist/
build: $(NODE_MODULES)
	npm run build --silent

## run: the service on its embedded database (./data) fed by the devnet simulator; Ctrl-C stops it
run: build
	NETWORK=devnet DATA_DIR=$${DATA_DIR:-./data} WEBHOOK_ALLOW_PRIVATE=true LOG_FORMAT=$${LOG_FORMAT:-pretty} LOG_LEVEL=$${LOG_LEVEL:-warn} node dist/runtime/cli/main.js dev

## test: the whole suite on PGlite and the storage suites on PostgreSQL (127.0.0.1:5432), in one vitest run
test: $(NODE_MODULES)
	node test/run.mjs

## bench: reads with a new URL per request (Index/Streams/subgraph lists next to /health, page cache on and off), then ingest (chain tables, then `sluice import` with the subgraphs), webhook delivery, archive publish/restore and metrics-cost benchmarks (prints figures; not a test)
bench: build
	npx tsx test/bench/read-distinct.ts
	npx tsx test/bench/ingest.ts
	npx tsx test/bench/subgraphs.ts
	npx tsx test/bench/webhooks.ts
	npx tsx test/bench/archive.ts
	npx tsx test/bench/metrics.ts

## check: typecheck + lint + generated/ drift
check: typecheck lint
	npx tsx generator/main.ts --check

typecheck: $(NODE_MODULES)
	npx tsc -p tsconfig.json --noEmit
	npx tsc -p console/tsconfig.json

lint: $(NODE_MODULES)
	npx biome check .

clean:
	rm -rf dist .tmp
