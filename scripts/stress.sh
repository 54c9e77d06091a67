#!/usr/bin/env bash
# Runs N shared-demo processes at once, each doing M withLock increments of one counter, and
# checks that none was lost. Ends with exactly one line:
#   stress: processes=N increments=M expected=X actual=Y lost=Z seconds=S ops_per_second=R
# and exits non-zero when lost is not 0.
#
# usage: scripts/stress.sh [--processes N] [--increments M] [--dir DIR | --suite DIR] [--release]
#   --dir DIR    file storage: the counter is DIR/stress-counter.json (default: a fresh directory)
#   --suite DIR  app storage: the counter is the key "stress-counter" of the suite in DIR
set -euo pipefail
cd "$(dirname "$0")/.."

processes=8
increments=1000
dir=""
suite=""
configuration=debug
while [ $# -gt 0 ]; do
  case "$1" in
    --processes) processes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --increments) increments="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --dir) dir="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --suite) suite="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --release) configuration=release; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "stress.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$processes$increments" in
  *[!0-9]*) echo "stress.sh: --processes and --increments take whole numbers" >&2; exit 2 ;;
esac
if [ -n "$dir" ] && [ -n "$suite" ]; then
  echo "stress.sh: give --dir or --suite, not both" >&2; exit 2
fi

scripts/ensure-system-packages.sh libinotifytools0-dev
# SWIFT_SCRATCH_PATH picks a build folder other than .build.
scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
swift build "${scratch[@]}" -c "$configuration" --product shared-demo >&2
demo="$(swift build "${scratch[@]}" -c "$configuration" --show-bin-path)/shared-demo"

if [ -n "$suite" ]; then
  # The suite creates its directory (owner-only) on the first write.
  target=(--suite "$suite" --key stress-counter)
  rm -f "$suite/stress-counter.json"
else
  if [ -z "$dir" ]; then
    dir="$(mktemp -d)"
    trap 'rm -rf "$dir"' EXIT
  fi
  mkdir -p "$dir"
  target=(--file "$dir/stress-counter.json")
  rm -f "$dir/stress-counter.json"
fi

# Start together, shortly after every process has been launched.
start_at=$(( $(date +%s%N) + 500000000 ))
pids=()
for _ in $(seq "$processes"); do
  "$demo" increment "${target[@]}" --times "$increments" --start-at "$start_at" >/dev/null &
  pids+=("$!")
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=$((failed + 1))
done
end=$(date +%s%N)

expected=$((processes * increments))
actual=$("$demo" get "${target[@]}")
case "$actual" in ''|*[!0-9]*) actual=0 ;; esac
lost=$((expected - actual))
elapsed_ns=$((end - start_at))
seconds=$(awk -v ns="$elapsed_ns" 'BEGIN { printf "%.3f", ns / 1e9 }')
rate=$(awk -v n="$actual" -v ns="$elapsed_ns" 'BEGIN { printf "%.0f", (ns > 0 ? n / (ns / 1e9) : 0) }')
if [ "$failed" -ne 0 ]; then
  echo "stress.sh: $failed of $processes worker processes failed" >&2
fi
echo "stress: processes=$processes increments=$increments expected=$expected actual=$actual lost=$lost seconds=$seconds ops_per_second=$rate"
[ "$lost" -eq 0 ] && [ "$failed" -eq 0 ]
