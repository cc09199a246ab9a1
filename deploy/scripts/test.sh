#!/usr/bin/env bash
# test.sh: every module's tests with -race, against a real PostgreSQL, and
# beside them the web client's build, unit and end-to-end tests.
#
# The two parts run at the same time: much of each is waiting (on
# PostgreSQL, timers, Chromium, the services' start-up), so on two cores the
# run takes about the longer part instead of their sum (issue 59 point 6;
# proto-docs/foundation-decisions.md, "Test time"). The web part's output
# goes to a file, printed once the Go tests are done; TEST_WEB_BESIDE=0 runs
# it after them instead, its output as it comes.
#
# TEST_DATABASE_URL names an existing server; without it a throwaway cluster
# is started from the installed PostgreSQL binaries and removed at the end.
# Neither working is a failure, never a skip. The output ends with go test's
# package summary lines and the web client's.
set -euo pipefail
cd "$(dirname "$0")/../.."

GO=${GO:-go}
source deploy/scripts/pg-throwaway.sh

log=$(mktemp)
web_log=$(mktemp)
e2e_bin=$(mktemp -d)
# web_pid: the web part while it runs beside the Go tests, in a process
# group of its own (set -m), which is stopped whole if this script ends
# first.
web_pid=""
cleanup() {
	if [[ -n $web_pid ]] && kill -0 "$web_pid" 2>/dev/null; then
		kill -TERM -- "-$web_pid" 2>/dev/null || true
		wait "$web_pid" 2>/dev/null || true
	fi
	rm -f "$log" "$web_log"
	[[ -z $e2e_bin ]] || rm -rf "$e2e_bin"
	pg_throwaway_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -n "${TEST_DATABASE_URL:-}" ]]; then
	echo "==> PostgreSQL for tests: TEST_DATABASE_URL ($(echo "$TEST_DATABASE_URL" | sed -E 's#//([^:@/]*):[^@/]*@#//\1:***@#'))"
else
	if ! pg_throwaway_start; then
		echo "FAIL: no PostgreSQL for the integration tests: TEST_DATABASE_URL is unset and no throwaway server could be started" >&2
		exit 1
	fi
	echo "==> PostgreSQL for tests: throwaway $PG_THROWAWAY_VERSION at $TEST_DATABASE_URL (from $PG_THROWAWAY_BIN)"
fi
export TEST_DATABASE_URL

# RACE_FLAGS: the Makefile's (-race, SQLite's translated C source left
# uninstrumented), the same as lint's so the tests find its compile.
RACE_FLAGS=${RACE_FLAGS:--race}
# LINK_FLAGS: the test binaries and the services built for the tests are
# linked without DWARF (-w): it halved the link of a test binary (docqa's
# httpapi: 9 CPU-seconds, 4.5 without, 2026-12-07), and make test links
# about ninety. A race report, a panic and a failed test still name every
# function, file and line (the runtime's own tables, which -w keeps); only
# a debugger wants DWARF, and `go test` by hand keeps it.
LINK_FLAGS=-ldflags=-w

# The web client: its build (make web), then the end-to-end tests (the
# built client behind Caddy against both services, in Chromium; two files
# at a time unless E2E_CONCURRENCY says otherwise, each with its own
# stack) with the type check, lint and unit tests beside them. Node, npm
# or Chromium missing is a failure, never a skip.
#
# The services the browser drives are the same commands as make build's,
# built with the Go tests' race flags into a directory of their own
# (BIN_DIR, beside bin/caddy): their packages' compile is the one lint and
# the Go tests make, found in the build cache, where make build's flags
# (no cgo, -trimpath, the deployment's tags) compiled every dependency a
# second time; and a data race the browser's use provokes in a service
# fails the run (e2e/harness.mjs). What make build and the Dockerfiles
# produce is checked by tools/deployment.
web_part() {
	echo "==> web client: npm ci (when needed), build"
	if ! command -v npm >/dev/null 2>&1; then
		echo "FAIL: npm not found: the web client's tests need Node.js 22" >&2
		return 1
	fi
	if ! make --no-print-directory web >/dev/null; then
		echo "FAIL: make web (the web client's build)" >&2
		return 1
	fi
	ln -s "$PWD/bin/caddy" "$e2e_bin/caddy"
	local cmd
	for cmd in fuel docqa; do
		# shellcheck disable=SC2086
		if ! $GO build $RACE_FLAGS $LINK_FLAGS -o "$e2e_bin/$cmd-service" "./services/$cmd/cmd/$cmd-service"; then
			echo "FAIL: go build $RACE_FLAGS ./services/$cmd/cmd/$cmd-service" >&2
			return 1
		fi
	done
	# The end-to-end tests, the longest part, start first; the type check,
	# lint and unit tests run beside them, and their output comes first.
	# The PDF engine's compiled code is cached where docqa's system tests
	# run the service (pdftexttest.CacheDir): whichever of them and these
	# starts first compiles it (pdftext's compile lock), the rest load it.
	local e2e_log=$e2e_bin/e2e.log e2e_pid status=0
	(cd services/web && BIN_DIR="$e2e_bin" \
		DOCQA_PDF_CACHE_DIR="${DOCQA_PDF_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/carhub-test/pdfium}" \
		npm run --silent e2e) >"$e2e_log" 2>&1 &
	e2e_pid=$!
	echo "==> web client: type check, lint, unit tests"
	if ! (cd services/web && npm run --silent typecheck && npm run --silent lint && npm run --silent test); then
		echo "FAIL: web client type check, lint or unit tests" >&2
		status=1
	fi
	wait "$e2e_pid" || status=1
	echo "==> web client: end-to-end tests (Chromium: ${CHROMIUM:-/usr/bin/chromium}; services built with $RACE_FLAGS; ${E2E_CONCURRENCY:-2} files at a time)"
	cat "$e2e_log"
	return "$status"
}

web_status=0
if [[ ${TEST_WEB_BESIDE:-1} != 0 ]]; then
	echo "==> web client: started beside the Go tests; its output follows theirs"
	set -m
	web_part >"$web_log" 2>&1 </dev/null &
	web_pid=$!
	set +m
fi

status=0
# go test stops a package's test binary after 10 minutes unless told
# otherwise; fuel's httpapi package (every endpoint on both databases, with
# accounts off and on) ran past that once under -race on a loaded 2-core VM
# (601 s, 2026-12-05) while passing. 30 minutes still catches a hang.
TEST_TIMEOUT=${TEST_TIMEOUT:-30m}
# The race and link flags go in GOFLAGS so that the service binaries the
# system tests build (pkg/proctest: go build -race) are built the same way.
echo "==> go test $RACE_FLAGS (workspace: pkg, services/fuel, services/docqa)"
# The slowest packages are named first: go test starts packages in the
# order given (each is run once), and a slow one started last would run
# alone at the end while the other core idles. A renamed one fails here
# at once ("no Go files").
slowest=(./services/fuel/internal/httpapi ./services/fuel/internal/store ./services/fuel/internal/systemtest
	./services/docqa/internal/pdftext ./services/docqa/internal/httpapi ./services/docqa/cmd/docqa-service)
# shellcheck disable=SC2086
GOFLAGS="$RACE_FLAGS $LINK_FLAGS $($GO env GOFLAGS)" $GO test -count=1 -timeout "$TEST_TIMEOUT" ${GOTESTFLAGS:-} \
	"${slowest[@]}" ./pkg/... ./services/fuel/... ./services/docqa/... 2>&1 | tee -a "$log" || status=1
echo "==> go test -race (tools module, GOWORK=off)"
# shellcheck disable=SC2086
(cd tools && GOWORK=off $GO test -race $LINK_FLAGS -count=1 -timeout "$TEST_TIMEOUT" ${GOTESTFLAGS:-} ./...) 2>&1 | tee -a "$log" || status=1

if [[ -n $web_pid ]]; then
	echo "==> web client (it ran beside the Go tests; its output)"
	wait "$web_pid" || web_status=$?
	web_pid=""
	cat "$web_log"
else
	web_part || web_status=$?
fi
((web_status == 0)) || status=1

echo "==> summary (PostgreSQL: ${PG_THROWAWAY_VERSION:-TEST_DATABASE_URL})"
grep -E '^(ok|FAIL|\?)[[:space:]]' "$log" || true
if ((web_status == 0)); then
	echo "ok  	services/web (unit and end-to-end tests)"
else
	echo "FAIL	services/web (see above)"
fi
exit "$status"
