//! hookcheck: the conformance kit that checks implementations of the webhook dispatcher of
//! `spec/dispatcher.md` against its cases, over the reference of the crate
//! `hookcheck-reference` (re-exported here, so `hookcheck::dispatcher` and `hookcheck::run`
//! are the reference's).
//!
//! [`dispatcher`] is the pure state machine (no I/O, no JSON); [`ops`] is the brief's JSON
//! `run(operations)` contract layered over it.
//!
//! ```
//! use hookcheck::{Dispatcher, Outcomes};
//!
//! let mut d = Dispatcher::new();
//! d.register("shop", "https://shop.example/hooks")?;
//! d.enqueue(0, "shop", "evt-1", Outcomes::new([503, 200])?)?;
//! let records: Vec<String> = d.process(0).iter().map(|a| d.record(a).to_string()).collect();
//! assert_eq!(records, ["evt-1 #1 503 retry at 30"]);
//! # Ok::<(), hookcheck::Error>(())
//! ```

pub mod adapters;
pub mod builtin;
pub mod bundle;
pub mod case;
pub mod check;
mod citations;
pub mod compare;
pub mod conformance;
pub mod corpus;
pub mod diff;
pub mod expect;
pub mod fuzz;
pub mod grade;
pub mod implementation;
pub mod inert;
pub mod manifest;
pub mod outputs;
pub mod progress;
pub mod provenance;
pub mod record;
pub mod report;
pub mod runner;
pub mod score;
pub mod serve;
pub mod shard;
pub mod spec;
pub mod tally;
pub mod textfile;
pub mod wording;

pub use hookcheck_reference::{
    Attempt, Dispatcher, Error, EventKey, Outcome, Outcomes, RetryPolicy, State, Status, Ts,
    dispatcher, input, ops, prng, run,
};
