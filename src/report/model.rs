//! The report model: each implementation's results judged and graded once, in the run's scope
//! (verdicts, counts, grade, its line in the brief's terms), so that every format (terminal,
//! JSON, JUnit, markdown, HTML) renders the same figures and none judges or grades again.

use crate::case::Case;
use crate::grade::Graded;
use crate::provenance::Provenance;
use crate::runner::Verdict;
use crate::score::Grade;
use crate::tally::Tally;

/// One implementation's results as every report tells them.
#[derive(Clone, Debug)]
pub struct Judged {
    /// The public cases' verdicts in the run's scope, expectations applied.
    pub verdicts: Vec<Verdict>,
    /// The same, counted.
    pub tally: Tally,
    /// Part by part, in full and for the brief alone.
    pub grade: Grade,
    /// Its line in the brief's terms (after the note on numbers), or why it could not start.
    pub line: String,
    /// Steps left out because it declared `numbers: values`.
    pub left_out: usize,
}

impl Judged {
    /// Judges and grades `g` on the public `cases`, once.
    pub fn of(g: &Graded, cases: &[Case]) -> Self {
        let verdicts = g.judged(cases);
        let mut tally = Tally::default();
        verdicts.iter().for_each(|v| tally.add(v));
        let grade = g.grade_from(cases, &verdicts);
        let left_out = g.left_out(cases);
        let line = g.verdict_line(&grade, left_out);
        Judged {
            verdicts,
            tally,
            grade,
            line,
            left_out,
        }
    }

    /// Whether the public cases pass: every case passed, failed as expected, or did not apply,
    /// one passed at least, none was skipped (unless `allow_skips`); with `strict`, no listed
    /// case passed either.
    pub fn success(&self, strict: bool, allow_skips: bool) -> bool {
        self.tally.success(allow_skips) && (!strict || self.tally.unexpected_passes == 0)
    }
}

/// A run's results, ready to render: the public cases, each implementation with what it gave
/// and how it was judged (in the same order), and where the run comes from.
#[derive(Clone, Copy)]
pub struct Model<'a> {
    pub cases: &'a [Case],
    pub graded: &'a [Graded],
    pub judged: &'a [Judged],
    pub provenance: &'a Provenance,
}

impl<'a> Model<'a> {
    /// Each implementation beside its judged results.
    pub fn rows(&self) -> impl Iterator<Item = (&'a Graded, &'a Judged)> + 'a {
        self.graded.iter().zip(self.judged)
    }
}
