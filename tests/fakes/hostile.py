#!/usr/bin/env python3
"""An implementation that writes hostile text into everything hookcheck shows, for
tests/kit/hostile_reports.rs. It answers like examples/python/dispatcher.py, except:

    hostile.py hostile   a hostile handshake (name, language, version); by case, hostile text
                         as a result, a skip reason, an errored message and traceback, or on
                         stderr before crashing (only for cases named *-brief-example)
    hostile.py huge      a 600,000-character string as the last result of every case
    hostile.py bigname   a 300,000-character name, language and version in its handshake
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import dispatcher  # noqa: E402

# Kept in step with HOSTILE in tests/kit/hostile_reports.rs.
HOSTILE = [
    "\x1b[1A\x1b[2KPASSED",
    "<!--<script>",
    "</script><script>document.title='X'</script>",
    "\ufffe",
    "<img src=x onerror=\"document.title='X'\">",
    "\r",
    "`",
    "![x](http://127.0.0.1:1/x.png)",
    "[x](javascript:alert(1))",
    "\u202e",
    "\u009b2J",
]
ALL = " ".join(HOSTILE)

mode = sys.argv[1]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        name, language, version = (ALL, ALL, ALL) if mode == "hostile" else ("huge", "python", "0")
        if mode == "bigname":
            name, language, version = ("N" * 300_000, "L" * 300_000, "V" * 300_000)
        send({"type": "hello", "protocol": 1, "name": name, "language": language,
              "version": version, "parts": ["retries", "ordering", "pause"]})
        continue
    if msg["type"] == "stop":
        break
    seq, case, ops = msg["seq"], msg["case"], msg["operations"]
    results = dispatcher.run(ops)
    if mode == "bigname":
        send({"type": "results", "seq": seq, "results": results})
        continue
    if mode == "huge":
        results[-1] = "A" * 600_000
        send({"type": "results", "seq": seq, "results": results})
        continue
    if case.endswith("-brief-example"):
        sys.stderr.write(ALL + "\n" + ALL + "\n")
        sys.stderr.flush()
        sys.exit(1)
    kind = sum(map(ord, case)) % 4
    if kind == 0:
        results[0] = ALL
        send({"type": "results", "seq": seq, "results": results})
    elif kind == 1:
        send({"type": "skipped", "seq": seq, "reason": ALL})
    elif kind == 2:
        send({"type": "errored", "seq": seq, "message": ALL,
              "traceback": "Traceback (most recent call last):\n  " + ALL + "\nValueError: " + ALL})
    else:
        send({"type": "results", "seq": seq, "results": results})
