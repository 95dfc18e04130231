//! An endpoint: its pending events in enqueue order and its own dead letters, so that ordering,
//! pause and replay work on one endpoint's events without touching anyone else's.

use super::breaker::Circuit;
use super::ids::{Name, Named};
use super::letters::Letters;
use super::policy::{DEFAULT, RetryPolicy};
use super::signatures::Secrets;
use super::throttle::Bucket;
use super::{EventKey, Ts};
use std::collections::{BTreeMap, VecDeque};

/// An endpoint's position in registration order, which is also its index in storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EndpointKey(pub(crate) u32);

impl EndpointKey {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Why an endpoint is disabled (`endpoint.report`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DisableReason {
    /// By `disable`.
    Manual,
    /// By a 410 under `disable_on_gone` (`gone.disable`).
    Gone,
    /// By `disable_after` consecutive failures (`auto.disable`).
    Failing,
}

impl DisableReason {
    pub fn as_str(self) -> &'static str {
        match self {
            DisableReason::Manual => "manual",
            DisableReason::Gone => "gone",
            DisableReason::Failing => "failing",
        }
    }
}

#[derive(Debug)]
pub(crate) struct Endpoint {
    pub name: Name,
    #[allow(dead_code)] // Stored as the brief's model has it; the simulation never contacts it.
    pub url: Box<str>,
    /// `Some` while disabled, with the reason.
    pub disabled: Option<DisableReason>,
    /// Consecutive failed attempts across the endpoint's events (`auto.count`).
    pub consecutive_failures: u32,
    /// How many times the endpoint was enabled (wrapping), and the `ts` of the last enable: a
    /// pending event whose `epoch` differs is due at `enabled_at`.
    pub epoch: u32,
    pub enabled_at: Ts,
    /// Pending events, sorted by enqueue order; the front is the head (`process.pick`). Enqueue
    /// appends (keys only grow) and only the head is ever attempted; revived events are put
    /// back in their place (see `revive`).
    pub pending: VecDeque<EventKey>,
    /// This endpoint's dead events by order of death (the dispatcher's letter number), for
    /// `dead.list-endpoint`, and the same by time of death for `recover.revive`: the time is not
    /// the order, as `ts` may decrease (`op.ts-any-order`).
    pub dead: Letters<EventKey>,
    pub dead_by_time: BTreeMap<(Ts, u64), EventKey>,
    /// `None` for the default policy, which is by far the usual case: one pointer, no allocation.
    pub policy: Option<Box<RetryPolicy>>,
    /// The bucket of the policy's throttle (Part 9), when it has one.
    pub bucket: Option<Box<Bucket>>,
    /// The signing secrets (Part 8), once one was set.
    pub secrets: Option<Box<Secrets>>,
    /// The breaker of the policy (Part 10), when it has one.
    pub circuit: Option<Box<Circuit>>,
}

impl Named for Endpoint {
    fn name(&self) -> &Name {
        &self.name
    }
}

impl Endpoint {
    pub fn new(name: Name, url: &str) -> Self {
        Endpoint {
            name,
            url: url.into(),
            disabled: None,
            consecutive_failures: 0,
            epoch: 0,
            enabled_at: 0,
            pending: VecDeque::new(),
            dead: Letters::default(),
            dead_by_time: BTreeMap::new(),
            policy: None,
            bucket: None,
            secrets: None,
            circuit: None,
        }
    }

    pub fn is_disabled(&self) -> bool {
        self.disabled.is_some()
    }

    /// The policy in force (`policy.get`, `policy.in-force`).
    pub fn policy(&self) -> &RetryPolicy {
        self.policy.as_deref().unwrap_or(&DEFAULT)
    }

    pub fn head(&self) -> Option<EventKey> {
        self.pending.front().copied()
    }

    /// Records a death (`dead.letter`): `letter` is its place in the order of deaths.
    pub fn bury(&mut self, key: EventKey, letter: u64, died_at: Ts) {
        self.dead.push(letter, key);
        self.dead_by_time.insert((died_at, letter), key);
    }

    /// Takes out of the time order the dead events that died at or after `since` (all of them
    /// with `Ts::MIN`), in O(k log n) for k of n dead. Their letters go stale once the caller
    /// revives them, and it then says so with [`Endpoint::forget_dead`].
    pub fn exhume(&mut self, since: Ts) -> impl Iterator<Item = EventKey> + use<> {
        self.dead_by_time.split_off(&(since, 0)).into_values()
    }

    /// Notes that `count` of the dead letters went stale; `live` as for [`Letters::forget`].
    pub fn forget_dead(&mut self, count: usize, live: impl Fn(u64, EventKey) -> bool) {
        if self.dead_by_time.is_empty() {
            self.dead.clear();
        } else {
            self.dead.forget(count, live);
        }
    }

    /// Takes a pending event out wherever it is (`expiry.which`): found by binary search, as
    /// pending events are in enqueue order, and usually near the front, the oldest.
    pub fn remove_pending(&mut self, key: EventKey) {
        if let Ok(at) = self.pending.binary_search(&key) {
            self.pending.remove(at);
        }
    }

    /// Puts revived events back among the pending ones by enqueue order (`pause.replay-order`).
    /// An event killed by an attempt died as the head, after every earlier event settled, so
    /// revived events usually all precede the pending ones and each goes to the front in O(1);
    /// only after a `recover` that revived some of them, or an expiry behind the head, does one
    /// land further in, found by binary search.
    pub fn revive(&mut self, mut keys: Vec<EventKey>) {
        keys.sort_unstable();
        for key in keys.into_iter().rev() {
            let at = self.pending.partition_point(|k| *k < key);
            self.pending.insert(at, key);
        }
    }
}
