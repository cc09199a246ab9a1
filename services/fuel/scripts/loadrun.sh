#!/usr/bin/env bash
# Load run of README.md: fuel-service and the fuelfloor program, one after
# the other, on the same fresh PostgreSQL database, 32 connections.
#   ADMIN_URL=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable services/fuel/scripts/loadrun.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ADMIN_URL=${ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
DB=fuelload_$$
DURATION=${DURATION:-10s}
bin=$(mktemp -d)
go build -o "$bin/" ./cmd/fuel-service ./bench/fuelfloor ./bench/fuelload
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB"
DSN="${ADMIN_URL%/*}/$DB?sslmode=disable"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true
            psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"; rm -rf "$bin"; }
trap cleanup EXIT

wait_up() { for _ in $(seq 100); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "not up: $1"; exit 1; }

DATABASE_URL=$DSN FUEL_ADDR=127.0.0.1:18082 "$bin/fuel-service" >/dev/null 2>&1 & pids+=($!)
wait_up http://127.0.0.1:18082/health
seed=$("$bin/fuelload" -url http://127.0.0.1:18082 -seed -records 100)
echo "seed: $seed"
list=$(sed -E 's/.*list_vehicle=([0-9]+).*/\1/' <<<"$seed")
post=$(sed -E 's/.*post_vehicle=([0-9]+).*/\1/' <<<"$seed")
psql "$DSN" -qc "ANALYZE"

DATABASE_URL=$DSN FLOOR_ADDR=127.0.0.1:18083 "$bin/fuelfloor" >/dev/null 2>&1 & pids+=($!)
wait_up "http://127.0.0.1:18083/api/vehicles/$list"

for round in 1 2; do
  psql "$DSN" -qc "ANALYZE"  # the POSTs of round 1 grow the table the list reads
  for sc in get-vehicle list post-refuel; do
    v=$list; [ "$sc" = post-refuel ] && v=$post
    for port in 18082 18083; do
      name=service; [ $port = 18083 ] && name=floor
      echo -n "round $round $name: "
      "$bin/fuelload" -url http://127.0.0.1:$port -scenario $sc -vehicle "$v" -c 32 -d "$DURATION"
    done
  done
done
