#!/usr/bin/env bash
# Benchmarks SharedState's file storage against SQLite, measured in the same run on the same
# directory, then again on tmpfs (/dev/shm). Prints figures; asserts nothing.
#
#   throughput  cross-process withLock increments per second, 1/2/4/8 processes, beside SQLite
#               (WAL, synchronous=NORMAL, BEGIN IMMEDIATE; UPDATE; COMMIT) with the same
#               process counts, and the ratio SharedState / SQLite
#   latency     from a write in one process to the change seen in another: p50, p99, max over
#               --pings writes
#   both again with the fsync durability setting (SQLite: synchronous=FULL)
#
# usage: scripts/bench.sh [--dir DIR] [--operations N] [--pings N] [--no-tmpfs]
#   --dir         the directory on the file system to measure (default: a fresh one in .build)
#   --operations  increments per configuration, split among the processes (default 20000)
#   --pings       writes for the latency measurement (default 1000)
set -euo pipefail
cd "$(dirname "$0")/.."

dir=""
operations=20000
pings=1000
tmpfs=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="$2"; shift 2 ;;
    --operations) operations="$2"; shift 2 ;;
    --pings) pings="$2"; shift 2 ;;
    --no-tmpfs) tmpfs=no; shift ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

scripts/ensure-system-packages.sh libinotifytools0-dev libsqlite3-dev gcc python3
echo "Building in release mode ..." >&2
swift build -c release --product shared-demo >&2
demo="$(swift build -c release --show-bin-path)/shared-demo"
sqlite_counter=".build/bench/sqlite_counter"
mkdir -p .build/bench
gcc -O2 -o "$sqlite_counter" scripts/bench/sqlite_counter.c -lsqlite3

now() { date +%s%N; }

# throughput KIND PROCESSES DIR [--fsync]: prints operations per second.
throughput() {
  local kind="$1" processes="$2" where="$3" fsync="${4:-}"
  local each=$((operations / processes)) start end pids=()
  rm -rf "$where/counter.json" "$where/.counter.json."* "$where/counter.db"*
  # SQLite: create the database and switch it to WAL once, before the workers race for it.
  [ "$kind" = sqlite ] && "$sqlite_counter" "$where/counter.db" 0 0 >/dev/null
  start=$(( $(now) + 500000000 ))
  for _ in $(seq "$processes"); do
    if [ "$kind" = shared ]; then
      "$demo" increment --file "$where/counter.json" --times "$each" --start-at "$start" $fsync >/dev/null &
    else
      "$sqlite_counter" "$where/counter.db" "$each" "$start" ${fsync:+full} >/dev/null &
    fi
    pids+=("$!")
  done
  local failed=0
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  end=$(now)
  if [ "$failed" -ne 0 ]; then
    echo "bench.sh: a $kind worker failed; its figure would be wrong" >&2
    exit 1
  fi
  awk -v n=$((each * processes)) -v ns=$((end - start)) 'BEGIN { printf "%.0f", n / (ns / 1e9) }'
}

# latency DIR [--fsync]: prints 'count p50_us p99_us max_us'.
latency() {
  local where="$1" fsync="${2:-}" file="$1/latency.json" watcher output
  rm -f "$file" "$where/.latency.json."*
  output="$(mktemp)"
  "$demo" watch --file "$file" --changes "$pings" --timeout 120 >"$output" 2>/dev/null &
  watcher=$!
  # The watcher is ready once it has printed the value it starts from.
  for _ in $(seq 500); do [ -s "$output" ] && break; sleep 0.01; done
  "$demo" ping --file "$file" --count "$pings" --interval-microseconds 2000 $fsync >/dev/null
  wait "$watcher" || true
  python3 scripts/bench/latency.py <"$output"
  rm -f "$output"
}

report() {
  local label="$1" where="$2" fsync="${3:-}"
  echo
  echo "== $label: $where ($(df -T "$where" | awk 'NR == 2 { print $2 }'))${fsync:+, fsync}"
  printf "%-10s %14s %14s %8s\n" processes "SharedState/s" "SQLite/s" ratio
  for processes in 1 2 4 8; do
    local ours theirs
    ours=$(throughput shared "$processes" "$where" $fsync)
    theirs=$(throughput sqlite "$processes" "$where" $fsync)
    printf "%-10s %14s %14s %8s\n" "$processes" "$ours" "$theirs" \
      "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')"
  done
  read -r count p50 p99 max <<<"$(latency "$where" $fsync)"
  echo "latency over $count writes: p50=${p50}us p99=${p99}us max=${max}us"
}

if [ -z "$dir" ]; then
  dir="$(mktemp -d "$PWD/.build/bench/run.XXXXXX")"
  trap 'rm -rf "$dir" "${shm:-}"' EXIT
fi
mkdir -p "$dir"
echo "SharedState benchmark, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $operations increments per row"
report "disk" "$dir"
report "disk" "$dir" --fsync
if [ "$tmpfs" = yes ] && [ -d /dev/shm ]; then
  shm="$(mktemp -d /dev/shm/sharedstate-bench.XXXXXX)"
  report "tmpfs" "$shm"
  report "tmpfs" "$shm" --fsync
fi
