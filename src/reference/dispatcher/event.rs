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
/// time, their script and then their id: 48 bytes. Its lifecycle is kept as a state byte and
/// one word (the due time, or the letter), not as an enum of 16 bytes, and its attempts in 16
/// bits (a policy allows at most [`MAX_ATTEMPTS`](super::MAX_ATTEMPTS)): 56 bytes the other
/// way, a seventh more memory for the events of a run (0.8 MB at 100k events). (Aligning events
/// to cache lines measured no faster, and a growing `Vec` of over-aligned values is copied
/// rather than reallocated.)
#[derive(Debug)]
pub(crate) struct Event {
    pub name: Name,
    pub endpoint: EndpointKey,
    /// The endpoint's `epoch` when `due_at` was set. An `enable` bumps the endpoint's epoch
    /// instead of touching each pending event, which makes every event set before it due at the
    /// enable's `ts` at once (`pause.enable-due`).
    pub epoch: u32,
    pub script: Script,
    pub attempts: u16,
    /// Which of the lifecycle's three it is; `word` holds the rest.
    stage: Stage,
    /// The due time while pending (as its bits), the letter once dead, 0 once delivered.
    word: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Pending,
    Delivered,
    Dead,
}

impl Event {
    /// A new event, pending and due at `due_at`, with no attempts.
    pub fn new(name: Name, endpoint: EndpointKey, epoch: u32, script: Script, due_at: Ts) -> Self {
        Event {
            name,
            endpoint,
            epoch,
            script,
            attempts: 0,
            stage: Stage::Pending,
            word: due_at as u64,
        }
    }

    pub fn lifecycle(&self) -> Lifecycle {
        match self.stage {
            Stage::Pending => Lifecycle::Pending {
                due_at: self.word as Ts,
            },
            Stage::Delivered => Lifecycle::Delivered,
            Stage::Dead => Lifecycle::Dead { letter: self.word },
        }
    }

    pub fn set_lifecycle(&mut self, lifecycle: Lifecycle) {
        (self.stage, self.word) = match lifecycle {
            Lifecycle::Pending { due_at } => (Stage::Pending, due_at as u64),
            Lifecycle::Delivered => (Stage::Delivered, 0),
            Lifecycle::Dead { letter } => (Stage::Dead, letter),
        };
    }
}

impl Named for Event {
    fn name(&self) -> &Name {
        &self.name
    }
}

const _: () = assert!(size_of::<Event>() <= 48, "an event stays within 48 bytes");
const _: () = assert!(
    super::MAX_ATTEMPTS <= u16::MAX as u32,
    "an event's attempts fit its 16 bits"
);
