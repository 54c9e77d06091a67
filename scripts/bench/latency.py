"""Summarises the output of `shared-demo watch` fed by `shared-demo ping`.

Each line after the first is '<received-unix-ns> <sent-unix-ns>': the watcher's clock when it
saw the change, and the value the writer stored, which is its clock when it wrote. Prints
'count p50_us p99_us max_us'. With `--samples FILE` it also writes every latency, in
microseconds, one per line in the order seen, for scripts/bench/plot.py's distribution.
"""
import sys

samples_path = None
if len(sys.argv) == 3 and sys.argv[1] == "--samples":
    samples_path = sys.argv[2]
elif len(sys.argv) != 1:
    sys.exit("usage: latency.py [--samples FILE] < watch-output")

latencies = []
lines = sys.stdin.read().split("\n")[1:]  # the first line is the value before the pings
for line in lines:
    parts = line.split()
    # Only pings carry a send time; the start and end markers are small numbers.
    if len(parts) != 2 or not parts[1].isdigit() or int(parts[1]) < 10**18:
        continue
    latencies.append((int(parts[0]) - int(parts[1])) / 1000.0)

if samples_path:
    with open(samples_path, "w") as samples:
        samples.writelines(f"{latency:.1f}\n" for latency in latencies)

if not latencies:
    print("0 nan nan nan")
    sys.exit(0)
latencies.sort()


def percentile(p):
    index = min(len(latencies) - 1, max(0, round(p / 100.0 * len(latencies)) - 1))
    return latencies[index]


print(f"{len(latencies)} {percentile(50):.0f} {percentile(99):.0f} {latencies[-1]:.0f}")
