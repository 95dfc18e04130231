//! The dispatcher as a pure state machine: endpoints with their retry policies, events,
//! per-endpoint ordering and pausing. It knows nothing of JSON; every input here is already
//! well-formed. What a single attempt leads to is [`crate::schedule`]'s to decide.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::error::Error;
use crate::schedule::{self, Next, Outcome, Policy};

/// Index into `Dispatcher::endpoints`, in registration order. Like [`Seq`], it is only ever
/// taken from the vector's length before a push, so indexing with it cannot fail.
type EndpointIdx = usize;
/// Index into `Dispatcher::events`, which is also the event's enqueue order: events are only
/// ever appended, so the two coincide and ordering needs no separate counter.
type Seq = usize;
/// Position in the dead-letter list; increases with every death, so a re-death sorts last.
type DeathNo = u64;
/// A head's place in the processing order: earliest due time first, then enqueue order.
type HeadKey = (i64, Seq);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Pending,
    Delivered,
    Dead(DeathNo),
}

#[derive(Debug)]
struct Event {
    id: String,
    endpoint: EndpointIdx,
    /// Non-empty, checked by decoding; the last entry repeats once the list runs out.
    outcomes: Vec<Outcome>,
    attempts: u32,
    /// Meaningful while pending; kept as is otherwise because nothing reads it then.
    due_at: i64,
    fate: Fate,
}

#[derive(Debug)]
struct Endpoint {
    /// As registered, for the `"<endpoint_id> disabled"` record of a 410 under `disable_on_gone`.
    id: String,
    /// Consulted at each failure, not when a retry is scheduled, so a change applies to the
    /// next failure of every event and moves no retry already scheduled (`policy.no-reschedule`).
    policy: Policy,
    disabled: bool,
    /// Pending events by enqueue order. A set rather than a FIFO because a replayed event must
    /// take back its original position, which may be ahead of events enqueued after it.
    pending: BTreeSet<Seq>,
    /// This endpoint's share of the dead-letter list, so replay and the filtered query need not
    /// scan every endpoint's dead events.
    dead: BTreeMap<DeathNo, Seq>,
}

/// What `status` reports for an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub state: State,
    pub attempts: u32,
    pub next_attempt_at: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Pending,
    Held,
    Delivered,
    Dead,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Held => "held",
            State::Delivered => "delivered",
            State::Dead => "dead",
        }
    }
}

#[derive(Debug, Default)]
pub struct Dispatcher {
    endpoints: Vec<Endpoint>,
    endpoint_ids: HashMap<String, EndpointIdx>,
    events: Vec<Event>,
    event_ids: HashMap<String, Seq>,
    /// The head (earliest-enqueued pending event) of every enabled endpoint that has one. Only
    /// heads can be attempted, so `process` just takes the smallest key while it is due.
    heads: BTreeSet<HeadKey>,
    /// Every dead-lettered event, oldest death first.
    dead_letters: BTreeMap<DeathNo, Seq>,
    deaths: DeathNo,
}

impl Dispatcher {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn register(&mut self, endpoint_id: &str) -> Result<(), Error> {
        if self.endpoint_ids.contains_key(endpoint_id) {
            return Err(Error::DuplicateEndpoint);
        }
        self.endpoint_ids
            .insert(endpoint_id.to_owned(), self.endpoints.len());
        self.endpoints.push(Endpoint {
            id: endpoint_id.to_owned(),
            policy: Policy::default(),
            disabled: false,
            pending: BTreeSet::new(),
            dead: BTreeMap::new(),
        });
        Ok(())
    }

    pub fn enqueue(
        &mut self,
        ts: i64,
        endpoint_id: &str,
        event_id: &str,
        outcomes: Vec<Outcome>,
    ) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        if self.event_ids.contains_key(event_id) {
            return Err(Error::DuplicateEvent);
        }
        let before = self.head_key(ep);
        let seq = self.events.len();
        self.events.push(Event {
            id: event_id.to_owned(),
            endpoint: ep,
            outcomes,
            attempts: 0,
            due_at: ts,
            fate: Fate::Pending,
        });
        self.event_ids.insert(event_id.to_owned(), seq);
        self.endpoints[ep].pending.insert(seq);
        self.relink_head(ep, before);
        Ok(())
    }

    /// Attempts every due head, smallest (due time, enqueue order) first, and returns the
    /// records in attempt order, each `"<endpoint_id> disabled"` right after the 410 that caused
    /// it. Terminates because a retry is always due after `ts`.
    pub fn process(&mut self, ts: i64) -> Vec<String> {
        let mut records = Vec::new();
        while let Some(&key) = self.heads.first()
            && key.0 <= ts
        {
            let seq = key.1;
            let ep = self.events[seq].endpoint;
            let (record, disable_endpoint) = self.attempt(seq, ts);
            records.push(record);
            if disable_endpoint {
                // Exactly as `disable`: the relink below drops the endpoint's head, so nothing
                // else of it is attempted in this call while other endpoints go on.
                let endpoint = &mut self.endpoints[ep];
                endpoint.disabled = true;
                records.push(format!("{} disabled", endpoint.id));
            }
            self.relink_head(ep, Some(key));
        }
        records
    }

    pub fn status(&self, event_id: &str) -> Result<Status, Error> {
        let seq = *self.event_ids.get(event_id).ok_or(Error::UnknownEvent)?;
        let event = &self.events[seq];
        let (state, next_attempt_at) = match event.fate {
            Fate::Pending if self.endpoints[event.endpoint].disabled => (State::Held, None),
            Fate::Pending => (State::Pending, Some(event.due_at)),
            Fate::Delivered => (State::Delivered, None),
            Fate::Dead(_) => (State::Dead, None),
        };
        Ok(Status {
            state,
            attempts: event.attempts,
            next_attempt_at,
        })
    }

    pub fn disable(&mut self, endpoint_id: &str) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        if self.endpoints[ep].disabled {
            return Err(Error::AlreadyDisabled);
        }
        let before = self.head_key(ep);
        self.endpoints[ep].disabled = true;
        self.relink_head(ep, before);
        Ok(())
    }

    pub fn enable(&mut self, ts: i64, endpoint_id: &str, replay_dead: bool) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        if !self.endpoints[ep].disabled {
            return Err(Error::NotDisabled);
        }
        let endpoint = &mut self.endpoints[ep];
        endpoint.disabled = false;
        // Attempt counts stay, so each held event's retry schedule resumes where it stopped.
        for &seq in &endpoint.pending {
            self.events[seq].due_at = ts;
        }
        if replay_dead {
            for (death, seq) in std::mem::take(&mut endpoint.dead) {
                self.dead_letters.remove(&death);
                let event = &mut self.events[seq];
                event.fate = Fate::Pending;
                event.attempts = 0;
                event.due_at = ts;
                endpoint.pending.insert(seq);
            }
        }
        // A disabled endpoint has no head in `heads`, hence `None` for the old key.
        self.relink_head(ep, None);
        Ok(())
    }

    /// Replaces the endpoint's whole policy. Allowed while disabled: a policy is configuration,
    /// and held events follow it once they fail after `enable` (`policy.per-endpoint`).
    pub fn set_policy(&mut self, endpoint_id: &str, policy: Policy) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        self.endpoints[ep].policy = policy;
        Ok(())
    }

    pub fn policy(&self, endpoint_id: &str) -> Result<&Policy, Error> {
        Ok(&self.endpoints[self.endpoint(endpoint_id)?].policy)
    }

    /// Dead-lettered event ids, oldest death first, of every endpoint or of one.
    pub fn dead_letters(&self, endpoint_id: Option<&str>) -> Result<Vec<String>, Error> {
        let letters = match endpoint_id {
            None => &self.dead_letters,
            Some(id) => &self.endpoints[self.endpoint(id)?].dead,
        };
        Ok(letters
            .values()
            .map(|&seq| self.events[seq].id.clone())
            .collect())
    }

    fn endpoint(&self, endpoint_id: &str) -> Result<EndpointIdx, Error> {
        self.endpoint_ids
            .get(endpoint_id)
            .copied()
            .ok_or(Error::UnknownEndpoint)
    }

    /// The key the endpoint should have in `heads` given its current state.
    fn head_key(&self, ep: EndpointIdx) -> Option<HeadKey> {
        let endpoint = &self.endpoints[ep];
        if endpoint.disabled {
            return None;
        }
        let &seq = endpoint.pending.first()?;
        Some((self.events[seq].due_at, seq))
    }

    /// Brings `heads` in line after a change to the endpoint; `before` is the key it had.
    fn relink_head(&mut self, ep: EndpointIdx, before: Option<HeadKey>) {
        let after = self.head_key(ep);
        if before != after {
            if let Some(key) = before {
                self.heads.remove(&key);
            }
            if let Some(key) = after {
                self.heads.insert(key);
            }
        }
    }

    /// Makes one attempt at a pending event; returns its record and whether the endpoint must
    /// now be disabled (a 410 under `disable_on_gone`), which the caller does.
    fn attempt(&mut self, seq: Seq, ts: i64) -> (String, bool) {
        let event = &mut self.events[seq];
        // A policy allows at most 100 attempts and a replay resets the count, so this is far
        // from overflowing; saturating all the same rather than trusting that argument.
        event.attempts = event.attempts.saturating_add(1);
        let attempt = event.attempts;
        let index = usize::try_from(attempt - 1).unwrap_or(usize::MAX);
        // Decoding guarantees a non-empty list, so the fallback timeout is never used.
        let outcome = event
            .outcomes
            .get(index)
            .or(event.outcomes.last())
            .copied()
            .unwrap_or(Outcome::TIMEOUT);
        let prefix = format!("{} #{attempt} {}", event.id, outcome.status());

        let endpoint = &mut self.endpoints[event.endpoint];
        // The policy in force now, at the failure, decides (`policy.in-force`); from the call's
        // ts, not the old due time, so a late process pushes the schedule.
        match schedule::next(&endpoint.policy, outcome, attempt, ts) {
            Next::Delivered => {
                event.fate = Fate::Delivered;
                endpoint.pending.remove(&seq);
                (format!("{prefix} delivered"), false)
            }
            Next::RetryAt(due) => {
                event.due_at = due;
                (format!("{prefix} retry at {due}"), false)
            }
            Next::Dead { disable_endpoint } => {
                let death = self.deaths;
                self.deaths += 1;
                event.fate = Fate::Dead(death);
                endpoint.pending.remove(&seq);
                endpoint.dead.insert(death, seq);
                self.dead_letters.insert(death, seq);
                (format!("{prefix} dead"), disable_endpoint)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(statuses: &[u16]) -> Vec<Outcome> {
        statuses.iter().copied().map(Outcome::plain).collect()
    }

    #[test]
    fn sixth_retryable_failure_is_final() {
        let mut d = Dispatcher::new();
        d.register("shop").unwrap();
        d.enqueue(0, "shop", "e", plain(&[503])).unwrap();
        let mut records = Vec::new();
        for ts in [0, 30, 90, 210, 450, 750, 10_000] {
            records.extend(d.process(ts));
        }
        assert_eq!(
            records,
            [
                "e #1 503 retry at 30",
                "e #2 503 retry at 90",
                "e #3 503 retry at 210",
                "e #4 503 retry at 450",
                "e #5 503 retry at 750",
                "e #6 503 dead",
            ]
        );
        assert_eq!(d.dead_letters(None).unwrap(), ["e"]);
    }

    #[test]
    fn held_events_keep_their_count_and_resume_the_schedule() {
        let mut d = Dispatcher::new();
        d.register("shop").unwrap();
        d.enqueue(0, "shop", "e", plain(&[500, 500, 200])).unwrap();
        assert_eq!(d.process(0), ["e #1 500 retry at 30"]);
        d.disable("shop").unwrap();
        assert_eq!(d.process(100), Vec::<String>::new());
        let held = d.status("e").unwrap();
        assert_eq!((held.state, held.attempts), (State::Held, 1));
        assert_eq!(held.next_attempt_at, None);
        d.enable(200, "shop", false).unwrap();
        assert_eq!(d.process(200), ["e #2 500 retry at 260"]);
    }
}
