#!/usr/bin/env bash
# test.sh: every module's tests with -race, against a real PostgreSQL; then
# the web client's unit and end-to-end tests.
#
# TEST_DATABASE_URL names an existing server; without it a throwaway cluster
# is started from the installed PostgreSQL binaries and removed at the end.
# Neither working is a failure, never a skip. The output ends with go test's
# package summary lines.
set -euo pipefail
cd "$(dirname "$0")/../.."

GO=${GO:-go}
source deploy/scripts/pg-throwaway.sh

if [[ -n "${TEST_DATABASE_URL:-}" ]]; then
	echo "==> PostgreSQL for tests: TEST_DATABASE_URL ($(echo "$TEST_DATABASE_URL" | sed -E 's#//([^:@/]*):[^@/]*@#//\1:***@#'))"
else
	trap pg_throwaway_stop EXIT
	trap 'exit 130' INT TERM
	if ! pg_throwaway_start; then
		echo "FAIL: no PostgreSQL for the integration tests: TEST_DATABASE_URL is unset and no throwaway server could be started" >&2
		exit 1
	fi
	echo "==> PostgreSQL for tests: throwaway $PG_THROWAWAY_VERSION at $TEST_DATABASE_URL (from $PG_THROWAWAY_BIN)"
fi
export TEST_DATABASE_URL

log=$(mktemp)
status=0
# go test stops a package's test binary after 10 minutes unless told
# otherwise; fuel's httpapi package (every endpoint on both databases, with
# accounts off and on) ran past that once under -race on a loaded 2-core VM
# (601 s, 2026-12-05) while passing. 30 minutes still catches a hang.
TEST_TIMEOUT=${TEST_TIMEOUT:-30m}
echo "==> go test -race (workspace: pkg, services/fuel, services/docqa)"
# shellcheck disable=SC2086
$GO test -race -count=1 -timeout "$TEST_TIMEOUT" ${GOTESTFLAGS:-} ./pkg/... ./services/fuel/... ./services/docqa/... 2>&1 | tee -a "$log" || status=1
echo "==> go test -race (tools module, GOWORK=off)"
# shellcheck disable=SC2086
(cd tools && GOWORK=off $GO test -race -count=1 -timeout "$TEST_TIMEOUT" ${GOTESTFLAGS:-} ./...) 2>&1 | tee -a "$log" || status=1


# The web client: type check, lint and unit tests, then the end-to-end tests
# (the built client behind Caddy against both services, in Chromium). Node,
# npm or Chromium missing is a failure, never a skip.
web_status=0
echo "==> web client: npm ci (when needed), build, type check, lint, unit tests"
if ! command -v npm >/dev/null 2>&1; then
	echo "FAIL: npm not found: the web client's tests need Node.js 22" >&2
	web_status=1
elif ! make --no-print-directory build >/dev/null; then
	echo "FAIL: make build (services and web client)" >&2
	web_status=1
elif ! (cd services/web && npm run --silent typecheck && npm run --silent lint && npm run --silent test); then
	echo "FAIL: web client type check, lint or unit tests" >&2
	web_status=1
else
	echo "==> web client: end-to-end tests (Chromium: ${CHROMIUM:-/usr/bin/chromium})"
	(cd services/web && npm run --silent e2e) || web_status=1
fi
((web_status == 0)) || status=1

echo "==> summary (PostgreSQL: ${PG_THROWAWAY_VERSION:-TEST_DATABASE_URL})"
grep -E '^(ok|FAIL|\?)[[:space:]]' "$log" || true
if ((web_status == 0)); then
	echo "ok  	services/web (unit and end-to-end tests)"
else
	echo "FAIL	services/web (see above)"
fi
rm -f "$log"
exit "$status"
