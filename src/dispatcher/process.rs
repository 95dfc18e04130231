//! `process`: attempt every due head in (due time, enqueue order), unblocking the next event of an
//! endpoint as soon as its head is delivered or dead (`process.*`, `order.*`).

use super::{Attempt, Class, Dispatcher, EventKey, Lifecycle, Outcome, Ts, classify};
use std::cmp::Reverse;

impl Dispatcher {
    /// Attempts everything due at `ts` and returns the attempts in the order they were made.
    pub fn process(&mut self, ts: Ts) -> Vec<Attempt> {
        let mut attempts = Vec::new();
        self.process_with(ts, |a| attempts.push(a));
        attempts
    }

    /// Like [`Dispatcher::process`], handing each attempt to `sink` instead of collecting them.
    pub fn process_with(&mut self, ts: Ts, mut sink: impl FnMut(Attempt)) {
        while let Some(&Reverse((due_at, key))) = self.ready.peek() {
            if due_at > ts {
                break;
            }
            self.ready.pop();
            if self.is_ready(due_at, key) {
                sink(self.attempt(key, ts));
            }
        }
    }

    /// Whether a `ready` entry still describes a ready head: the head of an enabled endpoint,
    /// due at that time. Any other entry is stale (see `Dispatcher::ready`). Two entries for one
    /// head at one time are harmless: the attempt changes the head's due time or its place.
    fn is_ready(&self, due_at: Ts, key: EventKey) -> bool {
        let ep = &self.endpoints[self.events[key.index()].endpoint.index()];
        !ep.disabled && ep.head() == Some(key) && self.due_at(key) == Some(due_at)
    }

    /// One attempt of an endpoint's ready head, which the caller has taken out of `ready`.
    fn attempt(&mut self, key: EventKey, ts: Ts) -> Attempt {
        let max_attempts = self.policy.max_attempts();
        let epoch = self.endpoints[self.events[key.index()].endpoint.index()].epoch;
        let event = &mut self.events[key.index()];
        event.attempts = event.attempts.saturating_add(1);
        let number = event.attempts;
        let status = event.script.for_attempt(number);
        let outcome = match classify(status) {
            Class::Delivered => Outcome::Delivered,
            Class::Retryable if number < max_attempts => {
                Outcome::RetryAt(ts.saturating_add(self.policy.wait_after(number)))
            }
            Class::Retryable | Class::Permanent => Outcome::Dead,
        };
        let endpoint = event.endpoint;
        match outcome {
            Outcome::RetryAt(due_at) => {
                // Still the head: it goes back into the ready heap at its new due time.
                event.lifecycle = Lifecycle::Pending { due_at };
                event.epoch = epoch;
                self.ready.push(Reverse((due_at, key)));
            }
            Outcome::Delivered => {
                event.lifecycle = Lifecycle::Delivered;
                self.finish(key);
            }
            Outcome::Dead => {
                let letter = self.next_letter;
                self.next_letter += 1;
                event.lifecycle = Lifecycle::Dead { letter };
                self.dead_letters.insert(letter, key);
                self.endpoints[endpoint.index()].dead.push(key);
                self.finish(key);
            }
        }
        Attempt {
            event: key,
            number,
            status,
            outcome,
        }
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
