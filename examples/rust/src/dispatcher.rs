//! The dispatcher as a pure state machine: endpoints with their retry policies, events,
//! per-endpoint ordering, pausing (by hand, on 410 Gone, or after consecutive failures), dead
//! letters with their recovery, throttling by a token bucket per endpoint, a circuit breaker per
//! endpoint, the signatures each attempt carries, and the expiry of events older than their
//! endpoint's maximum age. It knows nothing of JSON; every input here is already well-formed.
//! What a single attempt leads to is [`crate::schedule`]'s to decide, what a bucket holds
//! [`crate::throttle`]'s, whether a breaker lets an attempt through [`crate::breaker`]'s, and what
//! signs an attempt [`crate::signatures`]'s.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::breaker::{Breaker, Shown};
use crate::error::Error;
use crate::schedule::{self, Next, Outcome, Policy};
use crate::signatures::{Headers, Secret, Secrets, Signing};
use crate::throttle::{Bucket, ProcessCalls};

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
    Dead(Death),
}

/// How a dead-lettered event died, for `dead_letter` and `recover` (Part 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Death {
    /// Its place in the dead-letter list.
    number: DeathNo,
    /// The `ts` of the `process` call that killed it.
    at: i64,
    /// The status of its last attempt: the one that killed it, or for an expired event the
    /// last it made before it expired, none if it made none (`expiry.dead-letter`).
    status: Option<u16>,
    /// Whether it died of age (Part 11) rather than by an attempt.
    expired: bool,
}

/// Why an endpoint is disabled (`endpoint.report`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// By `disable`.
    Manual,
    /// By a 410 under `disable_on_gone` (Part 5).
    Gone,
    /// By reaching the policy's `disable_after` consecutive failures (Part 6).
    Failing,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Manual => "manual",
            Reason::Gone => "gone",
            Reason::Failing => "failing",
        }
    }
}

#[derive(Debug)]
struct Event {
    id: String,
    endpoint: EndpointIdx,
    /// Non-empty, checked by decoding; the last entry repeats once the list runs out.
    outcomes: Vec<Outcome>,
    /// The payload, the body of every attempt (Part 8); empty without one.
    body: String,
    attempts: u32,
    /// How each attempt of the current life was signed, by attempt number: only the attempts
    /// made while the endpoint had a secret (`sig.signature-codes`). Emptied by a revival, whose
    /// attempts are numbered from 1 again (`sig.attempt-n`).
    signings: BTreeMap<u32, Signing>,
    /// Meaningful while pending; kept as is otherwise because nothing reads it then.
    due_at: i64,
    /// When it expires (Part 11): its age start plus the `max_age` of the policy in force then,
    /// fixed until a revival starts its age again (`expiry.deadline`). `None` when that policy
    /// had no `max_age` or the deadline is past every `ts` (`expiry.beyond-range`). While the
    /// event is pending, `Dispatcher::deadlines` holds it; otherwise nothing reads it.
    deadline: Option<i64>,
    fate: Fate,
}

#[derive(Debug)]
struct Endpoint {
    /// As registered, for the `"<endpoint_id> disabled"` record of an automatic disabling and
    /// for `dead_letter`'s report.
    id: String,
    /// Consulted at each failure, not when a retry is scheduled, so a change applies to the
    /// next failure of every event and moves no retry already scheduled (`policy.no-reschedule`).
    policy: Policy,
    /// `Some` while disabled, with the reason it was.
    disabled: Option<Reason>,
    /// Failed attempts since the last delivery or successful `enable` (`auto.count`). Only
    /// attempts, deliveries and `enable` touch it.
    consecutive_failures: u64,
    /// Pending events by enqueue order. A set rather than a FIFO because a replayed event must
    /// take back its original position, which may be ahead of events enqueued after it.
    pending: BTreeSet<Seq>,
    /// This endpoint's share of the dead-letter list, so replay and the filtered query need not
    /// scan every endpoint's dead events.
    dead: BTreeMap<DeathNo, Seq>,
    /// The same dead events by (death time, death number), so `recover` reaches the ones that
    /// died at or after `since` without looking at the others. Death times need not grow with
    /// death numbers (`ts` may decrease, `op.ts-any-order`), hence a second index.
    dead_by_time: BTreeMap<(i64, DeathNo), Seq>,
    /// The token bucket, exactly when the policy in force has a throttle (Part 9); replaced by
    /// a full one at every `set_policy` that carries a throttle (`throttle.set`).
    bucket: Option<Bucket>,
    /// The circuit breaker, exactly when the policy in force has one (Part 10); replaced by a
    /// new closed one at every `set_policy` that carries a breaker (`breaker.set`).
    breaker: Option<Breaker>,
    /// Pending events throttled (Part 9) or held by the breaker (Part 10) since their last
    /// attempt, `enable` or `set_policy`: both are released alike (`throttle.release`,
    /// `breaker.set`). Usually the head alone, but a revived event put in front of one may be
    /// deferred too (`throttle.with-recover`, `breaker.with-others`).
    deferred: BTreeSet<Seq>,
    /// The signing secrets (Part 8), none until the first `set_secret`.
    secrets: Secrets,
}

/// What `status` reports for an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub state: State,
    pub attempts: u32,
    pub next_attempt_at: Option<i64>,
}

/// What `endpoint` reports (Part 6); disabled exactly when `reason` is `Some`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndpointReport {
    pub reason: Option<Reason>,
    pub consecutive_failures: u64,
    /// The breaker's state at the report's `ts`, while the policy in force has one (Part 10).
    pub breaker: Option<Shown>,
}

/// What `dead_letter` reports for a dead event (Part 7).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeadLetter<'a> {
    pub endpoint: &'a str,
    pub attempts: u32,
    /// `None` for an event that expired before any attempt.
    pub last_status: Option<u16>,
    pub died_at: i64,
    /// Died of age (Part 11): the report then says so (`expiry.dead-letter`).
    pub expired: bool,
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
    /// (deadline, enqueue order) of every pending event that has a deadline, wherever it is
    /// (head, blocked, held, throttled), so `process` finds the expired ones in O(log n) each
    /// instead of scanning every event (Part 11). An event enters it when its age starts and
    /// leaves it when it is delivered or dies, by an attempt or of age.
    deadlines: BTreeSet<(i64, Seq)>,
    /// Every dead-lettered event, oldest death first.
    dead_letters: BTreeMap<DeathNo, Seq>,
    deaths: DeathNo,
    /// The `ts` of every `process` call, whatever its endpoints' states, from which each bucket
    /// counts its tokens when it is next used (`throttle.time-back`).
    calls: ProcessCalls,
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
            disabled: None,
            consecutive_failures: 0,
            pending: BTreeSet::new(),
            dead: BTreeMap::new(),
            dead_by_time: BTreeMap::new(),
            bucket: None,
            breaker: None,
            deferred: BTreeSet::new(),
            secrets: Secrets::default(),
        });
        Ok(())
    }

    pub fn enqueue(
        &mut self,
        ts: i64,
        endpoint_id: &str,
        event_id: &str,
        outcomes: Vec<Outcome>,
        payload: String,
    ) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        if self.event_ids.contains_key(event_id) {
            return Err(Error::DuplicateEvent);
        }
        let before = self.head_key(ep);
        let seq = self.events.len();
        // Its age starts now, under the policy in force now (`expiry.deadline`).
        let deadline = self.endpoints[ep].policy.deadline_from(ts);
        if let Some(deadline) = deadline {
            self.deadlines.insert((deadline, seq));
        }
        self.events.push(Event {
            id: event_id.to_owned(),
            endpoint: ep,
            outcomes,
            body: payload,
            attempts: 0,
            signings: BTreeMap::new(),
            due_at: ts,
            deadline,
            fate: Fate::Pending,
        });
        self.event_ids.insert(event_id.to_owned(), seq);
        self.endpoints[ep].pending.insert(seq);
        self.relink_head(ep, before);
        Ok(())
    }

    /// Expires every pending event whose deadline is at or before `ts`, in enqueue order, one
    /// `"<event_id> expired"` record each (`expiry.record`); then attempts every due head,
    /// smallest (due time, enqueue order) first, and returns the records in that order, each
    /// `"<endpoint_id> disabled"` right after the attempt that disabled the endpoint (a 410 under
    /// `disable_on_gone`, or the failure that reached `disable_after`). A head whose endpoint's
    /// breaker is open is not attempted but held (`breaker.held`), and one that the breaker lets
    /// through but whose endpoint's bucket is empty is throttled (`breaker.with-throttle`), each
    /// record in the place its attempt's would have had (`throttle.record`, `breaker.record`).
    /// Terminates because a retry is always due after `ts`, and a held or throttled head is due
    /// after `ts` or else set aside for the rest of the call. Each pick costs O(log n): the
    /// failure count, the threshold, the breaker and the bucket are per endpoint, not scanned.
    pub fn process(&mut self, ts: i64) -> Vec<String> {
        self.calls.push(ts);
        let mut records = self.expire(ts);
        // Endpoints whose head was held or throttled until a time not after `ts`, which happens
        // only at the end of the ts range (`breaker.beyond-range`, `throttle.beyond-range`): out
        // of `heads` until the call ends, as a head is picked at most once per call.
        let mut set_aside = Vec::new();
        while let Some(&key) = self.heads.first()
            && key.0 <= ts
        {
            let seq = key.1;
            let ep = self.events[seq].endpoint;
            let endpoint = &mut self.endpoints[ep];
            // The breaker first: a head it holds takes no token (`breaker.with-throttle`).
            let deferred = if let Some(until) = endpoint
                .breaker
                .as_ref()
                .and_then(|breaker| breaker.held_until(ts))
            {
                Some((until, "held"))
            } else if let Some(bucket) = &mut endpoint.bucket
                && let Err(next) = bucket.take(&self.calls)
            {
                Some((next, "throttled"))
            } else {
                None
            };
            if let Some((until, what)) = deferred {
                // Not an attempt: count, outcomes, schedule and failure count stay
                // (`throttle.not-attempt`, `breaker.held`); the events behind it stay blocked.
                endpoint.deferred.insert(seq);
                let event = &mut self.events[seq];
                event.due_at = until;
                records.push(format!("{} {what} until {until}", event.id));
                if until <= ts {
                    self.heads.remove(&key);
                    set_aside.push(ep);
                } else {
                    self.relink_head(ep, Some(key));
                }
                continue;
            }
            endpoint.deferred.remove(&seq);
            let (record, disable) = self.attempt(seq, ts);
            records.push(record);
            if let Some(reason) = disable {
                // Exactly as `disable`: the relink below drops the endpoint's head, so nothing
                // else of it is attempted in this call while other endpoints go on.
                let endpoint = &mut self.endpoints[ep];
                endpoint.disabled = Some(reason);
                records.push(format!("{} disabled", endpoint.id));
            }
            self.relink_head(ep, Some(key));
        }
        for ep in set_aside {
            // Its head is not in `heads`, hence `None` for the old key.
            self.relink_head(ep, None);
        }
        records
    }

    pub fn status(&self, event_id: &str) -> Result<Status, Error> {
        let seq = *self.event_ids.get(event_id).ok_or(Error::UnknownEvent)?;
        let event = &self.events[seq];
        let (state, next_attempt_at) = match event.fate {
            Fate::Pending if self.endpoints[event.endpoint].disabled.is_some() => {
                (State::Held, None)
            }
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
        // Whatever disabled it: by hand, on Gone, or as failing.
        if self.endpoints[ep].disabled.is_some() {
            return Err(Error::AlreadyDisabled);
        }
        let before = self.head_key(ep);
        // The failure count stays as it is (`auto.count`).
        self.endpoints[ep].disabled = Some(Reason::Manual);
        self.relink_head(ep, before);
        Ok(())
    }

    pub fn enable(&mut self, ts: i64, endpoint_id: &str, replay_dead: bool) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        if self.endpoints[ep].disabled.is_none() {
            return Err(Error::NotDisabled);
        }
        let endpoint = &mut self.endpoints[ep];
        endpoint.disabled = None;
        // A fresh start, whatever disabled it (`auto.count`).
        endpoint.consecutive_failures = 0;
        // Attempt counts stay, so each held event's retry schedule resumes where it stopped.
        // Throttled and held events are due now like the others and no longer deferred; the
        // bucket keeps its tokens and its clock (`throttle.pause`), the breaker its state and T
        // (`breaker.with-disable`).
        endpoint.deferred.clear();
        for &seq in &endpoint.pending {
            self.events[seq].due_at = ts;
        }
        if replay_dead {
            endpoint.dead_by_time.clear();
            // A fresh age, under the policy in force now (`expiry.revive`).
            let deadline = endpoint.policy.deadline_from(ts);
            for (death, seq) in std::mem::take(&mut endpoint.dead) {
                self.dead_letters.remove(&death);
                revive(&mut self.events[seq], ts, deadline);
                if let Some(deadline) = deadline {
                    self.deadlines.insert((deadline, seq));
                }
                endpoint.pending.insert(seq);
            }
        }
        // A disabled endpoint has no head in `heads`, hence `None` for the old key.
        self.relink_head(ep, None);
        Ok(())
    }

    /// Replaces the endpoint's whole policy. Allowed while disabled: a policy is configuration,
    /// and held events follow it once they fail after `enable` (`policy.per-endpoint`). The
    /// bucket is replaced too: a full new one anchored at `ts` if the policy has a throttle
    /// (`throttle.set`), none otherwise; and so is the breaker: a new closed one if the policy
    /// has a breaker, none otherwise (`breaker.set`). The throttled and held events due after
    /// `ts` become due at `ts`, their token time or T being the replaced bucket's or breaker's
    /// (`throttle.release`, `breaker.set`). Retries scheduled by failures do not move
    /// (`policy.no-reschedule`).
    pub fn set_policy(&mut self, ts: i64, endpoint_id: &str, policy: Policy) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        let before = self.head_key(ep);
        let endpoint = &mut self.endpoints[ep];
        endpoint.bucket = policy
            .throttle()
            .map(|throttle| Bucket::new(throttle, ts, &self.calls));
        endpoint.breaker = policy.breaker().map(Breaker::new);
        endpoint.policy = policy;
        for seq in std::mem::take(&mut endpoint.deferred) {
            let event = &mut self.events[seq];
            event.due_at = event.due_at.min(ts);
        }
        self.relink_head(ep, before);
        Ok(())
    }

    pub fn policy(&self, endpoint_id: &str) -> Result<&Policy, Error> {
        Ok(&self.endpoints[self.endpoint(endpoint_id)?].policy)
    }

    /// The endpoint's state and failure count (`endpoint.report`), and its breaker's state as
    /// of `ts` (`breaker.report`, `breaker.report-time`).
    pub fn endpoint_report(&self, ts: i64, endpoint_id: &str) -> Result<EndpointReport, Error> {
        let endpoint = &self.endpoints[self.endpoint(endpoint_id)?];
        Ok(EndpointReport {
            reason: endpoint.disabled,
            consecutive_failures: endpoint.consecutive_failures,
            breaker: endpoint.breaker.as_ref().map(|breaker| breaker.shown(ts)),
        })
    }

    /// How a dead-lettered event died (`dead-letter.report`): its latest death, since a revived
    /// event is no longer dead and a new death replaces the record.
    pub fn dead_letter(&self, event_id: &str) -> Result<DeadLetter<'_>, Error> {
        let seq = *self.event_ids.get(event_id).ok_or(Error::UnknownEvent)?;
        let event = &self.events[seq];
        let Fate::Dead(death) = event.fate else {
            return Err(Error::NotDead);
        };
        Ok(DeadLetter {
            endpoint: &self.endpoints[event.endpoint].id,
            attempts: event.attempts,
            last_status: death.status,
            died_at: death.at,
            expired: death.expired,
        })
    }

    /// Revives the endpoint's dead events that died at or after `since`, as a replay does, and
    /// returns how many (`recover.revive`). Nothing else changes: other pending events keep their
    /// due times, the endpoint stays enabled or disabled, the failure count stays. It costs
    /// O(k log n) for k revived events, whatever the number of other dead events.
    pub fn recover(&mut self, ts: i64, endpoint_id: &str, since: i64) -> Result<usize, Error> {
        let ep = self.endpoint(endpoint_id)?;
        let before = self.head_key(ep);
        let endpoint = &mut self.endpoints[ep];
        let revived: Vec<((i64, DeathNo), Seq)> = endpoint
            .dead_by_time
            .range((since, DeathNo::MIN)..)
            .map(|(&key, &seq)| (key, seq))
            .collect();
        // A fresh age, under the policy in force now (`expiry.revive`).
        let deadline = endpoint.policy.deadline_from(ts);
        for &(key, seq) in &revived {
            let (_, death) = key;
            endpoint.dead_by_time.remove(&key);
            endpoint.dead.remove(&death);
            self.dead_letters.remove(&death);
            revive(&mut self.events[seq], ts, deadline);
            if let Some(deadline) = deadline {
                self.deadlines.insert((deadline, seq));
            }
            endpoint.pending.insert(seq);
        }
        // A revived event ahead of the old head by enqueue order becomes the head and blocks
        // it (`order.blocked`); a disabled endpoint has no head either way.
        self.relink_head(ep, before);
        Ok(revived.len())
    }

    /// Gives the endpoint its signing secret, rotating the one it had (`sig.set-secret`,
    /// `sig.rotation`). Allowed while disabled (`sig.set-secret-errors`).
    pub fn set_secret(&mut self, ts: i64, endpoint_id: &str, secret: Secret) -> Result<(), Error> {
        let ep = self.endpoint(endpoint_id)?;
        self.endpoints[ep].secrets.set(secret, ts);
        Ok(())
    }

    /// The headers attempt `attempt` of the event carried when it was made (`sig.signature`),
    /// or why there are none (`sig.signature-codes`): an unknown event, an attempt not made (in
    /// the event's current life), an attempt made while its endpoint had no secret.
    pub fn signature(&self, event_id: &str, attempt: u64) -> Result<Headers, Error> {
        let seq = *self.event_ids.get(event_id).ok_or(Error::UnknownEvent)?;
        let event = &self.events[seq];
        if attempt > u64::from(event.attempts) {
            return Err(Error::AttemptNotMade);
        }
        let signing = u32::try_from(attempt)
            .ok()
            .and_then(|attempt| event.signings.get(&attempt))
            .ok_or(Error::NoSecret)?;
        Ok(signing.headers(&event.id, &event.body))
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
        if endpoint.disabled.is_some() {
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

    /// Makes one attempt at a pending event; returns its record and, when the endpoint must now
    /// be disabled, why, which the caller does.
    fn attempt(&mut self, seq: Seq, ts: i64) -> (String, Option<Reason>) {
        let event = &mut self.events[seq];
        // A policy allows at most 100 attempts and a replay resets the count, so this is far
        // from overflowing; saturating all the same rather than trusting that argument.
        event.attempts = event.attempts.saturating_add(1);
        let attempt = event.attempts;
        let endpoint = &mut self.endpoints[event.endpoint];
        // Signed by the secrets in force now, kept as they are for `signature` (`sig.signers`).
        if let Some(signing) = endpoint.secrets.sign_at(ts) {
            event.signings.insert(attempt, signing);
        }
        let outcome = event.outcome(attempt);
        let prefix = format!("{} #{attempt} {}", event.id, outcome.status());

        // The policy in force now, at the failure, decides (`policy.in-force`); from the call's
        // ts, not the old due time, so a late process pushes the schedule.
        let next = schedule::next(&endpoint.policy, outcome, attempt, ts);
        // Every attempt that does not deliver is a failure, whatever its status or the policy;
        // saturating is unreachable in practice and, unlike wrapping, keeps any threshold met.
        endpoint.consecutive_failures = match next {
            Next::Delivered => 0,
            _ => endpoint.consecutive_failures.saturating_add(1),
        };
        // The breaker counts the same failures, independently (`breaker.with-disable`); its
        // opening changes nothing of this attempt's own record (`breaker.open`).
        if let Some(breaker) = &mut endpoint.breaker {
            breaker.record(next == Next::Delivered, ts);
        }
        let (record, gone) = match next {
            Next::Delivered => {
                event.fate = Fate::Delivered;
                endpoint.pending.remove(&seq);
                if let Some(deadline) = event.deadline {
                    self.deadlines.remove(&(deadline, seq));
                }
                (format!("{prefix} delivered"), false)
            }
            Next::RetryAt(due) => {
                event.due_at = due;
                (format!("{prefix} retry at {due}"), false)
            }
            // Dead-lettered below, once the endpoint is no longer borrowed.
            Next::Dead { disable_endpoint } => (format!("{prefix} dead"), disable_endpoint),
        };
        // Gone takes precedence when both apply: one disabling, one record (`endpoint.report`).
        let disable = if gone {
            Some(Reason::Gone)
        } else if next != Next::Delivered
            && endpoint.policy.disables_at(endpoint.consecutive_failures)
        {
            Some(Reason::Failing)
        } else {
            None
        };
        if let Next::Dead { .. } = next {
            self.kill(seq, ts, Some(outcome.status()), false);
        }
        (record, disable)
    }

    /// Expires, in enqueue order, every pending event whose deadline is at or before `ts`, and
    /// returns their records (`expiry.expire`, `expiry.record`). Each is dead-lettered with no
    /// attempt made: its count, its endpoint's failure count and bucket stay as they are
    /// (`expiry.not-attempt`). A head that expires frees its endpoint, whose next pending event
    /// becomes the head before any attempt of the call. Costs O(k log n) for k expired events.
    fn expire(&mut self, ts: i64) -> Vec<String> {
        let mut expired = Vec::new();
        while let Some(&(deadline, seq)) = self.deadlines.first()
            && deadline <= ts
        {
            self.deadlines.pop_first();
            expired.push(seq);
        }
        // Deadlines need not follow enqueue order (policies differ between endpoints and over
        // time), and the records do.
        expired.sort_unstable();
        expired
            .into_iter()
            .map(|seq| {
                let event = &self.events[seq];
                let ep = event.endpoint;
                let last_status =
                    (event.attempts > 0).then(|| event.outcome(event.attempts).status());
                let record = format!("{} expired", event.id);
                let before = self.head_key(ep);
                self.kill(seq, ts, last_status, true);
                self.relink_head(ep, before);
                record
            })
            .collect()
    }

    /// Makes a pending event dead at `ts` and dead-letters it, at the end of the list
    /// (`dead.letter`). The caller brings `heads` in line.
    fn kill(&mut self, seq: Seq, ts: i64, status: Option<u16>, expired: bool) {
        let number = self.deaths;
        // At most one death per attempt or expiry, so 2^64 of them cannot happen in any run;
        // saturating rather than `+=` so this can neither panic nor wrap.
        self.deaths = self.deaths.saturating_add(1);
        let event = &mut self.events[seq];
        event.fate = Fate::Dead(Death {
            number,
            at: ts,
            status,
            expired,
        });
        if let Some(deadline) = event.deadline {
            self.deadlines.remove(&(deadline, seq));
        }
        let endpoint = &mut self.endpoints[event.endpoint];
        endpoint.pending.remove(&seq);
        // A throttled or held event that dies of age is no longer deferred
        // (`throttle.release` and `breaker.set` move only pending events).
        endpoint.deferred.remove(&seq);
        endpoint.dead.insert(number, seq);
        endpoint.dead_by_time.insert((ts, number), seq);
        self.dead_letters.insert(number, seq);
    }
}

impl Event {
    /// The scripted outcome of attempt number `attempt` (from 1), the last entry repeating
    /// (`outcomes.script`).
    fn outcome(&self, attempt: u32) -> Outcome {
        let index = usize::try_from(attempt.saturating_sub(1)).unwrap_or(usize::MAX);
        // Decoding guarantees a non-empty list, so the fallback timeout is never used.
        self.outcomes
            .get(index)
            .or(self.outcomes.last())
            .copied()
            .unwrap_or(Outcome::TIMEOUT)
    }
}

/// Brings a dead event back as a replay does (`pause.replay`): pending, attempts from 0, due at
/// `ts`, with a fresh age ending at `deadline` (`expiry.revive`). The caller puts it back among
/// its endpoint's pending events and `deadlines`, and out of the dead-letter indexes.
fn revive(event: &mut Event, ts: i64, deadline: Option<i64>) {
    event.fate = Fate::Pending;
    event.deadline = deadline;
    event.attempts = 0;
    // The attempts of its earlier life are no longer asked for (`sig.attempt-n`).
    event.signings.clear();
    event.due_at = ts;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::breaker::BreakerPolicy;

    /// A fixed linear congruential generator (no dependency): draws below a bound, for the
    /// long pseudo-random runs.
    fn draws(mut state: u64) -> impl FnMut(u64) -> u64 {
        move |bound| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % bound
        }
    }

    fn plain(statuses: &[u16]) -> Vec<Outcome> {
        statuses.iter().copied().map(Outcome::plain).collect()
    }

    #[test]
    fn sixth_retryable_failure_is_final() {
        let mut d = Dispatcher::new();
        d.register("shop").unwrap();
        d.enqueue(0, "shop", "e", plain(&[503]), String::new())
            .unwrap();
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

    /// The three views of the dead letters agree: the global list, each endpoint's share by
    /// death number and by death time, and the events' own fates.
    fn assert_dead_indexes_agree(d: &Dispatcher) {
        let mut total = 0;
        for endpoint in &d.endpoints {
            assert_eq!(endpoint.dead.len(), endpoint.dead_by_time.len());
            for (&(at, number), &seq) in &endpoint.dead_by_time {
                assert_eq!(endpoint.dead.get(&number), Some(&seq));
                assert_eq!(d.dead_letters.get(&number), Some(&seq));
                let Fate::Dead(death) = d.events[seq].fate else {
                    panic!("{} is indexed as dead but is not", d.events[seq].id);
                };
                assert_eq!((death.number, death.at), (number, at));
            }
            total += endpoint.dead.len();
        }
        assert_eq!(d.dead_letters.len(), total);
    }

    #[test]
    fn dead_letter_indexes_follow_deaths_replays_and_recoveries() {
        let mut d = Dispatcher::new();
        d.register("shop").unwrap();
        d.register("mall").unwrap();
        for (i, ts) in [5, 3, 9, 3].into_iter().enumerate() {
            d.enqueue(ts, "shop", &format!("s{i}"), plain(&[404]), String::new())
                .unwrap();
            d.enqueue(ts, "mall", &format!("m{i}"), plain(&[404]), String::new())
                .unwrap();
            d.process(ts);
            assert_dead_indexes_agree(&d);
        }
        assert_eq!(d.dead_letter("s2").unwrap().died_at, 9);
        assert_eq!(d.recover(10, "shop", 4).unwrap(), 2);
        assert_dead_indexes_agree(&d);
        assert_eq!(d.dead_letters(Some("shop")).unwrap(), ["s1", "s3"]);
        assert_eq!(d.process(10), ["s0 #1 404 dead", "s2 #1 404 dead"]);
        assert_dead_indexes_agree(&d);
        d.disable("mall").unwrap();
        d.enable(11, "mall", true).unwrap();
        assert_dead_indexes_agree(&d);
        assert_eq!(d.recover(11, "mall", i64::MIN).unwrap(), 0);
        assert_eq!(d.dead_letters(None).unwrap(), ["s1", "s3", "s0", "s2"]);
        assert_eq!(d.recover(12, "shop", i64::MIN).unwrap(), 4);
        assert_dead_indexes_agree(&d);
        assert_eq!(d.dead_letters(None).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn held_events_keep_their_count_and_resume_the_schedule() {
        let mut d = Dispatcher::new();
        d.register("shop").unwrap();
        d.enqueue(0, "shop", "e", plain(&[500, 500, 200]), String::new())
            .unwrap();
        assert_eq!(d.process(0), ["e #1 500 retry at 30"]);
        d.disable("shop").unwrap();
        assert_eq!(d.process(100), Vec::<String>::new());
        let held = d.status("e").unwrap();
        assert_eq!((held.state, held.attempts), (State::Held, 1));
        assert_eq!(held.next_attempt_at, None);
        d.enable(200, "shop", false).unwrap();
        assert_eq!(d.process(200), ["e #2 500 retry at 260"]);
    }

    /// `deadlines` holds exactly the pending events that have a deadline, each once.
    fn assert_deadlines_indexed(d: &Dispatcher) {
        let want: BTreeSet<(i64, Seq)> = d
            .events
            .iter()
            .enumerate()
            .filter(|(_, event)| event.fate == Fate::Pending)
            .filter_map(|(seq, event)| event.deadline.map(|deadline| (deadline, seq)))
            .collect();
        assert_eq!(d.deadlines, want);
    }

    /// A long pseudo-random run (a fixed linear congruential generator, no dependency) checked
    /// against a plain scan of every event: each `process` call first writes exactly the
    /// expiries a scan finds, in enqueue order, and the deadline index never drifts.
    #[test]
    fn expiry_by_the_index_agrees_with_a_scan_of_every_event() {
        let mut next = draws(0x2545_f491_4f6c_dd1d);
        let mut d = Dispatcher::new();
        let endpoints = ["a", "b", "c"];
        for id in endpoints {
            d.register(id).unwrap();
        }
        let mut ts: i64 = 0;
        let mut expiries = 0;
        for step in 0..4000 {
            let ep = endpoints[usize::try_from(next(3)).unwrap()];
            match next(10) {
                0..=2 => {
                    let statuses: Vec<u16> = (0..=next(3))
                        .map(|_| [200, 500, 404, 503][usize::try_from(next(4)).unwrap()])
                        .collect();
                    d.enqueue(ts, ep, &format!("e{step}"), plain(&statuses), String::new())
                        .unwrap();
                }
                3..=5 => {
                    // Mostly forward, sometimes back (`op.ts-any-order`).
                    ts += i64::try_from(next(40)).unwrap() - 8;
                    let want: Vec<String> = d
                        .events
                        .iter()
                        .filter(|event| {
                            event.fate == Fate::Pending
                                && event.deadline.is_some_and(|deadline| deadline <= ts)
                        })
                        .map(|event| format!("{} expired", event.id))
                        .collect();
                    let records = d.process(ts);
                    expiries += want.len();
                    assert_eq!(records[..want.len()], want[..], "at step {step}");
                    assert!(
                        records[want.len()..]
                            .iter()
                            .all(|r| !r.ends_with("expired"))
                    );
                    assert!(d.events.iter().all(|event| event.fate != Fate::Pending
                        || event.deadline.is_none_or(|deadline| deadline > ts)));
                }
                6 => {
                    let max_age = match next(3) {
                        0 => None,
                        _ => Some(i64::try_from(next(120)).unwrap() + 1),
                    };
                    let policy = Policy::new(4, vec![10, 20], None, None, None)
                        .and_then(|policy| policy.with_max_age(max_age))
                        .unwrap();
                    d.set_policy(ts, ep, policy).unwrap();
                }
                7 => {
                    let _ = d.disable(ep);
                }
                8 => {
                    let _ = d.enable(ts, ep, next(2) == 0);
                }
                _ => {
                    d.recover(ts, ep, ts - i64::try_from(next(100)).unwrap())
                        .unwrap();
                }
            }
            assert_deadlines_indexed(&d);
            assert_dead_indexes_agree(&d);
        }
        // The run is long enough to exercise expiry at all.
        assert!(expiries > 50, "{expiries}");
    }

    /// A plain model of one endpoint's breaker, keeping every failure since the set or the last
    /// close and reading `breaker.window` literally.
    #[derive(Debug, Clone)]
    enum Model {
        Closed(Vec<i64>),
        /// Open before `until`, half-open from it with this many successful probes.
        Opened(i64, u32),
    }

    /// A long pseudo-random run on two endpoints with breakers (and no other part that writes
    /// records of its own), checked record by record against [`Model`]: a head is held exactly
    /// when the model's breaker is open, until the model's T; every other pick is an attempt
    /// that the model then counts; each event is picked at most once per call; and `endpoint`
    /// shows the model's state at any `ts`.
    #[test]
    fn the_breaker_agrees_with_a_plain_model() {
        let mut next = draws(0x9e37_79b9_7f4a_7c15);
        let int = |n: u64| i64::try_from(n).unwrap();
        let mut d = Dispatcher::new();
        let endpoints = ["a", "b"];
        let mut models: Vec<Option<(BreakerPolicy, Model)>> = vec![None, None];
        for id in endpoints {
            d.register(id).unwrap();
        }
        let mut owner: HashMap<String, usize> = HashMap::new();
        let mut ts: i64 = 0;
        let (mut held, mut opened, mut closed) = (0, 0, 0);
        for step in 0..20_000 {
            let ep = usize::try_from(next(2)).unwrap();
            match next(24) {
                0..=7 => {
                    let statuses: Vec<u16> = (0..=next(3))
                        .map(|_| [200, 200, 500, 404][usize::try_from(next(4)).unwrap()])
                        .collect();
                    let id = format!("e{step}");
                    d.enqueue(ts, endpoints[ep], &id, plain(&statuses), String::new())
                        .unwrap();
                    owner.insert(id, ep);
                }
                8..=15 => {
                    // Mostly forward, sometimes back (`op.ts-any-order`).
                    ts += int(next(30)) - 5;
                    let records = d.process(ts);
                    let mut seen = BTreeSet::new();
                    for record in records {
                        let (id, rest) = record.split_once(' ').unwrap();
                        assert!(seen.insert(id.to_owned()), "{id} picked twice at {step}");
                        let Some((policy, model)) = &mut models[owner[id]] else {
                            assert!(!rest.starts_with("held"), "{record} without a breaker");
                            continue;
                        };
                        let open_until = match *model {
                            Model::Opened(until, _) if ts < until => Some(until),
                            _ => None,
                        };
                        if let Some(t) = rest.strip_prefix("held until ") {
                            assert_eq!(Some(t.parse::<i64>().unwrap()), open_until, "{step}");
                            held += 1;
                            continue;
                        }
                        assert_eq!(open_until, None, "{record} while open at {step}");
                        let delivered = rest.ends_with("delivered");
                        let reopen = |model: &mut Model| {
                            *model = Model::Opened(ts + policy.open_for(), 0);
                        };
                        match model {
                            Model::Closed(failures) => {
                                if !delivered {
                                    failures.push(ts);
                                    let f = usize::try_from(policy.failures()).unwrap();
                                    if failures.len() >= f
                                        && ts - failures[failures.len() - f] < policy.window()
                                    {
                                        reopen(model);
                                        opened += 1;
                                    }
                                }
                            }
                            Model::Opened(until, successes) => {
                                if !delivered {
                                    reopen(model);
                                } else if *successes + 1 >= policy.probes() {
                                    *model = Model::Closed(Vec::new());
                                    closed += 1;
                                } else {
                                    *model = Model::Opened(*until, *successes + 1);
                                }
                            }
                        }
                    }
                }
                16 => {
                    let breaker = match next(4) {
                        0 => None,
                        _ => Some(
                            BreakerPolicy::new(
                                int(next(3)) + 1,
                                int(next(30)) + 1,
                                int(next(40)) + 1,
                                int(next(3)) + 1,
                            )
                            .unwrap(),
                        ),
                    };
                    let policy = Policy::new(3, vec![5, 10], None, None, None)
                        .unwrap()
                        .with_breaker(breaker);
                    d.set_policy(ts, endpoints[ep], policy).unwrap();
                    models[ep] = breaker.map(|b| (b, Model::Closed(Vec::new())));
                }
                17 | 18 => {
                    let _ = d.disable(endpoints[ep]);
                }
                19 | 20 => {
                    let _ = d.enable(ts, endpoints[ep], next(4) == 0);
                }
                _ => {
                    let at = ts + int(next(60)) - 30;
                    let shown = d.endpoint_report(at, endpoints[ep]).unwrap().breaker;
                    let want = models[ep].as_ref().map(|(_, model)| match *model {
                        Model::Closed(_) => Shown::Closed,
                        Model::Opened(until, _) if at < until => Shown::Open { until },
                        _ => Shown::HalfOpen,
                    });
                    assert_eq!(shown, want, "at step {step}");
                }
            }
            // Deferred events are pending events of their endpoint.
            for endpoint in &d.endpoints {
                assert!(endpoint.deferred.is_subset(&endpoint.pending));
            }
        }
        // The run is long enough to exercise every transition.
        assert!(
            held > 1000 && opened > 300 && closed > 20,
            "{held} {opened} {closed}"
        );
    }
}
