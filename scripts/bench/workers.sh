# Helpers shared by the benchmark scripts; sourced, not run.

# now: the time in nanoseconds.
now() { date +%s%N; }

# release_demo: builds shared-demo in release mode (in SWIFT_SCRATCH_PATH when it is set, else
# .build) and prints its path, for a script given no --demo.
release_demo() {
  local scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
  echo "Building shared-demo in release mode ..." >&2
  swift build "${scratch[@]}" -c release --product shared-demo >&2
  echo "$(swift build "${scratch[@]}" -c release --show-bin-path)/shared-demo"
}

# finish_workers SCRIPT KIND START_NS COUNT PID...: waits for the workers of one timed run and
# prints operations per second; stops the benchmark when a worker failed, since its figure
# would be wrong.
finish_workers() {
  local script="$1" kind="$2" start="$3" count="$4" failed=0 end
  shift 4
  for pid in "$@"; do wait "$pid" || failed=1; done
  end=$(now)
  if [ "$failed" -ne 0 ]; then
    echo "$script: a $kind worker failed; its figure would be wrong" >&2
    exit 1
  fi
  awk -v n="$count" -v ns=$((end - start)) 'BEGIN { printf "%.0f", n / (ns / 1e9) }'
}

# ping_latency DEMO PINGS FSYNC TARGET...: from `shared-demo ping` in one process to the change
# seen by `shared-demo watch` in another, both on TARGET (e.g. --file F, --suite D --key K);
# FSYNC is --fsync or empty. The watcher reads any JSON value, or, with PING_WATCH_INTEGER=yes,
# the integer that `ping` stores. Prints 'count p50_us p99_us max_us'; with PING_SAMPLES=FILE it
# also keeps every latency (µs, one per line) in FILE.
ping_latency() {
  local demo="$1" pings="$2" fsync="$3" output watcher
  shift 3
  # Start from an existing value: creating the directory makes the watcher rebuild its watches,
  # and writes made meanwhile coalesce into fewer changes than PINGS.
  "$demo" set "$@" 0
  output="$(mktemp)"
  local as_integer=()
  [ "${PING_WATCH_INTEGER:-no}" = yes ] && as_integer=(--integer)
  "$demo" watch "$@" "${as_integer[@]}" --timeout 300 >"$output" 2>/dev/null &
  watcher=$!
  # The watcher is ready once it has printed the value it starts from.
  for _ in $(seq 500); do [ -s "$output" ] && break; sleep 0.01; done
  "$demo" ping "$@" --count "$pings" --interval-microseconds 2000 $fsync >/dev/null
  # Writes can coalesce, so the watcher may see fewer changes than pings: mark the end with one
  # more write and stop the watcher once it has seen it.
  "$demo" set "$@" -- -1
  for _ in $(seq 1000); do tail -n 1 "$output" | grep -q ' -1$' && break; sleep 0.01; done
  kill "$watcher" 2>/dev/null || true
  wait "$watcher" 2>/dev/null || true
  local samples=()
  [ -n "${PING_SAMPLES:-}" ] && samples=(--samples "$PING_SAMPLES")
  python3 "$(dirname "${BASH_SOURCE[0]}")/latency.py" "${samples[@]}" <"$output"
  rm -f "$output"
}
