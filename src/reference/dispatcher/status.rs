//! What `status` reports for one event (`status.report`, `pause.held`).

use super::Ts;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Pending,
    /// Pending on a disabled endpoint.
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    pub state: State,
    pub attempts: u32,
    /// The due time while pending; `None` when held, delivered or dead.
    pub next_attempt_at: Option<Ts>,
}
