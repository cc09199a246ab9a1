# CarHub backend. The two commands: `make run` and `make test`.
SHELL := /bin/bash
GO ?= go

SERVICES_PKGS := ./pkg/... ./services/fuel/... ./services/docqa/...
WORKSPACE_MODULES := pkg services/fuel services/docqa
# Modules a service's go.mod replaces a dependency with (outside the
# workspace: each is its own small module under the path it replaces).
REPLACEMENT_MODULES := pkg/grpcmiddleware-v1

.PHONY: all build run test lint fmt tidy caddy-check clean help bench fuzz web web-check

WEB := services/web

all: build

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/'

# The deployed binaries: static (no cgo: nothing needs it), without paths
# of this machine or symbols, without Gin's msgpack codec (nothing speaks
# it), and stamped with `git describe` (--version, the build_info metric).
# In a git checkout the commit is recorded too (-buildvcs: go's own stamping
# is off in workspace mode), which `go version -m bin/fuel-service` shows as
# vcs.revision; -trimpath keeps -ldflags out of that listing.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BUILD_TAGS := nomsgpack,grpcnotrace,retrynotrace,nodynamic
BUILD_FLAGS = -trimpath -buildvcs=$(if $(wildcard .git),true,auto) -tags $(BUILD_TAGS) -ldflags "-s -w -X main.version=$(VERSION)"

build: ## bin/fuel-service, bin/docqa-service, bin/caddy, bin/healthcheck, the web client (services/web/dist)
build: bin/caddy web
	CGO_ENABLED=0 $(GO) build $(BUILD_FLAGS) -o bin/fuel-service ./services/fuel/cmd/fuel-service
	CGO_ENABLED=0 $(GO) build $(BUILD_FLAGS) -o bin/docqa-service ./services/docqa/cmd/docqa-service
	cd tools && GOWORK=off CGO_ENABLED=0 $(GO) build $(BUILD_FLAGS) -o ../bin/healthcheck ./cmd/healthcheck

# Caddy is a Go tool dependency of the tools module (kept out of go.work so its
# dependency graph never moves the services' versions): no system install.
bin/caddy: tools/go.mod tools/go.sum
	cd tools && GOWORK=off $(GO) build -o ../bin/caddy github.com/caddyserver/caddy/v2/cmd/caddy

# The web client needs Node.js 22 LTS with npm (20.19+ still builds it;
# .ci/run brings 22 from the npm registry where the machine has less). `npm ci` runs when
# node_modules is missing or older than package-lock.json. Without npm the
# client is not built and `make run` serves the placeholder page instead.
web: ## the web client: services/web/dist (Vite build; reports the initial JS size)
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "web: npm not found: the web client is not built (it needs Node.js 22); make run serves deploy/web instead" >&2; \
		exit 0; \
	fi; \
	if [ ! -d $(WEB)/node_modules ] || [ $(WEB)/package-lock.json -nt $(WEB)/node_modules/.package-lock.json ]; then \
		(cd $(WEB) && npm ci --no-audit --no-fund) || exit 1; \
	fi; \
	cd $(WEB) && npm run --silent build

web-check: ## the web client's type check, lint and unit tests
	cd $(WEB) && npm run --silent typecheck && npm run --silent lint && npm run --silent test

# exec: the script, not a shell between, answers Ctrl-C (it stops the three
# and exits 0; make then says nothing more).
run: ## start both services and Caddy on http://localhost:8000 (Ctrl-C stops all)
run: build
	@exec deploy/scripts/run-local.sh

# RACE_FLAGS: the race detector's build, the same for lint (vet's and
# staticcheck's compile) and the tests, so that each finds the other's
# compile in the build cache. The deployment's build tags: the tests
# compile what is deployed (HEIC decoded in WebAssembly, no msgpack codec,
# no x/net/trace), and not the code those tags leave out. SQLite's C source translated to Go
# (modernc.org/sqlite/lib) is compiled without the detector's
# instrumentation: its memory accesses are SQLite's own, guarded by
# SQLite's mutexes, and instrumenting them found nothing of ours while it
# made every SQLite statement of the tests 2.6 times slower (a WAL test
# 4.25 s instead of 1.62 s, 2026-12-07). Our code, the driver and every
# other package stay instrumented; proto-docs/foundation-decisions.md,
# "Test time".
RACE_FLAGS := -race -tags=$(BUILD_TAGS) -gcflags=modernc.org/sqlite/lib=-race=false
export RACE_FLAGS

test: ## every module with -race, PostgreSQL integration tests included, then the web client's unit and end-to-end tests
test: bin/caddy
	@deploy/scripts/test.sh

bench: ## benchmark report: fuel load (direct, accounts, Caddy, floor, SQLite; profiles), statistics, PDF, search, SSE -> deploy/bench/REPORT.md
	@deploy/scripts/bench.sh

fuzz: ## every fuzz target, FUZZTIME each (default 60s), one at a time; fails on a crasher
	@deploy/scripts/fuzz.sh

# VULNDB: empty for the online database; a directory, file:// URL or .tar.gz
# for an offline copy (CI: ../shared/vulndb/). See proto-docs/dependency-decisions.md.
VULNDB ?=
.PHONY: vulncheck
vulncheck: ## govulncheck over every module; fails when our code calls a known vulnerability (VULNDB=offline copy)
	@VULNDB='$(VULNDB)' GO='$(GO)' deploy/scripts/vulncheck.sh

caddy-check: bin/caddy ## caddy validate and caddy fmt on the Caddyfile
	bin/caddy validate --config Caddyfile --adapter caddyfile
	bin/caddy fmt --diff Caddyfile >/dev/null

# staticcheck is a Go tool dependency of the tools module, as Caddy is.
bin/staticcheck: tools/go.mod tools/go.sum
	cd tools && GOWORK=off $(GO) build -o ../bin/staticcheck honnef.co/go/tools/cmd/staticcheck

SHELL_SCRIPTS := .ci/run $(wildcard deploy/scripts/*.sh services/*/scripts/*.sh)

lint: ## gofmt, go vet, staticcheck, shellcheck, go mod tidy unchanged, Caddyfile valid and formatted
# go vet compiles every dependency for its type information; with -race it
# compiles them as `make test` does, which then finds them in the build
# cache instead of compiling all again (CI runs lint first: 8 of its 16
# minutes were vet's own compile on a fresh clone, 2026-12-05). staticcheck
# asks the go command for every dependency's export data, which compiles
# them: with -race in GOFLAGS it finds vet's compile in the cache too (4.1
# minutes of a fresh clone's lint without it, 1 with it, 2026-12-05), and
# checks the race build's files, the ones the tests run.
lint: caddy-check bin/staticcheck
	@unformatted=$$(gofmt -l pkg services tools); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(RACE_FLAGS) $(SERVICES_PKGS)
	cd tools && GOWORK=off $(GO) vet -race ./...
	GOFLAGS="$(RACE_FLAGS) $$($(GO) env GOFLAGS)" bin/staticcheck $(SERVICES_PKGS)
	cd tools && GOWORK=off GOFLAGS="-race $$($(GO) env GOFLAGS)" ../bin/staticcheck ./...
	@for m in $(REPLACEMENT_MODULES); do \
		(cd $$m && GOWORK=off $(GO) vet -tags retrynotrace ./... && GOWORK=off $(CURDIR)/bin/staticcheck -tags retrynotrace ./...) || exit 1; \
	done
	@command -v shellcheck >/dev/null 2>&1 || { echo "lint: shellcheck not found (apt-get install shellcheck)"; exit 1; }
	shellcheck --severity=warning $(SHELL_SCRIPTS)
	@for m in $(WORKSPACE_MODULES) $(REPLACEMENT_MODULES) tools; do \
		(cd $$m && GOWORK=off $(GO) mod tidy -diff >/dev/null) || { echo "go mod tidy would change $$m (run: make tidy)"; exit 1; }; \
	done

fmt: ## gofmt -w and caddy fmt --overwrite
fmt: bin/caddy
	gofmt -w pkg services tools
	bin/caddy fmt --overwrite Caddyfile

tidy: ## go mod tidy in every module
	@for m in $(WORKSPACE_MODULES) $(REPLACEMENT_MODULES) tools; do (cd $$m && GOWORK=off $(GO) mod tidy) || exit 1; done

clean: ## remove built binaries and the web client's build
	rm -rf bin $(WEB)/dist
