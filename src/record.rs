//! Writing case files from operations whose results come from the reference: `hookcheck record`
//! (a ticket's operations) and `hookcheck fuzz` (a shrunk mismatch). Such cases are marked
//! `recorded: unreviewed` until a person checks every result against the spec.

use crate::case::{Origin, Part};
use serde_json::Value;
use std::fmt::Write as _;

pub struct Draft<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub origin: Origin,
    pub ticket: Option<&'a str>,
    pub rules: &'a [String],
    pub notes: &'a str,
    pub operations: &'a [Value],
    /// The reference's results, one per operation.
    pub results: &'a [Value],
    /// Per operation, the clarification that fixes its result in a brief-only case (may be
    /// shorter than `operations`, or empty).
    pub clarified: &'a [Option<String>],
}

/// The part a sequence needs: pause operations need `pause`; two events of one endpoint need
/// `ordering`; anything else `retries`.
pub fn infer_part(operations: &[Value]) -> Part {
    let name = |op: &Value| op.get(0).and_then(Value::as_str).map(str::to_string);
    if operations
        .iter()
        .any(|op| matches!(name(op).as_deref(), Some("disable" | "enable")))
    {
        return Part::Pause;
    }
    let mut endpoints: Vec<&str> = operations
        .iter()
        .filter(|op| name(op).as_deref() == Some("enqueue"))
        .filter_map(|op| op.get(2).and_then(Value::as_str))
        .collect();
    let total = endpoints.len();
    endpoints.sort_unstable();
    endpoints.dedup();
    if endpoints.len() < total {
        Part::Ordering
    } else {
        Part::Retries
    }
}

/// A case file holding one case. JSON is YAML's flow syntax, so operations and results are
/// written as compact JSON and read back exactly.
pub fn case_file(draft: &Draft<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# yaml-language-server: $schema=../../spec/case.schema.json"
    );
    let _ = writeln!(
        out,
        "# Recorded from the reference: check every `expect` against spec/dispatcher.md, cite the \
         rules, then set `recorded: reviewed`."
    );
    let _ = writeln!(out, "part: {}", infer_part(draft.operations).as_str());
    let _ = writeln!(out, "cases:");
    let _ = writeln!(out, "  - id: {}", draft.id);
    let _ = writeln!(out, "    title: {}", Value::from(draft.title));
    let rules: Vec<&str> = draft.rules.iter().map(String::as_str).collect();
    let _ = writeln!(out, "    rules: [{}]", rules.join(", "));
    let _ = writeln!(out, "    origin: {}", draft.origin.as_str());
    if let Some(ticket) = draft.ticket {
        let _ = writeln!(out, "    ticket: {}", Value::from(ticket));
    }
    if !draft.notes.is_empty() {
        let _ = writeln!(out, "    notes: {}", Value::from(draft.notes));
    }
    let _ = writeln!(out, "    recorded: unreviewed");
    let _ = writeln!(out, "    steps:");
    for (i, op) in draft.operations.iter().enumerate() {
        let _ = writeln!(out, "      - op: {op}");
        let result = draft.results.get(i).cloned().unwrap_or(Value::Null);
        let _ = writeln!(out, "        expect: {result}");
        if let Some(Some(rule)) = draft.clarified.get(i) {
            let _ = writeln!(out, "        clarified: {rule}");
        }
    }
    out
}

/// `hookcheck record`: a case file from a ticket's operations (a JSON array, or one per line),
/// with the reference's results.
pub fn record(
    text: &str,
    id: &str,
    ticket: &str,
    title: Option<&str>,
    rules: &[String],
) -> Result<String, String> {
    if !crate::case::valid_id(id) {
        return Err(
            "--id takes lower-case letters, digits and dashes, such as ticket-4711".to_string(),
        );
    }
    let operations = crate::input::parse_operations(text).map_err(|e| e.to_string())?;
    if operations.is_empty() {
        return Err("no operations in the input".to_string());
    }
    let results = crate::ops::run(&operations);
    let title = title.map_or_else(|| format!("Recorded from ticket {ticket}"), str::to_string);
    Ok(case_file(&Draft {
        id,
        title: &title,
        origin: Origin::Regression,
        ticket: Some(ticket),
        rules,
        notes: "",
        operations: &operations,
        results: &results,
        clarified: &[],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{Recorded, parse};
    use serde_json::json;
    use std::path::Path;

    #[test]
    fn written_files_parse_back_to_the_same_steps() {
        let operations = vec![
            json!(["register", 0, "shop", "https://shop.example/hooks"]),
            json!(["enqueue", 0, "shop", "evt #1: \"x\"", [500, 200]]),
            json!(["enqueue", 1.5, "shop", "e2", {"a": [true, null]}]),
            json!(["status", 0, "evt #1: \"x\""]),
            json!("weird"),
        ];
        let results = crate::ops::run(&operations);
        let rules = vec!["retry.wait-schedule".to_string()];
        let text = case_file(&Draft {
            id: "ticket-1",
            title: "A title: with colon # and hash",
            origin: Origin::Regression,
            ticket: Some("SUP-1"),
            rules: &rules,
            notes: "line one\nline two",
            operations: &operations,
            results: &results,
            clarified: &[None, None, None, Some("pause.results".to_string())],
        });
        let cases =
            parse(&text, Path::new("r.yaml"), "regressions").expect("the written file parses");
        let c = &cases[0];
        assert_eq!(c.title, "A title: with colon # and hash");
        assert_eq!(c.recorded, Some(Recorded::Unreviewed));
        assert_eq!(c.notes.as_deref(), Some("line one\nline two"));
        assert_eq!(c.operations(), operations);
        let expected: Vec<Value> = c.steps.iter().map(|s| s.expect.clone()).collect();
        assert_eq!(expected, results);
        assert_eq!(c.steps[3].clarified.as_deref(), Some("pause.results"));
        assert_eq!(c.steps[2].clarified, None);
    }

    #[test]
    fn parts_are_inferred() {
        let reg = json!(["register", 0, "a", "u"]);
        let e = |ep: &str, id: &str| json!(["enqueue", 0, ep, id, [200]]);
        assert_eq!(
            infer_part(&[reg.clone(), e("a", "1"), e("b", "2")]),
            Part::Retries
        );
        assert_eq!(
            infer_part(&[reg.clone(), e("a", "1"), e("a", "2")]),
            Part::Ordering
        );
        assert_eq!(infer_part(&[reg, json!(["disable", 0, "a"])]), Part::Pause);
    }
}
