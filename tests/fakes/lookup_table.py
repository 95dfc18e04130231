#!/usr/bin/env python3
"""An implementation that implements nothing: it answers every case from a table of the
corpus's own expectations, as a submission that memorised `hookcheck export` would. It passes
every public case and knows nothing else.

    lookup_table.py TABLE [--skip-unknown]

TABLE is a JSON object: "by_operations" maps a case's operations (canonical JSON: sorted keys,
no spaces) to its expected results, "by_name" maps `<suite>::<id>` to them. An unknown case gets
`true` for every operation, a plausible-looking guess, or with --skip-unknown is skipped, as if
skips were free.
"""
import json
import sys

with open(sys.argv[1], encoding="utf-8") as f:
    table = json.load(f)
skip_unknown = "--skip-unknown" in sys.argv[2:]


def key(operations):
    return json.dumps(operations, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "hello":
        send({"type": "hello", "protocol": 1, "name": "lookup-table", "language": "python",
              "version": sys.version.split()[0],
              "parts": ["retries", "ordering", "pause", "policy", "retry-after",
                        "auto-disable", "dead-letters", "signatures", "throttle", "breaker", "expiry"]})
        continue
    if message.get("type") != "run":
        # `stop`, and any message type the protocol may add, as the protocol asks.
        continue
    operations = message.get("operations", [])
    results = table["by_operations"].get(key(operations))
    if results is None:
        results = table["by_name"].get(message.get("case", ""))
    if (results is None or len(results) != len(operations)) and skip_unknown:
        send({"type": "skipped", "seq": message.get("seq"), "reason": "not in the table"})
        continue
    if results is None or len(results) != len(operations):
        results = [True for _ in operations]
    send({"type": "results", "seq": message.get("seq"), "results": results})
