"""A Python solution of the brief "Webhook Dispatcher: Retries, Ordering and Pausing" (Parts 1
to 3) and of the roadmap's Parts 4 to 7 (retry policy per endpoint, Retry-After and Gone, automatic
disabling of failing endpoints, dead letters: details and recovery), Part 8 (Standard Webhooks
signatures: set_secret with rotation, enqueue's payload, signature and verify), Part 9 (a token
bucket per endpoint, the policy's "throttle"), Part 10 (a circuit breaker per endpoint, the
policy's "breaker") and Part 11 (event expiry, the policy's "max_age"), written the way a Python
user would write it, from the seed brief, shared/roadmap.md and spec/dispatcher.md (clarifications
included; Part 8 from its section 16, first drafted in spec/drafts/signatures/; Part 10 from its
section 18), without looking at the reference dispatcher or the other examples.

    hookcheck check --impl "python3 harness/adapters/python/hookcheck_adapter.py examples/python/dispatcher.py"
"""

import base64
import hashlib
import hmac
import heapq
import re
from bisect import bisect_left, insort
from collections import deque

HOOKCHECK_PARTS = ["retries", "ordering", "pause", "policy", "retry-after", "auto-disable", "dead-letters",
                   "signatures", "throttle", "breaker", "expiry"]
# Part 8 is offered exactly when declared: without it set_secret, signature and verify are unknown
# operations and enqueue takes no payload (sig.absent).
SIGNATURES = "signatures" in HOOKCHECK_PARTS
# Part 11 likewise: without it max_age is no key of the policy (expiry.parts, policy.strict).
EXPIRY = "expiry" in HOOKCHECK_PARTS
# Part 10 likewise: without it breaker is no key of the policy (breaker.parts).
BREAKER = "breaker" in HOOKCHECK_PARTS

# The brief's schedule is the default policy: 6 attempts, waits after failure 1, 2, 3, 4, 5.
DEFAULT_POLICY = {"attempts": 6, "waits": [30, 60, 120, 240, 300]}
POLICY_KEYS = {"attempts", "waits", "disable_on_gone", "disable_after", "throttle"}
if EXPIRY:
    POLICY_KEYS.add("max_age")
if BREAKER:
    POLICY_KEYS.add("breaker")
THROTTLE_KEYS = {"burst", "interval"}
BREAKER_KEYS = {"failures", "window", "open_for", "probes"}
MAX_POLICY_ATTEMPTS = 100
MAX_DISABLE_AFTER = 1000
MAX_WAIT = 2592000  # 30 days, for policy waits, retry_after and a throttle's interval alike
MAX_BURST = 1000000
MAX_AGE = 31536000  # 365 days, a policy's max_age (expiry.valid)
MAX_BREAKER_FAILURES = 1000  # a breaker's failures, as disable_after (breaker.valid)
MAX_PROBES = 100  # a breaker's probes; its window and open_for are at most MAX_WAIT
OUTCOME_KEYS = {"status", "retry_after"}
TS_LIMIT = 2**53 - 1

# Part 8: a secret is "whsec_" and the padded standard base64 of a 24- to 64-byte key; a retired
# secret signs for GRACE seconds after its rotation, and at most MAX_PREVIOUS of them are kept.
SECRET_PREFIX = "whsec_"
SECRET_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")  # the length and canonical form checked apart
MIN_KEY_BYTES = 24
MAX_KEY_BYTES = 64
GRACE = 86400
MAX_PREVIOUS = 10
TOLERANCE = 300  # verify: seconds between the timestamp and the receiver's clock, either way
HEADER_ID, HEADER_TIMESTAMP, HEADER_SIGNATURE = "webhook-id", "webhook-timestamp", "webhook-signature"
SIGNED_HEADERS = (HEADER_ID, HEADER_TIMESTAMP, HEADER_SIGNATURE)
# The decimal text of an integer: 0, or an optional minus then no leading zero (sig.verify-timestamp).
TIMESTAMP_TEXT = re.compile(r"0|-?[1-9][0-9]*")
TIMESTAMP_MAX_LEN = len(str(-TS_LIMIT))  # longer text is out of range (and int() never sees it)

# How many arguments may follow ts: fewest, most. dead_letters takes an optional endpoint id.
ARITY = {
    "register": (2, 2),
    "enqueue": (3, 3),
    "process": (0, 0),
    "status": (1, 1),
    "disable": (1, 1),
    "enable": (2, 2),
    "dead_letters": (0, 1),
    "set_policy": (2, 2),
    "policy": (1, 1),
    "endpoint": (1, 1),
    "dead_letter": (1, 1),
    "recover": (2, 2),
}
if SIGNATURES:
    ARITY.update({
        "enqueue": (3, 4),  # the payload is optional
        "set_secret": (2, 2),
        "signature": (2, 2),
        "verify": (3, 3),
    })


class DispatchError(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def is_int(x):
    return type(x) is int  # bool is a subclass of int: excluded on purpose


def is_ts(x):
    """An integer that every JSON reader holds exactly (op.ts-range): a ts, or recover's since."""
    return is_int(x) and abs(x) <= TS_LIMIT


def decode_secret(secret):
    """The key of a valid secret (sig.secret-strict), or None: "whsec_" and the canonical padded
    standard base64 of 24 to 64 bytes, nothing else (no whitespace, no URL-safe alphabet)."""
    if not isinstance(secret, str) or not secret.startswith(SECRET_PREFIX):
        return None
    text = secret[len(SECRET_PREFIX):]
    if not text or len(text) % 4 or not SECRET_BASE64.fullmatch(text):
        return None
    try:
        key = base64.b64decode(text, validate=True)
    except ValueError:  # binascii.Error is a ValueError
        return None
    if base64.b64encode(key).decode("ascii") != text:  # non-zero unused bits
        return None
    return key if MIN_KEY_BYTES <= len(key) <= MAX_KEY_BYTES else None


def signed_content(message_id, timestamp, body):
    """The UTF-8 bytes HMAC-SHA256 signs: "<id>.<timestamp>.<body>". (Requests are UTF-8 JSON, so
    no string holds an unpaired surrogate; surrogatepass only keeps run() from raising on one.)"""
    return f"{message_id}.{timestamp}.{body}".encode("utf-8", "surrogatepass")


def sign(key, content):
    """The padded standard base64 of HMAC-SHA256(key, content): what follows "v1,"."""
    return base64.b64encode(hmac.new(key, content, hashlib.sha256).digest()).decode("ascii")


def copy_policy(policy):
    return {key: list(value) if key == "waits" else dict(value) if key in ("throttle", "breaker")
            else value for key, value in policy.items()}


class Event:
    def __init__(self, event_id, endpoint_id, outcomes, order, due_at, body=""):
        self.id = event_id
        self.endpoint_id = endpoint_id
        self.outcomes = outcomes  # (status, retry_after or None) per attempt; the last repeats
        self.order = order
        self.due_at = due_at
        self.attempts = 0
        self.state = "pending"  # pending | delivered | dead
        self.died_at = None  # the ts of the process call that last killed it
        self.last_status = None  # the status of its last attempt in this life, None before any
        self.expired = False  # whether its last death was an expiry (Part 11)
        # Part 11: the ts at which it expires, fixed when its age starts (enqueue or revival), or
        # None; `life` counts its revivals, so a deadline queued for an earlier life is ignored.
        self.deadline = None
        self.life = 0
        self.body = body  # Part 8: the payload, the body of every attempt
        # Part 8: attempt number -> (the ts it was made at, the keys that signed it, newest first),
        # for the attempts of this life (since the enqueue or the last revival) made while the
        # endpoint had a secret; None until one is.
        self.signed = None


class Bucket:
    """A throttle's token bucket (Part 9). Tokens come at anchor + k * interval, k = 1, 2, ...,
    whatever is taken when (a token that comes while the bucket is full is lost); `counted_to`
    is the bucket time, the latest ts up to which tokens have been counted: it never goes back."""

    def __init__(self, burst, interval, ts):
        self.burst = burst
        self.interval = interval
        self.anchor = ts  # the ts of the set_policy that set the throttle
        self.tokens = burst  # starts full
        self.counted_to = ts

    def refill(self, ts):
        """Count the tokens whose times are in (counted_to, ts]; a ts that went back adds none."""
        if ts <= self.counted_to:
            return
        came = (ts - self.anchor) // self.interval - (self.counted_to - self.anchor) // self.interval
        self.tokens = min(self.burst, self.tokens + came)
        self.counted_to = ts

    def next_token_at(self):
        """The first token time after the bucket time, or TS_LIMIT if it would come later."""
        k = (self.counted_to - self.anchor) // self.interval + 1
        return min(self.anchor + k * self.interval, TS_LIMIT)


class Breaker:
    """A circuit breaker (Part 10): closed while `until` is None, else open until `until` and
    half-open from then on, by time alone (breaker.states): no operation is needed at T, every
    look compares a ts with it. When the real T is past TS_LIMIT, `until` is TS_LIMIT and
    `beyond` keeps it open at every ts (breaker.beyond-range)."""

    def __init__(self, failures, window, open_for, probes):
        self.failures = failures
        self.window = window
        self.open_for = open_for
        self.probes = probes
        self.until = None  # T while open or half-open, clamped to TS_LIMIT; None while closed
        # Whether the real T, ts + O, is past TS_LIMIT: no ts reaches it, so the breaker stays
        # open at every later ts, the limit included (breaker.beyond-range).
        self.beyond = False
        # The times of the latest failures since the breaker was set or last closed, in operation
        # order; only the last F matter (breaker.window).
        self.recent = deque(maxlen=failures)
        self.successes = 0  # successful probes in a row since it last became half-open

    def is_open(self, ts):
        """Open for every ts before T, half-open at or after it, whatever probes were made
        before (breaker.states-time); open at every ts when the real T is past TS_LIMIT
        (breaker.beyond-range)."""
        if self.beyond:
            return True
        return self.until is not None and ts < self.until

    def report(self, ts):
        """The state at ts (breaker.report, breaker.report-time)."""
        if self.until is None:
            return {"state": "closed", "until": None}
        if ts < self.until:
            return {"state": "open", "until": self.until}
        if self.beyond:  # no ts reaches the real T, not even TS_LIMIT (breaker.beyond-range)
            return {"state": "open", "until": TS_LIMIT}
        return {"state": "half-open", "until": None}

    def record(self, ts, failed):
        """Count an attempt made at ts, never one made while open (a picked head is held then);
        returns whether it opens the breaker."""
        if self.until is None:  # closed: successes change nothing
            if not failed:
                return False
            self.recent.append(ts)
            # The F-th most recent failure, this one the first, within the last W seconds.
            if len(self.recent) < self.failures or ts - self.recent[0] >= self.window:
                return False
        elif not failed:  # a successful probe
            self.successes += 1
            if self.successes >= self.probes:  # closed again: the failures before are forgotten
                self.until = None
                self.beyond = False
                self.recent.clear()
                self.successes = 0
            return False
        # Open (again, for a failed probe) until ts + O, shown as TS_LIMIT when it is past it;
        # then no later ts, TS_LIMIT included, finds it half-open (breaker.beyond-range).
        self.beyond = ts + self.open_for > TS_LIMIT
        self.until = min(ts + self.open_for, TS_LIMIT)
        self.successes = 0
        self.recent.clear()  # nothing counts until it closes, which forgets them anyway
        return True


class Endpoint:
    def __init__(self, url):
        self.url = url
        self.disabled = False
        self.disabled_reason = None  # while disabled: "manual", "gone" or "failing"
        self.consecutive_failures = 0  # failed attempts since the last delivery or enable
        self.pending = []  # events in enqueue order; pending[0] is the head
        self.dead = []  # dead-lettered events sorted by died_at, so recover takes a tail
        self.policy = copy_policy(DEFAULT_POLICY)  # exactly as last given to set_policy
        self.bucket = None  # a Bucket while the policy has a throttle
        self.breaker = None  # a Breaker while the policy has one (Part 10)
        # Events throttled (Part 9) or held by the breaker (Part 10) since their last attempt,
        # expiry, enable or set_policy: the next set_policy releases them.
        self.parked = []
        self.secret = None  # Part 8: the current secret, (text, key), or None before any
        self.previous = deque()  # Part 8: retired secrets (text, key, rotation ts), oldest first

    def signing_keys(self, ts):
        """The keys that sign an attempt made now at ts, newest first: the current secret's, then
        those of the previous secrets within their grace (ts - R < GRACE), the most recently
        retired first (sig.signers, sig.signers-order, sig.grace-boundary)."""
        keys = [self.secret[1]]
        keys.extend(key for _, key, retired_at in reversed(self.previous) if ts - retired_at < GRACE)
        return tuple(keys)


class Dispatcher:
    def __init__(self):
        self.endpoints = {}
        self.events = {}
        self.dead_letters = {}  # event id -> event, oldest death first
        self.next_order = 0
        # Part 11: (deadline, order, life, event) for every deadline that can still come; entries
        # of an event no longer pending, or of an earlier life of it, are dropped when popped.
        self.deadlines = []

    def register(self, ts, endpoint_id, url):
        if endpoint_id in self.endpoints:
            raise DispatchError("duplicate endpoint")
        self.endpoints[endpoint_id] = Endpoint(url)
        return True

    def enqueue(self, ts, endpoint_id, event_id, outcomes, payload=""):
        if endpoint_id not in self.endpoints:
            raise DispatchError("unknown endpoint")
        if event_id in self.events:
            raise DispatchError("duplicate event")
        event = Event(event_id, endpoint_id, [normalize_outcome(o) for o in outcomes],
                      self.next_order, ts, payload)
        self.next_order += 1
        self.events[event_id] = event
        endpoint = self.endpoints[endpoint_id]
        endpoint.pending.append(event)
        self.start_age(event, endpoint, ts)
        return "queued"

    def start_age(self, event, endpoint, ts):
        """Fix the event's deadline from the max_age of the policy in force now (expiry.deadline):
        a later set_policy moves it no more than a scheduled retry. One past TS_LIMIT is never
        reached (expiry.beyond-range), so it is not queued."""
        max_age = endpoint.policy.get("max_age")
        event.deadline = None if max_age is None else ts + max_age
        if event.deadline is not None and event.deadline <= TS_LIMIT:
            heapq.heappush(self.deadlines, (event.deadline, event.order, event.life, event))

    def expire(self, ts):
        """Kill every pending event whose deadline is at or before ts, in enqueue order (whatever
        its place: head, blocked, retrying, throttled, held by the breaker or held because its
        endpoint is disabled); returns their records."""
        due = []
        while self.deadlines and self.deadlines[0][0] <= ts:
            _, _, life, event = heapq.heappop(self.deadlines)
            if event.state == "pending" and life == event.life:
                due.append(event)
        due.sort(key=lambda e: e.order)
        records = []
        for event in due:
            endpoint = self.endpoints[event.endpoint_id]
            pending = endpoint.pending
            del pending[bisect_left(pending, event.order, key=lambda e: e.order)]
            if event in endpoint.parked:
                endpoint.parked.remove(event)
            # Not an attempt: the attempt count, the endpoint's failures in a row, its tokens and
            # its breaker stay as they are (expiry.not-attempt).
            self.bury(event, endpoint, ts)
            event.expired = True
            records.append(f"{event.id} expired")
        return records

    def process(self, ts):
        # Expiry comes first: an expired head frees its endpoint for this call's picks.
        records = self.expire(ts)
        # Every bucket counts the tokens that came up to this call, whatever its endpoint's state
        # (disabled, nothing due): its clock runs on (throttle.clock, throttle.pause).
        for ep in self.endpoints.values():
            if ep.bucket is not None:
                ep.bucket.refill(ts)
        # Endpoints whose head was throttled or held in this call: not picked again in it.
        passed_now = set()
        while True:
            candidates = [
                ep.pending[0]
                for ep in self.endpoints.values()
                if not ep.disabled and ep.pending and ep.pending[0].due_at <= ts
                and ep not in passed_now
            ]
            if not candidates:
                return records
            event = min(candidates, key=lambda e: (e.due_at, e.order))
            endpoint = self.endpoints[event.endpoint_id]
            # The breaker first: a held head takes no token (breaker.with-throttle).
            breaker = endpoint.breaker
            # An attempt of this call that opened it made T later than ts (O >= 1), so it is open
            # for the rest of the call, a T past TS_LIMIT included (breaker.beyond-range).
            if breaker is not None and breaker.is_open(ts):
                records.append(self.hold(event, endpoint, breaker.until))
                passed_now.add(endpoint)
                continue
            bucket = endpoint.bucket
            if bucket is not None and bucket.tokens == 0:
                records.append(self.throttle(event, bucket))
                passed_now.add(endpoint)
                continue
            if bucket is not None:
                bucket.tokens -= 1  # every attempt, first or retry, a probe too, takes one token
            records.extend(self.attempt(event, ts))

    def throttle(self, event, bucket):
        """A due head that finds no token is not attempted: it is due when the next token comes,
        with its attempt count, outcomes and retry schedule untouched; returns its record."""
        event.due_at = bucket.next_token_at()
        endpoint = self.endpoints[event.endpoint_id]
        if event not in endpoint.parked:
            endpoint.parked.append(event)
        return f"{event.id} throttled until {event.due_at}"

    def hold(self, event, endpoint, until):
        """A due head of an endpoint whose breaker is open is not attempted: it is due when the
        breaker becomes half-open (TS_LIMIT when that is past it: then it is held again at every
        later call), with its attempt count, outcomes and retry schedule untouched (breaker.held,
        breaker.beyond-range); returns its record."""
        event.due_at = until
        if event not in endpoint.parked:
            endpoint.parked.append(event)
        return f"{event.id} held until {until}"

    def attempt(self, event, ts):
        """Make one attempt; returns its records: the attempt's own, followed by
        "<endpoint_id> disabled" when the attempt disables the endpoint (a 410 under
        disable_on_gone, or a failure that brings the endpoint's failures in a row to its
        policy's disable_after)."""
        endpoint = self.endpoints[event.endpoint_id]
        policy = endpoint.policy  # the policy in force when the attempt fails decides
        breaker = endpoint.breaker
        if event in endpoint.parked:  # its attempt ends its throttling or holding
            endpoint.parked.remove(event)
        event.attempts += 1
        n = event.attempts
        if endpoint.secret is not None:  # the signers are fixed as the attempt is made
            if event.signed is None:
                event.signed = {}
            event.signed[n] = (ts, endpoint.signing_keys(ts))
        status, retry_after = event.outcomes[min(n, len(event.outcomes)) - 1]
        event.last_status = status
        prefix = f"{event.id} #{n} {status}"
        if 200 <= status <= 299:
            event.state = "delivered"
            endpoint.pending.pop(0)
            endpoint.consecutive_failures = 0
            if breaker is not None:
                breaker.record(ts, failed=False)
            return [f"{prefix} delivered"]
        endpoint.consecutive_failures += 1  # a timeout, a retryable or a permanent failure
        records = [f"{prefix} {self.fail(event, endpoint, policy, status, retry_after, ts)}"]
        # The breaker counts the failure after its record, independently of Part 6's count
        # (breaker.open, breaker.with-disable).
        if breaker is not None:
            breaker.record(ts, failed=True)
        reason = None
        if status == 410 and policy.get("disable_on_gone", False):
            reason = "gone"
        elif "disable_after" in policy and endpoint.consecutive_failures >= policy["disable_after"]:
            reason = "failing"
        if reason is not None:  # disabled exactly as by disable: its pending events are held
            endpoint.disabled_reason = reason
            endpoint.disabled = True
            records.append(f"{event.endpoint_id} disabled")
        return records

    def fail(self, event, endpoint, policy, status, retry_after, ts):
        """After a failed attempt, schedule the retry or kill the event; returns the end of the
        attempt's record: "retry at <due>" or "dead"."""
        n = event.attempts
        retryable = status in (0, 408, 429) or 500 <= status <= 599
        if retryable and n < policy["attempts"]:
            waits = policy["waits"]
            wait = waits[min(n, len(waits)) - 1]
            if retry_after is not None and status in (429, 503):
                wait = min(max(retry_after, wait), 2 * wait)
            # A due time past TS_LIMIT could never come: the event dies (retry.beyond-range).
            if ts + wait <= TS_LIMIT:
                event.due_at = ts + wait
                return f"retry at {event.due_at}"
        endpoint.pending.pop(0)
        self.bury(event, endpoint, ts)
        return "dead"

    def bury(self, event, endpoint, ts):
        """Make a pending event, already out of its endpoint's pending list, dead and
        dead-lettered, killed by the process call at ts."""
        event.state = "dead"
        event.died_at = ts
        event.expired = False
        self.dead_letters[event.id] = event
        if endpoint.dead and endpoint.dead[-1].died_at > ts:  # ts went back (op.ts-any-order)
            insort(endpoint.dead, event, key=lambda e: e.died_at)
        else:
            endpoint.dead.append(event)

    def status(self, ts, event_id):
        event = self.events.get(event_id)
        if event is None:
            raise DispatchError("unknown event")
        state = event.state
        next_at = None
        if state == "pending":
            if self.endpoints[event.endpoint_id].disabled:
                state = "held"
            else:
                next_at = event.due_at
        return {"state": state, "attempts": event.attempts, "next_attempt_at": next_at}

    def disable(self, ts, endpoint_id):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        if endpoint.disabled:
            raise DispatchError("already disabled")
        endpoint.disabled_reason = "manual"
        endpoint.disabled = True
        return True

    def enable(self, ts, endpoint_id, replay_dead):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        if not endpoint.disabled:
            raise DispatchError("not disabled")
        endpoint.disabled = False
        endpoint.disabled_reason = None
        endpoint.consecutive_failures = 0
        # Every pending event is due at ts below; the bucket and the breaker stay as they are.
        endpoint.parked = []
        if replay_dead:
            revived = endpoint.dead
            endpoint.dead = []
            for event in revived:
                self.revive(event, endpoint, ts)
            endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)
        for event in endpoint.pending:
            event.due_at = ts
        return True

    def revive(self, event, endpoint, ts):
        """A dead event back to pending with no attempts made, gone from dead_letters, with a
        fresh age from ts (expiry.revive); the caller puts it back among its endpoint's pending
        events."""
        del self.dead_letters[event.id]
        event.state = "pending"
        event.attempts = 0
        event.last_status = None
        event.signed = None  # attempts are numbered from 1 again (sig.attempt-n)
        event.life += 1
        self.start_age(event, endpoint, ts)

    def list_dead_letters(self, ts, endpoint_id=None):
        if endpoint_id is None:
            return [e.id for e in self.dead_letters.values()]
        if endpoint_id not in self.endpoints:
            raise DispatchError("unknown endpoint")
        return [e.id for e in self.dead_letters.values() if e.endpoint_id == endpoint_id]

    def set_policy(self, ts, endpoint_id, policy):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        # The whole policy is replaced; scheduled retries keep their due times.
        endpoint.policy = copy_policy(DEFAULT_POLICY if policy is None else policy)
        # A throttle, even the same one again, starts a new full bucket anchored here; without
        # one, no attempt needs a token (throttle.set, throttle.remove).
        throttle = endpoint.policy.get("throttle")
        endpoint.bucket = None if throttle is None else Bucket(throttle["burst"], throttle["interval"], ts)
        # A breaker, even the same one again, starts closed with no failures counted; without
        # one, nothing is held (breaker.set).
        breaker = endpoint.policy.get("breaker")
        endpoint.breaker = None if breaker is None else Breaker(
            breaker["failures"], breaker["window"], breaker["open_for"], breaker["probes"])
        # The old bucket's token times and the old breaker's T are gone: an event throttled or
        # held is due now, unless its due time has already passed (throttle.release, breaker.set).
        for event in endpoint.parked:
            event.due_at = min(event.due_at, ts)
        endpoint.parked = []
        return True

    def policy(self, ts, endpoint_id):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        return copy_policy(endpoint.policy)

    def endpoint(self, ts, endpoint_id):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        report = {"disabled": endpoint.disabled, "reason": endpoint.disabled_reason,
                  "consecutive_failures": endpoint.consecutive_failures}
        if endpoint.breaker is not None:  # only while the policy in force has one
            report["breaker"] = endpoint.breaker.report(ts)
        return report

    def dead_letter(self, ts, event_id):
        event = self.events.get(event_id)
        if event is None:
            raise DispatchError("unknown event")
        if event.state != "dead":
            raise DispatchError("not dead")
        details = {"endpoint": event.endpoint_id, "attempts": event.attempts,
                   "last_status": event.last_status, "died_at": event.died_at}
        if event.expired:  # only an expiry gives a reason (expiry.reason-key)
            details["reason"] = "expired"
        return details

    def recover(self, ts, endpoint_id, since):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        # endpoint.dead is sorted by died_at: the events that died at or after since are its tail.
        start = bisect_left(endpoint.dead, since, key=lambda e: e.died_at)
        revived = endpoint.dead[start:]
        del endpoint.dead[start:]
        for event in revived:  # as enable's replay, but only these events move
            self.revive(event, endpoint, ts)
            event.due_at = ts
            insort(endpoint.pending, event, key=lambda e: e.order)
        return len(revived)

    def set_secret(self, ts, endpoint_id, secret):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        current = endpoint.secret
        if current is not None and current[0] == secret:
            return True  # the current secret again: no rotation, no grace restarted
        if current is not None:  # a rotation: the current secret is retired at ts
            previous = endpoint.previous
            for i, (text, _, _) in enumerate(previous):
                if text == secret:  # a previous secret set again leaves the list as it becomes current
                    del previous[i]
                    break
            previous.append((current[0], current[1], ts))
            if len(previous) > MAX_PREVIOUS:
                previous.popleft()  # the earliest retired goes, even within its grace
        endpoint.secret = (secret, decode_secret(secret))
        return True

    def signature(self, ts, event_id, n):
        """The headers attempt n of the event carried: its own ts, the keys fixed when it was made."""
        event = self.events.get(event_id)
        if event is None:
            raise DispatchError("unknown event")
        if n > event.attempts:
            raise DispatchError("attempt not made")
        made = event.signed.get(n) if event.signed is not None else None
        if made is None:  # made while the endpoint had no secret
            raise DispatchError("no secret")
        made_at, keys = made
        timestamp = str(made_at)
        content = signed_content(event.id, timestamp, event.body)
        return {HEADER_ID: event.id, HEADER_TIMESTAMP: timestamp,
                HEADER_SIGNATURE: " ".join("v1," + sign(key, content) for key in keys)}

    def verify(self, ts, secrets, headers, body):
        """The receiver's check; reads no state of the dispatcher. The arguments have been checked
        (check_arguments), so every secret is valid and the three headers are named once at most."""
        found = {}
        for name, value in headers.items():
            if name.isascii() and name.lower() in SIGNED_HEADERS:  # ASCII case only
                found[name.lower()] = value
        message_id, timestamp, signatures = (found.get(h, "") for h in SIGNED_HEADERS)
        if not message_id or not timestamp or not signatures:
            raise DispatchError("missing header")
        if len(timestamp) > TIMESTAMP_MAX_LEN or not TIMESTAMP_TEXT.fullmatch(timestamp):
            raise DispatchError("bad timestamp")
        sent_at = int(timestamp)
        if abs(sent_at) > TS_LIMIT:
            raise DispatchError("bad timestamp")
        if ts - sent_at > TOLERANCE:
            raise DispatchError("timestamp too old")
        if sent_at - ts > TOLERANCE:
            raise DispatchError("timestamp too new")
        content = signed_content(message_id, timestamp, body)
        expected = [sign(decode_secret(secret), content).encode("ascii") for secret in secrets]
        for entry in signatures.split(" "):
            version, comma, given = entry.partition(",")
            if not comma or version != "v1":
                continue  # another version, an empty entry, no comma: ignored
            given = given.encode("utf-8", "surrogatepass")
            if any(hmac.compare_digest(given, e) for e in expected):
                return True
        raise DispatchError("no matching signature")


def normalize_outcome(outcome):
    """An outcomes entry as (status, retry_after); a plain status has no retry_after."""
    if isinstance(outcome, dict):
        return outcome["status"], outcome.get("retry_after")
    return outcome, None


def valid_status(s):
    return is_int(s) and (s == 0 or 100 <= s <= 599)


def valid_outcome(outcome):
    if not isinstance(outcome, dict):
        return valid_status(outcome)
    if "status" not in outcome or not set(outcome) <= OUTCOME_KEYS:
        return False
    if "retry_after" in outcome:
        r = outcome["retry_after"]
        if not (is_int(r) and 0 <= r <= MAX_WAIT):
            return False
    return valid_status(outcome["status"])


def valid_policy(policy):
    if policy is None:  # restores the default policy
        return True
    if not isinstance(policy, dict):
        return False
    if not {"attempts", "waits"} <= set(policy) <= POLICY_KEYS:
        return False
    attempts, waits = policy["attempts"], policy["waits"]
    if not (is_int(attempts) and 1 <= attempts <= MAX_POLICY_ATTEMPTS):
        return False
    if not isinstance(waits, list) or not waits:
        return False
    if not all(is_int(w) and 1 <= w <= MAX_WAIT for w in waits):
        return False
    if type(policy.get("disable_on_gone", False)) is not bool:
        return False
    if "disable_after" in policy:  # absent: the endpoint is never disabled automatically
        disable_after = policy["disable_after"]
        if not (is_int(disable_after) and 1 <= disable_after <= MAX_DISABLE_AFTER):
            return False
    if "max_age" in policy:  # absent: the endpoint's events never expire
        max_age = policy["max_age"]
        if not (is_int(max_age) and 1 <= max_age <= MAX_AGE):
            return False
    if "throttle" in policy and not valid_throttle(policy["throttle"]):  # absent: never throttled
        return False
    if "breaker" in policy and not valid_breaker(policy["breaker"]):  # absent: no breaker
        return False
    return True


def valid_throttle(throttle):
    """{"burst": B, "interval": S}, exactly those keys, 1 <= B <= 1000000, 1 <= S <= 30 days."""
    if not isinstance(throttle, dict) or set(throttle) != THROTTLE_KEYS:
        return False
    burst, interval = throttle["burst"], throttle["interval"]
    return is_int(burst) and 1 <= burst <= MAX_BURST and is_int(interval) and 1 <= interval <= MAX_WAIT


def valid_breaker(breaker):
    """{"failures": F, "window": W, "open_for": O, "probes": P}, exactly those keys, 1 <= F <= 1000,
    1 <= W, O <= 30 days, 1 <= P <= 100 (breaker.valid)."""
    if not isinstance(breaker, dict) or set(breaker) != BREAKER_KEYS:
        return False
    bounds = {"failures": MAX_BREAKER_FAILURES, "window": MAX_WAIT, "open_for": MAX_WAIT,
              "probes": MAX_PROBES}
    return all(is_int(breaker[key]) and 1 <= breaker[key] <= most for key, most in bounds.items())


def valid_headers(headers):
    """verify's headers: an object of string values naming each of the three headers at most once,
    ignoring ASCII case (sig.verify-args, sig.verify-headers)."""
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        return False
    named = [n.lower() for n in headers if n.isascii() and n.lower() in SIGNED_HEADERS]
    return len(named) == len(set(named))


def check_arguments(name, args):
    """Argument checks in the spec's order; raises DispatchError."""
    strings = {"register": (0, 1), "enqueue": (0, 1), "status": (0,), "disable": (0,), "enable": (0,),
               "dead_letters": (0,), "set_policy": (0,), "policy": (0,), "endpoint": (0,),
               "dead_letter": (0,), "recover": (0,), "set_secret": (0,), "signature": (0,)}
    for i in strings.get(name, ()):
        if i >= len(args):
            continue
        if not isinstance(args[i], str):
            raise DispatchError("invalid arguments")
    if name == "enqueue":
        outcomes = args[2]
        if not isinstance(outcomes, list) or not outcomes:
            raise DispatchError("invalid outcomes")
        if not all(valid_outcome(o) for o in outcomes):
            raise DispatchError("invalid outcomes")
        if len(args) == 4 and not isinstance(args[3], str):  # the payload, after outcomes
            raise DispatchError("invalid arguments")
    if name == "enable" and type(args[1]) is not bool:
        raise DispatchError("invalid arguments")
    if name == "set_policy" and not valid_policy(args[1]):
        raise DispatchError("invalid policy")
    if name == "recover" and not is_ts(args[1]):
        raise DispatchError("invalid arguments")
    if name == "set_secret" and decode_secret(args[1]) is None:
        raise DispatchError("invalid secret")
    if name == "signature" and not (is_ts(args[1]) and args[1] >= 1):  # n, read as a ts is
        raise DispatchError("invalid arguments")
    if name == "verify":
        secrets, headers, body = args
        if not isinstance(secrets, list) or not secrets or any(decode_secret(s) is None for s in secrets):
            raise DispatchError("invalid secret")
        if not valid_headers(headers) or not isinstance(body, str):
            raise DispatchError("invalid arguments")


def apply(dispatcher, op):
    if not isinstance(op, list):
        raise DispatchError("invalid arguments")
    if not op or not isinstance(op[0], str) or op[0] not in ARITY:
        raise DispatchError("unknown operation")
    name = op[0]
    fewest, most = ARITY[name]
    if not fewest + 2 <= len(op) <= most + 2:
        raise DispatchError("invalid arguments")
    ts = op[1]
    if not is_ts(ts):
        raise DispatchError("invalid arguments")
    args = op[2:]
    check_arguments(name, args)
    method = "list_dead_letters" if name == "dead_letters" else name
    return getattr(dispatcher, method)(ts, *args)


def run(operations):
    dispatcher = Dispatcher()
    results = []
    for op in operations:
        try:
            results.append(apply(dispatcher, op))
        except DispatchError as e:
            results.append(f"error: {e.code}")
    return results
