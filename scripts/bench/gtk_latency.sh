#!/usr/bin/env bash
# The GTK demo's figures, on a virtual display (Xvfb). Prints figures; asserts nothing.
#
#   latency   from a `withLock` in one process (the writer stamps the suite's `last-change` with
#             its clock inside the lock) to the status label's update on the main loop of a
#             shared-demo-gtk window in another process: p50, p99, max over --writes writes,
#             --interval-ms apart; writes that arrive while a render is pending collapse into
#             it, so "shown" may be fewer than the writes. Beside it, the same from `shared-demo
#             ping` to `shared-demo watch` (terminal to terminal) unless --no-terminal.
#   idle CPU  of a window that shows a suite and does nothing, over --idle-seconds: its user and
#             system time from /proc/PID/stat, exited threads included, in clock ticks (10 ms
#             each: over the default 30 s, one tick is 0.03 %).
#
# usage: scripts/bench/gtk_latency.sh [--writes N] [--interval-ms MS] [--idle-seconds S]
#                                     [--debug] [--no-terminal]
#   --writes        writes for the latency (default 1000)
#   --interval-ms   between writes (default 5)
#   --idle-seconds  the idle window (default 30)
#   --debug         debug builds (quicker to build; slower to run)
#   --no-terminal   skip the terminal-to-terminal figure (it builds shared-demo, with PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/../.."

writes=1000
interval=5
idle_seconds=30
configuration=release
terminal=yes
while [ $# -gt 0 ]; do
  case "$1" in
    --writes) writes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --interval-ms) interval="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --idle-seconds) idle_seconds="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --debug) configuration=debug; shift ;;
    --no-terminal) terminal=no; shift ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gtk_latency.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

scripts/ensure-system-packages.sh libinotifytools0-dev libgtk-4-dev xvfb python3
echo "Building ($configuration) ..." >&2
scratch=(${SWIFT_SCRATCH_PATH:+--scratch-path "$SWIFT_SCRATCH_PATH"})
swift build "${scratch[@]}" -c "$configuration" --product shared-demo-gtk >&2
swift build "${scratch[@]}" -c "$configuration" --product SharedGLibProbe >&2
bin="$(swift build "${scratch[@]}" -c "$configuration" --show-bin-path)"

work="$(mktemp -d "${TMPDIR:-/tmp}/gtk-latency.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# A display of our own: Xvfb picks a free number and writes it on the descriptor given.
Xvfb -displayfd 3 -screen 0 1000x700x24 -nolisten tcp 3>"$work/display" 2>/dev/null &
pids+=($!)
for _ in $(seq 500); do [ -s "$work/display" ] && break; sleep 0.01; done
export DISPLAY=":$(head -1 "$work/display")" GDK_BACKEND=x11 GSK_RENDERER=cairo NO_AT_BRIDGE=1
export DBUS_SESSION_BUS_ADDRESS=disabled:

# One window; it prints "latency sequence=N ns=T" for each change from another process it shows.
SHARED_DEMO_GTK_REPORT=1 "$bin/shared-demo-gtk" --suite "$work/suite" >"$work/window" 2>/dev/null &
window=$!
pids+=($window)
for _ in $(seq 3000); do grep -q '^layout' "$work/window" && break; sleep 0.01; done

# Idle: the window's CPU time over the idle window (fields 14 and 15 of /proc/PID/stat; the
# command name, field 2, has no spaces here).
cpu_ticks() { awk '{ print $14 + $15 }' /proc/"$window"/stat; }
sleep 1
before="$(cpu_ticks)"
sleep "$idle_seconds"
after="$(cpu_ticks)"
python3 -c "
ticks = $after - $before
used = ticks / $(getconf CLK_TCK)
print(f'gtk window idle CPU over {$idle_seconds} s: {ticks} ticks = {used * 1000:.0f} ms ({used / $idle_seconds * 100:.2f} %)')"

# Latency: the writer's withLock to the window's render of the change.
"$bin/SharedGLibProbe" bench-writer "$work/suite" "$writes" "$interval" >/dev/null
sleep 0.5
sed -n 's/^latency sequence=[0-9]* ns=//p' "$work/window" | python3 -c "
import sys
values = sorted(int(line) / 1000 for line in sys.stdin if line.strip())
if not values:
    print('gtk latency: nothing shown'); sys.exit(0)
def percentile(p):
    return values[min(len(values) - 1, max(0, round(p / 100 * len(values)) - 1))]
print(f'gtk latency (withLock -> label on the other main loop) over {$writes} writes {$interval} ms apart, '
      f'{len(values)} shown: p50={percentile(50):.0f}us p99={percentile(99):.0f}us max={values[-1]:.0f}us')"

if [ "$terminal" = yes ]; then
  swift build "${scratch[@]}" -c "$configuration" --product shared-demo >&2
  . scripts/bench/workers.sh  # ping_latency
  read -r count p50 p99 max < <(ping_latency "$bin/shared-demo" "$writes" "" --suite "$work/terminal" --key ping)
  echo "terminal latency (shared-demo ping -> shared-demo watch) over $count writes: p50=${p50}us p99=${p99}us max=${max}us"
fi
