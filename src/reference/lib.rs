//! The reference webhook dispatcher of hookcheck's `spec/dispatcher.md`, on its own: it depends
//! on nothing of the conformance kit, so a user of the reference compiles only this.
//!
//! [`dispatcher`] is the pure state machine (no I/O, no JSON); [`ops`] is the brief's JSON
//! `run(operations)` contract layered over it; [`input`] reads a whole run's operations from a
//! file or a pipe for `hookcheck run`; [`Part`] names the parts an implementation offers.
//!
//! ```
//! use hookcheck_reference::{Dispatcher, Outcomes};
//!
//! let mut d = Dispatcher::new();
//! d.register("shop", "https://shop.example/hooks")?;
//! d.enqueue(0, "shop", "evt-1", Outcomes::new([503, 200])?)?;
//! let records: Vec<String> = d.process(0).iter().map(|a| d.record(a).to_string()).collect();
//! assert_eq!(records, ["evt-1 #1 503 retry at 30"]);
//! # Ok::<(), hookcheck_reference::Error>(())
//! ```

pub mod dispatcher;
mod escape;
pub mod input;
pub mod ops;
mod part;
mod prefetch;
pub mod prng;

pub use dispatcher::{
    Attempt, Dispatcher, Error, EventKey, Outcome, Outcomes, RetryPolicy, State, Status, Ts,
};
pub use ops::run;
pub use part::Part;
