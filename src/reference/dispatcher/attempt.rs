//! One attempt and its record (`classify.*`, `retry.*`): what `process` returns. A head held
//! back by its throttle (Part 9) is a record of `process` too, and comes the same way, with
//! the outcome [`Outcome::Throttled`], and so is an event dead of age (Part 11),
//! [`Outcome::Expired`].

use super::{EventKey, Ts};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    RetryAt(Ts),
    Dead,
    /// Not an attempt: the head found no token and is due when the next one comes
    /// (`throttle.throttled`); its `number` is the attempts made so far and its `status` 0.
    Throttled(Ts),
    /// Not an attempt: the head's endpoint's breaker is open until then (`breaker.held`).
    Held(Ts),
    /// Not an attempt either: the event died of age (`expiry.expire`); its `number` is the
    /// attempts it made and its `status` 0.
    Expired,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    pub event: EventKey,
    /// 1-based attempt number, after the increment (`attempt.count`).
    pub number: u32,
    pub status: u16,
    pub outcome: Outcome,
    /// This attempt disabled its endpoint (`gone.disable`): the `process` result shows the
    /// record `"<endpoint_id> disabled"` right after this attempt's.
    pub disabled_endpoint: bool,
}

/// An attempt with its event id, displayed as the brief's record string,
/// e.g. `evt-1 #1 503 retry at 30`.
pub struct Record<'a> {
    pub id: &'a str,
    pub attempt: &'a Attempt,
}

impl fmt::Display for Record<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.attempt;
        if let Outcome::Throttled(until) = a.outcome {
            return write!(f, "{} throttled until {until}", self.id);
        }
        if let Outcome::Held(until) = a.outcome {
            return write!(f, "{} held until {until}", self.id);
        }
        if a.outcome == Outcome::Expired {
            return write!(f, "{} expired", self.id);
        }
        write!(f, "{} #{} {} ", self.id, a.number, a.status)?;
        match a.outcome {
            Outcome::Delivered => f.write_str("delivered"),
            Outcome::RetryAt(due) => write!(f, "retry at {due}"),
            Outcome::Dead => f.write_str("dead"),
            Outcome::Throttled(_) | Outcome::Held(_) | Outcome::Expired => Ok(()),
        }
    }
}
