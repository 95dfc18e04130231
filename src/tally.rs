//! Counts of verdicts, and whether a run with those counts passes: what the grade, the summary
//! line and every report read.

use crate::runner::Verdict;
use serde_json::{Value, json};

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
