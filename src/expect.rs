//! Expectations: the cases an implementation is known to fail, each with a reason or a ticket,
//! kept in a TOML file. With them an implementer's CI passes while a known gap is open, and
//! fails as soon as anything else breaks; a listed case that passes is reported (and fails the
//! run with `--strict`), so the list only shrinks. The same idea as web-platform-tests'
//! expectation files and test262 runners' known-failure lists.
//!
//! ```toml
//! [[failure]]
//! case = "pause::pause-replay-resets-attempts"
//! reason = "replay keeps the attempt count"
//! ticket = "DISP-17"
//! ```

use crate::case::Case;
use crate::runner::Verdict;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expectations {
    #[serde(default, rename = "failure")]
    pub failures: Vec<Expected>,
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    /// The case's name, `<suite>::<id>`.
    pub case: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
}

impl Expected {
    /// What reports say of it: the reason, the ticket, or both.
    pub fn why(&self) -> String {
        match (&self.reason, &self.ticket) {
            (Some(r), Some(t)) => format!("{r} ({t})"),
            (Some(r), None) => r.clone(),
            (None, Some(t)) => t.clone(),
            (None, None) => "no reason given".to_string(),
        }
    }
}

impl Expectations {
    /// Reads an expectations file; every entry names a case and gives a reason or a ticket.
    pub fn load(path: &Path) -> Result<Expectations, String> {
        let text = crate::textfile::read(path, "an expectations file", "list fewer cases")
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Expectations::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Expectations, String> {
        let expectations: Expectations =
            toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())?;
        let mut seen = std::collections::BTreeSet::new();
        let blank = |t: &Option<String>| t.as_deref().is_some_and(|t| t.trim().is_empty());
        for e in &expectations.failures {
            if blank(&e.reason) || blank(&e.ticket) {
                return Err(format!(
                    "case {}: an empty reason or ticket says nothing; write why it fails",
                    e.case
                ));
            }
            if e.reason.is_none() && e.ticket.is_none() {
                return Err(format!("case {}: give a reason or a ticket", e.case));
            }
            if !seen.insert(e.case.as_str()) {
                return Err(format!("case {} is listed twice", e.case));
            }
        }
        Ok(expectations)
    }

    fn find(&self, name: &str) -> Option<&Expected> {
        self.failures.iter().find(|e| e.case == name)
    }

    /// The verdicts with the expectations applied: a listed case that fails or errors is an
    /// expected failure, one that passes an unexpected pass; anything else stays as it was.
    pub fn apply(&self, cases: &[Case], verdicts: Vec<Verdict>) -> Vec<Verdict> {
        cases
            .iter()
            .zip(verdicts)
            .map(|(case, verdict)| match (self.find(&case.name()), verdict) {
                (Some(e), Verdict::Failed(report) | Verdict::Errored(report)) => {
                    Verdict::ExpectedFailure {
                        reason: e.why(),
                        report,
                    }
                }
                (Some(e), Verdict::Passed) => Verdict::UnexpectedPass { reason: e.why() },
                (_, verdict) => verdict,
            })
            .collect()
    }

    /// Listed cases that are not among `known`, the corpus's case names: renamed or retired
    /// (a case the run's filters left out is not unknown).
    pub fn unknown<'a>(&'a self, known: &std::collections::BTreeSet<String>) -> Vec<&'a str> {
        self.failures
            .iter()
            .filter(|e| !known.contains(&e.case))
            .map(|e| e.case.as_str())
            .collect()
    }

    /// A starting file listing the cases that fail or error now, each with the first line of
    /// what went wrong as its reason, to be edited into a real one.
    pub fn from_failures(cases: &[Case], verdicts: &[Verdict]) -> Expectations {
        let failures = cases
            .iter()
            .zip(verdicts)
            .filter_map(|(case, verdict)| match verdict {
                Verdict::Failed(report) | Verdict::Errored(report) => Some(Expected {
                    case: case.name(),
                    reason: Some(first_line(report)),
                    ticket: None,
                }),
                Verdict::ExpectedFailure { .. } => None,
                _ => None,
            })
            .collect();
        Expectations { failures }
    }

    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).unwrap_or_default();
        format!(
            "# hookcheck expectations: the cases known to fail, each with a reason or a ticket.\n\
             # `hookcheck check --expect FILE` passes while they fail and reports any that pass.\n\
             # Replace each generated reason with why the case fails, or add `ticket = \"...\"`.\n\n\
             {body}"
        )
    }
}

/// The first line of a failure report, without the file:line prefix's case name repeated.
fn first_line(report: &str) -> String {
    let line = report.lines().next().unwrap_or("").trim();
    let line = line.rsplit_once(": ").map_or(line, |(_, what)| what);
    format!("fails now: {line}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;

    #[test]
    fn expectations_turn_failures_into_expected_ones_and_report_passes() {
        let cases: Vec<Case> = Corpus::builtin().cases.into_iter().take(3).collect();
        let names: Vec<String> = cases.iter().map(Case::name).collect();
        let text = format!(
            "[[failure]]\ncase = \"{}\"\nreason = \"known\"\n\n[[failure]]\ncase = \"{}\"\nticket = \"T-1\"\n\n[[failure]]\ncase = \"nowhere::gone\"\nreason = \"renamed\"\n",
            names[0], names[1]
        );
        let e = Expectations::parse(&text).expect("parses");
        let verdicts = vec![
            Verdict::Failed("f.yaml:3: x: step 2 differs".into()),
            Verdict::Passed,
            Verdict::Failed("new".into()),
        ];
        let applied = e.apply(&cases, verdicts);
        assert_eq!(
            applied[0],
            Verdict::ExpectedFailure {
                reason: "known".into(),
                report: "f.yaml:3: x: step 2 differs".into()
            }
        );
        assert_eq!(
            applied[1],
            Verdict::UnexpectedPass {
                reason: "T-1".into()
            }
        );
        assert_eq!(applied[2], Verdict::Failed("new".into()));
        let known = cases.iter().map(Case::name).collect();
        assert_eq!(e.unknown(&known), ["nowhere::gone"]);
    }

    #[test]
    fn bad_files_say_why_and_written_files_read_back() {
        let no_reason = Expectations::parse("[[failure]]\ncase = \"a::b\"\n").unwrap_err();
        assert!(no_reason.contains("reason or a ticket"), "{no_reason}");
        let empty =
            Expectations::parse("[[failure]]\ncase = \"a::b\"\nreason = \" \"\n").unwrap_err();
        assert!(empty.contains("empty reason"), "{empty}");
        let twice = Expectations::parse(
            "[[failure]]\ncase = \"a::b\"\nreason = \"r\"\n[[failure]]\ncase = \"a::b\"\nreason = \"r\"\n",
        )
        .unwrap_err();
        assert!(twice.contains("twice"), "{twice}");
        let typo =
            Expectations::parse("[[failure]]\ncase = \"a::b\"\nreson = \"r\"\n").unwrap_err();
        assert!(typo.contains("reson") && typo.contains("line 3"), "{typo}");
        let cases: Vec<Case> = Corpus::builtin().cases.into_iter().take(2).collect();
        let written = Expectations::from_failures(
            &cases,
            &[
                Verdict::Errored("f.yaml:1: x: the implementation exited".into()),
                Verdict::Passed,
            ],
        );
        let text = written.to_toml();
        assert!(text.starts_with("# hookcheck expectations"), "{text}");
        let read = Expectations::parse(&text).expect("reads back");
        assert_eq!(read, written);
        assert_eq!(read.failures.len(), 1);
        assert_eq!(
            read.failures[0].reason.as_deref(),
            Some("fails now: the implementation exited")
        );
    }
}
