#!/usr/bin/env bash
# CI: a PostgreSQL for the tests (trust auth, loopback): the one on 127.0.0.1:5432 when it answers, else one of our own on 55432, installing Debian's postgresql when missing; prints its DATABASE_URL.
set -euo pipefail
port_answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [ "${CI_PG_FORCE_OWN:-}" != "1" ] && port_answers 5432; then
  echo "postgres://postgres@127.0.0.1:5432/test"; exit 0
fi
PG_PORT=55432
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "ci: installing postgresql" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
PGDATA="${CI_PG_DATA:-/var/lib/postgresql/credit402-ci}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA"
  runuser -u postgres -- "$PG_BIN/initdb" -D "$PGDATA" -A trust -U postgres >/dev/null
fi
if ! port_answers "$PG_PORT"; then
  echo "ci: starting postgres on 127.0.0.1:$PG_PORT" >&2
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PGDATA" -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=/tmp" -l "$PGDATA/ci.log" -w start >/dev/null
fi
psql_ci() { psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -d postgres -qtAX "$@"; }
[ "$(psql_ci -c "SELECT 1 FROM pg_database WHERE datname = 'test'")" = "1" ] || psql_ci -c 'CREATE DATABASE test' >/dev/null
echo "postgres://postgres@127.0.0.1:$PG_PORT/test"
