#!/usr/bin/env bash
# The system calls one watching process makes per change made elsewhere: `strace -f -c` attached
# to a `shared-demo watch --file F --integer` once it is watching, while `shared-demo ping` makes
# --changes changes --interval-ms apart. Prints strace's table with a column of calls per
# change, and the total. Prints figures, asserts nothing.
#
# usage: scripts/bench/watcher_calls.sh DEMO [--changes N] [--interval-ms M] [--dir DIR]
set -euo pipefail
demo="$1"
shift
changes=500
interval_ms=4
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --changes) changes="$2"; shift 2 ;;
    --interval-ms) interval_ms="$2"; shift 2 ;;
    --dir) dir="$2"; shift 2 ;;
    *) echo "watcher_calls.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
command -v strace >/dev/null || { echo "watcher_calls.sh: needs strace" >&2; exit 2; }
work="$(mktemp -d "${dir:-/tmp}/watcher-calls.XXXXXX")"
watcher="" tracer=""
cleanup() {
  [ -n "$tracer" ] && kill -INT "$tracer" 2>/dev/null
  [ -n "$watcher" ] && kill "$watcher" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$work"
  return 0
}
trap cleanup EXIT
target="$work/value.json"
"$demo" set --file "$target" 0 >/dev/null
"$demo" watch --file "$target" --integer --timeout 600 >"$work/watch.out" 2>/dev/null &
watcher=$!
for _ in $(seq 1000); do [ -s "$work/watch.out" ] && break; sleep 0.01; done
sleep 0.3
strace -f -c -p "$watcher" -o "$work/strace.txt" 2>/dev/null &
tracer=$!
sleep 1  # strace attached to every thread
"$demo" ping --file "$target" --count "$changes" --interval-microseconds $((interval_ms * 1000)) >/dev/null
last="$(cat "$target")"
for _ in $(seq 3000); do grep -q " $last\$" "$work/watch.out" && break; sleep 0.01; done
sleep 0.2
kill -INT "$tracer"
wait "$tracer" 2>/dev/null || true
tracer=""
seen=$(($(wc -l <"$work/watch.out") - 1))
echo "system calls of one watching process, $changes changes ${interval_ms} ms apart ($seen seen):"
awk -v n="$changes" '
  /^-|^%|^$/ { next }
  $NF == "total" { total = $4; next }
  { printf "%-22s %8d calls %7.2f per change\n", $NF, $4, $4 / n }
  END { printf "%-22s %8d calls %7.2f per change\n", "total", total, total / n }
' "$work/strace.txt"
