//! Runs cases on a target and turns what comes back into a verdict; the one runner behind
//! `cargo test`, `hookcheck check` and `hookcheck fuzz`.

use crate::case::Case;
use crate::compare::{Scope, compare, render};
use crate::target::{Failure, Target};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// The results differ; the report names the file, line and step and holds the diff.
    Failed(String),
    Errored(String),
    Skipped(String),
    /// The case needs a part of the brief the implementation does not declare.
    NotApplicable,
    NotRun(String),
}

impl Verdict {
    pub fn is_success(&self) -> bool {
        matches!(
            self,
            Verdict::Passed | Verdict::Skipped(_) | Verdict::NotApplicable
        )
    }
}

/// Runs one case on `target` and compares what it returns with the case's expectations.
pub fn check(target: &dyn Target, case: &Case, scope: Scope) -> Verdict {
    if !target.parts().contains(&case.part) {
        return Verdict::NotApplicable;
    }
    match target.run(case) {
        Ok(actual) => match compare(case, &actual, scope) {
            Ok(()) => Verdict::Passed,
            Err(m) => Verdict::Failed(render(case, &actual, &m, scope)),
        },
        Err(Failure::Skipped(reason)) => Verdict::Skipped(reason),
        Err(Failure::NotRun(reason)) => Verdict::NotRun(reason),
        Err(e) => Verdict::Errored(format!(
            "{}:{}: {}: {e}",
            case.file.display(),
            case.line,
            case.name()
        )),
    }
}
