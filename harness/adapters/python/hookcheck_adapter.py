#!/usr/bin/env python3
"""Serve a Python solution of the brief to hookcheck (spec/protocol.md, lines mode).

    hookcheck check --impl "python3 harness/adapters/python/hookcheck_adapter.py mysolution.py"

The solution is any Python file defining run(operations) -> list. It may also define
HOOKCHECK_PARTS = ["retries", "ordering"] to declare the parts it implements (the brief's three
by default; --parts overrides both). The roadmap's parts are declared the same way:
HOOKCHECK_PARTS = ["retries", "ordering", "pause", "policy", "retry-after"] (a part needs the
parts it builds on; hookcheck refuses a declaration without them). Standard library only.

Anything the solution prints goes to stderr, so it cannot corrupt the protocol on stdout. An
exception escaping run() is answered as "errored" with its traceback; the adapter keeps serving.
"""
import argparse
import faulthandler
import importlib.util
import json
import os
import signal
import sys
import traceback

PROTOCOL = 1
# What a solution that declares nothing offers: the brief's own parts.
BRIEF_PARTS = ("retries", "ordering", "pause")
# Every part hookcheck knows, the roadmap's included (hookcheck's Part::ALL).
# (one line: hookcheck's tests read it)
PARTS = BRIEF_PARTS + ("policy", "retry-after", "auto-disable", "dead-letters", "signatures", "throttle", "breaker", "expiry")


def load(path):
    if not os.path.isfile(path):
        raise SystemExit(f"hookcheck adapter: no such file: {path}")
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"hookcheck adapter: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    if not callable(getattr(module, "run", None)):
        raise SystemExit(f"hookcheck adapter: {path} defines no run(operations) function")
    return module


def main():
    parser = argparse.ArgumentParser(description="Serve a Python run(operations) to hookcheck.")
    parser.add_argument("solution", help="Python file defining run(operations)")
    parser.add_argument("--parts", help="comma-separated parts to declare (default: the brief's "
                        "three, retries,ordering,pause; also: policy, retry-after, auto-disable, "
                        "dead-letters, signatures, throttle, breaker, expiry)")
    parser.add_argument("--name", help="name shown in reports (default: the file name)")
    parser.add_argument("--per-case", action="store_true",
                        help="answer one run instead: a JSON array of operations on stdin, the "
                        "results on stdout (for hookcheck check --per-case)")
    args = parser.parse_args()

    # The protocol owns the real stdout; everything else printed goes to stderr.
    out = sys.stdout
    sys.stdout = sys.stderr
    # On a timeout hookcheck sends SIGUSR1 before it kills: the stack then shows, on stderr and
    # so in the report, the line of the solution that was running when it hung.
    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=False)
    module = load(args.solution)
    parts = args.parts.split(",") if args.parts else list(getattr(module, "HOOKCHECK_PARTS", BRIEF_PARTS))
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        raise SystemExit(f"hookcheck adapter: unknown parts {unknown}; use {', '.join(PARTS)}")

    if args.per_case:
        # One case: no handshake, so the parts are hookcheck's --parts; the results alone on
        # stdout, and a crash is an exit status with the traceback on stderr.
        results = module.run(json.load(sys.stdin))
        out.write(json.dumps(list(results), separators=(",", ":"), allow_nan=False) + "\n")
        out.flush()
        return

    def send(message):
        out.write(json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n")
        out.flush()

    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({
                "type": "hello",
                "protocol": PROTOCOL,
                "name": args.name or os.path.basename(args.solution),
                "language": "python",
                "version": sys.version.split()[0],
                "parts": parts,
                # SIGUSR1 prints the stack (faulthandler, above): hookcheck may ask before a kill.
                "where": "SIGUSR1",
            })
        elif kind == "run":
            seq = message.get("seq")
            try:
                results = module.run(message["operations"])
                send({"type": "results", "seq": seq, "results": list(results)})
            except Exception as e:  # the solution's bug, reported for this case only
                send({
                    "type": "errored",
                    "seq": seq,
                    "message": f"{type(e).__name__}: {e}",
                    "traceback": traceback.format_exc(),
                })
        elif kind == "stop":
            return
        # Unknown message types are ignored, as the protocol asks.


if __name__ == "__main__":
    main()
