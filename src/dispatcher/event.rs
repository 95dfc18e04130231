//! An event: one notification for one endpoint, with its script and delivery state.

use super::ids::{Name, Named};
use super::outcome::Script;
use super::{EndpointKey, Ts};

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
    /// Waiting for an attempt; `due_at` holds even while held or blocked, unless the endpoint
    /// was enabled since (see `Event::epoch`).
    Pending {
        due_at: Ts,
    },
    Delivered,
    /// `letter` orders the dead-letter list by time of death (`dead.list`).
    Dead {
        letter: u64,
    },
}

/// An event carries its id's name, as `process` meets most events cold and reads their due
/// time, their script and then their id: 56 bytes. (Aligning events to cache lines measured no
/// faster, and a growing `Vec` of over-aligned values is copied rather than reallocated.)
#[derive(Debug)]
pub(crate) struct Event {
    pub name: Name,
    pub endpoint: EndpointKey,
    /// The endpoint's `epoch` when `due_at` was set. An `enable` bumps the endpoint's epoch
    /// instead of touching each pending event, which makes every event set before it due at the
    /// enable's `ts` at once (`pause.enable-due`).
    pub epoch: u32,
    pub script: Script,
    pub attempts: u32,
    pub lifecycle: Lifecycle,
}

impl Named for Event {
    fn name(&self) -> &Name {
        &self.name
    }
}

const _: () = assert!(size_of::<Event>() <= 56, "an event stays within 56 bytes");
