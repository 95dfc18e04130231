#!/usr/bin/env python3
"""A misbehaving implementation for the fault tests: it answers like examples/python/dispatcher.py
except for cases whose name contains PATTERN, where it commits FAULT.

    fake_impl.py FAULT PATTERN
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import dispatcher  # noqa: E402
from declared import within_parts  # noqa: E402  (same folder)

fault, pattern = sys.argv[1], sys.argv[2]
out = sys.stdout


def send(text):
    out.write(text + "\n")
    out.flush()


if fault == "exit-at-start":
    sys.stderr.write("fake: refusing to start\n")
    sys.exit(3)

# FAKE_PARTS, when set, is the comma-separated list of parts declared (possibly none).
parts = ["retries", "ordering", "pause"]
if "FAKE_PARTS" in os.environ:
    parts = [p for p in os.environ["FAKE_PARTS"].split(",") if p]


def orphans(tag):
    """Leaves two processes behind: one in our group, one that moved to a session of its own
    and, if still alive in 3 s, writes a marker file named by FAKE_MARKER."""
    import subprocess
    marker = os.environ.get("FAKE_MARKER", "/dev/null")
    code = ("import os, sys, time\n"
            "if sys.argv[1] == 'setsid': os.setsid()\n"
            "time.sleep(3)\n"
            "open(sys.argv[3], 'a').write(sys.argv[1] + chr(10))\n"
            "time.sleep(300)\n")
    for how in ("group", "setsid"):
        subprocess.Popen([sys.executable, "-c", code, how, tag, marker],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)

def refork(pidfile):
    """Leaves a chain behind that never stays put: each generation moves to a session of its
    own, forks the next and exits, and the living one keeps its pid in `pidfile`."""
    if os.fork() != 0:
        return
    os.closerange(0, 3)
    while True:
        if os.fork() != 0:
            os._exit(0)
        os.setsid()
        with open(pidfile + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(pidfile + ".tmp", pidfile)
        time.sleep(float(os.environ.get("FAKE_PAUSE", "0.005")))


# FAKE_NUMBERS=values declares `"numbers": "values"` and reads numbers as JavaScript does:
# `10.0` and `1e1` are the whole number 10.
numbers = os.environ.get("FAKE_NUMBERS")


def whole_if_whole(text):
    value = float(text)
    return int(value) if value.is_integer() else value


for line in sys.stdin:
    msg = json.loads(line, parse_float=whole_if_whole) if numbers == "values" else json.loads(line)
    if msg["type"] == "hello":
        hello = {"type": "hello", "protocol": 1, "name": "fake", "language": "python",
                 "version": "0", "parts": parts}
        if numbers:
            hello["numbers"] = numbers
        if fault == "close-both":
            # Stdin is closed before the hello is out, so no case can be written after it.
            os.close(0)
        send(json.dumps(hello))
        if fault == "stop-reading":
            time.sleep(3600)
        if fault == "orphans":
            orphans(pattern)
        if fault == "close-both":
            os.close(1)
            time.sleep(3600)
        if fault == "refork":
            refork(os.environ["FAKE_CHAIN"])
        continue
    if msg["type"] == "stop":
        break
    seq, ops = msg["seq"], msg["operations"]
    results = dispatcher.run([within_parts(op, parts) for op in ops])
    answer = {"type": "results", "seq": seq, "results": results}
    if pattern not in msg["case"]:
        send(json.dumps(answer))
        continue
    sys.stderr.write(f"fake: committing {fault} on {msg['case']}\n")
    sys.stderr.flush()
    if fault == "crash":
        raise RuntimeError("fake crash")
    elif fault == "hang":
        time.sleep(3600)
    elif fault == "not-json":
        send("this is not json")
    elif fault == "wrong-count":
        answer["results"] = results[:-1]
        send(json.dumps(answer))
    elif fault == "wrong-seq":
        answer["seq"] = seq + 100
        send(json.dumps(answer))
    elif fault == "partial-line":
        out.write(json.dumps(answer)[:10])
        out.flush()
        time.sleep(3600)
    elif fault == "partial-exit":
        out.write(json.dumps(answer)[:10])
        out.flush()
        sys.exit(0)
    elif fault == "flood-stderr":
        chunk = "x" * 1023 + "\n"
        for _ in range(20 * 1024):  # 20 MiB, far beyond any pipe buffer
            sys.stderr.write(chunk)
        sys.stderr.write("fake: flood done\n")
        sys.stderr.flush()
        send(json.dumps(answer))
    elif fault == "flood-and-hang":
        for _ in range(20 * 1024):
            sys.stderr.write("y" * 1023 + "\n")
        sys.stderr.write("fake: now hanging\n")
        sys.stderr.flush()
        time.sleep(3600)
    elif fault == "errored":
        send(json.dumps({"type": "errored", "seq": seq, "message": "ValueError: nope",
                         "traceback": "Traceback (most recent call last):\n  fake\nValueError: nope"}))
    elif fault == "skipped":
        send(json.dumps({"type": "skipped", "seq": seq, "reason": "not today"}))
    elif fault == "twice":
        send(json.dumps(answer))
        send(json.dumps(answer))
    elif fault == "late-twice":
        send(json.dumps(answer))
        time.sleep(0.3)
        send(json.dumps(answer))
    elif fault == "flood-stdout":
        send(json.dumps(answer))
        line = "z" * 4095 + "\n"
        for _ in range(100 * 256):  # 100 MiB after the answer
            out.write(line)
        out.flush()
    elif fault == "big-results":
        answer["results"] = ["r" * (1 << 20) for _ in results]
        send(json.dumps(answer))
    elif fault == "float-seq":
        answer["seq"] = float(seq)
        send(json.dumps(answer))
    elif fault == "exit-keeping-stdout":
        # A helper that inherits stdout outlives the exit: stdout never reaches end of file.
        import subprocess
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"],
                         stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os._exit(4)
    elif fault == "close-output":
        os.close(0)
        os.close(1)
        time.sleep(3600)
    elif fault == "burn-cpu":
        while True:
            pass
    elif fault == "eat-memory":
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))
    elif fault == "crash-hard":
        os._exit(1)
    elif fault == "slow-once":
        # Too slow the first time (a busy machine), in time when run again.
        marker = os.environ["FAKE_MARKER"]
        if not os.path.exists(marker):
            open(marker, "w").close()
            time.sleep(3)
        send(json.dumps(answer))
