//! JSON lines: the events of `hookcheck check --format json` (spec/report-events.md). Every line
//! goes through [`line`], and every case has the same fields whether one implementation or many
//! were checked ([`case`]).

use super::{message, tally_by_part, verdict_word};
use crate::case::Case;
use crate::compare::{Scope, compare};
use crate::grade::Apart;
use crate::inert::{LINE_LIMIT, REPORT_LIMIT, clip};
use crate::provenance::Provenance;
use crate::runner::{Ran, Verdict};
use serde_json::{Value, json};

/// One event as one line. serde_json writes U+2028 and U+2029 raw, and tools that split on
/// Unicode line ends (JavaScript, Python's `str.splitlines`) would see a line end inside a
/// string: they are escaped. They can only occur inside strings, where `\u2028` reads back the
/// same.
pub fn line(event: &Value) -> String {
    let text = event.to_string();
    if !text.contains(['\u{2028}', '\u{2029}']) {
        return text;
    }
    text.replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

/// A case's verdict with where it comes from and, when its results differ from its
/// expectations, the first step that differs. `scope` is the implementation's (numbers
/// included); `slow`: the case timed out and passed when run again alone.
pub fn case(case: &Case, v: &Verdict, ran: &Ran, scope: Scope, slow: bool) -> Value {
    let mut event = json!({
        "name": case.name(),
        "suite": case.suite,
        "id": case.id,
        "part": case.part.as_str(),
        "origin": case.origin.as_str(),
        "rules": case.rules,
        "file": case.file.display().to_string(),
        "line": case.line,
        "verdict": verdict_word(v),
        "message": message(v),
        "slow": slow && matches!(v, Verdict::Passed),
        "step": Value::Null,
        "results": Value::Null,
    });
    // An expected failure differs as a failure does: the dashboard shows where all the same.
    let differs = matches!(v, Verdict::Failed(_) | Verdict::ExpectedFailure { .. });
    if let (true, Ran::Results(actual)) = (differs, ran)
        && let Err(m) = compare(case, actual, scope)
    {
        if let Some(step) = case.steps.get(m.step) {
            let answer = actual.get(m.step).unwrap_or(&Value::Null);
            let (operation, expected, answer) =
                (bounded(&step.op), bounded(&step.expect), bounded(answer));
            event["step"] = json!({
                "index": m.step,
                "line": step.line,
                "operation": operation.0,
                "expected": expected.0,
                "answered": m.step < actual.len(),
                "actual": answer.0,
                "cut": operation.1 || expected.1 || answer.1,
            });
        }
        if let Some((expected, actual)) = m.count {
            event["results"] = json!({"expected": expected, "actual": actual});
        }
    }
    event
}

/// A value of a step, bounded as the reports bound text (an implementation's answer may be up to
/// `--max-answer` long, for every case): each string cut to `LINE_LIMIT`, and a value still
/// longer than `REPORT_LIMIT` replaced by its JSON text, cut, in a string. `true` when cut.
fn bounded(value: &Value) -> (Value, bool) {
    fn strings(value: &Value, cut: &mut bool) -> Value {
        match value {
            Value::String(s) if s.len() > LINE_LIMIT => {
                *cut = true;
                Value::String(clip(s, LINE_LIMIT).into_owned())
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| strings(v, cut)).collect()),
            Value::Object(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(k, v)| (clip(k, LINE_LIMIT).into_owned(), strings(v, cut)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let mut cut = false;
    let value = strings(value, &mut cut);
    let text = value.to_string();
    if text.len() > REPORT_LIMIT {
        return (Value::String(clip(&text, REPORT_LIMIT).into_owned()), true);
    }
    (value, cut)
}

/// The hidden cases and the failing generated workloads of one implementation, as cases with a
/// `group` (`hidden`, `generated`). On stdout, the grader's: every field, as for public cases.
pub fn apart_cases(apart: &Apart, scope: Scope) -> Vec<Value> {
    let hidden = apart.hidden.iter().map(|o| {
        let mut c = case(&o.case, &o.verdict, &o.ran, scope, false);
        c["group"] = "hidden".into();
        c
    });
    let generated = apart.generated.iter().flat_map(|w| &w.failures).map(|f| {
        let mut c = case(&f.case, &f.verdict, &f.ran, scope, false);
        c["group"] = "generated".into();
        c
    });
    hidden
        .chain(generated)
        .map(|fields| {
            let mut event = json!({"event": "case"});
            if let (Value::Object(e), Value::Object(fields)) = (&mut event, fields) {
                e.extend(fields);
            }
            event
        })
        .collect()
}

/// The counts apart, for a summary or an `implementation` event: `hidden` (a tally) and
/// `generated` (seed, workloads asked, run, passed, failed, not run, why stopped), each only
/// when asked for.
pub fn apart_fields(event: &mut Value, apart: &Apart) {
    if !apart.hidden.is_empty() {
        event["hidden"] = apart.hidden_tally().to_json();
    }
    if let Some(w) = &apart.generated {
        event["generated"] = json!({"seed": w.asked.seed, "workloads": w.asked.count,
            "run": w.run, "passed": w.passed(), "failed": w.failures.len(),
            "not_run": w.not_run(), "stopped": w.stopped.as_deref().map(|s| clip(s, LINE_LIMIT))});
    }
}

/// A `case` event of a single-implementation run: `event` first, then [`case`]'s fields.
pub fn case_event(c: &Case, v: &Verdict, ran: &Ran, scope: Scope, slow: bool) -> Value {
    let mut event = json!({"event": "case"});
    if let (Value::Object(e), Value::Object(fields)) = (&mut event, case(c, v, ran, scope, slow)) {
        e.extend(fields);
    }
    event
}

/// Case `i` of `g`'s fields with how long it took (`seconds`, when measured) and `"flaky":
/// true` when it did not pass in the earlier run and passed when rerun (`--rerun-failed`).
pub fn flagged(mut case: Value, g: &crate::grade::Graded, i: usize) -> Value {
    if let Value::Object(fields) = &mut case {
        if let Some(s) = g.seconds(i).and_then(serde_json::Number::from_f64) {
            fields.insert("seconds".to_string(), Value::Number(s));
        }
        if g.flaky_at(i) {
            fields.insert("flaky".to_string(), Value::Bool(true));
        }
    }
    case
}

/// The `summary` event of a single-implementation run: counts per row and in total, the parts
/// the implementation does not declare (`not_implemented`), the steps left out for number
/// spelling, the verdict and where the report comes from.
pub fn json_summary(
    cases: &[Case],
    verdicts: &[Verdict],
    offered: &super::Offered,
    passed: bool,
    provenance: &Provenance,
    apart: &Apart,
) -> String {
    let (parts, total) = tally_by_part(cases, verdicts);
    let parts: serde_json::Map<String, Value> = parts
        .iter()
        .map(|(row, t)| (row.to_string(), t.to_json()))
        .collect();
    let not_implemented: Vec<&str> = offered
        .not_implemented()
        .into_iter()
        .map(crate::case::Part::as_str)
        .collect();
    let mut event = json!({"event": "summary", "parts": parts, "not_implemented": not_implemented,
       "total": total.to_json(), "steps_not_applicable": offered.spelling_steps,
       "numbers_refused": offered.numbers_refused,
       "success": passed, "seconds": provenance.seconds,
       "provenance": provenance.to_json()});
    apart_fields(&mut event, apart);
    line(&event)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unicode_line_ends_are_escaped_and_read_back() {
        let v = json!({"message": "a\u{2028}b\u{2029}c\n"});
        let text = line(&v);
        assert!(!text.contains(['\u{2028}', '\u{2029}', '\n']), "{text}");
        assert!(text.contains("a\\u2028b\\u2029c\\n"), "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).ok(), Some(v));
        assert_eq!(line(&json!("plain ✓")), "\"plain ✓\"");
    }

    #[test]
    fn a_failed_case_names_its_first_differing_step() {
        let c = crate::corpus::Corpus::builtin()
            .cases
            .into_iter()
            .find(|c| c.steps.len() > 1)
            .expect("a case with steps");
        let mut actual: Vec<Value> = c.steps.iter().map(|s| s.expect.clone()).collect();
        actual[1] = json!({"not": "expected"});
        let ran = Ran::Results(actual);
        let v = crate::runner::judge(&c, &ran, Scope::FULL);
        let e = case(&c, &v, &ran, Scope::FULL, false);
        assert_eq!(e["verdict"], "failed");
        assert_eq!(e["step"]["index"], 1);
        assert_eq!(e["step"]["operation"], c.steps[1].op);
        assert_eq!(e["step"]["expected"], c.steps[1].expect);
        assert_eq!(e["step"]["actual"], json!({"not": "expected"}));
        assert_eq!(e["step"]["answered"], true);
        assert_eq!(e["step"]["cut"], false);
        assert_eq!(e["results"], Value::Null);
        assert_eq!(e["rules"], json!(c.rules));

        let short = Ran::Results(vec![c.steps[0].expect.clone()]);
        let v = crate::runner::judge(&c, &short, Scope::FULL);
        let e = case(&c, &v, &short, Scope::FULL, false);
        assert_eq!(e["step"]["index"], 1);
        assert_eq!(e["step"]["answered"], false);
        assert_eq!(e["step"]["actual"], Value::Null);
        assert_eq!(
            e["results"],
            json!({"expected": c.steps.len(), "actual": 1})
        );

        let mut huge = Ran::Results(c.steps.iter().map(|s| s.expect.clone()).collect());
        if let Ran::Results(actual) = &mut huge {
            actual[1] = json!(["x".repeat(600_000), vec![1; 100_000]]);
        }
        let v = crate::runner::judge(&c, &huge, Scope::FULL);
        let e = case(&c, &v, &huge, Scope::FULL, false);
        assert_eq!(e["step"]["cut"], true);
        let shown = e["step"]["actual"].as_str().unwrap_or_default();
        assert!(
            shown.len() < REPORT_LIMIT + 64 && shown.contains("… [cut "),
            "{shown}"
        );
        let mut long = Ran::Results(c.steps.iter().map(|s| s.expect.clone()).collect());
        if let Ran::Results(actual) = &mut long {
            actual[1] = json!(["x".repeat(600_000)]);
        }
        let v = crate::runner::judge(&c, &long, Scope::FULL);
        let e = case(&c, &v, &long, Scope::FULL, false);
        let kept = e["step"]["actual"][0].as_str().unwrap_or_default();
        assert!(
            kept.len() < LINE_LIMIT + 64 && kept.ends_with(" bytes]"),
            "{kept}"
        );
        assert_eq!(e["step"]["cut"], true);

        let passed = Ran::Results(c.steps.iter().map(|s| s.expect.clone()).collect());
        let e = case(&c, &Verdict::Passed, &passed, Scope::FULL, true);
        assert_eq!(e["step"], Value::Null);
        assert_eq!(e["slow"], true);
    }
}
