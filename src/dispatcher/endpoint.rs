//! An endpoint: its pending events in enqueue order and its own dead letters, so that ordering,
//! pause and replay work on one endpoint's events without touching anyone else's.

use super::policy::{DEFAULT, RetryPolicy};
use super::{EventKey, Ts};
use std::collections::VecDeque;

/// An endpoint's position in registration order, which is also its index in storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EndpointKey(pub(crate) u32);

impl EndpointKey {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Debug)]
pub(crate) struct Endpoint {
    #[allow(dead_code)] // Stored as the brief's model has it; the simulation never contacts it.
    pub url: Box<str>,
    pub disabled: bool,
    /// How many times the endpoint was enabled (wrapping), and the `ts` of the last enable: a
    /// pending event whose `epoch` differs is due at `enabled_at`.
    pub epoch: u32,
    pub enabled_at: Ts,
    /// Pending events, sorted by enqueue order; the front is the head (`process.pick`). Enqueue
    /// appends (keys only grow), only the head is ever attempted, and a replay puts revived
    /// events at the front (see `revive_dead`), so a deque suffices.
    pub pending: VecDeque<EventKey>,
    /// This endpoint's dead events in enqueue order, so a replay costs only its own dead letters.
    pub dead: Vec<EventKey>,
    /// `None` for the default policy, which is by far the usual case: one pointer, no allocation.
    pub policy: Option<Box<RetryPolicy>>,
}

impl Endpoint {
    pub fn new(url: &str) -> Self {
        Endpoint {
            url: url.into(),
            disabled: false,
            epoch: 0,
            enabled_at: 0,
            pending: VecDeque::new(),
            dead: Vec::new(),
            policy: None,
        }
    }

    /// The policy in force (`policy.get`, `policy.in-force`).
    pub fn policy(&self) -> &RetryPolicy {
        self.policy.as_deref().unwrap_or(&DEFAULT)
    }

    pub fn head(&self) -> Option<EventKey> {
        self.pending.front().copied()
    }

    /// Moves the dead events back in front of the pending ones and returns them. A dead event
    /// always precedes every pending event of its endpoint, and the dead list is in enqueue order:
    /// an event dies only as the head, after every earlier event settled, and only a replay,
    /// which revives all dead events at once, makes an earlier event pending again. So putting
    /// the revived events first restores enqueue order (`pause.replay-order`) in O(k).
    pub fn revive_dead(&mut self) -> Vec<EventKey> {
        let revived = std::mem::take(&mut self.dead);
        debug_assert!(revived.is_sorted(), "dead events die in enqueue order");
        debug_assert!(
            revived
                .last()
                .zip(self.pending.front())
                .is_none_or(|(d, p)| d < p),
            "dead events precede pending ones"
        );
        for key in revived.iter().rev() {
            self.pending.push_front(*key);
        }
        revived
    }
}
