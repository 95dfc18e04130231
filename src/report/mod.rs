//! Reports of a check run, all from the same verdicts: the human view (failure reports, then a
//! table per part, `human`), JSON lines (one event per case and a summary, `json`), and JUnit XML
//! (`junit`); for many implementations, the grade (`grade`), markdown and a self-contained HTML
//! matrix. Every one of them shows untrusted text through `inert`.

pub mod apart;
mod grade;
mod html;
mod human;
pub mod inert;
pub mod json;
mod junit;
mod markdown;

pub use apart::{HiddenDetail, human as human_apart, lines as apart_lines};
pub use grade::{human as grade_human, json_implementation, success as implementation_success};
pub use html::html;
pub use human::{about_plain, human_case, human_summary, origin_phrase};
pub use json::{json_case, json_summary};
pub use junit::{junit, junit_many};
pub use markdown::markdown;

use crate::case::{Case, Part};
use crate::runner::Verdict;
use serde_json::{Value, json};

/// `n` and its noun, singular for one: `1 case`, `2 cases`. `plural` is the noun for many.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    if n == 1 {
        format!("1 {singular}")
    } else {
        format!("{n} {plural}")
    }
}

/// Counts of verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub skipped: usize,
    pub not_applicable: usize,
    pub not_run: usize,
    pub expected_failures: usize,
    pub unexpected_passes: usize,
}

impl Tally {
    pub fn add(&mut self, v: &Verdict) {
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed(_) => self.failed += 1,
            Verdict::Errored(_) => self.errored += 1,
            Verdict::Skipped(_) => self.skipped += 1,
            Verdict::NotApplicable(_) => self.not_applicable += 1,
            Verdict::NotRun(_) => self.not_run += 1,
            Verdict::ExpectedFailure { .. } => self.expected_failures += 1,
            Verdict::UnexpectedPass { .. } => self.unexpected_passes += 1,
        }
    }

    /// A run passes when nothing failed, errored or was not run, something passed (an
    /// implementation that checked nothing does not pass), and, unless `allow_skips`, the
    /// implementation skipped no case of a part it declares.
    pub fn success(&self, allow_skips: bool) -> bool {
        self.failed + self.errored + self.not_run == 0
            && self.passed + self.unexpected_passes > 0
            && (allow_skips || self.skipped == 0)
    }

    /// Why a run that is otherwise clean does not pass, in a sentence, if it does not.
    pub fn why_not_passed(&self, allow_skips: bool) -> Option<String> {
        if self.failed + self.errored + self.not_run > 0 {
            return None;
        }
        if self.passed + self.unexpected_passes == 0 {
            return Some(
                "nothing was checked: no case passed (none of the selected cases applies to \
                 the implementation, or it skipped them all)"
                    .to_string(),
            );
        }
        (!allow_skips && self.skipped > 0).then(|| {
            format!(
                "the implementation skipped {} case{} of parts it declares: a skip is not a pass \
                 (--allow-skips accepts them while an implementation is unfinished)",
                self.skipped,
                if self.skipped == 1 { "" } else { "s" }
            )
        })
    }

    /// Cases that ran, whatever became of them (not skipped, not applicable).
    pub fn ran(&self) -> usize {
        self.passed
            + self.failed
            + self.errored
            + self.not_run
            + self.expected_failures
            + self.unexpected_passes
    }

    pub fn to_json(self) -> Value {
        json!({"passed": self.passed, "failed": self.failed, "errored": self.errored,
               "skipped": self.skipped, "not_applicable": self.not_applicable, "not_run": self.not_run,
               "expected_failures": self.expected_failures, "unexpected_passes": self.unexpected_passes})
    }
}

/// The row of the report tables a case is counted in: its part, but for the `errors` suite
/// (malformed operations and validation), which runs with Part 1 (every implementation has it)
/// and is counted in a row of its own, so that a validation gap is not read as a retry bug.
pub fn row_of(case: &Case) -> &'static str {
    if case.suite == ERRORS_ROW {
        ERRORS_ROW
    } else {
        case.part.as_str()
    }
}

const ERRORS_ROW: &str = "errors";

/// What the one implementation of a run offers, as the closing summaries tell it.
#[derive(Clone, Copy, Debug)]
pub struct Offered<'a> {
    /// The parts it declares; every other part of [`Part::ALL`] is "not implemented".
    pub parts: &'a [Part],
    /// Steps left out of the cases that ran because their expectations depend on number
    /// spelling, which it does not see.
    pub spelling_steps: usize,
    /// It declared `numbers: values` and `--numbers strict` refused it: no step was left out.
    pub numbers_refused: bool,
}

impl Offered<'_> {
    /// The parts it does not declare, in number order.
    pub fn not_implemented(&self) -> Vec<Part> {
        Part::ALL
            .into_iter()
            .filter(|p| !self.parts.contains(p))
            .collect()
    }
}

/// The counts per row (every part of [`Part::ALL`], then `errors`) and in total.
pub fn tally_by_part(cases: &[Case], verdicts: &[Verdict]) -> (Vec<(&'static str, Tally)>, Tally) {
    let mut rows: Vec<(&'static str, Tally)> = Part::ALL
        .iter()
        .map(|p| p.as_str())
        .chain([ERRORS_ROW])
        .map(|r| (r, Tally::default()))
        .collect();
    let mut total = Tally::default();
    for (c, v) in cases.iter().zip(verdicts) {
        if let Some((_, t)) = rows.iter_mut().find(|(r, _)| *r == row_of(c)) {
            t.add(v);
        }
        total.add(v);
    }
    (rows, total)
}

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

/// A verdict's report or reason, bounded (`inert::clip_report`); for a case that does not
/// apply, why (hookcheck's own words, bounded already).
pub fn message(v: &Verdict) -> std::borrow::Cow<'_, str> {
    inert::clip_report(match v {
        Verdict::Failed(m) | Verdict::Errored(m) | Verdict::Skipped(m) | Verdict::NotRun(m) => m,
        Verdict::ExpectedFailure { report, .. } => report,
        Verdict::UnexpectedPass { reason } => reason,
        Verdict::NotApplicable(why) => return std::borrow::Cow::Owned(why.to_string()),
        Verdict::Passed => "",
    })
}

/// A one-character mark per verdict.
pub fn mark(v: &Verdict) -> &'static str {
    match v {
        Verdict::Passed => "✓",
        Verdict::Failed(_) => "✗",
        Verdict::Errored(_) => "E",
        Verdict::NotRun(_) => "⊘",
        Verdict::Skipped(_) => "s",
        Verdict::NotApplicable(_) => "–",
        Verdict::ExpectedFailure { .. } => "x",
        Verdict::UnexpectedPass { .. } => "!",
    }
}

/// ANSI colours, or none.
#[derive(Clone, Copy)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, text: &str) -> String {
        if self.color {
            format!("\u{1b}[{code}m{text}\u{1b}[0m")
        } else {
            text.to_string()
        }
    }
    pub fn red(self, t: &str) -> String {
        self.paint("1;31", t)
    }
    fn yellow(self, t: &str) -> String {
        self.paint("1;33", t)
    }
    pub fn green(self, t: &str) -> String {
        self.paint("1;32", t)
    }
    pub fn warn(self, t: &str) -> String {
        self.yellow(t)
    }
    fn dim(self, t: &str) -> String {
        self.paint("2", t)
    }
    /// Colours the `-`/`+` lines of a diff, after bounding it and showing its controls: the
    /// only escape codes on the terminal are these colours.
    fn diff(self, report: &str) -> String {
        let report = inert::terminal(&inert::clip_report(report));
        if !self.color {
            return report;
        }
        report
            .lines()
            .map(|l| match l.as_bytes().first() {
                Some(b'-') if !l.starts_with("---") => self.paint("31", l),
                Some(b'+') if !l.starts_with("+++") => self.paint("32", l),
                _ => l.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"
    }
}

/// Grades made up without running anything, for the reports' tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use crate::case::Case;
    use crate::grade::{Graded, StartedInfo};
    use crate::implementation::Failure;
    use crate::manifest::Entry;
    use crate::runner::Ran;

    /// `n` implementations named by `name`, every other one erroring on every case.
    pub fn graded(cases: &[Case], n: usize, name: impl Fn(usize) -> String) -> Vec<Graded> {
        let results: Vec<_> = cases
            .iter()
            .map(|c| Ran::Results(crate::ops::run(&c.operations())))
            .collect();
        (0..n)
            .map(|i| Graded {
                entry: Entry {
                    name: name(i),
                    ..Entry::reference()
                },
                started: Ok(StartedInfo {
                    describe: String::new(),
                    parts: crate::case::Part::ALL.to_vec(),
                    numbers: crate::compare::Numbers::Spelling,
                    numbers_refused: false,
                }),
                ran: if i % 2 == 0 {
                    results.clone()
                } else {
                    cases
                        .iter()
                        .map(|_| {
                            Ran::Failed(Failure::Errored {
                                message: "crash".into(),
                                detail: String::new(),
                            })
                        })
                        .collect()
                },
                slow: vec![false; cases.len()],
                expectations: None,
                scope: crate::compare::Scope::FULL,
                passed: i % 2 == 0,
                apart: Default::default(),
            })
            .collect()
    }

    /// Cases for implementations without some part (`without`) would be made not applicable
    /// by the runner, which these tests do not run.
    pub fn cases() -> Vec<Case> {
        crate::corpus::Corpus::builtin()
            .cases
            .into_iter()
            .filter(|c| c.without.is_empty())
            .collect()
    }
}
