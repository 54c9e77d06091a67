# Helpers shared by the benchmark scripts; sourced, not run.

# now: the time in nanoseconds.
now() { date +%s%N; }

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
