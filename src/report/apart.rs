//! What every report says of the cases graded apart from the public corpus: the grader's hidden
//! cases and the generated workloads. The terminal and the JSON stream are the grader's and show
//! everything; the report files (JUnit, markdown, HTML), which a grader may hand to submitters,
//! show a hidden case's name and verdict only, unless `--hidden-detail diff`.

use super::{Style, mark, message, verdict_word};
use crate::fuzz::workloads::{Generated, Workloads};
use crate::grade::{Apart, Graded, Outcome};
use crate::inert::{self, LINE_LIMIT, clip, clip_report, markup, terminal_line};
use crate::runner::Verdict;
use std::fmt::Write as _;

/// What the report files show of a failing hidden case.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HiddenDetail {
    /// Its name and verdict: nothing of its operations or expectations.
    #[default]
    None,
    /// Its report too (the operation that differs, the expected and actual results, the diff).
    Diff,
}

/// The lines for the closing summary: the hidden cases' counts, the generated workloads'.
pub fn lines(apart: &Apart, style: Style) -> Vec<String> {
    let mut out = Vec::new();
    let paint = |ok: bool, line: String| {
        if ok { line } else { style.red(&line) }
    };
    if let Some(line) = apart.hidden_line() {
        let ok = apart.hidden.iter().all(|o| o.verdict.is_success());
        out.push(paint(ok, line));
    }
    if let Some(w) = &apart.generated {
        out.push(paint(w.success(), w.line()));
        if let Some(why) = &w.stopped {
            out.push(style.warn(&format!(
                "generated workloads stopped: {}",
                terminal_line(&clip(why, LINE_LIMIT))
            )));
        }
    }
    out
}

/// The failure reports of the hidden cases and of the generated workloads, each group under
/// its heading: on the grader's terminal, in full. Generated failures that were not shrunk are
/// named on one line.
pub fn human(apart: &Apart, style: Style, verbose: bool) -> String {
    let mut out = String::new();
    let hidden: String = apart
        .hidden
        .iter()
        .map(|o| super::human_case(&o.case, &o.verdict, style, verbose))
        .collect();
    if !hidden.is_empty() {
        let _ = write!(out, "\n-- hidden cases --\n{hidden}");
    }
    if let Some(w) = apart.generated.as_ref().filter(|w| !w.failures.is_empty()) {
        let _ = writeln!(out, "\n-- generated workloads (seed {}) --", w.asked.seed);
        let (shown, named) = w
            .failures
            .split_at(w.failures.len().min(crate::fuzz::workloads::SHRUNK));
        for g in shown {
            out.push_str(&human_generated(g, style));
        }
        if !named.is_empty() {
            let names: Vec<&str> = named.iter().map(|g| g.case.id.as_str()).collect();
            let _ = writeln!(
                out,
                "{} {} more failing, not shrunk (--format json and the report files hold \
                 them): {}\n",
                style.red("FAIL "),
                named.len(),
                clip(&names.join(", "), LINE_LIMIT)
            );
        }
    }
    out
}

fn human_generated(g: &Generated, style: Style) -> String {
    let word = match g.verdict {
        Verdict::Errored(_) => style.warn("ERROR"),
        _ => style.red("FAIL "),
    };
    format!(
        "{word} {}\n{}\n",
        terminal_line(&g.case.id),
        style.diff(&message(&g.verdict))
    )
}

/// A hidden case's report as the files show it.
fn hidden_message(o: &Outcome, detail: HiddenDetail) -> String {
    match detail {
        HiddenDetail::Diff => message(&o.verdict).into_owned(),
        HiddenDetail::None if o.verdict.is_success() => String::new(),
        HiddenDetail::None => {
            "a hidden case: its content is the grader's (--hidden-detail diff shows it)".to_string()
        }
    }
}

/// JUnit test suites for one implementation's hidden cases and generated workloads; `owner`
/// prefixes the suite names when many implementations are graded.
pub fn junit(g: &Graded, detail: HiddenDetail, owner: Option<&str>) -> String {
    let prefix = owner.map_or(String::new(), |o| format!("{o} "));
    let mut out = String::new();
    let apart = &g.apart;
    if !apart.hidden.is_empty() {
        let t = apart.hidden_tally();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}hidden\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">",
            xml(&prefix),
            apart.hidden.len(),
            t.failed,
            t.errored + t.not_run,
            t.skipped + t.not_applicable + t.expected_failures
        );
        for o in &apart.hidden {
            let body = hidden_message(o, detail);
            testcase(
                &mut out,
                &o.case.name(),
                "hookcheck.hidden",
                &o.verdict,
                &body,
            );
        }
        out.push_str("  </testsuite>\n");
    }
    if let Some(w) = &apart.generated {
        let errors = w
            .failures
            .iter()
            .filter(|f| !matches!(f.verdict, Verdict::Failed(_)))
            .count() as u64;
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}generated\" tests=\"{}\" failures=\"{}\" errors=\"{}\">",
            xml(&prefix),
            w.asked.count,
            w.failures.len() as u64 - errors,
            errors + w.not_run()
        );
        let mut failures = w.failures.iter().peekable();
        for k in 0..w.asked.count {
            let name = crate::fuzz::workloads::id(w.asked.seed, k);
            match failures.next_if(|f| f.index == k) {
                Some(f) => testcase(
                    &mut out,
                    &name,
                    "hookcheck.generated",
                    &f.verdict,
                    &message(&f.verdict),
                ),
                None if k < w.run => {
                    testcase(&mut out, &name, "hookcheck.generated", &Verdict::Passed, "")
                }
                None => {
                    let why = w.stopped.clone().unwrap_or_default();
                    testcase(
                        &mut out,
                        &name,
                        "hookcheck.generated",
                        &Verdict::NotRun(why.clone()),
                        &why,
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out
}

fn testcase(out: &mut String, name: &str, classname: &str, v: &Verdict, body: &str) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{classname}\"",
        xml(name)
    );
    let inner = match v {
        Verdict::Passed | Verdict::UnexpectedPass { .. } => None,
        Verdict::Failed(_) => Some(format!(
            "<failure message=\"results differ\">{}</failure>",
            xml(body)
        )),
        Verdict::Errored(_) | Verdict::NotRun(_) => Some(format!(
            "<error message=\"{}\">{}</error>",
            verdict_word(v),
            xml(body)
        )),
        Verdict::Skipped(_) | Verdict::NotApplicable(_) | Verdict::ExpectedFailure { .. } => {
            Some(format!("<skipped message=\"{}\"/>", verdict_word(v)))
        }
    };
    match inner {
        None => out.push_str("/>\n"),
        Some(b) => {
            let _ = writeln!(out, ">{b}</testcase>");
        }
    }
}

fn xml(text: &str) -> String {
    markup(&clip_report(text))
}

/// The markdown sections: a hidden case × implementation table of marks, and a line per
/// implementation for the generated workloads, naming the failing ones.
pub fn markdown(graded: &[Graded]) -> String {
    let mut out = String::new();
    let cell = inert::markdown_cell;
    if let Some(first) = graded.iter().find(|g| !g.apart.hidden.is_empty()) {
        let names: Vec<String> = graded.iter().map(|g| cell(&g.entry.name)).collect();
        let _ = writeln!(
            out,
            "\n## Hidden cases\n\nCases the submissions never saw, graded apart.\n\n\
             | hidden case | {} |\n|---|{}",
            names.join(" | "),
            ":-:|".repeat(graded.len())
        );
        for (i, o) in first.apart.hidden.iter().enumerate() {
            let marks: Vec<&str> = graded
                .iter()
                .map(|g| g.apart.hidden.get(i).map_or(" ", |o| mark(&o.verdict)))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} |",
                inert::markdown_code(&clip(&o.case.name(), LINE_LIMIT)),
                marks.join(" | ")
            );
        }
    }
    let generated: Vec<(&Graded, &Workloads)> = graded
        .iter()
        .filter_map(|g| g.apart.generated.as_ref().map(|w| (g, w)))
        .collect();
    if let Some((_, w)) = generated.first() {
        let _ = writeln!(
            out,
            "\n## Generated workloads\n\n{} random workloads of seed {}, judged against the \
             reference.\n\n| implementation | passed | failed | not run | failing |\n\
             |---|---:|---:|---:|---|",
            w.asked.count, w.asked.seed
        );
        for (g, w) in generated {
            let failing: Vec<&str> = w.failures.iter().map(|f| f.case.id.as_str()).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                cell(&g.entry.name),
                w.passed(),
                w.failures.len(),
                w.not_run(),
                cell(&clip(&failing.join(", "), 200))
            );
        }
    }
    out
}

/// The HTML section: per implementation, the hidden cases' verdicts (and reports with
/// `--hidden-detail diff`) and the failing generated workloads with their shrunk form.
pub fn html(graded: &[Graded], detail: HiddenDetail) -> String {
    let esc = |t: &str| markup(&clip(t, LINE_LIMIT));
    let report = |t: &str| markup(&clip_report(t));
    let any = graded
        .iter()
        .any(|g| !g.apart.hidden.is_empty() || g.apart.generated.is_some());
    if !any {
        return String::new();
    }
    let mut out = String::from(
        "<section id=\"apart\"><h2>Hidden cases and generated workloads</h2>\
         <p class=\"note\">Graded apart from the public corpus: cases the submissions never saw.</p>\n",
    );
    for g in graded {
        let _ = write!(out, "<h3>{}</h3>", esc(&g.entry.name));
        if let Some(line) = g.apart.hidden_line() {
            let _ = write!(out, "<p>{}</p><ul>", esc(&line));
            for o in &g.apart.hidden {
                let body = hidden_message(o, detail);
                let _ = write!(
                    out,
                    "<li><code>{}</code> {}",
                    esc(&o.case.name()),
                    verdict_word(&o.verdict)
                );
                if !body.is_empty() {
                    let _ = write!(out, "<pre>{}</pre>", report(&body));
                }
                out.push_str("</li>");
            }
            out.push_str("</ul>\n");
        }
        if let Some(w) = &g.apart.generated {
            let _ = write!(out, "<p>{}</p>", esc(&w.line()));
            if let Some(why) = &w.stopped {
                let _ = write!(out, "<p>stopped: {}</p>", esc(why));
            }
            for f in &w.failures {
                let _ = write!(
                    out,
                    "<details><summary><code>{}</code> {}</summary><pre>{}</pre></details>",
                    esc(&f.case.id),
                    verdict_word(&f.verdict),
                    report(&message(&f.verdict))
                );
            }
            out.push('\n');
        }
    }
    out.push_str("</section>\n");
    out
}
