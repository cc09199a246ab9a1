#!/usr/bin/env bash
# fuzz.sh: run every Go fuzz target in the repository, one at a time.
#
# Targets are found, not listed by hand: every package holding a `func Fuzz`
# in a _test.go file is asked for its targets with `go test -list '^Fuzz'`,
# and each runs for FUZZTIME (default 60s) with -fuzzminimizetime
# FUZZMINIMIZETIME (default 5s). A crasher makes the run fail; go test leaves
# it in the package's testdata/fuzz/FuzzX, where it then runs as a regression
# input under plain `go test`.
#
# FUZZ_SAVE_CORPUS=1 copies, after each target, the smallest FUZZ_KEEP (default
# 20) inputs the fuzzer found interesting from the Go build cache
# ($(go env GOCACHE)/fuzz/<import path>/FuzzX) into the package's
# testdata/fuzz/FuzzX, so the corpus can be committed.
# FUZZ_FILTER (a regexp) limits the targets by "<dir> <name>".
# FUZZPARALLEL sets the number of fuzzing workers (default: GOMAXPROCS).
set -euo pipefail
cd "$(dirname "$0")/../.."

GO=${GO:-go}
FUZZTIME=${FUZZTIME:-60s}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-5s}
FUZZ_KEEP=${FUZZ_KEEP:-20}
FUZZ_FILTER=${FUZZ_FILTER:-.}
cache=$($GO env GOCACHE)/fuzz

# Directories with fuzz targets, found by their source. The tools module is
# outside go.work and is run with GOWORK=off.
mapfile -t dirs < <(grep -rlE --include='*_test.go' '^func Fuzz[A-Z0-9_]' pkg services tools 2>/dev/null |
	xargs -r -n1 dirname | sort -u)
if [[ ${#dirs[@]} -eq 0 ]]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi

targets=()
for dir in "${dirs[@]}"; do
	env=()
	[[ $dir == tools* ]] && env=(GOWORK=off)
	names=$(cd "$dir" && env "${env[@]}" $GO test -run '^$' -list '^Fuzz' . | grep -E '^Fuzz' || true)
	if [[ -z "$names" ]]; then
		echo "fuzz: $dir: go test -list found no targets (does it build?)" >&2
		exit 1
	fi
	for name in $names; do
		if [[ "$dir $name" =~ $FUZZ_FILTER ]]; then
			targets+=("$dir $name")
		fi
	done
done

echo "==> $(date -u +%FT%TZ) ${#targets[@]} fuzz targets, $FUZZTIME each (minimize $FUZZMINIMIZETIME), $(nproc) CPUs, $($GO version)"
printf '    %s\n' "${targets[@]}"

failed=()
for t in "${targets[@]}"; do
	read -r dir name <<<"$t"
	env=()
	[[ $dir == tools* ]] && env=(GOWORK=off)
	pkg=$(cd "$dir" && env "${env[@]}" $GO list .)
	echo "==> $(date -u +%T) $pkg $name"
	args=(-run '^$' -fuzz "^${name}\$" -fuzztime "$FUZZTIME" -fuzzminimizetime "$FUZZMINIMIZETIME")
	[[ -n "${FUZZPARALLEL:-}" ]] && args+=(-parallel "$FUZZPARALLEL")
	if ! (cd "$dir" && env "${env[@]}" $GO test "${args[@]}" .); then
		failed+=("$pkg $name")
		echo "FAIL: $pkg $name: crasher (if any) saved under $dir/testdata/fuzz/$name" >&2
	fi
	if [[ "${FUZZ_SAVE_CORPUS:-}" == 1 && -d "$cache/$pkg/$name" ]]; then
		mkdir -p "$dir/testdata/fuzz/$name"
		# the smallest inputs first: they cost least to keep and to re-run
		# (awk, not head: head would end the pipe early, and pipefail with it)
		find "$cache/$pkg/$name" -type f -printf '%s %p\n' | sort -n | awk -v n="$FUZZ_KEEP" 'NR <= n' |
			cut -d' ' -f2- | while read -r f; do
			[[ -e "$dir/testdata/fuzz/$name/${f##*/}" ]] || cp "$f" "$dir/testdata/fuzz/$name/"
		done
		echo "    corpus: $(ls "$dir/testdata/fuzz/$name" | wc -l) files in $dir/testdata/fuzz/$name"
	fi
done

echo "==> $(date -u +%FT%TZ) done: ${#targets[@]} targets, ${#failed[@]} failed"
if [[ ${#failed[@]} -gt 0 ]]; then
	printf 'FAIL: %s\n' "${failed[@]}" >&2
	exit 1
fi
