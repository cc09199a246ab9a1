#!/usr/bin/env bash
# Smoke run of the issue 7 additions through the real gateway: fuel-service
# on a fresh database (postgres or sqlite, first argument) behind bin/caddy
# with the repository's Caddyfile, driven with the README's curl commands.
# Fails on the first answer that is not what it should be.
#   ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable services/fuel/scripts/additions-smoke.sh postgres
#   services/fuel/scripts/additions-smoke.sh sqlite
set -euo pipefail
mode=${1:?postgres or sqlite}
root=$(cd "$(dirname "$0")/../../.." && pwd)
ADMIN_URL=${ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
G=http://localhost:18000
tmp=$(mktemp -d)
(cd "$root/services/fuel" && go build -o "$tmp/fuel-service" ./cmd/fuel-service)
DB=fuelsmoke_$$
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true
            if [ "$mode" = postgres ]; then psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"; fi
            rm -rf "$tmp"; }
trap cleanup EXIT
if [ "$mode" = postgres ]; then
  psql "$ADMIN_URL" -qc "CREATE DATABASE $DB"
  export DATABASE_URL="${ADMIN_URL%/*}/$DB?sslmode=disable"
else
  export DATABASE_URL="" FUEL_SQLITE_PATH=$tmp/fuel.db
fi
FUEL_ADDR=127.0.0.1:18082 "$tmp/fuel-service" >"$tmp/fuel.log" 2>&1 & pids+=($!)
LISTEN_ADDRESS=:18000 FUEL_UPSTREAM=localhost:18082 DOCQA_UPSTREAM=localhost:18080 WEB_ROOT=$tmp \
  "$root/bin/caddy" run --config "$root/Caddyfile" --adapter caddyfile >"$tmp/caddy.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do curl -fs $G/health >/dev/null 2>&1 && break; sleep 0.2; done

fail() { echo "FAIL: $*"; exit 1; }
expect() { grep -q -- "$2" <<<"$3" || fail "$1: got $3"; echo "ok   $1"; }
j='Content-Type: application/json'
refuel='{"vehicle_id":1,"refuel_time":"2026-03-01T08:00:00Z","odometer":12500,"fuel_type":"E10","liters":40.5,"total_amount":70.47,"is_full":true}'

expect vehicle '"id":1' "$(curl -sS -X POST $G/api/vehicles -H "$j" -d '{"name":"Golf","fuel_type":"diesel"}')"
first=$(curl -sS -X POST $G/api/refuels -H "$j" -H 'Idempotency-Key: offline-queue-0017' -d "$refuel")
again=$(curl -sS -D "$tmp/h" -X POST $G/api/refuels -H "$j" -H 'Idempotency-Key: offline-queue-0017' -d "$refuel")
[ "$first" = "$again" ] || fail "replay differs: $first / $again"
expect "idempotent replay" 'Idempotent-Replayed: true' "$(cat "$tmp/h")"
expect "key reused with another body" 'Idempotency-Key: was already used' \
  "$(curl -sS -X POST $G/api/refuels -H "$j" -H 'Idempotency-Key: offline-queue-0017' -d "${refuel/12500/12600}")"
expect "missed fill-up" '"missed_previous":true' "$(curl -sS -X POST $G/api/refuels -H "$j" \
  -d '{"vehicle_id":1,"refuel_time":"2026-03-20T08:00:00Z","odometer":13900,"fuel_type":"E10","liters":42,"total_amount":73.1,"is_full":true,"missed_previous":true}')"
curl -sS -o /dev/null -X POST $G/api/refuels -H "$j" \
  -d '{"vehicle_id":1,"refuel_time":"2026-04-02T08:00:00Z","odometer":14500,"fuel_type":"E10","liters":39,"total_amount":68,"is_full":true}'
# The span 12500 -> 13900 ends at the missed record: the only sample is 39 L / 600 km.
expect statistics '"avg_consumption":6.5,' "$(curl -sS $G/api/vehicles/1/statistics)"
expect monthly '{"month":"2026-04","records":1,"liters":39,"amount":68,"avg_price":1.7436,"distance":600,"consumption":6.5}' \
  "$(curl -sS "$G/api/vehicles/1/statistics/monthly?start_date=2026-01-01T00:00:00Z&end_date=2026-12-31T23:59:59Z")"
(cd "$tmp" && curl -sS -OJ -D export.h $G/api/vehicles/1/refuels.csv)
expect "export header" 'attachment; filename="vehicle-1-refuels.csv"' "$(cat "$tmp/export.h")"
[ "$(wc -l <"$tmp/vehicle-1-refuels.csv")" = 4 ] || fail "export rows: $(cat "$tmp/vehicle-1-refuels.csv")"
curl -sS -o /dev/null -X POST $G/api/vehicles -H "$j" -d '{"name":"Copy","fuel_type":"diesel"}'
expect "round-trip import" '{"imported":3,"skipped":0,"rows":3,"dry_run":false}' \
  "$(curl -sS -F file=@"$tmp/vehicle-1-refuels.csv" $G/api/vehicles/2/refuels/import)"
stats() { curl -sS $G/api/vehicles/$1/statistics | python3 -c 'import json,sys; d=json.load(sys.stdin); d.pop("vehicle_id"); d.pop("last_refuel"); print(json.dumps(d, sort_keys=True))'; }
[ "$(stats 1)" = "$(stats 2)" ] || fail "statistics differ after the round trip"
echo "ok   identical statistics after export -> import"

python3 - "$tmp/fuelly.csv" <<'PY'
import sys
rows = ["car_name,model,mpg,odometer,miles,gallons,price,city_percentage,fuelup_date,date_added,tags,notes,missed_fuelup,partial_fuelup,latitude,longitude,brand"]
i = 0
while sum(len(r) + 1 for r in rows) < 3 << 20:
    rows.append(f"Civic,Honda,,{20000+i*300},300,10.5,3.459,50,{1+i%12}/{1+i%28}/2020 10:{i%60:02d},,,note {i},0,{i%4==1:d},,,Shell")
    i += 1
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
rows=$(($(wc -l <"$tmp/fuelly.csv") - 1))
out=$(curl -sS -w ' %{time_total}s' -F file=@"$tmp/fuelly.csv" "$G/api/vehicles/2/refuels/import?volume_unit=gal_us&distance_unit=mi")
expect "3 MiB Fuelly import ($rows rows)" "{\"imported\":$rows,\"skipped\":0,\"rows\":$rows,\"dry_run\":false}" "$out"
echo "     $out"
head -c $((11 << 20)) /dev/zero >"$tmp/big.bin"
expect "11 MiB import refused" PAYLOAD_TOO_LARGE "$(curl -sS -F file=@"$tmp/big.bin" $G/api/vehicles/2/refuels/import)"
head -c $((2 << 20)) /dev/zero >"$tmp/two.bin"
expect "2 MiB on another fuel path refused" PAYLOAD_TOO_LARGE "$(curl -sS -X POST -H "$j" --data-binary @"$tmp/two.bin" $G/api/refuels)"
echo "all ok ($mode)"
