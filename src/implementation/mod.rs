//! Implementations: what runs a case's operations on a fresh dispatcher and hands back the results.
//! The built-in reference is one implementation; implementations in other processes are others.

mod child;
pub mod effort;
pub mod interrupt;
mod live;
mod process;
mod reap;
pub mod sandbox;

pub use process::{Hello, MAX_ANSWER, Options, PROTOCOL, Subprocess};
pub use reap::{MARK, adopt_orphans, guard, keep_watch, kill_all, sweep};
pub use sandbox::Sandbox;

use crate::case::{Case, Part};
use crate::compare::Numbers;
use serde_json::Value;
use std::fmt;

/// Why an implementation gave no results for a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The implementation declined the case, with its reason.
    Skipped(String),
    /// The implementation failed while running the case (an exception, a crash, a hang, output
    /// that breaks the protocol), with what it said.
    Errored { message: String, detail: String },
    /// The implementation did not answer in time (or did not read the case): run once more,
    /// alone, before it is reported as errored.
    TimedOut { message: String, detail: String },
    /// The case was never sent (for example, too many restarts).
    NotRun(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Skipped(reason) => write!(f, "skipped: {reason}"),
            Failure::Errored { message, detail } | Failure::TimedOut { message, detail }
                if detail.is_empty() =>
            {
                f.write_str(message)
            }
            Failure::Errored { message, detail } | Failure::TimedOut { message, detail } => {
                write!(f, "{message}\n{detail}")
            }
            Failure::NotRun(reason) => write!(f, "not run: {reason}"),
        }
    }
}

pub trait Implementation: Sync {
    /// A short description for reports.
    fn describe(&self) -> String;
    /// The parts of the brief the implementation declares; cases of other parts are not
    /// applicable to it.
    fn parts(&self) -> Vec<Part>;
    /// Runs the case's operations, in order, on a fresh dispatcher.
    fn run(&self, case: &Case) -> Result<Vec<Value>, Failure>;
    /// How the implementation's JSON reader sees numbers: by spelling unless it declares
    /// otherwise.
    fn numbers(&self) -> Numbers {
        Numbers::Spelling
    }
    /// Whether it declared `numbers: values` and the grader refused it (`--numbers strict`):
    /// every step is judged, those that depend on number spelling included.
    fn numbers_refused(&self) -> bool {
        false
    }
    /// A problem seen before any case ran (a failed handshake), for the report's header.
    fn warning(&self) -> Option<String> {
        None
    }
    /// Ends the implementation's processes once no case is left, and returns the faults found
    /// only after a case had been answered (a second answer, stray output), by case name: they
    /// replace that case's results.
    fn finish(&self) -> Vec<(String, Failure)> {
        Vec::new()
    }
}

/// The built-in reference dispatcher, in process.
pub struct Reference;

impl Implementation for Reference {
    fn describe(&self) -> String {
        format!("hookcheck reference {}", env!("CARGO_PKG_VERSION"))
    }

    fn parts(&self) -> Vec<Part> {
        Part::ALL.to_vec()
    }

    fn run(&self, case: &Case) -> Result<Vec<Value>, Failure> {
        let mut session = crate::ops::Session::new();
        Ok(case.steps.iter().map(|s| session.step(&s.op)).collect())
    }
}
