#!/usr/bin/env bash
# Where the CPU of a write goes when several processes increment one counter: P processes of
# `shared-demo increment --file F` (withLock { $0 += 1 }, each watching as every SharedState
# process does) beside P of the C floor of the same protocol (scripts/bench/protocol_counter.c
# with `watch`) and P of the same program written in plain Swift (scripts/bench/protocol_counter.swift,
# `swiftc -O`: what the language costs, apart from the library's layers), in alternated rounds,
# on tmpfs. The processes start together (--start-at) and make --writes increments in all.
#
# For each program and P, per write made by any of the processes (summed over the processes):
# the CPU time (schedstat) of the writing threads, of the watching threads (which wake for every
# process's write: P of them per write), of the other threads, and of all of them, split into
# user and system time (the user time from /proc's clock ticks, 10 ms each: the system time is
# the rest). The programs make the same system calls, one for one, so the split says how much
# of a gap is the library's own code. Threads are told apart by scripts/bench/thread_costs.c
# (preloaded): for the floors the main thread writes and the other one watches; for the library
# the threads named SharedState watch, the main thread only starts the program, and the busiest
# other thread writes. Each figure is the difference between
# a run of --writes increments and one of --writes/20, divided by the difference in writes, so
# that starting the programs does not count. On two cores the throughput of P processes follows
# the CPU of all threads; this says how much of the gap is the writer's and how much the
# watchers'. Prints figures, asserts nothing.
#
# With --compare PATH, another build of shared-demo (the one a change began from, say) takes its
# turn in each round too, shown as "compared" and set against the C floor of the same round.
#
# usage: scripts/bench/process_costs.sh [--processes "1 4"] [--writes N] [--rounds R]
#                                       [--demo PATH] [--compare PATH] [--dir DIR]
#   --processes  the values of P (default "1 4")
#   --writes     increments in the long run, all processes together (default 100000)
#   --rounds     how many times each program is measured for each P, alternating (default 3)
#   --demo       the shared-demo to run (default: this checkout's, built in release mode)
#   --compare    another shared-demo, measured in the same rounds
#   --dir        where the counter lives (default: a fresh directory in /dev/shm, tmpfs)
set -euo pipefail
cd "$(dirname "$0")/../.."
processes="1 4"
writes=100000
rounds=3
demo=""
compare=""
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --processes) processes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --writes) writes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --rounds) rounds="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --demo) demo="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --compare) compare="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --dir) dir="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "process_costs.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$writes$rounds" in
  *[!0-9]*) echo "process_costs.sh: --writes and --rounds take whole numbers" >&2; exit 2 ;;
esac
if [ -n "$compare" ] && [ ! -x "$compare" ]; then
  echo "process_costs.sh: --compare '$compare' is not an executable shared-demo" >&2
  exit 2
fi
case "$processes" in
  *[!0-9\ ]*|"") echo "process_costs.sh: --processes takes whole numbers separated by spaces, such as \"1 4\"" >&2; exit 2 ;;
esac
. scripts/bench/workers.sh  # now, release_demo
[ -n "$demo" ] || demo="$(release_demo)"
work="$(mktemp -d "${dir:-/dev/shm}/process-costs.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cc -O2 -shared -fPIC -o "$work/thread_costs.so" scripts/bench/thread_costs.c
cc -O2 -pthread -o "$work/protocol_counter" scripts/bench/protocol_counter.c
swiftc -O -module-cache-path "$work/module-cache" -o "$work/protocol_counter_swift" scripts/bench/protocol_counter.swift

# run PROGRAM P TOTAL: P processes of PROGRAM (library, compared, c or swift) make TOTAL increments in
# all; prints 'writing_ns watching_ns other_ns user_ns', summed over the processes (user_ns: the
# user time of all the threads).
run() {
  local program="$1" count="$2" total="$3" each start pids=() failed=0 binary="$demo"
  [ "$program" = compared ] && binary="$compare"
  each=$((total / count))
  rm -rf "$work/counter" && mkdir "$work/counter"
  start=$(( $(now) + 300000000 ))
  for index in $(seq "$count"); do
    if [ "$program" = c ] || [ "$program" = swift ]; then
      floor="$work/protocol_counter"
      [ "$program" = swift ] && floor="$work/protocol_counter_swift"
      LD_PRELOAD="$work/thread_costs.so" "$floor" "$work/counter/c.json" "$each" "$start" watch \
        >/dev/null 2>"$work/costs.$index" &
    else
      LD_PRELOAD="$work/thread_costs.so" "$binary" increment --file "$work/counter/c.json" --times "$each" \
        --start-at "$start" >/dev/null 2>"$work/costs.$index" &
    fi
    pids+=("$!")
  done
  for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  if [ "$failed" -ne 0 ]; then
    echo "process_costs.sh: a $program process failed; its figures would be wrong" >&2
    exit 1
  fi
  for index in $(seq "$count"); do
    awk -v program="$program" -v tick="$tick_ns" '
      $1 != "thread-cost" { next }
      { user += $3 * tick }
      program == "c" || program == "swift" { if ($7 == "main") writing += $4; else watching += $4; next }
      $6 == "SharedState" { watching += $4; next }
      $7 == "main" { other += $4; next }
      { others[++n] = $4 }
      END {
        # The busiest thread that is neither the main thread nor a watching one writes.
        best = 0
        for (i = 1; i <= n; i++) if (others[i] > others[best]) best = i
        for (i = 1; i <= n; i++) if (i == best) writing += others[i]; else other += others[i]
        printf "%d %d %d %d\n", writing, watching, other, user
      }' "$work/costs.$index"
  done | awk '{ w += $1; v += $2; o += $3; u += $4 } END { printf "%d %d %d %d\n", w, v, o, u }'
}

tick_ns=$((1000000000 / $(getconf CLK_TCK)))
small=$((writes / 20))
echo "CPU per write by kind of thread, $writes increments (less $small) by P processes together on $(df -T "$work" | awk 'NR == 2 { print $2 }')"
echo
echo "| processes | round | program | writing µs/write | watching µs/write | other µs/write | all µs/write | of which user | of which system |"
echo "|---|---|---|---|---|---|---|---|---|"
results="$work/results.txt"
: >"$results"
for count in $processes; do
  for round in $(seq "$rounds"); do
    # Alternated: who goes first changes every round.
    order="library ${compare:+compared} c swift"
    [ $((round % 2)) -eq 0 ] && order="swift c ${compare:+compared} library"
    for program in $order; do
      read -r wb vb ob ub <<<"$(run "$program" "$count" "$writes")"
      read -r ws vs os us <<<"$(run "$program" "$count" "$small")"
      awk -v P="$count" -v r="$round" -v p="$program" -v n=$((writes - small)) \
        -v wb="$wb" -v ws="$ws" -v vb="$vb" -v vs="$vs" -v ob="$ob" -v os="$os" -v ub="$ub" -v us="$us" \
        'BEGIN {
          w = (wb - ws) / 1e3 / n; v = (vb - vs) / 1e3 / n; o = (ob - os) / 1e3 / n; u = (ub - us) / 1e3 / n
          name = p == "c" ? "C floor" : p == "swift" ? "Swift floor" : p == "compared" ? "compared" : "SharedState"
          printf "| %d | %d | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", P, r, name, w, v, o, w + v + o, u, w + v + o - u
          printf "%d %d %s %.4f %.4f %.4f %.4f %.4f %.4f\n", P, r, p, w, v, o, w + v + o, u, w + v + o - u >> "'"$results"'"
        }'
    done
  done
done
echo
# Per P: the library's figures over the C floor's of the same round, lowest–highest.
awk '
  { if ($3 == "compared") compared = 1 }
  {
    key = $1 " " $2; keys[key] = $1
    figure[$3, key, 1] = $4; figure[$3, key, 2] = $5; figure[$3, key, 4] = $7; figure[$3, key, 5] = $8; figure[$3, key, 6] = $9
  }
  function ratios(program, P, column,   key, r, lo, hi, seen) {
    for (key in keys) {
      if (keys[key] != P || figure["c", key, column] <= 0) continue
      r = figure[program, key, column] / figure["c", key, column]
      if (!seen || r < lo) lo = r; if (!seen || r > hi) hi = r; seen = 1
    }
    return seen ? sprintf("%.2f–%.2f×", lo, hi) : "-"
  }
  function difference(program, P, column,   key, d, lo, hi, seen) {
    for (key in keys) {
      if (keys[key] != P) continue
      d = figure[program, key, column] - figure["c", key, column]
      if (!seen || d < lo) lo = d; if (!seen || d > hi) hi = d; seen = 1
    }
    return seen ? sprintf("%+.2f to %+.2f µs", lo, hi) : "-"
  }
  END {
    for (key in keys) wanted[keys[key]] = 1
    for (P in wanted) {
      split("library compared swift", programs, " ")
      for (i = 1; i <= 3; i++) {
        program = programs[i]
        if (program == "compared" && !compared) continue
        printf "%s process(es): %s over the C floor per round: writing %s (%s), watching %s (%s), all threads %s (%s); of that, user time %s, system time %s\n", P,
          program == "library" ? "SharedState" : program == "swift" ? "Swift floor" : "compared build", ratios(program, P, 1), difference(program, P, 1),
          ratios(program, P, 2), difference(program, P, 2), ratios(program, P, 4), difference(program, P, 4),
          difference(program, P, 5), difference(program, P, 6)
      }
    }
  }' "$results" | sort -n
