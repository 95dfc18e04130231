//! Runs cases on an implementation and turns what comes back into a verdict; the one runner behind
//! `cargo test`, `hookcheck check` and `hookcheck fuzz`.

use crate::case::{Case, Origin, Part};
use crate::compare::{Scope, compare, render};
use crate::implementation::{Failure, Implementation};
use rayon::prelude::*;

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

/// Runs one case on `implementation` and compares what it returns with the case's expectations.
pub fn check(implementation: &dyn Implementation, case: &Case, scope: Scope) -> Verdict {
    if !implementation.parts().contains(&case.part) {
        return Verdict::NotApplicable;
    }
    match implementation.run(case) {
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

/// Which cases a run takes: each filter that is set must match.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub parts: Vec<Part>,
    pub rules: Vec<String>,
    pub origins: Vec<Origin>,
    /// Substrings of `<suite>::<id>`; a case matches if it contains any.
    pub patterns: Vec<String>,
}

impl Selection {
    pub fn matches(&self, case: &Case) -> bool {
        let name = case.name();
        (self.parts.is_empty() || self.parts.contains(&case.part))
            && (self.rules.is_empty() || case.rules.iter().any(|r| self.rules.contains(r)))
            && (self.origins.is_empty() || self.origins.contains(&case.origin))
            && (self.patterns.is_empty() || self.patterns.iter().any(|p| name.contains(p.as_str())))
    }

    /// A run of brief cases only compares what the brief states.
    pub fn scope(&self) -> Scope {
        if !self.origins.is_empty() && self.origins.iter().all(|o| *o == Origin::Brief) {
            Scope::BriefOnly
        } else {
            Scope::Full
        }
    }
}

/// Checks every case on `implementation` with `jobs` cases in flight; verdicts come back in case order.
pub fn check_all(
    implementation: &dyn Implementation,
    cases: &[Case],
    scope: Scope,
    jobs: usize,
) -> Vec<Verdict> {
    let run = || {
        cases
            .par_iter()
            .map(|c| check(implementation, c, scope))
            .collect()
    };
    match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
    {
        Ok(pool) => pool.install(run),
        // No pool (threads exhausted): the same work, one case at a time.
        Err(_) => cases
            .iter()
            .map(|c| check(implementation, c, scope))
            .collect(),
    }
}
