//! Reports of a check run, all from the same verdicts: the human view (failure reports, then a
//! table per part), JSON lines (one event per case and a summary), and JUnit XML.

use crate::case::{Case, Part};
use crate::runner::Verdict;
use serde_json::{Value, json};
use std::fmt::Write as _;

/// Counts of verdicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub errored: usize,
    pub skipped: usize,
    pub not_applicable: usize,
    pub not_run: usize,
}

impl Tally {
    pub fn add(&mut self, v: &Verdict) {
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed(_) => self.failed += 1,
            Verdict::Errored(_) => self.errored += 1,
            Verdict::Skipped(_) => self.skipped += 1,
            Verdict::NotApplicable => self.not_applicable += 1,
            Verdict::NotRun(_) => self.not_run += 1,
        }
    }

    pub fn success(&self) -> bool {
        self.failed + self.errored + self.not_run == 0
    }

    fn to_json(self) -> Value {
        json!({"passed": self.passed, "failed": self.failed, "errored": self.errored,
               "skipped": self.skipped, "not_applicable": self.not_applicable, "not_run": self.not_run})
    }
}

pub fn tally_by_part(cases: &[Case], verdicts: &[Verdict]) -> (Vec<(Part, Tally)>, Tally) {
    let mut parts: Vec<(Part, Tally)> = Part::ALL.iter().map(|p| (*p, Tally::default())).collect();
    let mut total = Tally::default();
    for (c, v) in cases.iter().zip(verdicts) {
        if let Some((_, t)) = parts.iter_mut().find(|(p, _)| *p == c.part) {
            t.add(v);
        }
        total.add(v);
    }
    (parts, total)
}

pub fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Passed => "passed",
        Verdict::Failed(_) => "failed",
        Verdict::Errored(_) => "errored",
        Verdict::Skipped(_) => "skipped",
        Verdict::NotApplicable => "not_applicable",
        Verdict::NotRun(_) => "not_run",
    }
}

fn message(v: &Verdict) -> &str {
    match v {
        Verdict::Failed(m) | Verdict::Errored(m) | Verdict::Skipped(m) | Verdict::NotRun(m) => m,
        Verdict::Passed | Verdict::NotApplicable => "",
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
    fn red(self, t: &str) -> String {
        self.paint("1;31", t)
    }
    fn yellow(self, t: &str) -> String {
        self.paint("1;33", t)
    }
    fn green(self, t: &str) -> String {
        self.paint("1;32", t)
    }
    pub fn warn(self, t: &str) -> String {
        self.yellow(t)
    }
    fn dim(self, t: &str) -> String {
        self.paint("2", t)
    }
    /// Colours the `-`/`+` lines of a diff.
    fn diff(self, report: &str) -> String {
        if !self.color {
            return report.to_string();
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

/// One case's lines in the human view; empty for a pass unless `verbose`.
pub fn human_case(case: &Case, v: &Verdict, style: Style, verbose: bool) -> String {
    let name = case.name();
    match v {
        Verdict::Passed if verbose => format!("{} {name}\n", style.green("ok   ")),
        Verdict::Passed | Verdict::NotApplicable => String::new(),
        Verdict::Failed(report) => {
            format!("{} {name}\n{}\n", style.red("FAIL "), style.diff(report))
        }
        Verdict::Errored(m) => format!("{} {name}\n{}\n\n", style.yellow("ERROR"), indent(m)),
        Verdict::Skipped(m) if verbose => format!("{} {name}: {m}\n", style.dim("skip ")),
        Verdict::NotRun(m) if verbose => format!("{} {name}: {m}\n", style.dim("----- ")),
        Verdict::Skipped(_) | Verdict::NotRun(_) => String::new(),
    }
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The closing table: one row per part, then the total and a one-line verdict.
/// The closing table and line; `spelling_steps` is the number of steps left out because their
/// expectations depend on number spelling, which the implementation does not see.
pub fn human_summary(
    cases: &[Case],
    verdicts: &[Verdict],
    style: Style,
    seconds: f64,
    spelling_steps: usize,
) -> String {
    let (parts, total) = tally_by_part(cases, verdicts);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n{:<9} {:>7} {:>7} {:>8} {:>8} {:>15} {:>8}",
        "part", "passed", "failed", "errored", "skipped", "not applicable", "not run"
    );
    let row = |name: &str, t: &Tally| {
        let cell = |n: usize, width: usize, paint: &dyn Fn(&str) -> String| {
            let text = format!("{n:>width$}");
            if n > 0 { paint(&text) } else { text }
        };
        format!(
            "{:<9} {} {} {} {:>8} {:>15} {}\n",
            name,
            cell(t.passed, 7, &|s| style.green(s)),
            cell(t.failed, 7, &|s| style.red(s)),
            cell(t.errored, 8, &|s| style.yellow(s)),
            t.skipped,
            t.not_applicable,
            cell(t.not_run, 8, &|s| style.yellow(s)),
        )
    };
    for (part, t) in &parts {
        out.push_str(&row(part.as_str(), t));
    }
    out.push_str(&row("total", &total));
    if let Some(reason) = verdicts.iter().find_map(|v| match v {
        Verdict::NotRun(m) => Some(m),
        _ => None,
    }) {
        let _ = writeln!(out, "\n{} cases not run: {reason}", total.not_run);
    }
    let verdict = if total.success() {
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
    if spelling_steps > 0 {
        let _ = writeln!(
            out,
            "{spelling_steps} steps not applicable: their expectations depend on how a number is \
             written, and this implementation reads number values (`numbers: values`)"
        );
    }
    out
}

/// One JSON object per line: `start`, then a `case` event per case, then `summary`.
pub fn json_case(case: &Case, v: &Verdict) -> String {
    json!({
        "event": "case",
        "name": case.name(),
        "suite": case.suite,
        "id": case.id,
        "part": case.part.as_str(),
        "origin": case.origin.as_str(),
        "file": case.file.display().to_string(),
        "line": case.line,
        "verdict": verdict_word(v),
        "message": message(v),
    })
    .to_string()
}

pub fn json_summary(
    cases: &[Case],
    verdicts: &[Verdict],
    seconds: f64,
    spelling_steps: usize,
) -> String {
    let (parts, total) = tally_by_part(cases, verdicts);
    let parts: serde_json::Map<String, Value> = parts
        .iter()
        .map(|(p, t)| (p.as_str().to_string(), t.to_json()))
        .collect();
    json!({"event": "summary", "parts": parts, "total": total.to_json(),
           "steps_not_applicable": spelling_steps, "success": total.success(), "seconds": seconds})
    .to_string()
}

/// JUnit XML: a test suite per case folder, a test case per case.
pub fn junit(cases: &[Case], verdicts: &[Verdict], seconds: f64) -> String {
    let mut suites: Vec<&str> = cases.iter().map(|c| c.suite.as_str()).collect();
    suites.sort_unstable();
    suites.dedup();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let (_, total) = tally_by_part(cases, verdicts);
    let _ = writeln!(
        out,
        "<testsuites name=\"hookcheck\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{seconds:.3}\">",
        cases.len(),
        total.failed,
        total.errored + total.not_run
    );
    for suite in suites {
        let members: Vec<(&Case, &Verdict)> = cases
            .iter()
            .zip(verdicts)
            .filter(|(c, _)| c.suite == suite)
            .collect();
        let mut t = Tally::default();
        members.iter().for_each(|(_, v)| t.add(v));
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            xml(suite),
            members.len(),
            t.failed,
            t.errored + t.not_run,
            t.skipped + t.not_applicable
        );
        for (c, v) in members {
            let _ = write!(
                out,
                "    <testcase name=\"{}\" classname=\"hookcheck.{}\" file=\"{}\" line=\"{}\"",
                xml(&c.id),
                xml(suite),
                xml(&c.file.display().to_string()),
                c.line
            );
            let body = match v {
                Verdict::Passed => None,
                Verdict::Failed(m) => Some(format!(
                    "<failure message=\"results differ\">{}</failure>",
                    xml(m)
                )),
                Verdict::Errored(m) | Verdict::NotRun(m) => Some(format!(
                    "<error message=\"{}\">{}</error>",
                    verdict_word(v),
                    xml(m)
                )),
                Verdict::Skipped(m) => Some(format!("<skipped message=\"{}\"/>", xml(m))),
                Verdict::NotApplicable => {
                    Some("<skipped message=\"part not declared\"/>".to_string())
                }
            };
            match body {
                None => out.push_str("/>\n"),
                Some(b) => {
                    let _ = writeln!(out, ">{b}</testcase>");
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters other than tab and newlines are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => out.push('\u{fffd}'),
            '\u{1b}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}
