"""Times `shared-demo keys` on a suite of N keys and on an empty suite, with peak memory.

usage: suite_open.py DEMO DIR N
Prints one row per suite: keys, listed, wall milliseconds (best of 5), peak RSS in MiB.
"""
import os
import shutil
import subprocess
import sys
import time

demo, where, count = sys.argv[1], sys.argv[2], int(sys.argv[3])


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
