"""examples/python/dispatcher.py with one subtle bug that the case corpus does not catch:
enable(replay_dead=True) gives each revived event a new enqueue number. Within its endpoint the
revived event still goes first, but when it is due at the same time as another endpoint's event
that was enqueued in between, the other event wrongly goes first (process.pick, enqueue.order)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import dispatcher as base  # noqa: E402
from declared import within_parts  # noqa: E402  (same folder)

# The brief's parts, the adapter's default: what Parts 4 to 7 would accept is refused.
PARTS = ("retries", "ordering", "pause")


class Buggy(base.Dispatcher):
    def enable(self, ts, endpoint_id, replay_dead):
        endpoint = self.endpoints.get(endpoint_id)
        dead_before = [e for e in self.dead_letters.values() if e.endpoint_id == endpoint_id]
        result = super().enable(ts, endpoint_id, replay_dead)
        if replay_dead and endpoint is not None:
            for event in dead_before:
                event.order = self.next_order  # the bug
                self.next_order += 1
            endpoint.pending = dead_before + [e for e in endpoint.pending if e not in dead_before]
        return result


def run(operations):
    d = Buggy()
    results = []
    for op in operations:
        op = within_parts(op, PARTS)
        try:
            results.append(base.apply(d, op))
        except base.DispatchError as e:
            results.append(f"error: {e.code}")
    return results
