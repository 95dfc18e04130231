//! The grade as markdown, for a pull request or a wiki: the grade table with each
//! implementation's grade in the brief's terms, then a case × implementation table.

use super::inert;
use crate::case::Case;
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
        Verdict::NotApplicable => "–",
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

pub fn markdown(cases: &[Case], graded: &[Graded]) -> String {
    let mut out = format!(
        "# hookcheck: {} implementation{} × {} cases\n\n",
        graded.len(),
        if graded.len() == 1 { "" } else { "s" },
        cases.len()
    );
    out.push_str(
        "| implementation | Part 1 | Part 2 | Part 3 | brief 1 | brief 2 | brief 3 | in the brief's terms |\n\
         |---|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for g in graded {
        let grade = g.grade(cases);
        let terms = g.verdict_line(&grade);
        let scores: Vec<String> = grade
            .full
            .iter()
            .chain(&grade.brief)
            .map(|s| s.show())
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            cell(&g.entry.name),
            scores.join(" | "),
            cell(&terms)
        );
    }
    out.push_str(
        "\nParts: 1 retries, 2 ordering, 3 pause; cases passed of those that apply. *brief*: the \
         brief's own cases, judged by what the brief states alone.\n\n## Cases\n\n",
    );
    let _ = writeln!(out, "{LEGEND}\n");
    let names: Vec<String> = graded.iter().map(|g| cell(&g.entry.name)).collect();
    let _ = writeln!(out, "| case | part | origin | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|---|---|{}", ":-:|".repeat(graded.len()));
    let verdicts: Vec<Vec<Verdict>> = graded.iter().map(|g| g.judged(cases)).collect();
    for (i, c) in cases.iter().enumerate() {
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
