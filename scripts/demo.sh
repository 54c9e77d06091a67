#!/usr/bin/env bash
# Sets up what the demo needs and runs it: the README's first command.
#
# One process watches a shared counter file while other processes change it: two increment it
# through withLock, one sets it, and a plain shell writes it. The watcher prints each change the
# moment it happens, with the time it took to arrive.
#
# usage: scripts/demo.sh [DIR]   (a fresh temporary directory unless DIR is given)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-system-packages.sh libinotifytools0-dev
echo "Building shared-demo ..." >&2
swift build --product shared-demo >&2
demo="$(swift build --show-bin-path)/shared-demo"

dir="${1:-}"
if [ -z "$dir" ]; then
  dir="$(mktemp -d)"
  trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
file="$dir/counter.json"
rm -f "$file"

echo "Shared file: $file"
echo
echo "Process A watches it (shared-demo watch); each line is '<unix-ns> <value>':"
watch_output="$(mktemp)"
"$demo" watch --file "$file" --timeout 60 >"$watch_output" &
watcher=$!
# Wait until A has printed the value it starts from, so that it sees every change below.
for _ in $(seq 300); do [ -s "$watch_output" ] && break; sleep 0.01; done
tail -n +1 -f "$watch_output" --pid "$watcher" | sed -u 's/^/  A: /' &
printer=$!

sleep 0.3
echo "Process B: shared-demo increment --times 5   (five withLock increments)"
"$demo" increment --file "$file" --times 5 >/dev/null
sleep 0.3
echo "Process C: shared-demo increment --times 10"
"$demo" increment --file "$file" --times 10 >/dev/null
sleep 0.3
echo "Process D: shared-demo set 100"
"$demo" set --file "$file" 100
sleep 0.3
echo "Process E: a plain shell: echo 42 > counter.json"
echo 42 >"$file"

# Give A a moment to show the last change, then stop it.
for _ in $(seq 300); do tail -n 1 "$watch_output" | grep -q ' 42$' && break; sleep 0.01; done
sleep 0.2
kill "$watcher" 2>/dev/null || true
wait "$watcher" 2>/dev/null || true
wait "$printer" 2>/dev/null || true
rm -f "$watch_output"
echo
echo "Final value, read by process F: $("$demo" get --file "$file")"
