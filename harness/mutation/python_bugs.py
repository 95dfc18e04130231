#!/usr/bin/env python3
"""Plant plausible bugs, one at a time, in a copy of examples/python/dispatcher.py and check it
against the corpus with the release hookcheck binary; a bug no case catches is a missing case.

    cargo build --release && python3 harness/mutation/python_bugs.py [--fuzz SECONDS] [NAME...]

--origin brief checks only what the brief states; --cases OLD checks an older corpus instead of
the built-in one (to show which bugs it missed); --binary picks another hookcheck build.

With --fuzz, each mutant is also fuzzed in brief mode (`hookcheck fuzz --brief`, seed 1) for that
many seconds, and the time to the first finding is reported.
"""
import argparse
import os
import subprocess
import sys
import tempfile

from planted_bugs import fuzz_finds  # same folder: on the path when run as a script

SOURCE = "examples/python/dispatcher.py"

BUGS = {
    "held status keeps next_attempt_at": [
        ('state = "held"\n            else:\n                next_at = event.due_at', 'state = "held"\n            next_at = event.due_at'),
    ],
    "held status hides attempts": [
        ('return {"state": state, "attempts": event.attempts, "next_attempt_at": next_at}',
         'return {"state": state, "attempts": 0 if state == "held" else event.attempts, "next_attempt_at": next_at}'),
    ],
    "enable without replay resets attempts": [
        ("        for event in endpoint.pending:\n            event.due_at = ts",
         "        for event in endpoint.pending:\n            event.due_at = ts\n            event.attempts = 0"),
    ],
    "enable never moves a due time later": [
        ("        for event in endpoint.pending:\n            event.due_at = ts",
         "        for event in endpoint.pending:\n            event.due_at = min(event.due_at, ts)"),
    ],
    "enable moves only the head": [
        ("        for event in endpoint.pending:\n            event.due_at = ts",
         "        for event in endpoint.pending[:1]:\n            event.due_at = ts"),
    ],
    "disabled endpoint shows settled events as held": [
        ('        if state == "pending":\n            if self.endpoints[event.endpoint_id].disabled:',
         '        if self.endpoints[event.endpoint_id].disabled:\n            state = "held"\n        elif state == "pending":\n            if False:'),
    ],
    "replay revives every endpoint's dead": [
        ("revived = endpoint.dead\n            endpoint.dead = []",
         "revived = [e for ep in self.endpoints.values() for e in ep.dead]\n            for ep in self.endpoints.values():\n                ep.dead = []"),
    ],
    "replay leaves events in dead_letters": [
        ("        del self.dead_letters[event.id]\n", ""),
    ],
    "first wait indexed from the attempt after": [
        ("wait = waits[min(n, len(waits)) - 1]", "wait = waits[min(n, len(waits) - 1)]"),
    ],
    "3xx retried": [
        ("retryable = status in (0, 408, 429) or 500 <= status <= 599",
         "retryable = status in (0, 408, 429) or 500 <= status <= 599 or 300 <= status <= 399"),
    ],
    "1xx delivers": [
        ("if 200 <= status <= 299:", "if 100 <= status <= 299:"),
    ],
    "last outcome does not repeat (first does)": [
        ("status, retry_after = event.outcomes[min(n, len(event.outcomes)) - 1]",
         "status, retry_after = event.outcomes[n - 1] if n <= len(event.outcomes) else event.outcomes[0]"),
    ],
    "ties broken by event id": [
        ("event = min(candidates, key=lambda e: (e.due_at, e.order))",
         "event = min(candidates, key=lambda e: (e.due_at, e.id))"),
    ],
    "ties broken by endpoint registration": [
        ("event = min(candidates, key=lambda e: (e.due_at, e.order))",
         "event = min(candidates, key=lambda e: (e.due_at, list(self.endpoints).index(e.endpoint_id)))"),
    ],
    "dead head does not unblock in the same call": [
        ("        records = self.expire(ts)\n",
         "        records = self.expire(ts)\n        self._blocked = set()\n"),
        ("                for ep in self.endpoints.values()\n                if not ep.disabled",
         "                for eid, ep in self.endpoints.items()\n                if eid not in self._blocked and not ep.disabled"),
        ('        endpoint.pending.pop(0)\n        self.bury(event, endpoint, ts)\n        return "dead"',
         '        endpoint.pending.pop(0)\n        self.bury(event, endpoint, ts)\n        self._blocked.add(event.endpoint_id)\n        return "dead"'),
    ],
    "replayed events keep their old due time": [
        ("            for event in revived:\n                self.revive(event, endpoint, ts)",
         "            for event in revived:\n                self.revive(event, endpoint, ts)\n                event.keep = event.due_at"),
        ("        for event in endpoint.pending:\n            event.due_at = ts",
         "        for event in endpoint.pending:\n            event.due_at = event.__dict__.pop('keep', ts)"),
    ],
    "disable drops pending events": [
        ("        endpoint.disabled = True\n        return True",
         "        endpoint.disabled = True\n        endpoint.pending = []\n        return True"),
    ],
    "enable with replay errors when nothing is dead": [
        ("        if replay_dead:\n            revived",
         "        if replay_dead and not endpoint.dead:\n            raise DispatchError(\"nothing to replay\")\n        if replay_dead:\n            revived"),
    ],
    "retry due counts from the old due time": [
        ("event.due_at = ts + wait", "event.due_at = event.due_at + wait"),
    ],
    "delivered event can be enqueued again": [
        ("        if event_id in self.events:\n            raise DispatchError(\"duplicate event\")",
         "        if event_id in self.events and self.events[event_id].state != \"delivered\":\n            raise DispatchError(\"duplicate event\")"),
    ],
    "replay moves only the revived events' due times": [
        ("            endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)\n        for event in endpoint.pending:\n            event.due_at = ts",
         "            endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)\n            for event in revived:\n                event.due_at = ts\n            return True\n        for event in endpoint.pending:\n            event.due_at = ts"),
    ],
    "a waiting event reports its head's due time": [
        ("            else:\n                next_at = event.due_at",
         "            else:\n                next_at = self.endpoints[event.endpoint_id].pending[0].due_at"),
    ],
    "dead_letters in enqueue order": [
        ("        return [e.id for e in self.dead_letters.values()]",
         "        return [e.id for e in sorted(self.dead_letters.values(), key=lambda e: e.order)]"),
    ],
    "wait capped at 240": [
        ('DEFAULT_POLICY = {"attempts": 6, "waits": [30, 60, 120, 240, 300]}',
         'DEFAULT_POLICY = {"attempts": 6, "waits": [30, 60, 120, 240, 240]}'),
    ],
    "disable forgets the endpoint's dead letters": [
        ("        endpoint.disabled = True\n        return True",
         "        endpoint.disabled = True\n        for event in endpoint.dead:\n            del self.dead_letters[event.id]\n        endpoint.dead = []\n        return True"),
    ],
    "status before any process shows attempts 1": [
        ('return {"state": state, "attempts": event.attempts, "next_attempt_at": next_at}',
         'return {"state": state, "attempts": max(event.attempts, 1), "next_attempt_at": next_at}'),
    ],
    # Added with the rules x situations grid (spec/situations.md): bugs that show only away
    # from an endpoint's head, at status boundaries, or on blocked events around enable/replay.
    "only the head of a disabled endpoint is held": [
        ("            if self.endpoints[event.endpoint_id].disabled:",
         "            if self.endpoints[event.endpoint_id].disabled and self.endpoints[event.endpoint_id].pending[0] is event:"),
    ],
    "enable moves only the head and attempted events": [
        ("        for event in endpoint.pending:\n            event.due_at = ts",
         "        for event in endpoint.pending:\n            if event.attempts or event is endpoint.pending[0]:\n                event.due_at = ts"),
    ],
    "enable never moves a due time earlier": [
        ("        for event in endpoint.pending:\n            event.due_at = ts",
         "        for event in endpoint.pending:\n            event.due_at = max(event.due_at, ts)"),
    ],
    "revived events go to the back": [
        ("endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)",
         "endpoint.pending = endpoint.pending + revived"),
    ],
    "revived events go behind the head": [
        ("endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)",
         "endpoint.pending = endpoint.pending[:1] + revived + endpoint.pending[1:]"),
    ],
    "replay resets the attempts of pending events too": [
        ("endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)",
         "endpoint.pending = sorted(endpoint.pending + revived, key=lambda e: e.order)\n            for event in endpoint.pending:\n                event.attempts = 0"),
    ],
    "status 99 is valid": [
        ("(s == 0 or 100 <= s <= 599)", "(s == 0 or 99 <= s <= 599)"),
    ],
    "status 600 is valid": [
        ("(s == 0 or 100 <= s <= 599)", "(s == 0 or 100 <= s <= 600)"),
    ],
    "statuses 1 to 99 are valid": [
        ("(s == 0 or 100 <= s <= 599)", "(0 <= s <= 599)"),
    ],
    "negative statuses are valid": [
        ("(s == 0 or 100 <= s <= 599)", "(s <= 0 or 100 <= s <= 599)"),
    ],
    "only the first status is checked": [
        ("if not all(valid_outcome(o) for o in outcomes):", "if not all(valid_outcome(o) for o in outcomes[:1]):"),
    ],
    "299 is not a delivery": [
        ("if 200 <= status <= 299:", "if 200 <= status < 299:"),
    ],
    "599 is permanent": [
        ("retryable = status in (0, 408, 429) or 500 <= status <= 599",
         "retryable = status in (0, 408, 429) or 500 <= status < 599"),
    ],
    "dead_letters ignores the endpoint filter": [
        ("return [e.id for e in self.dead_letters.values() if e.endpoint_id == endpoint_id]",
         "return [e.id for e in self.dead_letters.values()]"),
    ],
    # Parts 4 and 5 of the roadmap (spec sections 11 and 12) and `retry.beyond-range`.
    "the default policy applies whatever the endpoint's": [
        ("policy = endpoint.policy  # the policy", "policy = DEFAULT_POLICY  # the policy"),
    ],
    "a policy's waits are read one entry late": [
        ("wait = waits[min(n, len(waits)) - 1]", "wait = waits[min(n, len(waits) - 1)]"),
    ],
    "a policy allows one attempt more": [
        ('if retryable and n < policy["attempts"]:', 'if retryable and n <= policy["attempts"]:'),
    ],
    "set_policy null keeps the old policy": [
        ("endpoint.policy = copy_policy(DEFAULT_POLICY if policy is None else policy)",
         "endpoint.policy = copy_policy(endpoint.policy if policy is None else policy)"),
    ],
    "a policy of 0 attempts is valid": [
        ("1 <= attempts <= MAX_POLICY_ATTEMPTS", "0 <= attempts <= MAX_POLICY_ATTEMPTS"),
    ],
    "an empty waits list is valid": [
        ("if not isinstance(waits, list) or not waits:", "if not isinstance(waits, list):"),
    ],
    "an unknown policy key is ignored": [
        ('if not {"attempts", "waits"} <= set(policy) <= POLICY_KEYS:', 'if not {"attempts", "waits"} <= set(policy):'),
    ],
    "retry_after is not capped at twice the wait": [
        ("wait = min(max(retry_after, wait), 2 * wait)", "wait = max(retry_after, wait)"),
    ],
    "retry_after may shorten the wait": [
        ("wait = min(max(retry_after, wait), 2 * wait)", "wait = min(retry_after, 2 * wait)"),
    ],
    "retry_after is honoured on every retryable status": [
        ("if retry_after is not None and status in (429, 503):", "if retry_after is not None:"),
    ],
    "retry_after is ignored on 429": [
        ("if retry_after is not None and status in (429, 503):", "if retry_after is not None and status == 503:"),
    ],
    "an outcome object may lack its status": [
        ('if "status" not in outcome or not set(outcome) <= OUTCOME_KEYS:', 'if not set(outcome) <= OUTCOME_KEYS:'),
        ('    return valid_status(outcome["status"])', '    return valid_status(outcome.get("status", 200))'),
        ('        return outcome["status"], outcome.get("retry_after")', '        return outcome.get("status", 200), outcome.get("retry_after")'),
    ],
    "disable_on_gone is ignored": [
        ('if status == 410 and policy.get("disable_on_gone", False):', 'if False:'),
    ],
    "disable_on_gone disables on any 4xx": [
        ('if status == 410 and policy.get("disable_on_gone", False):', 'if 400 <= status <= 499 and policy.get("disable_on_gone", False):'),
    ],
    "no record for an endpoint disabled by a 410": [
        ('            records.append(f"{event.endpoint_id} disabled")\n',
         '            if reason != "gone":\n                records.append(f"{event.endpoint_id} disabled")\n'),
    ],
    "a due time past 2^53 - 1 is a retry": [
        ("if ts + wait <= TS_LIMIT:", "if True:"),
    ],

    # Parts 6 and 7 of the roadmap (spec sections 13 and 14).
    "a delivery does not reset the failure count": [
        ("            endpoint.pending.pop(0)\n            endpoint.consecutive_failures = 0\n", "            endpoint.pending.pop(0)\n"),
    ],
    "a permanent failure does not count": [
        ("        endpoint.consecutive_failures += 1  # a timeout",
         "        endpoint.consecutive_failures += 0 if 400 <= status <= 499 and status not in (408, 429) else 1  # a timeout"),
    ],
    "the threshold must be passed, not reached": [
        ('endpoint.consecutive_failures >= policy["disable_after"]', 'endpoint.consecutive_failures > policy["disable_after"]'),
    ],
    "failing wins over gone": [
        ('        if status == 410 and policy.get("disable_on_gone", False):\n            reason = "gone"\n        elif "disable_after" in policy and endpoint.consecutive_failures >= policy["disable_after"]:\n            reason = "failing"',
         '        if "disable_after" in policy and endpoint.consecutive_failures >= policy["disable_after"]:\n            reason = "failing"\n        elif status == 410 and policy.get("disable_on_gone", False):\n            reason = "gone"'),
    ],
    "an automatic disable is reported as manual": [
        ('            reason = "failing"', '            reason = "manual"'),
    ],
    "enable does not reset the failure count": [
        ("        endpoint.disabled_reason = None\n        endpoint.consecutive_failures = 0\n", "        endpoint.disabled_reason = None\n"),
    ],
    "dead_letter answers for a revived event": [
        ('        if event.state != "dead":\n            raise DispatchError("not dead")', '        if event.died_at is None:\n            raise DispatchError("not dead")'),
    ],
    "recover's since is exclusive": [
        ("start = bisect_left(endpoint.dead, since, key=lambda e: e.died_at)", "start = bisect_left(endpoint.dead, since + 1, key=lambda e: e.died_at)"),
    ],
    "recover revives every dead event": [
        ("start = bisect_left(endpoint.dead, since, key=lambda e: e.died_at)", "start = 0"),
    ],
    "recovered events go to the back of the queue": [
        ("            insort(endpoint.pending, event, key=lambda e: e.order)\n        return len(revived)", "            endpoint.pending.append(event)\n        return len(revived)"),
    ],
    "recover makes every pending event due": [
        ("            insort(endpoint.pending, event, key=lambda e: e.order)\n        return len(revived)",
         "            insort(endpoint.pending, event, key=lambda e: e.order)\n        for other in endpoint.pending:\n            other.due_at = ts\n        return len(revived)"),
    ],
    "recover counts the endpoint's dead letters left": [
        ("            insort(endpoint.pending, event, key=lambda e: e.order)\n        return len(revived)", "            insort(endpoint.pending, event, key=lambda e: e.order)\n        return len(endpoint.dead)"),
    ],
    # Where two roadmap parts meet, and ts going back (issue: bugs the corpus missed).
    "a plain 429 or 503 takes the retry_after of an earlier entry": [
        ("        status, retry_after = event.outcomes[min(n, len(event.outcomes)) - 1]\n",
         "        status, retry_after = event.outcomes[min(n, len(event.outcomes)) - 1]\n"
         "        if retry_after is None:\n            retry_after = getattr(event, 'kept_retry_after', None)\n"
         "        event.kept_retry_after = retry_after\n"),
    ],
    "recover takes the deaths to be in time order": [
        ("if endpoint.dead and endpoint.dead[-1].died_at > ts:", "if False:"),
    ],
    "set_policy null keeps disable_after": [
        ("endpoint.policy = copy_policy(DEFAULT_POLICY if policy is None else policy)",
         "endpoint.policy = copy_policy({**DEFAULT_POLICY, **{k: v for k, v in endpoint.policy.items() if k == 'disable_after'}} if policy is None else policy)"),
    ],
    "set_policy null keeps disable_on_gone": [
        ("endpoint.policy = copy_policy(DEFAULT_POLICY if policy is None else policy)",
         "endpoint.policy = copy_policy({**DEFAULT_POLICY, **{k: v for k, v in endpoint.policy.items() if k == 'disable_on_gone'}} if policy is None else policy)"),
    ],
    "dead_letter shows an outcome object as given": [
        ("        event.last_status = status\n",
         "        event.last_status = status if retry_after is None else {'status': status, 'retry_after': retry_after}\n"),
    ],
    # Part 9 of the roadmap, throttle (spec section 15).
    "a throttle's refill is not capped at its burst": [
        ("self.tokens = min(self.burst, self.tokens + came)", "self.tokens = self.tokens + came"),
    ],
    "a throttled head counts as an attempt": [
        ("        event.due_at = bucket.next_token_at()\n",
         "        event.due_at = bucket.next_token_at()\n        event.attempts += 1\n"),
    ],
    "the next token is counted from the call's ts": [
        ("return min(self.anchor + k * self.interval, TS_LIMIT)", "return min(self.counted_to + self.interval, TS_LIMIT)"),
    ],
    "a throttled head goes to the back of its endpoint's queue": [
        ("        endpoint = self.endpoints[event.endpoint_id]\n        if event not in endpoint.parked:",
         "        endpoint = self.endpoints[event.endpoint_id]\n        endpoint.pending.remove(event)\n        endpoint.pending.append(event)\n        if event not in endpoint.parked:"),
    ],
    "retries take no token": [
        ("                bucket.tokens -= 1  # every attempt", "                bucket.tokens -= 1 if event.attempts == 0 else 0  # every attempt"),
    ],
    "a new throttle takes over the old bucket's tokens": [
        ('endpoint.bucket = None if throttle is None else Bucket(throttle["burst"], throttle["interval"], ts)',
         'old_bucket = endpoint.bucket\n        endpoint.bucket = None if throttle is None else Bucket(throttle["burst"], throttle["interval"], ts)\n'
         '        if old_bucket is not None and endpoint.bucket is not None:\n            endpoint.bucket.tokens = min(old_bucket.tokens, endpoint.bucket.burst)'),
    ],
    "setting the same throttle again keeps its bucket": [
        ('endpoint.bucket = None if throttle is None else Bucket(throttle["burst"], throttle["interval"], ts)',
         'same = endpoint.bucket is not None and throttle is not None and (endpoint.bucket.burst, endpoint.bucket.interval) == (throttle["burst"], throttle["interval"])\n'
         '        endpoint.bucket = None if throttle is None else endpoint.bucket if same else Bucket(throttle["burst"], throttle["interval"], ts)'),
    ],
    "a policy without a throttle keeps the old bucket": [
        ('endpoint.bucket = None if throttle is None else Bucket(throttle["burst"], throttle["interval"], ts)',
         'endpoint.bucket = endpoint.bucket if throttle is None else Bucket(throttle["burst"], throttle["interval"], ts)'),
    ],
    "set_policy does not release a throttled head": [
        # A throttled head leaves `parked`, so only the breaker's held heads are released.
        ('        if event not in endpoint.parked:\n            endpoint.parked.append(event)\n        return f"{event.id} throttled',
         '        if event in endpoint.parked:\n            endpoint.parked.remove(event)\n        return f"{event.id} throttled'),
    ],
    "set_policy makes a throttled head due later": [
        ("            event.due_at = min(event.due_at, ts)\n", "            event.due_at = ts\n"),
    ],
    "a disabled endpoint's due head takes tokens": [
        ("            if ep.bucket is not None:\n                ep.bucket.refill(ts)\n",
         "            if ep.bucket is not None:\n                ep.bucket.refill(ts)\n"
         "                if ep.disabled and ep.pending and ep.pending[0].due_at <= ts and ep.bucket.tokens > 0:\n"
         "                    ep.bucket.tokens -= 1\n"),
    ],
    "enable refills the bucket": [
        ("        endpoint.parked = []\n        if replay_dead:",
         "        if endpoint.bucket is not None:\n            endpoint.bucket.tokens = endpoint.bucket.burst\n"
         "        endpoint.parked = []\n        if replay_dead:"),
    ],
    "the bucket's clock restarts when a full bucket gives a token": [
        ("            if bucket is not None:\n                bucket.tokens -= 1  # every attempt",
         "            if bucket is not None and bucket.tokens == bucket.burst:\n                bucket.anchor = bucket.counted_to = ts\n"
         "            if bucket is not None:\n                bucket.tokens -= 1  # every attempt"),
    ],
    "a ts that goes back sets the bucket time back": [
        ("        if ts <= self.counted_to:\n            return\n",
         "        if ts <= self.counted_to:\n            self.counted_to = ts\n            return\n"),
    ],
    "a throttled head resets the failure count": [
        ("        endpoint = self.endpoints[event.endpoint_id]\n        if event not in endpoint.parked:",
         "        endpoint = self.endpoints[event.endpoint_id]\n        endpoint.consecutive_failures = 0\n        if event not in endpoint.parked:"),
    ],
    "throttled records come after the call's attempts": [
        ("        passed_now = set()\n", "        late = []\n        passed_now = set()\n"),
        ("            if not candidates:\n                return records\n",
         "            if not candidates:\n                return records + late\n"),
        ("                records.append(self.throttle(event, bucket))", "                late.append(self.throttle(event, bucket))"),
    ],
    "a next token past 2^53 - 1 is not clamped": [
        ("return min(self.anchor + k * self.interval, TS_LIMIT)", "return self.anchor + k * self.interval"),
    ],
    "a null throttle means no throttle": [
        ('if "throttle" in policy and not valid_throttle(policy["throttle"]):',
         'if "throttle" in policy and not (policy["throttle"] is None or valid_throttle(policy["throttle"])):'),
        ('dict(value) if key in ("throttle", "breaker")', 'dict(value) if key in ("throttle", "breaker") and value is not None'),
    ],
    "a throttle's upper bounds are not checked": [
        ("return is_int(burst) and 1 <= burst <= MAX_BURST and is_int(interval) and 1 <= interval <= MAX_WAIT",
         "return is_int(burst) and 1 <= burst and is_int(interval) and 1 <= interval"),
    ],
    "a throttle may have extra keys": [
        ("if not isinstance(throttle, dict) or set(throttle) != THROTTLE_KEYS:",
         "if not isinstance(throttle, dict) or not THROTTLE_KEYS <= set(throttle):"),
    ],
    # Part 8 (signatures).
    "a retired secret signs a day and a second": [
        ("if ts - retired_at < GRACE)", "if ts - retired_at <= GRACE)"),
    ],
    "retired secrets sign forever": [
        ("if ts - retired_at < GRACE)", "if True)"),
    ],
    "signatures oldest first": [
        ("for _, key, retired_at in reversed(self.previous)", "for _, key, retired_at in self.previous"),
    ],
    "verify refuses a timestamp ahead of its clock": [
        ("        if sent_at - ts > TOLERANCE:", "        if sent_at - ts > 0:"),
    ],
    "verify accepts a timestamp 301 s old": [
        ("        if ts - sent_at > TOLERANCE:", "        if ts - sent_at > TOLERANCE + 1:"),
    ],
    "verify reads the first signature only": [
        ('        for entry in signatures.split(" "):', '        for entry in signatures.split(" ")[:1]:'),
    ],
    "verify takes any version": [
        ('            if not comma or version != "v1":', '            if not comma:'),
    ],
    "eleven previous secrets are kept": [
        ("            if len(previous) > MAX_PREVIOUS:", "            if len(previous) > MAX_PREVIOUS + 1:"),
    ],
    "verify matches header names in any case, Unicode too": [
        ("if name.isascii() and name.lower() in SIGNED_HEADERS:", "if name.lower() in SIGNED_HEADERS:"),
    ],
    # Part 11 (expiry), spec section 17: each breaks a rule of the brief.
    "an event expires a second late": [
        ("while self.deadlines and self.deadlines[0][0] <= ts:", "while self.deadlines and self.deadlines[0][0] < ts:"),
    ],
    "an expiry counts as an attempt": [
        ("            self.bury(event, endpoint, ts)\n            event.expired = True\n",
         "            event.attempts += 1\n            self.bury(event, endpoint, ts)\n            event.expired = True\n"),
    ],
    "a revived event never expires again": [
        ("        event.life += 1\n        self.start_age(event, endpoint, ts)\n", "        event.life += 1\n"),
    ],
    "a revived event keeps its old deadline": [
        ("        event.life += 1\n        self.start_age(event, endpoint, ts)\n",
         "        event.life += 1\n        if event.deadline is not None and event.deadline <= TS_LIMIT:\n"
         "            heapq.heappush(self.deadlines, (event.deadline, event.order, event.life, event))\n"),
    ],
    "an expired head keeps its endpoint blocked for the call": [
        ("        due = []\n        while self.deadlines", "        due = []\n        self._expired_heads = set()\n        while self.deadlines"),
        ("            del pending[bisect_left(pending, event.order, key=lambda e: e.order)]\n",
         "            i = bisect_left(pending, event.order, key=lambda e: e.order)\n"
         "            if i == 0:\n                self._expired_heads.add(endpoint)\n"
         "            del pending[i]\n"),
        ("        passed_now = set()\n", "        passed_now = set(self._expired_heads)\n"),
    ],
    "status shows an expired event with 0 attempts": [
        ('return {"state": state, "attempts": event.attempts, "next_attempt_at": next_at}',
         'return {"state": state, "attempts": 0 if state == "dead" and event.expired else event.attempts, "next_attempt_at": next_at}'),
    ],
    # Part 10 (breaker), spec section 18: each breaks a rule of the brief.
    "a breaker opens one failure late": [
        ("self.recent = deque(maxlen=failures)", "self.recent = deque(maxlen=failures + 1)"),
        ("if len(self.recent) < self.failures or", "if len(self.recent) < self.failures + 1 or"),
    ],
    "a held head counts as an attempt": [
        ("        event.due_at = until\n", "        event.due_at = until\n        event.attempts += 1\n"),
    ],
    "a held head counts as a failure": [
        ("        event.due_at = until\n", "        event.due_at = until\n        endpoint.consecutive_failures += 1\n"),
    ],
    "a breaker never half-opens": [
        ("        return self.until is not None and ts < self.until\n", "        return self.until is not None\n"),
        ('        if ts < self.until:\n            return {"state": "open"', '        if True:\n            return {"state": "open"'),
    ],
    "a failed probe leaves the breaker half-open": [
        ("        elif not failed:  # a successful probe",
         "        elif failed:  # a failed probe: the successes in a row start again\n"
         "            self.successes = 0\n            return False\n"
         "        else:  # a successful probe"),
    ],
    "one successful probe closes the breaker": [
        ("if self.successes >= self.probes:", "if self.successes >= 1:"),
    ],
    "endpoint omits the breaker": [
        ("        if endpoint.breaker is not None:  # only while", "        if False:  # only while"),
    ],
    "endpoint shows an open breaker without its until": [
        ('return {"state": "open", "until": self.until}', 'return {"state": "open", "until": None}'),
    ],

}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fuzz", type=float, default=0, metavar="SECONDS",
                        help="also fuzz each planted bug in brief mode for this long")
    parser.add_argument("--origin", choices=["brief"],
                        help="check only what the brief states (hookcheck check --origin brief)")
    parser.add_argument("--cases", metavar="DIR",
                        help="check this case folder instead of the built-in corpus (an older one, say)")
    parser.add_argument("--binary", metavar="PATH", default=os.path.join("target", "release", "hookcheck"),
                        help="the hookcheck to check with (default: the release build)")
    parser.add_argument("--fuzz-full", action="store_true",
                        help="fuzz in full mode rather than --brief (Parts 10 and 11 are "
                        "generated only there)")
    parser.add_argument("--check", action="store_true",
                        help="only check that every bug's edits apply to the example, and exit")
    parser.add_argument("only", nargs="*", help="names of bugs to plant (default: all)")
    args = parser.parse_args()
    if args.check:
        original = open(os.path.join(os.getcwd(), SOURCE)).read()
        stale = [name for name, edits in BUGS.items() if not applies(original, edits)]
        print("\n".join(f"{n}: edit does not apply" for n in stale) or f"all {len(BUGS)} bugs apply")
        sys.exit(1 if stale else 0)
    bugs = {n: e for n, e in BUGS.items() if not args.only or n in args.only}
    fuzz_found = 0
    root = os.getcwd()
    binary = os.path.join(root, args.binary)
    selection = (["--origin", args.origin] if args.origin else []) + (
        ["--no-builtin", "--cases", os.path.abspath(args.cases)] if args.cases else [])
    adapter = os.path.join(root, "harness", "adapters", "python", "hookcheck_adapter.py")
    original = open(os.path.join(root, SOURCE)).read()
    missed = []
    for name, edits in bugs.items():
        text = original
        for old, new in edits:
            if old not in text:
                print(f"{name}: edit does not apply; update this script")
                sys.exit(2)
            text = text.replace(old, new, 1)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "mutant.py")
            open(path, "w").write(text)
            command = f"python3 {adapter} {path}"
            run = subprocess.run(
                [binary, "check", "--color", "never", *selection, "--impl", command],
                cwd=root, capture_output=True, text=True,
            )
            took = (fuzz_finds(root, binary, command, args.fuzz, brief=not args.fuzz_full)
                    if args.fuzz else None)
        failed = [l.split()[1] for l in run.stdout.splitlines() if l.startswith(("FAIL ", "ERROR "))]
        line = f"{name}: {len(failed)} cases fail" + (f" ({', '.join(failed[:3])}{', ...' if len(failed) > 3 else ''})" if failed else "")
        if args.fuzz:
            fuzz_found += took is not None
            line += f"; {'fuzz' if args.fuzz_full else 'fuzz --brief'}: {'found in %.1f s' % took if took is not None else 'not found'}"
        print(line, flush=True)
        if run.returncode == 0:
            missed.append(name)
    print(f"\n{len(bugs) - len(missed)} of {len(bugs)} planted bugs caught by the corpus")
    if args.fuzz:
        print(f"{fuzz_found} of {len(bugs)} found by {args.fuzz:g} s of "
              f"{'fuzz' if args.fuzz_full else 'fuzz --brief'}")
    sys.exit(1 if missed else 0)

def applies(text, edits):
    for old, new in edits:
        if old not in text:
            return False
        text = text.replace(old, new, 1)
    return True


if __name__ == "__main__":
    main()
