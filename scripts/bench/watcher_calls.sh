#!/usr/bin/env bash
# The system calls one watching process makes per change made elsewhere: `strace -f -c` attached
# to a `shared-demo watch --file F --integer` once it is watching, while `shared-demo ping` makes
# --changes changes --interval-ms apart. Prints strace's table with a column of calls per
# change, and the total. Prints figures, asserts nothing.
#
# With --value-bytes B, each change is instead a JSON string of about B bytes written by its own
# `shared-demo set` process (a value larger than the coordination page's 3968 bytes of contents
# makes the watcher read the file), and the watcher follows any JSON value.
#
# With --watcher-uid U (as root), the watcher runs as user U (setpriv) and the writes stay
# root's, in a directory U may read but not write: a reader that cannot write the lock file, as
# a user's program reading settings an administrator writes.
#
# usage: scripts/bench/watcher_calls.sh DEMO [--changes N] [--interval-ms M] [--dir DIR]
#                                      [--value-bytes B] [--watcher-uid U]
set -euo pipefail
demo="$1"
shift
changes=500
interval_ms=4
dir=""
value_bytes=""
as_watcher=()
while [ $# -gt 0 ]; do
  case "$1" in
    --changes) changes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --interval-ms) interval_ms="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --dir) dir="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --value-bytes) value_bytes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --watcher-uid) as_watcher=(setpriv "--reuid=$2" "--regid=$2" --clear-groups); shift 2 ;;
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
[ ${#as_watcher[@]} -eq 0 ] || chmod 755 "$work"
target="$work/value.json"
if [ -n "$value_bytes" ]; then
  pad="$(head -c "$value_bytes" /dev/zero | tr '\0' 'x')"
  "$demo" set --file "$target" "\"0$pad\"" >/dev/null
  "${as_watcher[@]}" "$demo" watch --file "$target" --timeout 600 >"$work/watch.out" 2>/dev/null &
else
  "$demo" set --file "$target" 0 >/dev/null
  "${as_watcher[@]}" "$demo" watch --file "$target" --integer --timeout 600 >"$work/watch.out" 2>/dev/null &
fi
watcher=$!
for _ in $(seq 1000); do [ -s "$work/watch.out" ] && break; sleep 0.01; done
sleep 0.3
strace -f -c -p "$watcher" -o "$work/strace.txt" 2>/dev/null &
tracer=$!
sleep 1  # strace attached to every thread
if [ -n "$value_bytes" ]; then
  for i in $(seq 1 "$changes"); do
    "$demo" set --file "$target" "\"$i$pad\"" >/dev/null
    sleep "$(awk -v m="$interval_ms" 'BEGIN { print m / 1000 }')"
  done
  for _ in $(seq 3000); do grep -q "\"$changes$pad\"\$" "$work/watch.out" && break; sleep 0.01; done
else
  "$demo" ping --file "$target" --count "$changes" --interval-microseconds $((interval_ms * 1000)) >/dev/null
  last="$(cat "$target")"
  for _ in $(seq 3000); do grep -q " $last\$" "$work/watch.out" && break; sleep 0.01; done
fi
sleep 0.2
kill -INT "$tracer"
wait "$tracer" 2>/dev/null || true
tracer=""
seen=$(($(wc -l <"$work/watch.out") - 1))
echo "system calls of one watching process, $changes changes ${interval_ms} ms apart ($seen seen):"
awk -v n="$changes" -v seen="$seen" '
  /^-|^%|^$/ { next }
  $NF == "total" { total = $4; next }
  { printf "%-22s %8d calls %7.2f per change\n", $NF, $4, $4 / n }
  END {
    printf "%-22s %8d calls %7.2f per change\n", "total", total, total / n
    if (seen > 0) printf "(%.2f per change seen: changes close together coalesce)\n", total / seen
  }
' "$work/strace.txt"
