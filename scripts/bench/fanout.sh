#!/usr/bin/env bash
# Fan-out: what one change costs when many processes watch the same file (a desktop where every
# program follows the theme key). For each N: N processes of the library (`shared-demo watch
# --file F --integer`) watch one file while one writer (`shared-demo ping`) makes --changes
# changes, --interval-ms apart; then, in the same run, N of the C floor
# (scripts/bench/watch_floor.c) do the same. Each program runs --rounds times, in turns whose order
# alternates (library first, then the floor first, ...), and each figure is the median over its
# rounds. Prints a markdown table per N: CPU per watching process per change (µs, all its threads,
# from /proc/PID/task/*/schedstat), and the time from a write to the last of the N watchers that
# saw it, p50 and p99 (ms), for both programs and their ratio. Prints figures, asserts nothing.
#
# Why in turns and not side by side: the scheduler wakes first the processes that used the least
# CPU, so with both programs watching at once, every floor watcher runs before any library
# watcher: the library's latency then counts the floor's work too, which no user of either
# program pays. `--side-by-side` measures that way all the same (both programs at once, one
# round), and also prints how often every floor watcher printed before the first library watcher.
#
# usage: scripts/bench/fanout.sh [--watchers "1 16 64"] [--changes N] [--interval-ms M]
#                                [--rounds R] [--side-by-side] [--dir DIR]
#                                [--demo PATH-TO-shared-demo] [--tsv FILE]
#   --watchers   the values of N (default "1 16 64")
#   --changes    how many changes the writer makes in each turn (default 500)
#   --interval-ms  the pause between two changes (default 5)
#   --rounds     how many turns each program gets for each N (default 2)
#   --side-by-side  both programs watch at once, in one turn (see above)
#   --dir        where the watched files live (default: a fresh directory under /tmp)
#   --demo       the shared-demo to run (default: this checkout's, built in release mode)
#   --tsv FILE   also write 'watchers program cpu_us_per_change p50_ms p99_ms' rows (tab
#                separated, with that header; program is 'SharedState' or 'C floor')
#
# Run as root, each program's watchers run as a user of their own (uids 61001 and 61002, with
# setpriv), so that 2 x 64 watchers fit inotify's per-user limit of instances
# (fs.inotify.max_user_instances, 128 by default) without changing it for the whole machine.
set -euo pipefail
cd "$(dirname "$0")/../.."

watchers="1 16 64"
changes=500
interval_ms=5
rounds=2
side_by_side=no
dir=""
demo=""
tsv=""
while [ $# -gt 0 ]; do
  case "$1" in
    --watchers) watchers="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --changes) changes="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --interval-ms) interval_ms="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --rounds) rounds="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --side-by-side) side_by_side=yes; shift ;;
    --dir) dir="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --demo) demo="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    --tsv) tsv="${2:?$1 needs a value (see --help)}"; shift 2 ;;
    -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fanout.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
case "$watchers" in
  *[!0-9\ ]*|"") echo "fanout.sh: --watchers takes whole numbers separated by spaces, such as \"1 16 64\"" >&2; exit 2 ;;
esac
case "$changes$interval_ms$rounds" in
  *[!0-9]*) echo "fanout.sh: --changes, --interval-ms and --rounds take whole numbers" >&2; exit 2 ;;
esac
[ "$rounds" -ge 1 ] || { echo "fanout.sh: --rounds takes a number of at least 1" >&2; exit 2; }

if [ -z "$demo" ]; then
  . scripts/bench/workers.sh  # release_demo
  demo="$(release_demo)"
fi
[ -x "$demo" ] || { echo "fanout.sh: '$demo' is not an executable shared-demo" >&2; exit 2; }

made_dir=no
if [ -z "$dir" ]; then
  dir="$(mktemp -d /tmp/fanout.XXXXXX)"
  chmod 755 "$dir"
  made_dir=yes
fi
work="$(mktemp -d "$dir/fanout-run.XXXXXX")"
cleanup() {
  rm -rf "$work"
  [ "$made_dir" = yes ] && rm -rf "$dir"
  return 0
}
trap cleanup EXIT
floor="$work/watch_floor"
cc -O2 -pthread -o "$floor" scripts/bench/watch_floor.c
chmod 755 "$work" "$floor"

PYTHONPATH="$PWD/scripts/bench${PYTHONPATH:+:$PYTHONPATH}" \
python3 - "$demo" "$floor" "$work" "$watchers" "$changes" "$interval_ms" "$rounds" "$side_by_side" "$tsv" <<'PYTHON'
import os
import signal
import subprocess
import sys
import time

from proc_times import cpu_ns, threads

demo, floor, work, watcher_counts, changes, interval_ms, rounds, side_by_side, tsv = sys.argv[1:]
changes, interval_ms, rounds = int(changes), int(interval_ms), int(rounds)
side_by_side = side_by_side == "yes"
counts = [int(n) for n in watcher_counts.split()]

# Each program's processes under a user of their own when we can (see the script's comment).
if os.geteuid() == 0:
    as_user = lambda uid: ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    library_user, floor_user = as_user(61001), as_user(61002)
else:
    library_user = floor_user = []


def lines_of(path):
    with open(path) as f:
        return f.read().split("\n")


def received(path):
    """[(sent_ns, received_ns)] of one watcher's output, in the order it printed them."""
    seen = []
    for line in lines_of(path)[1:]:  # the first line is the value watching started from
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and int(parts[1]) >= 10**18:
            seen.append((int(parts[1]), int(parts[0])))
    return seen


def wait_until(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    sys.exit(f"fanout.sh: {what} did not happen within {seconds} seconds")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(p / 100.0 * len(values)) - 1))]


def to_last_watcher(outputs, sent):
    """For each change, the time from its write to the last watcher that took it in, in ms.
    Changes coalesce (a watcher may see only the later of two close writes): a watcher took a
    change in when it printed that value or any later one."""
    arrivals = [received(path) for path in outputs]
    latencies = []
    for value in sent:
        last = 0
        for seen in arrivals:
            at = next((r for s, r in seen if s >= value), None)
            if at is None:
                sys.exit("fanout.sh: a watcher never saw the last change")
            last = max(last, at)
        latencies.append((last - value) / 1e6)
    return latencies


def run(n, wanted, turn):
    """One turn: N watchers of each program in `wanted` watch one file while the writer makes its
    changes. Returns ({program: (cpu, p50, p99)}, changes seen, how often every floor watcher
    printed a change before the first library watcher did, when both programs watched)."""
    place = os.path.join(work, f"n{n}-{turn}")
    os.mkdir(place)
    os.chmod(place, 0o777)
    target = os.path.join(place, "value.json")
    subprocess.run(library_user + [demo, "set", "--file", target, "0"], check=True, stdout=subprocess.DEVNULL)
    commands = {
        "SharedState": lambda: library_user + [demo, "watch", "--file", target, "--integer", "--timeout", "3600"],
        "C floor": lambda: floor_user + [floor, "watch", place, "value.json"],
    }
    programs = {program: [] for program in wanted}
    processes = []
    try:
        for i in range(n):
            for program in wanted:
                out = os.path.join(place, f"{'library' if program == 'SharedState' else 'floor'}-{i}.out")
                with open(out, "w") as stdout, open(out + ".err", "w") as stderr:
                    processes.append(subprocess.Popen(commands[program](), stdout=stdout, stderr=stderr))
                programs[program].append((processes[-1], out))
        everyone = [entry for entries in programs.values() for entry in entries]

        def all_ready():
            for process, out in everyone:
                if process.poll() is not None:
                    sys.exit(f"fanout.sh: a watcher ended before the writes: {open(out + '.err').read().strip()}")
            return all(os.path.getsize(out) > 0 for _, out in everyone)

        wait_until(all_ready, 300, f"the start of {len(everyone)} watchers")
        time.sleep(0.5)  # their start-up work done
        before = {process.pid: cpu_ns(process.pid) for process, _ in everyone}
        threads_before = {process.pid: threads(process.pid) for process, _ in everyone}
        subprocess.run(library_user + [demo, "ping", "--file", target, "--count", str(changes),
                                       "--interval-microseconds", str(interval_ms * 1000)],
                       check=True, stdout=subprocess.DEVNULL)
        last = int(open(target).read().strip())
        wait_until(lambda: all(any(s >= last for s, _ in received(out)) for _, out in everyone), 300,
                   "the last change reaching every watcher")
        time.sleep(0.05)  # each has finished its work on it
        after = {process.pid: cpu_ns(process.pid) for process, _ in everyone}
        for program, entries in programs.items():
            ended = sum(len(threads_before[p.pid] - threads(p.pid)) for p, _ in entries)
            if ended:
                print(f"note: {ended} threads of the {program} watchers ended during the run; "
                      "their CPU time is not counted, so its CPU figure is too low", file=sys.stderr)
        # The changes made: the writer's values, as the watchers printed them.
        sent = sorted({s for _, out in everyone for s, _ in received(out)})
        figures = {}
        for program, entries in programs.items():
            cpu = sum(after[p.pid] - before[p.pid] for p, _ in entries) / len(entries) / changes / 1000
            latencies = to_last_watcher([out for _, out in entries], sent)
            figures[program] = (cpu, percentile(latencies, 50), percentile(latencies, 99))
        floor_first = None
        if len(programs) == 2:
            floor_first = floor_before_library([out for _, out in programs["C floor"]],
                                               [out for _, out in programs["SharedState"]], sent)
        # The end marker ends the floor's watchers.
        subprocess.run(library_user + [demo, "set", "--file", target, "--", "-1"], check=True, stdout=subprocess.DEVNULL)
        for process, _ in programs.get("C floor", []):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        return figures, len(sent), floor_first
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def floor_before_library(floor_outputs, library_outputs, sent):
    """The share of the changes every watcher printed (as that value) that every floor watcher
    printed before the first library watcher did."""
    floors = [dict(received(path)) for path in floor_outputs]
    libraries = [dict(received(path)) for path in library_outputs]
    both = [value for value in sent if all(value in seen for seen in floors + libraries)]
    if not both:
        return None
    first = sum(1 for value in both
                if max(seen[value] for seen in floors) < min(seen[value] for seen in libraries))
    return first / len(both)


def median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2


rows = []
for n in counts:
    every = {"SharedState": [], "C floor": []}
    seen_counts = []
    notes = []
    if side_by_side:
        figures, seen, floor_first = run(n, ["SharedState", "C floor"], 0)
        for program, figure in figures.items():
            every[program].append(figure)
        seen_counts.append(seen)
        if floor_first is not None:
            notes.append(f"every floor watcher printed before the first library watcher for "
                         f"{floor_first * 100:.0f} % of the changes")
        how = "both programs at once"
    else:
        for turn in range(rounds):
            order = ["SharedState", "C floor"] if turn % 2 == 0 else ["C floor", "SharedState"]
            for index, program in enumerate(order):
                figures, seen, _ = run(n, [program], 2 * turn + index)
                every[program].append(figures[program])
                seen_counts.append(seen)
        how = f"each program alone, {rounds} turn{'s' if rounds != 1 else ''} each, alternating; medians"
    library, c = ([median(figure[i] for figure in every[program]) for i in range(3)]
                  for program in ("SharedState", "C floor"))
    ratio = lambda a, b: f"{a / b:.2f}x" if b > 0 else "n/a"
    print()
    print(f"fan-out, {n} watching process{'es' if n != 1 else ''}, one file, {changes} changes "
          f"{interval_ms} ms apart by `shared-demo ping` ({min(seen_counts)}-{max(seen_counts)} seen); {how}")
    print()
    print("| | SharedState | C floor | ratio |")
    print("|---|---|---|---|")
    print(f"| CPU per watching process per change (µs) | {library[0]:.1f} | {c[0]:.1f} | {ratio(library[0], c[0])} |")
    print(f"| write → last watcher, p50 (ms) | {library[1]:.2f} | {c[1]:.2f} | {ratio(library[1], c[1])} |")
    print(f"| write → last watcher, p99 (ms) | {library[2]:.2f} | {c[2]:.2f} | {ratio(library[2], c[2])} |")
    if len(every["SharedState"]) > 1:
        spread = lambda program, i, unit: "–".join(f"{x:.{unit}f}" for x in (
            min(f[i] for f in every[program]), max(f[i] for f in every[program])))
        print(f"\nspread over the turns: CPU {spread('SharedState', 0, 1)} / {spread('C floor', 0, 1)} µs, "
              f"p50 {spread('SharedState', 1, 2)} / {spread('C floor', 1, 2)} ms (SharedState / C floor)")
    for note in notes:
        print(f"\n{note}")
    sys.stdout.flush()
    rows.append((n, "SharedState", library))
    rows.append((n, "C floor", c))

if tsv:
    with open(tsv, "w") as f:
        f.write("watchers\tprogram\tcpu_us_per_change\tp50_ms\tp99_ms\n")
        for n, program, (cpu, p50, p99) in rows:
            f.write(f"{n}\t{program}\t{cpu:.2f}\t{p50:.3f}\t{p99:.3f}\n")
PYTHON
