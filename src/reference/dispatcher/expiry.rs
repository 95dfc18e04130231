//! Part 11 (`expiry.*`): events that die of age. A deadline is fixed when an event's age starts
//! (its `enqueue`, its revival, `expiry.deadline`) and kept in a heap, so a `process` call looks
//! only at the events whose deadline has come (`expiry.expire`), never at the others; runs whose
//! policies have no `max_age` pay one branch per `enqueue` and nothing per `process`.

use super::{Attempt, Dispatcher, EventKey, Lifecycle, Outcome, TS_LIMIT, Ts};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet};

#[derive(Debug, Default)]
pub(super) struct Deadlines {
    /// (deadline, event) of every deadline ever fixed. An entry is stale unless `of` still
    /// gives the event that deadline and the event is pending; stale entries are dropped as
    /// they come to the top.
    heap: BinaryHeap<Reverse<(Ts, EventKey)>>,
    /// The deadline in force of each event that has one.
    of: HashMap<EventKey, Ts>,
    /// The dead events whose latest death was of age (`expiry.dead-letter`).
    expired: HashSet<EventKey>,
}

impl Deadlines {
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Whether the event's latest death was of age.
    pub fn expired(&self, key: EventKey) -> bool {
        !self.expired.is_empty() && self.expired.contains(&key)
    }
}

impl Dispatcher {
    /// Starts the event's age at `ts` (`expiry.deadline`, `expiry.revive`): its deadline is
    /// `ts` plus the `max_age` its endpoint's policy has now, none without one, and none past
    /// the last valid `ts` (`expiry.beyond-range`). Any earlier deadline is void.
    pub(super) fn start_age(&mut self, key: EventKey, ts: Ts) {
        let endpoint = self.events[key.index()].endpoint;
        let age = self.endpoints[endpoint.index()].policy().max_age();
        let deadline = age.and_then(|a| ts.checked_add(Ts::from(a)).filter(|d| *d <= TS_LIMIT));
        let deadlines = &mut self.deadlines;
        if !deadlines.expired.is_empty() {
            deadlines.expired.remove(&key);
        }
        match deadline {
            Some(d) => {
                deadlines.of.insert(key, d);
                deadlines.heap.push(Reverse((d, key)));
                self.extras_ever = true;
            }
            None => {
                if !deadlines.of.is_empty() {
                    deadlines.of.remove(&key);
                }
            }
        }
    }

    /// `expiry.expire`, `expiry.record`: every pending event whose deadline is at or before
    /// `ts` dies, in enqueue order, each handing its record to `sink`, before any head of the
    /// call is picked.
    pub(super) fn expire(&mut self, ts: Ts, sink: &mut impl FnMut(Attempt)) {
        let mut due: Vec<EventKey> = Vec::new();
        while let Some(&Reverse((deadline, key))) = self.deadlines.heap.peek() {
            if deadline > ts {
                break;
            }
            self.deadlines.heap.pop();
            if self.deadlines.of.get(&key) == Some(&deadline) {
                self.deadlines.of.remove(&key);
                if matches!(
                    self.events[key.index()].lifecycle(),
                    Lifecycle::Pending { .. }
                ) {
                    due.push(key);
                }
            }
        }
        // Keys are enqueue order (`enqueue.order`).
        due.sort_unstable();
        for key in due {
            sink(self.expire_one(key, ts));
        }
    }

    /// One event dead of age at `ts`: dead-lettered, out of its endpoint's pending events, and
    /// the next head scheduled if it was the head. Not an attempt (`expiry.not-attempt`): no
    /// count, no token, no outcome.
    fn expire_one(&mut self, key: EventKey, ts: Ts) -> Attempt {
        let letter = self.next_letter;
        self.next_letter += 1;
        let event = &mut self.events[key.index()];
        event.set_lifecycle(Lifecycle::Dead { letter });
        let (endpoint, number) = (event.endpoint, u32::from(event.attempts));
        self.dead_letters.push(letter, (key, ts));
        let ep = &mut self.endpoints[endpoint.index()];
        ep.bury(key, letter, ts);
        // No longer throttled (`throttle.release`): a revival must not find it so.
        if let Some(bucket) = ep.bucket.as_deref_mut() {
            bucket.throttled.retain(|k| *k != key);
        }
        if let Some(circuit) = ep.circuit.as_deref_mut() {
            circuit.held.retain(|k| *k != key);
        }
        let was_head = ep.head() == Some(key);
        ep.remove_pending(key);
        self.deadlines.expired.insert(key);
        if was_head {
            self.schedule_head(endpoint);
        }
        Attempt {
            event: key,
            number,
            status: 0,
            outcome: Outcome::Expired,
            disabled_endpoint: false,
        }
    }
}
