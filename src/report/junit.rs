//! JUnit XML, for CI systems: a test suite per case folder, a test case per case.

use super::{Model, Tally, verdict_word};
use crate::case::Case;
use crate::grade::Graded;
use crate::inert::{clip_report, markup};
use crate::runner::Verdict;
use std::fmt::Write as _;

/// JUnit XML for many implementations: a test suite per implementation, a test case per case
/// (`<suite>::<id>`).
/// `apart`: the test suites of the hidden cases and generated workloads, if any
/// (`apart::junit`).
pub fn junit_many(model: &Model, seconds: f64, apart: &str) -> String {
    let cases = model.cases;
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(out, "<testsuites name=\"hookcheck\" time=\"{seconds:.3}\">");
    for (g, judged) in model.rows() {
        let t = judged.tally;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            xml(&g.entry.name),
            cases.len(),
            t.failed,
            t.errored + t.not_run,
            t.skipped + t.not_applicable + t.expected_failures
        );
        for (i, (c, v)) in cases.iter().zip(&judged.verdicts).enumerate() {
            let name = (c.name(), xml(&g.entry.name));
            testcase(&mut out, (&name.0, &name.1), c, v, Run::of(Some(g), i));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str(apart);
    out.push_str("</testsuites>\n");
    out
}

/// JUnit XML: a test suite per case folder, a test case per case, then `apart`'s suites.
/// `total`: the verdicts counted; `graded`: the implementation's results, for each case's time
/// and flaky pass, when there are any.
pub fn junit(
    cases: &[Case],
    verdicts: &[Verdict],
    graded: Option<&Graded>,
    total: Tally,
    seconds: f64,
    apart: &str,
) -> String {
    let mut suites: Vec<&str> = cases.iter().map(|c| c.suite.as_str()).collect();
    suites.sort_unstable();
    suites.dedup();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"hookcheck\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{seconds:.3}\">",
        cases.len(),
        total.failed,
        total.errored + total.not_run
    );
    for suite in suites {
        let members: Vec<(usize, (&Case, &Verdict))> = cases
            .iter()
            .zip(verdicts)
            .enumerate()
            .filter(|(_, (c, _))| c.suite == suite)
            .collect();
        let mut t = Tally::default();
        members.iter().for_each(|(_, (_, v))| t.add(v));
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            xml(suite),
            members.len(),
            t.failed,
            t.errored + t.not_run,
            t.skipped + t.not_applicable + t.expected_failures
        );
        for (i, (c, v)) in members {
            let classname = format!("hookcheck.{}", xml(suite));
            testcase(&mut out, (&c.id, &classname), c, v, Run::of(graded, i));
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str(apart);
    out.push_str("</testsuites>\n");
    out
}

/// What a test case shows of how it ran besides its verdict.
struct Run {
    /// Its `time`, when measured (a finite, non-negative number, as CI systems read it).
    seconds: Option<f64>,
    /// A pass that did not pass in the earlier run: said in its output.
    flaky: bool,
}

impl Run {
    /// Case `i` of `g`, or nothing to show without results.
    fn of(g: Option<&Graded>, i: usize) -> Run {
        Run {
            seconds: g.and_then(|g| g.seconds(i)),
            flaky: g.is_some_and(|g| g.flaky_at(i)),
        }
    }
}

/// A test case: `(name, classname)`, the classname already escaped.
fn testcase(out: &mut String, (name, classname): (&str, &str), c: &Case, v: &Verdict, run: Run) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{classname}\" file=\"{}\" line=\"{}\"",
        xml(name),
        xml(&c.file.display().to_string()),
        c.line
    );
    if let Some(s) = run.seconds.filter(|s| s.is_finite() && *s >= 0.0) {
        let _ = write!(out, " time=\"{s:.3}\"");
    }
    let body = match v {
        Verdict::Passed if run.flaky => Some(
            "<system-out>flaky: did not pass in the earlier run and passed when run again \
             (check --rerun-failed)</system-out>"
                .to_string(),
        ),
        Verdict::Passed => None,
        // A failure leads with where the case comes from and the rules it checks, as on the
        // terminal: a CI page then says whether the brief states what failed.
        Verdict::Failed(m) => Some(format!(
            "<failure message=\"results differ ({})\">{}{}</failure>",
            c.origin.as_str(),
            xml(&super::about_plain(c)),
            xml(m)
        )),
        Verdict::Errored(m) => Some(format!(
            "<error message=\"{} ({})\">{}{}</error>",
            verdict_word(v),
            c.origin.as_str(),
            xml(&super::about_plain(c)),
            xml(m)
        )),
        Verdict::NotRun(m) => Some(format!(
            "<error message=\"{}\">{}</error>",
            verdict_word(v),
            xml(m)
        )),
        Verdict::Skipped(m) => Some(format!("<skipped message=\"{}\"/>", xml(m))),
        // Why, in the words of every report: a part not declared is "not implemented".
        Verdict::NotApplicable(why) => {
            Some(format!("<skipped message=\"{}\"/>", xml(&why.to_string())))
        }
        Verdict::ExpectedFailure { reason, report } => Some(format!(
            "<skipped message=\"expected failure: {}\">{}</skipped>",
            xml(reason),
            xml(report)
        )),
        Verdict::UnexpectedPass { reason } => Some(format!(
            "<system-out>passes, though expected to fail: {}</system-out>",
            xml(reason)
        )),
    };
    match body {
        None => out.push_str("/>\n"),
        Some(b) => {
            let _ = writeln!(out, ">{b}</testcase>");
        }
    }
}

/// Untrusted text (names, reports, reasons) bounded and escaped: the file stays well-formed XML
/// whatever an implementation writes (see `inert::markup` for what becomes of forbidden
/// characters).
fn xml(text: &str) -> String {
    markup(&clip_report(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Before, a JUnit failure said "results differ" and nothing of where the case comes from.
    #[test]
    fn failures_say_where_the_case_comes_from_and_what_it_checks() {
        let cases: Vec<Case> = crate::corpus::Corpus::builtin()
            .cases
            .into_iter()
            .filter(|c| {
                c.id == "ticket-first-retry-a-minute-late" || c.id == "ordering-brief-example"
            })
            .collect();
        assert_eq!(cases.len(), 2);
        let verdicts = vec![
            Verdict::Failed("--- expected\n+++ actual\n".into()),
            Verdict::Errored("crash".into()),
        ];
        let mut total = Tally::default();
        verdicts.iter().for_each(|v| total.add(v));
        let xml = junit(&cases, &verdicts, None, total, 0.0, "");
        assert!(
            xml.contains("message=\"results differ (brief)\">  a case of the brief\n"),
            "{xml}"
        );
        assert!(
            xml.contains("message=\"errored (regression)\">  a regression case (a support ticket"),
            "{xml}"
        );
        assert!(xml.contains("retry.wait-schedule (brief): "), "{xml}");
    }
}
