//! Runs cases on an implementation and turns what comes back into a verdict; the one runner behind
//! `cargo test`, `hookcheck check` and `hookcheck fuzz`.

use crate::case::{Case, Inapplicable, Origin, Part};
use crate::compare::{Numbers, Scope, compare, render};
use crate::implementation::{Failure, Implementation};
use rayon::prelude::*;
use serde_json::Value;
use std::borrow::Cow;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    /// The results differ; the report names the file, line and step and holds the diff.
    Failed(String),
    Errored(String),
    Skipped(String),
    /// The case does not apply to the implementation (a part it does not declare, a part the
    /// case is without, steps it cannot see): counted apart, never failed.
    NotApplicable(Inapplicable),
    NotRun(String),
    /// Failed or errored as an expectations file says it would (`hookcheck check --expect`):
    /// the reason given there, and the report.
    ExpectedFailure {
        reason: String,
        report: String,
    },
    /// Passed although an expectations file says it fails: the list can shrink.
    UnexpectedPass {
        reason: String,
    },
}

impl Verdict {
    /// A verdict that does not fail a run. A case the implementation skipped is not one: a run
    /// passes with skips only when the user allows them (`--allow-skips`).
    pub fn is_success(&self) -> bool {
        matches!(
            self,
            Verdict::Passed
                | Verdict::NotApplicable(_)
                | Verdict::ExpectedFailure { .. }
                | Verdict::UnexpectedPass { .. }
        )
    }
}

/// What running a case on an implementation gave, before it is judged: the same results can
/// be judged in full and against the brief alone without running the case twice.
#[derive(Clone, Debug, PartialEq)]
pub enum Ran {
    /// The case does not apply: it needs a part the implementation does not declare, it is for
    /// implementations without a part this one declares, or every step of it depends on number
    /// spelling, which the implementation does not see.
    NotApplicable(Inapplicable),
    /// One result per step, in step order (a placeholder for a step not sent).
    Results(Vec<Value>),
    Failed(Failure),
}

/// Runs one case on `implementation`. An implementation that sees only number values gets the
/// case without its `spelling` steps, whose expectations depend on how a number is written.
pub fn run(implementation: &dyn Implementation, case: &Case) -> Ran {
    // After Ctrl-C nothing more is sent, and a case cut short was not judged: not run, never
    // errored, never a fuzz finding.
    let interrupted =
        || crate::implementation::interrupt::reason().map(|why| Ran::Failed(Failure::NotRun(why)));
    // Known without running: a case of a part the implementation does not declare stays not
    // applicable after an interruption, never "not run" in a part it does not offer.
    if let Some(why) = case.inapplicable(&implementation.parts()) {
        return Ran::NotApplicable(why);
    }
    if let Some(not_run) = interrupted() {
        return not_run;
    }
    let scope = Scope::FULL.with_numbers(implementation.numbers());
    let sent: Cow<Case> = if case.steps.iter().all(|s| scope.applies(s)) {
        Cow::Borrowed(case)
    } else {
        let mut kept = case.clone();
        kept.steps.retain(|s| scope.applies(s));
        if kept.steps.is_empty() {
            return Ran::NotApplicable(Inapplicable::Spelling);
        }
        Cow::Owned(kept)
    };
    match implementation.run(&sent) {
        Ok(actual) => Ran::Results(realign(case, actual, scope)),
        Err(failure) => interrupted().unwrap_or(Ran::Failed(failure)),
    }
}

/// Compares what a run gave with the case's expectations, within `scope` (whose `numbers` must
/// be the implementation's).
pub fn judge(case: &Case, ran: &Ran, scope: Scope) -> Verdict {
    match ran {
        Ran::NotApplicable(why) => Verdict::NotApplicable(*why),
        Ran::Results(actual) => match compare(case, actual, scope) {
            Ok(()) => Verdict::Passed,
            Err(m) => Verdict::Failed(render(case, actual, &m, scope)),
        },
        Ran::Failed(Failure::Skipped(reason)) => Verdict::Skipped(reason.clone()),
        Ran::Failed(Failure::NotRun(reason)) => Verdict::NotRun(reason.clone()),
        Ran::Failed(e) => Verdict::Errored(format!(
            "{}:{}: {}: {e}",
            case.file.display(),
            case.line,
            case.name()
        )),
    }
}

/// Runs one case on `implementation` and compares what it returns with the case's expectations.
pub fn check(implementation: &dyn Implementation, case: &Case, scope: Scope) -> Verdict {
    let ran = run(implementation, case);
    judge(case, &ran, scope.with_numbers(implementation.numbers()))
}

/// The results of the steps sent, put back in step order: a step that was not sent gets a
/// placeholder, which is never compared. Results beyond the steps stay at the end.
fn realign(case: &Case, actual: Vec<Value>, scope: Scope) -> Vec<Value> {
    if case.steps.iter().all(|s| scope.applies(s)) {
        return actual;
    }
    let mut results = actual.into_iter();
    let mut aligned = Vec::with_capacity(case.steps.len());
    for step in &case.steps {
        if !scope.applies(step) {
            aligned.push(Value::Null);
            continue;
        }
        match results.next() {
            Some(r) => aligned.push(r),
            None => break,
        }
    }
    aligned.extend(results);
    aligned
}

/// How many steps of the applicable cases were left out because their expectations depend on
/// number spelling, which this implementation cannot see.
pub fn spelling_steps(implementation: &dyn Implementation, cases: &[Case]) -> usize {
    spelling_steps_of(&implementation.parts(), implementation.numbers(), cases)
}

/// As [`spelling_steps`], for an implementation that declares `parts` and reads `numbers`.
pub fn spelling_steps_of(parts: &[Part], numbers: Numbers, cases: &[Case]) -> usize {
    if numbers == Numbers::Spelling {
        return 0;
    }
    cases
        .iter()
        .filter(|c| c.inapplicable(parts).is_none())
        .map(|c| c.steps.iter().filter(|s| s.spelling).count())
        .sum()
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
    /// Only what the brief states: its own cases, compared on the steps the brief fixes. The
    /// one definition behind `--origin brief`, `Suite::brief_only` and `HOOKCHECK_ORIGIN=brief`.
    pub fn brief() -> Selection {
        Selection {
            origins: vec![Origin::Brief],
            ..Selection::default()
        }
    }

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
            Scope::BRIEF
        } else {
            Scope::FULL
        }
    }
}

/// Checks every case on `implementation` with `jobs` cases in flight, then ends its processes;
/// verdicts come back in case order. A fault found only after a case was answered (a second
/// answer) replaces that case's verdict.
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
    let mut verdicts: Vec<Verdict> = match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
    {
        Ok(pool) => pool.install(run),
        // No pool (threads exhausted): the same work, one case at a time.
        Err(_) => cases
            .iter()
            .map(|c| check(implementation, c, scope))
            .collect(),
    };
    for (name, failure) in implementation.finish() {
        if let Some(i) = cases.iter().position(|c| c.name() == name) {
            verdicts[i] = judge(&cases[i], &Ran::Failed(failure), scope);
        }
    }
    verdicts
}

/// The verdict's name in reports (`passed`, `not_applicable`, ...).
pub fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Passed => "passed",
        Verdict::Failed(_) => "failed",
        Verdict::Errored(_) => "errored",
        Verdict::Skipped(_) => "skipped",
        Verdict::NotApplicable(_) => "not_applicable",
        Verdict::NotRun(_) => "not_run",
        Verdict::ExpectedFailure { .. } => "expected_failure",
        Verdict::UnexpectedPass { .. } => "unexpected_pass",
    }
}
