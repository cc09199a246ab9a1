#!/usr/bin/env bash
# pg-throwaway.sh: start a throwaway PostgreSQL cluster for the test run.
#
# Source it, then call pg_throwaway_start: it exports TEST_DATABASE_URL and
# registers pg_throwaway_stop, which the caller runs on exit. The cluster lives
# in a temporary directory owned by the postgres user (initdb refuses root),
# listens on 127.0.0.1 and a private unix socket directory, on a free port.

pg_throwaway_bindir() {
	local dir
	if command -v pg_config >/dev/null 2>&1; then
		dir=$(pg_config --bindir 2>/dev/null || true)
		if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
			echo "$dir"
			return 0
		fi
	fi
	for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [[ -x "$dir/initdb" && -x "$dir/pg_ctl" ]]; then
			echo "$dir"
			return 0
		fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v pg_ctl)"
		return 0
	fi
	return 1
}

# pg_throwaway_as runs a command as the cluster's owner: postgres when we are
# root, ourselves otherwise.
pg_throwaway_as() {
	if [[ $(id -u) -eq 0 ]]; then
		if command -v runuser >/dev/null 2>&1; then
			runuser -u postgres -- "$@"
		else
			su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
		fi
	else
		"$@"
	fi
}

pg_throwaway_free_port() {
	local port
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	return 1
}

PG_THROWAWAY_DIR=""
PG_THROWAWAY_BIN=""

pg_throwaway_stop() {
	if [[ -n "$PG_THROWAWAY_DIR" && -d "$PG_THROWAWAY_DIR" ]]; then
		pg_throwaway_as "$PG_THROWAWAY_BIN/pg_ctl" -D "$PG_THROWAWAY_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
		rm -rf "$PG_THROWAWAY_DIR"
	fi
	PG_THROWAWAY_DIR=""
}

pg_throwaway_start() {
	PG_THROWAWAY_BIN=$(pg_throwaway_bindir) || {
		echo "pg-throwaway: no PostgreSQL server binaries (initdb, pg_ctl) found; install postgresql or set TEST_DATABASE_URL" >&2
		return 1
	}
	if [[ $(id -u) -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
		echo "pg-throwaway: running as root but there is no postgres user to own the cluster" >&2
		return 1
	fi
	PG_THROWAWAY_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pg-throwaway.XXXXXX")
	chmod 755 "$PG_THROWAWAY_DIR"
	if [[ $(id -u) -eq 0 ]]; then
		chown postgres: "$PG_THROWAWAY_DIR"
	fi
	if ! pg_throwaway_as "$PG_THROWAWAY_BIN/initdb" -D "$PG_THROWAWAY_DIR/data" -U postgres \
		--auth=trust --no-sync --encoding=UTF8 --locale=C.UTF-8 >"$PG_THROWAWAY_DIR/initdb.log" 2>&1 &&
		! pg_throwaway_as "$PG_THROWAWAY_BIN/initdb" -D "$PG_THROWAWAY_DIR/data" -U postgres \
			--auth=trust --no-sync --encoding=UTF8 --locale=C >"$PG_THROWAWAY_DIR/initdb.log" 2>&1; then
		echo "pg-throwaway: initdb failed:" >&2
		cat "$PG_THROWAWAY_DIR/initdb.log" >&2
		pg_throwaway_stop
		return 1
	fi
	local port
	for _ in 1 2 3 4 5; do
		port=$(pg_throwaway_free_port) || break
		if pg_throwaway_as "$PG_THROWAWAY_BIN/pg_ctl" -D "$PG_THROWAWAY_DIR/data" -w -t 60 \
			-l "$PG_THROWAWAY_DIR/server.log" \
			-o "-p $port -k $PG_THROWAWAY_DIR -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
			start >/dev/null 2>&1; then
			export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
			PG_THROWAWAY_VERSION=$("$PG_THROWAWAY_BIN/pg_ctl" --version 2>/dev/null | sed "s/^pg_ctl (PostgreSQL)/PostgreSQL/" || echo "PostgreSQL")
			export PG_THROWAWAY_VERSION
			return 0
		fi
	done
	echo "pg-throwaway: the server did not start:" >&2
	cat "$PG_THROWAWAY_DIR/server.log" >&2 2>/dev/null || true
	pg_throwaway_stop
	return 1
}
