#!/usr/bin/env python3
"""Plant known bugs in a copy of the reference, one at a time, and count the conformance cases
that catch each. Usage, from the repository root:

    python3 harness/mutation/planted_bugs.py              # the corpus only
    cargo build --release && python3 harness/mutation/planted_bugs.py --fuzz 10
                                                          # also 10 s of `hookcheck fuzz --brief`
    python3 harness/mutation/planted_bugs.py --origin brief   # only what the brief states
    python3 harness/mutation/planted_bugs.py --cases OLD      # an older corpus (OLD/<suite>/...)

Each bug is a list of (file, old text, new text) edits on src/. A bug no case catches makes the
script exit 1. It builds in target/planted (kept between runs, so only the first build is slow).
With --fuzz, the planted build serves the protocol (`hookcheck serve`) and the release build of
the real reference fuzzes it in brief mode for that many seconds (seed 1, first finding).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

BUGS = {
    "first wait is 60 s": [
        ("src/reference/dispatcher/policy.rs", "[u32; 5] = [30, 60,", "[u32; 5] = [60, 60,"),
    ],
    "a 7th attempt is made": [
        ("src/reference/dispatcher/policy.rs", "    attempts: 6,\n", "    attempts: 7,\n"),
    ],
    "no per-endpoint ordering": [
        # Every pending event is ready at once, not only each endpoint's head.
        ("src/reference/dispatcher/mod.rs", "if ep.pending.len() == 1 && !ep.is_disabled() {", "if !ep.is_disabled() {"),
        ("src/reference/dispatcher/process.rs",
         "let popped = self.endpoints[endpoint.index()].pending.pop_front();\n"
         "        debug_assert_eq!(\n            popped,\n            Some(key),\n"
         "            \"only an endpoint's head is ever attempted\"\n        );\n"
         "        self.schedule_head(endpoint);",
         "self.endpoints[endpoint.index()].pending.retain(|k| *k != key);"),
    ],
    "a replayed event keeps its attempt count": [
        ("src/reference/dispatcher/pause.rs", "event.attempts = 0;", ""),
    ],
    "retry due from the previous due time, not the call": [
        ("src/reference/dispatcher/process.rs",
         "    fn attempt<const EXTRAS: bool>(&mut self, key: EventKey, ts: Ts) -> Attempt {\n",
         "    fn attempt<const EXTRAS: bool>(&mut self, key: EventKey, ts: Ts) -> Attempt {\n        let previous_due = self.due_at(key).unwrap_or(ts);\n"),
        ("src/reference/dispatcher/process.rs",
         "match ts.checked_add(wait)",
         "match previous_due.checked_add(wait)"),
    ],
    "408 is permanent": [
        ("src/reference/dispatcher/outcome.rs", "0 | 408 | 429 | 500..=599", "0 | 429 | 500..=599"),
    ],
    "enable keeps old due times": [
        ("src/reference/dispatcher/pause.rs", "Some(epoch) => ep.epoch = epoch,", "Some(_) => {}"),
    ],
    "replayed events go to the back of the queue": [
        ("src/reference/dispatcher/endpoint.rs", "let at = self.pending.partition_point(|k| *k < key);", "let at = self.pending.len();"),
    ],
    "unblocked event waits for the next call": [
        ("src/reference/dispatcher/process.rs",
         "        while let Some(&Reverse(entry)) = self.ready.peek() {\n            let (due_at, key) = entry.parts();\n            if due_at > ts {\n                break;\n            }\n            // A head throttled until this very call is not picked again in it, whatever other\n            // entries of it the heap holds (an `enable` pushes one of its own).\n            if !self.is_ready(due_at, key) || (EXTRAS && self.held.contains(&key)) {\n                self.ready.pop();\n                continue;\n            }\n            // The entry stays on top while its head is attempted: the entry the attempt then\n            // schedules (the same head later, or the endpoint's next one) takes its place.\n            self.top_spent = true;\n            let attempt = if EXTRAS && (self.throttled_ever || self.breaker_ever) {\n                self.attempt_or_hold_back(key, ts)\n            } else {\n                self.attempt::<EXTRAS>(key, ts)\n            };\n            if self.top_spent {\n                self.ready.pop();\n                self.top_spent = false;\n            }\n            sink(attempt);\n        }\n",
         "        let mut due = Vec::new();\n        while let Some(&Reverse(entry)) = self.ready.peek() {\n            let (due_at, key) = entry.parts();\n            if due_at > ts {\n                break;\n            }\n            self.ready.pop();\n            due.push((due_at, key));\n        }\n        for (due_at, key) in due {\n            if self.is_ready(due_at, key) {\n                sink(self.attempt::<EXTRAS>(key, ts));\n            }\n        }\n"),
    ],
    # Added with the rules x situations grid (spec/situations.md): bugs that show only away
    # from an endpoint's head, at status boundaries, or on blocked events around enable/replay.
    "only the head of a disabled endpoint is held": [
        ("src/reference/dispatcher/mod.rs",
         "            Lifecycle::Pending { .. } if held => (State::Held, None),",
         "            Lifecycle::Pending { .. } if held && self.endpoints[event.endpoint.index()].head() == Some(key) => (State::Held, None),"),
    ],
    "enable makes only the head due": [
        ("src/reference/dispatcher/pause.rs", "Some(epoch) => ep.epoch = epoch,",
         "Some(_) => if let Some(h) = ep.pending.front() { self.events[h.index()].lifecycle = Lifecycle::Pending { due_at: ts }; },"),
    ],
    "a blocked event reports its head's due time": [
        ("src/reference/dispatcher/mod.rs",
         "            Lifecycle::Pending { .. } => (State::Pending, self.due_at(key)),",
         "            Lifecycle::Pending { .. } => (State::Pending, self.endpoints[event.endpoint.index()].head().and_then(|h| self.due_at(h))),"),
    ],
    "replay resets the attempts of pending events too": [
        ("src/reference/dispatcher/pause.rs",
         "        ep.enabled_at = ts;",
         "        ep.enabled_at = ts;\n        if replay_dead { for key in &ep.pending { self.events[key.index()].attempts = 0; } }"),
    ],
    "revived events go behind the head": [
        ("src/reference/dispatcher/endpoint.rs", "let at = self.pending.partition_point(|k| *k < key);",
         "let at = self.pending.partition_point(|k| *k < key).max(usize::from(!self.pending.is_empty()));"),
    ],
    # The ready heap drops heads of disabled endpoints as it meets them (lazy deletion): the
    # check that matters is there, not at enqueue.
    "a head of a disabled endpoint is attempted": [
        ("src/reference/dispatcher/process.rs", "!ep.is_disabled() && ep.head() == Some(key)", "ep.head() == Some(key)"),
    ],
    "status 99 is valid": [
        ('src/reference/dispatcher/outcome.rs',
         'matches!(s, 0 | 100..=599)',
         'matches!(s, 0 | 99..=599)'),
    ],
    "status 600 is valid": [
        ('src/reference/dispatcher/outcome.rs',
         'matches!(s, 0 | 100..=599)',
         'matches!(s, 0 | 100..=600)'),
    ],
    "statuses 1 to 99 are valid": [
        ('src/reference/dispatcher/outcome.rs',
         'matches!(s, 0 | 100..=599)',
         'matches!(s, 0..=599)'),
    ],
    "299 is not a delivery": [
        ("src/reference/dispatcher/outcome.rs", "200..=299 => Class::Delivered,", "200..=298 => Class::Delivered,"),
    ],
    "599 is permanent": [
        ("src/reference/dispatcher/outcome.rs", "0 | 408 | 429 | 500..=599 => Class::Retryable,", "0 | 408 | 429 | 500..=598 => Class::Retryable,"),
    ],
    "dead_letters ignores the endpoint filter": [
        ('src/reference/dispatcher/mod.rs',
         '        let endpoint = self.endpoint_key(endpoint_id)?;\n        Ok(self.endpoints[endpoint.index()]\n            .dead\n            .values(|letter, key| is_dead_as(&self.events, letter, key))\n            .map(|k| self.event_id(k)))',
         '        self.endpoint_key(endpoint_id)?;\n        Ok(self\n            .dead_letters\n            .values(|letter, (key, _)| is_dead_as(&self.events, letter, key))\n            .map(|(k, _)| self.event_id(k)))'),
    ],
    # Parts 4 and 5 of the roadmap (spec sections 11 and 12) and `retry.beyond-range`.
    "the default policy applies whatever the endpoint's": [
        ("src/reference/dispatcher/process.rs", "let policy = ep.policy();", "let policy = &super::policy::DEFAULT;"),
    ],
    "a policy's waits are read one entry late": [
        ("src/reference/dispatcher/policy.rs", "usize::try_from(failures.saturating_sub(1))", "usize::try_from(failures)"),
    ],
    "a policy's last wait does not repeat": [
        ("src/reference/dispatcher/policy.rs", "            .or_else(|| self.waits.last())\n", ""),
    ],
    "a policy allows one attempt more": [
        ("src/reference/dispatcher/process.rs", "Class::Retryable if number < policy.attempts()", "Class::Retryable if number <= policy.attempts()"),
    ],
    "set_policy null keeps the old policy": [
        ('src/reference/dispatcher/mod.rs',
         '        ep.policy = policy.map(Box::new);',
         '        if let Some(p) = policy {\n            ep.policy = Some(Box::new(p));\n        }'),
    ],
    "policy shows disable_on_gone false when not given": [
        ("src/reference/ops/encode.rs", "                if let Some(flag) = p.disable_on_gone() {",
         "                if let Some(flag) = Some(p.disables_on_gone()) {"),
        ("src/reference/ops/encode.rs", "    if let Some(flag) = p.disable_on_gone() {", "    if let Some(flag) = Some(p.disables_on_gone()) {"),
    ],
    "a policy of 0 attempts is valid": [
        ("src/reference/dispatcher/policy.rs", "(1..=MAX_ATTEMPTS).contains(&attempts)", "(0..=MAX_ATTEMPTS).contains(&attempts)"),
    ],
    "a wait of 30 days and a second is valid": [
        ("src/reference/dispatcher/policy.rs", "(1..=MAX_WAIT).contains(w)", "(1..=MAX_WAIT + 1).contains(w)"),
    ],
    "an unknown policy key is ignored": [
        ('src/reference/ops/decode.rs',
         '            _ => return Err(Error::InvalidPolicy),\n        }\n    }\n    let (Some(attempts), Some(waits))',
         '            ("attempts" | "waits" | "disable_on_gone" | "throttle", _) => return Err(Error::InvalidPolicy),\n            _ => {}\n        }\n    }\n    let (Some(attempts), Some(waits))'),
    ],
    "retry_after is not capped at twice the wait": [
        ("src/reference/dispatcher/process.rs", "wait = r.clamp(wait, wait.saturating_mul(2));", "wait = r.max(wait);"),
    ],
    "retry_after may shorten the wait": [
        ("src/reference/dispatcher/process.rs", "wait = r.clamp(wait, wait.saturating_mul(2));", "wait = r.min(wait.saturating_mul(2));"),
    ],
    "retry_after is honoured on every status": [
        ("src/reference/dispatcher/process.rs", "if matches!(status, 429 | 503)", "if status != 0"),
    ],
    "retry_after is ignored on 429": [
        ("src/reference/dispatcher/process.rs", "if matches!(status, 429 | 503)", "if matches!(status, 503)"),
    ],
    "retry_after of the first entry applies to every attempt": [
        ("src/reference/dispatcher/process.rs", "let r = *list.get(index).or_else(|| list.last())?;", "let r = *list.first()?; let _ = index;"),
    ],
    "a retry_after of 30 days and a second is valid": [
        ("src/reference/dispatcher/outcome.rs", "Some(r @ 0..=MAX_RETRY_AFTER) =>", "Some(r @ 0..=2_592_001) =>"),
    ],
    "disable_on_gone is ignored": [
        ("src/reference/dispatcher/process.rs", "let gone = status == 410 && policy.disables_on_gone();", "let gone = false && policy.disables_on_gone();"),
    ],
    "disable_on_gone disables on any permanent failure": [
        ("src/reference/dispatcher/process.rs", "let gone = status == 410 && policy.disables_on_gone();",
         "let gone = classify(status) == Class::Permanent && policy.disables_on_gone();"),
    ],
    "no record for an endpoint disabled by a 410": [
        ("src/reference/ops/encode.rs", "                    if a.disabled_endpoint {\n                        records.push", "                    if false {\n                        records.push"),
        ("src/reference/ops/encode.rs", "                    if a.disabled_endpoint {\n                        out.push", "                    if false {\n                        out.push"),
    ],
    "a due time past 2^53 - 1 is a retry": [
        ("src/reference/dispatcher/process.rs", ".filter(|due| *due <= TS_LIMIT)", ""),
    ],
    "a due time of exactly 2^53 - 1 is a death": [
        ("src/reference/dispatcher/process.rs", ".filter(|due| *due <= TS_LIMIT)", ".filter(|due| *due < TS_LIMIT)"),
    ],
    # Parts 6 and 7 of the roadmap (spec sections 13 and 14).
    "a delivery does not reset the failure count": [
        ("src/reference/dispatcher/process.rs", "            Outcome::Delivered => 0,\n", "            Outcome::Delivered => ep.consecutive_failures,\n"),
    ],
    "a permanent failure does not count": [
        ("src/reference/dispatcher/process.rs", "            _ => ep.consecutive_failures.saturating_add(1),",
         "            Outcome::Dead if classify(status) == Class::Permanent => ep.consecutive_failures,\n            _ => ep.consecutive_failures.saturating_add(1),"),
    ],
    "enable does not reset the failure count": [
        ("src/reference/dispatcher/pause.rs", "        ep.consecutive_failures = 0;\n", ""),
    ],
    "disable resets the failure count": [
        ("src/reference/dispatcher/pause.rs", "        ep.disabled = Some(DisableReason::Manual);",
         "        ep.disabled = Some(DisableReason::Manual);\n        ep.consecutive_failures = 0;"),
    ],
    "the threshold must be passed, not reached": [
        ("src/reference/dispatcher/process.rs", "threshold.is_some_and(|f| ep.consecutive_failures >= f)", "threshold.is_some_and(|f| ep.consecutive_failures > f)"),
    ],
    "an automatic disable is reported as manual": [
        ("src/reference/dispatcher/process.rs", "            Some(DisableReason::Failing)\n", "            Some(DisableReason::Manual)\n"),
    ],
    "failing wins over gone": [
        ("src/reference/dispatcher/process.rs", "        let disables = if gone {\n            Some(DisableReason::Gone)\n        } else if failing {\n            Some(DisableReason::Failing)",
         "        let disables = if failing {\n            Some(DisableReason::Failing)\n        } else if gone {\n            Some(DisableReason::Gone)"),
    ],
    "no record for an automatic disable": [
        ("src/reference/dispatcher/process.rs", "            disabled_endpoint: disables.is_some(),", "            disabled_endpoint: gone,"),
    ],
    "a disable_after of 1001 is valid": [
        ("src/reference/dispatcher/policy.rs", "pub const MAX_DISABLE_AFTER: u32 = 1000;", "pub const MAX_DISABLE_AFTER: u32 = 1001;"),
    ],
    "dead_letter reports the first status": [
        ('src/reference/dispatcher/dead_letter.rs',
         'last_status: (attempts > 0).then(|| event.script.for_attempt(attempts)),',
         'last_status: (attempts > 0).then(|| event.script.for_attempt(1)),'),
    ],
    "recover's since is exclusive": [
        ("src/reference/dispatcher/endpoint.rs", "self.dead_by_time.split_off(&(since, 0))", "self.dead_by_time.split_off(&(since.saturating_add(1), 0))"),
    ],
    "recover revives every dead event": [
        ("src/reference/dispatcher/pause.rs", "let revived = self.revive(ts, endpoint, since);", "let _ = since;\n        let revived = self.revive(ts, endpoint, Ts::MIN);"),
    ],
    "recover makes every pending event due": [
        ("src/reference/dispatcher/pause.rs", "        if revived > 0 {\n",
         "        if revived > 0 {\n            let ep = &mut self.endpoints[endpoint.index()];\n            ep.epoch = ep.epoch.wrapping_add(1);\n            ep.enabled_at = ts;\n"),
    ],
    "recover resets the failure count": [
        ("src/reference/dispatcher/pause.rs", "        if revived > 0 {\n", "        self.endpoints[endpoint.index()].consecutive_failures = 0;\n        if revived > 0 {\n"),
    ],
    "recover enables a disabled endpoint": [
        ("src/reference/dispatcher/pause.rs", "        if revived > 0 {\n", "        self.endpoints[endpoint.index()].disabled = None;\n        if revived > 0 {\n"),
    ],
    # Where two roadmap parts meet, and ts going back (issue: bugs the corpus missed).
    "a plain 429 or 503 takes the retry_after of an earlier entry": [
        ("src/reference/dispatcher/outcome.rs", "                None => Ok(NO_RETRY_AFTER),\n",
         "                None => Ok(waits.last().and_then(|w: &Result<u32, Error>| w.as_ref().ok().copied()).unwrap_or(NO_RETRY_AFTER)),\n"),
    ],
    "recover takes the deaths to be in time order": [
        ("src/reference/dispatcher/endpoint.rs", "        self.dead_by_time.insert((died_at, letter), key);",
         "        let latest = self.dead_by_time.last_key_value().map_or(Ts::MIN, |((t, _), _)| *t);\n"
         "        self.dead_by_time.insert((died_at.max(latest), letter), key);"),
    ],
    "set_policy null keeps disable_after": [
        ("src/reference/dispatcher/mod.rs", "        ep.policy = policy.map(Box::new);",
         "        let kept = ep.policy().disable_after();\n"
         "        ep.policy = match (policy, kept) {\n"
         "            (None, Some(f)) => policy::DEFAULT.clone().with_disable_after(f).ok().map(Box::new),\n"
         "            (p, _) => p.map(Box::new),\n        };"),
    ],
    "set_policy null keeps disable_on_gone": [
        ("src/reference/dispatcher/mod.rs", "        ep.policy = policy.map(Box::new);",
         "        let kept = ep.policy().disable_on_gone();\n"
         "        ep.policy = match (policy, kept) {\n"
         "            (None, Some(flag)) => Some(Box::new(policy::DEFAULT.clone().with_disable_on_gone(flag))),\n"
         "            (p, _) => p.map(Box::new),\n        };"),
    ],
    # Part 9 (throttle): each breaks a rule the roadmap states.
    "the bucket refills beyond its burst": [
        ("src/reference/dispatcher/throttle.rs", "self.tokens += u32::try_from(came.clamp(0, room)).unwrap_or(0);",
         "self.tokens += u32::try_from(came.max(0)).unwrap_or(0);\n            let _ = room;"),
    ],
    "a throttled head counts as an attempt": [
        ("src/reference/dispatcher/process.rs",
         "            _ => {\n                if let Some(bucket) = ep.bucket.as_deref_mut() {\n                    bucket.hold(key);",
         "            _ => {\n                event.attempts = event.attempts.saturating_add(1);\n                if let Some(bucket) = ep.bucket.as_deref_mut() {\n                    bucket.hold(key);"),
    ],
    "the next token is counted from the call's ts": [
        ("src/reference/dispatcher/throttle.rs",
         "        let next = (self.tick(self.counted_to) + 1)\n            .checked_mul(interval)\n            .and_then(|t| t.checked_add(self.anchor))",
         "        let next = self.counted_to.checked_add(interval)"),
    ],
    "retries take no token": [
        ("src/reference/dispatcher/process.rs", "        let endpoint = self.events[key.index()].endpoint;\n        let bucket =",
         "        if self.events[key.index()].attempts > 0 {\n            return None;\n        }\n"
         "        let endpoint = self.events[key.index()].endpoint;\n        let bucket ="),
    ],
    "a policy without a throttle keeps the old bucket": [
        ("src/reference/dispatcher/mod.rs",
         "        let old_bucket = std::mem::replace(&mut ep.bucket, bucket);",
         "        let old_bucket = if bucket.is_none() {\n            None\n        } else {\n            std::mem::replace(&mut ep.bucket, bucket)\n        };"),
    ],
    "a throttled head resets the failure count": [
        ("src/reference/dispatcher/process.rs",
         "            _ => {\n                if let Some(bucket) = ep.bucket.as_deref_mut() {\n                    bucket.hold(key);",
         "            _ => {\n                ep.consecutive_failures = 0;\n                if let Some(bucket) = ep.bucket.as_deref_mut() {\n                    bucket.hold(key);"),
    ],
    # Part 11 (expiry): each breaks a rule the roadmap states.
    "an event expires a second after its deadline": [
        ("src/reference/dispatcher/expiry.rs", "            if deadline > ts {\n                break;", "            if deadline >= ts {\n                break;"),
    ],
    "an expiry counts as an attempt": [
        ("src/reference/dispatcher/expiry.rs", "        event.set_lifecycle(Lifecycle::Dead { letter });\n        let (endpoint, number)",
         "        event.set_lifecycle(Lifecycle::Dead { letter });\n        event.attempts = event.attempts.saturating_add(1);\n        let (endpoint, number)"),
    ],
    "a revived event keeps no age": [
        ("src/reference/dispatcher/pause.rs", "            self.start_age(key, ts);\n", ""),
    ],
    "an expired head keeps its endpoint blocked": [
        ("src/reference/dispatcher/expiry.rs", "        if was_head {\n            self.schedule_head(endpoint);\n        }", "        let _ = was_head;"),
    ],
    "an expired event is never revived": [
        ("src/reference/dispatcher/expiry.rs", "        ep.bury(key, letter, ts);\n", ""),
    ],
    "the age counts from the last attempt": [
        ("src/reference/dispatcher/process.rs", "        if signing {\n            self.note_signers(key, number, ts);\n        }",
         "        if signing {\n            self.note_signers(key, number, ts);\n        }\n        if EXTRAS && self.deadlines.has(key) {\n            self.start_age(key, ts);\n        }"),
        ("src/reference/dispatcher/expiry.rs", "    pub fn is_empty(&self) -> bool {", "    pub fn has(&self, key: EventKey) -> bool {\n        self.of.contains_key(&key)\n    }\n\n    pub fn is_empty(&self) -> bool {"),
    ],
    # Part 10 (breaker): each breaks a rule the roadmap states.
    "the breaker opens a failure late": [
        ("src/reference/dispatcher/breaker.rs", "if times.len() > breaker.failures as usize {", "if times.len() > breaker.failures as usize + 1 {"),
        ("src/reference/dispatcher/breaker.rs", "let full = times.len() == breaker.failures as usize;", "let full = times.len() == breaker.failures as usize + 1;"),
    ],
    "a held head counts as an attempt": [
        ("src/reference/dispatcher/process.rs",
         "            Outcome::Held(_) => {\n                if let Some(circuit) = ep.circuit.as_deref_mut() {",
         "            Outcome::Held(_) => {\n                event.attempts = event.attempts.saturating_add(1);\n                if let Some(circuit) = ep.circuit.as_deref_mut() {"),
    ],
    "a held head resets the failure count": [
        ("src/reference/dispatcher/process.rs",
         "            Outcome::Held(_) => {\n                if let Some(circuit) = ep.circuit.as_deref_mut() {",
         "            Outcome::Held(_) => {\n                ep.consecutive_failures = 0;\n                if let Some(circuit) = ep.circuit.as_deref_mut() {"),
    ],
    "the breaker never half-opens": [
        ("src/reference/dispatcher/breaker.rs", "            Mode::Open(until) | Mode::HalfOpen(until, _) if ts < until => {",
         "            Mode::Open(until) | Mode::HalfOpen(until, _) if ts < Ts::MAX => {"),
    ],
    "a failed probe leaves it half-open": [
        ("src/reference/dispatcher/breaker.rs", "            (_, true) if half_open => reopen(),", "            (_, true) if half_open => return,"),
    ],
    "one successful probe closes it": [
        ("src/reference/dispatcher/breaker.rs", "if successes >= breaker.probes {", "if successes >= 1 {"),
    ],
    "endpoint does not show the breaker": [
        ("src/reference/dispatcher/dead_letter.rs", "breaker: ep.circuit.as_deref().map(|c| c.state(ts)),", "breaker: ep.circuit.as_deref().map(|_| BreakerState::Closed),"),
    ],
    # Part 8 (signatures): each breaks a rule the roadmap states.
    "a retired secret signs forever": [
        ("src/reference/dispatcher/signatures.rs", ".filter(|&&(_, retired)| ts.saturating_sub(retired) < GRACE)",
         ".filter(|&&(_, retired)| ts.saturating_sub(retired) < Ts::MAX)"),
    ],
    "a retired secret stops signing at once": [
        ("src/reference/dispatcher/signatures.rs", ".filter(|&&(_, retired)| ts.saturating_sub(retired) < GRACE)",
         ".filter(|&&(_, retired)| ts.saturating_sub(retired) < 0)"),
    ],
    "signatures oldest first": [
        ("src/reference/dispatcher/signatures.rs", "            .map(|k| k.sign(id, &timestamp, body))\n            .collect::<Vec<_>>()",
         "            .map(|k| k.sign(id, &timestamp, body))\n            .rev()\n            .collect::<Vec<_>>()"),
    ],
    "every attempt carries the first attempt's timestamp": [
        ("src/reference/dispatcher/signatures.rs", "            .and_then(|list| list.iter().rev().find(|s| u64::from(s.number) == n))",
         "            .and_then(|list| list.iter().rev().find(|s| u64::from(s.number) == n).map(|s| (s, list.first().map_or(s.ts, |f| f.ts))))\n            .map(|(s, first)| Signed { number: s.number, ts: first, signers: s.signers.clone() })"),
        ("src/reference/dispatcher/signatures.rs", "        let timestamp = signed.ts.to_string();", "        let timestamp = signed.ts.to_string();\n        let signed = &signed;"),
    ],
    "the payload is not signed": [
        ("src/reference/dispatcher/signatures.rs", "        let body = self.payloads.get(&key).map_or(\"\", |b| b);",
         "        let body = \"\";"),
    ],
    "verify tries the first secret only": [
        ("src/reference/dispatcher/signatures.rs", "        .keys\n        .iter()\n        .map(|key|",
         "        .keys\n        .iter()\n        .take(1)\n        .map(|key|"),
    ],
    "verify reads the first signature only": [
        ("src/reference/dispatcher/signatures.rs", "    let matched = signature.split(' ').any(|entry| {",
         "    let matched = signature.split(' ').take(1).any(|entry| {"),
    ],
    "verify refuses a timestamp ahead of its clock": [
        ("src/reference/dispatcher/signatures.rs", "    if t - ts > TOLERANCE {", "    if t - ts > 0 {"),
    ],
    "verify's tolerance is 30 s": [
        ("src/reference/dispatcher/signatures.rs", "    if ts - t > TOLERANCE {", "    if ts - t > 30 {"),
    ],

}


def fuzz_finds(root, binary, command, seconds, brief=True):
    """Seconds `hookcheck fuzz` (`--brief` unless `brief` is false) took to find a mismatch, or
    None. Shared with python_bugs.py."""
    run = subprocess.run(
        [binary, "fuzz", *(["--brief"] if brief else []), "--seed", "1", "--findings", "1",
         "--time", str(seconds), "--shrink-time", "1", "--impl", command],
        cwd=root, capture_output=True, text=True,
    )
    found = re.search(r"^(?:MISMATCH|ERROR): .*?\(([0-9.]+) s, seed", run.stdout, re.M)
    return float(found.group(1)) if found else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fuzz", type=float, default=0, metavar="SECONDS",
                        help="also fuzz each planted bug in brief mode for this long")
    parser.add_argument("--origin", choices=["brief"],
                        help="run only what the brief states (HOOKCHECK_ORIGIN=brief)")
    parser.add_argument("--cases", metavar="DIR",
                        help="the case folder to copy in place of cases/ (an older corpus, say)")
    parser.add_argument("--fuzz-full", action="store_true",
                        help="fuzz in full mode rather than --brief (Parts 10 and 11 are "
                        "generated only there)")
    parser.add_argument("--check", action="store_true",
                        help="only check that every bug's edits apply to src/, and exit")
    parser.add_argument("only", nargs="*", help="names of bugs to plant (default: all)")
    args = parser.parse_args()
    root = os.getcwd()
    if args.check:
        sys.exit(check_edits(root))
    target = os.path.join(root, "target", "planted")
    missed = []
    fuzz_found = 0
    bugs = {n: e for n, e in BUGS.items() if not args.only or n in args.only}
    for name, edits in bugs.items():
        with tempfile.TemporaryDirectory() as tmp:
            for item in ["Cargo.toml", "Cargo.lock", "build.rs", "src", "spec", "cases", "harness", "benches", "tests", "README.md"]:
                src = os.path.join(root, item)
                if item == "cases" and args.cases:
                    src = os.path.abspath(args.cases)
                dst = os.path.join(tmp, item)
                if os.path.isdir(src):
                    shutil.copytree(src, dst)
                elif os.path.exists(src):
                    shutil.copy(src, dst)
            for path, old, new in edits:
                full = os.path.join(tmp, path)
                text = open(full).read()
                if old not in text:
                    print(f"{name}: edit does not apply to {path}; update this script")
                    sys.exit(2)
                open(full, "w").write(text.replace(old, new, 1))
            run = subprocess.run(
                ["cargo", "test", "-q", "--test", "conformance"],
                cwd=tmp, capture_output=True, text=True,
                env={**os.environ, "CARGO_TARGET_DIR": target,
                     **({"HOOKCHECK_ORIGIN": args.origin} if args.origin else {})},
            )
            out = run.stdout + run.stderr
            if "error[" in out or "could not compile" in out:
                print(f"{name}: does not compile\n{out[-2000:]}")
                sys.exit(2)
            # The corpus-health trials (`corpus::...`) say nothing of the planted bug.
            failed = sorted(set(f for f in re.findall(r"^    (\S+::\S+)$", out, re.M)
                                if not f.startswith("corpus::")))
            line = f"{name}: {len(failed)} cases fail" + (f" ({', '.join(failed[:4])}{', ...' if len(failed) > 4 else ''})" if failed else "")
            if args.fuzz:
                served = os.path.join(target, "debug", "hookcheck") + " serve"
                took = fuzz_finds(root, os.path.join(root, "target", "release", "hookcheck"),
                                  served, args.fuzz, brief=not args.fuzz_full)
                fuzz_found += took is not None
                line += f"; {mode(args)}: {'found in %.1f s' % took if took is not None else 'not found'}"
            print(line, flush=True)
            if not failed:
                missed.append(name)
    print(f"\n{len(bugs) - len(missed)} of {len(bugs)} planted bugs caught by the corpus")
    if args.fuzz:
        print(f"{fuzz_found} of {len(bugs)} found by {args.fuzz:g} s of {mode(args)}")
    sys.exit(1 if missed else 0)


def mode(args):
    return "fuzz" if args.fuzz_full else "fuzz --brief"


def check_edits(root):
    """1 (and the bugs named) when an edit no longer applies to the sources, else 0."""
    stale = []
    for name, edits in BUGS.items():
        texts = {}
        for path, old, new in edits:
            text = texts.get(path) or open(os.path.join(root, path)).read()
            if old not in text:
                stale.append(f"{name}: edit does not apply to {path}")
                break
            texts[path] = text.replace(old, new, 1)
    print("\n".join(stale) or f"all {len(BUGS)} bugs apply")
    return 1 if stale else 0


if __name__ == "__main__":
    main()
