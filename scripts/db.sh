#!/usr/bin/env bash
# Project-local PostgreSQL 15 + PostGIS cluster: start | stop | status. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PGPORT="${PGPORT:-55432}"
PGBIN=/usr/lib/postgresql/15/bin
VAR="$PWD/var"
DATA="$VAR/pgdata"
SOCK="$VAR/pgsock"
LOG="$VAR/postgres.log"
as_pg() { runuser -u postgres -- "$@"; }

running() { [ -f "$DATA/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

port_busy() {
  python3 - "$1" <<'PY'
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a port in TIME_WAIT is free for the server
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(0)
sys.exit(1)
PY
}

case "${1:-start}" in
start)
  if running; then echo "db: already running on port $(sed -n 4p "$DATA/postmaster.pid")"; exit 0; fi
  if port_busy "$PGPORT"; then
    echo "db: port $PGPORT is already in use by another program; choose another with: make db PGPORT=55433" >&2
    exit 1
  fi
  mkdir -p "$VAR" "$SOCK"
  chown postgres:postgres "$SOCK"
  # postgres must be able to reach var/ through the repo's parent folders
  chmod o+x "$VAR"
  if [ ! -f "$DATA/PG_VERSION" ]; then
    mkdir -p "$DATA"; chown postgres:postgres "$DATA"; chmod 700 "$DATA"
    as_pg "$PGBIN/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
    cat >> "$DATA/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$SOCK'
shared_buffers = 256MB
work_mem = 32MB
max_connections = 60
fsync = off
CONF
  fi
  # the port may differ between runs: pass it on the command line, not in the conf
  touch "$LOG"; chown postgres:postgres "$LOG"
  as_pg "$PGBIN/pg_ctl" -D "$DATA" -l "$LOG" -o "-p $PGPORT" -w -t 60 start >/dev/null
  echo "db: started on port $PGPORT (socket $SOCK)"
  ;;
stop)
  if running; then as_pg "$PGBIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null; echo "db: stopped"; else echo "db: not running"; fi
  ;;
status)
  if running; then echo "db: running"; else echo "db: not running"; exit 3; fi
  ;;
*) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
