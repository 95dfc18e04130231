#!/usr/bin/env python3
"""Grades many submissions on one machine, then again as shards merged, and compares the two.

The submissions are copies of the Python example (examples/python/dispatcher.py), each with one
of the planted bugs of harness/mutation/python_bugs.py (every so many left clean), so that their
verdicts differ the way a course's do. Every tenth is started once per case (`per_case = true`,
as a language without an adapter would be), the others speak the lines protocol through the
Python adapter. The run is timed on one machine with --jobs, then as N shards run one after the
other (each timed alone, as N machines of a CI matrix would run them), then the shards' bundles
are merged; the merge's time and peak RSS are printed, and its verdicts are compared with the
one-machine run's, pair by pair.

    cargo build --release && python3 benches/grade_scale.py [--submissions 1000] [--shards 4]
        [--jobs 2] [--select "--part pause"] [--binary target/release/hookcheck]

The selection (`--select`, hookcheck check's filters) bounds the time: a process per case of a
hundred submissions is the cost that grows fastest (tens of milliseconds per start).
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "harness", "mutation"))
from python_bugs import BUGS, SOURCE  # noqa: E402  (the planted bugs, one list for both)

PARTS = ["retries", "ordering", "pause", "policy", "retry-after", "auto-disable", "dead-letters"]


def toml_string(text):
    return json.dumps(text)  # a JSON string is a TOML basic string for these characters


def submissions(folder, count, per_case_every):
    """Writes `count` planted copies and their manifest; returns the manifest's path."""
    original = open(os.path.join(ROOT, SOURCE)).read()
    bugs = list(BUGS.items())
    adapter = os.path.join(ROOT, "harness", "adapters", "python", "hookcheck_adapter.py")
    entries = []
    for k in range(count):
        text = original
        # One in len(bugs) + 1 stays clean: a course has passing submissions too.
        slot = k % (len(bugs) + 1)
        if slot < len(bugs):
            for old, new in bugs[slot][1]:
                if old not in text:
                    sys.exit(f"{bugs[slot][0]}: edit does not apply; update python_bugs.py")
                text = text.replace(old, new, 1)
        path = os.path.join(folder, f"sub-{k:04}", "solution.py")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        per_case = k % per_case_every == 0
        command = f"python3 {shlex.quote(adapter)} {'--per-case ' if per_case else ''}{shlex.quote(path)}"
        entry = f"[[implementation]]\nname = {toml_string(f'sub-{k:04}')}\ncommand = {toml_string(command)}\n"
        if per_case:
            entry += f"per_case = true\nparts = {json.dumps(PARTS)}\n"
        entries.append(entry)
    manifest = os.path.join(folder, "grading.toml")
    with open(manifest, "w") as f:
        f.write("\n".join(entries))
    return manifest


def timed(args, cwd):
    """Runs hookcheck; its wall time and its own peak RSS (MB). Exit 0 or 1 (a failing grade)."""
    start = time.perf_counter()
    child = subprocess.Popen(args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    took = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        sys.exit(f"{' '.join(args[:3])} exited with {code}: {child.stderr.read().decode()[-2000:]}")
    return took, usage.ru_maxrss / 1024


def verdicts(path):
    with open(path) as f:
        bundle = json.load(f)
    return {(imp["name"], c["case"]): c["verdict"] for imp in bundle["implementations"]
            for c in imp["cases"]}, {imp["name"]: imp["passed"] for imp in bundle["implementations"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--submissions", type=int, default=1000)
    parser.add_argument("--per-case-every", type=int, default=10)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--select", default="--part pause",
                        help="hookcheck check's filters, as one string (default: %(default)s)")
    parser.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "hookcheck"))
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)
    work = tempfile.mkdtemp(prefix="hookcheck-grade-scale-")
    manifest = submissions(work, args.submissions, args.per_case_every)
    base = [binary, "check", "--manifest", manifest, "--jobs", str(args.jobs), "-q",
            *shlex.split(args.select)]
    per_case = len(range(0, args.submissions, args.per_case_every))
    print(f"{args.submissions} submissions ({per_case} per case), selection `{args.select}`, "
          f"--jobs {args.jobs}, in {work}")
    single, rss = timed([*base, "--bundle", "single.json"], work)
    pairs, passed = verdicts(os.path.join(work, "single.json"))
    cases = len(pairs) // max(args.submissions, 1)
    print(f"one machine: {single:.1f} s for {len(pairs)} pairs ({cases} cases each), "
          f"{sum(passed.values())} submissions pass; hookcheck peak RSS {rss:.0f} MB")
    shard_times = []
    for k in range(1, args.shards + 1):
        took, _ = timed([*base, "--shard", f"{k}/{args.shards}", "--bundle", f"shard-{k}.json"], work)
        shard_times.append(took)
        print(f"shard {k}/{args.shards}: {took:.1f} s")
    bundles = [f"shard-{k}.json" for k in range(1, args.shards + 1)]
    merge, merge_rss = timed([binary, "merge", *bundles, "--bundle", "merged.json"], work)
    print(f"merge of {args.shards} bundles: {merge:.2f} s, peak RSS {merge_rss:.0f} MB")
    print(f"longest shard + merge: {max(shard_times) + merge:.1f} s against {single:.1f} s on one "
          f"machine ({single / (max(shard_times) + merge):.2f}x)")
    merged, merged_passed = verdicts(os.path.join(work, "merged.json"))
    differ = [p for p in pairs if merged.get(p) != pairs[p]]
    if differ or merged.keys() != pairs.keys() or merged_passed != passed:
        print(f"MERGED VERDICTS DIFFER: {len(differ)} pairs, e.g. {differ[:3]}")
        sys.exit(1)
    print(f"merged verdicts identical to the one-machine run's: {len(pairs)} pairs")


if __name__ == "__main__":
    main()
