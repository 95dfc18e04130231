#!/usr/bin/env python3
"""Compares the CPU time of `hookcheck run` binaries on one workload, in turns.

Wall time on a shared 2-core machine moves with the neighbours; the CPU time a run's two threads
use (user + system, read with getrusage after each run) moves less. Each round runs every binary
once, in random order; each binary gets the median and least CPU time, and the median of its
per-round ratio to the first binary. Listing a binary twice (a copy under another name) shows
the ratio that means no difference.

    python3 benches/run_cpu.py 31 target/bench-run/ops-brief-100000.json OLD COPY_OF_OLD NEW

Workloads are the ones `cargo bench --bench run` writes to target/bench-run/.
"""
import os
import random
import resource
import statistics
import subprocess
import sys


def cpu_seconds(binary, path):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.devnull, "w") as out:
        subprocess.run([binary, "run", path], stdout=out, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs, path, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    times = {b: [] for b in binaries}
    ratios = {b: [] for b in binaries}
    for _ in range(runs):
        order = binaries[:]
        random.shuffle(order)
        got = {b: cpu_seconds(b, path) for b in order}
        for b in binaries:
            times[b].append(got[b])
            ratios[b].append(got[b] / got[binaries[0]])
    for b in binaries:
        print(f"{b:40} median {statistics.median(times[b]) * 1000:8.1f} ms CPU  "
              f"least {min(times[b]) * 1000:8.1f}  x first {statistics.median(ratios[b]):.3f}")


if __name__ == "__main__":
    main()
