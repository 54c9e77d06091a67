"""Draws the pictures of BENCHMARKS.md from one run of scripts/bench.sh.

usage: python3 scripts/bench/plot.py RESULTS [--output DIR]

RESULTS is the folder bench.sh wrote (run.tsv, throughput.tsv, latency.tsv, fanout.tsv,
samples/). Writes into DIR (default docs/benchmarks), each picture only when its data is there:

  throughput.png  cross-process increments per second by number of processes, on disk and on
                  tmpfs: SharedState (a file, an app-storage key), C watch, the C floor, SQLite
  latency.png     the distribution of the time from a write in one process to the change seen
                  in another (both watching), SharedState beside the C floor's
  fanout.png      one writer, N watching processes: CPU per watching process per change, and the
                  time until the last of them has the change, SharedState beside the C floor

Asserts nothing; needs matplotlib (bench.sh installs it from PyPI when missing).
"""
import csv
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402

# One colour per program, the same in every picture.
COLOURS = {
    "SharedState file": "#1f6fb4",
    "SharedState app storage": "#62a8e5",
    "SharedState": "#1f6fb4",
    "SharedState, read as any JSON": "#62a8e5",
    "C watch": "#d9822b",
    "C floor": "#8c8c8c",
    "C floor, writer watching": "#8c8c8c",
    "C floor, writer not watching": "#bdbdbd",
    "SQLite": "#3a9a4a",
}


def read_tsv(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as file:
        return list(csv.DictReader(file, delimiter="\t"))


def read_samples(path):
    if not os.path.exists(path):
        return []
    with open(path) as file:
        return sorted(float(line) for line in file if line.strip())


def run_label(results):
    rows = read_tsv(os.path.join(results, "run.tsv"))
    if not rows:
        return ""
    run = rows[0]
    return f"tree {run['tree']}, {run['date']}, {run['cores']} cores, load {run['load']}"


def plot_throughput(results, output, label):
    rows = read_tsv(os.path.join(results, "throughput.tsv"))
    rows = [row for row in rows if row["durability"] == "default"]
    storages = [s for s in ("disk", "tmpfs") if any(row["storage"] == s for row in rows)]
    if not storages:
        return None
    programs = ["SharedState file", "SharedState app storage", "C watch", "C floor", "SQLite"]
    figure, axes = plt.subplots(1, len(storages), figsize=(6.2 * len(storages), 4.4), squeeze=False)
    for axis, storage in zip(axes[0], storages):
        for program in programs:
            runs = {}
            for row in rows:
                if row["storage"] == storage and row["program"] == program:
                    runs.setdefault(int(row["processes"]), []).append(float(row["ops_per_s"]))
            if not runs:
                continue
            counts = sorted(runs)
            medians = [statistics.median(runs[n]) for n in counts]
            low = [m - min(runs[n]) for m, n in zip(medians, counts)]
            high = [max(runs[n]) - m for m, n in zip(medians, counts)]
            dashed = program == "C floor"
            axis.errorbar(counts, medians, yerr=[low, high], marker="o", capsize=3,
                          linestyle="--" if dashed else "-", linewidth=1.2 if dashed else 2,
                          color=COLOURS[program],
                          label=program + (" (no watching)" if dashed else ""))
        axis.set_xscale("log", base=2)
        axis.set_xticks(counts, [str(n) for n in counts])
        axis.set_xlabel("processes incrementing one counter")
        axis.set_ylabel("increments per second (all processes)")
        axis.set_ylim(bottom=0)
        axis.grid(True, alpha=0.3)
        axis.set_title(f"{storage}: withLock {{ $0 += 1 }} across processes")
    axes[0][0].legend(fontsize=8, loc="lower left")
    figure.suptitle(f"Throughput, median of the runs (bars: lowest to highest run); {label}",
                    fontsize=9)
    figure.tight_layout()
    path = os.path.join(output, "throughput.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def plot_latency(results, output, label):
    samples_dir = os.path.join(results, "samples")
    series = [
        ("SharedState", "latency-int.txt"),
        ("SharedState, read as any JSON", "latency-json.txt"),
        ("C floor, writer watching", "latency-c-floor-watching.txt"),
        ("C floor, writer not watching", "latency-c-floor.txt"),
    ]
    loaded = [(name, read_samples(os.path.join(samples_dir, file))) for name, file in series]
    loaded = [(name, samples) for name, samples in loaded if samples]
    if not loaded:
        return None
    figure, axis = plt.subplots(figsize=(8, 4.6))
    for name, samples in loaded:
        count = len(samples)
        fractions = [(index + 1) / count for index in range(count)]
        p50 = samples[max(0, round(0.5 * count) - 1)]
        p99 = samples[max(0, round(0.99 * count) - 1)]
        axis.step(samples, fractions, where="post", linewidth=2, color=COLOURS[name],
                  label=f"{name}: p50 {p50:.0f} µs, p99 {p99:.0f} µs ({count} writes)")
    axis.set_xscale("log")
    axis.set_xlabel("from the write in one process to the change seen in another (µs, log scale)")
    axis.set_ylabel("fraction of the writes seen by then")
    axis.set_ylim(0, 1.01)
    axis.axhline(0.5, color="black", linewidth=0.5, alpha=0.4)
    axis.axhline(0.99, color="black", linewidth=0.5, alpha=0.4)
    axis.grid(True, which="both", alpha=0.25)
    axis.legend(fontsize=8, loc="lower right")
    axis.set_title("Latency between two watching processes, an app-storage key, "
                   "one write every 2 ms", fontsize=10)
    figure.suptitle(label, fontsize=8, y=0.995)
    figure.tight_layout()
    path = os.path.join(output, "latency.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def plot_fanout(results, output, label):
    rows = read_tsv(os.path.join(results, "fanout.tsv"))
    if not rows:
        return None
    figure, (cpu_axis, latency_axis) = plt.subplots(1, 2, figsize=(12.4, 4.4))
    counts = sorted({int(row["watchers"]) for row in rows})
    for program in ("SharedState", "C floor"):
        mine = sorted((int(row["watchers"]), row) for row in rows if row["program"] == program)
        if not mine:
            continue
        watchers = [n for n, _ in mine]
        colour = COLOURS[program]
        cpu_axis.plot(watchers, [float(row["cpu_us_per_change"]) for _, row in mine],
                      marker="o", linewidth=2, color=colour, label=program)
        latency_axis.plot(watchers, [float(row["p50_ms"]) for _, row in mine], marker="o",
                          linewidth=2, color=colour, label=f"{program}, p50")
        latency_axis.plot(watchers, [float(row["p99_ms"]) for _, row in mine], marker="^",
                          linewidth=1.2, linestyle="--", color=colour, label=f"{program}, p99")
    for axis in (cpu_axis, latency_axis):
        axis.set_xscale("log")
        axis.set_xticks(counts, [str(n) for n in counts])
        axis.minorticks_off()
        axis.set_xlabel("watching processes (N)")
        axis.grid(True, alpha=0.3)
        axis.legend(fontsize=8)
    cpu_axis.set_ylim(bottom=0)
    cpu_axis.set_ylabel("CPU per watching process per change (µs)")
    cpu_axis.set_title("What each watcher pays for one change", fontsize=10)
    latency_axis.set_yscale("log")
    latency_axis.set_ylabel("write → the last watcher has it (ms, log scale)")
    latency_axis.set_title("Until every watcher has the change", fontsize=10)
    figure.suptitle(f"Fan-out: one writer, N watching processes; {label}", fontsize=9)
    figure.tight_layout()
    path = os.path.join(output, "fanout.png")
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path


def main(arguments):
    if not arguments or arguments[0].startswith("-"):
        sys.exit("usage: plot.py RESULTS [--output DIR]")
    results = arguments[0]
    output = "docs/benchmarks"
    if len(arguments) == 3 and arguments[1] == "--output":
        output = arguments[2]
    elif len(arguments) != 1:
        sys.exit("usage: plot.py RESULTS [--output DIR]")
    os.makedirs(output, exist_ok=True)
    label = run_label(results)
    for plot in (plot_throughput, plot_latency, plot_fanout):
        path = plot(results, output, label)
        if path:
            print(f"plot.py: drew {path}")
        else:
            print(f"plot.py: {plot.__name__[5:]}: no data in {results}, nothing drawn")


if __name__ == "__main__":
    main(sys.argv[1:])
