"""What the fakes built on examples/python/dispatcher.py (which offers every part) need to answer
as an implementation of the parts they declare: within_parts(op, parts) turns an operation that a
part not declared would accept into one the example rejects the same way, changing nothing."""

# The roadmap's operations, by the part they belong to.
OWNER = {"set_policy": "policy", "policy": "policy", "endpoint": "auto-disable",
         "dead_letter": "dead-letters", "recover": "dead-letters",
         "set_secret": "signatures", "signature": "signatures", "verify": "signatures"}
# The policy keys of Parts 5, 6, 9, 10 and 11.
KEYS = {"disable_on_gone": "retry-after", "disable_after": "auto-disable", "throttle": "throttle",
        "max_age": "expiry", "breaker": "breaker"}


def within_parts(op, parts):
    """An operation of a part not declared is unknown (Part 4's set_policy and policy, Part 6's
    endpoint, Part 7's dead_letter and recover); a policy key of a part not declared makes the
    policy invalid (Part 5's disable_on_gone, Part 6's disable_after, Part 9's throttle, Part 10's breaker, Part 11's max_age); without
    Part 5 an object
    outcome is invalid."""
    if not isinstance(op, list) or not op:
        return op
    if isinstance(op[0], str) and OWNER.get(op[0], "retries") not in parts:
        return ["no such operation"]
    if (op[0] == "set_policy" and len(op) == 4 and isinstance(op[3], dict)
            and any(k in op[3] and p not in parts for k, p in KEYS.items())):
        return op[:3] + [{"no such key": 0}]
    # Without Part 8, an enqueue with a payload has one argument too many (sig.absent).
    if op[0] == "enqueue" and "signatures" not in parts and len(op) == 6:
        return ["enqueue"]
    if (op[0] == "enqueue" and "retry-after" not in parts and len(op) == 5
            and isinstance(op[4], list) and any(isinstance(o, dict) for o in op[4])):
        return op[:4] + [[]]
    return op
