//! Expected against actual results for one case: the first differing step, and a report that
//! names the case file and line, the step's operation, and a unified diff of the whole case.

use crate::case::{Case, Step};
use serde_json::Value;
use similar::TextDiff;
use std::fmt::Write as _;

/// Which expectations a run compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scope {
    /// Every step (the brief and hookcheck's clarifications).
    #[default]
    Full,
    /// Only what the brief states: steps marked `clarified` are not compared.
    BriefOnly,
}

impl Scope {
    fn compares(self, step: &Step) -> bool {
        self == Scope::Full || step.clarified.is_none()
    }
}

/// How a case's results differ from its expectations.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// 0-based index of the first compared step whose result differs (or is missing).
    pub step: usize,
    /// Set when the implementation returned a different number of results than operations.
    pub count: Option<(usize, usize)>,
}

/// `Ok` when every compared step matches and there is one result per operation.
pub fn compare(case: &Case, actual: &[Value], scope: Scope) -> Result<(), Mismatch> {
    let count = (actual.len() != case.steps.len()).then_some((case.steps.len(), actual.len()));
    let first = case
        .steps
        .iter()
        .enumerate()
        .find(|(i, step)| scope.compares(step) && actual.get(*i) != Some(&step.expect))
        .map(|(i, _)| i);
    match (first, count) {
        (None, None) => Ok(()),
        (Some(step), count) => Err(Mismatch { step, count }),
        (None, Some((expected, got))) => Err(Mismatch {
            step: expected.min(got),
            count,
        }),
    }
}

/// The failure report: where, what, and the diff of the whole case.
pub fn render(case: &Case, actual: &[Value], mismatch: &Mismatch, scope: Scope) -> String {
    let mut out = String::new();
    let step = case.steps.get(mismatch.step);
    let line = step.map_or(case.line, |s| s.line);
    let _ = writeln!(
        out,
        "{}:{}: {} ({}): step {} differs",
        case.file.display(),
        line,
        case.name(),
        case.title,
        mismatch.step + 1
    );
    if let Some((expected, got)) = mismatch.count {
        let _ = writeln!(out, "  {got} results for {expected} operations");
    }
    if let Some(step) = step {
        let _ = writeln!(out, "  operation: {}", step.op);
        let _ = writeln!(out, "  expected:  {}", step.expect);
        let _ = writeln!(out, "  actual:    {}", show(actual.get(mismatch.step)));
    }
    let expected_text = transcript(case, |_, s| Some(&s.expect), scope);
    let actual_text = transcript(case, |i, _| actual.get(i), scope);
    let mut extra = String::new();
    for (i, r) in actual.iter().enumerate().skip(case.steps.len()) {
        let _ = writeln!(extra, "#{} (no operation) => {r}", i + 1);
    }
    let actual_text = actual_text + &extra;
    let diff = TextDiff::from_lines(&expected_text, &actual_text);
    let _ = write!(
        out,
        "\n{}",
        diff.unified_diff()
            .context_radius(3)
            .header("expected", "actual")
    );
    out
}

/// One line per step: `#n <operation> => <result>`.
fn transcript<'a>(
    case: &'a Case,
    result: impl Fn(usize, &'a Step) -> Option<&'a Value>,
    scope: Scope,
) -> String {
    let mut out = String::new();
    for (i, step) in case.steps.iter().enumerate() {
        let shown = match &step.clarified {
            Some(rule) if !scope.compares(step) => format!("(not compared: clarification {rule})"),
            _ => show(result(i, step)),
        };
        let _ = writeln!(out, "#{} {} => {}", i + 1, step.op, shown);
    }
    out
}

fn show(v: Option<&Value>) -> String {
    v.map_or_else(|| "(no result)".to_string(), Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::parse;
    use serde_json::json;
    use std::path::Path;

    fn case() -> Case {
        let text = r#"part: retries
cases:
  - id: c
    title: T
    rules: []
    origin: brief
    steps:
      - op: [register, 0, s, u]
        expect: true
        clarified: x.y
      - op: [enqueue, 0, s, e, [500]]
        expect: queued
      - op: [process, 0]
        expect: ["e #1 500 retry at 30"]
"#;
        parse(text, Path::new("cases/retries/f.yaml"), "retries")
            .expect("parses")
            .remove(0)
    }

    #[test]
    fn equal_results_pass_and_clarified_steps_are_skipped_in_brief_scope() {
        let c = case();
        let good = [
            json!(true),
            json!("queued"),
            json!(["e #1 500 retry at 30"]),
        ];
        assert_eq!(compare(&c, &good, Scope::Full), Ok(()));
        let other_register = [
            json!("ok"),
            json!("queued"),
            json!(["e #1 500 retry at 30"]),
        ];
        assert_eq!(compare(&c, &other_register, Scope::BriefOnly), Ok(()));
        assert_eq!(
            compare(&c, &other_register, Scope::Full),
            Err(Mismatch {
                step: 0,
                count: None
            })
        );
    }

    #[test]
    fn report_points_at_file_line_step_and_diff() {
        let c = case();
        let bad = [
            json!(true),
            json!("queued"),
            json!(["e #1 500 retry at 60"]),
        ];
        let m = compare(&c, &bad, Scope::Full).expect_err("differs");
        assert_eq!(
            m,
            Mismatch {
                step: 2,
                count: None
            }
        );
        let report = render(&c, &bad, &m, Scope::Full);
        assert!(
            report.starts_with("cases/retries/f.yaml:13: retries::c (T): step 3 differs\n"),
            "{report}"
        );
        assert!(
            report.contains("  operation: [\"process\",0]\n"),
            "{report}"
        );
        assert!(
            report.contains("-#3 [\"process\",0] => [\"e #1 500 retry at 30\"]\n"),
            "{report}"
        );
        assert!(
            report.contains("+#3 [\"process\",0] => [\"e #1 500 retry at 60\"]\n"),
            "{report}"
        );
        assert!(report.contains(" #2 "), "context lines are shown: {report}");
    }

    #[test]
    fn wrong_result_counts_are_mismatches() {
        let c = case();
        let short = [json!(true), json!("queued")];
        let m = compare(&c, &short, Scope::Full).expect_err("short");
        assert_eq!(
            m,
            Mismatch {
                step: 2,
                count: Some((3, 2))
            }
        );
        assert!(render(&c, &short, &m, Scope::Full).contains("(no result)"));
        let long = [
            json!(true),
            json!("queued"),
            json!(["e #1 500 retry at 30"]),
            json!(1),
        ];
        let m = compare(&c, &long, Scope::Full).expect_err("long");
        assert_eq!(
            m,
            Mismatch {
                step: 3,
                count: Some((3, 4))
            }
        );
        assert!(render(&c, &long, &m, Scope::Full).contains("+#4 (no operation) => 1"));
    }
}
