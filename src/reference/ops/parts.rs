//! The reference as an implementation of fewer parts sees the operations: what a roadmap part it
//! does not offer would have accepted is unknown or invalid to it (`op.unknown-name`,
//! `policy.strict`, `outcomes.objects-strict`), and changes nothing. `hookcheck fuzz` takes its
//! expectations from here for an implementation that declares fewer parts than the reference.

use super::{CommandOf, Session, decode_value};
use crate::Part;
use crate::dispatcher::Error;
use serde_json::Value;

/// The part an implementation of `parts` does not offer that decides `op`'s result, and that
/// result, when the reference (every part) would answer otherwise: an operation of Parts 4, 6,
/// 7 or 8 is unknown; a policy carrying Part 5's `disable_on_gone`, Part 6's `disable_after` or
/// Part 9's `throttle`, Part 10's `breaker` or Part 11's `max_age` is invalid; an outcomes entry that is an object is invalid without Part
/// 5; an `enqueue` with a payload has too many arguments without Part 8 (`sig.absent`). A fault the
/// reference finds first (`op.error-precedence`: the arguments before the one in question) is
/// left to it, so only an operation it reads as valid up to that argument is turned down here.
pub fn absent(op: &Value, parts: &[Part]) -> Option<(Part, Error)> {
    let list = op.as_array()?;
    let name = list.first()?.as_str()?;
    let lacks = |p: Part| !parts.contains(&p);
    let owner = match name {
        "set_policy" | "policy" => Some(Part::Policy),
        "endpoint" => Some(Part::AutoDisable),
        "dead_letter" | "recover" => Some(Part::DeadLetters),
        "set_secret" | "signature" | "verify" => Some(Part::Signatures),
        _ => None,
    };
    if let Some(part) = owner.filter(|p| lacks(*p)) {
        return Some((part, Error::UnknownOperation));
    }
    // `op.arity` comes before everything but the name.
    if name == "enqueue" && list.len() == 6 && lacks(Part::Signatures) {
        return Some((Part::Signatures, Error::InvalidArguments));
    }
    match (name, decode_value(op).ok()?.command) {
        ("enqueue", CommandOf::Enqueue { .. } | CommandOf::EnqueueWithPayload { .. })
            if lacks(Part::RetryAfter)
                && list
                    .get(4)
                    .and_then(Value::as_array)
                    .is_some_and(|entries| entries.iter().any(Value::is_object)) =>
        {
            Some((Part::RetryAfter, Error::InvalidOutcomes))
        }
        (
            "set_policy",
            CommandOf::SetPolicy {
                policy: Some(policy),
                ..
            },
        ) => {
            if policy.disable_on_gone().is_some() && lacks(Part::RetryAfter) {
                Some((Part::RetryAfter, Error::InvalidPolicy))
            } else if policy.disable_after().is_some() && lacks(Part::AutoDisable) {
                Some((Part::AutoDisable, Error::InvalidPolicy))
            } else if policy.throttle().is_some() && lacks(Part::Throttle) {
                Some((Part::Throttle, Error::InvalidPolicy))
            } else if policy.breaker().is_some() && lacks(Part::Breaker) {
                Some((Part::Breaker, Error::InvalidPolicy))
            } else if policy.max_age().is_some() && lacks(Part::Expiry) {
                Some((Part::Expiry, Error::InvalidPolicy))
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `run(operations)` of an implementation that offers `parts`, answering as the spec says of
/// the parts it does not offer.
pub fn run_declared(operations: &[Value], parts: &[Part]) -> Vec<Value> {
    let mut session = Session::new();
    operations
        .iter()
        .map(|op| match absent(op, parts) {
            Some((_, error)) => super::Reply::Error(error).to_value(),
            None => session.step(op),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn results(ops: &[Value], parts: &[Part]) -> Vec<Value> {
        run_declared(ops, parts)
    }

    #[test]
    fn an_absent_part_is_unknown_or_invalid_and_changes_nothing() {
        let brief = Part::BRIEF;
        let ops = [
            json!(["register", 0, "a", "u"]),
            json!(["set_policy", 0, "a", {"attempts": 1, "waits": [5]}]),
            json!(["set_policy"]),
            json!(["policy", 0, "a"]),
            json!(["endpoint", 0, 7]),
            json!(["enqueue", 0, "a", "e1", [{"status": 500}]]),
            json!(["enqueue", 0, "a", "e1", [500, 404]]),
            json!(["process", 0]),
            json!(["process", 30]),
            json!(["recover", 30, "a", 0]),
            json!(["dead_letter", 30, "e1"]),
            json!(["status", 30, "e1"]),
        ];
        let unknown = json!("error: unknown operation");
        assert_eq!(
            results(&ops, &brief),
            vec![
                json!(true),
                unknown.clone(),
                unknown.clone(),
                unknown.clone(),
                unknown.clone(),
                json!("error: invalid outcomes"),
                json!("queued"),
                json!(["e1 #1 500 retry at 30"]),
                json!(["e1 #2 404 dead"]),
                unknown.clone(),
                unknown,
                json!({"state": "dead", "attempts": 2, "next_attempt_at": null}),
            ]
        );
        // With every part, the reference's own results.
        assert_eq!(results(&ops, &Part::ALL), crate::ops::run(&ops));
    }

    #[test]
    fn a_key_of_an_absent_part_makes_the_policy_invalid_after_the_faults_before_it() {
        let four = [Part::Retries, Part::Ordering, Part::Pause, Part::Policy];
        let six = [four.as_slice(), &[Part::AutoDisable]].concat();
        let gone = json!({"attempts": 2, "waits": [5], "disable_on_gone": false});
        let threshold = json!({"attempts": 2, "waits": [5], "disable_after": 3});
        let ops = [
            json!(["register", 0, "a", "u"]),
            json!(["set_policy", 0, "a", gone]),
            json!(["set_policy", 0, "a", threshold]),
            // Faults before the policy are the reference's: a non-string id, a ts.
            json!(["set_policy", 0, 7, gone]),
            json!(["set_policy", 0.5, "a", threshold]),
            // And after it: the unknown endpoint comes second.
            json!(["set_policy", 0, "zz", threshold]),
            json!(["policy", 0, "a"]),
        ];
        let invalid = json!("error: invalid policy");
        let arguments = json!("error: invalid arguments");
        assert_eq!(
            results(&ops, &four),
            vec![
                json!(true),
                invalid.clone(),
                invalid.clone(),
                arguments.clone(),
                arguments.clone(),
                invalid.clone(),
                json!({"attempts": 6, "waits": [30, 60, 120, 240, 300]}),
            ]
        );
        assert_eq!(
            results(&ops, &six),
            vec![
                json!(true),
                invalid,
                json!(true),
                arguments.clone(),
                arguments,
                json!("error: unknown endpoint"),
                threshold,
            ]
        );
    }
}
