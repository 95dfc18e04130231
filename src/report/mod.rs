//! Reports of a check run, all from the same verdicts: the human view (failure reports, then a
//! table per part, `human`), JSON lines (one event per case and a summary, `json`), and JUnit XML
//! (`junit`); for many implementations, the grade (`grade`), markdown and a self-contained HTML
//! matrix. Every one of them shows untrusted text through `inert`.

pub mod apart;
pub mod github;
mod grade;
mod html;
mod human;
pub mod json;
mod junit;
mod markdown;
pub mod model;

pub use apart::{HiddenDetail, human as human_apart, lines as apart_lines};
pub use grade::{human as grade_human, json_implementation};
pub use html::html;
pub use human::{about_plain, human_case, human_summary, origin_phrase};
pub use json::{case_event, json_summary};
pub use junit::{junit, junit_many};
pub use markdown::{MARKDOWN_LIMIT, markdown};
pub use model::{Judged, Model};

use crate::case::{Case, Part};
use crate::inert;
use crate::runner::Verdict;
pub use crate::runner::verdict_word;
pub use crate::tally::Tally;

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
/// The mark of a pass that did not pass in the earlier run (`check --rerun-failed`): a pass,
/// told apart.
pub const FLAKY_MARK: &str = "≈";

/// A verdict's mark, or [`FLAKY_MARK`] for a flaky pass.
pub fn mark_of(v: &Verdict, flaky: bool) -> &'static str {
    if flaky && v.is_success() {
        FLAKY_MARK
    } else {
        mark(v)
    }
}

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
                costs: Vec::new(),
                flaky: Vec::new(),
                expectations: None,
                scope: crate::compare::Scope::FULL,
                passed: i % 2 == 0,
                apart: Default::default(),
            })
            .collect()
    }

    /// Renders with `render` the model of `graded` on `cases`, judged as a run judges them.
    pub fn render<T>(
        cases: &[Case],
        graded: &[Graded],
        provenance: &crate::provenance::Provenance,
        render: impl FnOnce(&super::Model) -> T,
    ) -> T {
        let judged: Vec<super::Judged> =
            graded.iter().map(|g| super::Judged::of(g, cases)).collect();
        render(&super::Model {
            cases,
            graded,
            judged: &judged,
            provenance,
        })
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
