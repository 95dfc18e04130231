//! An endpoint: its pending events in enqueue order and its own dead letters, so that ordering,
//! pause and replay work on one endpoint's events without touching anyone else's.

use super::EventKey;
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
    /// Pending events, sorted by enqueue order; the front is the head (`process.pick`). Enqueue
    /// appends (keys only grow) and only the head is ever attempted, so a deque suffices; a
    /// replay merges revived events back into place (`pause.replay-order`).
    pub pending: VecDeque<EventKey>,
    /// This endpoint's dead events, so a replay costs only this endpoint's dead letters.
    pub dead: Vec<EventKey>,
}

impl Endpoint {
    pub fn new(url: &str) -> Self {
        Endpoint {
            url: url.into(),
            disabled: false,
            pending: VecDeque::new(),
            dead: Vec::new(),
        }
    }

    pub fn head(&self) -> Option<EventKey> {
        self.pending.front().copied()
    }

    /// Moves the dead events back among the pending ones, in enqueue order; costs this
    /// endpoint's own pending and dead events.
    pub fn revive_dead(&mut self) -> Vec<EventKey> {
        let mut revived = std::mem::take(&mut self.dead);
        revived.sort_unstable();
        let mut merged = VecDeque::with_capacity(self.pending.len() + revived.len());
        let mut pending = std::mem::take(&mut self.pending).into_iter().peekable();
        let mut dead = revived.iter().copied().peekable();
        loop {
            let next = match (pending.peek(), dead.peek()) {
                (Some(p), Some(d)) if d < p => dead.next(),
                (Some(_), _) => pending.next(),
                (None, _) => dead.next(),
            };
            match next {
                Some(key) => merged.push_back(key),
                None => break,
            }
        }
        self.pending = merged;
        revived
    }
}
