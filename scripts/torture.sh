#!/usr/bin/env bash
# kill -9 torture: PROCESSES shared-demo processes increment one counter with withLock, each
# printing "done K" after its K-th increment is stored, while this script kills them with
# SIGKILL at random moments and starts new ones, for ROUNDS rounds. Then it checks that the file
# decodes and that the count is at least the increments reported done (and at most those
# attempted). Ends with one line:
#   torture: kind=K rounds=R kills=N reported=X attempted=Y final=Z ok|FAILED
#
# usage: scripts/torture.sh [--processes N] [--rounds R] [--suite] [--release]
#   --suite  app storage (a key of a suite) instead of a file
set -euo pipefail
cd "$(dirname "$0")/.."

processes=4
rounds=20
kind=file
configuration=debug
while [ $# -gt 0 ]; do
  case "$1" in
    --processes) processes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --rounds) rounds="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --suite) kind=app; shift ;;
    --release) configuration=release; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "torture.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
swift build "${scratch[@]}" -c "$configuration" --product shared-demo >&2
demo="$(swift build "${scratch[@]}" -c "$configuration" --show-bin-path)/shared-demo"

dir="$(mktemp -d)"
trap 'kill -9 $(jobs -p) 2>/dev/null || true; rm -rf "$dir"' EXIT
if [ "$kind" = app ]; then target=(--suite "$dir/suite" --key counter); else target=(--file "$dir/counter.json"); fi

reported=0
attempted=0
kills=0
worker=0
declare -A running=()
start_worker() {
  worker=$((worker + 1))
  "$demo" increment "${target[@]}" --times 100000 --report-each >"$dir/out.$worker" 2>&1 &
  running[$!]=$worker
}
for _ in $(seq "$processes"); do start_worker; done
for _ in $(seq "$rounds"); do
  sleep "0.$((RANDOM % 30 + 5))"
  pids=("${!running[@]}")
  victim="${pids[$((RANDOM % ${#pids[@]}))]}"
  kill -9 "$victim" 2>/dev/null || true
  wait "$victim" 2>/dev/null || true
  kills=$((kills + 1))
  unset "running[$victim]"
  start_worker
done
for pid in "${!running[@]}"; do kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done

# Each worker's last "done K": stored for sure. One more may have been stored unreported.
for file in "$dir"/out.*; do
  last=$(grep -a -o '^done [0-9]*' "$file" | tail -n 1 | cut -d' ' -f2 || true)
  reported=$((reported + ${last:-0}))
  attempted=$((attempted + ${last:-0} + 1))
done
final="$("$demo" get "${target[@]}" 2>&1)" || { echo "torture: kind=$kind the file does not decode: $final"; exit 1; }
status=ok
case "$final" in ''|*[!0-9]*) status=FAILED ;; esac
if [ "$status" = ok ] && { [ "$final" -lt "$reported" ] || [ "$final" -gt "$attempted" ]; }; then status=FAILED; fi
echo "torture: kind=$kind rounds=$rounds kills=$kills reported=$reported attempted=$attempted final=$final $status"
[ "$status" = ok ]
