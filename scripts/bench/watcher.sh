#!/usr/bin/env bash
# The watcher's benchmark rows (issue 11), called by scripts/bench.sh; prints figures, asserts
# nothing.
#
#   scale     for 1, 1 000 and 10 000 keys of one suite open in one watching process: the time
#             to open them, the memory they add, and the CPU time one outside write costs that
#             process (and its ratio to the cost with one key open)
#   latency   `shared-demo ping` in one process, `shared-demo watch` in another, both watching
#             (the default): from the writer's clock inside withLock to the watcher's print, the
#             watcher reading the key as the Int that ping stores, then as any JSON; and
#             right after, two floors: the same path in C (scripts/bench/watch_floor.c: the
#             writer locks, writes a scratch file and exchanges it; the watcher waits in select()
#             on inotify, reads the file, prints), with the writer not watching, then watching
#             as SharedState's writers do (its own thread woken by its own events)
#   slow      how much an observer of one key that takes 100 ms per change delays the delivery
#             of another key's change in the same process
#
# usage: scripts/bench/watcher.sh DEMO DIR [--pings N] [--writes N] [--samples DIR]
#   --samples DIR  keep the latency rows' samples (µs, one per line) in DIR: latency-int.txt,
#                  latency-json.txt, latency-c-floor.txt, latency-c-floor-watching.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/bench/workers.sh  # ping_latency
demo="$1" dir="$2"
shift 2
pings=1000
writes=500
samples=""
while [ $# -gt 0 ]; do
  case "$1" in
    --pings) pings="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --writes) writes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --samples) samples="${2:?$1 needs a value (see --help)}"; mkdir -p "$samples"; shift 2 ;;
    *) echo "watcher.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

echo
echo "== watcher: keys open in one process, one suite: $dir ($(df -T "$dir" | awk 'NR == 2 { print $2 }'))"
python3 scripts/bench/watcher.py "$demo" "$dir" --writes "$writes"

echo
echo "== watcher: latency between two processes, app-storage key, both watching, $pings writes 2 ms apart"
suite="$dir/watcher-latency"
rm -rf "$suite"
# The watcher reads the key as the Int that `ping` stores, as a program sharing it would (the
# floor reads the same integer text); then as any JSON, through Foundation's JSONDecoder, which
# is what a suite's key of a Codable type other than the plain ones costs.
read -r count p50 p99 max <<<"$(PING_SAMPLES="${samples:+$samples/latency-int.txt}" PING_WATCH_INTEGER=yes ping_latency "$demo" "$pings" "" --suite "$suite" --key latency)"
echo "watch latency over $count writes, read as Int: p50=${p50}us p99=${p99}us max=${max}us (goal: p50 <= 1.5x the C floor's, writer watching, below; p99 <= 300us)"
library_p50=$p50
rm -rf "$suite"
read -r count p50 p99 max <<<"$(PING_SAMPLES="${samples:+$samples/latency-json.txt}" ping_latency "$demo" "$pings" "" --suite "$suite" --key latency)"
echo "watch latency over $count writes, read as any JSON: p50=${p50}us p99=${p99}us max=${max}us"
json_p50=$p50
rm -rf "$suite"
floor="$dir/watch_floor"
if cc -O2 -pthread -o "$floor" scripts/bench/watch_floor.c; then
  for writer in "not watching" watching; do
    mkdir -p "$suite"
    "$floor" watch "$suite" latency.json >"$dir/floor.out" &
    watcher=$!
    for _ in $(seq 500); do [ -s "$dir/floor.out" ] && break; sleep 0.01; done
    "$floor" write "$suite" latency.json "$pings" 2000 ${writer/not watching/}
    wait "$watcher"
    floor_samples=()
    if [ -n "$samples" ]; then
      floor_samples=(--samples "$samples/latency-c-floor.txt")
      [ "$writer" = watching ] && floor_samples=(--samples "$samples/latency-c-floor-watching.txt")
    fi
    read -r count p50 p99 max <<<"$(python3 scripts/bench/latency.py "${floor_samples[@]}" <"$dir/floor.out")"
    echo "the same path in C (the floor), writer $writer, $count writes: p50=${p50}us p99=${p99}us max=${max}us"
    [ "$writer" = watching ] && awk -v a="$library_p50" -v j="$json_p50" -v b="$p50" \
      'BEGIN { if (b > 0) printf "SharedState p50 / this floor p50 = %.2f read as Int (goal <= 1.5), %.2f read as any JSON\n", a / b, j / b }'
    rm -rf "$suite" "$dir/floor.out"
  done
  rm -f "$floor"
else
  echo "the same path in C: not measured (no C compiler)"
fi

echo
echo "== watcher: a slow observer (100 ms per change) of one key, another key's change in the same process"
python3 scripts/bench/watcher.py "$demo" "$dir" --slow-observer
