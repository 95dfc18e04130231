#!/usr/bin/env python3
"""An independent check of Part 8's expectations (spec/dispatcher.md, section 16).

Two uses:

  check_signatures.py < cases.json
      cases.json is {"cases": [{"name": "suite::id", "steps": [{"op": [...], "expect": ...}]}]},
      the corpus's signature cases as JSON. Every `signature` step's expectation is recomputed
      (HMAC-SHA256 with the standard library) and every `verify` step's too; `set_secret` steps
      are checked for the validity of their secret. Nothing else of the dispatcher is simulated:
      the other steps' expectations are taken as given (an `enqueue` expecting "queued" stored
      its payload, a `register` expecting true registered its endpoint, a `set_secret` expecting
      true set its secret) and the attempts come from each `process` step's expected records
      ("<event_id> #<n> ..."), made at that process call's ts; a record ending in " dead" kills
      its event, and an `enable` with replay (or a `recover`) that succeeds revives the dead events
      of its endpoint, whose attempts then count from 1 again.

  check_signatures.py --vectors spec/vectors/signatures.json
      checks the signing and verifying vectors.

One line per mismatch, then a count line; exit status 1 on any mismatch (or unreadable input),
0 otherwise. Standard library only; written from the spec's text, not from any implementation.
"""

import base64
import binascii
import hashlib
import hmac
import json
import re
import sys

GRACE = 86400
KEEP = 10
TOLERANCE = 300
MAX_TS = 2**53 - 1
HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
B64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")
TS_TEXT = re.compile(r"^(0|-?[1-9][0-9]*)$")
RECORD = re.compile(r"^(.*) #([0-9]+) ")


def err(code):
    return "error: " + code


# --- secrets (sig.secret-format, sig.secret-strict) ---------------------------------------------

def key_of(secret):
    """The key of a valid secret, or None."""
    if not isinstance(secret, str) or not secret.startswith("whsec_"):
        return None
    text = secret[len("whsec_"):]
    if not text or len(text) % 4 != 0 or not B64.match(text):
        return None
    try:
        key = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    if base64.b64encode(key).decode("ascii") != text:  # canonical: one text per key
        return None
    if not 24 <= len(key) <= 64:
        return None
    return key


# --- signing (sig.signature, sig.timestamp-string) ----------------------------------------------

def sign_one(key, msg_id, timestamp_text, body):
    content = f"{msg_id}.{timestamp_text}.{body}".encode("utf-8")
    return base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode("ascii")


def header_value(secrets, msg_id, timestamp_text, body):
    return " ".join("v1," + sign_one(key_of(s), msg_id, timestamp_text, body) for s in secrets)


# --- JSON readings (op.ts-integer, op.ts-strict, op.ts-range) -----------------------------------

def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_TS


# --- verify (sig.verify, sig.verify-*) ---------------------------------------------------------

def verify(op):
    if len(op) != 5:
        return err("invalid arguments")
    _, ts, secrets, headers, body = op
    if not is_int(ts):
        return err("invalid arguments")
    if not isinstance(secrets, list) or not secrets or any(key_of(s) is None for s in secrets):
        return err("invalid secret")
    if not isinstance(headers, dict) or any(not isinstance(v, str) for v in headers.values()):
        return err("invalid arguments")
    if not isinstance(body, str):
        return err("invalid arguments")
    found = {}
    for name, value in headers.items():
        low = "".join(ch.lower() if "A" <= ch <= "Z" else ch for ch in name)  # ASCII case only
        if low in HEADERS and low in found:
            return err("invalid arguments")
        found[low] = value
    values = [found.get(h, "") for h in HEADERS]
    if any(v == "" for v in values):
        return err("missing header")
    msg_id, ts_text, sigs = values
    if not TS_TEXT.match(ts_text) or abs(int(ts_text)) > MAX_TS:
        return err("bad timestamp")
    t = int(ts_text)
    if ts - t > TOLERANCE:
        return err("timestamp too old")
    if t - ts > TOLERANCE:
        return err("timestamp too new")
    expected = {sign_one(key_of(s), msg_id, ts_text, body) for s in secrets}
    for entry in sigs.split(" "):
        version, comma, signature = entry.partition(",")
        if comma and version == "v1" and any(hmac.compare_digest(signature, e) for e in expected):
            return True
    return err("no matching signature")


# --- the little state the cases need -----------------------------------------------------------

class Endpoint:
    def __init__(self):
        self.current = None
        self.previous = []  # [(secret, retired_at)], most recently retired first

    def set(self, secret, ts):
        if secret == self.current:  # sig.same-secret: not a rotation
            return
        self.previous = [(s, r) for (s, r) in self.previous if s != secret]
        if self.current is not None:
            self.previous.insert(0, (self.current, ts))  # sig.rotation
            del self.previous[KEEP:]  # sig.keep-ten-oldest
        self.current = secret

    def signers(self, ts):
        """sig.signers, sig.grace-boundary, sig.signers-order."""
        if self.current is None:
            return []
        return [self.current] + [s for (s, r) in self.previous if ts - r < GRACE]


class Case:
    def __init__(self, name):
        self.name = name
        self.endpoints = {}
        self.events = {}  # event id -> (endpoint id, body)
        self.attempts = {}  # event id -> [(ts, signers)] of its current life
        self.dead = {}  # event id -> ts of the process call that killed it

    def revive(self, endpoint, since=None):
        """enable with replay (pause.replay) or recover (recover.revive): attempts back to 0."""
        for event, died_at in list(self.dead.items()):
            if self.events[event][0] == endpoint and (since is None or died_at >= since):
                self.attempts[event] = []
                del self.dead[event]

    def signature(self, op):
        if len(op) != 4:
            return err("invalid arguments")
        _, ts, event, n = op
        if not is_int(ts) or not isinstance(event, str) or not is_int(n) or n < 1:
            return err("invalid arguments")
        if event not in self.events:
            return err("unknown event")
        made = self.attempts.get(event, [])
        if n > len(made):
            return err("attempt not made")
        at, signers = made[n - 1]
        if not signers:
            return err("no secret")
        body = self.events[event][1]
        return {"webhook-id": event, "webhook-timestamp": str(at),
                "webhook-signature": header_value(signers, event, str(at), body)}


def check_cases(doc, out):
    checked = {"signature": 0, "verify": 0, "set_secret": 0}
    mismatches = 0
    for case in doc.get("cases", []):
        c = Case(case.get("name", "?"))
        for i, step in enumerate(case.get("steps", []), 1):
            op, expect = step.get("op"), step.get("expect")
            where = f"{c.name} step {i}"
            if not isinstance(op, list) or not op or not isinstance(op[0], str):
                continue
            name = op[0]
            got = None
            if name == "register" and expect is True:
                c.endpoints[op[2]] = Endpoint()
            elif name == "enqueue" and expect == "queued":
                c.events[op[3]] = (op[2], op[5] if len(op) == 6 else "")
            elif name == "process" and isinstance(expect, list):
                for record in expect:
                    m = RECORD.match(record) if isinstance(record, str) else None
                    if not m or m.group(1) not in c.events:
                        continue
                    event, n = m.group(1), int(m.group(2))
                    life = [] if n == 1 else c.attempts.get(event, [])
                    if n != len(life) + 1:
                        out.append(f"{where}: record {record!r} does not follow attempt "
                                   f"#{len(life)} of {event}")
                        mismatches += 1
                    endpoint = c.endpoints.get(c.events[event][0], Endpoint())
                    c.attempts[event] = life + [(op[1], endpoint.signers(op[1]))]
                    if record.endswith(" dead"):
                        c.dead[event] = op[1]
            elif name == "enable" and expect is True and len(op) == 4 and op[3] is True:
                c.revive(op[2])
            elif name == "recover" and is_int(expect) and expect > 0 and len(op) == 4:
                c.revive(op[2], op[3])
            elif name == "set_secret" and len(op) == 4:
                checked["set_secret"] += 1
                valid = key_of(op[3]) is not None
                if expect is True:
                    if not valid or op[2] not in c.endpoints:
                        out.append(f"{where}: expects true, but the secret is invalid or the "
                                   f"endpoint unknown")
                        mismatches += 1
                    else:
                        c.endpoints[op[2]].set(op[3], op[1])
                elif expect == err("invalid secret") and valid and isinstance(op[2], str):
                    out.append(f"{where}: expects invalid secret, but {op[3]!r} is valid")
                    mismatches += 1
            if name == "signature":
                checked["signature"] += 1
                got = c.signature(op)
            elif name == "verify":
                checked["verify"] += 1
                got = verify(op)
            if name in ("signature", "verify") and got != expect:
                out.append(f"{where}: {json.dumps(op)} expects {json.dumps(expect)}, "
                           f"the checker computes {json.dumps(got)}")
                mismatches += 1
    total = sum(checked.values())
    return mismatches, (f"{total} steps checked ({checked['signature']} signature, "
                        f"{checked['verify']} verify, {checked['set_secret']} set_secret) in "
                        f"{len(doc.get('cases', []))} cases")


def check_vectors(doc, out):
    mismatches = signing = verifying = 0
    for v in doc.get("sign", []):
        signing += 1
        secrets = v["secrets"] if "secrets" in v else [v["secret"]]
        if any(key_of(s) is None for s in secrets):
            out.append(f"sign {v['name']}: a secret is invalid")
            mismatches += 1
            continue
        got = header_value(secrets, v["id"], v["timestamp"], v["body"])
        if got != v["signature"]:
            out.append(f"sign {v['name']}: expects {v['signature']!r}, the checker computes {got!r}")
            mismatches += 1
        # What is signed must verify, at its own timestamp, under each of its secrets.
        for s in secrets:
            headers = {"webhook-id": v["id"], "webhook-timestamp": v["timestamp"],
                       "webhook-signature": v["signature"]}
            back = verify(["verify", int(v["timestamp"]), [s], headers, v["body"]])
            if back is not True:
                out.append(f"sign {v['name']}: does not verify under {s}: {back}")
                mismatches += 1
    for v in doc.get("verify", []):
        verifying += 1
        got = verify(["verify", v["now"], v["secrets"], v["headers"], v["body"]])
        if got != v["result"]:
            out.append(f"verify {v['name']}: expects {json.dumps(v['result'])}, "
                       f"the checker computes {json.dumps(got)}")
            mismatches += 1
    return mismatches, f"{signing + verifying} vectors checked ({signing} sign, {verifying} verify)"


def main(argv):
    out = []
    try:
        if len(argv) == 3 and argv[1] == "--vectors":
            with open(argv[2], encoding="utf-8") as f:
                mismatches, summary = check_vectors(json.load(f), out)
        elif len(argv) == 1:
            mismatches, summary = check_cases(json.load(sys.stdin), out)
        else:
            print("usage: check_signatures.py < cases.json | --vectors PATH", file=sys.stderr)
            return 2
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        print(f"cannot check: {e!r}")
        return 1
    for line in out:
        print(line)
    print(f"{summary}: {mismatches} mismatch{'es' if mismatches != 1 else ''}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
