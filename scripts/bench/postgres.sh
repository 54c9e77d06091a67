#!/usr/bin/env bash
# Benchmarks SharedStatePostgres on a PostgreSQL server of its own, on loopback. Prints figures;
# asserts nothing.
#
#   throughput  withLock increments per second of one counter at 1 and 4 processes
#               (`shared-demo increment --postgres`), beside a plain postgres-nio program that
#               runs the same transaction (BEGIN; SELECT ... FOR UPDATE; upsert + pg_notify;
#               COMMIT), and the ratio SharedState / plain (goal: overhead under 25 %, ratio >= 0.8)
#   latency     from a write in one process to the change seen by a `watch` in another
#               (LISTEN/NOTIFY, then a read of the row): p50, p99, max (goal: p50 <= 2 ms)
#
# usage: scripts/bench/postgres.sh [--operations N] [--pings N]
# Needs Debian's postgresql (installed when missing, as root). The server runs as the
# `postgres` user from a temporary directory, and is stopped and removed on every way out.
set -euo pipefail
cd "$(dirname "$0")/../.."

operations=4000
pings=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --operations) operations="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --pings) pings="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "postgres.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

scripts/ensure-system-packages.sh postgresql python3
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "postgres.sh: PostgreSQL's server programs are not installed; skipping" >&2
  exit 0
fi

echo "Building in release mode ..." >&2
scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
swift build "${scratch[@]}" -c release --product shared-demo >&2
swift build "${scratch[@]}" -c release --product PostgresBaseline >&2
bin_path="$(swift build "${scratch[@]}" -c release --show-bin-path)"
demo="$bin_path/shared-demo"
baseline="$bin_path/PostgresBaseline"

# The server: initdb as `postgres` when running as root (root may not run it).
work="$(mktemp -d /tmp/sharedstate-pgbench.XXXXXX)"
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$work"
  as_owner=(runuser -u postgres --)
fi
stop_server() {
  "${as_owner[@]}" "$bin/pg_ctl" -D "$work/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap stop_server EXIT
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"${as_owner[@]}" "$bin/initdb" -D "$work/data" -A trust -U postgres --no-sync -E UTF8 >/dev/null
"${as_owner[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/log" -w start \
  -o "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=100" >/dev/null
url="postgres://postgres@127.0.0.1:$port/postgres"

. "$(dirname "${BASH_SOURCE[0]}")/workers.sh"  # now, finish_workers, ping_latency

# throughput KIND PROCESSES: prints increments per second.
throughput() {
  local kind="$1" processes="$2" each=$((operations / processes)) start pids=()
  # The row exists (and the table) before the workers race, for both kinds alike.
  "$demo" set --postgres "$url" --key counter 0
  start=$(( $(now) + 700000000 ))
  for _ in $(seq "$processes"); do
    if [ "$kind" = shared ]; then
      "$demo" increment --postgres "$url" --key counter --times "$each" --start-at "$start" >/dev/null &
    else
      "$baseline" 127.0.0.1 "$port" postgres postgres counter "$each" "$start" >/dev/null &
    fi
    pids+=("$!")
  done
  # The rate is printed first, but a wrong total still fails the run (the caller's $(…)).
  finish_workers postgres.sh "$kind" "$start" $((each * processes)) "${pids[@]}"
  local total
  total="$("$demo" get --postgres "$url" --key counter)"
  if [ "$total" != $((each * processes)) ]; then
    echo "postgres.sh: $kind ended at $total, not $((each * processes))" >&2
    exit 1
  fi
}

# latency: prints 'count p50_us p99_us max_us'.
latency() {
  ping_latency "$demo" "$pings" "" --postgres "$url" --key latency
}

echo
echo "== PostgreSQL $("$bin/postgres" --version | awk '{ print $3 }') on loopback (fsync on), $operations increments per row"
printf "%-10s %14s %16s %8s\n" processes "SharedState/s" "postgres-nio/s" ratio
for processes in 1 4; do
  theirs="$(throughput plain "$processes")"
  ours="$(throughput shared "$processes")"
  printf "%-10s %14s %16s %8s\n" "$processes" "$ours" "$theirs" \
    "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')"
done
read -r count p50 p99 max <<<"$(latency)"
echo "postgres latency over $count writes: p50=${p50}us p99=${p99}us max=${max}us"
