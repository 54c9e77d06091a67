#!/usr/bin/env bash
# What one write costs the writing thread: `shared-demo increment --file F --times N` (withLock
# { $0 += 1 }, the process watching as every SharedState process does) beside the C floor of
# the same protocol (scripts/bench/protocol_counter.c with `watch`) and the same loop in Swift
# (scripts/bench/protocol_counter.swift, `swiftc -O`: what the language costs, apart from the
# library's layers), in the same run, on tmpfs.
# For the thread that writes (the busiest thread not named SharedState): user time per write
# (from /proc/.../stat, clock ticks), CPU time per write (schedstat), and calls of malloc and its
# kin per write (counted by scripts/bench/thread_costs.c, preloaded). Each figure is the
# difference between a run of --writes increments and one of --writes/100, divided by the
# difference in writes, so that starting the program does not count. Prints figures, asserts
# nothing.
#
# With --compare PATH, another build of shared-demo (the one a change began from, say) takes its
# turn in each round too, and the summary gives each build's CPU per write over the C floor's of
# the same round: on a noisy host, the steadiest way to see a change of a few percent.
#
# usage: scripts/bench/write_cost.sh [--demo PATH] [--compare PATH] [--writes N] [--rounds R]
#                                    [--dir DIR]
#   --compare  another shared-demo, measured in the same rounds (shown as "compared")
#   --writes   increments in the long run (default 100000)
#   --rounds   how many times the pair of programs is measured, alternating (default 3)
#   --dir      where the counter lives (default: a fresh directory in /dev/shm, tmpfs)
set -euo pipefail
cd "$(dirname "$0")/../.."
demo=""
compare=""
writes=100000
rounds=3
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --demo) demo="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --compare) compare="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --writes) writes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --rounds) rounds="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --dir) dir="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "write_cost.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
if [ -n "$compare" ] && [ ! -x "$compare" ]; then
  echo "write_cost.sh: --compare '$compare' is not an executable shared-demo" >&2
  exit 2
fi
case "$writes$rounds" in
  *[!0-9]*) echo "write_cost.sh: --writes and --rounds take whole numbers" >&2; exit 2 ;;
esac
if [ -z "$demo" ]; then
  . scripts/bench/workers.sh  # release_demo
  demo="$(release_demo)"
fi
work="$(mktemp -d "${dir:-/dev/shm}/write-cost.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cc -O2 -shared -fPIC -o "$work/thread_costs.so" scripts/bench/thread_costs.c
cc -O2 -pthread -o "$work/protocol_counter" scripts/bench/protocol_counter.c
swiftc -O -module-cache-path "$work/module-cache" -o "$work/protocol_counter_swift" scripts/bench/protocol_counter.swift
small=$((writes / 100))
[ "$small" -ge 1 ] || small=1

# run PROGRAM TIMES [NAME]: prints 'user_ticks cpu_ns allocations name' of the writing thread:
# the busiest thread not named SharedState (or, given NAME, the busiest of that name: in a short
# run, starting the program can outweigh the writes).
run() {
  local program="$1" times="$2" name="${3:-}" file="$work/$1-$2.json" log="$work/costs.txt"
  rm -f "$work"/*.json "$work"/.*.json.* 2>/dev/null || true
  case "$program" in
    library) LD_PRELOAD="$work/thread_costs.so" "$demo" increment --file "$file" --times "$times" >/dev/null 2>"$log" ;;
    compared) LD_PRELOAD="$work/thread_costs.so" "$compare" increment --file "$file" --times "$times" >/dev/null 2>"$log" ;;
    loop) LD_PRELOAD="$work/thread_costs.so" "$work/protocol_counter_swift" "$file" "$times" 0 watch >/dev/null 2>"$log" ;;
    c) LD_PRELOAD="$work/thread_costs.so" "$work/protocol_counter" "$file" "$times" 0 watch >/dev/null 2>"$log" ;;
  esac
  awk -v name="$name" '$1 == "thread-cost" && $6 != "SharedState" && (name == "" || $6 == name) && $4 >= best {
         best = $4; line = $3 " " $4 " " $5 " " $6
       }
       END { print line }' "$log"
}

ticks=$(getconf CLK_TCK)
echo "write cost on the writing thread, $writes increments (less $small) on $(df -T "$work" | awk 'NR == 2 { print $2 }'), writer watching"
echo
echo "| round | program | user µs/write | CPU µs/write | mallocs/write |"
echo "|---|---|---|---|---|"
results="$work/results.txt"
: >"$results"
for round in $(seq "$rounds"); do
  for program in library ${compare:+compared} loop c; do
    read -r user_big cpu_big alloc_big writer <<<"$(run "$program" "$writes")"
    read -r user_small cpu_small alloc_small _ <<<"$(run "$program" "$small" "$writer")"
    awk -v r="$round" -v p="$program" -v t="$ticks" -v n=$((writes - small)) \
      -v ub="$user_big" -v us="$user_small" -v cb="$cpu_big" -v cs="$cpu_small" -v ab="$alloc_big" -v as="$alloc_small" \
      'BEGIN {
        user = (ub - us) / t * 1e6 / n; cpu = (cb - cs) / 1e3 / n; alloc = (ab - as) / n
        name = p == "library" ? "SharedState" : p == "compared" ? "compared" : p == "loop" ? "Swift loop" : "C floor"
        printf "| %d | %s | %.2f | %.2f | %.2f |\n", r, name, user, cpu, alloc
        printf "%s %.4f %.4f %.4f\n", p, user, cpu, alloc >> "'"$results"'"
      }'
  done
done
echo
awk '
  { user[$1] = user[$1] " " $2; cpu[$1] = cpu[$1] " " $3; alloc[$1] = alloc[$1] " " $4 }
  function range(list,   parts, n, i, lo, hi) {
    n = split(list, parts, " "); lo = hi = parts[1]
    for (i = 2; i <= n; i++) { if (parts[i] < lo) lo = parts[i]; if (parts[i] > hi) hi = parts[i] }
    return sprintf("%.2f–%.2f", lo, hi)
  }
  function ratios(a, b,   x, y, n, i, lo, hi, r) {
    n = split(a, x, " "); split(b, y, " ")
    for (i = 1; i <= n; i++) { r = y[i] > 0 ? x[i] / y[i] : 0; if (i == 1 || r < lo) lo = r; if (i == 1 || r > hi) hi = r }
    return sprintf("%.2f–%.2f×", lo, hi)
  }
  END {
    printf "SharedState user time per write %s µs, C floor %s µs (ratio per round %s); goal <= 3 µs\n", range(user["library"]), range(user["c"]), ratios(user["library"], user["c"])
    printf "SharedState CPU per write %s µs, C floor %s µs (ratio per round %s)\n", range(cpu["library"]), range(cpu["c"]), ratios(cpu["library"], cpu["c"])
    printf "Swift loop user time per write %s µs, CPU %s µs (CPU ratio to the C floor per round %s)\n", range(user["loop"]), range(cpu["loop"]), ratios(cpu["loop"], cpu["c"])
    if ("compared" in cpu) {
      printf "compared build CPU per write %s µs (ratio to the C floor per round %s), user time %s µs\n", range(cpu["compared"]), ratios(cpu["compared"], cpu["c"]), range(user["compared"])
    }
    printf "SharedState mallocs per write %s, C floor %s; goal <= 1\n", range(alloc["library"]), range(alloc["c"])
  }' "$results"
