#!/usr/bin/env bash
# PostgreSQL for tests and local use: Debian's `postgresql` package (installed if missing), a throwaway
# cluster on a free loopback port.
#
#   deploy/postgres.sh up   [STATE_DIR]   prints a SQLAlchemy URL (postgresql://livetab:livetab@127.0.0.1:PORT/livetab)
#   deploy/postgres.sh down [STATE_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cmd=${1:-up}
state=${2:-$root/.state/postgres}

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
    echo "postgres.sh: installing Debian's postgresql package..." >&2
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >&2
    d=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  fi
  echo "$d"
}

as_owner() {  # PostgreSQL refuses to run as root: use the package's `postgres` user then.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

up() {
  local bin port
  bin=$(bindir)
  if [ -f "$state/port" ] && as_owner "$bin/pg_ctl" -D "$state/data" status >/dev/null 2>&1; then
    echo "postgresql://livetab:livetab@127.0.0.1:$(cat "$state/port")/livetab"; return 0
  fi
  rm -rf "$state"; mkdir -p "$state"
  [ "$(id -u)" = 0 ] && chown postgres "$state"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  echo livetab > "$state/pw"; [ "$(id -u)" = 0 ] && chown postgres "$state/pw"
  as_owner "$bin/initdb" -D "$state/data" -U livetab --pwfile="$state/pw" -A scram-sha-256 -E UTF8 \
    --locale=C.UTF-8 > "$state/initdb.log" 2>&1 || { cat "$state/initdb.log" >&2; exit 1; }
  as_owner "$bin/pg_ctl" -D "$state/data" -l "$state/server.log" -w -t 60 \
    -o "-p $port -k $state -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200" \
    start >/dev/null || { cat "$state/server.log" >&2; exit 1; }
  PGPASSWORD=livetab "$bin/createdb" -h 127.0.0.1 -p "$port" -U livetab livetab
  echo "$port" > "$state/port"
  echo "postgresql://livetab:livetab@127.0.0.1:$port/livetab"
}

down() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -n "$bin" ] && [ -d "$state/data" ]; then
    as_owner "$bin/pg_ctl" -D "$state/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
}

case "$cmd" in
  up) up ;;
  down) down ;;
  *) echo "usage: deploy/postgres.sh up|down [STATE_DIR]" >&2; exit 2 ;;
esac
