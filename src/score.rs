//! What a grade is made of: a score per part (cases passed of those that apply, the ones never
//! run apart), the failures beyond the brief by origin, and the grade itself with its wording in
//! the brief's terms. Plain values: computing them is `grade`'s, showing them the reports'.

use crate::case::{Origin, Part};
use crate::runner::Verdict;

/// How many of a part's cases passed, of those that apply and were judged; the cases that never
/// ran (an interrupted run, an implementation that could not start) are counted apart: they
/// neither pass nor fail.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub passed: usize,
    pub total: usize,
    pub not_run: usize,
}

impl Score {
    pub(crate) fn count(&mut self, v: &Verdict) {
        if matches!(v, Verdict::NotRun(_)) {
            self.not_run += 1;
        } else if applies(v) {
            self.total += 1;
            self.passed += usize::from(passed(v));
        }
    }

    pub fn show(self) -> String {
        let judged = if self.total == 0 {
            "-".to_string()
        } else {
            format!("{}/{}", self.passed, self.total)
        };
        if self.not_run == 0 {
            judged
        } else {
            format!("{judged} ({} not run)", self.not_run)
        }
    }

    /// The share passed, in whole percent rounded down (so 99.9% is not shown as 100%); `None`
    /// when no case applies.
    pub fn percent(self) -> Option<usize> {
        (self.total > 0).then(|| self.passed * 100 / self.total)
    }
}

/// Whether a verdict counts for the grade: the case ran or should have. A case the
/// implementation skipped in a part it declares counts, as not passed.
pub(crate) fn applies(v: &Verdict) -> bool {
    !matches!(v, Verdict::NotApplicable(_))
}

/// A pass for the grade: a case that passes (an expected failure still fails the brief).
pub(crate) fn passed(v: &Verdict) -> bool {
    matches!(v, Verdict::Passed | Verdict::UnexpectedPass { .. })
}

/// Failing cases beyond the brief's own, by origin.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beyond {
    pub clarification: usize,
    pub regression: usize,
    pub fuzz: usize,
}

impl Beyond {
    pub(crate) fn add(&mut self, origin: Origin) {
        match origin {
            Origin::Regression => self.regression += 1,
            Origin::Fuzz => self.fuzz += 1,
            Origin::Brief | Origin::Clarification => self.clarification += 1,
        }
    }

    pub fn total(self) -> usize {
        self.clarification + self.regression + self.fuzz
    }

    /// `2 regression cases, 1 clarification case`: the origins with failures, each with the
    /// `--origin` word that selects them.
    pub fn describe(self) -> String {
        [
            (self.regression, "regression"),
            (self.fuzz, "fuzz"),
            (self.clarification, "clarification"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| {
            crate::wording::count(*n, &format!("{word} case"), &format!("{word} cases"))
        })
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// As many as there are parts: a grade has one of each per part, in the order of [`Part::ALL`].
pub const PARTS: usize = Part::ALL.len();

/// An implementation's grade, part by part, in the order of [`Part::ALL`] (index 0 is Part 1).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Grade {
    pub full: [Score; PARTS],
    pub brief: [Score; PARTS],
    /// The brief's own cases that fail, part by part.
    pub brief_failing: [Vec<String>; PARTS],
    /// The cases that fail beyond what the brief states, by where they come from: a brief case
    /// failing only on a step a clarification fixes counts as a clarification.
    pub beyond_brief: Beyond,
    /// The parts the implementation declares: a part without cases is either not declared
    /// (not implemented) or left out by the run's filters (not checked).
    pub declared: [bool; PARTS],
    /// Whether the implementation started, so that what it declares is known: one that could
    /// not start has no part "not implemented".
    pub started: bool,
}

impl Grade {
    /// Whether part `p` (an index into [`Part::ALL`]) is not implemented: the implementation
    /// does not declare it and no case of it counts (a required part's cases count, failed).
    pub fn not_implemented(&self, p: usize) -> bool {
        self.started && !self.declared[p] && self.full[p].total == 0
    }

    /// The grade in the brief's terms: `Part 1 passed, Part 2 passed, Part 3: 2 of 14 cases
    /// fail (pause::x, pause::y)`; a part with no case is `not implemented` when the
    /// implementation does not declare it, `not checked` when the run's filters left it out.
    pub fn in_brief_terms(&self) -> String {
        let parts: Vec<String> = (0..PARTS)
            .map(|p| {
                let (score, failing) = (self.brief[p], &self.brief_failing[p]);
                // Numbers are the roadmap's, not places in `Part::ALL`.
                let n = crate::case::Part::ALL[p].number();
                let not_run = self.brief[p].not_run;
                let also_not_run = if not_run > 0 {
                    format!(", {not_run} not run")
                } else {
                    String::new()
                };
                if score.total == 0 && not_run > 0 {
                    format!(
                        "Part {} not run ({})",
                        n,
                        crate::wording::count(not_run, "case", "cases")
                    )
                } else if score.total == 0 && !self.declared[p] {
                    format!("Part {} not implemented", n)
                } else if score.total == 0 && self.full[p].total > 0 {
                    format!(
                        "Part {}: only cases beyond the brief ran ({} passed)",
                        n,
                        self.full[p].show()
                    )
                } else if score.total == 0 {
                    format!("Part {} not checked", n)
                } else if failing.is_empty() && not_run == 0 {
                    format!("Part {} passed", n)
                } else if failing.is_empty() {
                    format!(
                        "Part {}: {} passed{also_not_run}",
                        n,
                        crate::wording::count(score.passed, "case", "cases")
                    )
                } else {
                    let shown: Vec<&str> = failing.iter().take(3).map(String::as_str).collect();
                    let more = if failing.len() > 3 { ", ..." } else { "" };
                    format!(
                        "Part {}: {} of {} {} ({}{more}){also_not_run}",
                        n,
                        failing.len(),
                        score.total,
                        if failing.len() == 1 {
                            "cases fails"
                        } else {
                            "cases fail"
                        },
                        shown.join(", ")
                    )
                }
            })
            .collect();
        let mut line = parts.join(", ");
        let beyond = self.beyond_brief;
        if beyond.total() > 0 {
            line.push_str(&format!(
                "; and failing beyond the brief: {}",
                beyond.describe()
            ));
        }
        line
    }

    /// The score: cases passed of the cases that apply, over every part (in the run's scope),
    /// and the same for the brief's own cases judged by the brief alone.
    pub fn score(&self) -> (Score, Score) {
        let sum = |scores: &[Score; PARTS]| Score {
            passed: scores.iter().map(|s| s.passed).sum(),
            total: scores.iter().map(|s| s.total).sum(),
            not_run: scores.iter().map(|s| s.not_run).sum(),
        };
        (sum(&self.full), sum(&self.brief))
    }

    /// Whether every case of every declared part passed, in full, and there was one at least.
    pub fn all_passed(&self) -> bool {
        self.full.iter().all(|s| s.passed == s.total) && self.full.iter().any(|s| s.total > 0)
    }
}
