"""Times `shared-demo keys` on a suite of N keys and on an empty suite, with peak memory; then
opening N app-storage keys with Int defaults in a new suite (each default is stored: the first
open) and again in the same suite (the files are there: the re-open), with time and memory, and
the same work done by a C program (the floor), in the same run and on the same file system.

usage: suite_open.py DEMO DIR N [--probe RESOURCE_PROBE] [--runs R]
RESOURCE_PROBE defaults to `ResourceProbe` beside DEMO (both are built with the tests:
`swift build --build-tests`, or `swift build --product ResourceProbe`); without it the second
table is left out, with a note. The floor is scripts/bench/suite_open_floor.c, compiled with `cc`
into DIR (left out, with a note, when there is no C compiler).

Prints, for the listing, one row per suite: keys, listed, wall milliseconds (best of 5), peak RSS
in MiB. For the opening, one row per pass (median of R runs, 3 by default, a fresh suite for
each first open, with the smallest and largest value of the runs): wall and CPU milliseconds
(CPU: user and system, the whole process), the memory the keys added (RSS after opening less RSS
before, MiB), peak RSS (MiB), descriptors and memory mappings the process holds with every key
open; then the floor's first open (the library's protocol: one new file renamed into place
per key), the floor of the protocol that took the lock for each first store (a lock file and a
scratch file per key), and the floor's re-open, wall and CPU.

The suites are removed only at the end: on ext4 without a journal (this machine's root file
system) a new inode is found by skipping every inode freed in the last minute or more, so a run
made just after removing 10 000 files measures that removal. (Other processes' removals still
count: compare with the floor of the same run. And this script's own removal at the end slows
every creation on that file system for the next minutes, the next run of this script's
included: hence few runs.)
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
probe = None
if "--probe" in args:
    at = args.index("--probe")
    probe = args[at + 1]
    del args[at : at + 2]
runs = 3
if "--runs" in args:
    at = args.index("--runs")
    runs = int(args[at + 1])
    del args[at : at + 2]
demo, where, count = args[0], args[1], int(args[2])
if probe is None:
    probe = os.path.join(os.path.dirname(os.path.abspath(demo)), "ResourceProbe")


def measure(suite):
    """Best wall time of five runs, and the largest peak RSS of any one of them."""
    best, listed, peak = None, 0, 0
    for _ in range(5):
        start = time.perf_counter()
        with open(os.path.join(where, "keys.out"), "w+b") as out:
            child = subprocess.Popen([demo, "keys", "--suite", suite], stdout=out)
            # wait4 gives this child's own peak RSS (KiB on Linux).
            _, status, usage = os.wait4(child.pid, 0)
            elapsed = time.perf_counter() - start
            if status != 0:
                sys.exit(f"suite_open.py: shared-demo keys failed on {suite}")
            out.seek(0)
            listed = len(out.read().splitlines())
        best = elapsed if best is None else min(best, elapsed)
        peak = max(peak, usage.ru_maxrss)
    os.remove(os.path.join(where, "keys.out"))
    return best * 1000, listed, peak / 1024


empty = os.path.join(where, "empty-suite")
full = os.path.join(where, "full-suite")
for path in (empty, full):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path, mode=0o700)
# Key files as the library writes them, with the lock file a library write leaves beside each.
for i in range(count):
    name = f"key-{i:05d}.json"
    with open(os.path.join(full, name), "w") as f:
        f.write(f"{i}\n")
    with open(os.path.join(full, f".{name}.sharedstate-lock"), "wb") as f:
        f.write(b"\x01" + b"\x00" * 7)

print(f"{'keys':>8} {'listed':>8} {'ms':>8} {'peak RSS MiB':>14}")
for path, keys in ((empty, 0), (full, count)):
    ms, listed, rss = measure(path)
    print(f"{keys:>8} {listed:>8} {ms:>8.1f} {rss:>14.1f}")
shutil.rmtree(empty)
shutil.rmtree(full)


def open_keys(suite):
    """One run of `ResourceProbe open`: (wall ms, CPU ms, added MiB, peak MiB, fds, maps)."""
    out = subprocess.run([probe, "open", suite, str(count)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"suite_open.py: ResourceProbe open failed: {out.stderr.strip()}")
    fields = dict((line.split(" ", 1)[0], line.split()[1:]) for line in out.stdout.splitlines())
    before = int(fields["before"][0])
    _, wall, cpu, rss, hwm, fds, maps = fields["opened"]
    return float(wall), float(cpu), (int(rss) - before) / 1024, int(hwm) / 1024, int(fds), int(maps)


def floor(*arguments):
    """One run of the C floor: (wall ms, CPU ms)."""
    out = subprocess.run([floor_program, *arguments], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"suite_open.py: suite_open_floor failed: {out.stderr.strip()}")
    _, _, _, wall, cpu = out.stdout.split()
    return float(wall), float(cpu)


print()
if not os.access(probe, os.X_OK):
    print(f"(opening {count} keys with Int defaults: no ResourceProbe at {probe}; build it with the tests)")
    sys.exit(0)
floor_program = os.path.join(where, "suite_open_floor")
floor_source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "suite_open_floor.c")
built = subprocess.run(["cc", "-O2", "-pthread", "-o", floor_program, floor_source], capture_output=True)
if built.returncode != 0:
    floor_program = None

made = []


def fresh_suite(name):
    suite = os.path.join(where, name)
    shutil.rmtree(suite, ignore_errors=True)
    made.append(suite)
    return suite


# Interleaved, so that the library and its floor meet the same load and the same file system.
first, again, floor_first, floor_locked, floor_again = [], [], [], [], []
for run in range(runs):
    suite = fresh_suite(f"open-suite-{run}")
    first.append(open_keys(suite))
    again.append(open_keys(suite))
    if floor_program:
        suite = fresh_suite(f"floor-suite-{run}")
        floor_first.append(floor("first", suite, str(count)))
        floor_again.append(floor("again", suite, str(count)))
        floor_locked.append(floor("first", fresh_suite(f"floor-locked-suite-{run}"), str(count), "locked"))


def spread(values, form):
    return f"{form.format(statistics.median(values))} ({form.format(min(values))}-{form.format(max(values))})"


print(f"opening {count} app-storage keys with Int defaults: median (smallest-largest) of {runs} runs")
print(f"{'pass':>19} {'wall ms':>18} {'CPU ms':>18} {'added MiB':>18} {'peak MiB':>9} {'fds':>5} {'maps':>6}")
for name, rows in (("first open", first), ("re-open", again)):
    columns = list(zip(*rows))
    print(
        f"{name:>19} {spread(columns[0], '{:.0f}'):>18} {spread(columns[1], '{:.0f}'):>18} "
        f"{spread(columns[2], '{:.1f}'):>18} {statistics.median(columns[3]):>9.1f} "
        f"{statistics.median(columns[4]):>5.0f} {statistics.median(columns[5]):>6.0f}"
    )
if not floor_program:
    print("(the C floor is left out: no C compiler)")
for name, rows in (("floor first open", floor_first), ("floor, lock per key", floor_locked), ("floor re-open", floor_again)):
    if rows:
        columns = list(zip(*rows))
        print(f"{name:>19} {spread(columns[0], '{:.0f}'):>18} {spread(columns[1], '{:.0f}'):>18}")
for suite in made:
    shutil.rmtree(suite, ignore_errors=True)
if floor_program:
    os.remove(floor_program)
