//! The grade as markdown, for a pull request or a wiki: the grade table with each
//! implementation's grade in the brief's terms, then a case × implementation table.

use super::inert;
use crate::case::{Case, Part};
use crate::grade::Graded;
use crate::runner::Verdict;
use std::fmt::Write as _;

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

const LEGEND: &str = "✓ passed · ✗ failed · E errored · ⊘ not run · s skipped · – not applicable · \
                      x failed as expected · ! passed though expected to fail";

/// Untrusted text (a name, a line in the brief's terms) as a cell: bounded, and inert in any
/// CommonMark or GitHub renderer, HTML allowed or not.
fn cell(text: &str) -> String {
    inert::markdown(&inert::clip(text, inert::LINE_LIMIT))
}

/// Above this size the cases table is cut to the failing cases: a pull-request comment holds
/// 65,536 characters.
pub const MARKDOWN_LIMIT: usize = 60_000;

/// The grade (a score per implementation first, with its pass or fail mark), then the case ×
/// implementation table, then where the report comes from. Above [`MARKDOWN_LIMIT`] the table
/// keeps only the cases that do not pass everywhere, and says so.
pub fn markdown(
    cases: &[Case],
    graded: &[Graded],
    provenance: &crate::provenance::Provenance,
) -> String {
    let tail = format!("\n*{}*\n", inert::markdown(&provenance.line()));
    let head = grade(cases, graded, false);
    let full = table(cases, graded, false);
    let size = head.len() + full.len() + tail.len();
    if size <= MARKDOWN_LIMIT {
        return head + &full + &tail;
    }
    let note = format!(
        "\n**Cut to fit a comment** (the full report is {size} characters; `--html` writes every \
         case with its details): the brief's-terms column is shortened and the table lists only \
         the cases that do not pass everywhere.\n"
    );
    let head = grade(cases, graded, true);
    let mut cut = table(cases, graded, true);
    if head.len() + cut.len() + note.len() + tail.len() > MARKDOWN_LIMIT {
        cut = String::from("\n*The failing cases do not fit either: see the HTML report.*\n");
    }
    head + &note + &cut + &tail
}

/// The grade table: score and mark first, then the part columns and the brief's terms (cut to
/// its first part when `terse`).
fn grade(cases: &[Case], graded: &[Graded], terse: bool) -> String {
    let mut out = format!(
        "# hookcheck: {} implementation{} × {} cases\n\n",
        graded.len(),
        if graded.len() == 1 { "" } else { "s" },
        cases.len()
    );
    // A column per part in full, then per part for the brief alone.
    let numbers: Vec<usize> = Part::ALL.iter().map(|p| p.number()).collect();
    let headers: Vec<String> = numbers
        .iter()
        .map(|n| format!("Part {n}"))
        .chain(numbers.iter().map(|n| format!("brief {n}")))
        .collect();
    let _ = writeln!(
        out,
        "| implementation | verdict | score | brief score | {} | in the brief's terms |\n\
         |---|:-:|---:|---:|{}---|",
        headers.join(" | "),
        "---:|".repeat(headers.len())
    );
    for g in graded {
        let grade = g.grade(cases);
        let mut terms = g.verdict_line(&grade);
        if terse {
            terms = inert::clip(&terms, 60).into_owned();
        }
        let scores: Vec<String> = super::grade::score_cells(&grade)
            .into_iter()
            .map(|(text, _)| text)
            .collect();
        let (score, brief) = grade.score();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&g.entry.name),
            if g.passed { "✓ pass" } else { "✗ fail" },
            percent(score),
            percent(brief),
            scores.join(" | "),
            cell(&terms)
        );
    }
    let _ = writeln!(
        out,
        "\n*score*: cases passed of the cases that apply, all parts together (in the run's \
         scope); *brief score*: the brief's own cases, judged by what the brief states alone. \
         *verdict*: the run's (expectations and flags applied). {}: cases passed of those that \
         apply; *not implemented*: a part the implementation does not declare.",
        super::grade::part_legend()
    );
    out
}

fn percent(score: crate::grade::Score) -> String {
    match score.percent() {
        Some(p) => format!("{p}% ({})", score.show()),
        None => "-".to_string(),
    }
}

/// The case × implementation table; `failing_only` keeps the cases that do not pass everywhere.
fn table(cases: &[Case], graded: &[Graded], failing_only: bool) -> String {
    let mut out = String::from("\n## Cases\n\n");
    let _ = writeln!(out, "{LEGEND}\n");
    let names: Vec<String> = graded.iter().map(|g| cell(&g.entry.name)).collect();
    let _ = writeln!(out, "| case | part | origin | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|---|---|{}", ":-:|".repeat(graded.len()));
    let verdicts: Vec<Vec<Verdict>> = graded.iter().map(|g| g.judged(cases)).collect();
    for (i, c) in cases.iter().enumerate() {
        if failing_only && verdicts.iter().all(|v| v[i].is_success()) {
            continue;
        }
        let marks: Vec<&str> = verdicts.iter().map(|v| mark(&v[i])).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            inert::markdown_code(&inert::clip(&c.name(), inert::LINE_LIMIT)),
            c.part.as_str(),
            c.origin.as_str(),
            marks.join(" | ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grade::StartedInfo;
    use crate::implementation::Failure;
    use crate::manifest::Entry;
    use crate::runner::Ran;

    /// 150 implementations, every other one erroring on every case: the full table would be
    /// far above a comment's limit, the report stays under it and says it was cut.
    #[test]
    fn a_large_grade_is_cut_to_fit_a_comment() {
        // Cases for implementations without some part (`without`) would be made not applicable
        // by the runner, which this test does not run.
        let cases: Vec<_> = crate::corpus::Corpus::builtin()
            .cases
            .into_iter()
            .filter(|c| c.without.is_empty())
            .collect();
        let graded: Vec<Graded> = (0..150)
            .map(|i| Graded {
                entry: Entry {
                    name: format!("submission-number-{i:03}"),
                    ..Entry::reference()
                },
                started: Ok(StartedInfo {
                    describe: String::new(),
                    parts: crate::case::Part::ALL.to_vec(),
                    numbers: crate::compare::Numbers::Spelling,
                }),
                ran: cases
                    .iter()
                    .map(|c| {
                        if i % 2 == 0 {
                            Ran::Results(crate::ops::run(&c.operations()))
                        } else {
                            Ran::Failed(Failure::Errored {
                                message: "crash".into(),
                                detail: String::new(),
                            })
                        }
                    })
                    .collect(),
                slow: vec![false; cases.len()],
                expectations: None,
                scope: crate::compare::Scope::FULL,
                passed: i % 2 == 0,
            })
            .collect();
        let provenance = crate::provenance::Provenance::new(&cases, String::new(), false);
        let text = markdown(&cases, &graded, &provenance);
        assert!(text.len() <= MARKDOWN_LIMIT, "{} characters", text.len());
        assert!(text.contains("Cut to fit a comment"), "{text}");
        assert!(text.contains("submission-number-149"));
        let small = markdown(&cases, &graded[..2], &provenance);
        assert!(!small.contains("Cut to fit"));
        assert!(small.contains("| ✓ pass | 100% ("), "{small}");
    }
}
