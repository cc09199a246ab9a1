#!/usr/bin/env bash
# bench.sh: the benchmark report (make bench), written to deploy/bench/REPORT.md.
#
# It describes the machine, then runs and records, each command verbatim:
#   - the fuel load tool (services/fuel/cmd/fuelload) against fuel-service
#     directly, through Caddy (bin/caddy with this repository's Caddyfile) and
#     against the net/http + pgx floor (services/fuel/cmd/fuelfloor), all on
#     one fresh PostgreSQL database, and against a second fuel-service on its
#     embedded SQLite;
#   - the cost of metrics and of tracing: GET vehicle on fuel-service with
#     METRICS=on and off, and with tracing on (exporting to
#     services/fuel/cmd/otlpsink; every request or one in ten sampled) and
#     off, in alternating rounds, with req/s and the service's CPU per request;
#   - the statistics benchmark at 10 000 refuels (PostgreSQL and SQLite);
#   - PDF extraction (pdftext.BenchmarkExtract) beside pdftotext on the same corpus;
#   - the embedded vector store's search benchmark and retrieval's latency
#     (hybrid, lexical, vector) over 10 000 chunks;
#   - retrieval quality: hit@k and MRR@10 on real manuals that Debian packages
#     install (services/docqa/testdata/retrieval), beside a plain BM25 baseline;
#   - the chat first-token latency benchmark (what the service and its SSE add);
#   - docqa ingestion on the real binary: start-up until /health is ok, one
#     100 MB upload and 8 concurrent 100 MB uploads (services/docqa/cmd/ingestload),
#     each with the service's peak RSS.
#
# PostgreSQL: TEST_DATABASE_URL (a superuser or a role that may CREATE
# DATABASE), or else a throwaway server (deploy/scripts/pg-throwaway.sh).
# pdftotext: used when installed; BENCH_INSTALL=1 lets this script install
# poppler-utils with apt-get when it is missing, and the retrieval
# benchmark's manual packages likewise.
# Knobs: BENCH_DURATION (10s per load scenario and target, after a 2 s warm-up),
# BENCH_CONNS (32), BENCH_COST_ROUNDS (3 rounds of the cost runs),
# BENCH_REPORT (deploy/bench/REPORT.md).
# All traffic stays on 127.0.0.1. A failed step is recorded in the report and
# makes the script exit non-zero at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

GO=${GO:-go}
DURATION=${BENCH_DURATION:-10s}
CONNS=${BENCH_CONNS:-32}
COST_ROUNDS=${BENCH_COST_ROUNDS:-3}
REPORT=${BENCH_REPORT:-deploy/bench/REPORT.md}

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

free_port() {
	local port
	for _ in $(seq 1 100); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
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

# ---------------------------------------------------------------- build
md "## Build" ""
step build.log "make build && $GO build -o bin/ ./services/fuel/cmd/fuelload ./services/fuel/cmd/fuelfloor ./services/fuel/cmd/otlpsink ./services/docqa/cmd/ingestload" || {
	say "build failed"
	cp "$md" "$REPORT"
	exit 1
}
md ""

# ---------------------------------------------------------------- fuel load
md "## fuel-service under load: PostgreSQL direct, through Caddy, the floor, and SQLite" "" \
	"One fresh database; fuel-service applies its migrations; the data is seeded through the API (a vehicle with" \
	"100 refuels for \`list\`, an empty one for \`post-refuel\`); \`ANALYZE\` before each scenario. Each run: $CONNS" \
	"keep-alive connections, a 2 s unmeasured warm-up, then $DURATION measured. Scenarios: \`get-vehicle\`" \
	"(\`GET /api/vehicles/{id}\`), \`list\` (\`GET /api/refuels?vehicle_id={id}\`, 100 records, about 37 KB)," \
	"\`post-refuel\` (\`POST /api/refuels\`, a distinct time per request). The floor (\`fuelfloor\`) is net/http +" \
	"pgx running the same SQL and nothing else. A second fuel-service runs on its embedded SQLite (no" \
	"\`DATABASE_URL\`, a fresh file in the work directory), seeded the same way, and takes the same scenarios in" \
	"the same loop. fuel-service's JSON request log goes to a file." ""

db=bench_$$
dsn_base=${TEST_DATABASE_URL%%\?*}
dsn_query=""
[[ $TEST_DATABASE_URL == *\?* ]] && dsn_query="?${TEST_DATABASE_URL#*\?}"
DSN="${dsn_base%/*}/$db$dsn_query"
fuel_port=$(free_port)
floor_port=$(free_port)
caddy_port=$(free_port)
sqlite_port=$(free_port)
docqa_port=$(free_port) # nothing listens there: only the fuel routes are measured

load_ok=1
step createdb.log "psql '$TEST_DATABASE_URL' -qc 'CREATE DATABASE $db'" && created_db=$db || load_ok=0
if [[ $load_ok == 1 ]]; then
	md "" "Started in the background (stopped at the end):" "" '```sh'
	md "$(mask <<<"DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:$fuel_port bin/fuel-service > fuel-service.log 2>&1 &")"
	md "$(mask <<<"DATABASE_URL='$DSN' FLOOR_ADDR=127.0.0.1:$floor_port bin/fuelfloor > fuelfloor.log 2>&1 &")"
	md "LISTEN_ADDRESS=http://127.0.0.1:$caddy_port FUEL_UPSTREAM=127.0.0.1:$fuel_port DOCQA_UPSTREAM=127.0.0.1:$docqa_port bin/caddy run --config Caddyfile --adapter caddyfile > caddy.log 2>&1 &"
	md "env -u DATABASE_URL FUEL_SQLITE_PATH=\$work/fuel-sqlite.db FUEL_ADDR=127.0.0.1:$sqlite_port bin/fuel-service > fuel-service-sqlite.log 2>&1 &"
	md '```' ""
	DATABASE_URL=$DSN FUEL_ADDR=127.0.0.1:$fuel_port bin/fuel-service >"$work/fuel-service.log" 2>&1 &
	pids+=($!)
	wait_up "http://127.0.0.1:$fuel_port/health" "${pids[-1]}" || load_ok=0
fi
if [[ $load_ok == 1 ]]; then
	DATABASE_URL=$DSN FLOOR_ADDR=127.0.0.1:$floor_port "bin/fuelfloor" >"$work/fuelfloor.log" 2>&1 &
	floor_pid=$!
	pids+=($!)
	LISTEN_ADDRESS=http://127.0.0.1:$caddy_port FUEL_UPSTREAM=127.0.0.1:$fuel_port DOCQA_UPSTREAM=127.0.0.1:$docqa_port \
		bin/caddy run --config Caddyfile --adapter caddyfile >"$work/caddy.log" 2>&1 &
	pids+=($!)
	wait_up "http://127.0.0.1:$caddy_port/health" "${pids[-1]}" || load_ok=0
fi
if [[ $load_ok == 1 ]]; then
	# No DATABASE_URL, even one exported by the caller: the embedded default.
	env -u DATABASE_URL FUEL_SQLITE_PATH="$work/fuel-sqlite.db" FUEL_ADDR=127.0.0.1:$sqlite_port bin/fuel-service \
		>"$work/fuel-service-sqlite.log" 2>&1 &
	pids+=($!)
	wait_up "http://127.0.0.1:$sqlite_port/health" "${pids[-1]}" || load_ok=0
fi
if [[ $load_ok == 1 ]] && step seed.log "bin/fuelload -url http://127.0.0.1:$fuel_port -seed -records 100" &&
	step seed-sqlite.log "bin/fuelload -url http://127.0.0.1:$sqlite_port -seed -records 100"; then
	md "" "Seed: \`$(tail -n1 "$work/seed.log")\`; SQLite: \`$(tail -n1 "$work/seed-sqlite.log")\`" ""
	list=$(sed -nE 's/.*list_vehicle=([0-9]+).*/\1/p' "$work/seed.log")
	post=$(sed -nE 's/.*post_vehicle=([0-9]+).*/\1/p' "$work/seed.log")
	sqlite_list=$(sed -nE 's/.*list_vehicle=([0-9]+).*/\1/p' "$work/seed-sqlite.log")
	sqlite_post=$(sed -nE 's/.*post_vehicle=([0-9]+).*/\1/p' "$work/seed-sqlite.log")
	# the floor answers the vehicle only once it can read the seeded rows
	wait_up "http://127.0.0.1:$floor_port/api/vehicles/$list" "$floor_pid" || load_ok=0
else
	load_ok=0
fi
declare -A rps p50 p99
if [[ $load_ok == 1 ]]; then
	md "Each scenario, then each target in turn:" ""
	for sc in get-vehicle list post-refuel; do
		step "analyze-$sc.log" "psql '$DSN' -qc ANALYZE" || true
		for target in service caddy floor sqlite; do
			v=$list
			[[ $sc == post-refuel ]] && v=$post
			case $target in
			service) port=$fuel_port ;;
			caddy) port=$caddy_port ;;
			floor) port=$floor_port ;;
			sqlite)
				port=$sqlite_port
				v=$sqlite_list
				[[ $sc == post-refuel ]] && v=$sqlite_post
				;;
			esac
			if step "load-$sc-$target.log" "bin/fuelload -url http://127.0.0.1:$port -scenario $sc -vehicle $v -c $CONNS -d $DURATION"; then
				line=$(grep -E 'req/s' "$work/load-$sc-$target.log" | tail -n1)
				rps[$sc.$target]=$(sed -nE 's/.* ([0-9]+) req\/s.*/\1/p' <<<"$line")
				p50[$sc.$target]=$(sed -nE 's/.*p50 ([0-9.]+) ms.*/\1/p' <<<"$line")
				p99[$sc.$target]=$(sed -nE 's/.*p99 ([0-9.]+) ms.*/\1/p' <<<"$line")
				md "" "\`$line\`" ""
			fi
		done
	done
	pct() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b == 0) print "–"; else printf "%.0f %%", 100 * a / b }'; }
	cell() { [[ -n "${rps[$1]:-}" ]] && echo "${rps[$1]} (${p50[$1]}, ${p99[$1]})" || echo "failed"; }
	md "### Summary: req/s (p50 ms, p99 ms), $CONNS connections, $DURATION each" "" \
		"| scenario | fuel-service direct | through Caddy | floor (net/http + pgx) | service / floor | Caddy / direct | SQLite | SQLite / PostgreSQL |" \
		"|---|---|---|---|---|---|---|---|"
	for sc in get-vehicle list post-refuel; do
		md "| $sc | $(cell "$sc.service") | $(cell "$sc.caddy") | $(cell "$sc.floor") | $(pct "${rps[$sc.service]:-}" "${rps[$sc.floor]:-}") | $(pct "${rps[$sc.caddy]:-}" "${rps[$sc.service]:-}") | $(cell "$sc.sqlite") | $(pct "${rps[$sc.sqlite]:-}" "${rps[$sc.service]:-}") |"
	done
	md "" "Through Caddy the load tool, Caddy and fuel-service share the same CPUs, so the Caddy column measures the" \
		"gateway's CPU cost as much as its latency. The SQLite columns are fuel-service direct on its embedded" \
		"database (WAL, one writer connection, one read-only connection per CPU) against fuel-service direct on" \
		"PostgreSQL, whose server shares the CPUs too." ""
else
	failed=1
	md "" "**The load runs did not take place** (see the failed step above)." ""
fi

# ---------------------------------------------------------------- cost of metrics and tracing
# The same GET vehicle on fuel-service with metrics on (the default) and
# METRICS=off, and with tracing on, exporting every request's spans to
# otlpsink, on the database above. One instance at a time (the others above
# are stopped first: each keeps a pool of 32 connections, and PostgreSQL's
# default max_connections is 100), started afresh for each run; rounds
# alternate so that the machine's drift falls on all three alike.
for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
if [[ $load_ok == 1 ]]; then
	md "## The cost of metrics and of tracing" "" \
		"\`get-vehicle\` (the cheapest request: a fixed cost per request shows most there) on fuel-service, directly," \
		"on the PostgreSQL database above, in three configurations: metrics on and tracing off (the default)," \
		"\`METRICS=off\`, and tracing on: \`OTEL_EXPORTER_OTLP_ENDPOINT\` names \`otlpsink\`" \
		"(\`services/fuel/cmd/otlpsink\`, an OTLP/HTTP receiver that reads each export and drops it), every" \
		"request sampled (a server span and a database span each, batched); and tracing on with one request in ten" \
		"sampled (\`OTEL_TRACES_SAMPLER=parentbased_traceidratio\`, \`OTEL_TRACES_SAMPLER_ARG=0.1\`). One instance at a time, started" \
		"afresh for each run; $COST_ROUNDS rounds of the four in turn, $CONNS connections, $DURATION each after a" \
		"2 s warm-up. The cost is 1 − the ratio of the mean req/s. Goals (issue 15): metrics under 3 %, tracing" \
		"under 10 %." "" \
		"Each run starts its instance in the background (PORT: a free port each time), then loads it:" "" '```sh' \
		"bin/otlpsink -addr 127.0.0.1:SINK > otlpsink.log 2>&1 &   # once, for the whole section" \
		"$(mask <<<"DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &                          # on")" \
		"$(mask <<<"METRICS=off DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &              # off")" \
		"$(mask <<<"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:SINK DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &   # traced")" \
		"$(mask <<<"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:SINK OTEL_TRACES_SAMPLER=parentbased_traceidratio OTEL_TRACES_SAMPLER_ARG=0.1 DATABASE_URL='$DSN' FUEL_ADDR=127.0.0.1:PORT bin/fuel-service &   # sampled")" \
		'```' ""
	sink_port=$(free_port)
	cost_ok=1
	bin/otlpsink -addr "127.0.0.1:$sink_port" >"$work/otlpsink.log" 2>&1 &
	sink_pid=$!
	pids+=($!)
	wait_up "http://127.0.0.1:$sink_port/health" "$sink_pid" || cost_ok=0
	declare -A cost_runs cost_cpu
	# cpu_requests PID LOG: the process's CPU time so far (utime + stime, in
	# clock ticks) and the requests it has logged (the access log's lines).
	cpu_requests() { echo "$(awk '{ print $14 + $15 }' "/proc/$1/stat") $(grep -c '"msg":"request"' "$2")"; }
	for round in $(seq 1 "$COST_ROUNDS"); do
		[[ $cost_ok == 1 ]] || break
		for variant in on off traced sampled; do
			port=$(free_port)
			# exec: $! is the service itself, which the kill below stops
			case $variant in
			on) exec env DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
			off) exec env METRICS=off DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
			traced) exec env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
			sampled) exec env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$sink_port OTEL_TRACES_SAMPLER=parentbased_traceidratio \
				OTEL_TRACES_SAMPLER_ARG=0.1 DATABASE_URL="$DSN" FUEL_ADDR=127.0.0.1:$port bin/fuel-service ;;
			esac >"$work/fuel-service-cost-$variant-$round.log" 2>&1 &
			svc_pid=$!
			svc_log=$work/fuel-service-cost-$variant-$round.log
			if wait_up "http://127.0.0.1:$port/health" "$svc_pid" && read -r cpu0 n0 < <(cpu_requests "$svc_pid" "$svc_log") &&
				step "cost-$variant-$round.log" "bin/fuelload -url http://127.0.0.1:$port -scenario get-vehicle -vehicle $list -c $CONNS -d $DURATION" &&
				read -r cpu1 n1 < <(cpu_requests "$svc_pid" "$svc_log"); then
				line=$(grep -E 'req/s' "$work/cost-$variant-$round.log" | tail -n1)
				cost_runs[$variant]+="$(sed -nE 's/.* ([0-9]+) req\/s.*/\1/p' <<<"$line") "
				us=$(awk -v c="$((cpu1 - cpu0))" -v n="$((n1 - n0))" -v hz="$(getconf CLK_TCK)" 'BEGIN { if (n > 0) printf "%.0f", 1e6 * c / hz / n }')
				cost_cpu[$variant]+="$us "
				md "" "\`$variant: $line\`; the service's CPU: $us µs per request ($((n1 - n0)) requests, warm-up included)" ""
			else
				cost_ok=0
			fi
			kill -TERM "$svc_pid" 2>/dev/null || true
			wait "$svc_pid" 2>/dev/null || true
		done
	done
	[[ $cost_ok == 1 ]] || failed=1
	kill -TERM "$sink_pid" 2>/dev/null || true
	wait "$sink_pid" 2>/dev/null || true
	pids=()
	mean() { awk '{ for (i = 1; i <= NF; i++) s += $i } END { if (NF) printf "%.0f", s / NF; else print "" }' <<<"${1:-}"; }
	cost() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "" || b == "" || b == 0) print "–"; else printf "%.1f %%", 100 * (1 - a / b) }'; }
	on_mean=$(mean "${cost_runs[on]:-}")
	off_mean=$(mean "${cost_runs[off]:-}")
	traced_mean=$(mean "${cost_runs[traced]:-}")
	on_cpu=$(mean "${cost_cpu[on]:-}")
	off_cpu=$(mean "${cost_cpu[off]:-}")
	traced_cpu=$(mean "${cost_cpu[traced]:-}")
	sampled_mean=$(mean "${cost_runs[sampled]:-}")
	sampled_cpu=$(mean "${cost_cpu[sampled]:-}")
	md "### Summary: GET vehicle req/s and the service's CPU per request, each round and the mean" "" \
		"| fuel-service | req/s | mean | cost | CPU µs per request | mean | cost |" "|---|---|---|---|---|---|---|" \
		"| \`METRICS=off\`, tracing off | ${cost_runs[off]:-failed} | ${off_mean:-–} | | ${cost_cpu[off]:-} | ${off_cpu:-–} | |" \
		"| metrics on (the default), tracing off | ${cost_runs[on]:-failed} | ${on_mean:-–} | metrics: **$(cost "$on_mean" "$off_mean")** | ${cost_cpu[on]:-} | ${on_cpu:-–} | metrics: **$(cost "$off_cpu" "$on_cpu")** |" \
		"| metrics on, tracing on (exporting) | ${cost_runs[traced]:-failed} | ${traced_mean:-–} | tracing: **$(cost "$traced_mean" "$on_mean")** | ${cost_cpu[traced]:-} | ${traced_cpu:-–} | tracing: **$(cost "$on_cpu" "$traced_cpu")** |" \
		"| metrics on, tracing on, 1 in 10 sampled | ${cost_runs[sampled]:-failed} | ${sampled_mean:-–} | tracing: **$(cost "$sampled_mean" "$on_mean")** | ${cost_cpu[sampled]:-} | ${sampled_cpu:-–} | tracing: **$(cost "$on_cpu" "$sampled_cpu")** |" \
		"" "The sink: \`$(tail -n1 "$work/otlpsink.log")\` (the spans of the traced runs' warm-ups included)." \
		"The req/s cost is 1 − req/s with it ÷ req/s without; the CPU cost is the share of the CPU per request that" \
		"it adds (1 − CPU without ÷ CPU with), which is what it costs in req/s when the service is CPU-bound, and" \
		"is far less disturbed by whatever else the machine runs than req/s is. A negative cost is noise: the" \
		"difference is smaller than what varies between rounds." ""
fi

# ---------------------------------------------------------------- statistics
md "## Statistics of one vehicle with 10 000 refuels" "" \
	"\`Store.Statistics\` (existence check, one ordered scan, the last record) after seeding 10 000 refuels;" \
	"\`p50-ms\` is the median of the iterations. Through HTTP add the request's own cost (see the load table)." ""
if step stats.log "cd services/fuel && TEST_DATABASE_URL='$TEST_DATABASE_URL' $GO test -run '^\$' -bench Statistics10k -benchtime 50x ./internal/store/"; then
	bench_table stats.log
fi

# ---------------------------------------------------------------- PDF
corpus=services/docqa/internal/pdftext/testdata/corpus
md "## PDF text extraction beside pdftotext" "" \
	"The same corpus (\`$corpus/*.pdf\`, $(ls $corpus/*.pdf | wc -l) files). \`pdftext\` \`BenchmarkExtract\` on one CPU (\`-cpu 1\`)," \
	"PDFium (WebAssembly) on a fresh module per file, reports pages/s; pdftotext runs one process per file, one after the other," \
	"three passes, its pages/s being the corpus's page count (pdfinfo) times three over the wall time." ""
pdf_rate=""
if step pdftext.log "cd services/docqa && $GO test -run '^\$' -bench Extract -benchtime 3x -cpu 1 ./internal/pdftext"; then
	bench_table pdftext.log
	pdf_rate=$(awk '/^BenchmarkExtract/ { for (i = 3; i < NF; i++) if ($(i+1) == "pages/s") print $i }' "$work/pdftext.log" | tail -n1)
fi
if ! command -v pdftotext >/dev/null 2>&1 && [[ "${BENCH_INSTALL:-}" == 1 ]]; then
	step install-poppler.log "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils" || true
fi
if command -v pdftotext >/dev/null 2>&1 && command -v pdfinfo >/dev/null 2>&1; then
	pt_version=$(pdftotext -v 2>&1 | sed -n 1p)
	step pdfpages.log "for f in $corpus/*.pdf; do pdfinfo \"\$f\" | awk '/^Pages:/ { print \$2 }'; done | awk '{ n += \$1 } END { print n }'" || true
	pages=$(tail -n1 "$work/pdfpages.log")
	if step pdftotext.log "cd $corpus && start=\$(date +%s.%N) && for i in 1 2 3; do for f in *.pdf; do pdftotext -q \"\$f\" /dev/null; done; done && echo \"\$start \$(date +%s.%N)\""; then
		read -r s e < <(tail -n1 "$work/pdftotext.log")
		pt_rate=$(awk -v p="$pages" -v s="$s" -v e="$e" 'BEGIN { printf "%.0f", 3 * p / (e - s) }')
		md "" "| tool | pages/s |" "|---|---|" \
			"| pdftext Engine.Extract (\`-cpu 1\`) | ${pdf_rate:-failed} |" \
			"| $pt_version, $pages pages × 3 in $(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }') s | $pt_rate |" ""
	fi
else
	md "**pdftotext was not measured**: it is not installed here (package poppler-utils; rerun with" \
		"\`BENCH_INSTALL=1\` to let this script install it with apt-get)." ""
fi

# ---------------------------------------------------------------- search
md "## Embedded vector store search" "" \
	"\`BenchmarkSearch\`: top 10 over 10 000 chunks of 1024 random floats (10 documents of 1000 chunks)," \
	"64 different queries in turn; median and 99th percentile per search." ""
if step search.log "cd services/docqa && $GO test -run '^\$' -bench Search -benchtime 300x ./internal/embedded"; then
	bench_table search.log
fi

# ---------------------------------------------------------------- retrieval
md "## Retrieval latency over 10 000 chunks" "" \
	"\`BenchmarkRetrieve\`: a 12-word question, topK 10, over 10 000 chunks of 300 Zipf-distributed words (10" \
	"documents), embedded store and local embedder; hybrid is both rankings and their fusion." ""
if step retrieve.log "cd services/docqa && $GO test -run '^\$' -bench Retrieve -benchtime 300x ./internal/retrieval"; then
	bench_table retrieve.log
fi

retrieval_dir=services/docqa/testdata/retrieval
retrieval_pkgs=$(sed -n 's/.*"package": "\([^"]*\)".*/\1/p' "$retrieval_dir/manuals.json" | sort -u | tr '\n' ' ')
md "## Retrieval quality on real manuals" "" \
	"\`retrievalbench\`: the manuals of \`$retrieval_dir/manuals.json\` (Debian packages: $retrieval_pkgs) ingested through" \
	"the service's pipeline, the questions of \`questions.json\` (how they were made: its README) asked in each mode;" \
	"a hit at k is an answer page among the first k sources. The BM25 baseline is SQLite FTS5 with its default" \
	"tokenizer over whole pages, computed in the same run. Defaults were chosen on the dev split; test is held out." ""
if [[ "${BENCH_INSTALL:-}" == 1 ]]; then
	step install-manuals.log "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $retrieval_pkgs" || true
fi
if step retrieval-all.log "cd services/docqa && $GO run ./cmd/retrievalbench -split all -pdf-cache $work/pdfium-retrieval"; then
	md '```' "$(cat "$work/retrieval-all.log")" '```' ""
	step retrieval-test.log "cd services/docqa && $GO run ./cmd/retrievalbench -split test -pdf-cache $work/pdfium-retrieval" &&
		md "Held-out questions only:" "" '```' "$(cat "$work/retrieval-test.log")" '```' ""
	if [[ -n "${EMBEDDING_BASE_URL:-}" ]]; then
		step retrieval-remote.log "cd services/docqa && EMBEDDING_BASE_URL=\$EMBEDDING_BASE_URL $GO run ./cmd/retrievalbench -split all -pdf-cache $work/pdfium-retrieval" &&
			md "With the remote embedding model (\`EMBEDDING_MODEL=${EMBEDDING_MODEL:-BAAI/bge-m3}\`):" "" '```' "$(cat "$work/retrieval-remote.log")" '```' ""
	fi
else
	md "(The manuals are missing: install the packages above, or rerun with \`BENCH_INSTALL=1\`.)" ""
fi

# ---------------------------------------------------------------- SSE
md "## Chat: the latency the service and its SSE stream add" "" \
	"\`BenchmarkChatFirstTokenLatency\`: a real docqa HTTP server with an in-process OpenAI-compatible fake" \
	"provider; the time from the fake writing its first delta to the client having parsed the first content" \
	"event of \`POST /api/chat/stream\` (provider SSE decoding, the service's event encoding and flush, the" \
	"client's SSE parsing, two loopback hops). p50/p90/p99 in µs. Not measured through Caddy." ""
if step chat.log "cd services/docqa && $GO test -run '^\$' -bench ChatFirstTokenLatency -benchtime 2000x ./internal/httpapi"; then
	bench_table chat.log
fi

# ---------------------------------------------------------------- ingestion
# docqa_ingest LOG FILE...: a fresh docqa-service (embedded store, local
# embedder, default INGEST_CONCURRENCY and INGEST_QUEUE), start-up timed
# until /health answers 200, then every FILE uploaded at once by ingestload,
# which checks each outcome and reports the service's peak RSS.
docqa_ingest() {
	local log=$1 port dir pid t0 t1
	shift
	port=$(free_port)
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

md "---" "" "Finished $(date -u '+%Y-%m-%d %H:%M:%S UTC'); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
[[ $failed == 1 ]] && md "" "**At least one step failed; see above.**"
mkdir -p "$(dirname "$REPORT")"
cp "$md" "$REPORT"
say "report written to $REPORT"
exit "$failed"
