"""What the benchmark scripts read of a running process in /proc."""

import os


def cpu_ns(pid):
    """The CPU time of every thread of `pid` so far, in nanoseconds (from each thread's
    schedstat, which counts to the nanosecond where /proc/PID/stat counts clock ticks)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that just ended
    return total


def threads(pid):
    """The ids of `pid`'s threads now: a thread that ends between two readings of `cpu_ns`
    takes its time with it, so a script compares these sets to tell."""
    try:
        return set(os.listdir(f"/proc/{pid}/task"))
    except (FileNotFoundError, ProcessLookupError):
        return set()
