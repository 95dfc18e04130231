#!/usr/bin/env python3
"""Times `hookcheck merge` on many shard bundles, and its peak RSS, at growing counts.

A real bundle of one implementation (the Python example with a planted bug, every case of the
built-in corpus) is written once by `hookcheck check --bundle`; it is then copied into N shard
bundles of a run of N implementations (shard k holds implementation k, named sub-k), as N
machines of a CI matrix would write them. Each count is merged 3 times; the median wall time
and the largest peak RSS are printed, with the time per bundle, which stays flat when the
merge is linear in its input.

    cargo build --release && python3 benches/merge_scale.py [HOOKCHECK] [COUNT...]

Defaults: target/release/hookcheck, counts 100 300 1000.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    args = sys.argv[1:]
    binary = args.pop(0) if args and not args[0].isdigit() else os.path.join(ROOT, "target/release/hookcheck")
    binary = os.path.abspath(binary)
    counts = [int(a) for a in args] or [100, 300, 1000]
    work = tempfile.mkdtemp(prefix="hookcheck-merge-scale-")
    seed = os.path.join(work, "seed.json")
    adapter = os.path.join(ROOT, "harness/adapters/python/hookcheck_adapter.py")
    solution = os.path.join(ROOT, "tests/fakes/subtle_bug.py")
    subprocess.run(
        [binary, "check", "--impl", f"python3 {adapter} {solution}", "--bundle", seed, "-q"],
        cwd=work, stdout=subprocess.DEVNULL, check=False,
    )
    with open(seed) as f:
        base = json.load(f)
    print(f"one bundle: {os.path.getsize(seed) / 1024:.0f} KiB, "
          f"{len(base['run']['cases'])} cases")
    print(f"{'bundles':>8} {'MB in':>7} {'median s':>9} {'s per 1000':>11} {'peak RSS MB':>12}")
    for n in counts:
        folder = os.path.join(work, f"n{n}")
        os.makedirs(folder, exist_ok=True)
        paths = []
        for k in range(n):
            b = json.loads(json.dumps(base))
            b["run"]["implementations"] = n
            b["run"]["single"] = n == 1
            b["shard"] = {"index": k + 1, "count": n, "method": "slice", "by": "implementation"}
            imp = b["implementations"][0]
            imp["index"] = k
            imp["name"] = f"sub-{k}"
            path = os.path.join(folder, f"shard-{k + 1}.json")
            with open(path, "w") as f:
                json.dump(b, f)
            paths.append(path)
        size = sum(os.path.getsize(p) for p in paths) / 1e6
        times, peaks = [], []
        for _ in range(3):
            start = time.perf_counter()
            child = subprocess.Popen([binary, "merge", *paths, "--color", "never"], cwd=folder,
                                     stdout=subprocess.DEVNULL)
            # wait4 gives this child's own peak RSS (KiB), not the largest of all children.
            _, status, usage = os.wait4(child.pid, 0)
            times.append(time.perf_counter() - start)
            if os.waitstatus_to_exitcode(status) not in (0, 1):
                sys.exit(f"merge of {n} bundles exited with {os.waitstatus_to_exitcode(status)}")
            peaks.append(usage.ru_maxrss)
        median = statistics.median(times)
        print(f"{n:>8} {size:>7.1f} {median:>9.3f} {median / n * 1000:>11.3f} "
              f"{max(peaks) / 1024:>12.1f}")


if __name__ == "__main__":
    main()
