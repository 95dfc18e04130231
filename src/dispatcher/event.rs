//! An event: one notification for one endpoint, with its script and delivery state.

use super::outcome::Script;
use super::{EndpointKey, Ts};
use std::sync::Arc;

/// An event's position in enqueue order (`enqueue.order`), which is also its index in storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventKey(pub(crate) u32);

impl EventKey {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lifecycle {
    /// Waiting for an attempt; `due_at` is meaningful even while held or blocked.
    Pending {
        due_at: Ts,
    },
    Delivered,
    /// `letter` orders the dead-letter list by time of death (`dead.list`).
    Dead {
        letter: u64,
    },
}

#[derive(Debug)]
pub(crate) struct Event {
    pub id: Arc<str>,
    pub endpoint: EndpointKey,
    pub script: Script,
    pub attempts: u32,
    pub lifecycle: Lifecycle,
}

impl Event {
    pub fn due_at(&self) -> Option<Ts> {
        match self.lifecycle {
            Lifecycle::Pending { due_at } => Some(due_at),
            _ => None,
        }
    }
}
