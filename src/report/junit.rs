//! JUnit XML, for CI systems: a test suite per case folder, a test case per case.

use super::{Model, Tally, verdict_word};
use crate::case::Case;
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
        for (c, v) in cases.iter().zip(&judged.verdicts) {
            testcase(&mut out, &c.name(), &xml(&g.entry.name), c, v);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str(apart);
    out.push_str("</testsuites>\n");
    out
}

/// JUnit XML: a test suite per case folder, a test case per case, then `apart`'s suites.
/// `total`: the verdicts counted.
pub fn junit(
    cases: &[Case],
    verdicts: &[Verdict],
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
            t.skipped + t.not_applicable + t.expected_failures
        );
        for (c, v) in members {
            testcase(&mut out, &c.id, &format!("hookcheck.{}", xml(suite)), c, v);
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str(apart);
    out.push_str("</testsuites>\n");
    out
}

fn testcase(out: &mut String, name: &str, classname: &str, c: &Case, v: &Verdict) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{classname}\" file=\"{}\" line=\"{}\"",
        xml(name),
        xml(&c.file.display().to_string()),
        c.line
    );
    let body = match v {
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
        let xml = junit(&cases, &verdicts, total, 0.0, "");
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
