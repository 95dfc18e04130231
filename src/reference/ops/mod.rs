//! The brief's JSON contract, `run(operations) -> results`, as a thin layer over the typed
//! [`Dispatcher`]: an operation is decoded once into a typed [`Operation`] ([`decode`]), applied
//! by a [`Session`], and its [`Reply`] encoded straight to bytes or to a `Value` ([`encode`]).
//! Any JSON value is accepted as an operation; nothing here panics.

mod decode;
mod encode;
mod fast;
mod parts;
mod scan;

pub use decode::{OperationSeed, decode_value};
pub use encode::write_json_string;
pub use parts::{absent, run_declared};
pub use scan::operation as decode_prefix;

use crate::dispatcher::{
    Attempt, DeadLetter, Dispatcher, EndpointReport, Error, Headers, Key, Outcomes, RetryPolicy,
    Status, Ts, Verification,
};
use serde_json::Value;
use std::borrow::Cow;

/// `op.ts-range`: the largest magnitude every JSON implementation represents exactly.
pub const TS_LIMIT: Ts = crate::dispatcher::TS_LIMIT;

/// Decodes an operation from its JSON text; `None` when the text is not JSON. The scanner of
/// the usual shape goes first; serde_json takes what it gives up on.
pub fn decode_text(text: &str) -> Option<Result<Operation<'_>, Error>> {
    if let Some((op, end)) = scan::operation(text)
        && text[end..]
            .trim_start_matches([' ', '\t', '\n', '\r'])
            .is_empty()
    {
        return Some(op);
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let op = serde::de::DeserializeSeed::deserialize(OperationSeed, &mut de).ok()?;
    de.end().ok().map(|()| op)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommandOf<S> {
    Register {
        endpoint: S,
        url: S,
    },
    Enqueue {
        endpoint: S,
        event: S,
        outcomes: Outcomes,
    },
    /// Part 8 (`sig.payload`): an `enqueue` with a payload. A variant of its own, its outcomes
    /// and payload behind one pointer: a payload is rare, and a field of it in `Enqueue` left
    /// no room for the tag, which then had to be read out of the outcomes' bits at every match
    /// (measured: 3% more instructions for a run of the brief's operations).
    EnqueueWithPayload {
        endpoint: S,
        event: S,
        outcomes_and_payload: Box<(Outcomes, S)>,
    },
    Process,
    Status {
        event: S,
    },
    Disable {
        endpoint: S,
    },
    Enable {
        endpoint: S,
        replay_dead: bool,
    },
    DeadLetters {
        endpoint: Option<S>,
    },
    /// Part 4: `None` restores the default policy (`policy.default`).
    SetPolicy {
        endpoint: S,
        /// Behind a pointer, as a payload is: a policy is rare, and wider than every other
        /// argument (see `input::pipeline`'s items).
        policy: Option<Box<RetryPolicy>>,
    },
    Policy {
        endpoint: S,
    },
    /// Part 6.
    Endpoint {
        endpoint: S,
    },
    /// Part 7.
    DeadLetter {
        event: S,
    },
    Recover {
        endpoint: S,
        since: Ts,
    },
    /// Part 8.
    SetSecret {
        endpoint: S,
        key: Key,
    },
    Signature {
        event: S,
        n: u64,
    },
    /// Reads no state: its arguments are all it needs, owned.
    Verify(Box<Verification>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperationOf<S> {
    pub ts: Ts,
    pub command: CommandOf<S>,
}

/// A command whose strings borrow the input they were decoded from (or own their unescaped
/// text).
pub type Command<'a> = CommandOf<Cow<'a, str>>;
pub type Operation<'a> = OperationOf<Cow<'a, str>>;

impl<S> OperationOf<S> {
    /// The same operation with each of its strings (ids, the url) turned by `f`: `hookcheck
    /// run` decodes on one thread and applies on another, with the strings moved in between.
    pub fn map_strings<T>(self, mut f: impl FnMut(S) -> T) -> OperationOf<T> {
        use CommandOf as C;
        let command = match self.command {
            C::Register { endpoint, url } => C::Register {
                endpoint: f(endpoint),
                url: f(url),
            },
            C::Enqueue {
                endpoint,
                event,
                outcomes,
            } => C::Enqueue {
                endpoint: f(endpoint),
                event: f(event),
                outcomes,
            },
            C::EnqueueWithPayload {
                endpoint,
                event,
                outcomes_and_payload,
            } => {
                let (outcomes, payload) = *outcomes_and_payload;
                C::EnqueueWithPayload {
                    endpoint: f(endpoint),
                    event: f(event),
                    outcomes_and_payload: Box::new((outcomes, f(payload))),
                }
            }
            C::Process => C::Process,
            C::Status { event } => C::Status { event: f(event) },
            C::Disable { endpoint } => C::Disable {
                endpoint: f(endpoint),
            },
            C::Enable {
                endpoint,
                replay_dead,
            } => C::Enable {
                endpoint: f(endpoint),
                replay_dead,
            },
            C::DeadLetters { endpoint } => C::DeadLetters {
                endpoint: endpoint.map(f),
            },
            C::SetPolicy { endpoint, policy } => C::SetPolicy {
                endpoint: f(endpoint),
                policy,
            },
            C::Policy { endpoint } => C::Policy {
                endpoint: f(endpoint),
            },
            C::Endpoint { endpoint } => C::Endpoint {
                endpoint: f(endpoint),
            },
            C::DeadLetter { event } => C::DeadLetter { event: f(event) },
            C::Recover { endpoint, since } => C::Recover {
                endpoint: f(endpoint),
                since,
            },
            C::SetSecret { endpoint, key } => C::SetSecret {
                endpoint: f(endpoint),
                key,
            },
            C::Signature { event, n } => C::Signature { event: f(event), n },
            C::Verify(v) => C::Verify(v),
        };
        OperationOf {
            ts: self.ts,
            command,
        }
    }
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
    SetSecret,
    Signature,
    Verify,
}

impl Kind {
    const ALL: [(&'static str, Kind); 15] = [
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
        ("set_secret", Kind::SetSecret),
        ("signature", Kind::Signature),
        ("verify", Kind::Verify),
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
            "set_secret" => Kind::SetSecret,
            "signature" => Kind::Signature,
            "verify" => Kind::Verify,
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
            Kind::Register
            | Kind::Enable
            | Kind::SetPolicy
            | Kind::Recover
            | Kind::SetSecret
            | Kind::Signature => (2, 2),
            Kind::Verify => (3, 3),
            // `sig.payload`: an optional fourth argument.
            Kind::Enqueue => (3, 4),
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
// A variant that owns memory (a `Box`, a `Vec`) must be listed in `Reply::owns_memory`, or
// `hookcheck run` leaks it: replies that own nothing are forgotten rather than dropped.
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
    /// Behind a pointer, as a signature's headers: the widest reply, and a rare one.
    DeadLetter(&'a Dispatcher, Box<DeadLetter>),
    /// How many events `recover` revived.
    Count(usize),
    /// The headers an attempt carried (`sig.signature`), behind a pointer: three strings would
    /// make every reply, of every operation, three times as large.
    Signature(Box<Headers>),
    /// `"error: <code>"`.
    Error(Error),
}

/// What an operation did, before its reply borrows the session to show it.
enum Effect<S> {
    Accepted,
    Queued,
    Attempted,
    Status(Status),
    DeadLetters(Option<S>),
    Policy(S),
    Endpoint(EndpointReport),
    DeadLetter(DeadLetter),
    Count(usize),
    Signature(Box<Headers>),
}

/// Reads the strings of an operation: its own (`Owned`), or places in a text held elsewhere.
pub trait Strings<S> {
    fn get<'a>(&'a self, s: &'a S) -> &'a str;
}

/// The strings of an [`Operation`], each its own.
pub struct Owned;

impl Strings<Cow<'_, str>> for Owned {
    fn get<'a>(&'a self, s: &'a Cow<'_, str>) -> &'a str {
        s
    }
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

    /// See [`Dispatcher::reserve_events`].
    pub fn reserve_events(&mut self, n: usize) {
        self.dispatcher.reserve_events(n);
    }

    /// Brings into the cache what applying `op` will look up first (see [`Dispatcher::warm`]).
    pub fn warm_with<S>(&self, op: &OperationOf<S>, text: &impl Strings<S>) {
        let d = &self.dispatcher;
        match &op.command {
            CommandOf::Enqueue {
                endpoint, event, ..
            }
            | CommandOf::EnqueueWithPayload {
                endpoint, event, ..
            } => d.warm(Some(text.get(event)), Some(text.get(endpoint))),
            CommandOf::Status { event } | CommandOf::DeadLetter { event } => {
                d.warm(Some(text.get(event)), None)
            }
            CommandOf::Signature { event, .. } => d.warm(Some(text.get(event)), None),
            CommandOf::Disable { endpoint }
            | CommandOf::Enable { endpoint, .. }
            | CommandOf::Endpoint { endpoint }
            | CommandOf::Recover { endpoint, .. } => d.warm(None, Some(text.get(endpoint))),
            _ => {}
        }
    }

    /// The first step of [`Session::warm_with`]: the table entries of an event looked up. Not an
    /// enqueued one, whose id is new: its probe meets no entry to fetch.
    pub fn warm_entries_with<S>(&self, op: &OperationOf<S>, text: &impl Strings<S>) {
        if let CommandOf::Status { event } | CommandOf::DeadLetter { event } = &op.command {
            self.dispatcher.warm_entries(text.get(event));
        }
    }

    /// Applies a decoded operation (or the error its decoding gave) and returns its reply.
    pub fn apply(&mut self, op: Result<Operation<'_>, Error>) -> Reply<'_> {
        self.apply_with(op, &Owned)
    }

    /// Applies an operation whose strings `text` reads: `hookcheck run` decodes on another
    /// thread, which hands its strings over as places in a shared text.
    pub fn apply_with<S>(
        &mut self,
        op: Result<OperationOf<S>, Error>,
        text: &impl Strings<S>,
    ) -> Reply<'_> {
        // The state changes first; the reply then borrows the session's state to show it.
        let effect = match op.and_then(|op| self.change(op, text)) {
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
            Effect::DeadLetters(Some(endpoint)) => match d.dead_letters_of(text.get(&endpoint)) {
                Ok(ids) => Reply::DeadLetters(ids.collect()),
                Err(e) => Reply::Error(e),
            },
            Effect::Policy(endpoint) => match d.policy(text.get(&endpoint)) {
                Ok(policy) => Reply::Policy(policy),
                Err(e) => Reply::Error(e),
            },
            Effect::Endpoint(report) => Reply::Endpoint(report),
            Effect::DeadLetter(letter) => Reply::DeadLetter(d, Box::new(letter)),
            Effect::Count(n) => Reply::Count(n),
            Effect::Signature(h) => Reply::Signature(h),
        }
    }

    // Inlined into `apply_with`, its one caller: out of line, its prologue and the effect it
    // returns through memory measured 2% of a run of the brief's operations.
    #[inline(always)]
    fn change<S>(
        &mut self,
        op: OperationOf<S>,
        text: &impl Strings<S>,
    ) -> Result<Effect<S>, Error> {
        let d = &mut self.dispatcher;
        let ts = op.ts;
        Ok(match op.command {
            CommandOf::Register { endpoint, url } => {
                d.register(text.get(&endpoint), text.get(&url))?;
                Effect::Accepted
            }
            CommandOf::Enqueue {
                endpoint,
                event,
                outcomes,
            } => {
                d.enqueue(ts, text.get(&endpoint), text.get(&event), outcomes)?;
                Effect::Queued
            }
            CommandOf::EnqueueWithPayload {
                endpoint,
                event,
                outcomes_and_payload,
            } => {
                let (outcomes, payload) = *outcomes_and_payload;
                let (endpoint, event) = (text.get(&endpoint), text.get(&event));
                d.enqueue_with_payload(ts, endpoint, event, outcomes, text.get(&payload))?;
                Effect::Queued
            }
            CommandOf::Process => {
                self.attempts.clear();
                let attempts = &mut self.attempts;
                d.process_with(ts, |a| attempts.push(a));
                Effect::Attempted
            }
            CommandOf::Status { event } => Effect::Status(d.status(text.get(&event))?),
            CommandOf::Disable { endpoint } => {
                d.disable(text.get(&endpoint))?;
                Effect::Accepted
            }
            CommandOf::Enable {
                endpoint,
                replay_dead,
            } => {
                d.enable(ts, text.get(&endpoint), replay_dead)?;
                Effect::Accepted
            }
            CommandOf::DeadLetters { endpoint } => Effect::DeadLetters(endpoint),
            CommandOf::SetPolicy { endpoint, policy } => {
                d.set_policy(ts, text.get(&endpoint), policy.map(|p| *p))?;
                Effect::Accepted
            }
            CommandOf::Policy { endpoint } => Effect::Policy(endpoint),
            CommandOf::Endpoint { endpoint } => {
                Effect::Endpoint(d.endpoint_report(ts, text.get(&endpoint))?)
            }
            CommandOf::DeadLetter { event } => Effect::DeadLetter(d.dead_letter(text.get(&event))?),
            CommandOf::Recover { endpoint, since } => {
                Effect::Count(d.recover(ts, text.get(&endpoint), since)?)
            }
            CommandOf::SetSecret { endpoint, key } => {
                d.set_secret(ts, text.get(&endpoint), key)?;
                Effect::Accepted
            }
            CommandOf::Signature { event, n } => {
                Effect::Signature(Box::new(d.signature(text.get(&event), n)?))
            }
            CommandOf::Verify(v) => {
                crate::dispatcher::verify(ts, &v)?;
                Effect::Accepted
            }
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
