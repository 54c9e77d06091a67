#!/usr/bin/env bash
# What a change costs one watching process, split into what the language costs and what the
# library's layers cost: three watchers of one file, side by side, the same writes for all three
# (`shared-demo ping`): the library (`shared-demo watch --file F --integer`), the C floor's
# watcher (scripts/bench/watch_floor.c) and the same loop in Swift (scripts/bench/watch_loop.swift,
# built with `swiftc -O`). Each round starts them in another order; prints, for each pause
# between changes, the median CPU per change of each (µs, all its threads, from
# /proc/PID/task/*/schedstat) and the median of its ratio to the C floor's in each round.
# Prints figures, asserts nothing.
#
# usage: scripts/bench/language_cost.sh [--demo PATH-TO-shared-demo] [--rounds R] [--changes N]
#                                       [--intervals-us "1000 5000"]
set -euo pipefail
cd "$(dirname "$0")/../.."

demo=""
rounds=6
changes=1500
intervals="1000 5000"
while [ $# -gt 0 ]; do
  case "$1" in
    --demo) demo="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --rounds) rounds="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --changes) changes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --intervals-us) intervals="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "language_cost.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$rounds$changes${intervals// /}" in
  *[!0-9]*|"") echo "language_cost.sh: --rounds, --changes and --intervals-us take whole numbers" >&2; exit 2 ;;
esac
if [ -z "$demo" ]; then
  . scripts/bench/workers.sh  # release_demo
  demo="$(release_demo)"
fi
work="$(mktemp -d /dev/shm/language-cost.XXXXXX 2>/dev/null || mktemp -d /tmp/language-cost.XXXXXX)"
trap 'rm -rf "$work"' EXIT
cc -O2 -pthread -o "$work/watch_floor" scripts/bench/watch_floor.c
swiftc -O -module-cache-path "$work/module-cache" -o "$work/watch_loop" scripts/bench/watch_loop.swift

PYTHONPATH="$PWD/scripts/bench${PYTHONPATH:+:$PYTHONPATH}" \
python3 - "$demo" "$work" "$rounds" "$changes" "$intervals" <<'PYTHON'
import os, statistics, subprocess, sys, time
from proc_times import cpu_ns

demo, work, rounds, changes, intervals = sys.argv[1:]
rounds, changes = int(rounds), int(changes)
programs = [
    ("SharedState", lambda d, f: [demo, "watch", "--file", f, "--integer"]),
    ("Swift loop", lambda d, f: [os.path.join(work, "watch_loop"), d, "value.json"]),
    ("C floor", lambda d, f: [os.path.join(work, "watch_floor"), "watch", d, "value.json"]),
]
print(f"\nCPU per change of one watching process (µs), {changes} changes per round, {rounds} rounds, "
      "the three side by side: medians, and the median of each round's ratio to the C floor\n")
print("| pause between changes | " + " | ".join(name for name, _ in programs) + " |")
print("|---|" + "---|" * len(programs))
for interval in (int(i) for i in intervals.split()):
    figures = {name: [] for name, _ in programs}
    for round in range(rounds):
        place = os.path.join(work, f"i{interval}-r{round}")
        os.mkdir(place)
        target = os.path.join(place, "value.json")
        subprocess.run([demo, "set", "--file", target, "0"], check=True, stdout=subprocess.DEVNULL)
        order = programs[round % 3:] + programs[:round % 3]
        running = {}
        try:
            for name, command in order:
                running[name] = subprocess.Popen(command(place, target), stdout=subprocess.DEVNULL)
            time.sleep(0.8)  # each is watching, its start-up done
            before = {name: cpu_ns(p.pid) for name, p in running.items()}
            subprocess.run([demo, "ping", "--file", target, "--count", str(changes),
                            "--interval-microseconds", str(interval)], check=True, stdout=subprocess.DEVNULL)
            time.sleep(0.2)
            for name, p in running.items():
                figures[name].append((cpu_ns(p.pid) - before[name]) / changes / 1000)
        finally:
            for p in running.values():
                p.kill()
                p.wait()
    # The ratio is taken in each round, where the three saw the same writes, then its median.
    ratio = lambda name: statistics.median(a / c for a, c in zip(figures[name], figures["C floor"]))
    cells = [f"{statistics.median(figures[name]):.1f} ({ratio(name):.2f}x)" for name, _ in programs]
    print(f"| {interval / 1000:g} ms | " + " | ".join(cells) + " |", flush=True)
PYTHON
