#!/usr/bin/env bash
# bench.sh: the benchmark report (make bench), written to deploy/bench/REPORT.md.
#
# It describes the machine, then runs and records, each command verbatim:
#   - the fuel load tool (services/fuel/bench/fuelload) against fuel-service
#     directly with accounts off and, a second instance, with AUTH_MODE=local
#     (a bearer token on every request), through Caddy (bin/caddy with this
#     repository's Caddyfile) and against the net/http + pgx floor
#     (services/fuel/bench/fuelfloor), all on one fresh PostgreSQL database,
#     and against a fuel-service on its embedded SQLite; in interleaved
#     rounds, with each process's CPU per request, and CPU and allocation
#     profiles of the last round kept in deploy/bench/profiles/ (beside
#     BENCH_REPORT);
#   - the cost of metrics and of tracing: GET vehicle on fuel-service with
#     METRICS=on and off, and with tracing on (exporting to
#     services/fuel/bench/otlpsink; every request or one in ten sampled) and
#     off, in interleaved rounds, with req/s and the service's CPU per
#     request, the median of the rounds and their spread;
#   - the cost of accounts: GET vehicle and GET /api/documents through Caddy
#     with AUTH_MODE=local (a bearer token on every request: fuelload's
#     -header, and its get scenario with -path) and off, in interleaved rounds;
#   - the statistics benchmark at 10 000 refuels (PostgreSQL and SQLite);
#   - PDF extraction (pdftext.BenchmarkExtract) beside pdftotext on the same corpus;
#   - OCR quality on scans (the pdf section): pdftext.BenchmarkOCRRecallOnScans
#     (English, German, Chinese at 300 and 200 dpi) and ocr's
#     BenchmarkAutoReadsEachLanguageInstalled and
#     BenchmarkAutoReadsAnUpsideDownPage (OCR_LANGUAGES=auto), and
#     pdftext.BenchmarkInkless (blank scans at 300 and 200 dpi), each failing
#     under the bars its test holds one case to;
#   - the embedded vector store's search benchmark and retrieval's latency
#     (every mode) over 10 000 chunks;
#   - retrieval quality: hit@k and MRR@10 of every mode and their oracle on real manuals that Debian packages
#     install (services/docqa/testdata/retrieval), beside a plain BM25 baseline;
#   - the chat first-token latency benchmark (what the service and its SSE add);
#   - docqa ingestion on the real binary: start-up until /health is ok, one
#     100 MB upload and 8 concurrent 100 MB uploads (services/docqa/bench/ingestload),
#     each with the service's peak RSS; and 8 scanned 100-page manuals at once
#     (ingestload -scanned: image-only pages read by OCR, progress per page),
#     with peak RSS and time (needs tesseract and pdftoppm);
#   - the page-image cache: a sequence of page views of several users over a
#     few widths against internal/pagecache (hit ratio, render p50).
#
# PostgreSQL: TEST_DATABASE_URL (a superuser or a role that may CREATE
# DATABASE), or else a throwaway server (deploy/scripts/pg-throwaway.sh).
# pdftotext: used when installed; BENCH_INSTALL=1 lets this script install
# poppler-utils with apt-get when it is missing, and the retrieval
# benchmark's manual packages likewise.
# Knobs: BENCH_DURATION (10s per load scenario and target, after a 2 s warm-up),
# BENCH_CONNS (32), BENCH_LOAD_ROUNDS (5 rounds of the load section's runs),
# BENCH_COST_ROUNDS (5 rounds of the cost runs, tracing's and accounts'),
# BENCH_REPORT (deploy/bench/REPORT.md), BENCH_ONLY (a
# comma-separated list of sections to run: load, cost, auth, stats, pdf,
# search, retrieval, maintenance, receipt, chat, ingest, soak; unset: all), BENCH_INGEST (the ingest
# section's modes: text (the 100 MB uploads), scanned (the OCR manuals),
# pagecache; default text,scanned,pagecache). With BENCH_ONLY the sections
# run replace the sections of the same title in the existing report (or are
# added before its end), beside a note of the machine they ran on; the
# others stay as they were.
# All traffic stays on 127.0.0.1. A failed step is recorded in the report and
# makes the script exit non-zero at the end.
# free_port sets the ports (fuel_port, ...) through printf -v, which the
# linter cannot follow.
# shellcheck disable=SC2154
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

GO=${GO:-go}
DURATION=${BENCH_DURATION:-10s}
CONNS=${BENCH_CONNS:-32}
COST_ROUNDS=${BENCH_COST_ROUNDS:-5}
LOAD_ROUNDS=${BENCH_LOAD_ROUNDS:-5}
[[ $LOAD_ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_LOAD_ROUNDS: want a whole number of rounds, at least 1, got $LOAD_ROUNDS" >&2; exit 2; }
REPORT=${BENCH_REPORT:-deploy/bench/REPORT.md}
ONLY=${BENCH_ONLY:-}
for s in ${ONLY//,/ }; do
	case $s in
	load | cost | auth | stats | pdf | search | retrieval | maintenance | receipt | chat | ingest | soak) ;;
	*) echo "bench: BENCH_ONLY: unknown section $s (load, cost, auth, stats, pdf, search, retrieval, maintenance, receipt, chat, ingest, soak)" >&2; exit 2 ;;
	esac
done
# want SECTION: whether this run includes SECTION.
want() { [[ -z $ONLY || ",$ONLY," == *",$1,"* ]]; }

work=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX")
chmod 755 "$work"
md=$work/report.md
failed=0
pids=()
created_db=""

source deploy/scripts/pg-throwaway.sh

cleanup() {
	local pid
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [[ -n "$created_db" ]]; then
		psql "$TEST_DATABASE_URL" -qc "DROP DATABASE IF EXISTS $created_db WITH (FORCE)" >/dev/null 2>&1 || true
	fi
	pg_throwaway_stop
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "bench: $*" >&2; }
md() { printf '%s\n' "$@" >>"$md"; }
mask() { sed -E 's#//([^:@/]*):[^@/]*@#//\1:***@#g'; }

# step LOG COMMAND: records COMMAND verbatim in the report, runs it with
# bash (from the repository root), keeps its output in $work/LOG.
step() {
	local log=$work/$1 cmd=$2 t0 t1 rc=0
	md '```sh' "$(mask <<<"$cmd")" '```'
	say "$(date -u +%T) $(mask <<<"$cmd")"
	t0=$(date +%s.%N)
	(cd "$root" && bash -c "$cmd") >"$log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	if [[ $rc -ne 0 ]]; then
		failed=1
		md "" "**FAILED** (exit $rc after $(elapsed "$t0" "$t1") s); last lines of its output:" "" '```'
		tail -n 15 "$log" | mask >>"$md"
		md '```'
		say "FAILED ($rc): see the report"
	fi
	return $rc
}
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# bench_table LOG: go test -bench lines as a table (name, iterations, metrics).
bench_table() {
	md "| benchmark | iterations | results |" "|---|---|---|"
	awk '/^Benchmark/ {
		r = ""
		for (i = 3; i < NF; i += 2) r = r (r == "" ? "" : ", ") $i " " $(i+1)
		printf "| %s | %s | %s |\n", $1, $2, r
	}' "$work/$1" >>"$md"
	md "" "<details><summary>raw output</summary>" "" '```'
	grep -E '^(Benchmark|goos|goarch|cpu|ok|FAIL|PASS)' "$work/$1" >>"$md" || true
	md '```' "</details>" ""
}

# free_port VAR sets VAR to a port nothing listens on, below the kernel's
# range of ephemeral ports (ip_local_port_range), where the outgoing
# connections of the load tool, Caddy and everything else on the machine
# take theirs: a port only checked for a listener could be one of those and
# fail to bind.
ephemeral_low=$(awk '{ print $1 }' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
((ephemeral_low > 21000)) || ephemeral_low=60000
# It never gives a port it gave before (ports_given): two processes given
# the same one would race for it. It sets a variable rather than printing,
# since $(...) would forget the port given in its subshell.
ports_given=" "
free_port() {
	# Not named port: printf -v would set this local instead of a caller's port.
	local candidate
	for _ in $(seq 1 100); do
		candidate=$((20000 + RANDOM % (ephemeral_low - 20000)))
		[[ $ports_given == *" $candidate "* ]] && continue
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then
			ports_given+="$candidate "
			printf -v "$1" '%s' "$candidate"
			return 0
		fi
	done
	return 1
}

wait_up() {
	local url=$1 pid=$2
	for _ in $(seq 1 300); do
		bin/healthcheck -url "$url" -timeout 1s >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || { say "the process behind $url exited"; return 1; }
		sleep 0.1
	done
	say "$url did not come up"
	return 1
}

# ---------------------------------------------------------------- PostgreSQL
if [[ -n "${TEST_DATABASE_URL:-}" ]]; then
	pg_source="TEST_DATABASE_URL"
else
	pg_throwaway_start || { say "no PostgreSQL: set TEST_DATABASE_URL or install the PostgreSQL server"; exit 1; }
	pg_source="throwaway server started by deploy/scripts/pg-throwaway.sh (fsync=off, synchronous_commit=off)"
fi
export TEST_DATABASE_URL
pg_version=$(psql "$TEST_DATABASE_URL" -tAc 'SHOW server_version' 2>/dev/null || echo unknown)

# ---------------------------------------------------------------- the machine
cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || echo unknown)
mem_total=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | wc -l)
started=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

if [[ -n $ONLY ]]; then
	md "## Machine of the sections rerun on their own (BENCH_ONLY=$ONLY)" "" \
		"Produced by \`BENCH_ONLY=$ONLY make bench\` on $started, commit \`$commit\`$([[ $dirty -gt 0 ]] && echo " (working tree had $dirty modified tracked files)"); the other sections" \
		"come from the run the header above names." "" \
		"| | |" "|---|---|" \
		"| CPUs (nproc) | $(nproc) |" \
		"| CPU model | $cpu_model |" \
		"| Go | $($GO version | sed 's/^go version //') |" \
		"| PostgreSQL | $pg_version ($pg_source) |" \
		"| load average at start (1, 5, 15 min) | $load_start |" ""
else
md "# Benchmark report" "" \
	"Produced by \`make bench\` (\`deploy/scripts/bench.sh\`) on $started, commit \`$commit\`$([[ $dirty -gt 0 ]] && echo " (working tree had $dirty modified tracked files)")." \
	"Every command below is what the script ran, verbatim, from the repository root; the tables summarise" \
	"its output (raw lines under each table). Rerun with \`make bench\`; knobs: \`BENCH_DURATION\`," \
	"\`BENCH_CONNS\`, \`TEST_DATABASE_URL\`, \`BENCH_INSTALL=1\` (see the script's header)." "" \
	"## Machine" "" \
	"| | |" "|---|---|" \
	"| CPUs (nproc) | $(nproc) |" \
	"| CPU model | $cpu_model |" \
	"| memory | $mem_total |" \
	"| kernel | $(uname -sr) |" \
	"| Go | $($GO version | sed 's/^go version //') |" \
	"| PostgreSQL | $pg_version ($pg_source) |" \
	"| load average at start (1, 5, 15 min) | $load_start |" \
	"" \
	"The load generator, the services, Caddy and PostgreSQL all share these CPUs; the load average says how" \
	"much else was running. On a shared machine single numbers move by tens of percent between runs." ""
fi

# ---------------------------------------------------------------- build
[[ -z $ONLY ]] && md "## Build" ""
step build.log "make build && $GO build -o bin/ ./services/fuel/bench/fuelload ./services/fuel/bench/fuelfloor ./services/fuel/bench/otlpsink ./services/docqa/bench/ingestload" || {
	say "build failed"
	cp "$md" "$REPORT"
	exit 1
}
[[ -z $ONLY ]] && md ""

# ---------------------------------------------------------------- rounds
# median, spread (min–max) and paired costs of the rounds' numbers (the
# load, cost and accounts sections).
median() { tr ' ' '\n' <<<"${1:-}" | awk 'NF' | sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
spread() { tr ' ' '\n' <<<"${1:-}" | awk 'NF' | sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { if (NR) print lo "–" hi }'; }
cost() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b == 0) print "–"; else printf "%.1f %%", 100 * (1 - a / b) }'; }
# paired WITH WITHOUT: each round's cost (1 − with ÷ without, rounds in the
# same order), their median and spread, in %.
paired() {
	awk -v a="${1:-}" -v b="${2:-}" 'BEGIN {
		n = split(a, x, " "); m = split(b, y, " "); k = 0
		for (i = 1; i <= n && i <= m; i++) if (y[i] > 0) c[++k] = 100 * (1 - x[i] / y[i])
		if (k == 0) { print "–"; exit }
		for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
		med = k % 2 ? c[(k + 1) / 2] : (c[k / 2] + c[k / 2 + 1]) / 2
		printf "%.1f %% (%.1f to %.1f)", med, c[1], c[k]
	}'
}
# round_order ROUND VARIANT...: the variants forwards in odd rounds,
# backwards in even ones.
round_order() {
	local r=$1
	shift
	if ((r % 2)); then echo "$@"; else echo "$@" | awk '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "\n") }'; fi
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# ---------------------------------------------------------------- fuel load
# One database and one fuel-service seeded through the API, for the load,
# cost and accounts sections; for the load section also a second
# fuel-service with accounts on, the floor, Caddy and the SQLite instance,
# all kept running through its rounds.
fuel_sections=0
want load || want cost || want auth && fuel_sections=1
auth_secret=bench-identity-secret-of-at-least-32-bytes
admin_password=bench-password-1234
free_port fuel_port
free_port accounts_port
free_port floor_port
free_port caddy_port
free_port sqlite_port
free_port docqa_port # nothing listens there: only the fuel routes are measured
free_port service_pprof
free_port accounts_pprof
free_port floor_pprof
free_port sqlite_pprof
# The profiles of the last round: each run's measured part less a second.
prof_secs=""
if [[ $DURATION =~ ^([0-9]+)s$ ]]; then
	prof_secs=$((BASH_REMATCH[1] - 1))
elif [[ $DURATION =~ ^([0-9]+)m$ ]]; then
	prof_secs=$((BASH_REMATCH[1] * 60 - 1))
fi
((${prof_secs:-0} >= 1)) || prof_secs=""
prof_dir=$(dirname "$REPORT")/profiles
load_targets=(service accounts floor caddy sqlite)
db=bench_$$
dsn_base=${TEST_DATABASE_URL%%\?*}
dsn_query=""
[[ $TEST_DATABASE_URL == *\?* ]] && dsn_query="?${TEST_DATABASE_URL#*\?}"
DSN="${dsn_base%/*}/$db$dsn_query"
want load && md "## fuel-service under load: PostgreSQL direct, through Caddy, the floor, and SQLite" "" \
	"One fresh database; fuel-service applies its migrations; the data is seeded through the API (a vehicle with" \
	"100 refuels for \`list\`, an empty one for \`post-refuel\`); \`ANALYZE\` before each scenario. Each run: $CONNS" \
	"keep-alive connections, a 2 s unmeasured warm-up, then $DURATION measured. Scenarios: \`get-vehicle\`" \
	"(\`GET /api/vehicles/{id}\`), \`list\` (\`GET /api/refuels?vehicle_id={id}\`, 100 records, about 37 KB)," \
	"\`post-refuel\` (\`POST /api/refuels\`, a distinct time per request). Targets, each a process of its own started" \
	"once and kept running through all rounds:" "" \
	"- \`service\`: fuel-service on PostgreSQL with production's middleware, metrics on (the default), \`AUTH_MODE=off\`;" \
	"- \`accounts\`: a second fuel-service on the same database with \`AUTH_MODE=local\` and the token cache at its" \
	"  default (\`AUTH_TOKEN_CACHE=10s\`); the administrator made from \`AUTH_ADMIN_USERNAME\` and \`_PASSWORD\` takes" \
	"  over the built-in user who owns the seeded vehicles, and every request carries the token of one" \
	"  \`POST /api/auth/login\` (fuelload's \`-header\`); loaded directly, not through Caddy;" \
	"- \`floor\`: \`fuelfloor\` (\`services/fuel/bench/fuelfloor\`), net/http + pgx running the same SQL and nothing else;" \
	"- \`caddy\`: \`service\` through Caddy (this repository's Caddyfile);" \
	"- \`sqlite\`: a third fuel-service on its embedded SQLite (no \`DATABASE_URL\`, a fresh file in the work directory)," \
	"  seeded the same way, metrics on, accounts off." "" \
	"$LOAD_ROUNDS rounds (\`BENCH_LOAD_ROUNDS\`); in each, each scenario, and in it each target, in the order above in" \
	"odd rounds and the reverse in even ones, so that the machine's drift falls on all alike; the summary takes the" \
	"median of the rounds (one disturbed round does not move it) and shows their spread. fuelload's \`-pid\` reports the" \
	"CPU time (user and system, \`/proc/PID/stat\`) the target's process spent per request over the measured part." \
	"The fuel-services' JSON request logs go to files. After each run the script ends the database's idle sessions" \
	"(\`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '$db' AND state = 'idle'\`): the three" \
	"pools of up to 32 connections would otherwise hold 96 together, near PostgreSQL's default \`max_connections\` of" \
	"100, which other work on the server shares. A pool finds its connections closed when it next checks them (pgx" \
	"pings one idle for over a second before using it) and opens new ones during the next warm-up." ""

load_ok=$fuel_sections
[[ $load_ok == 1 ]] && step createdb.log "psql '$TEST_DATABASE_URL' -qc 'CREATE DATABASE $db'" && created_db=$db || load_ok=0
if [[ $load_ok == 1 ]]; then
	md "" "Started in the background (stopped at the end):" "" '```sh'
	md "$(mask <<<"AUTH_MODE=off PPROF_ADDR=127.0.0.1:$service_pprof DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:$fuel_port bin/fuel-service > fuel-service.log 2>&1 &")"
	if want load; then
		md "$(mask <<<"DATABASE_URL='$DSN' FLOOR_ADDR=127.0.0.1:$floor_port FLOOR_PPROF_ADDR=127.0.0.1:$floor_pprof bin/fuelfloor > fuelfloor.log 2>&1 &")"
		md "LISTEN_ADDRESS=http://127.0.0.1:$caddy_port FUEL_UPSTREAM=127.0.0.1:$fuel_port DOCQA_UPSTREAM=127.0.0.1:$docqa_port bin/caddy run --config Caddyfile --adapter caddyfile > caddy.log 2>&1 &"
		md "env -u DATABASE_URL PPROF_ADDR=127.0.0.1:$sqlite_pprof FUEL_SQLITE_PATH=\$work/fuel-sqlite.db FUEL_ADDR=127.0.0.1:$sqlite_port bin/fuel-service > fuel-service-sqlite.log 2>&1 &"
		md "$(mask <<<"AUTH_MODE=local AUTH_IDENTITY_SECRET=… AUTH_ADMIN_USERNAME=bench AUTH_ADMIN_PASSWORD=… PPROF_ADDR=127.0.0.1:$accounts_pprof DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:$accounts_port bin/fuel-service > fuel-service-accounts.log 2>&1 &")"
	fi
	md '```' ""
	AUTH_MODE=off PPROF_ADDR=127.0.0.1:$service_pprof DATABASE_URL=$DSN FUEL_ADDR=127.0.0.1:$fuel_port bin/fuel-service >"$work/fuel-service.log" 2>&1 &
	service_pid=$!
	pids+=($!)
	wait_up "http://127.0.0.1:$fuel_port/health" "${pids[-1]}" || load_ok=0
fi
if [[ $load_ok == 1 ]] && want load; then
	DATABASE_URL=$DSN FLOOR_ADDR=127.0.0.1:$floor_port FLOOR_PPROF_ADDR=127.0.0.1:$floor_pprof bin/fuelfloor >"$work/fuelfloor.log" 2>&1 &
	floor_pid=$!
	pids+=($!)
	LISTEN_ADDRESS=http://127.0.0.1:$caddy_port FUEL_UPSTREAM=127.0.0.1:$fuel_port DOCQA_UPSTREAM=127.0.0.1:$docqa_port \
		bin/caddy run --config Caddyfile --adapter caddyfile >"$work/caddy.log" 2>&1 &
	caddy_pid=$!
	pids+=($!)
	wait_up "http://127.0.0.1:$caddy_port/health" "${pids[-1]}" || load_ok=0
fi
if [[ $load_ok == 1 ]] && want load; then
	# No DATABASE_URL, even one exported by the caller: the embedded default.
	env -u DATABASE_URL PPROF_ADDR=127.0.0.1:$sqlite_pprof FUEL_SQLITE_PATH="$work/fuel-sqlite.db" FUEL_ADDR=127.0.0.1:$sqlite_port \
		bin/fuel-service >"$work/fuel-service-sqlite.log" 2>&1 &
	sqlite_pid=$!
	pids+=($!)
	wait_up "http://127.0.0.1:$sqlite_port/health" "${pids[-1]}" || load_ok=0
fi
if [[ $load_ok == 1 ]] && want load; then
	# After the service's start: its migrations are applied.
	AUTH_MODE=local AUTH_IDENTITY_SECRET=$auth_secret AUTH_ADMIN_USERNAME=bench AUTH_ADMIN_PASSWORD=$admin_password \
		PPROF_ADDR=127.0.0.1:$accounts_pprof DATABASE_URL=$DSN FUEL_ADDR=127.0.0.1:$accounts_port bin/fuel-service \
		>"$work/fuel-service-accounts.log" 2>&1 &
	accounts_pid=$!
	pids+=($!)
	wait_up "http://127.0.0.1:$accounts_port/health" "${pids[-1]}" || load_ok=0
fi
if [[ $load_ok == 1 ]] && step seed.log "bin/fuelload -url http://127.0.0.1:$fuel_port -seed -records 100" &&
	{ ! want load || step seed-sqlite.log "bin/fuelload -url http://127.0.0.1:$sqlite_port -seed -records 100"; }; then
	md "" "Seed: \`$(tail -n1 "$work/seed.log")\`$(want load && echo "; SQLite: \`$(tail -n1 "$work/seed-sqlite.log")\`")" ""
	list=$(sed -nE 's/.*list_vehicle=([0-9]+).*/\1/p' "$work/seed.log")
	post=$(sed -nE 's/.*post_vehicle=([0-9]+).*/\1/p' "$work/seed.log")
	if want load; then
		sqlite_list=$(sed -nE 's/.*list_vehicle=([0-9]+).*/\1/p' "$work/seed-sqlite.log")
		sqlite_post=$(sed -nE 's/.*post_vehicle=([0-9]+).*/\1/p' "$work/seed-sqlite.log")
		# the floor answers the vehicle only once it can read the seeded rows
		wait_up "http://127.0.0.1:$floor_port/api/vehicles/$list" "$floor_pid" || load_ok=0
	fi
elif [[ $fuel_sections == 1 ]]; then
	load_ok=0
fi

# The accounts target: one login, then its token must open what the
# scenarios ask for, and no token must not.
accounts_ok=0
token_file=$work/accounts-token
if [[ $load_ok == 1 ]] && want load; then
	curl -s -X POST -H 'Content-Type: application/json' "http://127.0.0.1:$accounts_port/api/auth/login" \
		-d "{\"username\":\"bench\",\"password\":\"$admin_password\"}" | sed -nE 's/.*"token":"([^"]+)".*/\1/p' >"$token_file"
	status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
	if [[ -s $token_file ]]; then
		with_token=$(status -H "Authorization: Bearer $(cat "$token_file")" "http://127.0.0.1:$accounts_port/api/vehicles/$list")
		with_token_list=$(status -H "Authorization: Bearer $(cat "$token_file")" "http://127.0.0.1:$accounts_port/api/refuels?vehicle_id=$list")
		without=$(status "http://127.0.0.1:$accounts_port/api/vehicles/$list")
		md "Accounts: \`POST /api/auth/login\` as \`bench\` answered a token; with it \`GET /api/vehicles/$list\` answers" \
			"$with_token and \`GET /api/refuels?vehicle_id=$list\` $with_token_list, without it \`GET /api/vehicles/$list\` answers $without" \
			"(the token stays out of the report: the commands below read it from a file)." ""
		[[ $with_token == 200 && $with_token_list == 200 && $without == 401 ]] && accounts_ok=1
	else
		md "**Accounts: the login answered no token**; the \`accounts\` target is left out." ""
	fi
	if [[ $accounts_ok != 1 ]]; then
		failed=1
		md "**The \`accounts\` target is left out** (want 200 with the token and 401 without). Its log:" "" '```'
		tail -n 5 "$work/fuel-service-accounts.log" | mask >>"$md"
		md '```' ""
	fi
fi

declare -A runs cpus p50s p99s
load_failures=0
prof_notes=""
if [[ $load_ok == 1 ]] && want load; then
	if [[ -n $prof_secs ]]; then
		md "Profiles: in the last round, while fuelload loads \`service\`, \`accounts\`, \`floor\` and \`sqlite\`, the script takes a" \
			"CPU profile and an allocation profile of the measured part from the target's own profiler (\`PPROF_ADDR\`," \
			"the floor's \`FLOOR_PPROF_ADDR\`, on a port of their own on 127.0.0.1), both at once, started as the" \
			"warm-up ends and lasting the measured time less a second (the allocations a delta over those seconds):" "" '```sh' \
			"sleep 2; curl -fsS -o \$work/profiles/SCENARIO-TARGET.cpu.pprof 'http://127.0.0.1:PPROF/debug/pprof/profile?seconds=$prof_secs' &" \
			"sleep 2; curl -fsS -o \$work/profiles/SCENARIO-TARGET.allocs.pprof 'http://127.0.0.1:PPROF/debug/pprof/allocs?seconds=$prof_secs' &" \
			'```' "" \
			"They replace the set in \`$prof_dir/\` (\`SCENARIO-TARGET.cpu.pprof\`, \`.allocs.pprof\`). The last round's numbers" \
			"carry the profiler's own cost (those four targets, not Caddy's run)." ""
	else
		md "(No profiles: \`BENCH_DURATION=$DURATION\` is not a whole number of seconds or minutes of at least 2 s.)" ""
	fi
	mkdir -p "$work/profiles"
	# release_connections ends the bench database's idle sessions (see the
	# section's text); all_alive says whether every target still runs.
	release_connections() {
		psql "$TEST_DATABASE_URL" -qAtc "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = '$db' AND pid <> pg_backend_pid() AND state = 'idle'" \
			>/dev/null 2>>"$work/release.err" || true
	}
	declare -A load_pid=([service]=$service_pid [accounts]=$accounts_pid [floor]=$floor_pid [caddy]=$caddy_pid [sqlite]=$sqlite_pid)
	declare -A load_log=([service]=fuel-service.log [accounts]=fuel-service-accounts.log [floor]=fuelfloor.log [caddy]=caddy.log [sqlite]=fuel-service-sqlite.log)
	all_alive() {
		local name
		for name in "${!load_pid[@]}"; do kill -0 "${load_pid[$name]}" 2>/dev/null || return 1; done
	}
	release_connections
	# The runs go to a collapsed block after the summary.
	main_md=$md
	md=$work/load-runs.md
	for round in $(seq 1 "$LOAD_ROUNDS"); do
		for sc in get-vehicle list post-refuel; do
			step "analyze-$sc-$round.log" "psql '$DSN' -qc ANALYZE" || true
			for target in $(round_order "$round" "${load_targets[@]}"); do
				v=$list
				[[ $sc == post-refuel ]] && v=$post
				pid="" pprof="" hdr=""
				case $target in
				service) port=$fuel_port pid=$service_pid pprof=$service_pprof ;;
				accounts)
					[[ $accounts_ok == 1 ]] || continue
					port=$accounts_port pid=$accounts_pid pprof=$accounts_pprof
					hdr=" -header \"Authorization: Bearer \$(cat $token_file)\""
					;;
				floor) port=$floor_port pid=$floor_pid pprof=$floor_pprof ;;
				caddy) port=$caddy_port ;;
				sqlite)
					port=$sqlite_port pid=$sqlite_pid pprof=$sqlite_pprof
					v=$sqlite_list
					[[ $sc == post-refuel ]] && v=$sqlite_post
					;;
				esac
				prof_pids=()
				if ((round == LOAD_ROUNDS)) && [[ -n $pprof && -n $prof_secs ]]; then
					for kind in cpu allocs; do
						endpoint=profile
						[[ $kind == allocs ]] && endpoint=allocs
						(sleep 2 && curl -fsS -o "$work/profiles/$sc-$target.$kind.pprof" \
							"http://127.0.0.1:$pprof/debug/pprof/$endpoint?seconds=$prof_secs") 2>"$work/profile-$sc-$target-$kind.err" &
						prof_pids+=($!)
					done
				fi
				log=load-$sc-$target-$round.log
				if step "$log" "bin/fuelload -url http://127.0.0.1:$port -scenario $sc -vehicle $v -c $CONNS -d $DURATION${pid:+ -pid $pid}$hdr"; then
					line=$(grep -E 'req/s' "$work/$log" | tail -n1)
					runs[$sc.$target]+="$(sed -nE 's/.* ([0-9]+) req\/s.*/\1/p' <<<"$line") "
					# latencies in hundredths of a millisecond: median works on integers
					p50s[$sc.$target]+="$(sed -nE 's/.*p50 ([0-9.]+) ms.*/\1/p' <<<"$line" | awk '{ printf "%.0f", $1 * 100 }') "
					p99s[$sc.$target]+="$(sed -nE 's/.*p99 ([0-9.]+) ms.*/\1/p' <<<"$line" | awk '{ printf "%.0f", $1 * 100 }') "
					[[ -n $pid ]] && cpus[$sc.$target]+="$(sed -nE 's/.*server CPU ([0-9]+) .*/\1/p' <<<"$line") "
					md "" "\`round $round, $target: $line\`" ""
				else
					load_failures=$((load_failures + 1))
				fi
				for p in "${prof_pids[@]}"; do
					wait "$p" && continue
					prof_notes+="- $sc, $target: \`$(cut -c1-200 "$work/profile-$sc-$target-"*.err | tr '\n' ' ')\`"$'\n'
				done
				release_connections
				if ! all_alive; then
					md=$main_md
					md "**A target's process exited** (round $round, after $sc on $target); the rounds stop here:" ""
					for name in "${!load_pid[@]}"; do
						kill -0 "${load_pid[$name]}" 2>/dev/null && continue
						md "\`$name\` (pid ${load_pid[$name]}), the last lines of its log:" "" '```'
						tail -n 8 "$work/${load_log[$name]}" | cut -c1-300 | mask >>"$md"
						md '```' ""
					done
					load_failures=$((load_failures + 1))
					break 3
				fi
			done
		done
	done
	md=$main_md

	# pct A B: A ÷ B in %; round_pcts A B: each round's, paired in order, min–max.
	pct() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b == 0) print "–"; else printf "%.0f %%", 100 * a / b }'; }
	round_pcts() {
		awk -v a="${1:-}" -v b="${2:-}" 'BEGIN {
			n = split(a, x, " "); m = split(b, y, " "); k = 0
			for (i = 1; i <= n && i <= m; i++) if (y[i] > 0) c[++k] = 100 * x[i] / y[i]
			if (k == 0) exit
			lo = hi = c[1]
			for (i = 2; i <= k; i++) { if (c[i] < lo) lo = c[i]; if (c[i] > hi) hi = c[i] }
			printf " (%.0f–%.0f)", lo, hi
		}'
	}
	# ratio_cell SC A B: the ratio of the medians of targets A and B, bold, with the rounds' range.
	ratio_cell() { echo "**$(pct "$(median "${runs[$1.$2]:-}")" "$(median "${runs[$1.$3]:-}")")**$(round_pcts "${runs[$1.$2]:-}" "${runs[$1.$3]:-}")"; }
	# cell VALUES: the median (min–max), or "failed".
	cell() { [[ -n "${1:-}" ]] && echo "$(median "$1") ($(spread "$1"))" || echo "failed"; }
	ms() { [[ -n "${1:-}" ]] && awk -v v="$(median "$1")" 'BEGIN { printf "%.2f", v / 100 }' || echo "–"; }
	cpu_ratio() { # floor's CPU per request ÷ a target's, in %
		local f t
		f=$(median "${cpus[$1.floor]:-}") t=$(median "${cpus[$1.$2]:-}")
		pct "$f" "$t"
	}
	md "### Summary: req/s, the median of $LOAD_ROUNDS rounds (min–max), $CONNS connections, $DURATION each" ""
	((load_failures > 0)) && md "**$load_failures runs failed** (fuelload exits non-zero on any request that does not answer 200): see every run below." ""
	md "| scenario | service | accounts | floor | through Caddy | SQLite | service / floor | accounts / floor | Caddy / service | SQLite / PostgreSQL |" \
		"|---|---|---|---|---|---|---|---|---|---|"
	for sc in get-vehicle list post-refuel; do
		md "| $sc | $(cell "${runs[$sc.service]:-}") | $(cell "${runs[$sc.accounts]:-}") | $(cell "${runs[$sc.floor]:-}") | $(cell "${runs[$sc.caddy]:-}") | $(cell "${runs[$sc.sqlite]:-}") | $(ratio_cell "$sc" service floor) | $(ratio_cell "$sc" accounts floor) | $(ratio_cell "$sc" caddy service) | $(ratio_cell "$sc" sqlite service) |"
	done
	md "" "The ratios divide the medians; in parentheses the same ratio round by round (the two runs of a round are" \
		"minutes apart at most). Goals (issue 35): service / floor and accounts / floor at least 90 % on \`get-vehicle\`" \
		"and \`post-refuel\`, 95 % on \`list\`; SQLite / PostgreSQL (the \`service\` target) at least 60 % on \`post-refuel\`." "" \
		"### The processes' CPU per request (µs, user and system, measured part), the median (min–max)" "" \
		"| scenario | service | accounts | floor | SQLite | floor ÷ service | floor ÷ accounts |" "|---|---|---|---|---|---|---|"
	for sc in get-vehicle list post-refuel; do
		md "| $sc | $(cell "${cpus[$sc.service]:-}") | $(cell "${cpus[$sc.accounts]:-}") | $(cell "${cpus[$sc.floor]:-}") | $(cell "${cpus[$sc.sqlite]:-}") | $(cpu_ratio "$sc" service) | $(cpu_ratio "$sc" accounts) |"
	done
	md "" "The floor's CPU per request over a target's is the share of the floor's req/s the target would reach if both" \
		"were bound by their own CPU alone; PostgreSQL's CPU (and SQLite's, which runs inside fuel-service and is" \
		"counted in its CPU) and the load tool's are not in these numbers, though they share the machine's CPUs." "" \
		"### Latency: p50 / p99 ms, the medians of the rounds" "" \
		"| scenario | service | accounts | floor | through Caddy | SQLite |" "|---|---|---|---|---|---|"
	for sc in get-vehicle list post-refuel; do
		row="| $sc |"
		for target in "${load_targets[@]}"; do row+=" $(ms "${p50s[$sc.$target]:-}") / $(ms "${p99s[$sc.$target]:-}") |"; done
		md "$row"
	done
	md "" "Through Caddy the load tool, Caddy and fuel-service share the same CPUs, so the Caddy column measures the" \
		"gateway's CPU cost as much as its latency. The SQLite column is fuel-service direct on its embedded" \
		"database (WAL, one writer connection, one read-only connection per CPU) against fuel-service direct on" \
		"PostgreSQL, whose server shares the CPUs too." ""

	# The profiles: this run's set replaces the last one.
	mkdir -p "$prof_dir"
	rm -f "$prof_dir"/*.pprof
	cp "$work"/profiles/*.pprof "$prof_dir"/ 2>/dev/null || true
	if [[ -n $prof_secs ]]; then
		md "### Profiles of the last round" "" \
			"In \`$prof_dir/\`, one CPU and one allocation profile per scenario and target (\`service\`, \`accounts\`, \`floor\`," \
			"\`sqlite\`). Open one in a browser (the symbols are in the profile; the binary adds the source lines):" "" '```sh' \
			"go tool pprof -http=127.0.0.1:0 bin/fuel-service $prof_dir/list-service.cpu.pprof" \
			"go tool pprof -http=127.0.0.1:0 -sample_index=alloc_space bin/fuel-service $prof_dir/list-service.allocs.pprof" \
			"go tool pprof -http=127.0.0.1:0 bin/fuelfloor $prof_dir/list-floor.cpu.pprof" '```' "" \
			"Below, per scenario and target, the head of \`go tool pprof -top -cum -nodecount=15 BINARY SCENARIO-TARGET.cpu.pprof\`" \
			"and the top allocators, \`go tool pprof -top -sample_index=alloc_space -nodecount=10 BINARY SCENARIO-TARGET.allocs.pprof\`." ""
		[[ -n $prof_notes ]] && { failed=1; md "**Profiles that failed:**" "" "$prof_notes"; }
		for sc in get-vehicle list post-refuel; do
			for target in service accounts floor sqlite; do
				bin=bin/fuel-service
				[[ $target == floor ]] && bin=bin/fuelfloor
				f=$prof_dir/$sc-$target
				[[ -s $f.cpu.pprof || -s $f.allocs.pprof ]] || continue
				md "<details><summary>$sc, $target: CPU (top -cum) and allocations (alloc_space)</summary>" "" '```'
				$GO tool pprof -top -cum -nodecount=15 "$bin" "$f.cpu.pprof" 2>&1 | grep -v '^Main binary filename' >>"$md" || true
				md "" 
				$GO tool pprof -top -sample_index=alloc_space -nodecount=10 "$bin" "$f.allocs.pprof" 2>&1 | grep -v '^Main binary filename' >>"$md" || true
				md '```' "</details>" ""
			done
		done
	fi
	md "<details><summary>Every run: the command and fuelload's line ($LOAD_ROUNDS rounds)</summary>" ""
	cat "$work/load-runs.md" >>"$md"
	md "</details>" ""
elif want load; then
	failed=1
	md "" "**The load runs did not take place** (see the failed step above)." ""
fi
((load_failures == 0)) || failed=1

# ---------------------------------------------------------------- cost of metrics and tracing
# The same GET vehicle on fuel-service with metrics on (the default) and
# METRICS=off, and with tracing on, exporting every request's spans to
# otlpsink, on the database above. One instance at a time (the others above
# are stopped first: each keeps a pool of 32 connections, and PostgreSQL's
# default max_connections is 100), started afresh for each run. The rounds
# interleave the variants, in turn forwards and backwards, so that the
# machine's drift falls on all alike; the summary takes the median of the
# rounds (one disturbed round does not move it) and shows their spread.
for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()


if want cost && [[ $load_ok == 1 ]]; then
	md "## The cost of metrics and of tracing" "" \
		"\`get-vehicle\` (the cheapest request: a fixed cost per request shows most there) on fuel-service, directly," \
		"on the PostgreSQL database above, in four configurations: metrics on and tracing off (the default)," \
		"\`METRICS=off\`, and tracing on: \`OTEL_EXPORTER_OTLP_ENDPOINT\` names \`otlpsink\`" \
		"(\`services/fuel/bench/otlpsink\`, an OTLP/HTTP receiver that reads each export and drops it undecoded), every" \
		"request sampled (a server span and a statement span each, batched, exported uncompressed, the SDK's defaults);" \
		"and tracing on with one request in ten sampled (\`OTEL_TRACES_SAMPLER=parentbased_traceidratio\`," \
		"\`OTEL_TRACES_SAMPLER_ARG=0.1\`). One instance at a time, started afresh for each run; $COST_ROUNDS rounds of" \
		"the four, interleaved (forwards in odd rounds, backwards in even ones), $CONNS connections, $DURATION each" \
		"after a 2 s warm-up. Goals (issue 15): metrics under 3 %, tracing under 10 %." "" \
		"Each run starts its instance in the background (PORT: a free port each time; \`SHUTDOWN_DRAIN=0s\` on each, which" \
		"only shortens its stop), then loads it:" "" '```sh' \
		"bin/otlpsink -addr 127.0.0.1:SINK > otlpsink.log 2>&1 &   # once, for the whole section" \
		"$(mask <<<"DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &                          # on")" \
		"$(mask <<<"METRICS=off DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &              # off")" \
		"$(mask <<<"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:SINK DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &   # traced")" \
		"$(mask <<<"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:SINK OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.1 DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &   # sampled")" \
		'```' ""
	free_port sink_port
	cost_ok=1
	bin/otlpsink -addr "127.0.0.1:$sink_port" >"$work/otlpsink.log" 2>&1 &
	sink_pid=$!
	pids+=($!)
	wait_up "http://127.0.0.1:$sink_port/health" "$sink_pid" || cost_ok=0
	declare -A cost_runs cost_cpu
	traced_requests=0
	# requests LOG: the requests the service has logged (the access log's
	# lines), after waiting out its log buffer (written every 100 ms:
	# logging.NewBuffered), so that every request served so far is counted.
	requests() {
		sleep 0.3
		grep -c '"msg":"request"' "$1" || true
	}
	for round in $(seq 1 "$COST_ROUNDS"); do
		[[ $cost_ok == 1 ]] || break
		for variant in $(round_order "$round" on off traced sampled); do
			svc_log=$work/fuel-service-cost-$variant-$round.log
			# A start that fails (its port taken in between by another
			# process on this shared machine) is retried on another port.
			for attempt in 1 2 3; do
				free_port port
				# exec: $! is the service itself, which the kill below stops
				case $variant in
				on) exec env SHUTDOWN_DRAIN=0s DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
				off) exec env SHUTDOWN_DRAIN=0s METRICS=off DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
				traced) exec env SHUTDOWN_DRAIN=0s OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
				sampled) exec env SHUTDOWN_DRAIN=0s OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port OTEL_TRACES_SAMPLER=parentbased_traceidratio \
					OTEL_TRACES_SAMPLER_ARG=0.1 DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
				esac >"$svc_log" 2>&1 &
				svc_pid=$!
				wait_up "http://127.0.0.1:$port/health" "$svc_pid" && break
				md "" "(round $round, $variant: start $attempt failed: \`$(tail -n 1 "$svc_log" | cut -c1-300 | mask)\`)" ""
				kill -TERM "$svc_pid" 2>/dev/null || true
				wait "$svc_pid" 2>/dev/null || true
				svc_pid=""
			done
			if [[ -n $svc_pid ]] && cpu0=$(cpu_ticks "$svc_pid") && n0=$(requests "$svc_log") &&
				step "cost-$variant-$round.log" "bin/fuelload -url http://127.0.0.1:$port -scenario get-vehicle -vehicle $list -c $CONNS -d $DURATION" &&
				cpu1=$(cpu_ticks "$svc_pid") && n1=$(requests "$svc_log"); then
				line=$(grep -E 'req/s' "$work/cost-$variant-$round.log" | tail -n1)
				cost_runs[$variant]+="$(sed -nE 's/.* ([0-9]+) req\/s.*/\1/p' <<<"$line") "
				us=$(awk -v c="$((cpu1 - cpu0))" -v n="$((n1 - n0))" -v hz="$(getconf CLK_TCK)" 'BEGIN { if (n > 0) printf "%.0f", 1e6 * c / hz / n }')
				cost_cpu[$variant]+="$us "
				[[ $variant == traced ]] && traced_requests=$((traced_requests + n1 - n0))
				md "" "\`round $round, $variant: $line\`; the service's CPU: $us µs per request ($((n1 - n0)) requests, warm-up included); load average $(cut -d' ' -f1 /proc/loadavg)" ""
			else
				cost_ok=0
			fi
			[[ -n $svc_pid ]] || continue
			kill -TERM "$svc_pid" 2>/dev/null || true
			wait "$svc_pid" 2>/dev/null || true
			[[ $cost_ok == 1 ]] || break
		done
	done
	[[ $cost_ok == 1 ]] || failed=1
	sink_cpu=$(cpu_ticks "$sink_pid" 2>/dev/null || echo 0)
	kill -TERM "$sink_pid" 2>/dev/null || true
	wait "$sink_pid" 2>/dev/null || true
	pids=()
	sink_us=$(awk -v c="$sink_cpu" -v n="$traced_requests" -v hz="$(getconf CLK_TCK)" 'BEGIN { if (n > 0) printf "%.1f", 1e6 * c / hz / n; else print "–" }')
	declare -A med cmed
	for v in on off traced sampled; do
		med[$v]=$(median "${cost_runs[$v]:-}")
		cmed[$v]=$(median "${cost_cpu[$v]:-}")
	done
	row() { # VARIANT LABEL COSTNAME BASE
		local v=$1 label=$2 what=${3:-} base=${4:-} c1="" c2="" c3="" c4=""
		if [[ -n $base ]]; then
			c1="$what: **$(cost "${med[$v]}" "${med[$base]}")**"
			c2=$(paired "${cost_runs[$v]:-}" "${cost_runs[$base]:-}")
			c3="$what: **$(cost "${cmed[$base]}" "${cmed[$v]}")**"
			c4=$(paired "${cost_cpu[$base]:-}" "${cost_cpu[$v]:-}")
		fi
		md "| $label | ${cost_runs[$v]:-failed} | ${med[$v]:-–} ($(spread "${cost_runs[$v]:-}")) | $c1 | $c2 | ${cost_cpu[$v]:-} | ${cmed[$v]:-–} ($(spread "${cost_cpu[$v]:-}")) | $c3 | $c4 |"
	}
	md "### Summary: GET vehicle req/s and the service's CPU per request, each round, the median (spread)" "" \
		"| fuel-service | req/s by round | median (min–max) | cost of the medians | cost round by round: median (min to max) | CPU µs per request by round | median (min–max) | cost of the medians | cost round by round |" \
		"|---|---|---|---|---|---|---|---|---|"
	row off "\`METRICS=off\`, tracing off"
	row on "metrics on (the default), tracing off" metrics off
	row traced "metrics on, tracing on (exporting every request)" tracing on
	row sampled "metrics on, tracing on, 1 in 10 sampled" tracing on
	md "" "The sink: \`$(tail -n1 "$work/otlpsink.log")\` (the spans of the traced runs' warm-ups included); its own CPU:" \
		"$sink_us µs per traced request (the traced rounds' requests; the sampled rounds' exports included), not counted in the service's." \
		"The req/s cost is 1 − req/s with it ÷ req/s without; the CPU cost is the share of the CPU per request that" \
		"it adds (1 − CPU without ÷ CPU with), which is what it costs in req/s when the service is CPU-bound, and" \
		"is less disturbed by whatever else the machine runs than req/s is. \"Round by round\" pairs the two runs of" \
		"the same round (next to each other in time) before taking the median. A negative cost is noise: the" \
		"difference is smaller than what varies between rounds." ""
fi

# ---------------------------------------------------------------- cost of accounts
# GET vehicle (fuel: the bearer token's hash looked up in the database) and
# GET /api/documents (Caddy's forward_auth asks fuel's /auth/verify first,
# then docqa) through Caddy, with AUTH_MODE=local on fuel, docqa and Caddy
# and a token on every request, against AUTH_MODE=off, in interleaved
# rounds; fuel, docqa and Caddy started afresh for each run.
if want auth && [[ $load_ok == 1 ]]; then
	md "## The cost of accounts: through Caddy with AUTH_MODE=local against off" "" \
		"Through Caddy (this repository's Caddyfile), $CONNS connections, $DURATION after a 2 s warm-up:" \
		"\`get-vehicle\` (\`GET /api/vehicles/{id}\`, fuel checks the bearer token: a lookup of its hash) and" \
		"\`GET /api/documents\` (docqa's empty list; Caddy's \`forward_auth\` asks fuel's \`/auth/verify\` before each)." \
		"\`local\`: fuel-service, docqa-service and Caddy with \`AUTH_MODE=local\`, the administrator's token (one" \
		"login per run, \`POST /api/auth/login\`) on every request; \`off\`: the three with \`AUTH_MODE=off\`, no token." \
		"fuel-service on the PostgreSQL database above (the seeded vehicle belongs to the built-in user, whom the" \
		"administrator claims), docqa on its embedded store. The three are started afresh for each run; $COST_ROUNDS" \
		"rounds, interleaved (\`off local\` in odd rounds, \`local off\` in even ones). Caddy, both services, the load" \
		"tool and PostgreSQL share the CPUs." "" \
		"Each run (PORTs free ones; \`local\` shown, \`off\` is the same with \`AUTH_MODE=off\` and no token):" "" '```sh' \
		"$(mask <<<"AUTH_MODE=local AUTH_IDENTITY_SECRET=… AUTH_ADMIN_USERNAME=bench AUTH_ADMIN_PASSWORD=… DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:FUEL bin/fuel-service &")" \
		"AUTH_MODE=local AUTH_IDENTITY_SECRET=… DOCQA_ADDR=127.0.0.1:DOCQA DOCQA_STORE_PATH=… bin/docqa-service &" \
		"AUTH_MODE=local LISTEN_ADDRESS=http://127.0.0.1:CADDY FUEL_UPSTREAM=127.0.0.1:FUEL DOCQA_UPSTREAM=127.0.0.1:DOCQA bin/caddy run --config Caddyfile --adapter caddyfile &" \
		"TOKEN=\$(curl -s -X POST http://127.0.0.1:CADDY/api/auth/login -d '{\"username\":\"bench\",\"password\":\"…\"}' | sed -nE 's/.*\"token\":\"([^\"]+)\".*/\\1/p')" \
		"bin/fuelload -url http://127.0.0.1:CADDY -scenario get-vehicle -vehicle $list -c $CONNS -d $DURATION -header \"Authorization: Bearer \$TOKEN\"" \
		"bin/fuelload -url http://127.0.0.1:CADDY -scenario get -path /api/documents -c $CONNS -d $DURATION -header \"Authorization: Bearer \$TOKEN\"" \
		'```' ""
	auth_ok=1
	declare -A auth_runs
	auth_dir=$work/auth
	mkdir -p "$auth_dir/pdfium"
	for round in $(seq 1 "$COST_ROUNDS"); do
		[[ $auth_ok == 1 ]] || break
		for mode in $(round_order "$round" off local); do
			free_port fport
			free_port dport
			free_port cport
			free_port mport
			ddir=$(mktemp -d "$auth_dir/docqa.XXXXXX")
			run_pids=()
			auth_env=("AUTH_MODE=$mode" SHUTDOWN_DRAIN=0s)
			admin_env=()
			if [[ $mode == local ]]; then
				auth_env+=("AUTH_IDENTITY_SECRET=$auth_secret")
				admin_env=(AUTH_ADMIN_USERNAME=bench AUTH_ADMIN_PASSWORD=bench-password-1234)
			fi
			env "${auth_env[@]}" "${admin_env[@]}" DATABASE_URL="$DSN" \
				FUEL_ADDR=127.0.0.1:$fport bin/fuel-service >"$auth_dir/fuel-$mode-$round.log" 2>&1 &
			run_pids+=("$!")
			env "${auth_env[@]}" DOCQA_ADDR=127.0.0.1:$dport DOCQA_STORE_PATH="$ddir/vectors" DOCQA_FILES_DIR="$ddir/files" \
				DOCQA_TEMP_DIR="$ddir/uploads" DOCQA_DATA_DIR="$ddir/data" DOCQA_PDF_CACHE_DIR="$auth_dir/pdfium" LOG_LEVEL=warn \
				bin/docqa-service >"$auth_dir/docqa-$mode-$round.log" 2>&1 &
			run_pids+=("$!")
			env "${auth_env[@]}" LISTEN_ADDRESS=http://127.0.0.1:$cport FUEL_UPSTREAM=127.0.0.1:$fport DOCQA_UPSTREAM=127.0.0.1:$dport \
				WEB_ROOT="$ddir" METRICS_LISTEN=127.0.0.1:$mport bin/caddy run --config Caddyfile --adapter caddyfile >"$auth_dir/caddy-$mode-$round.log" 2>&1 &
			run_pids+=("$!")
			pids+=("${run_pids[@]}")
			header=()
			if wait_up "http://127.0.0.1:$fport/health" "${run_pids[0]}" && wait_up "http://127.0.0.1:$dport/health" "${run_pids[1]}" &&
				wait_up "http://127.0.0.1:$cport/health" "${run_pids[2]}"; then
				if [[ $mode == local ]]; then
					curl -s -X POST -H 'Content-Type: application/json' "http://127.0.0.1:$cport/api/auth/login" \
						-d '{"username":"bench","password":"bench-password-1234"}' | sed -nE 's/.*"token":"([^"]+)".*/\1/p' >"$auth_dir/token"
					[[ -s $auth_dir/token ]] || { say "login through Caddy failed"; auth_ok=0; }
					# the token stays out of the report
					header=(-header "\"Authorization: Bearer \$(cat $auth_dir/token)\"")
				fi
			else
				auth_ok=0
				md "**A process did not start** (round $round, $mode); the last lines of each log:" "" '```'
				for f in fuel docqa caddy; do tail -n 5 "$auth_dir/$f-$mode-$round.log" | mask >>"$md"; done
				md '```' ""
			fi
			if [[ $auth_ok == 1 ]]; then
				for sc in vehicle documents; do
					case $sc in
					vehicle) args="-scenario get-vehicle -vehicle $list" ;;
					documents) args="-scenario get -path /api/documents" ;;
					esac
					if step "auth-$sc-$mode-$round.log" "bin/fuelload -url http://127.0.0.1:$cport $args -c $CONNS -d $DURATION ${header[*]}"; then
						line=$(grep -E 'req/s' "$work/auth-$sc-$mode-$round.log" | tail -n1)
						auth_runs[$sc.$mode]+="$(sed -nE 's/.* ([0-9]+) req\/s.*/\1/p' <<<"$line") "
						md "" "\`round $round, $mode: $line\`; load average $(cut -d' ' -f1 /proc/loadavg)" ""
					else
						auth_ok=0
					fi
				done
			fi
			for pid in "${run_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
			for pid in "${run_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
			pids=()
			[[ $auth_ok == 1 ]] || break
		done
	done
	[[ $auth_ok == 1 ]] || failed=1
	md "### Summary: req/s through Caddy, each round, the median (spread)" "" \
		"| request | \`AUTH_MODE=off\` by round | median (min–max) | \`local\` by round | median (min–max) | cost of the medians | cost round by round: median (min to max) |" \
		"|---|---|---|---|---|---|---|"
	for sc in vehicle documents; do
		off_r=${auth_runs[$sc.off]:-}
		loc_r=${auth_runs[$sc.local]:-}
		label="\`GET /api/vehicles/{id}\` (fuel checks the token)"
		[[ $sc == documents ]] && label="\`GET /api/documents\` (forward_auth to fuel, then docqa)"
		md "| $label | ${off_r:-failed} | $(median "$off_r") ($(spread "$off_r")) | ${loc_r:-failed} | $(median "$loc_r") ($(spread "$loc_r")) | **$(cost "$(median "$loc_r")" "$(median "$off_r")")** | $(paired "$loc_r" "$off_r") |"
	done
	md "" "The cost is 1 − req/s with accounts ÷ req/s without. Through Caddy the CPUs are shared by the load tool," \
		"Caddy, the services and PostgreSQL, so this is the cost to the whole installation on these two cores." ""
fi

# ---------------------------------------------------------------- statistics
if want stats; then
md "## Statistics of one vehicle with 10 000 refuels" "" \
	"\`Store.Statistics\` (existence check, one ordered scan, the last record) after seeding 10 000 refuels;" \
	"\`p50-ms\` is the median of the iterations. Through HTTP add the request's own cost (see the load table)." ""
if step stats.log "cd services/fuel && TEST_DATABASE_URL='$TEST_DATABASE_URL' $GO test -run '^\$' -bench Statistics10k -benchtime 50x ./internal/store/"; then
	bench_table stats.log
fi
fi

# ---------------------------------------------------------------- expenses
if want stats; then
md "## Expenses: a vehicle with 10 000" "" \
	"\`Store.ListExpenses\` of 10 000 expenses (all, and a page of 100), and the statistics of a vehicle with 10 000 refuels" \
	"and 10 000 expenses: its statistics, its monthly series and the household's (\`GET /api/statistics\`)." ""
if step expenses.log "cd services/fuel && TEST_DATABASE_URL='$TEST_DATABASE_URL' $GO test -run '^\$' -bench 'Expenses10k' -benchtime 20x ./internal/store/"; then
	bench_table expenses.log
fi
fi

# ---------------------------------------------------------------- PDF
if want pdf; then
corpus=services/docqa/internal/pdftext/testdata/corpus
md "## PDF text extraction beside pdftotext" "" \
	"The same corpus (\`$corpus/*.pdf\`, $(ls $corpus/*.pdf | wc -l) files). \`pdftext\` \`BenchmarkExtract\` on one CPU (\`-cpu 1\`)," \
	"PDFium (WebAssembly) on a fresh module per file, reports pages/s; pdftotext runs one process per file, one after the other," \
	"three passes, its pages/s being the corpus's page count (pdfinfo) times three over the wall time. pages/cpu-s divides by" \
	"CPU time instead (the test process's; pdftotext's processes'), which other work on a shared machine does not stretch." ""
pdf_rate="" pdf_cpu_rate=""
if step pdftext.log "cd services/docqa && $GO test -run '^\$' -bench Extract -benchtime 3x -cpu 1 ./internal/pdftext"; then
	bench_table pdftext.log
	pdf_rate=$(awk '/^BenchmarkExtract[ \t]/ { for (i = 3; i < NF; i++) if ($(i+1) == "pages/s") print $i }' "$work/pdftext.log" | tail -n1)
	pdf_cpu_rate=$(awk '/^BenchmarkExtract[ \t]/ { for (i = 3; i < NF; i++) if ($(i+1) == "pages/cpu-s") print $i }' "$work/pdftext.log" | tail -n1)
fi
if ! command -v pdftotext >/dev/null 2>&1 && [[ "${BENCH_INSTALL:-}" == 1 ]]; then
	step install-poppler.log "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils" || true
fi
if command -v pdftotext >/dev/null 2>&1 && command -v pdfinfo >/dev/null 2>&1; then
	pt_version=$(pdftotext -v 2>&1 | sed -n 1p)
	step pdfpages.log "for f in $corpus/*.pdf; do pdfinfo \"\$f\" | awk '/^Pages:/ { print \$2 }'; done | awk '{ n += \$1 } END { print n }'" || true
	pages=$(tail -n1 "$work/pdfpages.log")
	if step pdftotext.log "cd $corpus && start=\$(date +%s.%N) && for i in 1 2 3; do for f in *.pdf; do pdftotext -q \"\$f\" /dev/null; done; done && echo \"\$start \$(date +%s.%N)\" && times"; then
		# times: the shell's user and system time, then its children's ("0m1.234s 0m0.567s").
		read -r s e < <(tail -n3 "$work/pdftotext.log" | head -n1)
		pt_cpu=$(tail -n1 "$work/pdftotext.log" | awk '{ t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } print t }')
		pt_rate=$(awk -v p="$pages" -v s="$s" -v e="$e" 'BEGIN { printf "%.0f", 3 * p / (e - s) }')
		pt_cpu_rate=$(awk -v p="$pages" -v c="$pt_cpu" 'BEGIN { if (c > 0) printf "%.0f", 3 * p / c }')
		ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-" }'; }
		md "" "| tool | pages/s | pages/cpu-s |" "|---|---|---|" \
			"| pdftext Engine.Extract (\`-cpu 1\`) | ${pdf_rate:-failed} | ${pdf_cpu_rate:-failed} |" \
			"| $pt_version, $pages pages × 3 in $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }') s | $pt_rate | ${pt_cpu_rate:--} |" \
			"| pdftext ÷ pdftotext | $(ratio "${pdf_rate:-0}" "$pt_rate") | $(ratio "${pdf_cpu_rate:-0}" "${pt_cpu_rate:-0}") |" ""
	fi
else
	md "**pdftotext was not measured**: it is not installed here (package poppler-utils; rerun with" \
		"\`BENCH_INSTALL=1\` to let this script install it with apt-get)." ""
fi
md "## A cited page: drawn as an image, its passage located" "" \
	"\`pdftext\` \`BenchmarkRender\` (one page 1000 px wide, a fresh engine instance and the file's opening included, and" \
	"its PNG) and \`BenchmarkLocate\` (five sources' passages found on their pages, at answer time), on one CPU." ""
if step pages.log "cd services/docqa && $GO test -run '^\$' -bench 'Render|Locate' -benchtime 20x -cpu 1 ./internal/pdftext"; then
	bench_table pages.log
fi
md "## OCR of a scanned page" "" \
	"\`pdftext\` \`BenchmarkOCRPage\`: an A4 English page scanned at 300 dpi (rotated, noisy), rendered by PDFium and" \
	"read by \`tesseract\` (one process, one thread); pages per second and per CPU-second of the process and its children." ""
if command -v tesseract >/dev/null 2>&1; then
	if step ocr.log "cd services/docqa && $GO test -run '^\$' -bench OCRPage -benchtime 5x ./internal/pdftext"; then
		bench_table ocr.log
	fi
else
	md "**OCR was not measured**: \`tesseract\` is not installed here (\`.ci/run\` installs it)." ""
fi
md "## OCR quality on scanned pages" "" \
	"Scans made as a scanner makes them (\`pdftoppm\`, turned by 1.5 degrees, Gaussian noise) of an English page of the corpus," \
	"a German manual page and a Chinese one; a benchmark fails when a page reads under its bar (\`make test\` keeps one case of each)." \
	"\`pdftext\` \`BenchmarkOCRRecallOnScans\`: each language's own model, at 300 and 200 dpi, through the engine (recall of the" \
	"words, of the characters for Chinese, against pdftotext's text of the page; bars 0.90 and 0.85, Chinese 0.85 and 0.80)." \
	"\`ocr\` \`BenchmarkAutoReadsEachLanguageInstalled\`: the default \`OCR_LANGUAGES=auto\` at 300 dpi (bars English 0.98," \
	"German 0.95, Chinese 0.85); \`BenchmarkAutoReadsAnUpsideDownPage\`: the German and Chinese scans upside down read within" \
	"0.02 of upright, every word's box within 8 pixels of the upright box turned. \`pdftext\` \`BenchmarkInkless\`: a blank" \
	"sheet scanned is found without ink, a page number, text and noise with ink, at 300 and 200 dpi (right: the share answered right)." ""
if command -v tesseract >/dev/null 2>&1; then
	if step ocr-recall.log "cd services/docqa && $GO test -run '^\$' -bench 'OCRRecallOnScans|Inkless' -benchtime 1x ./internal/pdftext"; then
		bench_table ocr-recall.log
	fi
	if step ocr-auto.log "cd services/docqa && $GO test -run '^\$' -bench AutoReads -benchtime 1x ./internal/ocr"; then
		bench_table ocr-auto.log
	fi
else
	md "**OCR quality was not measured**: \`tesseract\` is not installed here (\`.ci/run\` installs it)." ""
fi
fi

# ---------------------------------------------------------------- soak
if want soak; then
md "## Soak (fuel)" "" \
	"\`TestSoak\` for a minute under \`-race\` (\`FUEL_SOAK_DURATION=1m\`; \`make test\` runs the same test for 10 s and at" \
	"least 2 000 requests): clients creating, changing, listing and deleting vehicles and refuels against one" \
	"fuel-service on PostgreSQL, then the final checks (every answer a documented one, the database's rows and" \
	"statistics equal to a recomputation from the listed records; proto-docs/system-tests.md)." ""
if step soak.log "cd services/fuel && TEST_DATABASE_URL='$TEST_DATABASE_URL' FUEL_SOAK_DURATION=1m $GO test -race -count=1 -run '^TestSoak\$' -timeout 10m -v ./internal/systemtest/"; then
	md '```'
	grep -E 'soak( end)?:|^(--- |ok)' "$work/soak.log" | sed -E 's/^ +//' >>"$md"
	md '```' ""
fi
fi

# ---------------------------------------------------------------- search
if want search; then
md "## Embedded vector store search" "" \
	"\`BenchmarkSearch\`: top 10 over 10 000 chunks of 1024 random floats (10 documents of 1000 chunks)," \
	"64 different queries in turn; median and 99th percentile per search." ""
if step search.log "cd services/docqa && $GO test -run '^\$' -bench Search -benchtime 300x ./internal/embedded"; then
	bench_table search.log
fi
fi

# -------------------------------------------------------------- maintenance
if want maintenance; then
md "## Maintenance plans proposed from manuals" "" \
	"\`BenchmarkMaintenanceSchedule\`: \`POST /api/documents/:md5/maintenance-schedule\` on the generated manuals of" \
	"\`services/docqa/testdata/maintenance\` (English, German and Chinese schedules as tables, grids, lists and prose;" \
	"\`held-out-*\` over the four manuals written before the rules' last change), against hand-written truth: precision and recall of" \
	"the proposed items by the rules (no chat model) and with the scripted model stand-in (which measures the page" \
	"choice and the check of numbers on the page, not a real model; \`DOCQA_BENCH_CHAT_URL\` and \`_MODEL\` ask a real one)." ""
if step maintenance.log "cd services/docqa && $GO test -run '^\$' -bench MaintenanceSchedule -benchtime 2x ./internal/httpapi"; then
	bench_table maintenance.log
fi
fi

# ---------------------------------------------------------------- receipt
if want receipt; then
md "## Receipts read from photos" "" \
	"\`BenchmarkPhotos\`: the rendered receipt photos of \`services/docqa/internal/receipt/testdata/photos\` (fuel, charging" \
	"and workshop receipts in English, German, French and Chinese: rotated, skewed, noisy, JPEG) read by Tesseract and the" \
	"receipt rules as \`POST /api/receipts/scan\` reads them (the slip cut out and levelled first): share of fields right," \
	"share of wrong values (a value present but wrong), totals and dates right, and the time per photo" \
	"(\`BenchmarkPhotosAsPhotographed\`: the same photos given to Tesseract as they are)." ""
if step receipt.log "cd services/docqa && $GO test -run '^\$' -bench Photos -benchtime 1x ./internal/receipt"; then
	bench_table receipt.log
fi
fi

# ---------------------------------------------------------------- retrieval
if want retrieval; then
md "## Retrieval latency over 10 000 chunks" "" \
	"\`BenchmarkRetrieve\`: a 12-word question, topK 10, over 10 000 chunks of 300 Zipf-distributed words (10" \
	"documents), embedded store and local embedder; hybrid, convex and anchored are both rankings and their fusion, routed" \
	"one of the others by the question." ""
if step retrieve.log "cd services/docqa && $GO test -run '^\$' -bench Retrieve -benchtime 300x ./internal/retrieval"; then
	bench_table retrieve.log
fi

retrieval_dir=services/docqa/testdata/retrieval
retrieval_pkgs=$(sed -n 's/.*"package": "\([^"]*\)".*/\1/p' "$retrieval_dir/manuals.json" | sort -u | tr '\n' ' ')
md "## Retrieval quality on real manuals" "" \
	"\`retrievalbench\`: the manuals of \`$retrieval_dir/manuals.json\` (Debian packages: $retrieval_pkgs) ingested through" \
	"the service's pipeline, the questions of \`questions.json\` (how they were made: its README) asked in every mode" \
	"side by side, by language, by kind and by whether the question names an identifier; the oracle row is each" \
	"question's best rank over the modes, the ceiling of any choice among them. A hit at k is an answer page among the" \
	"first k sources. The BM25 baseline is SQLite FTS5 with its default tokenizer over whole pages, computed in the" \
	"same run. Defaults were chosen on the dev split; test is held out." ""
if [[ "${BENCH_INSTALL:-}" == 1 ]]; then
	step install-manuals.log "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $retrieval_pkgs" || true
fi
if step retrieval-dev.log "cd services/docqa && $GO run ./bench/retrievalbench -split dev -store $work/retrieval-store -pdf-cache $work/pdfium-retrieval"; then
	md "Dev split (the defaults were chosen on it):" "" '```' "$(cat "$work/retrieval-dev.log")" '```' ""
	step retrieval-test.log "cd services/docqa && $GO run ./bench/retrievalbench -split test -store $work/retrieval-store -pdf-cache $work/pdfium-retrieval" &&
		md "Held-out questions only:" "" '```' "$(cat "$work/retrieval-test.log")" '```' ""
	if [[ -n "${EMBEDDING_BASE_URL:-}" ]]; then
		step retrieval-remote.log "cd services/docqa && EMBEDDING_BASE_URL=\$EMBEDDING_BASE_URL $GO run ./bench/retrievalbench -split all -pdf-cache $work/pdfium-retrieval" &&
			md "With the remote embedding model (\`EMBEDDING_MODEL=${EMBEDDING_MODEL:-BAAI/bge-m3}\`):" "" '```' "$(cat "$work/retrieval-remote.log")" '```' ""
	fi
else
	md "(The manuals are missing: install the packages above, or rerun with \`BENCH_INSTALL=1\`.)" ""
fi
fi

# ---------------------------------------------------------------- SSE
if want chat; then
md "## Chat: the latency the service and its SSE stream add" "" \
	"\`BenchmarkChatFirstTokenLatency\`: a real docqa HTTP server with an in-process OpenAI-compatible fake" \
	"provider; the time from the fake writing its first delta to the client having parsed the first content" \
	"event of \`POST /api/chat/stream\` (provider SSE decoding, the service's event encoding and flush, the" \
	"client's SSE parsing, two loopback hops). p50/p90/p99 in µs. Not measured through Caddy." ""
if step chat.log "cd services/docqa && $GO test -run '^\$' -bench ChatFirstTokenLatency -benchtime 2000x ./internal/httpapi"; then
	bench_table chat.log
fi
fi

# ---------------------------------------------------------------- ingestion
# docqa_ingest LOG FILE...: a fresh docqa-service (embedded store, local
# embedder, default INGEST_CONCURRENCY and INGEST_QUEUE), start-up timed
# until /health answers 200, then every FILE uploaded at once by ingestload,
# which checks each outcome and reports the service's peak RSS.
docqa_ingest() {
	local log=$1 port dir pid t0 t1
	shift
	free_port port
	dir=$(mktemp -d "$work/docqa.XXXXXX")
	md '```sh' "DOCQA_ADDR=127.0.0.1:$port DOCQA_STORE_PATH=\$dir/vectors DOCQA_TEMP_DIR=\$dir/uploads DOCQA_PDF_CACHE_DIR=\$dir/pdfium bin/docqa-service &" '```'
	t0=$(date +%s.%N)
	DOCQA_ADDR=127.0.0.1:$port DOCQA_STORE_PATH=$dir/vectors DOCQA_TEMP_DIR=$dir/uploads DOCQA_DATA_DIR=$dir/data \
		DOCQA_PDF_CACHE_DIR=$dir/pdfium LOG_LEVEL=warn bin/docqa-service >"$dir/service.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	if ! wait_up "http://127.0.0.1:$port/health" "$pid"; then
		failed=1
		md "**docqa-service did not start**" '```' "$(tail -n 15 "$dir/service.log")" '```'
		return 1
	fi
	t1=$(date +%s.%N)
	md "" "Start-up until \`/health\` answered 200 (PDF engine compiled, no cache yet): **$(elapsed "$t0" "$t1") s**." ""
	step "$log" "bin/ingestload -url http://127.0.0.1:$port -pid $pid $*" && md '```' "$(cat "$work/$log")" '```' ""
	kill -TERM "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

INGEST_MODES=${BENCH_INGEST:-text,scanned,pagecache}
for m in ${INGEST_MODES//,/ }; do
	case $m in
	text | scanned | pagecache) ;;
	*) echo "bench: BENCH_INGEST: unknown mode $m (text, scanned, pagecache)" >&2; exit 2 ;;
	esac
done
# ingest_mode MODE: whether the ingest section runs MODE.
ingest_mode() { want ingest && [[ ",$INGEST_MODES," == *",$1,"* ]]; }

if ingest_mode text; then
md "## docqa ingestion: start-up, one 100 MB upload, eight at once" "" \
	"Text-heavy generated PDFs of 100 MB (4 101 pages, about 8 200 chunks each; \`genpdf -image 20000\`)," \
	"uploaded to the real binary on its defaults (embedded store, local embedder, \`INGEST_CONCURRENCY=2\`," \
	"\`INGEST_QUEUE=16\`). Peak RSS is the service's VmHWM after the run; each run is a fresh process." ""
big=$work/big
mkdir -p "$big"
if step genpdf.log "cd services/docqa && for i in 1 2 3 4 5 6 7 8; do $GO run ./testdata/genpdf -size 100 -image 20000 -seed \$i -o $big/big-\$i.pdf || exit 1; done"; then
	docqa_ingest ingest-one.log "$big/big-1.pdf"
	docqa_ingest ingest-eight.log "$big"/big-*.pdf
fi
rm -rf "$big"
fi

if ingest_mode scanned; then
md "## docqa ingestion of scanned manuals: eight of 100 pages at once" "" \
	"Eight generated image-only manuals of 100 A5 pages (each page three short lines of text, rendered by" \
	"\`pdftoppm\` at 150 dpi, no text layer: ingestload's \`-scanned\` mode) uploaded at once through the" \
	"progress stream to the real binary on its defaults (\`INGEST_CONCURRENCY=2\`, \`OCR_CONCURRENCY=1\`," \
	"\`OCR_LANGUAGES=auto\`). Each upload must end stored with its 100 pages read by OCR and one \`ocr\`" \
	"progress event per page. Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)." ""
if command -v tesseract >/dev/null && command -v pdftoppm >/dev/null; then
	docqa_ingest ingest-scanned.log -scanned 100 -copies 8
	md "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)." ""
else
	md "**Skipped**: tesseract or pdftoppm is not installed (apt-get install tesseract-ocr poppler-utils)." ""
fi
fi

if ingest_mode pagecache; then
md "## docqa page-image cache: hit ratio of a day of page views" "" \
	"\`BenchmarkPageViews\`: several users open the pages their answers cite, at a few widths, against the" \
	"disk cache of \`internal/pagecache\` in front of PDFium's renderer (a real 18-page manual): the hit ratio" \
	"and the time of a view served by a render (a miss) and by the cache (a hit)." ""
step pagecache.log "cd services/docqa && $GO test -run '^\$' -bench PageViews -benchtime 1x ./internal/httpapi" &&
	bench_table pagecache.log
fi

if [[ -n $ONLY ]]; then
	md "Finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
	[[ $failed == 1 ]] && md "" "**At least one step of this rerun failed; see its sections.**"
	md ""
else
	md "---" "" "Finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
	[[ $failed == 1 ]] && md "" "**At least one step failed; see above.**"
fi
mkdir -p "$(dirname "$REPORT")"
if [[ -n $ONLY && -f $REPORT ]]; then
	# Each "## " section of this run replaces the one of the same title in
	# the existing report; one it does not have goes before its closing
	# "---" line (or at its end).
	awk -v new="$md" '
		BEGIN {
			n = 0
			while ((getline line < new) > 0) {
				if (line ~ /^## /) { cur = line; order[++n] = cur; sec[cur] = "" }
				if (cur != "") sec[cur] = sec[cur] line "\n"
			}
		}
		/^## / { skip = ($0 in sec); if (skip) { printf "%s", sec[$0]; used[$0] = 1 } }
		/^---$/ && !done { skip = 0; for (i = 1; i <= n; i++) if (!(order[i] in used)) { printf "%s", sec[order[i]]; used[order[i]] = 1 } done = 1 }
		!skip { print }
		END { for (i = 1; i <= n; i++) if (!(order[i] in used)) printf "%s", sec[order[i]] }
	' "$REPORT" >"$work/merged.md"
	cp "$work/merged.md" "$REPORT"
else
	cp "$md" "$REPORT"
fi
say "report written to $REPORT"
exit "$failed"
