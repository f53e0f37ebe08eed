#!/usr/bin/env bash
# Finds or starts a PostgreSQL server for the tests and prints, on stdout, the lines to eval:
#   export FEEDBRIDGE_TEST_POSTGRES_URL=postgres://...
# Order: FEEDBRIDGE_TEST_POSTGRES_URL when set and reachable; a server on 127.0.0.1:5432; otherwise a
# throwaway cluster (Debian's postgresql, installed when missing) in a temp dir on a spare port, started as
# the postgres user. Diagnostics go to stderr. Exit status is non-zero when no server can be had.
#
#   eval "$(.ci/postgres.sh)"          # find or start
#   .ci/postgres.sh stop               # stop the throwaway cluster named by FEEDBRIDGE_TEST_POSTGRES_DIR
#   FEEDBRIDGE_PG_THROWAWAY=1 ...      # skip the env URL and :5432, always start a throwaway cluster
set -euo pipefail

log() { echo "postgres.sh: $*" >&2; }

# answers URL: the server at URL accepts a query (psql), or at least its port is open (no client installed).
answers() {
	local url=$1
	if command -v psql >/dev/null 2>&1; then
		PGCONNECT_TIMEOUT=3 psql "$url" -qAtc 'SELECT 1' >/dev/null 2>&1
		return
	fi
	local rest=${url#*://} hostport
	rest=${rest#*@}
	hostport=${rest%%/*}
	(exec 3<>"/dev/tcp/${hostport%%:*}/${hostport##*:}") 2>/dev/null
}

emit() {
	echo "export FEEDBRIDGE_TEST_POSTGRES_URL='$1'"
	if [ -n "${2:-}" ]; then echo "export FEEDBRIDGE_TEST_POSTGRES_DIR='$2'"; fi
}

as_postgres() {
	if [ "$(id -u)" = 0 ]; then
		if command -v runuser >/dev/null 2>&1; then runuser -u postgres -- "$@"; else su postgres -s /bin/sh -c "$(printf '%q ' "$@")"; fi
	else
		"$@"
	fi
}

pg_bin() {
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then echo "$d"; return 0; fi
	done
	return 1
}

install_postgres() {
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || { log "postgresql is not installed and there is no root or sudo to install it"; return 1; }
		sudo="sudo"
	fi
	log "installing Debian's postgresql (apt-get update first)"
	$sudo apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends postgresql >&2
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# claimed_ports lists the ports of the other throwaway clusters on this machine, running or not: a fault
# test stops its cluster and starts it again on the same port, which must still be free then.
claimed_ports() { cat /tmp/fb-pg.*/data/postmaster.opts 2>/dev/null | tr -d '"' | grep -o -- '-p [0-9]*' | awk '{print $2}' || true; }

start_throwaway() {
	local bin dir port
	bin=$(pg_bin) || { install_postgres && bin=$(pg_bin); } || { log "no initdb/pg_ctl found after installing"; return 1; }
	dir=$(mktemp -d /tmp/fb-pg.XXXXXX)
	chmod 755 "$dir"
	if [ "$(id -u)" = 0 ]; then chown postgres: "$dir"; fi
	log "initdb in $dir/data ($bin)"
	as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
		{ log "initdb failed:"; cat "$dir/initdb.log" >&2; return 1; }
	# From a random point of the range, so that clusters started at the same time rarely try the same port.
	local claimed first i
	claimed=" $(claimed_ports | tr '\n' ' ') "
	first=$((RANDOM % 100))
	for i in $(seq 0 99); do
		port=$((55432 + (first + i) % 100))
		[[ $claimed == *" $port "* ]] && continue
		port_free "$port" || continue
		# Throwaway settings: durability is not needed, speed and enough connections for parallel tests are.
		if as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
			-o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c max_connections=200 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
			start >&2; then
			local url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
			as_postgres "$bin/psql" -h "$dir" -p "$port" -U postgres -qc 'CREATE DATABASE test' postgres >&2 &&
				url="postgres://postgres@127.0.0.1:$port/test?sslmode=disable"
			log "throwaway cluster on 127.0.0.1:$port; stop with: FEEDBRIDGE_TEST_POSTGRES_DIR=$dir $0 stop"
			emit "$url" "$dir"
			return 0
		fi
		log "port $port did not work; trying the next"
		tail -n 5 "$dir/server.log" >&2 || true
	done
	log "no spare port in 55432-55531"
	return 1
}

stop_throwaway() {
	local dir=${FEEDBRIDGE_TEST_POSTGRES_DIR:-}
	[ -n "$dir" ] && [ -d "$dir/data" ] || { log "FEEDBRIDGE_TEST_POSTGRES_DIR does not name a throwaway cluster"; return 1; }
	local bin
	bin=$(pg_bin) || { log "no pg_ctl found"; return 1; }
	# A cluster a test left stopped (a failed restart) is removed all the same.
	if as_postgres "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
		as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2
	fi
	rm -rf "$dir"
	log "stopped and removed $dir"
}

main() {
	if [ "${1:-}" = stop ]; then stop_throwaway; return; fi
	if [ -z "${FEEDBRIDGE_PG_THROWAWAY:-}" ]; then
		if [ -n "${FEEDBRIDGE_TEST_POSTGRES_URL:-}" ]; then
			if answers "$FEEDBRIDGE_TEST_POSTGRES_URL"; then
				log "using FEEDBRIDGE_TEST_POSTGRES_URL"
				emit "$FEEDBRIDGE_TEST_POSTGRES_URL"
				return 0
			fi
			log "FEEDBRIDGE_TEST_POSTGRES_URL is set but does not answer; looking further"
		fi
		local db
		for db in test postgres; do
			if answers "postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"; then
				log "using the server on 127.0.0.1:5432 (database $db)"
				emit "postgres://postgres@127.0.0.1:5432/$db?sslmode=disable"
				return 0
			fi
		done
	fi
	start_throwaway
}

main "$@"
