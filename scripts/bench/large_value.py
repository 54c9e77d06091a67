"""The memory a watching process holds after one change of a large value.

usage: large_value.py DEMO DIR [--megabytes 24] [--probe RESOURCE_PROBE] [--runs 1]

Starts `shared-demo watch --file DIR/large.json` (the value as any JSON, printed whole) and, when
RESOURCE_PROBE is there (default: `ResourceProbe` beside DEMO), `resource-probe watch-large`
(the value as a Swift String, its length printed); replaces the file with a JSON string of
--megabytes MB as a program writing it whole does (a new file renamed over it), waits until each
watcher has printed the change, and prints for each watcher: VmRSS before the change, VmHWM (peak)
and VmRSS once the change is printed, and the same figures over the file's size. With --runs N
it does all of that N times (new watchers each time) and prints one row per watcher and run.

"peak/file" is the whole peak over the file's size (the program's own baseline included);
"held/file" is what the change added and left held (RSS after less RSS before) over the size;
"CPU ms" the CPU time the watcher spent from the change until it was measured (10 ms ticks).
"""
import json
import os
import subprocess
import sys
import time

args = sys.argv[1:]


def option(name, default):
    if name in args:
        at = args.index(name)
        value = args[at + 1]
        del args[at : at + 2]
        return value
    return default


megabytes = int(option("--megabytes", "24"))
runs = int(option("--runs", "1"))
demo, where = args[0], args[1]
probe = option("--probe", os.path.join(os.path.dirname(os.path.abspath(demo)), "ResourceProbe"))
path = os.path.join(where, "large.json")
os.makedirs(where, exist_ok=True)
for stale in (path,):
    if os.path.exists(stale):
        os.remove(stale)


def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as status:
        for row in status:
            name, _, rest = row.partition(":")
            if name in ("VmRSS", "VmHWM"):
                fields[name] = int(rest.split()[0])
    return fields


def cpu_ms(pid):
    """The process's CPU time so far (user and system), in milliseconds."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def measure(run):
    watchers = [("shared-demo watch", [demo, "watch", "--file", path, "--changes", "2", "--timeout", "300"])]
    if os.access(probe, os.X_OK):
        watchers.append(("resource-probe watch-large", [probe, "watch-large", path]))
    started = []
    for name, command in watchers:
        child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        child.stdout.readline()  # the value now (shared-demo) or `ready` (the probe)
        started.append((name, child))
    time.sleep(0.5)  # let the watchers' threads settle before the baseline (a printed figure only)
    before = {name: memory(child.pid)["VmRSS"] for name, child in started}

    text = json.dumps("x" * (megabytes * 1_000_000))
    scratch = path + ".new"
    with open(scratch, "w") as f:
        f.write(text)
    cpu_before = {name: cpu_ms(child.pid) for name, child in started}
    os.rename(scratch, path)
    size = len(text)

    if run == 1:
        print(f"one change of a {size / 1e6:.0f} MB value (a JSON string), seen by each watcher")
        print(f"{'watcher':<28} {'run':>4} {'RSS before MB':>14} {'peak MB':>9} {'RSS after MB':>13} {'peak/file':>10} {'held/file':>10} {'CPU ms':>7}")
    for name, child in started:
        line = child.stdout.readline()  # the change, printed whole by shared-demo
        if not line:
            sys.exit(f"large_value.py: {name} ended before the change")
        # A moment for anything the change set off after its delivery (a second look or read
        # prompted by a later event): its memory counts in the peak and in what stays held.
        time.sleep(0.5)
        if child.stdin and name.startswith("resource-probe"):
            child.stdin.write(b"\n")
            child.stdin.flush()
            child.stdout.readline()
        now = memory(child.pid)
        rss0, peak, rss = before[name] / 1024, now["VmHWM"] / 1024, now["VmRSS"] / 1024
        mb = size / 1024 / 1024
        cpu = cpu_ms(child.pid) - cpu_before[name]
        print(f"{name:<28} {run:>4} {rss0:>14.1f} {peak:>9.1f} {rss:>13.1f} {peak / mb:>10.1f} {(rss - rss0) / mb:>10.1f} {cpu:>7.0f}")
    for _, child in started:
        child.kill()
        child.wait()
    os.remove(path)


for run in range(1, runs + 1):
    if os.path.exists(path):
        os.remove(path)
    measure(run)
