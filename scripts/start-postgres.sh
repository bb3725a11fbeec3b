#!/usr/bin/env bash
# Starts (once) a throwaway PostgreSQL 15 server for the tests, from Debian's `postgresql` package, and prints the
# line to export on stdout:
#   export SVC_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:<port>/postgres
# Usage: eval "$(bash scripts/start-postgres.sh)"          # start (or reuse) and export
#        bash scripts/start-postgres.sh stop                # stop it and delete its data
# Settings: SVC_PG_DIR (default /tmp/svc-postgres), SVC_PG_PORT (default 54329).
# Data is disposable (fsync off, trust auth on 127.0.0.1 only); never point this at a real database.
set -euo pipefail

DIR="${SVC_PG_DIR:-/tmp/svc-postgres}"
PORT="${SVC_PG_PORT:-54329}"
BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[[ -x "$BIN/pg_ctl" ]] || { echo "PostgreSQL server binaries not found: apt-get install -y postgresql" >&2; exit 1; }

# initdb and postgres refuse to run as root: use the `postgres` account (created by the Debian package) then.
as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

if [[ "${1:-start}" == stop ]]; then
  if [[ -f "$DIR/data/postmaster.pid" ]]; then as_owner "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >&2; fi
  rm -rf "$DIR"
  exit 0
fi

if [[ ! -f "$DIR/data/PG_VERSION" ]]; then
  rm -rf "$DIR"
  mkdir -p "$DIR"
  [[ $(id -u) -eq 0 ]] && chown postgres: "$DIR"
  as_owner "$BIN/initdb" --pgdata="$DIR/data" --username=postgres --auth=trust --no-sync --encoding=UTF8 \
    --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 || { cat "$DIR/initdb.log" >&2; exit 1; }
fi

if ! as_owner "$BIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
  as_owner "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start \
    -o "-c listen_addresses=127.0.0.1 -p $PORT -k $DIR -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    >&2 || { tail -n 20 "$DIR/server.log" >&2; exit 1; }
fi
echo "export SVC_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PORT/postgres"
