//! The brief's JSON contract, `run(operations) -> results`, as a thin layer over the typed
//! [`Dispatcher`]: an operation is decoded once into a typed [`Operation`] ([`decode`]), applied
//! by a [`Session`], and its [`Reply`] encoded straight to bytes or to a `Value` ([`encode`]).
//! Any JSON value is accepted as an operation; nothing here panics.

mod decode;
mod encode;
mod fast;
mod scan;

pub use decode::{OperationSeed, decode_text, decode_value};
pub use encode::write_json_string;
pub use scan::operation as decode_prefix;

use crate::dispatcher::{
    Attempt, DeadLetter, Dispatcher, EndpointReport, Error, Outcomes, RetryPolicy, Status, Ts,
};
use serde_json::Value;
use std::borrow::Cow;

/// `op.ts-range`: the largest magnitude every JSON implementation represents exactly.
pub const TS_LIMIT: Ts = crate::dispatcher::TS_LIMIT;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command<'a> {
    Register {
        endpoint: Cow<'a, str>,
        url: Cow<'a, str>,
    },
    Enqueue {
        endpoint: Cow<'a, str>,
        event: Cow<'a, str>,
        outcomes: Outcomes,
    },
    Process,
    Status {
        event: Cow<'a, str>,
    },
    Disable {
        endpoint: Cow<'a, str>,
    },
    Enable {
        endpoint: Cow<'a, str>,
        replay_dead: bool,
    },
    DeadLetters {
        endpoint: Option<Cow<'a, str>>,
    },
    /// Part 4: `None` restores the default policy (`policy.default`).
    SetPolicy {
        endpoint: Cow<'a, str>,
        policy: Option<RetryPolicy>,
    },
    Policy {
        endpoint: Cow<'a, str>,
    },
    /// Part 6.
    Endpoint {
        endpoint: Cow<'a, str>,
    },
    /// Part 7.
    DeadLetter {
        event: Cow<'a, str>,
    },
    Recover {
        endpoint: Cow<'a, str>,
        since: Ts,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Operation<'a> {
    pub ts: Ts,
    pub command: Command<'a>,
}

/// The operations by name, and how many arguments may follow `ts`, fewest and most (`op.shape`;
/// `dead_letters` takes an optional endpoint, `dead.list-endpoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Register,
    Enqueue,
    Process,
    Status,
    Disable,
    Enable,
    DeadLetters,
    SetPolicy,
    Policy,
    Endpoint,
    DeadLetter,
    Recover,
}

impl Kind {
    const ALL: [(&'static str, Kind); 12] = [
        ("register", Kind::Register),
        ("enqueue", Kind::Enqueue),
        ("process", Kind::Process),
        ("status", Kind::Status),
        ("disable", Kind::Disable),
        ("enable", Kind::Enable),
        ("dead_letters", Kind::DeadLetters),
        ("set_policy", Kind::SetPolicy),
        ("policy", Kind::Policy),
        ("endpoint", Kind::Endpoint),
        ("dead_letter", Kind::DeadLetter),
        ("recover", Kind::Recover),
    ];

    pub(crate) fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "register" => Kind::Register,
            "enqueue" => Kind::Enqueue,
            "process" => Kind::Process,
            "status" => Kind::Status,
            "disable" => Kind::Disable,
            "enable" => Kind::Enable,
            "dead_letters" => Kind::DeadLetters,
            "set_policy" => Kind::SetPolicy,
            "policy" => Kind::Policy,
            "endpoint" => Kind::Endpoint,
            "dead_letter" => Kind::DeadLetter,
            "recover" => Kind::Recover,
            _ => return None,
        })
    }

    /// How many arguments may follow `ts`: fewest, most.
    pub(crate) fn arity(self) -> (usize, usize) {
        match self {
            Kind::Process => (0, 0),
            Kind::Status | Kind::Disable | Kind::Policy | Kind::Endpoint | Kind::DeadLetter => {
                (1, 1)
            }
            Kind::Register | Kind::Enable | Kind::SetPolicy | Kind::Recover => (2, 2),
            Kind::Enqueue => (3, 3),
            Kind::DeadLetters => (0, 1),
        }
    }
}

/// The names of the operations: the brief's (and `dead_letters`), then the roadmap's.
pub fn names() -> impl Iterator<Item = &'static str> {
    Kind::ALL.iter().map(|(name, _)| *name)
}

/// What one operation answers, before it is encoded as the brief's JSON.
#[derive(Debug)]
pub enum Reply<'a> {
    /// `true`: register, disable, enable (`pause.results`).
    True,
    /// `"queued"`.
    Queued,
    /// The attempt records of a `process` call, in the order made.
    Attempts(&'a Dispatcher, &'a [Attempt]),
    Status(Status),
    DeadLetters(Vec<&'a str>),
    /// The policy in force for an endpoint (`policy.get`).
    Policy(&'a RetryPolicy),
    /// `endpoint.report`.
    Endpoint(EndpointReport),
    /// `dead-letter.report`, with the dispatcher to name the endpoint.
    DeadLetter(&'a Dispatcher, DeadLetter),
    /// How many events `recover` revived.
    Count(usize),
    /// `"error: <code>"`.
    Error(Error),
}

/// What an operation did, before its reply borrows the session to show it.
enum Effect<'op> {
    Accepted,
    Queued,
    Attempted,
    Status(Status),
    DeadLetters(Option<Cow<'op, str>>),
    Policy(Cow<'op, str>),
    Endpoint(EndpointReport),
    DeadLetter(DeadLetter),
    Count(usize),
}

/// One run of the contract: a fresh dispatcher, operations applied in order.
#[derive(Debug, Default)]
pub struct Session {
    dispatcher: Dispatcher,
    /// Reused by every `process`, so a run allocates no attempt list per call.
    attempts: Vec<Attempt>,
}

impl Session {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }

    /// Applies a decoded operation (or the error its decoding gave) and returns its reply.
    pub fn apply(&mut self, op: Result<Operation<'_>, Error>) -> Reply<'_> {
        // The state changes first; the reply then borrows the session's state to show it.
        let effect = match op.and_then(|op| self.change(op)) {
            Ok(effect) => effect,
            Err(e) => return Reply::Error(e),
        };
        let d = &self.dispatcher;
        match effect {
            Effect::Accepted => Reply::True,
            Effect::Queued => Reply::Queued,
            Effect::Attempted => Reply::Attempts(d, &self.attempts),
            Effect::Status(s) => Reply::Status(s),
            Effect::DeadLetters(None) => Reply::DeadLetters(d.dead_letters().collect()),
            Effect::DeadLetters(Some(endpoint)) => match d.dead_letters_of(&endpoint) {
                Ok(ids) => Reply::DeadLetters(ids.collect()),
                Err(e) => Reply::Error(e),
            },
            Effect::Policy(endpoint) => match d.policy(&endpoint) {
                Ok(policy) => Reply::Policy(policy),
                Err(e) => Reply::Error(e),
            },
            Effect::Endpoint(report) => Reply::Endpoint(report),
            Effect::DeadLetter(letter) => Reply::DeadLetter(d, letter),
            Effect::Count(n) => Reply::Count(n),
        }
    }

    fn change<'op>(&mut self, op: Operation<'op>) -> Result<Effect<'op>, Error> {
        let d = &mut self.dispatcher;
        let ts = op.ts;
        Ok(match op.command {
            Command::Register { endpoint, url } => {
                d.register(&endpoint, &url)?;
                Effect::Accepted
            }
            Command::Enqueue {
                endpoint,
                event,
                outcomes,
            } => {
                d.enqueue(ts, &endpoint, &event, outcomes)?;
                Effect::Queued
            }
            Command::Process => {
                self.attempts.clear();
                let attempts = &mut self.attempts;
                d.process_with(ts, |a| attempts.push(a));
                Effect::Attempted
            }
            Command::Status { event } => Effect::Status(d.status(&event)?),
            Command::Disable { endpoint } => {
                d.disable(&endpoint)?;
                Effect::Accepted
            }
            Command::Enable {
                endpoint,
                replay_dead,
            } => {
                d.enable(ts, &endpoint, replay_dead)?;
                Effect::Accepted
            }
            Command::DeadLetters { endpoint } => Effect::DeadLetters(endpoint),
            Command::SetPolicy { endpoint, policy } => {
                d.set_policy(&endpoint, policy)?;
                Effect::Accepted
            }
            Command::Policy { endpoint } => Effect::Policy(endpoint),
            Command::Endpoint { endpoint } => Effect::Endpoint(d.endpoint_report(&endpoint)?),
            Command::DeadLetter { event } => Effect::DeadLetter(d.dead_letter(&event)?),
            Command::Recover { endpoint, since } => Effect::Count(d.recover(ts, &endpoint, since)?),
        })
    }

    /// One operation given as a JSON value, start to finish: its result as a JSON value.
    pub fn step(&mut self, op: &Value) -> Value {
        let decoded = decode_value(op);
        self.apply(decoded).to_value()
    }
}

/// The brief's `run(operations)`: a fresh dispatcher, one result per operation.
pub fn run(operations: &[Value]) -> Vec<Value> {
    let mut session = Session::new();
    operations.iter().map(|op| session.step(op)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_found_and_no_other() {
        for (name, kind) in Kind::ALL {
            assert_eq!(Kind::from_name(name), Some(kind));
        }
        for other in ["", "Process", "process ", "dead-letters", "deadletters"] {
            assert_eq!(Kind::from_name(other), None, "{other}");
        }
    }
}
