"""A Python solution of the brief "Webhook Dispatcher: Retries, Ordering and Pausing" (Parts 1
to 3) and of the roadmap's Part 4 (retry policy per endpoint) and Part 5 (Retry-After and Gone),
written the way a Python user would write it, from the seed brief, shared/roadmap.md and
spec/dispatcher.md (clarifications included), without looking at the reference dispatcher or the
other examples.

    hookcheck check --impl "python3 harness/adapters/python/hookcheck_adapter.py examples/python/dispatcher.py"
"""

HOOKCHECK_PARTS = ["retries", "ordering", "pause", "policy", "retry-after"]

# The brief's schedule is the default policy: 6 attempts, waits after failure 1, 2, 3, 4, 5.
DEFAULT_POLICY = {"attempts": 6, "waits": [30, 60, 120, 240, 300]}
POLICY_KEYS = {"attempts", "waits", "disable_on_gone"}
MAX_POLICY_ATTEMPTS = 100
MAX_WAIT = 2592000  # 30 days, for policy waits and retry_after alike
OUTCOME_KEYS = {"status", "retry_after"}
TS_LIMIT = 2**53 - 1

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
}


class DispatchError(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def is_int(x):
    return type(x) is int  # bool is a subclass of int: excluded on purpose


def copy_policy(policy):
    return {key: list(value) if key == "waits" else value for key, value in policy.items()}


class Event:
    def __init__(self, event_id, endpoint_id, outcomes, order, due_at):
        self.id = event_id
        self.endpoint_id = endpoint_id
        self.outcomes = outcomes  # (status, retry_after or None) per attempt; the last repeats
        self.order = order
        self.due_at = due_at
        self.attempts = 0
        self.state = "pending"  # pending | delivered | dead


class Endpoint:
    def __init__(self, url):
        self.url = url
        self.disabled = False
        self.pending = []  # events in enqueue order; pending[0] is the head
        self.policy = copy_policy(DEFAULT_POLICY)  # exactly as last given to set_policy


class Dispatcher:
    def __init__(self):
        self.endpoints = {}
        self.events = {}
        self.dead_letters = []
        self.next_order = 0

    def register(self, ts, endpoint_id, url):
        if endpoint_id in self.endpoints:
            raise DispatchError("duplicate endpoint")
        self.endpoints[endpoint_id] = Endpoint(url)
        return True

    def enqueue(self, ts, endpoint_id, event_id, outcomes):
        if endpoint_id not in self.endpoints:
            raise DispatchError("unknown endpoint")
        if event_id in self.events:
            raise DispatchError("duplicate event")
        event = Event(event_id, endpoint_id, [normalize_outcome(o) for o in outcomes],
                      self.next_order, ts)
        self.next_order += 1
        self.events[event_id] = event
        self.endpoints[endpoint_id].pending.append(event)
        return "queued"

    def process(self, ts):
        records = []
        while True:
            candidates = [
                ep.pending[0]
                for ep in self.endpoints.values()
                if not ep.disabled and ep.pending and ep.pending[0].due_at <= ts
            ]
            if not candidates:
                return records
            event = min(candidates, key=lambda e: (e.due_at, e.order))
            records.extend(self.attempt(event, ts))

    def attempt(self, event, ts):
        """Make one attempt; returns its records: the attempt's own, followed by
        "<endpoint_id> disabled" when a 410 disables the endpoint (disable_on_gone)."""
        endpoint = self.endpoints[event.endpoint_id]
        policy = endpoint.policy  # the policy in force when the attempt fails decides
        event.attempts += 1
        n = event.attempts
        status, retry_after = event.outcomes[min(n, len(event.outcomes)) - 1]
        prefix = f"{event.id} #{n} {status}"
        if 200 <= status <= 299:
            event.state = "delivered"
            endpoint.pending.pop(0)
            return [f"{prefix} delivered"]
        retryable = status in (0, 408, 429) or 500 <= status <= 599
        if retryable and n < policy["attempts"]:
            waits = policy["waits"]
            wait = waits[min(n, len(waits)) - 1]
            if retry_after is not None and status in (429, 503):
                wait = min(max(retry_after, wait), 2 * wait)
            # A due time past TS_LIMIT could never come: the event dies (retry.beyond-range).
            if ts + wait <= TS_LIMIT:
                event.due_at = ts + wait
                return [f"{prefix} retry at {event.due_at}"]
        event.state = "dead"
        self.dead_letters.append(event)
        endpoint.pending.pop(0)
        records = [f"{prefix} dead"]
        if status == 410 and policy.get("disable_on_gone", False):
            endpoint.disabled = True
            records.append(f"{event.endpoint_id} disabled")
        return records

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
        endpoint.disabled = True
        return True

    def enable(self, ts, endpoint_id, replay_dead):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        if not endpoint.disabled:
            raise DispatchError("not disabled")
        endpoint.disabled = False
        if replay_dead:
            revived = [e for e in self.dead_letters if e.endpoint_id == endpoint_id]
            self.dead_letters = [e for e in self.dead_letters if e.endpoint_id != endpoint_id]
            for event in revived:
                event.state = "pending"
                event.attempts = 0
            endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)
        for event in endpoint.pending:
            event.due_at = ts
        return True

    def list_dead_letters(self, ts, endpoint_id=None):
        if endpoint_id is None:
            return [e.id for e in self.dead_letters]
        if endpoint_id not in self.endpoints:
            raise DispatchError("unknown endpoint")
        return [e.id for e in self.dead_letters if e.endpoint_id == endpoint_id]

    def set_policy(self, ts, endpoint_id, policy):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        # The whole policy is replaced; scheduled retries keep their due times.
        endpoint.policy = copy_policy(DEFAULT_POLICY if policy is None else policy)
        return True

    def policy(self, ts, endpoint_id):
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            raise DispatchError("unknown endpoint")
        return copy_policy(endpoint.policy)


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
    return type(policy.get("disable_on_gone", False)) is bool


def check_arguments(name, args):
    """Argument checks in the spec's order; raises DispatchError."""
    strings = {"register": (0, 1), "enqueue": (0, 1), "status": (0,), "disable": (0,), "enable": (0,),
               "dead_letters": (0,), "set_policy": (0,), "policy": (0,)}
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
    if name == "enable" and type(args[1]) is not bool:
        raise DispatchError("invalid arguments")
    if name == "set_policy" and not valid_policy(args[1]):
        raise DispatchError("invalid policy")


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
    if not is_int(ts) or abs(ts) > TS_LIMIT:
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
