"""Times `shared-demo keys` on a suite of N keys and on an empty suite, with peak memory; then
opening N app-storage keys with Int defaults in a new suite (each default is stored: the first
open) and again in the same suite (the files are there: the re-open), with time and memory.

usage: suite_open.py DEMO DIR N [--probe RESOURCE_PROBE]
RESOURCE_PROBE defaults to `ResourceProbe` beside DEMO (both are built with the tests:
`swift build --build-tests`, or `swift build --product ResourceProbe`); without it the second
table is left out, with a note.

Prints, for the listing, one row per suite: keys, listed, wall milliseconds (best of 5), peak RSS
in MiB. For the opening, one row per pass (the median of 3 runs of each, a fresh suite for each
first open): wall and CPU milliseconds, the memory the keys added (RSS after opening less RSS
before, MiB), peak RSS (MiB), descriptors and memory mappings the process holds with every key
open.
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
    """One run of `resource-probe open`: (wall ms, CPU ms, added MiB, peak MiB, fds, maps)."""
    out = subprocess.run([probe, "open", suite, str(count)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"suite_open.py: resource-probe open failed: {out.stderr.strip()}")
    fields = dict((line.split(" ", 1)[0], line.split()[1:]) for line in out.stdout.splitlines())
    before = int(fields["before"][0])
    _, wall, cpu, rss, hwm, fds, maps = fields["opened"]
    return float(wall), float(cpu), (int(rss) - before) / 1024, int(hwm) / 1024, int(fds), int(maps)


print()
if not os.access(probe, os.X_OK):
    print(f"(opening {count} keys with Int defaults: no ResourceProbe at {probe}; build it with the tests)")
    sys.exit(0)
print(f"opening {count} app-storage keys with Int defaults (median of 3 runs)")
print(f"{'pass':>10} {'wall ms':>9} {'CPU ms':>9} {'added MiB':>10} {'peak MiB':>9} {'fds':>6} {'maps':>7}")
first, again = [], []
for run in range(3):
    suite = os.path.join(where, f"open-suite-{run}")
    shutil.rmtree(suite, ignore_errors=True)
    first.append(open_keys(suite))
    again.append(open_keys(suite))
    shutil.rmtree(suite)
for name, runs in (("first open", first), ("re-open", again)):
    medians = [statistics.median(run[i] for run in runs) for i in range(6)]
    wall, cpu, added, peak, fds, maps = medians
    print(f"{name:>10} {wall:>9.0f} {cpu:>9.0f} {added:>10.1f} {peak:>9.1f} {fds:>6.0f} {maps:>7.0f}")
