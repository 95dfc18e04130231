//! hookcheck: the reference webhook dispatcher of `spec/dispatcher.md` and the conformance kit
//! that checks other implementations against it.
//!
//! [`dispatcher`] is the pure state machine (no I/O, no JSON); [`ops`] is the brief's JSON
//! `run(operations)` contract layered over it.

pub mod dispatcher;
pub mod input;
pub mod ops;
pub mod prng;

pub use dispatcher::{
    Attempt, Dispatcher, Error, EventKey, Outcome, Outcomes, RetryPolicy, State, Status, Ts,
};
pub use ops::run;
