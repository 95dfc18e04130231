//! The human view: each failing case's report, then a table per part and one closing line.

use super::{Offered, Style, Tally, tally_by_part};
use crate::case::{Case, Part};
use crate::inert::{clip, clip_report, terminal, terminal_line};
use crate::runner::Verdict;
use std::fmt::Write as _;

/// One case's lines in the human view; empty for a pass unless `verbose`. The case's name (its
/// suite is a folder's name) and every message are shown inert: see `inert::terminal`.
pub fn human_case(case: &Case, v: &Verdict, style: Style, verbose: bool) -> String {
    let name = terminal_line(&clip(&case.name(), crate::inert::LINE_LIMIT));
    let line = |m: &str| terminal_line(&clip(m, crate::inert::LINE_LIMIT));
    match v {
        Verdict::Passed if verbose => format!("{} {name}\n", style.green("ok   ")),
        Verdict::Passed | Verdict::NotApplicable(_) => String::new(),
        Verdict::Failed(report) => format!(
            "{} {name}\n{}{}\n",
            style.red("FAIL "),
            about(case, style),
            style.diff(report)
        ),
        Verdict::Errored(m) => format!(
            "{} {name}\n{}{}\n\n",
            style.yellow("ERROR"),
            about(case, style),
            indent(&terminal(&clip_report(m)))
        ),
        Verdict::Skipped(m) if verbose => format!("{} {name}: {}\n", style.dim("skip "), line(m)),
        Verdict::NotRun(m) if verbose => format!("{} {name}: {}\n", style.dim("----- "), line(m)),
        Verdict::ExpectedFailure { reason, .. } if verbose => {
            format!(
                "{} {name}: expected to fail: {}\n",
                style.dim("xfail"),
                line(reason)
            )
        }
        Verdict::UnexpectedPass { reason } => format!(
            "{} {name}: passes, though expected to fail ({}): take it off the list\n",
            style.yellow("XPASS"),
            line(reason)
        ),
        Verdict::Skipped(_) | Verdict::NotRun(_) | Verdict::ExpectedFailure { .. } => String::new(),
    }
}

/// Why a failing case matters: whether the brief states it or a clarification decided it, and
/// the rules it checks with the first sentence of each.
fn about(case: &Case, style: Style) -> String {
    let mut out = format!("  {}\n", style.dim(&origin_phrase(case)));
    if !case.without.is_empty() {
        let parts: Vec<String> = case
            .without
            .iter()
            .map(|p| format!("`{p}` (Part {})", p.number()))
            .collect();
        let _ = writeln!(
            out,
            "  {}",
            style.dim(&format!(
                "a case for implementations without {}: one that fails it answers as if it \
                 offered the part; if it does, declare the part (the handshake's parts, the \
                 adapter's `--parts`, `HOOKCHECK_PARTS`); `--part` only selects which cases run",
                parts.join(", ")
            ))
        );
    }
    for id in &case.rules {
        let line = match crate::spec::rule(id) {
            Some(rule) => format!("  {id} ({}): {}", rule.basis, rule.summary),
            None => format!("  {id}"),
        };
        let _ = writeln!(out, "{}", style.dim(&terminal_line(&line)));
    }
    out
}

/// Where a case comes from, in the words every report and every way in uses: the brief, a
/// clarification, a regression (a ticket), fuzzing; and whether its expectations were recorded
/// from the reference rather than worked out by hand.
pub fn origin_phrase(case: &Case) -> String {
    let origin = match case.origin {
        crate::case::Origin::Brief => "a case of the brief",
        crate::case::Origin::Clarification => {
            "a clarification case (what the brief leaves open, decided in spec/)"
        }
        crate::case::Origin::Regression => {
            "a regression case (a support ticket turned into a case)"
        }
        crate::case::Origin::Fuzz => "a case found by fuzzing",
    };
    match case.recorded {
        Some(crate::case::Recorded::Unreviewed) => {
            format!("{origin}, recorded from the reference and not yet reviewed")
        }
        Some(_) => format!("{origin}, recorded from the reference and reviewed"),
        None => origin.to_string(),
    }
}

/// [`origin_phrase`] and the rules a case checks with the first sentence of each, without
/// colour: what a failure report outside the terminal (JUnit, the library harness) leads with.
pub fn about_plain(case: &Case) -> String {
    about(case, Style { color: false })
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The closing table: one row per part (a part the implementation does not declare marked
/// `not implemented`; its cases are counted not applicable), then the total and a one-line
/// verdict; `passed` is the run's verdict (expectations and `--strict` applied); `offered` says
/// what the implementation declares and how many steps were left out for number spelling.
/// `notes` (hookcheck's own sentences: the grade in the brief's terms, hints) come between the
/// table and the closing line, which stays the last line.
pub fn human_summary(
    cases: &[Case],
    verdicts: &[Verdict],
    style: Style,
    seconds: f64,
    offered: &Offered,
    passed: bool,
    notes: &[String],
) -> String {
    let spelling_steps = offered.spelling_steps;
    let (parts, total) = tally_by_part(cases, verdicts);
    let not_implemented: Vec<&str> = offered
        .not_implemented()
        .into_iter()
        .map(Part::as_str)
        .collect();
    // As wide as the longest row name, whatever parts there are.
    let first = parts
        .iter()
        .map(|(name, _)| name.len())
        .chain(["total".len(), 9])
        .max()
        .unwrap_or(9);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{:<first$} {:>7} {:>7} {:>8} {:>8} {:>15} {:>8}",
        "part", "passed", "failed", "errored", "skipped", "not applicable", "not run"
    );
    let row = |name: &str, t: &Tally| {
        let cell = |n: usize, width: usize, paint: &dyn Fn(&str) -> String| {
            let text = format!("{n:>width$}");
            if n > 0 { paint(&text) } else { text }
        };
        let mark = if not_implemented.contains(&name) {
            format!("  {}", style.dim("not implemented"))
        } else {
            String::new()
        };
        format!(
            "{:<first$} {} {} {} {:>8} {:>15} {}{mark}\n",
            name,
            cell(t.passed, 7, &|s| style.green(s)),
            cell(t.failed, 7, &|s| style.red(s)),
            cell(t.errored, 8, &|s| style.yellow(s)),
            t.skipped,
            t.not_applicable,
            cell(t.not_run, 8, &|s| style.yellow(s)),
        )
    };
    for (name, t) in &parts {
        out.push_str(&row(name, t));
    }
    out.push_str(&row("total", &total));
    if let Some(reason) = verdicts.iter().find_map(|v| match v {
        Verdict::NotRun(m) => Some(m),
        _ => None,
    }) {
        let _ = writeln!(
            out,
            "\n{} not run: {}",
            crate::wording::count(total.not_run, "case", "cases"),
            terminal_line(&clip(reason, crate::inert::LINE_LIMIT))
        );
    }
    // hookcheck's notes, then the counts beside the table's, then the closing line, last.
    let mut lines: Vec<String> = notes.to_vec();
    if total.expected_failures + total.unexpected_passes > 0 {
        lines.push(format!(
            "expectations: {} failed as expected, {} passed though expected to fail{}",
            total.expected_failures,
            total.unexpected_passes,
            if total.unexpected_passes > 0 {
                " (take them off the list)"
            } else {
                ""
            }
        ));
    }
    if spelling_steps > 0 {
        lines.push(format!(
            "{} left out of the cases that ran (not a case count): their expectations depend \
             on how a number is written, and this implementation reads number values \
             (`numbers: values`; --numbers strict judges them)",
            crate::wording::count(spelling_steps, "step", "steps")
        ));
    }
    if offered.numbers_refused {
        lines.push(
            "this implementation declares `numbers: values`, refused by --numbers strict: every \
             step was judged, those whose expectations depend on how a number is written included"
                .to_string(),
        );
    }
    if !lines.is_empty() {
        out.push('\n');
    }
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    let verdict = if passed {
        style.green("PASSED")
    } else {
        style.red("FAILED")
    };
    // One closing line that names every count of the table (a case that errored or was not run
    // is not called failed), then the size and time of the run.
    let plural = if cases.len() == 1 { "case" } else { "cases" };
    let _ = writeln!(
        out,
        "\n{verdict}: {} passed, {} failed, {} errored, {} not run, {} skipped, {} not applicable \
         ({} {plural} in {seconds:.2} s)",
        total.passed,
        total.failed,
        total.errored,
        total.not_run,
        total.skipped,
        total.not_applicable,
        cases.len(),
    );
    out
}
