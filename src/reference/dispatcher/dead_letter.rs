//! What support asks of an endpoint and of a dead event (`endpoint.report`,
//! `dead-letter.report`): both read from state kept anyway, in O(1) and O(log n).

use super::breaker::BreakerState;
use super::endpoint::DisableReason;
use super::{Dispatcher, Error, EventKey, Lifecycle, Ts};

/// `endpoint.report`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndpointReport {
    /// `Some` while disabled, with the reason.
    pub disabled: Option<DisableReason>,
    pub consecutive_failures: u32,
    /// The breaker's state at the report's `ts`, while the policy has one (`breaker.report`).
    pub breaker: Option<BreakerState>,
}

/// `dead-letter.report`: the latest death of a dead-lettered event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeadLetter {
    pub event: EventKey,
    pub attempts: u32,
    /// `None` for an event that expired before any attempt (`expiry.dead-letter`).
    pub last_status: Option<u16>,
    pub died_at: Ts,
    /// It died of age (Part 11): its details carry the reason (`expiry.reason-key`).
    pub expired: bool,
}

impl Dispatcher {
    pub fn endpoint_report(&self, ts: Ts, endpoint_id: &str) -> Result<EndpointReport, Error> {
        let ep = &self.endpoints[self.endpoint_key(endpoint_id)?.index()];
        Ok(EndpointReport {
            disabled: ep.disabled,
            consecutive_failures: ep.consecutive_failures,
            breaker: ep.circuit.as_deref().map(|c| c.state(ts)),
        })
    }

    /// The event's death: its last status is its script's entry for its last attempt, and the
    /// time is kept with its dead letter, so a dead event costs nothing more to describe.
    pub fn dead_letter(&self, event_id: &str) -> Result<DeadLetter, Error> {
        let key = self.event_key(event_id)?;
        let event = &self.events[key.index()];
        let Lifecycle::Dead { letter } = event.lifecycle() else {
            return Err(Error::NotDead);
        };
        let (_, died_at) = self.dead_letters.get(letter).ok_or(Error::NotDead)?;
        let attempts = u32::from(event.attempts);
        Ok(DeadLetter {
            event: key,
            attempts,
            last_status: (attempts > 0).then(|| event.script.for_attempt(attempts)),
            died_at,
            expired: self.deadlines.expired(key),
        })
    }
}
