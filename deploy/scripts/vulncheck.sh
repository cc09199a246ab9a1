#!/usr/bin/env bash
# vulncheck.sh: govulncheck over every module. Fails when our code calls into
# a known vulnerability (govulncheck's symbol-level results, exit code 3);
# vulnerabilities only in packages we import or modules we require, with no
# call path from our code, are listed and do not fail it.
#
# The workspace modules are scanned with go.work, as `make build` and the
# Dockerfiles build them; tools alone (GOWORK=off), Caddy's command included
# (bin/caddy is the gateway of `make run`).
#
# VULNDB says where the database is: unset or empty for the online one, or
# a directory holding one (index/db.json), a file:// or https:// URL, or a
# .tar.gz holding such a directory (the offline copy in ../shared/vulndb/).
# govulncheck is the version tools/go.mod names, built into bin/.
set -euo pipefail

GO=${GO:-go}
db=${VULNDB:-}
# A relative path names a file from where the caller stands.
if [[ -n $db && $db != *://* && $db != /* ]]; then
	db=$PWD/$db
fi
cd "$(dirname "$0")/../.."

if [[ $db == *.tar.gz || $db == *.tgz ]]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	tar xzf "$db" -C "$tmp"
	index=$(find "$tmp" -path '*/index/db.json' -print -quit)
	if [[ -z $index ]]; then
		echo "vulncheck: $db holds no vulnerability database (no index/db.json)" >&2
		exit 1
	fi
	db=${index%/index/db.json}
fi
if [[ -n $db && $db != *://* ]]; then
	if [[ ! -f $db/index/db.json ]]; then
		echo "vulncheck: $db is not a vulnerability database (no index/db.json)" >&2
		exit 1
	fi
	db=file://$(cd "$db" && pwd)
fi

gvc=$PWD/bin/govulncheck
(cd tools && GOWORK=off "$GO" build -o "$gvc" golang.org/x/vuln/cmd/govulncheck)
args=()
[[ -n $db ]] && args=(-db "$db")
"$gvc" "${args[@]}" -version | sed '/^$/d; s/^/==> /'

failed=()
scan() { # dir patterns...; GOWORK from the caller's environment
	local dir=$1 status=0
	shift
	echo "==> govulncheck $dir${GOWORK:+ (GOWORK=$GOWORK)}"
	"$gvc" -C "$dir" "${args[@]}" "$@" || status=$?
	((status == 0)) || failed+=("$dir (exit $status)")
}
scan pkg ./...
scan services/fuel ./...
scan services/docqa ./...
GOWORK=off scan tools ./... github.com/caddyserver/caddy/v2/cmd/caddy

if ((${#failed[@]})); then
	# Exit 3: our code calls a vulnerable symbol (require the "Fixed in"
	# version); any other: govulncheck could not scan (build errors, no database).
	echo "FAIL: vulncheck: ${failed[*]}" >&2
	exit 1
fi
echo "vulncheck: ok: no called vulnerability in pkg, services/fuel, services/docqa, tools"
