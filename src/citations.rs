//! Whether a case cites the rules its steps depend on, as far as a step shows them: an expected
//! error names its rules in the spec's "Error codes" table; each roadmap operation, `status`,
//! `dead_letters`, `disable` and `enable` has the rules that fix its result; a `status` step on
//! a held event depends on `pause.held`, on an event blocked behind an earlier one on
//! `order.waiting-status` (seen by running the case on the reference); a `"<id> disabled"`
//! record on `gone.disable` or `auto.disable`. A rule counts as cited when it is in the case's
//! `rules` or in the step's `clarified`. What no step shows (why a due time is what it is) is
//! left to the reviewer.

use crate::case::{Case, Step};
use crate::ops::Session;
use serde_json::Value;

/// The problems of one case, each naming the step's line and the rules it could cite.
pub fn problems(c: &Case, codes: &[(String, Vec<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut reference = Session::new();
    for s in &c.steps {
        // What the reference's state says of the step, read before the step changes it.
        let waiting = is_status_of_waiting_event(&reference, s);
        reference.step(&s.op);
        let cited =
            |id: &str| c.rules.iter().any(|r| r == id) || s.clarified.as_deref() == Some(id);
        for (why, any_of) in needs(s, codes, waiting) {
            if !any_of.iter().any(|r| cited(r)) {
                out.push(format!(
                    "{}:{}: case {}: {why}, but the case cites none of {}: add one to `rules`",
                    c.file.display(),
                    s.line,
                    c.id,
                    any_of
                        .iter()
                        .map(|r| format!("`{r}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
    }
    out
}

fn is_status_of_waiting_event(reference: &Session, s: &Step) -> bool {
    let op = s.op.as_array().map(Vec::as_slice).unwrap_or_default();
    match op {
        [name, _, event] if name == "status" => event
            .as_str()
            .is_some_and(|id| reference.dispatcher().is_waiting(id)),
        _ => false,
    }
}

/// What a step's expected result depends on: for each, why, and the rules any of which covers
/// it.
fn needs(s: &Step, codes: &[(String, Vec<String>)], waiting: bool) -> Vec<(String, Vec<String>)> {
    let list = |ids: &[&str]| ids.iter().map(|r| r.to_string()).collect::<Vec<_>>();
    let name = s.op.get(0).and_then(Value::as_str).unwrap_or("");
    if let Some(code) = s.expect.as_str().and_then(|e| e.strip_prefix("error: ")) {
        return codes
            .iter()
            .find(|(c, _)| c == code)
            .map(|(_, rules)| vec![(format!("the step expects `error: {code}`"), rules.clone())])
            .unwrap_or_default();
    }
    let mut out = Vec::new();
    let by_name: &[&str] = match name {
        "status" => &["status.report"],
        "disable" => &["pause.disable", "pause.results"],
        "enable" => &[
            "pause.enable",
            "pause.enable-due",
            "pause.replay",
            "pause.no-replay",
            "pause.results",
        ],
        "dead_letters" => &["dead.list", "dead.list-endpoint"],
        "set_policy" if s.op.get(3).is_some_and(Value::is_null) => &["policy.default"],
        "set_policy" => &["policy.set", "policy.while-disabled"],
        "policy" => &["policy.get"],
        "endpoint" => &["endpoint.report"],
        "dead_letter" => &["dead-letter.report"],
        "recover" => &["recover.revive", "recover.unchanged-rest"],
        _ => &[],
    };
    if !by_name.is_empty() {
        out.push((format!("the step's result is `{name}`'s"), list(by_name)));
    }
    if name == "status" && s.expect.get("state").and_then(Value::as_str) == Some("held") {
        out.push((
            "the step expects a held event".into(),
            list(&["pause.held"]),
        ));
    }
    if waiting {
        out.push((
            "the step asks the status of an event blocked behind an earlier one".into(),
            list(&["order.waiting-status"]),
        ));
    }
    let disabled_record = s.expect.as_array().is_some_and(|records| {
        records
            .iter()
            .filter_map(Value::as_str)
            .any(|r| r.ends_with(" disabled") && !r.contains(" #"))
    });
    if name == "process" && disabled_record {
        out.push((
            "the step expects a `<endpoint_id> disabled` record".into(),
            list(&["gone.disable", "auto.disable", "gone.disabled-record"]),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::case::parse;
    use std::path::Path;

    const CASE: &str = "part: pause\ncases:\n  - id: c\n    title: t\n    rules: [RULES]\n    \
                        origin: brief\n    steps:\n      - op: [register, 0, s, u]\n        expect: true\n      \
                        - op: [enqueue, 0, s, e1, [500]]\n        expect: queued\n      \
                        - op: [enqueue, 0, s, e2, [200]]\n        expect: queued\n      \
                        - op: [process, 0]\n        expect: [\"e1 #1 500 retry at 30\"]\n      \
                        - op: [status, 0, e2]\n        expect: {state: pending, attempts: 0, next_attempt_at: 0}\n      \
                        - op: [status, 0, nope]\n        expect: \"error: unknown event\"\n        \
                        clarified: status.unknown-event\n";

    fn problems(rules: &str) -> Vec<String> {
        let text = CASE.replace("RULES", rules);
        let cases = parse(&text, Path::new("c.yaml"), "pause").expect("parses");
        let codes = crate::spec::error_codes(crate::spec::DISPATCHER_SPEC);
        super::problems(&cases[0], &codes)
    }

    #[test]
    fn a_blocked_event_s_status_needs_the_waiting_rule() {
        let found = problems("status.report");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("c.yaml:16") && found[0].contains("`order.waiting-status`"));
        assert!(problems("status.report, order.waiting-status").is_empty());
    }

    #[test]
    fn an_expected_error_needs_a_rule_of_its_code_cited_or_clarified() {
        // `clarified` covers the error step; `status.report` is missing for both status steps.
        let found = problems("order.waiting-status");
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("`status.report`"), "{found:?}");
        let text = CASE
            .replace("RULES", "status.report, order.waiting-status")
            .replace("        clarified: status.unknown-event\n", "");
        let cases = parse(&text, Path::new("c.yaml"), "pause").expect("parses");
        let codes = crate::spec::error_codes(crate::spec::DISPATCHER_SPEC);
        let found = super::problems(&cases[0], &codes);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("`error: unknown event`")
                && found[0].contains("`status.unknown-event`"),
            "{found:?}"
        );
    }
}
