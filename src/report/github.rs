//! CI-native output. For GitHub Actions (`--format github`): a workflow command per failing
//! case, `::error file=...,line=...,title=...::message`, which GitHub shows as an annotation on
//! the case file's line, and the markdown grade for the job's step summary. For any README: a
//! shields.io endpoint badge per implementation (`--badge DIR`).

use super::{Model, message};
use crate::compare::compare;
use crate::inert;
use crate::runner::{Ran, Verdict};
use serde_json::json;
use std::fmt::Write as _;

/// The most annotations written: GitHub shows at most 10 errors per step and 50 per job, so a
/// thousand say nothing more than fifty.
pub const MOST: usize = 50;

/// A workflow command's message: `%`, CR and LF escaped as the runner reads them.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as [`data`], and `:` and `,` too, which end it.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One `::error` line per failing or erroring case of every implementation (at most [`MOST`],
/// then a line saying how many more), pointing at the first differing step's line in the case
/// file, or at the case's own line.
pub fn annotations(model: &Model) -> String {
    let mut out = String::new();
    let mut shown = 0;
    let mut more = 0;
    let many = model.graded.len() > 1;
    for (g, judged) in model.rows() {
        let scope = g.scope.with_numbers(g.numbers());
        for ((c, v), ran) in model.cases.iter().zip(&judged.verdicts).zip(&g.ran) {
            if v.is_success() {
                continue;
            }
            if shown == MOST {
                more += 1;
                continue;
            }
            shown += 1;
            let line = match (v, ran) {
                (Verdict::Failed(_), Ran::Results(actual)) => compare(c, actual, scope)
                    .err()
                    .and_then(|m| c.steps.get(m.step))
                    .map_or(c.line, |s| s.line),
                _ => c.line,
            };
            let name = if many {
                format!("{}: {}", g.entry.name, c.name())
            } else {
                c.name()
            };
            // Untrusted text (names, what an implementation printed) is made visible first,
            // then cut, then escaped for the runner.
            let title = inert::clip(&inert::terminal_line(&name), inert::LINE_LIMIT).into_owned();
            let text = inert::clip_report(&inert::terminal(&message(v))).into_owned();
            let _ = writeln!(
                out,
                "::error file={},line={line},title={}::{}",
                property(&inert::terminal_line(&c.file.display().to_string())),
                property(&title),
                data(&text)
            );
        }
    }
    if more > 0 {
        let _ = writeln!(
            out,
            "::warning title=hookcheck::{more} more failing cases are not annotated (GitHub shows \
             {MOST} per job): the step summary and the reports list them all"
        );
    }
    out
}

/// How every badge file starts (its keys in this order): what may be written over.
pub const BADGE_START: &str = "{\"schemaVersion\":1,\"label\":\"hookcheck\",";

/// A shields.io endpoint badge (https://shields.io/badges/endpoint-badge) for each
/// implementation: its score and verdict, with a file name made of its name's safe characters.
pub fn badges(model: &Model) -> Vec<(String, String)> {
    let mut used = std::collections::BTreeSet::new();
    model
        .rows()
        .map(|(g, judged)| {
            let (score, _) = judged.grade.score();
            let message = match (score.percent(), &g.started) {
                (_, Err(_)) => "could not start".to_string(),
                (Some(p), _) => format!("{p}% ({})", score.show()),
                (None, _) => "no case".to_string(),
            };
            let color = if g.passed { "brightgreen" } else { "red" };
            let badge = format!(
                "{BADGE_START}\"message\":{},\"color\":\"{color}\"}}\n",
                json!(message)
            );
            (file_name(&g.entry.name, &mut used), badge)
        })
        .collect()
}

/// `name` as a file name: letters, digits, `-`, `_` and `.` kept (never leading dots), anything
/// else `-`, at most 100 bytes, and made unique among `used` with a number.
fn file_name(name: &str, used: &mut std::collections::BTreeSet<String>) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .take(100)
        .collect();
    let safe = safe.trim_start_matches('.');
    let stem = if safe.is_empty() {
        "implementation"
    } else {
        safe
    };
    let mut candidate = format!("{stem}.json");
    let mut n = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{stem}-{n}.json");
        n += 1;
    }
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_commands_cannot_be_ended_or_forged_by_untrusted_text() {
        assert_eq!(data("50%\r\n::error::x"), "50%25%0D%0A::error::x");
        assert_eq!(property("a,b:c\nd"), "a%2Cb%3Ac%0Ad");
    }

    #[test]
    fn badge_file_names_are_safe_and_unique() {
        let mut used = Default::default();
        let names: Vec<String> = ["../../etc/passwd", "a b", "a-b", "", "...", "x\u{1b}[2K"]
            .iter()
            .map(|n| file_name(n, &mut used))
            .collect();
        assert_eq!(
            names,
            [
                "-..-etc-passwd.json",
                "a-b.json",
                "a-b-2.json",
                "implementation.json",
                "implementation-2.json",
                "x--2K.json"
            ]
        );
        assert!(
            names
                .iter()
                .all(|n| !n.contains('/') && !n.starts_with('.'))
        );
    }

    #[test]
    fn annotations_point_at_the_step_and_stop_at_the_most_github_shows() {
        let cases = super::super::fixtures::cases();
        let graded = super::super::fixtures::graded(&cases, 2, |i| format!("impl,{i}"));
        let provenance = crate::provenance::Provenance::new(&cases, String::new(), false);
        let text = super::super::fixtures::render(&cases, &graded, &provenance, annotations);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), MOST + 1, "{text:.500}");
        assert!(
            lines[0].starts_with("::error file=cases/") && lines[0].contains("title=impl%2C1%3A "),
            "{}",
            lines[0]
        );
        assert!(
            lines[MOST].starts_with("::warning title=hookcheck::"),
            "{text:.300}"
        );
    }
}
