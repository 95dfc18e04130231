//! `process`: attempt every due head in (due time, enqueue order), unblocking the next event of an
//! endpoint as soon as its head is delivered or dead (`process.*`, `order.*`), under the policy
//! of the endpoint at that moment (`policy.in-force`, `retry-after.*`, `gone.*`).

use super::endpoint::DisableReason;
use super::outcome::NO_RETRY_AFTER;
use super::{Attempt, Class, Dispatcher, EventKey, Lifecycle, Outcome, TS_LIMIT, Ts, classify};
use crate::prefetch::prefetch;
use std::cmp::Reverse;

impl Dispatcher {
    /// Attempts everything due at `ts` and returns the attempts in the order they were made.
    pub fn process(&mut self, ts: Ts) -> Vec<Attempt> {
        let mut attempts = Vec::new();
        self.process_with(ts, |a| attempts.push(a));
        attempts
    }

    /// Like [`Dispatcher::process`], handing each attempt to `sink` instead of collecting them.
    pub fn process_with(&mut self, ts: Ts, sink: impl FnMut(Attempt)) {
        // Two copies of the loop: a run that never set a throttle, a breaker, a secret or an
        // age (the brief's Parts 1 to 3, the usual case) runs the loop it had before Parts 8
        // to 11, with none of their checks; measured, those checks cost 4% of such a run's
        // time. One flag says it, read once per call.
        if self.extras_ever {
            self.process_loop::<true>(ts, sink);
        } else {
            self.process_loop::<false>(ts, sink);
        }
    }

    /// `process`; `EXTRAS` when a throttle (Part 9) or a secret (Part 8) was ever set, or a
    /// deadline (Part 11) is pending.
    fn process_loop<const EXTRAS: bool>(&mut self, ts: Ts, mut sink: impl FnMut(Attempt)) {
        if EXTRAS && self.throttled_ever {
            self.calls.record(ts);
        }
        if EXTRAS && !self.deadlines.is_empty() {
            self.expire(ts, &mut sink);
        }
        while let Some(&Reverse(entry)) = self.ready.peek() {
            let (due_at, key) = entry.parts();
            if due_at > ts {
                break;
            }
            // A head throttled until this very call is not picked again in it, whatever other
            // entries of it the heap holds (an `enable` pushes one of its own).
            if !self.is_ready(due_at, key) || (EXTRAS && self.held.contains(&key)) {
                self.ready.pop();
                continue;
            }
            // The entry stays on top while its head is attempted: the entry the attempt then
            // schedules (the same head later, or the endpoint's next one) takes its place.
            self.top_spent = true;
            let attempt = if EXTRAS && (self.throttled_ever || self.breaker_ever) {
                self.attempt_or_hold_back(key, ts)
            } else {
                self.attempt::<EXTRAS>(key, ts)
            };
            if self.top_spent {
                self.ready.pop();
                self.top_spent = false;
            }
            sink(attempt);
        }
        if EXTRAS && !self.held.is_empty() {
            for key in std::mem::take(&mut self.held) {
                self.push_ready(ts, key);
            }
        }
    }

    /// Once a throttle or a breaker was set: the head held if its endpoint's breaker is open
    /// (`breaker.held`), else throttled if its bucket has no token (`breaker.with-throttle`),
    /// else attempted, and the breaker told how it went. Out of line, so that a run without
    /// them keeps the loop it had (the attempt inlined into it, nothing more).
    #[inline(never)]
    fn attempt_or_hold_back(&mut self, key: EventKey, ts: Ts) -> Attempt {
        let endpoint = self.events[key.index()].endpoint;
        let open = self.endpoints[endpoint.index()]
            .circuit
            .as_deref()
            .and_then(|c| c.holds_until(ts));
        if let Some(until) = open {
            return self.hold_back(key, Outcome::Held(until), ts);
        }
        if let Some(until) = self.take_token(key) {
            return self.hold_back(key, Outcome::Throttled(until), ts);
        }
        let attempt = self.attempt::<true>(key, ts);
        if let Some(circuit) = self.endpoints[endpoint.index()].circuit.as_deref_mut() {
            circuit.attempted(key, ts, attempt.outcome != Outcome::Delivered);
        }
        attempt
    }

    /// Takes a token from the head's endpoint's bucket, if it has one (`throttle.bucket`);
    /// `Some(T)` when there is none, T the next token's time.
    fn take_token(&mut self, key: EventKey) -> Option<Ts> {
        let endpoint = self.events[key.index()].endpoint;
        let bucket = self.endpoints[endpoint.index()].bucket.as_deref_mut()?;
        match bucket.take(&self.calls) {
            Ok(()) => {
                bucket.attempted(key);
                None
            }
            Err(until) => Some(until),
        }
    }

    /// A head that found no token or an open breaker (`outcome` says which, and until when):
    /// not attempted, due then (`throttle.throttled`, `throttle.not-attempt`, `breaker.held`),
    /// and its record.
    fn hold_back(&mut self, key: EventKey, outcome: Outcome, ts: Ts) -> Attempt {
        let until = match outcome {
            Outcome::Throttled(t) | Outcome::Held(t) => t,
            _ => ts,
        };
        let event = &mut self.events[key.index()];
        let ep = &mut self.endpoints[event.endpoint.index()];
        event.set_lifecycle(Lifecycle::Pending { due_at: until });
        event.epoch = ep.epoch;
        let number = u32::from(event.attempts);
        match outcome {
            Outcome::Held(_) => {
                if let Some(circuit) = ep.circuit.as_deref_mut() {
                    circuit.hold(key);
                }
            }
            _ => {
                if let Some(bucket) = ep.bucket.as_deref_mut() {
                    bucket.hold(key);
                }
            }
        }
        if until > ts {
            self.push_ready(until, key);
        } else {
            self.held.push(key);
        }
        Attempt {
            event: key,
            number,
            status: 0,
            outcome,
            disabled_endpoint: false,
        }
    }

    /// Whether a `ready` entry still describes a ready head: the head of an enabled endpoint,
    /// due at that time. Any other entry is stale (see `Dispatcher::ready`). Two entries for one
    /// head at one time are harmless: the attempt changes the head's due time or its place.
    fn is_ready(&self, due_at: Ts, key: EventKey) -> bool {
        let ep = &self.endpoints[self.events[key.index()].endpoint.index()];
        !ep.is_disabled() && ep.head() == Some(key) && self.due_at(key) == Some(due_at)
    }

    /// One attempt of an endpoint's ready head, which the caller has taken out of `ready`.
    /// Inlined so that the attempt is built where it goes: returned through memory, it was
    /// stored field by field and read back as wider words as it was pushed, a load that waits
    /// for those stores to drain (a store-forwarding stall) once per attempt.
    #[inline(always)]
    fn attempt<const EXTRAS: bool>(&mut self, key: EventKey, ts: Ts) -> Attempt {
        let endpoint = self.events[key.index()].endpoint;
        let event = &mut self.events[key.index()];
        event.attempts = event.attempts.saturating_add(1);
        let number = u32::from(event.attempts);
        let status = event.script.for_attempt(number);
        let ep = &self.endpoints[endpoint.index()];
        // The event after this one becomes the head if this one is done with: it is read then.
        prefetch(
            ep.pending
                .get(1)
                .and_then(|next| self.events.get(next.index())),
        );
        let signing = EXTRAS && ep.secrets.is_some();
        let policy = ep.policy();
        let outcome = match classify(status) {
            Class::Delivered => Outcome::Delivered,
            Class::Retryable if number < policy.attempts() => {
                let mut wait = policy.wait_after(number);
                if matches!(status, 429 | 503)
                    && let Some(r) = self.retry_after_of(key, number)
                {
                    // `retry-after.wait`: min(max(R, w), 2w); w is at most 30 days, so 2w fits.
                    wait = r.clamp(wait, wait.saturating_mul(2));
                }
                // `retry.beyond-range`: a due time no valid `ts` reaches is no retry at all.
                match ts.checked_add(wait).filter(|due| *due <= TS_LIMIT) {
                    Some(due) => Outcome::RetryAt(due),
                    None => Outcome::Dead,
                }
            }
            Class::Retryable | Class::Permanent => Outcome::Dead,
        };
        let gone = status == 410 && policy.disables_on_gone();
        let threshold = policy.disable_after();
        let epoch = ep.epoch;
        // `auto.count`, then `auto.disable` and `gone.disable`: the endpoint is disabled before
        // its next head is looked at, so nothing else of it is attempted in this call. A 410
        // under `disable_on_gone` is the reason when both apply (`endpoint.report`).
        let ep = &mut self.endpoints[endpoint.index()];
        ep.consecutive_failures = match outcome {
            Outcome::Delivered => 0,
            _ => ep.consecutive_failures.saturating_add(1),
        };
        let failing = outcome != Outcome::Delivered
            && threshold.is_some_and(|f| ep.consecutive_failures >= f);
        let disables = if gone {
            Some(DisableReason::Gone)
        } else if failing {
            Some(DisableReason::Failing)
        } else {
            None
        };
        if disables.is_some() {
            ep.disabled = disables;
        }
        let event = &mut self.events[key.index()];
        match outcome {
            Outcome::RetryAt(due_at) => {
                // Still the head: it goes back into the ready heap at its new due time (where
                // it is dropped if the endpoint was just disabled).
                event.set_lifecycle(Lifecycle::Pending { due_at });
                event.epoch = epoch;
                self.push_ready(due_at, key);
            }
            Outcome::Delivered => {
                event.set_lifecycle(Lifecycle::Delivered);
                self.finish(key);
            }
            Outcome::Dead => {
                let letter = self.next_letter;
                self.next_letter += 1;
                event.set_lifecycle(Lifecycle::Dead { letter });
                self.dead_letters.push(letter, (key, ts));
                self.endpoints[endpoint.index()].bury(key, letter, ts);
                self.finish(key);
            }
            // An attempt never comes out throttled or expired: `hold_back` and `expire` make
            // those records.
            Outcome::Throttled(_) | Outcome::Held(_) | Outcome::Expired => {}
        }
        if signing {
            self.note_signers(key, number, ts);
        }
        Attempt {
            event: key,
            number,
            status,
            outcome,
            disabled_endpoint: disables.is_some(),
        }
    }

    /// The `retry_after` of attempt `number` of an event, if its outcomes gave one there (the
    /// last entry repeating, as statuses do).
    fn retry_after_of(&self, key: EventKey, number: u32) -> Option<Ts> {
        if self.retry_after.is_empty() {
            return None;
        }
        let list = self.retry_after.get(&key)?;
        let index = usize::try_from(number.saturating_sub(1)).unwrap_or(usize::MAX);
        let r = *list.get(index).or_else(|| list.last())?;
        (r != NO_RETRY_AFTER).then(|| Ts::from(r))
    }

    /// Removes a delivered or dead head from its endpoint and schedules the next one
    /// (`order.unblock-same-call`).
    fn finish(&mut self, key: EventKey) {
        let endpoint = self.events[key.index()].endpoint;
        let popped = self.endpoints[endpoint.index()].pending.pop_front();
        debug_assert_eq!(
            popped,
            Some(key),
            "only an endpoint's head is ever attempted"
        );
        self.schedule_head(endpoint);
    }
}
