"""A solution that follows the brief but decides every clarification differently from
spec/dispatcher.md: `hookcheck check --origin brief` must pass it, a full check must not."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))
import dispatcher as base  # noqa: E402
from declared import within_parts  # noqa: E402  (same folder)

# The brief's parts, the adapter's default: what Parts 4 to 7 would accept is refused.
PARTS = ("retries", "ordering", "pause")


class Variant(base.Dispatcher):
    def register(self, ts, endpoint_id, url):
        # Re-registering replaces the url instead of failing.
        if endpoint_id in self.endpoints:
            self.endpoints[endpoint_id].url = url
            return True
        return super().register(ts, endpoint_id, url)

    def enqueue(self, ts, endpoint_id, event_id, outcomes):
        if event_id in self.events:
            raise base.DispatchError("event exists")
        if endpoint_id not in self.endpoints:
            raise base.DispatchError("no such endpoint")
        return super().enqueue(ts, endpoint_id, event_id, outcomes)

    def status(self, ts, event_id):
        if event_id not in self.events:
            return None
        return super().status(ts, event_id)

    def disable(self, ts, endpoint_id):
        super().disable(ts, endpoint_id)
        return "disabled"

    def enable(self, ts, endpoint_id, replay_dead):
        super().enable(ts, endpoint_id, replay_dead)
        return {"enabled": endpoint_id}

    def list_dead_letters(self, ts):
        return sorted(e.id for e in self.dead_letters)


def run(operations):
    d = Variant()
    results = []
    for op in operations:
        op = within_parts(op, PARTS)
        try:
            # Booleans and whole floats pass as integers here (a clarification decides otherwise).
            if isinstance(op, list) and len(op) > 1 and (
                isinstance(op[1], bool) or (isinstance(op[1], float) and op[1].is_integer())
            ):
                op = [op[0], int(op[1])] + op[2:]
            results.append(base.apply(d, op))
        except base.DispatchError as e:
            results.append(f"error: {e.code}")
        except Exception as e:  # a variant, not a careful one
            results.append(f"error: {type(e).__name__}")
    return results
