//! `hookcheck diff OLD NEW`: what changed between two runs' bundles, implementation by
//! implementation and case by case: the pairs that stopped passing (regressions), the ones that
//! started (fixes), failures whose report changed, cases and implementations added or removed.
//! Pairs are matched by implementation name and case name, so the runs may have different
//! corpora, filters or machines.

use crate::bundle::{Bundle, CaseResult};
use crate::inert;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// How one pair changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Passed (or did not apply) before, does not pass now.
    Regression,
    /// A case the old run did not have, failing now.
    NewFailure,
    /// Did not pass before, passes now.
    Fix,
    /// Fails in both, with a different report.
    Changed,
    /// A case the old run did not have, passing now.
    Added,
    /// A case the new run no longer has.
    Removed,
}

impl Change {
    pub fn title(self) -> &'static str {
        match self {
            Change::Regression => "regressions (passed before, not now)",
            Change::NewFailure => "new cases that fail",
            Change::Fix => "fixes (failed before, pass now)",
            Change::Changed => "failures whose report changed",
            Change::Added => "new cases that pass",
            Change::Removed => "cases no longer run",
        }
    }

    /// Whether the change fails `hookcheck diff`: something that passed, or a new case, fails.
    pub fn fails(self) -> bool {
        matches!(self, Change::Regression | Change::NewFailure)
    }
}

/// One changed pair: the implementation, the case, the verdicts before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub change: Change,
    pub implementation: String,
    pub case: String,
    pub before: String,
    pub after: String,
}

/// What changed between two runs.
#[derive(Debug, Default)]
pub struct Diff {
    pub rows: Vec<Row>,
    /// Implementations only one of the runs has.
    pub implementations_added: Vec<String>,
    pub implementations_removed: Vec<String>,
}

/// A verdict that does not fail a run, as `--format json` words verdicts.
pub fn passes(verdict: &str) -> bool {
    matches!(
        verdict,
        "passed" | "not_applicable" | "expected_failure" | "unexpected_pass"
    )
}

/// Compares two bundles; shards are refused (merge them first).
pub fn diff(old: &Bundle, new: &Bundle) -> Result<Diff, String> {
    for (which, b) in [("OLD", old), ("NEW", new)] {
        if let Some(s) = &b.shard {
            return Err(format!(
                "{which} is shard {}/{} of a run: merge its shards first (hookcheck merge \
                 --bundle FILE ...)",
                s.index, s.count
            ));
        }
    }
    let by_name = |b: &Bundle| -> BTreeMap<String, BTreeMap<String, CaseResult>> {
        b.implementations
            .iter()
            .map(|i| {
                let cases = i
                    .cases
                    .iter()
                    .map(|c| (c.case.clone(), c.clone()))
                    .collect();
                (i.name.clone(), cases)
            })
            .collect()
    };
    let (before, after) = (by_name(old), by_name(new));
    let mut d = Diff::default();
    for name in before.keys().filter(|n| !after.contains_key(*n)) {
        d.implementations_removed.push(name.clone());
    }
    for (name, now) in &after {
        let Some(then) = before.get(name) else {
            d.implementations_added.push(name.clone());
            continue;
        };
        let row = |change, case: &str, before: &str, after: &str| Row {
            change,
            implementation: name.clone(),
            case: case.to_string(),
            before: before.to_string(),
            after: after.to_string(),
        };
        for (case, was) in then {
            if !now.contains_key(case) {
                d.rows.push(row(Change::Removed, case, &was.verdict, "-"));
            }
        }
        for (case, is) in now {
            let change = match then.get(case) {
                None if passes(&is.verdict) => Some(Change::Added),
                None => Some(Change::NewFailure),
                Some(was) => match (passes(&was.verdict), passes(&is.verdict)) {
                    (true, false) => Some(Change::Regression),
                    (false, true) => Some(Change::Fix),
                    (false, false) if was.verdict != is.verdict || was.report != is.report => {
                        Some(Change::Changed)
                    }
                    _ => None,
                },
            };
            if let Some(change) = change {
                let before = then.get(case).map_or("-", |w| w.verdict.as_str());
                d.rows.push(row(change, case, before, &is.verdict));
            }
        }
    }
    d.rows.sort_by(|a, b| {
        (a.change, &a.implementation, &a.case).cmp(&(b.change, &b.implementation, &b.case))
    });
    Ok(d)
}

impl Diff {
    /// Whether anything that passed no longer does (exit status 1).
    pub fn regressed(&self) -> bool {
        self.rows.iter().any(|r| r.change.fails())
    }

    fn count(&self, change: Change) -> usize {
        self.rows.iter().filter(|r| r.change == change).count()
    }

    fn summary(&self) -> String {
        let mut parts: Vec<String> = [
            Change::Regression,
            Change::NewFailure,
            Change::Fix,
            Change::Changed,
            Change::Added,
            Change::Removed,
        ]
        .iter()
        .map(|c| (self.count(*c), c))
        .filter(|(n, _)| *n > 0)
        .map(|(n, c)| format!("{n} {}", c.title()))
        .collect();
        if !self.implementations_added.is_empty() {
            parts.push(format!(
                "{} implementations added",
                self.implementations_added.len()
            ));
        }
        if !self.implementations_removed.is_empty() {
            parts.push(format!(
                "{} implementations removed",
                self.implementations_removed.len()
            ));
        }
        if parts.is_empty() {
            "no change".to_string()
        } else {
            parts.join(", ")
        }
    }

    /// For a terminal: one line per changed pair, grouped by change, then the verdict.
    pub fn human(&self) -> String {
        let mut out = String::new();
        let mut last = None;
        for r in &self.rows {
            if last != Some(r.change) {
                let _ = writeln!(out, "\n{}:", r.change.title());
                last = Some(r.change);
            }
            // Every field comes from a bundle, which anyone may have written.
            let shown = |t: &str| inert::terminal_line(&inert::clip(t, inert::LINE_LIMIT));
            let _ = writeln!(
                out,
                "  {}  {}  {} -> {}",
                shown(&r.implementation),
                shown(&r.case),
                shown(&r.before),
                shown(&r.after)
            );
        }
        for (what, names) in [
            ("implementations added", &self.implementations_added),
            ("implementations removed", &self.implementations_removed),
        ] {
            if !names.is_empty() {
                let shown: Vec<String> = names
                    .iter()
                    .map(|n| inert::terminal_line(&inert::clip(n, inert::LINE_LIMIT)))
                    .collect();
                let _ = writeln!(out, "\n{what}: {}", shown.join(", "));
            }
        }
        let verdict = if self.regressed() {
            "REGRESSED"
        } else {
            "NO REGRESSION"
        };
        let _ = writeln!(out, "\n{verdict}: {}", self.summary());
        out
    }

    /// For a pull-request comment: the summary, then a table per change, within
    /// [`crate::report::MARKDOWN_LIMIT`] (rows past it are counted, not shown).
    pub fn markdown(&self) -> String {
        let limit = crate::report::MARKDOWN_LIMIT;
        let mut out = format!(
            "# hookcheck diff: {}\n\n{}\n",
            if self.regressed() {
                "regressed"
            } else {
                "no regression"
            },
            inert::markdown(&self.summary())
        );
        let mut left_out = 0;
        let mut last = None;
        for r in &self.rows {
            let mut piece = String::new();
            if last != Some(r.change) {
                let _ = write!(
                    piece,
                    "\n## {}\n\n| implementation | case | before | after |\n|---|---|---|---|\n",
                    r.change.title()
                );
            }
            let _ = writeln!(
                piece,
                "| {} | {} | {} | {} |",
                inert::markdown_cell(&r.implementation),
                inert::markdown_cell(&r.case),
                inert::markdown_cell(&r.before),
                inert::markdown_cell(&r.after)
            );
            // Room kept for the closing line.
            if out.len() + piece.len() + 200 > limit {
                left_out += 1;
                continue;
            }
            last = Some(r.change);
            out.push_str(&piece);
        }
        if left_out > 0 {
            let _ = writeln!(
                out,
                "\n*… and {left_out} more changed pairs, left out to fit a comment: `hookcheck \
                 diff` on a terminal lists them all.*"
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::{Implementation, RanRecord, Run, Started};

    fn bundle(results: &[(&str, &str, &str)]) -> Bundle {
        let mut implementations: Vec<Implementation> = Vec::new();
        for (name, case, verdict) in results {
            let imp = match implementations.iter_mut().find(|i| i.name == *name) {
                Some(i) => i,
                None => {
                    implementations.push(Implementation {
                        index: implementations.len(),
                        name: name.to_string(),
                        command: None,
                        require_parts: Vec::new(),
                        started: Started::Error(String::new()),
                        expectations: None,
                        unknown: Vec::new(),
                        passed: false,
                        cases: Vec::new(),
                    });
                    implementations.last_mut().expect("just pushed")
                }
            };
            imp.cases.push(CaseResult {
                case: case.to_string(),
                verdict: verdict.to_string(),
                report: None,
                ran: RanRecord::Spelling,
                slow: false,
                seconds: 0.0,
                restarts: 0,
                retries: 0,
                flaky: false,
            });
        }
        Bundle {
            format: crate::bundle::FORMAT.into(),
            version: crate::bundle::VERSION,
            hookcheck: String::new(),
            protocol: 1,
            run: Run {
                corpus: String::new(),
                sources: String::new(),
                case_files: Default::default(),
                cases: Vec::new(),
                filters: String::new(),
                scope: "full".into(),
                strict: false,
                allow_skips: false,
                implementations: 0,
                single: false,
            },
            shard: None,
            command: String::new(),
            started: String::new(),
            seconds: 0.0,
            jobs: 1,
            implementations,
        }
    }

    #[test]
    fn a_planted_regression_fails_and_a_fix_does_not() {
        let old = bundle(&[("a", "s::x", "passed"), ("a", "s::y", "failed")]);
        let regressed = bundle(&[("a", "s::x", "failed"), ("a", "s::y", "failed")]);
        let d = diff(&old, &regressed).expect("diffs");
        assert!(d.regressed());
        assert_eq!(d.rows[0].change, Change::Regression);
        let fixed = bundle(&[("a", "s::x", "passed"), ("a", "s::y", "passed")]);
        let d = diff(&old, &fixed).expect("diffs");
        assert!(!d.regressed());
        assert_eq!(d.rows.len(), 1);
        assert_eq!(d.rows[0].change, Change::Fix);
        assert!(
            d.human().contains("NO REGRESSION: 1 fixes"),
            "{}",
            d.human()
        );
        assert!(diff(&old, &old).is_ok_and(|d| d.rows.is_empty() && !d.regressed()));
    }

    #[test]
    fn cases_and_implementations_added_and_removed_are_told() {
        let old = bundle(&[("a", "s::x", "passed"), ("gone", "s::x", "passed")]);
        let new = bundle(&[
            ("a", "s::z", "failed"),
            ("a", "s::w", "passed"),
            ("new", "s::x", "passed"),
        ]);
        let d = diff(&old, &new).expect("diffs");
        let changes: Vec<Change> = d.rows.iter().map(|r| r.change).collect();
        assert_eq!(
            changes,
            [Change::NewFailure, Change::Added, Change::Removed],
            "{d:?}"
        );
        assert!(d.regressed(), "a new case that fails fails the diff");
        assert_eq!(d.implementations_added, ["new"]);
        assert_eq!(d.implementations_removed, ["gone"]);
    }

    #[test]
    fn hostile_names_are_inert_and_the_markdown_fits_a_comment() {
        let evil = "a|b\u{1b}[2K<img src=x>";
        let old = bundle(&[(evil, "s::x", "passed")]);
        let new = bundle(&[(evil, "s::x", evil)]);
        let d = diff(&old, &new).expect("diffs");
        assert!(!d.human().contains('\u{1b}'), "{}", d.human());
        let md = d.markdown();
        assert!(!md.contains("<img") && !md.contains("a|b"), "{md}");
        let many: Vec<(String, String)> = (0..20_000)
            .map(|i| ("impl".to_string(), format!("s::case-{i}")))
            .collect();
        let old = bundle(
            &many
                .iter()
                .map(|(a, c)| (a.as_str(), c.as_str(), "passed"))
                .collect::<Vec<_>>(),
        );
        let new = bundle(
            &many
                .iter()
                .map(|(a, c)| (a.as_str(), c.as_str(), "failed"))
                .collect::<Vec<_>>(),
        );
        let md = diff(&old, &new).expect("diffs").markdown();
        assert!(md.len() <= crate::report::MARKDOWN_LIMIT, "{}", md.len());
        assert!(md.contains("more changed pairs"), "{md:.200}");
    }

    #[test]
    fn a_shard_is_refused_until_merged() {
        let mut shard = bundle(&[]);
        shard.shard = Some(crate::bundle::ShardRecord {
            index: 1,
            count: 2,
            method: "slice".into(),
            by: "case".into(),
        });
        let e = diff(&shard, &bundle(&[])).expect_err("a shard");
        assert!(e.contains("merge its shards first"), "{e}");
    }
}
