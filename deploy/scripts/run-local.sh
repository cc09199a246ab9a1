#!/usr/bin/env bash
# run-local.sh: fuel-service, docqa-service and Caddy in the foreground on their
# embedded defaults (SQLite, local vector store, local model fallbacks).
# Ctrl-C stops all three and frees their ports.
set -euo pipefail
cd "$(dirname "$0")/../.."

export FUEL_ADDR=${FUEL_ADDR:-:8082}
export DOCQA_ADDR=${DOCQA_ADDR:-:8080}
export FUEL_UPSTREAM=${FUEL_UPSTREAM:-localhost:${FUEL_ADDR##*:}}
export DOCQA_UPSTREAM=${DOCQA_UPSTREAM:-localhost:${DOCQA_ADDR##*:}}
export LISTEN_ADDRESS=${LISTEN_ADDRESS:-:8000}
# One machine, nothing to drain to: Ctrl-C stops at once (set SHUTDOWN_DRAIN to try the drain).
export SHUTDOWN_DRAIN=${SHUTDOWN_DRAIN:-0s}
# The web client's build (make build runs it when Node.js is installed);
# without it Caddy serves the placeholder page.
if [[ -z "${WEB_ROOT:-}" ]]; then
	if [[ -f services/web/dist/index.html ]]; then
		export WEB_ROOT=services/web/dist
	else
		echo "run: services/web/dist is missing (the web client needs Node.js 22 to build): serving the placeholder deploy/web" >&2
		export WEB_ROOT=deploy/web
	fi
fi
mkdir -p var

# OCR of scanned PDFs: docqa reads them with Tesseract when it is installed
# (OCR=auto). Install it with the languages the tests read where missing, as
# .ci/run does; without apt-get or the rights to use it, docqa runs without
# OCR and says so (/health: "ocr": {"status": "missing"}).
have_tesseract_lang() {
	command -v tesseract >/dev/null 2>&1 && tesseract --list-langs 2>/dev/null | grep -qx "$1"
}
ocr_missing=()
command -v tesseract >/dev/null 2>&1 || ocr_missing+=(tesseract-ocr)
for lang in eng deu chi_sim; do
	have_tesseract_lang "$lang" || ocr_missing+=("tesseract-ocr-${lang//_/-}")
done
if ((${#ocr_missing[@]})) && [[ "${OCR:-auto}" != off ]]; then
	sudo_cmd=""
	if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null 2>&1; then
		sudo_cmd="sudo -n"
	fi
	echo "run: installing ${ocr_missing[*]} (OCR of scanned PDFs)" >&2
	if ! command -v apt-get >/dev/null 2>&1 ||
		! { $sudo_cmd apt-get update -qq </dev/null && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${ocr_missing[@]}" </dev/null >/dev/null; }; then
		echo "run: could not install ${ocr_missing[*]}: docqa runs without OCR (scanned PDFs are refused); install them by hand or set OCR=off" >&2
	fi
fi

pids=()
stop_all() {
	trap - INT TERM EXIT
	local pid
	for pid in "${pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	echo "stopped fuel-service, docqa-service and caddy"
}
trap stop_all EXIT
# Ctrl-C is how this is meant to end: a success, not make's "Error 130".
trap 'exit 0' INT TERM

# wait_healthy URL PID [WHAT]: until URL answers 2xx; fails when PID exits
# first. After a second without an answer it says once what it waits for.
wait_healthy() {
	local url=$1 pid=$2 what=${3:-} tries=0
	for _ in $(seq 1 300); do
		if bin/healthcheck -url "$url" -timeout 1s >/dev/null 2>&1; then
			return 0
		fi
		if ((++tries == 10)) && [[ -n $what ]]; then
			echo "run: waiting for $what" >&2
		fi
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "run: the process behind $url exited; see its log above" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "run: $url did not become healthy" >&2
	return 1
}

bin/fuel-service &
pids+=($!)
bin/docqa-service &
pids+=($!)
wait_healthy "http://${FUEL_UPSTREAM}/health" "${pids[0]}" "fuel-service (opening its database)"
wait_healthy "http://${DOCQA_UPSTREAM}/health" "${pids[1]}" "docqa-service (compiling the PDF engine; a first start takes a few seconds)"

bin/caddy run --config Caddyfile --adapter caddyfile &
pids+=($!)
port=${LISTEN_ADDRESS##*:}
wait_healthy "http://localhost:${port}/health" "${pids[2]}"

cat <<MSG

  CarHub is running:  http://localhost:${port}   (web client from ${WEB_ROOT})
    fuel API          http://localhost:${port}/api/vehicles
    docqa API         http://localhost:${port}/api/chat/stream
    health            http://localhost:${port}/health
  Press Ctrl-C to stop all three.

MSG
# Stop everything as soon as any one of them exits (its exit status is
# this script's).
wait -n "${pids[@]}"
