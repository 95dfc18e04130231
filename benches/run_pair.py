#!/usr/bin/env python3
"""Compares `hookcheck run` binaries on the same workloads, in turns.

On a machine whose speed drifts (a shared 2-core VM), two binaries timed minutes apart are not
comparable; timed in turns, in random order, on the same files, they are. For each workload file
and each binary: the median and least wall time of N runs, output written to a file as
`cargo bench --bench run` writes it (opened before the clock starts, the run only waited for),
and the peak RSS of three more runs (VmHWM polled every 0.5 ms, the largest seen), as that bench
measures it. Each binary after the first also gets the median of its
per-round ratios to the first binary: rounds are close in time, so the ratio holds even when the
machine's speed changes between rounds, which moves the medians of wall time.

    python3 benches/run_pair.py 15 target/bench-run/ops-brief-100000.json,target/bench-run/ops-brief-100000.jsonl OLD_BINARY target/release/hookcheck

Workloads are the ones `cargo bench --bench run` writes to target/bench-run/.
"""
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def peak_rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs, files, binaries = int(sys.argv[1]), sys.argv[2].split(","), sys.argv[3:]
    with tempfile.TemporaryDirectory() as scratch:
        out_path = os.path.join(scratch, "out")
        for path in files:
            wall = {b: [] for b in binaries}
            rss = {b: 0 for b in binaries}
            ratios = {b: [] for b in binaries}
            for _ in range(runs):
                order = binaries[:]
                random.shuffle(order)
                for b in order:
                    # The output file is opened (and the last run's output truncated) before
                    # the clock starts, and the run is only waited for: polling it would take
                    # CPU from it.
                    with open(out_path, "wb") as out:
                        started = time.perf_counter()
                        child = subprocess.Popen([b, "run", path], stdout=out)
                        child.wait()
                        wall[b].append(time.perf_counter() - started)
                    if child.returncode != 0:
                        sys.exit(f"{b} run {path} exited with {child.returncode}")
                for b in binaries:
                    ratios[b].append(wall[b][-1] / wall[binaries[0]][-1])
            print(os.path.basename(path))
            # Peak RSS from runs of their own, polled every 0.5 ms.
            for b in binaries:
                for _ in range(3):
                    with open(out_path, "wb") as out:
                        child = subprocess.Popen([b, "run", path], stdout=out)
                        while child.poll() is None:
                            rss[b] = max(rss[b], peak_rss_kb(child.pid))
                            time.sleep(0.0005)
            for b in binaries:
                v = wall[b]
                ratio = (
                    f"  x first {statistics.median(ratios[b]):5.2f}"
                    if b != binaries[0]
                    else ""
                )
                print(
                    f"  {b:40s} median {statistics.median(v) * 1000:8.1f} ms"
                    f"  least {min(v) * 1000:8.1f} ms  peak RSS {rss[b] / 1024:6.1f} MB{ratio}"
                )


if __name__ == "__main__":
    main()
