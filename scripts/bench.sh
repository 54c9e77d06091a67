#!/usr/bin/env bash
# Benchmarks SharedState's file storage and app storage against SQLite, measured in the same
# run on the same directory, then again on tmpfs (/dev/shm). Prints figures; asserts nothing.
# Writes what it prints, and each figure as TSV, into a results folder, and draws the pictures
# of BENCHMARKS.md from them (scripts/bench/plot.py, matplotlib, installed from PyPI when
# missing).
#
#   throughput  cross-process withLock increments per second (--processes, default 1 2 4 8),
#               for a file (--file) and for a key of an app-storage suite (--suite --key),
#               beside SQLite (WAL, synchronous=NORMAL, BEGIN IMMEDIATE; UPDATE; COMMIT) and
#               beside two floors: the same file protocol in C (scripts/bench/protocol_counter.c,
#               the writer's system calls only, no Swift, no JSON), without watching ("C floor")
#               and with every process watching the directory as SharedState's do by default
#               ("C watching": a thread reading inotify events, with the calls libinotifytools
#               makes for each batch, and the page). The file, the app-storage key and the
#               floors all write one path (the suite's file). Each figure is
#               the median of --repeat runs, the kinds interleaved; ratios are to SQLite's median
#               of the same run, and "noise" is the spread of SQLite's own runs around it; the
#               last column ("/watch") is SharedState's median over C watching's
#   latency     from a write in one process to the change seen in another: p50, p99, max over
#               --pings writes, for a file and for an app-storage key
#   both again with the fsync durability setting (SQLite: synchronous=FULL)
#   suite       listing the keys of a suite of 10 000 keys (`shared-demo keys`): time and peak
#               memory, beside the same for an empty suite
#   watcher     scripts/bench/watcher.sh: keys open in one process, the latency between two
#               watching processes beside the C floor's, a slow observer
#   fan-out     scripts/bench/fanout.sh: N watching processes, then N of the C floor, one writer
#   language    scripts/bench/language_cost.sh: one watcher of the library, the C floor's and the
#               same loop in Swift, side by side: what the language costs, what the layers cost
#   threads     scripts/bench/process_costs.sh: 1 and 4 processes incrementing on tmpfs, the CPU
#               per write of their writing and their watching threads, user and system time,
#               beside the C floor's and the same program's in plain Swift
#   PostgreSQL  scripts/bench/postgres.sh
#
# usage: scripts/bench.sh [--quick] [--dir DIR] [--results DIR] [--pictures DIR]
#                         [--operations N] [--fsync-operations N] [--repeat N]
#                         [--processes "1 2 4 8"] [--pings N] [--no-tmpfs] [--no-postgres]
#                         [--throughput-only]
#   --quick       fewer runs and writes (--repeat 1, 10000 and 1000 increments, 300 pings,
#                 fan-out with fewer changes, one turn each): about half the time of a full run
#   --dir         the directory on the file system to measure (default: a fresh one in .build)
#   --results     where the results go (default: .build/bench/results-DATE): bench.txt (what
#                 was printed), run.tsv, throughput.tsv, latency.tsv, fanout.tsv, samples/
#   --pictures    where the pictures go (default: docs/benchmarks, beside BENCHMARKS.md)
#   --demo PATH   the shared-demo to measure (default: this checkout's, built in release mode)
#   --operations  increments per configuration, split among the processes (default 20000)
#   --fsync-operations  the same with fsync on disk (default 2000); on tmpfs, where a flush
#                 costs little, fsync runs make --operations increments: 2000 would last about
#                 40 ms, and what each process costs once (waking at the start time, exiting)
#                 would weigh a tenth of it
#   --repeat      runs of each configuration (default 3)
#   --pings       writes for the latency measurement (default 1000)
#   --no-tmpfs    only on disk
#   --no-postgres without the PostgreSQL rows
#   --throughput-only  only the throughput tables, on disk (no pictures)
set -euo pipefail
cd "$(dirname "$0")/.."

dir=""
demo=""
results=""
pictures="docs/benchmarks"
operations=20000
fsync_operations=2000
repeat=3
process_counts="1 2 4 8"
pings=1000
tmpfs=yes
only_throughput=no
postgres=yes
fanout_options=()
language_options=()
thread_options=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick)
      repeat=1; operations=10000; fsync_operations=1000; pings=300
      fanout_options=(--changes 100 --rounds 1); language_options=(--rounds 3 --changes 500)
      thread_options=(--rounds 1 --writes 40000); shift ;;
    --results) results="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --pictures) pictures="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --demo) demo="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --dir) dir="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --operations) operations="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --fsync-operations) fsync_operations="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --repeat) repeat="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --processes) process_counts="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --throughput-only) only_throughput=yes; tmpfs=no; shift ;;
    --pings) pings="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --no-tmpfs) tmpfs=no; shift ;;
    --no-postgres) postgres=no; shift ;;
    -h|--help) sed -n '2,52p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

scripts/ensure-system-packages.sh libinotifytools0-dev libsqlite3-dev gcc python3
if [ -z "$demo" ]; then
  echo "Building in release mode ..." >&2
  # SWIFT_SCRATCH_PATH picks a build folder other than .build.
  scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
  swift build "${scratch[@]}" -c release --product shared-demo >&2
  # The suite row opens 10 000 keys with Int defaults in a program of its own, found beside it.
  swift build "${scratch[@]}" -c release --product ResourceProbe >&2
  demo="$(swift build "${scratch[@]}" -c release --show-bin-path)/shared-demo"
fi
[ -x "$demo" ] || { echo "bench.sh: '$demo' is not an executable shared-demo" >&2; exit 2; }
sqlite_counter=".build/bench/sqlite_counter"
mkdir -p .build/bench
gcc -O2 -o "$sqlite_counter" scripts/bench/sqlite_counter.c -lsqlite3
protocol_counter=".build/bench/protocol_counter"
gcc -O2 -pthread -o "$protocol_counter" scripts/bench/protocol_counter.c

. "$(dirname "${BASH_SOURCE[0]}")/bench/workers.sh"  # now, finish_workers, ping_latency

# throughput KIND PROCESSES DIR TOTAL [--fsync]: prints operations per second over TOTAL
# operations, split among the processes.
throughput() {
  local kind="$1" processes="$2" where="$3" total="$4" fsync="${5:-}"
  local each=$((total / processes)) start pids=()
  # The file, the C floors and the app-storage key all write the same path (the suite's file of
  # key "counter"): every system call of a write walks the path, one component more costs each
  # of them, and the floors are floors of the same work.
  local counter="$where/suite/counter.json"
  rm -rf "$where/counter.db"* "$where/suite"
  mkdir -p "$where/suite"
  # SQLite: create the database and switch it to WAL once, before the workers race for it.
  [ "$kind" = sqlite ] && "$sqlite_counter" "$where/counter.db" 0 0 >/dev/null
  start=$(( $(now) + 500000000 ))
  for _ in $(seq "$processes"); do
    if [ "$kind" = file ]; then
      "$demo" increment --file "$counter" --times "$each" --start-at "$start" $fsync >/dev/null &
    elif [ "$kind" = app ]; then
      "$demo" increment --suite "$where/suite" --key counter --times "$each" --start-at "$start" $fsync >/dev/null &
    elif [ "$kind" = c ]; then
      "$protocol_counter" "$counter" "$each" "$start" ${fsync:+fsync} >/dev/null &
    elif [ "$kind" = c-watching ]; then
      "$protocol_counter" "$counter" "$each" "$start" ${fsync:+fsync} watch >/dev/null &
    else
      "$sqlite_counter" "$where/counter.db" "$each" "$start" ${fsync:+full} >/dev/null &
    fi
    pids+=("$!")
  done
  finish_workers bench.sh "$kind" "$start" $((each * processes)) "${pids[@]}"
}

# latency KIND DIR LABEL [--fsync]: prints 'count p50_us p99_us max_us'; keeps the samples in
# the results' samples/latency-LABEL-KIND.txt.
latency() {
  local kind="$1" where="$2" label="$3" fsync="${4:-}" target
  rm -rf "$where/latency.json" "$where/.latency.json."* "$where/suite"
  if [ "$kind" = app ]; then
    target=(--suite "$where/suite" --key latency)
  else
    target=(--file "$where/latency.json")
  fi
  PING_SAMPLES="$results/samples/latency-$label-$kind.txt" ping_latency "$demo" "$pings" "$fsync" "${target[@]}"
}

# median N...: the median of its arguments.
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# report LABEL DIR [--fsync]: the throughput table and the latency rows of one directory.
report() {
  local label="$1" where="$2" fsync="${3:-}"
  local durability=default total=$operations
  [ -n "$fsync" ] && durability=fsync
  [ -n "$fsync" ] && [ "$label" != tmpfs ] && total=$fsync_operations
  echo
  echo "== $label: $where ($(df -T "$where" | awk 'NR == 2 { print $2 }'))${fsync:+, fsync (SQLite synchronous=FULL)}, median of $repeat, $total increments per run"
  printf "%-9s %-6s %10s %10s %6s %10s %6s %11s %6s %6s %8s\n" processes kind "ours/s" "SQLite/s" ratio \
    "C floor/s" floor "C watch/s" floor noise "/watch"
  for processes in $process_counts; do
    local -a sqlite=() c=() cw=() file=() app=()
    for _ in $(seq "$repeat"); do
      sqlite+=("$(throughput sqlite "$processes" "$where" "$total" $fsync)")
      c+=("$(throughput c "$processes" "$where" "$total" $fsync)")
      cw+=("$(throughput c-watching "$processes" "$where" "$total" $fsync)")
      file+=("$(throughput file "$processes" "$where" "$total" $fsync)")
      app+=("$(throughput app "$processes" "$where" "$total" $fsync)")
    done
    local run=0
    for _ in $(seq "$repeat"); do
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' \
        "$label" "$durability" "$processes" "SharedState file" "$run" "${file[$run]}" \
        "$label" "$durability" "$processes" "SharedState app storage" "$run" "${app[$run]}" \
        "$label" "$durability" "$processes" "SQLite" "$run" "${sqlite[$run]}" \
        "$label" "$durability" "$processes" "C floor" "$run" "${c[$run]}" \
        "$label" "$durability" "$processes" "C watch" "$run" "${cw[$run]}" >>"$results/throughput.tsv"
      run=$((run + 1))
    done
    local s_median c_median cw_median noise
    s_median=$(median "${sqlite[@]}")
    c_median=$(median "${c[@]}")
    cw_median=$(median "${cw[@]}")
    # SQLite's own spread across the runs, as a fraction of its median.
    noise=$(printf '%s\n' "${sqlite[@]}" | awk -v m="$s_median" 'NR == 1 { lo = $1; hi = $1 } { if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 } END { printf "±%.0f%%", 50 * (hi - lo) / m }')
    for kind in file app; do
      local ours
      if [ "$kind" = file ]; then ours=$(median "${file[@]}"); else ours=$(median "${app[@]}"); fi
      printf "%-9s %-6s %10s %10s %6s %10s %6s %11s %6s %6s %7s\n" "$processes" "$kind" "$ours" "$s_median" \
        "$(ratio "$ours" "$s_median")" "$c_median" "$(ratio "$c_median" "$s_median")" \
        "$cw_median" "$(ratio "$cw_median" "$s_median")" "$noise" "$(ratio "$ours" "$cw_median")"
    done
  done
  [ "$only_throughput" = yes ] && return
  for kind in file app; do
    read -r count p50 p99 max <<<"$(latency "$kind" "$where" "$label-$durability" $fsync)"
    echo "$kind latency over $count writes: p50=${p50}us p99=${p99}us max=${max}us"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$label" "$durability" "$kind" "$count" "$p50" "$p99" "$max" \
      >>"$results/latency.tsv"
  done
}

# suite_open DIR: lists a suite of 10 000 keys and an empty one, with time and peak memory.
suite_open() {
  echo
  echo "== suite of 10000 keys: $1 ($(df -T "$1" | awk 'NR == 2 { print $2 }'))"
  python3 scripts/bench/suite_open.py "$demo" "$1" 10000
}

if [ -z "$dir" ]; then
  dir="$(mktemp -d "$PWD/.build/bench/run.XXXXXX")"
  trap 'rm -rf "$dir" "${shm:-}"' EXIT
fi
mkdir -p "$dir"
started="$(date -u +%Y-%m-%dT%H:%MZ)"
[ -n "$results" ] || results=".build/bench/results-$(date -u +%Y%m%dT%H%MZ)"
mkdir -p "$results/samples"
results="$(cd "$results" && pwd)"
rm -f "$results"/*.tsv "$results"/samples/*
printf 'storage\tdurability\tprocesses\tprogram\trun\tops_per_s\n' >"$results/throughput.tsv"
printf 'storage\tdurability\tkind\tcount\tp50_us\tp99_us\tmax_us\n' >"$results/latency.tsv"
# The tree measured: the commit, marked when the work tree differs from it.
tree="$(git describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)"
printf 'tree\tdate\tcores\tload\n%s\t%s\t%s\t%s\n' "$tree" "$started" "$(nproc)" \
  "$(cut -d' ' -f1-3 /proc/loadavg)" >"$results/run.tsv"
# Everything printed from here on is also kept in the results.
exec > >(tee "$results/bench.txt")

echo "SharedState benchmark, $started, tree $tree, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $operations increments per run ($fsync_operations with fsync on disk)"
report "disk" "$dir"
report "disk" "$dir" --fsync
[ "$only_throughput" = yes ] || suite_open "$dir"
# The watcher: keys open, CPU per write, latency beside the C floor's.
[ "$only_throughput" = yes ] || scripts/bench/watcher.sh "$demo" "$dir" --pings "$pings" --samples "$results/samples"
if [ "$tmpfs" = yes ] && [ -d /dev/shm ]; then
  shm="$(mktemp -d /dev/shm/sharedstate-bench.XXXXXX)"
  report "tmpfs" "$shm"
  report "tmpfs" "$shm" --fsync
fi
[ "$only_throughput" = yes ] && exit 0

# Fan-out: N watching processes of the library and N of the C floor, one writer.
if [ -x scripts/bench/fanout.sh ]; then
  echo
  echo "== fan-out: one writer, N watching processes (scripts/bench/fanout.sh)"
  scripts/bench/fanout.sh --demo "$demo" --tsv "$results/fanout.tsv" \
    "${fanout_options[@]}"
else
  echo
  echo "== fan-out: not measured (scripts/bench/fanout.sh is missing)"
fi

# What one change costs a watcher: the library, the C floor and the floor's loop in Swift.
echo
echo "== language: one watching process of each kind, side by side (scripts/bench/language_cost.sh)"
scripts/bench/language_cost.sh --demo "$demo" "${language_options[@]}"

# Where the CPU of a write goes with 1 and 4 processes: writing threads, watching threads, user
# and system time; the C floor and the same program in plain Swift.
echo
echo "== threads: the CPU of a write by kind of thread, 1 and 4 processes (scripts/bench/process_costs.sh)"
scripts/bench/process_costs.sh --demo "$demo" "${thread_options[@]}"

# PostgreSQL (SharedStatePostgres), on a server of its own: see scripts/bench/postgres.sh.
[ "$postgres" = yes ] && scripts/bench/postgres.sh --pings "$pings"

# The pictures of BENCHMARKS.md, from this run's results.
if ! python3 -c 'import matplotlib' 2>/dev/null; then
  echo "Installing matplotlib from PyPI for the pictures ..." >&2
  python3 -m pip install --quiet matplotlib >&2
fi
python3 scripts/bench/plot.py "$results" --output "$pictures"
echo
echo "Results: $results; pictures: $pictures"
