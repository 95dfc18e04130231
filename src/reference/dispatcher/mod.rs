//! The reference dispatcher of `spec/dispatcher.md`: a pure state machine, no I/O, no JSON.
//!
//! Sized for millions of events: `ready` holds the head of each enabled endpoint, keyed by (due
//! time, enqueue order), so a `process` call costs O(log n) per attempt and O(1) when nothing is
//! due; pause and replay touch only the endpoint's own dead events. Each endpoint carries its
//! own `RetryPolicy` (Part 4), absent for the default one.

mod attempt;
mod breaker;
mod dead_letter;
mod endpoint;
mod error;
mod event;
mod expiry;
mod ids;
mod letters;
mod outcome;
mod pause;
mod policy;
mod process;
mod signatures;
mod status;
mod throttle;

pub use attempt::{Attempt, Outcome, Record};
pub use breaker::{Breaker, BreakerState};
pub use dead_letter::{DeadLetter, EndpointReport};
pub use endpoint::{DisableReason, EndpointKey};
pub use error::Error;
pub use event::EventKey;
pub(crate) use outcome::INLINE as INLINE_STATUSES;
pub use outcome::MAX_RETRY_AFTER;
pub use outcome::{Class, Outcomes, classify};
pub use policy::{MAX_AGE, MAX_ATTEMPTS, MAX_WAIT, RetryPolicy};
pub use signatures::{GRACE, Headers, KEEP, Key, TOLERANCE, Verification, verify};
pub use status::{State, Status};
pub use throttle::{MAX_BURST, Throttle};

use crate::prefetch::prefetch;
use endpoint::Endpoint;
use event::{Event, Lifecycle};
use ids::Ids;
use letters::Letters;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// Simulated time in seconds.
pub type Ts = i64;

/// `op.ts-range` and `retry.beyond-range`: no due time may pass it.
pub const TS_LIMIT: Ts = (1 << 53) - 1;

/// The most event ids [`Dispatcher::reserve_events`] makes the table for: a table of 2^17
/// entries, 1 MB, about a core's own cache. Made larger at once, the early lookups of a large
/// run spread over a table far beyond the cache instead of a small one that grows with them:
/// sized for a quarter of a 1M run's room, 1.10 of the time at 1M; with this bound, 0.95 to 0.97.
const EVENT_IDS_AHEAD: usize = 1 << 16;

#[derive(Debug, Default)]
pub struct Dispatcher {
    endpoints: Vec<Endpoint>,
    endpoint_ids: Ids,
    events: Vec<Event>,
    event_ids: Ids,
    /// The head of every enabled endpoint that has pending events, by (due time, enqueue
    /// order), the earliest on top. An entry is not removed when it stops describing a ready
    /// head (its endpoint disabled, say): `process` drops such entries as it meets them, so a
    /// disable costs nothing and every other change one push.
    ready: BinaryHeap<Reverse<Due>>,
    /// Set while `process` attempts the head whose entry is on top of `ready`: the next entry
    /// pushed replaces it, one sift instead of a pop and a push (see [`Dispatcher::push_ready`]).
    top_spent: bool,
    /// Dead-lettered events by order of death (`dead.list`), with the `ts` of their death
    /// (`dead-letter.report`): kept here rather than in every event, which mostly never die.
    dead_letters: Letters<(EventKey, Ts)>,
    next_letter: u64,
    /// The `retry_after` lists of the events whose outcomes gave any (Part 5), by event. Kept
    /// apart from `Event` so that the brief's plain scripts pay nothing for them, not even size;
    /// it is consulted only for a 429 or 503.
    retry_after: HashMap<EventKey, Box<[u32]>>,
    /// The `process` calls' times, which every throttle's bucket reads (Part 9); noted only
    /// once a throttle has been set, so that runs without one pay nothing for it.
    calls: throttle::Calls,
    throttled_ever: bool,
    /// Whether a secret was ever set (Part 8): until then, no attempt looks for signers.
    signed_ever: bool,
    /// The events' deadlines (Part 11).
    deadlines: expiry::Deadlines,
    /// Whether a breaker was ever set (Part 10).
    breaker_ever: bool,
    /// Whether any of the four above was ever set (a deadline ever fixed, for Part 11): until
    /// then `process` takes its loop without their checks.
    extras_ever: bool,
    /// Heads throttled until the very `ts` of the `process` call under way (only at the end of
    /// time, `throttle.beyond-range`): they go back into `ready` once the call is over, as a
    /// head is picked at most once per call.
    held: Vec<EventKey>,
    /// Who signed each attempt made while its endpoint had a secret (Part 8), by event, and
    /// the events' payloads: apart from `Event`, so that runs without them pay nothing.
    signed: HashMap<EventKey, Vec<signatures::Signed>>,
    payloads: HashMap<EventKey, Box<str>>,
}

impl Dispatcher {
    pub fn new() -> Self {
        Self::default()
    }

    /// `register.duplicate`: an existing endpoint is never replaced.
    pub fn register(&mut self, endpoint_id: &str, url: &str) -> Result<(), Error> {
        let Some((_, name)) = self.endpoint_ids.insert(endpoint_id, &self.endpoints)? else {
            return Err(Error::DuplicateEndpoint);
        };
        self.endpoints.push(Endpoint::new(name, url));
        Ok(())
    }

    /// `enqueue.accept`: a new pending event due at `ts`. The outcomes were validated when the
    /// `Outcomes` value was built, which is why `invalid outcomes` precedes the state errors.
    pub fn enqueue(
        &mut self,
        ts: Ts,
        endpoint_id: &str,
        event_id: &str,
        outcomes: Outcomes,
    ) -> Result<EventKey, Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        // Event ids are numbered in enqueue order, so the id's index is the event's key.
        let (index, name) = self
            .event_ids
            .insert(event_id, &self.events)?
            .ok_or(Error::DuplicateEvent)?;
        let key = EventKey(index);
        let ep = &mut self.endpoints[endpoint.index()];
        // Any later policy may allow up to `MAX_ATTEMPTS`, so entries up to there are kept.
        let (script, retry_after) = outcomes.into_script(MAX_ATTEMPTS);
        if let Some(list) = retry_after {
            self.retry_after.insert(key, list);
        }
        self.events
            .push(Event::new(name, endpoint, ep.epoch, script, ts));
        ep.pending.push_back(key);
        // A new event is the last in enqueue order, so it is the head only of an empty queue.
        if ep.pending.len() == 1 && !ep.is_disabled() {
            self.ready.push(Reverse(Due::new(ts, key)));
        }
        if ep.policy.as_deref().is_some_and(|p| p.max_age().is_some()) {
            self.start_age(key, ts);
        }
        Ok(key)
    }

    /// `enqueue` with a payload (`sig.payload`), the body of every attempt of the event.
    pub fn enqueue_with_payload(
        &mut self,
        ts: Ts,
        endpoint_id: &str,
        event_id: &str,
        outcomes: Outcomes,
        payload: &str,
    ) -> Result<EventKey, Error> {
        let key = self.enqueue(ts, endpoint_id, event_id, outcomes)?;
        self.keep_payload(key, payload);
        Ok(key)
    }

    /// `policy.set`, `policy.default` (`None`): the endpoint's whole policy is replaced; no
    /// scheduled retry moves (`policy.no-reschedule`), as due times are stored, not derived.
    /// A throttle starts a full bucket at `ts` (`throttle.set`), a breaker a closed one
    /// (`breaker.set`), and the events the previous ones throttled or held are due at `ts` if
    /// they were due later (`throttle.release`).
    pub fn set_policy(
        &mut self,
        ts: Ts,
        endpoint_id: &str,
        policy: Option<RetryPolicy>,
    ) -> Result<(), Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        let throttle = policy.as_ref().and_then(RetryPolicy::throttle);
        let breaker = policy.as_ref().and_then(RetryPolicy::breaker);
        self.throttled_ever |= throttle.is_some();
        self.breaker_ever |= breaker.is_some();
        self.extras_ever |= self.throttled_ever || self.breaker_ever;
        let ep = &mut self.endpoints[endpoint.index()];
        ep.policy = policy.map(Box::new);
        let bucket = throttle.map(|t| Box::new(throttle::Bucket::new(t, ts, &self.calls)));
        let old_bucket = std::mem::replace(&mut ep.bucket, bucket);
        // `breaker.set`: a new closed breaker, or none.
        let circuit = breaker.map(|b| Box::new(breaker::Circuit::new(b)));
        let old_circuit = std::mem::replace(&mut ep.circuit, circuit);
        if let Some(old) = old_bucket {
            self.release(ts, endpoint, &old.throttled);
        }
        if let Some(old) = old_circuit {
            self.release(ts, endpoint, &old.held);
        }
        Ok(())
    }

    /// `throttle.release`, `breaker.set`: each of `keys`, if still pending and due after `ts`,
    /// is due at `ts`.
    fn release(&mut self, ts: Ts, endpoint: EndpointKey, keys: &[EventKey]) {
        let mut moved = false;
        for &key in keys {
            if self.due_at(key).is_some_and(|due| due > ts) {
                let epoch = self.endpoints[endpoint.index()].epoch;
                let event = &mut self.events[key.index()];
                event.set_lifecycle(Lifecycle::Pending { due_at: ts });
                event.epoch = epoch;
                moved = true;
            }
        }
        if moved {
            self.schedule_head(endpoint);
        }
    }

    /// `policy.get`: the policy in force for the endpoint.
    pub fn policy(&self, endpoint_id: &str) -> Result<&RetryPolicy, Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        Ok(self.endpoints[endpoint.index()].policy())
    }

    pub fn status(&self, event_id: &str) -> Result<Status, Error> {
        let key = self.event_key(event_id)?;
        let event = &self.events[key.index()];
        let held = self.endpoints[event.endpoint.index()].is_disabled();
        let (state, next_attempt_at) = match event.lifecycle() {
            Lifecycle::Pending { .. } if held => (State::Held, None),
            Lifecycle::Pending { .. } => (State::Pending, self.due_at(key)),
            Lifecycle::Delivered => (State::Delivered, None),
            Lifecycle::Dead { .. } => (State::Dead, None),
        };
        Ok(Status {
            state,
            attempts: u32::from(event.attempts),
            next_attempt_at,
        })
    }

    /// Whether the event is pending behind an earlier pending event of its enabled endpoint:
    /// blocked, reporting its own due time (`order.waiting-status`). `hookcheck lint` asks it to
    /// see which status steps of a case depend on that rule.
    pub fn is_waiting(&self, event_id: &str) -> bool {
        let Ok(key) = self.event_key(event_id) else {
            return false;
        };
        let event = &self.events[key.index()];
        let ep = &self.endpoints[event.endpoint.index()];
        matches!(event.lifecycle(), Lifecycle::Pending { .. })
            && !ep.is_disabled()
            && ep.head() != Some(key)
    }

    /// Brings into the cache what looking these ids up will read: the id tables' lines and the
    /// event and endpoint found. A hint, ahead of the operations that name them: nothing is
    /// compared and nothing changes.
    pub fn warm(&self, event_id: Option<&str>, endpoint_id: Option<&str>) {
        fn warm<T>(ids: &Ids, items: &[T], id: Option<&str>) {
            if let Some(i) = id.and_then(|id| ids.warm(id)) {
                prefetch(items.get(i as usize));
            }
        }
        warm(&self.event_ids, &self.events, event_id);
        warm(&self.endpoint_ids, &self.endpoints, endpoint_id);
    }

    /// The first step of [`Dispatcher::warm`] for an event id: the table entries it will read.
    pub fn warm_entries(&self, event_id: &str) {
        self.event_ids.prefetch_entries(event_id);
    }

    /// Makes room for `n` more events at once, so that the events stay in one place while that
    /// many are enqueued: a hint from a caller that knows about how many may come (`hookcheck
    /// run`, from its input's size). Room that is never used is never touched, so it costs
    /// address space, not memory; if it cannot be had, the room grows as events come.
    ///
    /// The event id table is made at once for a quarter of them, at most [`EVENT_IDS_AHEAD`]:
    /// grown step by step it was copied at every doubling into fresh pages, which the applying
    /// thread of a 100k run faulted in one by one (about 500 of its page faults). A quarter is
    /// what the bench's workloads come to (their size over 23 bytes overstates the events 3.5
    /// to 4 times), so a small input gets no larger a table than it would have grown to.
    pub fn reserve_events(&mut self, n: usize) {
        let _ = self.events.try_reserve_exact(n);
        self.event_ids.reserve((n / 4).min(EVENT_IDS_AHEAD));
    }

    /// Where the events are stored, as addresses: the first event's, the end of the room made
    /// for them, and the size of one event. For a hint to the operating system alone (see
    /// `input::prefault`): nothing may read or write the events through them.
    pub fn event_room(&self) -> (usize, usize, usize) {
        let start = self.events.as_ptr() as usize;
        let size = size_of::<Event>();
        (start, start + self.events.capacity() * size, size)
    }

    /// How many events were ever enqueued.
    pub fn event_count(&self) -> usize {
        self.events.len()
    }

    /// The dead-lettered event ids, oldest death first (`dead.list`).
    pub fn dead_letters(&self) -> impl Iterator<Item = &str> {
        self.dead_letters
            .values(|letter, (key, _)| is_dead_as(&self.events, letter, key))
            .map(|(k, _)| self.event_id(k))
    }

    /// One endpoint's dead-lettered event ids, oldest death first (`dead.list-endpoint`): events
    /// join their endpoint's dead list as they die, and a replay empties it.
    pub fn dead_letters_of(&self, endpoint_id: &str) -> Result<impl Iterator<Item = &str>, Error> {
        let endpoint = self.endpoint_key(endpoint_id)?;
        Ok(self.endpoints[endpoint.index()]
            .dead
            .values(|letter, key| is_dead_as(&self.events, letter, key))
            .map(|k| self.event_id(k)))
    }

    pub fn event_id(&self, key: EventKey) -> &str {
        self.event_ids.str(&self.events[key.index()].name)
    }

    /// The event's id as UTF-8 bytes, for writing out (cheaper than [`Dispatcher::event_id`]),
    /// and whether JSON writes them as they are, with no escape.
    pub fn event_id_json(&self, key: EventKey) -> (&[u8], bool) {
        self.event_ids.json(&self.events[key.index()].name)
    }

    /// The id of the endpoint an event belongs to.
    pub fn endpoint_of(&self, key: EventKey) -> &str {
        let ep = &self.endpoints[self.events[key.index()].endpoint.index()];
        self.endpoint_ids.str(&ep.name)
    }

    /// A pending event's due time: its own, unless its endpoint was enabled since it was set
    /// (`pause.enable-due`), which makes it the enable's `ts`. `None` unless pending.
    fn due_at(&self, key: EventKey) -> Option<Ts> {
        let event = &self.events[key.index()];
        let Lifecycle::Pending { due_at } = event.lifecycle() else {
            return None;
        };
        let ep = &self.endpoints[event.endpoint.index()];
        Some(if event.epoch == ep.epoch {
            due_at
        } else {
            ep.enabled_at
        })
    }

    /// The brief's record string for an attempt this dispatcher made.
    pub fn record<'a>(&'a self, attempt: &'a Attempt) -> Record<'a> {
        Record {
            id: self.event_id(attempt.event),
            attempt,
        }
    }

    fn endpoint_key(&self, endpoint_id: &str) -> Result<EndpointKey, Error> {
        self.endpoint_ids
            .get(endpoint_id, &self.endpoints)
            .map(EndpointKey)
            .ok_or(Error::UnknownEndpoint)
    }

    fn event_key(&self, event_id: &str) -> Result<EventKey, Error> {
        self.event_ids
            .get(event_id, &self.events)
            .map(EventKey)
            .ok_or(Error::UnknownEvent)
    }

    /// Puts an entry into the ready heap: in place of the top one, if `process` is done with it.
    fn push_ready(&mut self, due_at: Ts, key: EventKey) {
        if self.top_spent
            && let Some(mut top) = self.ready.peek_mut()
        {
            *top = Reverse(Due::new(due_at, key));
            self.top_spent = false;
            return;
        }
        self.ready.push(Reverse(Due::new(due_at, key)));
    }

    /// Puts the endpoint's head, if any, into the ready heap at its due time.
    fn schedule_head(&mut self, endpoint: EndpointKey) {
        let ep = &self.endpoints[endpoint.index()];
        if ep.is_disabled() {
            return;
        }
        // The event after the head is read when the head is done, which may be at once: its
        // line, enqueued long ago, is fetched now.
        prefetch(
            ep.pending
                .get(1)
                .and_then(|next| self.events.get(next.index())),
        );
        if let Some(head) = ep.head()
            && let Some(due_at) = self.due_at(head)
        {
            self.push_ready(due_at, head);
        }
    }
}

/// A `ready` entry: a due time and an event, ordered as the pair `(due_at, key)` is, packed into
/// one integer so that the heap compares them in one comparison without a branch (a tenth of the
/// applying thread's instructions are the heap's): the time, its sign bit flipped so that its
/// order is unsigned, above the key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Due(u128);

impl Due {
    fn new(due_at: Ts, key: EventKey) -> Self {
        let time = (due_at as u64) ^ (1 << 63);
        Due(u128::from(time) << 32 | u128::from(key.0))
    }

    fn parts(self) -> (Ts, EventKey) {
        let time = ((self.0 >> 32) as u64) ^ (1 << 63);
        (time as Ts, EventKey(self.0 as u32))
    }
}

/// Whether `key` is dead under `letter` now: a revival leaves the letters it ends in the lists,
/// stale, and only the event's lifecycle tells (see [`Letters`]).
fn is_dead_as(events: &[Event], letter: u64, key: EventKey) -> bool {
    matches!(
        events.get(key.index()).map(|e| e.lifecycle()),
        Some(Lifecycle::Dead { letter: l }) if l == letter
    )
}

#[cfg(test)]
mod tests;
