//! Expected against actual results for one case: the first differing step, and a report that
//! names the case file and line, the step's operation, and a unified diff of the whole case.

use crate::case::{Case, Step};
use serde_json::Value;
use similar::TextDiff;
use std::fmt::Write as _;

/// How an implementation's JSON reader sees numbers (declared in the handshake, `numbers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Numbers {
    /// It sees how a number is written: `10.0` is not `10` (Python's `json`, serde_json).
    #[default]
    Spelling,
    /// It sees only values: `10.0`, `1e1` and `10` are one number (JavaScript's `JSON.parse`,
    /// Go's `encoding/json` into `interface{}`). Steps marked `spelling` are not applicable.
    Values,
}

impl Numbers {
    pub fn as_str(self) -> &'static str {
        match self {
            Numbers::Spelling => "spelling",
            Numbers::Values => "values",
        }
    }

    pub fn parse(text: &str) -> Option<Numbers> {
        match text {
            "spelling" => Some(Numbers::Spelling),
            "values" => Some(Numbers::Values),
            _ => None,
        }
    }
}

/// Which expectations a run compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Scope {
    /// Only what the brief states: steps marked `clarified` are not compared.
    pub brief_only: bool,
    /// Steps marked `spelling` apply only to implementations that see number spelling.
    pub numbers: Numbers,
}

impl Scope {
    /// Every step: the brief and hookcheck's clarifications.
    pub const FULL: Scope = Scope {
        brief_only: false,
        numbers: Numbers::Spelling,
    };
    /// Only what the brief states.
    pub const BRIEF: Scope = Scope {
        brief_only: true,
        numbers: Numbers::Spelling,
    };

    pub fn with_numbers(self, numbers: Numbers) -> Scope {
        Scope { numbers, ..self }
    }

    /// Whether the step is sent to the implementation at all: a step whose expectation depends
    /// on number spelling is not, to an implementation that sees only values.
    pub fn applies(self, step: &Step) -> bool {
        self.numbers == Numbers::Spelling || !step.spelling
    }

    fn compares(self, step: &Step) -> bool {
        self.applies(step) && (!self.brief_only || step.clarified.is_none())
    }

    /// What the report shows in place of a step's result when it is not compared.
    fn not_compared(self, step: &Step) -> Option<String> {
        if !self.applies(step) {
            return Some("(not applicable: the expectation depends on number spelling)".into());
        }
        match &step.clarified {
            Some(rule) if self.brief_only => Some(format!("(not compared: clarification {rule})")),
            _ => None,
        }
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
        let shown = scope
            .not_compared(step)
            .unwrap_or_else(|| show(result(i, step)));
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
        assert_eq!(compare(&c, &good, Scope::FULL), Ok(()));
        let other_register = [
            json!("ok"),
            json!("queued"),
            json!(["e #1 500 retry at 30"]),
        ];
        assert_eq!(compare(&c, &other_register, Scope::BRIEF), Ok(()));
        assert_eq!(
            compare(&c, &other_register, Scope::FULL),
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
        let m = compare(&c, &bad, Scope::FULL).expect_err("differs");
        assert_eq!(
            m,
            Mismatch {
                step: 2,
                count: None
            }
        );
        let report = render(&c, &bad, &m, Scope::FULL);
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
        let m = compare(&c, &short, Scope::FULL).expect_err("short");
        assert_eq!(
            m,
            Mismatch {
                step: 2,
                count: Some((3, 2))
            }
        );
        assert!(render(&c, &short, &m, Scope::FULL).contains("(no result)"));
        let long = [
            json!(true),
            json!("queued"),
            json!(["e #1 500 retry at 30"]),
            json!(1),
        ];
        let m = compare(&c, &long, Scope::FULL).expect_err("long");
        assert_eq!(
            m,
            Mismatch {
                step: 3,
                count: Some((3, 4))
            }
        );
        assert!(render(&c, &long, &m, Scope::FULL).contains("+#4 (no operation) => 1"));
    }
}
