//! The grade as markdown, for a pull request or a wiki: the grade table with each
//! implementation's grade in the brief's terms, then a case × implementation table.

use super::{Model, mark_of};
use crate::case::Part;
use crate::inert::{self, markdown_cell as cell};
use std::fmt::Write as _;

const LEGEND: &str = "✓ passed · ✗ failed · E errored · ⊘ not run · s skipped · – not applicable · \
                      x failed as expected · ! passed though expected to fail · ≈ passed when run again after \
                      failing (flaky)";

/// Above this size the cases table is cut to the failing cases: a pull-request comment holds
/// 65,536 characters.
pub const MARKDOWN_LIMIT: usize = 60_000;

/// The most of the provenance line the markdown shows: with hundreds of implementations the
/// command line alone is tens of thousands of characters. The JSON report keeps it whole.
const PROVENANCE_LIMIT: usize = 2_000;

/// The most of a name the shortest form of the grade shows: a thousand rows must fit.
const SHORT_NAME: usize = 120;

/// The grade (a score per implementation first, with its pass or fail mark), then the case ×
/// implementation table, then where the report comes from. Above [`MARKDOWN_LIMIT`] the table
/// keeps only the cases that do not pass everywhere, and says so; when even the grade does not
/// fit (hundreds of implementations), the grade keeps the failing implementations first, as
/// many as fit, and says how many more the HTML report holds. Never above the limit.
pub fn markdown(model: &Model) -> String {
    let (graded, provenance) = (model.graded, model.provenance);
    let tail = super::apart::markdown(graded)
        + &format!(
            "\n*{}*\n",
            inert::markdown(&inert::clip(&provenance.line(), PROVENANCE_LIMIT))
        );
    let head = grade(model, false);
    let full = table(model, false);
    let size = head.len() + full.len() + tail.len();
    if size <= MARKDOWN_LIMIT {
        return head + &full + &tail;
    }
    let note = format!(
        "\n**Cut to fit a comment** (the full report is {size} characters; `--html` writes every \
         case with its details): the brief's-terms column is shortened and the table lists only \
         the cases that do not pass everywhere.\n"
    );
    let head = grade(model, true);
    if head.len() + note.len() + tail.len() <= MARKDOWN_LIMIT {
        let mut cut = table(model, true);
        if head.len() + cut.len() + note.len() + tail.len() > MARKDOWN_LIMIT {
            cut = String::from("\n*The failing cases do not fit either: see the HTML report.*\n");
        }
        return head + &note + &cut + &tail;
    }
    short_grade(model, size, MARKDOWN_LIMIT.saturating_sub(tail.len())) + &tail
}

/// The grade in its shortest form, within `budget`: name, verdict and scores, the failing
/// implementations first, then as many passing ones as fit, and a line for the rest.
fn short_grade(model: &Model, size: usize, budget: usize) -> String {
    let (cases, graded) = (model.cases, model.graded);
    let failing = graded.iter().filter(|g| !g.passed).count();
    let mut out = format!(
        "# hookcheck: {} implementations × {} cases\n\n{} pass every case, {failing} fail some.\n\n\
         **Cut to fit a comment** (the full report is {size} characters; `--html` writes every \
         implementation and case): the grade lists the implementations that fail first, as many \
         as fit, with their scores only.\n\n\
         | implementation | verdict | score | brief score |\n|---|:-:|---:|---:|\n",
        graded.len(),
        cases.len(),
        graded.len() - failing,
    );
    // Room for the closing line, whatever its numbers.
    let closing = 160;
    let order = model
        .rows()
        .filter(|(g, _)| !g.passed)
        .chain(model.rows().filter(|(g, _)| g.passed));
    let mut shown = 0;
    for (g, judged) in order {
        let (score, brief) = judged.grade.score();
        let row = format!(
            "| {} | {} | {} | {} |\n",
            inert::markdown(&inert::clip(&g.entry.name, SHORT_NAME)),
            if g.passed { "✓ pass" } else { "✗ fail" },
            percent(score),
            percent(brief),
        );
        if out.len() + row.len() + closing > budget {
            break;
        }
        out.push_str(&row);
        shown += 1;
    }
    let left = graded.len() - shown;
    if left > 0 {
        let passing_left = graded.iter().filter(|g| g.passed).count().min(left);
        let _ = writeln!(
            out,
            "\n*… and {left} more implementations ({passing_left} of them pass every case): \
             see the HTML report.*"
        );
    }
    out
}

/// The grade table: score and mark first, then the part columns and the brief's terms (cut to
/// its first part when `terse`).
fn grade(model: &Model, terse: bool) -> String {
    let (cases, graded) = (model.cases, model.graded);
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
    for (g, judged) in model.rows() {
        let grade = &judged.grade;
        let terms = if terse {
            inert::clip(&judged.line, 60)
        } else {
            std::borrow::Cow::Borrowed(judged.line.as_str())
        };
        let scores: Vec<String> = super::grade::score_cells(grade)
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

fn percent(score: crate::score::Score) -> String {
    match score.percent() {
        Some(p) => format!("{p}% ({})", score.show()),
        None => "-".to_string(),
    }
}

/// The case × implementation table; `failing_only` keeps the cases that do not pass everywhere.
fn table(model: &Model, failing_only: bool) -> String {
    let (cases, graded) = (model.cases, model.graded);
    let mut out = String::from("\n## Cases\n\n");
    let _ = writeln!(out, "{LEGEND}\n");
    let names: Vec<String> = graded.iter().map(|g| cell(&g.entry.name)).collect();
    let _ = writeln!(out, "| case | part | origin | {} |", names.join(" | "));
    let _ = writeln!(out, "|---|---|---|{}", ":-:|".repeat(graded.len()));
    let verdicts: Vec<&[crate::runner::Verdict]> =
        model.judged.iter().map(|j| j.verdicts.as_slice()).collect();
    for (i, c) in cases.iter().enumerate() {
        // A flaky pass passes, and is kept in the cut table all the same: it is worth a look.
        if failing_only
            && verdicts.iter().all(|v| v[i].is_success())
            && !graded.iter().any(|g| g.flaky_at(i))
        {
            continue;
        }
        let marks: Vec<&str> = verdicts
            .iter()
            .zip(graded)
            .map(|(v, g)| mark_of(&v[i], g.flaky_at(i)))
            .collect();
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
    use super::super::fixtures::{cases, graded};
    use super::*;

    /// 150 implementations: the full table would be far above a comment's limit, the report
    /// stays under it and says it was cut.
    #[test]
    fn a_large_grade_is_cut_to_fit_a_comment() {
        let cases = cases();
        let graded = graded(&cases, 150, |i| format!("submission-number-{i:03}"));
        let provenance = crate::provenance::Provenance::new(&cases, String::new(), false);
        let text = super::super::fixtures::render(&cases, &graded, &provenance, markdown);
        assert!(text.len() <= MARKDOWN_LIMIT, "{} characters", text.len());
        assert!(text.contains("Cut to fit a comment"), "{text}");
        assert!(text.contains("submission-number-149"));
        let small = super::super::fixtures::render(&cases, &graded[..2], &provenance, markdown);
        assert!(!small.contains("Cut to fit"));
        assert!(small.contains("| ✓ pass | 100% ("), "{small}");
    }

    /// 1,000 implementations with long names full of markdown, and a command line naming every
    /// one: before, the grade table and the provenance line alone were far above the limit.
    #[test]
    #[ignore = "slow: .ci/run runs it with --ignored"]
    fn a_thousand_implementations_with_long_names_stay_under_the_limit() {
        let cases = cases();
        let long = "|<b>*x*</b>`".repeat(400);
        let graded = graded(&cases, 1_000, |i| format!("sub-{i:04}-{long}"));
        let mut provenance = crate::provenance::Provenance::new(&cases, String::new(), false);
        provenance.command = (0..1_000)
            .map(|i| format!("--impl 'python3 harness/adapters/python/x.py subs/submission-{i:04}/dispatcher.py'"))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(provenance.line().len() > 60_000);
        let text = super::super::fixtures::render(&cases, &graded, &provenance, markdown);
        assert!(
            text.chars().count() <= MARKDOWN_LIMIT,
            "{} characters",
            text.len()
        );
        assert!(text.len() <= MARKDOWN_LIMIT, "{} bytes", text.len());
        assert!(
            text.contains("500 pass every case, 500 fail some."),
            "{text}"
        );
        assert!(text.contains("Cut to fit a comment"), "{text}");
        // Failing implementations come first: the first row is sub-0001, a failing one.
        let first = text.find("| sub-").expect("a row");
        assert!(
            text[first..].starts_with("| sub-0001-"),
            "{}",
            &text[first..first + 40]
        );
        let rows = text.matches("\n| sub-").count();
        assert!(rows > 50, "{rows} rows");
        assert!(
            text.contains(&format!(
                "… and {} more implementations (500 of them pass",
                1_000 - rows
            )),
            "{text}"
        );
        assert!(!text.contains("<b>"), "markdown stays inert");
        assert!(
            text.contains("[cut "),
            "the provenance line is cut and says so"
        );
        assert!(text.ends_with("*\n"), "the provenance line ends the report");
    }
}
