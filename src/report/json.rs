//! JSON lines: a `case` event per case and a `summary` (the `start` event is the caller's).

use super::{message, tally_by_part, verdict_word};
use crate::case::Case;
use crate::runner::Verdict;
use serde_json::{Value, json};

/// One JSON object per line: `start`, then a `case` event per case, then `summary`.
/// `slow`: the case timed out and passed when run again alone.
pub fn json_case(case: &Case, v: &Verdict, slow: bool) -> String {
    json!({
        "event": "case",
        "name": case.name(),
        "suite": case.suite,
        "id": case.id,
        "part": case.part.as_str(),
        "origin": case.origin.as_str(),
        "file": case.file.display().to_string(),
        "line": case.line,
        "verdict": verdict_word(v),
        "message": message(v),
        "slow": slow && matches!(v, Verdict::Passed),
    })
    .to_string()
}

pub fn json_summary(
    cases: &[Case],
    verdicts: &[Verdict],
    seconds: f64,
    spelling_steps: usize,
    passed: bool,
) -> String {
    let (parts, total) = tally_by_part(cases, verdicts);
    let parts: serde_json::Map<String, Value> = parts
        .iter()
        .map(|(row, t)| (row.to_string(), t.to_json()))
        .collect();
    json!({"event": "summary", "parts": parts, "total": total.to_json(),
           "steps_not_applicable": spelling_steps, "success": passed, "seconds": seconds})
    .to_string()
}
