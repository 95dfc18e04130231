"""Webhook dispatcher (retries, per-endpoint ordering, pause/resume).

A plain-Python peer of the reference implementation, written from the brief
and spec/dispatcher.md.  Standard library only.

Data structures:
  * events and endpoints are looked up by id in dicts;
  * each endpoint keeps a deque of its pending events in enqueue order, so its
    head (the only event that may be attempted) is ``pending[0]``;
  * a single heap holds ``(due_at, enqueue_order, push_id, endpoint)`` entries
    for endpoint heads; an entry is valid only while ``push_id`` equals the
    endpoint's ``push_id`` (lazy invalidation), so ``process`` never scans
    endpoints or events that are not due;
  * dead letters are insertion-ordered dicts (global and per endpoint), which
    give "oldest death first" with O(1) removal on replay.

Usage: python3 heap_dispatcher.py [FILE]   (FILE or stdin when absent or "-")
"""

import heapq
import json
import sys
from collections import deque

MAX_ATTEMPTS = 6
BASE_DELAY = 30
MAX_DELAY = 300
MAX_SAFE_INT = 2**53 - 1

# Wait after the k-th failed attempt, indexed by k (1..MAX_ATTEMPTS-1).
WAITS = [0] + [min(BASE_DELAY << (k - 1), MAX_DELAY) for k in range(1, MAX_ATTEMPTS)]

PENDING, DELIVERED, DEAD = 0, 1, 2
STATE_NAMES = ("pending", "delivered", "dead")

ERR_UNKNOWN_OP = "error: unknown operation"
ERR_ARGS = "error: invalid arguments"
ERR_OUTCOMES = "error: invalid outcomes"
ERR_UNKNOWN_ENDPOINT = "error: unknown endpoint"
ERR_DUP_ENDPOINT = "error: duplicate endpoint"
ERR_DUP_EVENT = "error: duplicate event"
ERR_UNKNOWN_EVENT = "error: unknown event"
ERR_ALREADY_DISABLED = "error: already disabled"
ERR_NOT_DISABLED = "error: not disabled"


class Event:
    __slots__ = ("id", "seq", "endpoint", "outcomes", "attempts", "due_at", "state")

    def __init__(self, event_id, seq, endpoint, outcomes, due_at):
        self.id = event_id
        self.seq = seq
        self.endpoint = endpoint
        self.outcomes = outcomes
        self.attempts = 0
        self.due_at = due_at
        self.state = PENDING


class Endpoint:
    __slots__ = ("id", "url", "disabled", "pending", "dead", "push_id")

    def __init__(self, endpoint_id, url):
        self.id = endpoint_id
        self.url = url
        self.disabled = False
        self.pending = deque()  # pending events, in enqueue order
        self.dead = {}  # event id -> Event, oldest death first
        self.push_id = 0  # id of the one valid heap entry for this endpoint (0: none)


def _valid_outcomes(outcomes):
    if type(outcomes) is not list or not outcomes:
        return False
    for status in outcomes:
        if type(status) is not int or not (status == 0 or 100 <= status <= 599):
            return False
    return True


class Dispatcher:
    def __init__(self):
        self.endpoints = {}
        self.events = {}
        self.dead_letters = {}  # event id -> None, oldest death first
        self.heap = []
        self.next_seq = 0
        self.next_push = 0
        # name -> (handler, allowed operation lengths, including name and ts)
        self.ops = {
            "register": (self._register, (4,)),
            "enqueue": (self._enqueue, (5,)),
            "process": (self._process, (2,)),
            "status": (self._status, (3,)),
            "disable": (self._disable, (3,)),
            "enable": (self._enable, (4,)),
            "dead_letters": (self._dead_letters, (2, 3)),
        }

    # -- entry point ------------------------------------------------------

    def apply(self, op):
        """Execute one operation and return its result (never raises on bad input)."""
        if type(op) is not list:
            return ERR_ARGS
        if not op or type(op[0]) is not str:
            return ERR_UNKNOWN_OP
        entry = self.ops.get(op[0])
        if entry is None:
            return ERR_UNKNOWN_OP
        handler, lengths = entry
        if len(op) not in lengths:
            return ERR_ARGS
        ts = op[1]
        if type(ts) is not int or not -MAX_SAFE_INT <= ts <= MAX_SAFE_INT:
            return ERR_ARGS
        return handler(ts, op)

    # -- heap of endpoint heads --------------------------------------------

    def _push_head(self, endpoint):
        """Schedule the endpoint's head; any earlier heap entry becomes stale."""
        self.next_push += 1
        endpoint.push_id = push = self.next_push
        head = endpoint.pending[0]
        heapq.heappush(self.heap, (head.due_at, head.seq, push, endpoint))

    # -- operations -------------------------------------------------------

    def _register(self, ts, op):
        endpoint_id, url = op[2], op[3]
        if type(endpoint_id) is not str or type(url) is not str:
            return ERR_ARGS
        if endpoint_id in self.endpoints:
            return ERR_DUP_ENDPOINT
        self.endpoints[endpoint_id] = Endpoint(endpoint_id, url)
        return True

    def _enqueue(self, ts, op):
        endpoint_id, event_id, outcomes = op[2], op[3], op[4]
        if type(endpoint_id) is not str or type(event_id) is not str:
            return ERR_ARGS
        if not _valid_outcomes(outcomes):
            return ERR_OUTCOMES
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            return ERR_UNKNOWN_ENDPOINT
        if event_id in self.events:
            return ERR_DUP_EVENT
        event = Event(event_id, self.next_seq, endpoint, outcomes, ts)
        self.next_seq += 1
        self.events[event_id] = event
        endpoint.pending.append(event)
        if len(endpoint.pending) == 1 and not endpoint.disabled:
            self._push_head(endpoint)
        return "queued"

    def _process(self, ts, op):
        records = []
        record = records.append
        heap = self.heap
        heappop, heapreplace = heapq.heappop, heapq.heapreplace
        dead_letters = self.dead_letters
        push = self.next_push
        while heap:
            entry = heap[0]
            if entry[0] > ts:
                break
            endpoint = entry[3]
            if entry[2] != endpoint.push_id:
                heappop(heap)  # stale entry
                continue
            pending = endpoint.pending
            event = pending[0]
            event.attempts = n = event.attempts + 1
            outcomes = event.outcomes
            status = outcomes[n - 1] if n <= len(outcomes) else outcomes[-1]
            if 200 <= status <= 299:
                event.state = DELIVERED
                record(f"{event.id} #{n} {status} delivered")
                pending.popleft()
            elif (status >= 500 or status in (0, 408, 429)) and n < MAX_ATTEMPTS:
                # Retryable (500..599, since statuses are validated <= 599) with attempts left.
                event.due_at = due = ts + WAITS[n]
                record(f"{event.id} #{n} {status} retry at {due}")
            else:
                event.state = DEAD
                record(f"{event.id} #{n} {status} dead")
                pending.popleft()
                endpoint.dead[event.id] = event
                dead_letters[event.id] = None
            if pending:
                # The endpoint's (new or rescheduled) head replaces the popped entry.
                head = pending[0]
                push += 1
                endpoint.push_id = push
                heapreplace(heap, (head.due_at, head.seq, push, endpoint))
            else:
                endpoint.push_id = 0
                heappop(heap)
        self.next_push = push
        return records

    def _status(self, ts, op):
        event_id = op[2]
        if type(event_id) is not str:
            return ERR_ARGS
        event = self.events.get(event_id)
        if event is None:
            return ERR_UNKNOWN_EVENT
        if event.state == PENDING:
            if event.endpoint.disabled:
                return {"state": "held", "attempts": event.attempts, "next_attempt_at": None}
            return {"state": "pending", "attempts": event.attempts, "next_attempt_at": event.due_at}
        return {"state": STATE_NAMES[event.state], "attempts": event.attempts, "next_attempt_at": None}

    def _disable(self, ts, op):
        endpoint_id = op[2]
        if type(endpoint_id) is not str:
            return ERR_ARGS
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            return ERR_UNKNOWN_ENDPOINT
        if endpoint.disabled:
            return ERR_ALREADY_DISABLED
        endpoint.disabled = True
        endpoint.push_id = 0  # its heap entry, if any, is now stale
        return True

    def _enable(self, ts, op):
        endpoint_id, replay_dead = op[2], op[3]
        if type(endpoint_id) is not str or type(replay_dead) is not bool:
            return ERR_ARGS
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            return ERR_UNKNOWN_ENDPOINT
        if not endpoint.disabled:
            return ERR_NOT_DISABLED
        endpoint.disabled = False
        for event in endpoint.pending:
            event.due_at = ts
        if replay_dead and endpoint.dead:
            dead_letters = self.dead_letters
            revived = list(endpoint.dead.values())
            for event in revived:
                event.state = PENDING
                event.attempts = 0
                event.due_at = ts
                del dead_letters[event.id]
            endpoint.dead.clear()
            # Both runs are sorted by enqueue order; the merge puts each revived
            # event back at its original position.
            revived.sort(key=_seq_of)
            endpoint.pending = deque(heapq.merge(endpoint.pending, revived, key=_seq_of))
        if endpoint.pending:
            self._push_head(endpoint)
        return True

    def _dead_letters(self, ts, op):
        if len(op) == 2:
            return list(self.dead_letters)
        endpoint_id = op[2]
        if type(endpoint_id) is not str:
            return ERR_ARGS
        endpoint = self.endpoints.get(endpoint_id)
        if endpoint is None:
            return ERR_UNKNOWN_ENDPOINT
        return list(endpoint.dead)


def _seq_of(event):
    return event.seq


def run(operations):
    """Execute the operations against a fresh dispatcher; one result per operation."""
    apply = Dispatcher().apply
    return [apply(op) for op in operations]


# -- command line ----------------------------------------------------------

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def _is_operation_line(line):
    """True when the line on its own is a JSON array whose first element is a string."""
    try:
        value = json.loads(line)
    except ValueError:
        return False
    return type(value) is list and bool(value) and type(value[0]) is str


def main(argv):
    path = argv[1] if len(argv) > 1 else "-"
    try:
        source = sys.stdin.buffer if path == "-" else open(path, "rb")
    except OSError as exc:
        print(f"heap_dispatcher: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    out = open(sys.stdout.fileno(), "w", encoding="utf-8", buffering=1 << 16, closefd=False)
    try:
        return _run_stream(source, out.write)
    except ValueError as exc:  # malformed JSON or UTF-8
        print(f"heap_dispatcher: not JSON: {exc}", file=sys.stderr)
        return 2
    finally:
        out.flush()
        if source is not sys.stdin.buffer:
            source.close()


def _run_stream(source, write):
    # Find the first non-blank line to decide the input format.
    consumed = []
    first = ""
    for raw in source:
        consumed.append(raw)
        if raw.strip():
            first = raw.decode("utf-8")
            break
    apply = Dispatcher().apply
    encode = _encode
    loads = json.loads
    if first and _is_operation_line(first):
        # JSON lines: one operation per line, each result written as it is made.
        write(encode(apply(loads(first))) + "\n")
        for raw in source:
            if raw.strip():
                write(encode(apply(loads(raw.decode("utf-8")))) + "\n")
        return 0
    text = (b"".join(consumed) + source.read()).decode("utf-8")
    if not text.strip():
        print("heap_dispatcher: the input is empty: expected a JSON array of operations",
              file=sys.stderr)
        return 2
    operations = loads(text)
    if type(operations) is not list:
        print("heap_dispatcher: the input is not a JSON array of operations", file=sys.stderr)
        return 2
    results = [encode(apply(op)) for op in operations]
    write("[" + ",\n ".join(results) + "]\n")  # "[]" when there are no results
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
