//! A simulated webhook dispatcher: retries on a per-endpoint policy (by default capped
//! exponential backoff) that honours Retry-After and may pause an endpoint on 410 Gone or after
//! too many consecutive failures, per-endpoint delivery order, pausing endpoints with optional
//! replay of dead letters, dead letters' details and recovery, a token bucket per endpoint
//! that throttles its deliveries, a circuit breaker per endpoint that holds its deliveries
//! after a burst of failures, Standard Webhooks signatures with rotating secrets, and a maximum
//! event age past which a pending event expires.
//!
//! [`run`] is the whole public interface: it replays a list of JSON operations against a fresh
//! dispatcher and returns one JSON result per operation.

mod breaker;
mod decode;
mod dispatcher;
mod error;
mod schedule;
mod signatures;
mod throttle;

use serde_json::{Map, Value};

use decode::{Command, Operation};
use dispatcher::{DeadLetter, Dispatcher, EndpointReport, Status};
use error::Error;
use schedule::Policy;
use signatures::Headers;

/// Executes `operations` in order against a fresh dispatcher, one result per operation.
///
/// Each operation is `[name, ts, ...args]`. A rejected operation yields the string
/// `"error: <code>"`, leaves the dispatcher untouched, and the run goes on.
pub fn run(operations: &[Value]) -> Vec<Value> {
    let mut dispatcher = Dispatcher::new();
    operations
        .iter()
        .map(|operation| {
            decode::decode(operation)
                .and_then(|operation| execute(&mut dispatcher, operation))
                .unwrap_or_else(|error| Value::String(format!("error: {}", error.code())))
        })
        .collect()
}

fn execute(
    dispatcher: &mut Dispatcher,
    Operation { ts, command }: Operation,
) -> Result<Value, Error> {
    Ok(match command {
        Command::Register { endpoint } => {
            dispatcher.register(&endpoint)?;
            Value::Bool(true)
        }
        Command::Enqueue {
            endpoint,
            event,
            outcomes,
            payload,
        } => {
            dispatcher.enqueue(ts, &endpoint, &event, outcomes, payload)?;
            Value::from("queued")
        }
        Command::Process => strings(dispatcher.process(ts)),
        Command::Status { event } => status_object(dispatcher.status(&event)?),
        Command::Disable { endpoint } => {
            dispatcher.disable(&endpoint)?;
            Value::Bool(true)
        }
        Command::Enable {
            endpoint,
            replay_dead,
        } => {
            dispatcher.enable(ts, &endpoint, replay_dead)?;
            Value::Bool(true)
        }
        Command::DeadLetters { endpoint } => strings(dispatcher.dead_letters(endpoint.as_deref())?),
        Command::SetPolicy { endpoint, policy } => {
            dispatcher.set_policy(ts, &endpoint, policy)?;
            Value::Bool(true)
        }
        Command::Policy { endpoint } => policy_object(dispatcher.policy(&endpoint)?),
        Command::Endpoint { endpoint } => {
            endpoint_object(dispatcher.endpoint_report(ts, &endpoint)?)
        }
        Command::DeadLetter { event } => dead_letter_object(dispatcher.dead_letter(&event)?),
        Command::Recover { endpoint, since } => {
            Value::from(dispatcher.recover(ts, &endpoint, since)?)
        }
        Command::SetSecret { endpoint, secret } => {
            dispatcher.set_secret(ts, &endpoint, secret)?;
            Value::Bool(true)
        }
        Command::Signature { event, attempt } => {
            headers_object(dispatcher.signature(&event, attempt)?)
        }
        // The receiver's side: `ts` is its clock, and no dispatcher state is read.
        Command::Verify {
            secrets,
            headers,
            body,
        } => {
            signatures::verify(ts, &secrets, &headers, &body)?;
            Value::Bool(true)
        }
    })
}

fn strings(items: Vec<String>) -> Value {
    Value::Array(items.into_iter().map(Value::String).collect())
}

/// The policy with exactly the keys `set_policy` was given (`policy.get`).
fn policy_object(policy: &Policy) -> Value {
    let mut object = Map::new();
    object.insert("attempts".into(), Value::from(policy.attempts()));
    object.insert("waits".into(), Value::from(policy.waits()));
    if let Some(disable_on_gone) = policy.disable_on_gone() {
        object.insert("disable_on_gone".into(), Value::Bool(disable_on_gone));
    }
    if let Some(disable_after) = policy.disable_after() {
        object.insert("disable_after".into(), Value::from(disable_after));
    }
    if let Some(throttle) = policy.throttle() {
        let mut bucket = Map::new();
        bucket.insert("burst".into(), Value::from(throttle.burst()));
        bucket.insert("interval".into(), Value::from(throttle.interval()));
        object.insert("throttle".into(), Value::Object(bucket));
    }
    if let Some(breaker) = policy.breaker() {
        let mut numbers = Map::new();
        numbers.insert("failures".into(), Value::from(breaker.failures()));
        numbers.insert("window".into(), Value::from(breaker.window()));
        numbers.insert("open_for".into(), Value::from(breaker.open_for()));
        numbers.insert("probes".into(), Value::from(breaker.probes()));
        object.insert("breaker".into(), Value::Object(numbers));
    }
    if let Some(max_age) = policy.max_age() {
        object.insert("max_age".into(), Value::from(max_age));
    }
    Value::Object(object)
}

fn endpoint_object(report: EndpointReport) -> Value {
    let mut object = Map::new();
    object.insert("disabled".into(), Value::Bool(report.reason.is_some()));
    object.insert(
        "reason".into(),
        report
            .reason
            .map_or(Value::Null, |reason| Value::from(reason.as_str())),
    );
    object.insert(
        "consecutive_failures".into(),
        Value::from(report.consecutive_failures),
    );
    // Only while the policy in force has a breaker; otherwise Part 6's three keys alone.
    if let Some(shown) = report.breaker {
        let mut breaker = Map::new();
        breaker.insert("state".into(), Value::from(shown.as_str()));
        breaker.insert(
            "until".into(),
            shown.until().map_or(Value::Null, Value::from),
        );
        object.insert("breaker".into(), Value::Object(breaker));
    }
    Value::Object(object)
}

fn dead_letter_object(letter: DeadLetter<'_>) -> Value {
    let mut object = Map::new();
    object.insert("endpoint".into(), Value::from(letter.endpoint));
    object.insert("attempts".into(), Value::from(letter.attempts));
    object.insert(
        "last_status".into(),
        letter.last_status.map_or(Value::Null, Value::from),
    );
    object.insert("died_at".into(), Value::from(letter.died_at));
    // Only an expiry names its reason; a death by an attempt keeps Part 7's four keys
    // (`expiry.reason-key`).
    if letter.expired {
        object.insert("reason".into(), Value::from("expired"));
    }
    Value::Object(object)
}

/// Exactly the three headers, every value a string (`sig.timestamp-string`).
fn headers_object(headers: Headers) -> Value {
    let mut object = Map::new();
    object.insert(signatures::ID_HEADER.into(), Value::from(headers.id));
    object.insert(
        signatures::TIMESTAMP_HEADER.into(),
        Value::from(headers.timestamp),
    );
    object.insert(
        signatures::SIGNATURE_HEADER.into(),
        Value::from(headers.signature),
    );
    Value::Object(object)
}

fn status_object(status: Status) -> Value {
    let mut object = Map::new();
    object.insert("state".into(), Value::from(status.state.as_str()));
    object.insert("attempts".into(), Value::from(status.attempts));
    object.insert(
        "next_attempt_at".into(),
        status.next_attempt_at.map_or(Value::Null, Value::from),
    );
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::run;
    use serde_json::{Value, json};

    fn ops(value: Value) -> Vec<Value> {
        match value {
            Value::Array(items) => items,
            other => panic!("operations must be a JSON array, got {other}"),
        }
    }

    #[test]
    fn worked_example_retries() {
        let operations = ops(json!([
            ["register", 0, "shop", "https://shop.example/hooks"],
            ["enqueue", 0, "shop", "evt-1", [503, 503, 200]],
            ["process", 0],
            ["process", 30],
            ["process", 89],
            ["process", 90],
            ["status", 90, "evt-1"]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            ["evt-1 #1 503 retry at 30"],
            ["evt-1 #2 503 retry at 90"],
            [],
            ["evt-1 #3 200 delivered"],
            {"state": "delivered", "attempts": 3, "next_attempt_at": null}
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn worked_example_ordering() {
        let operations = ops(json!([
            ["register", 0, "shop", "https://shop.example/hooks"],
            ["enqueue", 0, "shop", "evt-1", [500, 200]],
            ["enqueue", 0, "shop", "evt-2", [200]],
            ["process", 0],
            ["process", 30]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            "queued",
            ["evt-1 #1 500 retry at 30"],
            ["evt-1 #2 200 delivered", "evt-2 #1 200 delivered"]
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn worked_example_pause() {
        let operations = ops(json!([
            ["register", 0, "shop", "https://shop.example/hooks"],
            ["enqueue", 0, "shop", "evt-1", [404]],
            ["process", 0],
            ["disable", 10, "shop"],
            ["enqueue", 20, "shop", "evt-2", [200]],
            ["enable", 50, "shop", true],
            ["process", 50]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            ["evt-1 #1 404 dead"],
            true,
            "queued",
            true,
            ["evt-1 #1 404 dead", "evt-2 #1 200 delivered"]
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn status_while_waiting_held_and_revived() {
        let operations = ops(json!([
            ["register", 0, "shop", "u"],
            ["enqueue", 0, "shop", "evt-1", [500, 200]],
            ["enqueue", 0, "shop", "evt-2", [404]],
            ["process", 0],
            ["status", 0, "evt-2"],
            ["process", 30],
            ["disable", 40, "shop"],
            ["status", 40, "evt-1"],
            ["status", 40, "evt-2"],
            ["dead_letters", 40, "shop"],
            ["enable", 50, "shop", true],
            ["status", 50, "evt-2"],
            ["dead_letters", 50]
        ]));
        let expected = ops(json!([
            true,
            "queued",
            "queued",
            ["evt-1 #1 500 retry at 30"],
            {"state": "pending", "attempts": 0, "next_attempt_at": 0},
            ["evt-1 #2 200 delivered", "evt-2 #1 404 dead"],
            true,
            {"state": "delivered", "attempts": 2, "next_attempt_at": null},
            {"state": "dead", "attempts": 1, "next_attempt_at": null},
            ["evt-2"],
            true,
            {"state": "pending", "attempts": 0, "next_attempt_at": 50},
            []
        ]));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn errors_leave_state_untouched() {
        let operations = ops(json!([
            ["register", 0, "shop", "u"],
            ["register", 0, "shop", "v"],
            ["enqueue", 0, "nope", "evt-1", [200]],
            ["enqueue", 0, "shop", "evt-1", [200]],
            ["enqueue", 0, "shop", "evt-1", [200]],
            ["enable", 0, "shop", 1],
            ["enable", 0, "shop", false],
            ["status", 0, "evt-9"],
            ["dead_letters", 0, "nope"],
            ["frobnicate", 0],
            ["process", 0]
        ]));
        let expected = ops(json!([
            true,
            "error: duplicate endpoint",
            "error: unknown endpoint",
            "queued",
            "error: duplicate event",
            "error: invalid arguments",
            "error: not disabled",
            "error: unknown event",
            "error: unknown endpoint",
            "error: unknown operation",
            ["evt-1 #1 200 delivered"]
        ]));
        assert_eq!(run(&operations), expected);
    }

    fn check(operations: Value, expected: Value) {
        let (operations, expected) = (ops(operations), ops(expected));
        assert_eq!(operations.len(), expected.len(), "test table is misaligned");
        let results = run(&operations);
        for ((operation, result), want) in operations.iter().zip(&results).zip(&expected) {
            assert_eq!(result, want, "for {operation}");
        }
    }

    // Part 4: retry policy per endpoint.

    #[test]
    fn roadmap_policy_example() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 3, "waits": [10]}],
                ["enqueue", 0, "shop", "evt-1", [500]],
                ["process", 0],
                ["process", 10],
                ["process", 20],
                ["status", 20, "evt-1"],
                ["dead_letters", 20]
            ]),
            json!([
                true,
                true,
                "queued",
                ["evt-1 #1 500 retry at 10"],
                ["evt-1 #2 500 retry at 20"],
                ["evt-1 #3 500 dead"],
                {"state": "dead", "attempts": 3, "next_attempt_at": null},
                ["evt-1"]
            ]),
        );
    }

    #[test]
    fn waits_may_pass_the_default_cap_and_the_last_repeats() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 4, "waits": [5, 3600]}],
                ["enqueue", 0, "shop", "evt-1", [0]],
                ["process", 0],
                ["process", 5],
                ["process", 3605],
                ["process", 7205]
            ]),
            json!([
                true,
                true,
                "queued",
                ["evt-1 #1 0 retry at 5"],
                ["evt-1 #2 0 retry at 3605"],
                ["evt-1 #3 0 retry at 7205"],
                ["evt-1 #4 0 dead"]
            ]),
        );
    }

    #[test]
    fn one_attempt_policy_kills_at_the_first_retryable_failure() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [1]}],
                ["enqueue", 0, "shop", "evt-1", [429]],
                ["enqueue", 0, "shop", "evt-2", [200]],
                ["process", 0]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["evt-1 #1 429 dead", "evt-2 #1 200 delivered"]
            ]),
        );
    }

    #[test]
    fn policy_query_echoes_exactly_what_was_given() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["policy", 0, "shop"],
                ["set_policy", 0, "shop", {"attempts": 2, "waits": [7, 8, 9, 10], "disable_on_gone": false}],
                ["policy", 0, "shop"],
                ["policy", 0, "mall"],
                // The whole policy is replaced: disable_on_gone is not carried over.
                ["set_policy", 0, "shop", {"waits": [1], "attempts": 9}],
                ["policy", 0, "shop"],
                ["set_policy", 0, "shop", {"attempts": 2, "waits": [3], "disable_on_gone": true}],
                ["set_policy", 0, "shop", null],
                ["policy", 0, "shop"]
            ]),
            json!([
                true,
                true,
                {"attempts": 6, "waits": [30, 60, 120, 240, 300]},
                true,
                {"attempts": 2, "waits": [7, 8, 9, 10], "disable_on_gone": false},
                {"attempts": 6, "waits": [30, 60, 120, 240, 300]},
                true,
                {"attempts": 9, "waits": [1]},
                true,
                true,
                {"attempts": 6, "waits": [30, 60, 120, 240, 300]}
            ]),
        );
    }

    #[test]
    fn a_new_policy_moves_no_scheduled_retry_and_kills_nothing_by_itself() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "evt-1", [500, 500, 500, 500]],
                ["enqueue", 0, "shop", "evt-2", [500, 500, 500, 200]],
                ["process", 0],
                ["process", 30],
                ["process", 90],
                // evt-1 has made 3 attempts, more than the new policy allows, and is due at 210.
                ["set_policy", 100, "shop", {"attempts": 2, "waits": [1000]}],
                ["status", 100, "evt-1"],
                ["process", 209],
                // Its scheduled attempt still happens, fails, and is its last; evt-2 then fails
                // its first attempt under the new policy and waits 1000.
                ["process", 210],
                ["process", 1210],
                ["status", 1210, "evt-2"]
            ]),
            json!([
                true,
                "queued",
                "queued",
                ["evt-1 #1 500 retry at 30"],
                ["evt-1 #2 500 retry at 90"],
                ["evt-1 #3 500 retry at 210"],
                true,
                {"state": "pending", "attempts": 3, "next_attempt_at": 210},
                [],
                ["evt-1 #4 500 dead", "evt-2 #1 500 retry at 1210"],
                ["evt-2 #2 500 dead"],
                {"state": "dead", "attempts": 2, "next_attempt_at": null}
            ]),
        );
    }

    #[test]
    fn a_scheduled_attempt_beyond_the_new_policy_may_still_deliver() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "evt-1", [500, 500, 200]],
                ["process", 0],
                ["process", 30],
                ["set_policy", 40, "shop", {"attempts": 1, "waits": [5]}],
                ["process", 90]
            ]),
            json!([
                true,
                "queued",
                ["evt-1 #1 500 retry at 30"],
                ["evt-1 #2 500 retry at 90"],
                true,
                ["evt-1 #3 200 delivered"]
            ]),
        );
    }

    #[test]
    fn held_events_follow_a_policy_set_while_disabled_and_replay_restarts_under_it() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "evt-1", [404, 503]],
                ["enqueue", 0, "shop", "evt-2", [503]],
                ["process", 0],
                ["disable", 1, "shop"],
                ["set_policy", 2, "shop", {"attempts": 3, "waits": [50, 70]}],
                ["status", 2, "evt-2"],
                // evt-1 is revived from attempt 1; evt-2 keeps its count of 1.
                ["enable", 100, "shop", true],
                ["process", 100],
                ["process", 169],
                ["process", 170],
                ["dead_letters", 170, "shop"]
            ]),
            json!([
                true,
                "queued",
                "queued",
                ["evt-1 #1 404 dead", "evt-2 #1 503 retry at 30"],
                true,
                true,
                {"state": "held", "attempts": 1, "next_attempt_at": null},
                true,
                // evt-1 (#1, a 404 again) dies, then evt-2's #2 fails: the wait after 2
                // failures under the new policy is 70.
                ["evt-1 #1 404 dead", "evt-2 #2 503 retry at 170"],
                [],
                ["evt-2 #3 503 dead"],
                ["evt-1", "evt-2"]
            ]),
        );
    }

    #[test]
    fn policies_are_per_endpoint() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["set_policy", 0, "shop", {"attempts": 2, "waits": [10]}],
                ["enqueue", 0, "shop", "a", [500]],
                ["enqueue", 0, "mall", "b", [500]],
                ["process", 0],
                ["process", 10],
                ["process", 30]
            ]),
            json!([
                true,
                true,
                true,
                "queued",
                "queued",
                ["a #1 500 retry at 10", "b #1 500 retry at 30"],
                ["a #2 500 dead"],
                ["b #2 500 retry at 90"]
            ]),
        );
    }

    #[test]
    fn set_policy_and_policy_errors_in_precedence_and_without_effect() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 2, "waits": [10]}],
                // Argument checks, in argument order, before any state.
                ["set_policy", 0, 5, "junk"],
                ["set_policy", 0, "nope", "junk"],
                ["set_policy", 0, "nope", {"attempts": 2, "waits": [10]}],
                ["set_policy", 0.5, 5, "junk"],
                ["set_policy", 0, "shop"],
                ["set_policy", 0, "shop", null, null],
                ["set_policy", 0, "shop", {"attempts": 0, "waits": [10]}],
                ["policy", 0],
                ["policy", 0, "shop", "x"],
                ["policy", 0, null],
                ["policy", 0, "nope"],
                ["policy", 0, "shop"]
            ]),
            json!([
                true,
                true,
                "error: invalid arguments",
                "error: invalid policy",
                "error: unknown endpoint",
                "error: invalid arguments",
                "error: invalid arguments",
                "error: invalid arguments",
                "error: invalid policy",
                "error: invalid arguments",
                "error: invalid arguments",
                "error: invalid arguments",
                "error: unknown endpoint",
                {"attempts": 2, "waits": [10]}
            ]),
        );
    }

    #[test]
    fn invalid_policies() {
        let invalid = [
            json!([]),
            json!([6, [30]]),
            json!(6),
            json!("default"),
            json!(true),
            json!({}),
            json!({"attempts": 6}),
            json!({"waits": [30]}),
            json!({"attempts": 0, "waits": [30]}),
            json!({"attempts": 101, "waits": [30]}),
            json!({"attempts": -1, "waits": [30]}),
            json!({"attempts": "6", "waits": [30]}),
            json!({"attempts": true, "waits": [30]}),
            json!({"attempts": null, "waits": [30]}),
            json!({"attempts": 6, "waits": []}),
            json!({"attempts": 6, "waits": 30}),
            json!({"attempts": 6, "waits": [0]}),
            json!({"attempts": 6, "waits": [2_592_001]}),
            json!({"attempts": 6, "waits": [30, "60"]}),
            json!({"attempts": 6, "waits": [30, null]}),
            // Entries past what `attempts` needs are checked all the same.
            json!({"attempts": 1, "waits": [30, -1]}),
            json!({"attempts": 6, "waits": [30], "disable_on_gone": 1}),
            json!({"attempts": 6, "waits": [30], "disable_on_gone": null}),
            json!({"attempts": 6, "waits": [30], "disable_on_gone": "true"}),
            json!({"attempts": 6, "waits": [30], "disable_after": 0}),
            json!({"attempts": 6, "waits": [30], "disable_after": 1001}),
            json!({"attempts": 6, "waits": [30], "disable_after": -3}),
            json!({"attempts": 6, "waits": [30], "disable_after": true}),
            json!({"attempts": 6, "waits": [30], "disable_after": null}),
            json!({"attempts": 6, "waits": [30], "disable_after": "3"}),
            json!({"attempts": 6, "waits": [30], "disable_after": [3]}),
            json!({"attempts": 6, "waits": [30], "Attempts": 6}),
        ];
        for policy in invalid {
            let results = run(&[
                json!(["register", 0, "shop", "u"]),
                json!(["set_policy", 0, "shop", policy]),
            ]);
            assert_eq!(results[1], json!("error: invalid policy"), "for {policy}");
        }
        for policy in [
            json!({"attempts": 1, "waits": [1]}),
            json!({"attempts": 100, "waits": [2_592_000, 1]}),
            json!({"attempts": 6, "waits": [30], "disable_after": 1}),
            json!({"attempts": 6, "waits": [30], "disable_after": 1000, "disable_on_gone": false}),
        ] {
            let results = run(&[
                json!(["register", 0, "shop", "u"]),
                json!(["set_policy", 0, "shop", policy]),
            ]);
            assert_eq!(results[1], json!(true), "for {policy}");
        }
    }

    #[test]
    fn policy_integers_are_read_as_written() {
        let operations: Vec<Value> = serde_json::from_str(
            r#"[["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 3.0, "waits": [10]}],
                ["set_policy", 0, "shop", {"attempts": 3, "waits": [1e1]}],
                ["set_policy", 0, "shop", {"attempts": -0, "waits": [10]}],
                ["set_policy", 0, "shop", {"attempts": 3, "waits": [10.0]}]]"#,
        )
        .expect("test input is valid JSON");
        assert_eq!(
            run(&operations),
            [
                json!(true),
                json!("error: invalid policy"),
                json!("error: invalid policy"),
                json!("error: invalid policy"),
                json!("error: invalid policy"),
            ]
        );
    }

    // Part 5: Retry-After and Gone.

    #[test]
    fn roadmap_retry_after_examples() {
        for (retry_after, due) in [(45, 45), (600, 60), (5, 30)] {
            check(
                json!([
                    ["register", 0, "shop", "u"],
                    ["enqueue", 0, "shop", "evt-1", [{"status": 503, "retry_after": retry_after}, 200]],
                    ["process", 0],
                    ["process", due - 1],
                    ["process", due]
                ]),
                json!([
                    true,
                    "queued",
                    [format!("evt-1 #1 503 retry at {due}")],
                    [],
                    ["evt-1 #2 200 delivered"]
                ]),
            );
        }
    }

    #[test]
    fn roadmap_gone_example() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30, 60, 120, 240, 300], "disable_on_gone": true}],
                ["enqueue", 0, "shop", "evt-1", [410]],
                ["process", 0]
            ]),
            json!([true, true, "queued", ["evt-1 #1 410 dead", "shop disabled"]]),
        );
    }

    #[test]
    fn retry_after_follows_the_policy_wait_and_only_429_and_503() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 5, "waits": [100]}],
                ["enqueue", 0, "shop", "evt-1", [
                    {"status": 429, "retry_after": 150},
                    {"status": 500, "retry_after": 150},
                    {"retry_after": 1000, "status": 503},
                    0,
                    {"status": 503, "retry_after": 1}
                ]],
                ["process", 0],
                ["process", 150],
                ["process", 250],
                ["process", 450],
                ["process", 550]
            ]),
            json!([
                true,
                true,
                "queued",
                ["evt-1 #1 429 retry at 150"],
                ["evt-1 #2 500 retry at 250"],
                ["evt-1 #3 503 retry at 450"],
                ["evt-1 #4 0 retry at 550"],
                // The last allowed attempt dies, Retry-After or not.
                ["evt-1 #5 503 dead"]
            ]),
        );
    }

    #[test]
    fn an_object_outcome_repeats_once_the_list_runs_out() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "evt-1", [500, {"status": 503, "retry_after": 100}]],
                ["process", 0],
                ["process", 30],
                ["process", 130],
                ["status", 130, "evt-1"]
            ]),
            json!([
                true,
                "queued",
                ["evt-1 #1 500 retry at 30"],
                // w = 60 after two failures; 100 lies within [60, 120].
                ["evt-1 #2 503 retry at 130"],
                // w = 120 after three; 100 is raised to 120.
                ["evt-1 #3 503 retry at 250"],
                {"state": "pending", "attempts": 3, "next_attempt_at": 250}
            ]),
        );
    }

    #[test]
    fn gone_holds_the_endpoint_while_others_go_on_in_the_same_call() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "disable_on_gone": true}],
                ["enqueue", 0, "shop", "s1", [{"status": 410, "retry_after": 5}]],
                ["enqueue", 0, "shop", "s2", [200]],
                ["enqueue", 0, "mall", "m1", [410]],
                ["enqueue", 0, "mall", "m2", [200]],
                ["process", 0],
                ["status", 0, "s2"],
                ["disable", 0, "shop"],
                ["process", 100],
                ["enable", 100, "shop", false],
                ["process", 100],
                ["dead_letters", 100]
            ]),
            json!([
                true,
                true,
                true,
                "queued",
                "queued",
                "queued",
                "queued",
                ["s1 #1 410 dead", "shop disabled", "m1 #1 410 dead", "m2 #1 200 delivered"],
                {"state": "held", "attempts": 0, "next_attempt_at": null},
                "error: already disabled",
                [],
                true,
                ["s2 #1 200 delivered"],
                ["s1", "m1"]
            ]),
        );
    }

    #[test]
    fn gone_then_replay_dies_and_disables_again() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "disable_on_gone": true}],
                ["enqueue", 0, "shop", "evt-1", [500, 410]],
                ["enqueue", 0, "shop", "evt-2", [200]],
                ["process", 0],
                ["process", 30],
                ["enable", 40, "shop", true],
                ["process", 40],
                ["process", 70],
                ["set_policy", 80, "shop", {"attempts": 6, "waits": [30], "disable_on_gone": false}],
                ["enable", 80, "shop", true],
                ["process", 80],
                ["process", 110]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["evt-1 #1 500 retry at 30"],
                ["evt-1 #2 410 dead", "shop disabled"],
                true,
                ["evt-1 #1 500 retry at 70"],
                ["evt-1 #2 410 dead", "shop disabled"],
                true,
                true,
                ["evt-1 #1 500 retry at 110"],
                ["evt-1 #2 410 dead", "evt-2 #1 200 delivered"]
            ]),
        );
    }

    #[test]
    fn invalid_outcome_objects() {
        let invalid = [
            json!([{}]),
            json!([{"retry_after": 5}]),
            json!([{"status": 503, "retry_after": 5, "x": 1}]),
            json!([{"status": 503, "Retry-After": 5}]),
            json!([{"status": "503"}]),
            json!([{"status": null}]),
            json!([{"status": true}]),
            json!([{"status": 99}]),
            json!([{"status": 600}]),
            json!([{"status": 503, "retry_after": -1}]),
            json!([{"status": 503, "retry_after": 2_592_001}]),
            json!([{"status": 503, "retry_after": null}]),
            json!([{"status": 503, "retry_after": "45"}]),
            json!([{"status": 503, "retry_after": true}]),
            json!([200, {"status": [200]}]),
            json!({"status": 200}),
        ];
        for outcomes in invalid {
            let results = run(&[
                json!(["register", 0, "shop", "u"]),
                json!(["enqueue", 0, "shop", "e", outcomes]),
            ]);
            assert_eq!(
                results[1],
                json!("error: invalid outcomes"),
                "for {outcomes}"
            );
        }
        let operations: Vec<Value> = serde_json::from_str(
            r#"[["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "a", [{"status": 503, "retry_after": 45.0}]],
                ["enqueue", 0, "shop", "b", [{"status": 503, "retry_after": 4.5e1}]],
                ["enqueue", 0, "shop", "c", [{"status": 503.0}]],
                ["enqueue", 0, "shop", "d", [{"status": 0, "retry_after": 2592000}, {"status": -0}]]]"#,
        )
        .expect("test input is valid JSON");
        assert_eq!(
            run(&operations),
            [
                json!(true),
                json!("error: invalid outcomes"),
                json!("error: invalid outcomes"),
                json!("error: invalid outcomes"),
                json!("queued"),
            ]
        );
    }

    #[test]
    fn due_times_past_the_safe_range_dead_letter_the_event() {
        let max = 9_007_199_254_740_991_i64;
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "a", [503, 200]],
                ["enqueue", 0, "shop", "b", [{"status": 503, "retry_after": 60}]],
                ["process", max - 30],
                ["process", max],
                ["enable", max, "shop", true],
                ["status", max, "b"],
                ["dead_letters", max]
            ]),
            json!([
                true,
                "queued",
                "queued",
                // Exactly at the limit is still a retry.
                [format!("a #1 503 retry at {max}")],
                // max + 60 is past it: dead at once, though attempts remain.
                ["a #2 200 delivered", "b #1 503 dead"],
                "error: not disabled",
                {"state": "dead", "attempts": 1, "next_attempt_at": null},
                ["b"]
            ]),
        );
    }

    // Part 6: automatic disabling of failing endpoints.

    #[test]
    fn roadmap_auto_disable_example() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 2, "waits": [10], "disable_after": 3}],
                ["policy", 0, "shop"],
                ["enqueue", 0, "shop", "evt-1", [500]],
                ["enqueue", 0, "shop", "evt-2", [500]],
                ["process", 0],
                ["endpoint", 0, "shop"],
                ["process", 10],
                ["status", 10, "evt-2"],
                ["endpoint", 10, "shop"],
                ["disable", 10, "shop"],
                ["process", 20],
                ["enable", 30, "shop", false],
                ["endpoint", 30, "shop"],
                // evt-2's schedule resumes by its count: #2 is its last allowed attempt.
                ["process", 30],
                ["endpoint", 30, "shop"],
                ["dead_letters", 30]
            ]),
            json!([
                true,
                true,
                {"attempts": 2, "waits": [10], "disable_after": 3},
                "queued",
                "queued",
                ["evt-1 #1 500 retry at 10"],
                {"disabled": false, "reason": null, "consecutive_failures": 1},
                ["evt-1 #2 500 dead", "evt-2 #1 500 retry at 20", "shop disabled"],
                {"state": "held", "attempts": 1, "next_attempt_at": null},
                {"disabled": true, "reason": "failing", "consecutive_failures": 3},
                "error: already disabled",
                [],
                true,
                {"disabled": false, "reason": null, "consecutive_failures": 0},
                ["evt-2 #2 500 dead"],
                {"disabled": false, "reason": null, "consecutive_failures": 1},
                ["evt-1", "evt-2"]
            ]),
        );
    }

    #[test]
    fn every_failure_counts_across_events_and_a_delivery_resets() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["endpoint", 0, "shop"],
                // No disable_after: the count is kept all the same, and never disables.
                ["enqueue", 0, "shop", "a", [404]],
                ["enqueue", 0, "shop", "b", [0, 302, 200]],
                ["enqueue", 0, "mall", "m", [200]],
                ["process", 0],
                ["endpoint", 0, "shop"],
                ["endpoint", 0, "mall"],
                ["process", 30],
                ["endpoint", 30, "shop"],
                ["enable", 30, "shop", true],
                ["endpoint", 30, "shop"]
            ]),
            json!([
                true,
                true,
                {"disabled": false, "reason": null, "consecutive_failures": 0},
                "queued",
                "queued",
                "queued",
                ["a #1 404 dead", "b #1 0 retry at 30", "m #1 200 delivered"],
                {"disabled": false, "reason": null, "consecutive_failures": 2},
                {"disabled": false, "reason": null, "consecutive_failures": 0},
                // A 3xx is permanent: it kills b and counts.
                ["b #2 302 dead"],
                {"disabled": false, "reason": null, "consecutive_failures": 3},
                "error: not disabled",
                {"disabled": false, "reason": null, "consecutive_failures": 3}
            ]),
        );
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "a", [500, 200]],
                ["enqueue", 0, "shop", "b", [500]],
                ["process", 0],
                ["process", 30],
                ["endpoint", 30, "shop"]
            ]),
            json!([
                true,
                "queued",
                "queued",
                ["a #1 500 retry at 30"],
                // The delivery sets the count to 0, then b's failure makes it 1.
                ["a #2 200 delivered", "b #1 500 retry at 60"],
                {"disabled": false, "reason": null, "consecutive_failures": 1}
            ]),
        );
    }

    #[test]
    fn only_attempts_and_a_successful_enable_change_the_count() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "a", [404]],
                ["enqueue", 0, "shop", "b", [404]],
                ["process", 0],
                ["recover", 5, "shop", 0],
                ["endpoint", 5, "shop"],
                ["set_policy", 5, "shop", {"attempts": 6, "waits": [30], "disable_after": 5}],
                ["endpoint", 5, "shop"],
                ["disable", 6, "shop"],
                ["endpoint", 6, "shop"],
                ["enable", 7, "shop", "yes"],
                ["enable", 7, "nope", false],
                ["disable", 7, "shop"],
                ["endpoint", 7, "shop"],
                ["enable", 8, "shop", true],
                ["endpoint", 8, "shop"]
            ]),
            json!([
                true,
                "queued",
                "queued",
                ["a #1 404 dead", "b #1 404 dead"],
                2,
                {"disabled": false, "reason": null, "consecutive_failures": 2},
                true,
                {"disabled": false, "reason": null, "consecutive_failures": 2},
                true,
                {"disabled": true, "reason": "manual", "consecutive_failures": 2},
                "error: invalid arguments",
                "error: unknown endpoint",
                "error: already disabled",
                {"disabled": true, "reason": "manual", "consecutive_failures": 2},
                true,
                {"disabled": false, "reason": null, "consecutive_failures": 0}
            ]),
        );
    }

    #[test]
    fn a_threshold_at_or_below_the_count_waits_for_the_next_failure() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "a", [404]],
                ["enqueue", 0, "shop", "b", [404]],
                ["enqueue", 0, "shop", "c", [500, 500, 200]],
                ["process", 0],
                ["set_policy", 10, "shop", {"attempts": 6, "waits": [30], "disable_after": 2}],
                ["endpoint", 10, "shop"],
                ["process", 29],
                ["process", 30],
                ["endpoint", 30, "shop"],
                ["status", 30, "c"]
            ]),
            json!([
                true,
                "queued",
                "queued",
                "queued",
                ["a #1 404 dead", "b #1 404 dead", "c #1 500 retry at 30"],
                true,
                {"disabled": false, "reason": null, "consecutive_failures": 3},
                [],
                ["c #2 500 retry at 60", "shop disabled"],
                {"disabled": true, "reason": "failing", "consecutive_failures": 4},
                {"state": "held", "attempts": 2, "next_attempt_at": null}
            ]),
        );
    }

    #[test]
    fn gone_and_failing_together_give_one_record() {
        // A 410 under disable_on_gone that also reaches the threshold: "gone", one record.
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "disable_on_gone": true, "disable_after": 1}],
                ["enqueue", 0, "shop", "a", [410]],
                ["enqueue", 0, "shop", "b", [200]],
                ["process", 0],
                ["endpoint", 0, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["a #1 410 dead", "shop disabled"],
                {"disabled": true, "reason": "gone", "consecutive_failures": 1}
            ]),
        );
        // A 410 without disable_on_gone that reaches the threshold: "failing".
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [30], "disable_on_gone": false, "disable_after": 2}],
                ["enqueue", 0, "shop", "a", [500]],
                ["enqueue", 0, "shop", "b", [410]],
                ["enqueue", 0, "shop", "c", [200]],
                ["process", 0],
                ["endpoint", 0, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                "queued",
                ["a #1 500 dead", "b #1 410 dead", "shop disabled"],
                {"disabled": true, "reason": "failing", "consecutive_failures": 2}
            ]),
        );
        // A 410 under disable_on_gone below the threshold: "gone".
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "disable_on_gone": true, "disable_after": 9}],
                ["enqueue", 0, "shop", "a", [410]],
                ["process", 0],
                ["endpoint", 0, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["a #1 410 dead", "shop disabled"],
                {"disabled": true, "reason": "gone", "consecutive_failures": 1}
            ]),
        );
    }

    #[test]
    fn auto_disabling_holds_the_endpoint_while_others_go_on() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "disable_after": 1}],
                ["enqueue", 0, "shop", "s1", [503, 200]],
                ["enqueue", 0, "shop", "s2", [200]],
                ["enqueue", 0, "mall", "m1", [500, 200]],
                ["enqueue", 5, "mall", "m2", [200]],
                ["process", 5],
                ["status", 5, "s1"],
                ["status", 5, "s2"],
                ["process", 35],
                ["enable", 40, "shop", false],
                ["process", 40],
                ["endpoint", 40, "shop"],
                ["endpoint", 40, "mall"]
            ]),
            json!([
                true,
                true,
                true,
                "queued",
                "queued",
                "queued",
                "queued",
                ["s1 #1 503 retry at 35", "shop disabled", "m1 #1 500 retry at 35"],
                {"state": "held", "attempts": 1, "next_attempt_at": null},
                {"state": "held", "attempts": 0, "next_attempt_at": null},
                ["m1 #2 200 delivered", "m2 #1 200 delivered"],
                true,
                ["s1 #2 200 delivered", "s2 #1 200 delivered"],
                {"disabled": false, "reason": null, "consecutive_failures": 0},
                {"disabled": false, "reason": null, "consecutive_failures": 0}
            ]),
        );
    }

    #[test]
    fn a_death_past_the_safe_range_counts_as_a_failure() {
        let max = 9_007_199_254_740_991_i64;
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "disable_after": 1}],
                ["enqueue", 0, "shop", "a", [503]],
                ["process", max],
                ["endpoint", max, "shop"],
                ["dead_letter", max, "a"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["a #1 503 dead", "shop disabled"],
                {"disabled": true, "reason": "failing", "consecutive_failures": 1},
                {"endpoint": "shop", "attempts": 1, "last_status": 503, "died_at": max}
            ]),
        );
    }

    #[test]
    fn endpoint_errors() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["endpoint", 0],
                ["endpoint", 0, "shop", "x"],
                ["endpoint", 0, 5],
                ["endpoint", "0", "nope"],
                ["endpoint", 0, "nope"],
                ["endpoint", 0, "shop"]
            ]),
            json!([
                true,
                "error: invalid arguments",
                "error: invalid arguments",
                "error: invalid arguments",
                "error: invalid arguments",
                "error: unknown endpoint",
                {"disabled": false, "reason": null, "consecutive_failures": 0}
            ]),
        );
    }

    // Part 7: dead letters, details and recovery.

    #[test]
    fn roadmap_recover_example() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "evt-1", [404]],
                ["process", 0],
                ["enqueue", 100, "shop", "evt-2", [404]],
                ["process", 100],
                ["dead_letter", 100, "evt-1"],
                ["dead_letter", 100, "evt-2"],
                ["recover", 200, "shop", 50],
                ["dead_letter", 200, "evt-2"],
                ["status", 200, "evt-2"],
                ["dead_letters", 200],
                ["process", 200],
                ["dead_letter", 200, "evt-2"],
                ["dead_letters", 200]
            ]),
            json!([
                true,
                "queued",
                ["evt-1 #1 404 dead"],
                "queued",
                ["evt-2 #1 404 dead"],
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 0},
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 100},
                1,
                "error: not dead",
                {"state": "pending", "attempts": 0, "next_attempt_at": 200},
                ["evt-1"],
                ["evt-2 #1 404 dead"],
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 200},
                ["evt-1", "evt-2"]
            ]),
        );
    }

    #[test]
    fn dead_letter_reports_the_killing_call_and_the_latest_death() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 2, "waits": [100]}],
                ["enqueue", 0, "shop", "a", [{"status": 503, "retry_after": 150}, {"status": 0}]],
                ["enqueue", 0, "shop", "b", [{"status": 404, "retry_after": 5}]],
                ["enqueue", 0, "shop", "c", [200]],
                ["dead_letter", 0, "a"],
                ["process", 0],
                ["dead_letter", 0, "a"],
                // a is due at 150 but only attempted at 170: died_at is the call's ts.
                ["process", 170],
                ["dead_letter", 170, "a"],
                ["dead_letter", 170, "b"],
                ["dead_letter", 170, "c"],
                ["dead_letter", 170, "zzz"],
                ["dead_letter", 170, 7],
                ["dead_letter", 170],
                ["disable", 180, "shop"],
                ["enable", 190, "shop", true],
                ["dead_letter", 190, "a"],
                ["process", 190],
                ["dead_letter", 190, "a"],
                ["dead_letter", 190, "b"],
                ["process", 340],
                ["dead_letter", 340, "a"],
                ["dead_letter", 340, "b"]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                "queued",
                "error: not dead",
                ["a #1 503 retry at 150"],
                "error: not dead",
                ["a #2 0 dead", "b #1 404 dead", "c #1 200 delivered"],
                {"endpoint": "shop", "attempts": 2, "last_status": 0, "died_at": 170},
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 170},
                "error: not dead",
                "error: unknown event",
                "error: invalid arguments",
                "error: invalid arguments",
                true,
                true,
                "error: not dead",
                // b, revived too, waits behind a (`order.blocked`).
                ["a #1 503 retry at 340"],
                "error: not dead",
                "error: not dead",
                ["a #2 0 dead", "b #1 404 dead"],
                {"endpoint": "shop", "attempts": 2, "last_status": 0, "died_at": 340},
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 340}
            ]),
        );
    }

    #[test]
    fn recover_selects_by_death_time_and_keeps_the_rest_in_order() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["enqueue", 0, "shop", "a", [404]],
                ["process", 10],
                ["enqueue", 10, "shop", "b", [404]],
                ["enqueue", 10, "mall", "m", [404]],
                ["process", 20],
                // ts may go back (`op.ts-any-order`): c dies at 5, after a and b.
                ["enqueue", 5, "shop", "c", [404]],
                ["process", 5],
                ["dead_letters", 5],
                ["recover", 30, "shop", 21],
                ["recover", 30, "shop", 10],
                ["dead_letters", 30],
                ["dead_letters", 30, "shop"],
                ["process", 30],
                ["dead_letters", 30],
                ["recover", 40, "shop", -9_007_199_254_740_991_i64],
                ["dead_letters", 40],
                ["recover", 40, "mall", 20],
                ["recover", 50, "mall", 0],
                ["recover", 50, "shop", 0]
            ]),
            json!([
                true,
                true,
                "queued",
                ["a #1 404 dead"],
                "queued",
                "queued",
                ["b #1 404 dead", "m #1 404 dead"],
                "queued",
                ["c #1 404 dead"],
                ["a", "b", "m", "c"],
                0,
                // At or after 10: a (10) and b (20), not c (5) nor mall's m.
                2,
                ["m", "c"],
                ["c"],
                ["a #1 404 dead", "b #1 404 dead"],
                ["m", "c", "a", "b"],
                3,
                ["m"],
                1,
                0,
                0
            ]),
        );
    }

    #[test]
    fn a_recovered_event_blocks_a_retrying_one_that_keeps_its_own_schedule() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [10]}],
                ["enqueue", 0, "shop", "e1", [500, 200]],
                ["process", 0],
                ["set_policy", 5, "shop", {"attempts": 3, "waits": [100]}],
                ["enqueue", 5, "shop", "e2", [500, 200]],
                ["process", 5],
                ["recover", 10, "shop", 0],
                ["status", 10, "e1"],
                ["status", 10, "e2"],
                ["process", 10],
                ["process", 105],
                ["status", 105, "e2"],
                ["process", 110]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e1 #1 500 dead"],
                true,
                "queued",
                ["e2 #1 500 retry at 105"],
                1,
                {"state": "pending", "attempts": 0, "next_attempt_at": 10},
                // Unlike enable, recover moves no other pending event.
                {"state": "pending", "attempts": 1, "next_attempt_at": 105},
                ["e1 #1 500 retry at 110"],
                // e2 is due but waits behind e1.
                [],
                {"state": "pending", "attempts": 1, "next_attempt_at": 105},
                ["e1 #2 200 delivered", "e2 #2 200 delivered"]
            ]),
        );
    }

    #[test]
    fn recover_leaves_a_disabled_endpoint_disabled() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "disable_after": 2}],
                ["enqueue", 0, "shop", "e1", [404]],
                ["enqueue", 0, "shop", "e2", [500, 200]],
                ["process", 0],
                ["recover", 10, "shop", 0],
                ["status", 10, "e1"],
                ["status", 10, "e2"],
                ["endpoint", 10, "shop"],
                ["dead_letters", 10],
                ["process", 100],
                ["enable", 100, "shop", false],
                ["process", 100],
                ["dead_letter", 100, "e1"],
                ["endpoint", 100, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["e1 #1 404 dead", "e2 #1 500 retry at 30", "shop disabled"],
                1,
                {"state": "held", "attempts": 0, "next_attempt_at": null},
                {"state": "held", "attempts": 1, "next_attempt_at": null},
                {"disabled": true, "reason": "failing", "consecutive_failures": 2},
                [],
                [],
                true,
                ["e1 #1 404 dead", "e2 #2 200 delivered"],
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 100},
                {"disabled": false, "reason": null, "consecutive_failures": 0}
            ]),
        );
    }

    #[test]
    fn recover_errors_in_precedence() {
        let operations: Vec<Value> = serde_json::from_str(
            r#"[["register", 0, "shop", "u"],
                ["recover", 0, "shop"],
                ["recover", 0, "shop", 1, 2],
                ["recover", 0.5, 5, "x"],
                ["recover", 0, 5, "x"],
                ["recover", 0, "nope", "x"],
                ["recover", 0, "nope", 1.0],
                ["recover", 0, "shop", 1e1],
                ["recover", 0, "shop", true],
                ["recover", 0, "shop", null],
                ["recover", 0, "shop", 9007199254740992],
                ["recover", 0, "nope", 0],
                ["recover", 0, "shop", -0]]"#,
        )
        .expect("test input is valid JSON");
        let mut expected = vec![json!(true)];
        expected.extend(std::iter::repeat_n(json!("error: invalid arguments"), 10));
        expected.push(json!("error: unknown endpoint"));
        expected.push(json!(0));
        assert_eq!(run(&operations), expected);
    }

    #[test]
    fn recover_revives_replayed_and_redead_events_once_each() {
        // An event revived by replay and dead again has one death, its latest, in the indexes.
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["enqueue", 0, "shop", "a", [404]],
                ["process", 0],
                ["disable", 1, "shop"],
                ["enable", 2, "shop", true],
                ["process", 2],
                ["recover", 3, "shop", 0],
                ["dead_letters", 3],
                ["process", 3],
                ["recover", 4, "shop", 3],
                ["recover", 4, "shop", 3],
                ["process", 4],
                ["dead_letter", 4, "a"]
            ]),
            json!([
                true,
                "queued",
                ["a #1 404 dead"],
                true,
                true,
                ["a #1 404 dead"],
                1,
                [],
                ["a #1 404 dead"],
                1,
                0,
                ["a #1 404 dead"],
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 4}
            ]),
        );
    }

    // Part 9: a token bucket per endpoint.

    #[test]
    fn a_full_bucket_lets_a_burst_through_and_throttles_the_next_head() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 3, "waits": [10], "throttle": {"burst": 2, "interval": 10}}],
                ["policy", 0, "shop"],
                ["enqueue", 0, "shop", "e1", [500, 200]],
                ["enqueue", 0, "shop", "e2", [200]],
                ["enqueue", 0, "shop", "e3", [200]],
                ["process", 0],
                // The token of 10 refills the bucket to 2: the retry and e2 take them.
                ["process", 10],
                ["status", 10, "e2"],
                ["process", 15],
                ["process", 20],
                ["process", 30]
            ]),
            json!([
                true,
                true,
                {"attempts": 3, "waits": [10], "throttle": {"burst": 2, "interval": 10}},
                "queued",
                "queued",
                "queued",
                ["e1 #1 500 retry at 10"],
                ["e1 #2 200 delivered", "e2 #1 200 delivered", "e3 throttled until 20"],
                {"state": "delivered", "attempts": 1, "next_attempt_at": null},
                [],
                ["e3 #1 200 delivered"],
                []
            ]),
        );
    }

    #[test]
    fn a_throttled_head_is_released_by_a_new_policy_and_by_enable() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 3, "waits": [10], "throttle": {"burst": 1, "interval": 100}}],
                ["enqueue", 0, "shop", "e1", [200]],
                ["enqueue", 0, "shop", "e2", [500, 200]],
                ["enqueue", 0, "shop", "e3", [200]],
                ["process", 0],
                ["disable", 10, "shop"],
                ["enable", 20, "shop", false],
                ["process", 20],
                ["set_policy", 30, "shop", {"attempts": 3, "waits": [10], "throttle": {"burst": 1, "interval": 100}}],
                ["status", 30, "e2"],
                ["process", 30],
                // The retry of e2 is no throttled event: a new policy does not move it.
                ["set_policy", 35, "shop", {"attempts": 3, "waits": [10]}],
                ["status", 35, "e2"],
                ["process", 40]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                "queued",
                ["e1 #1 200 delivered", "e2 throttled until 100"],
                true,
                true,
                ["e2 throttled until 100"],
                true,
                {"state": "pending", "attempts": 0, "next_attempt_at": 30},
                ["e2 #1 500 retry at 40"],
                true,
                {"state": "pending", "attempts": 1, "next_attempt_at": 40},
                ["e2 #2 200 delivered", "e3 #1 200 delivered"]
            ]),
        );
    }

    // Part 8: signatures.

    const KA: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const KB: &str = "whsec_aG9va2NoZWNrIGtleSBCLCAzMiBieXRlcyBsb25nISE=";

    #[test]
    fn roadmap_known_answer_signed_and_verified() {
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
        let body = r#"{"test": 2432232314}"#;
        let headers = json!({
            "webhook-id": id,
            "webhook-timestamp": "1614265330",
            "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        });
        check(
            json!([
                ["register", 1614265330, "shop", "u"],
                ["set_secret", 1614265330, "shop", KA],
                ["enqueue", 1614265330, "shop", id, [200], body],
                ["process", 1614265330],
                ["signature", 0, id, 1],
                ["verify", 1614265330, [KA], headers, body],
                ["verify", 1614265631, [KA], headers, body],
                ["verify", 1614265330, [KB], headers, body]
            ]),
            json!([
                true,
                true,
                "queued",
                [format!("{id} #1 200 delivered")],
                headers,
                true,
                "error: timestamp too old",
                "error: no matching signature"
            ]),
        );
    }

    #[test]
    fn each_attempt_keeps_the_signers_and_ts_it_was_made_with() {
        let operations = ops(json!([
            ["register", 0, "shop", "u"],
            ["enqueue", 0, "shop", "e", [500, 500, 404]],
            ["process", 0],
            ["set_secret", 10, "shop", KA],
            ["process", 30],
            ["set_secret", 40, "shop", KB],
            ["set_secret", 41, "shop", KB],
            ["process", 90],
            ["signature", 90, "e", 1],
            ["signature", 90, "e", 4],
            ["disable", 100, "shop"],
            ["enable", 100, "shop", true],
            ["signature", 100, "e", 1]
        ]));
        let results = run(&operations);
        assert_eq!(results[4], json!(["e #2 500 retry at 90"]));
        assert_eq!(results[7], json!(["e #3 404 dead"]));
        assert_eq!(results[8], json!("error: no secret"));
        assert_eq!(results[9], json!("error: attempt not made"));
        assert_eq!(results[12], json!("error: attempt not made"));
        let signature = |n: u64| {
            run(&[
                operations[..8].to_vec(),
                vec![json!(["signature", 90, "e", n])],
            ]
            .concat())
            .pop()
            .expect("one result per operation")
        };
        let second = signature(2);
        assert_eq!(second["webhook-timestamp"], json!("30"));
        assert_eq!(
            second["webhook-signature"]
                .as_str()
                .map(|s| s.split(' ').count()),
            Some(1)
        );
        let third = signature(3);
        assert_eq!(third["webhook-timestamp"], json!("90"));
        // KB and KA: the second KB was no rotation, so KB is not there twice.
        let signers = third["webhook-signature"].as_str().expect("a string");
        assert_eq!(signers.split(' ').count(), 2);
        for key in [KA, KB] {
            assert_eq!(
                run(&[json!(["verify", 90, [key], third, ""])]),
                [json!(true)],
                "{key}"
            );
        }
    }

    // Part 11: event expiry.

    #[test]
    fn an_event_past_its_age_expires_instead_of_being_attempted() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30, 60], "max_age": 100}],
                ["policy", 0, "shop"],
                ["enqueue", 0, "shop", "evt-1", [500]],
                ["process", 0],
                ["process", 30],
                ["process", 99],
                ["status", 99, "evt-1"],
                ["process", 100],
                ["status", 100, "evt-1"],
                ["dead_letter", 100, "evt-1"],
                ["dead_letters", 100],
                ["dead_letters", 100, "shop"],
                ["process", 200]
            ]),
            json!([
                true,
                true,
                {"attempts": 6, "waits": [30, 60], "max_age": 100},
                "queued",
                ["evt-1 #1 500 retry at 30"],
                ["evt-1 #2 500 retry at 90"],
                ["evt-1 #3 500 retry at 159"],
                {"state": "pending", "attempts": 3, "next_attempt_at": 159},
                ["evt-1 expired"],
                {"state": "dead", "attempts": 3, "next_attempt_at": null},
                {"endpoint": "shop", "attempts": 3, "last_status": 500, "died_at": 100,
                 "reason": "expired"},
                ["evt-1"],
                ["evt-1"],
                []
            ]),
        );
    }

    #[test]
    fn due_at_its_deadline_expires_and_never_attempted_has_no_last_status() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": 30}],
                ["enqueue", 0, "shop", "e1", [{"status": 503, "retry_after": 20}]],
                ["process", 0],
                ["process", 30],
                ["dead_letter", 30, "e1"],
                ["disable", 40, "shop"],
                ["enqueue", 40, "shop", "e2", [200]],
                ["process", 69],
                ["status", 69, "e2"],
                ["process", 70],
                ["status", 70, "e2"],
                ["dead_letter", 70, "e2"],
                ["enable", 80, "shop", false],
                ["status", 80, "e2"],
                ["process", 80],
                ["dead_letters", 80]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e1 #1 503 retry at 30"],
                ["e1 expired"],
                {"endpoint": "shop", "attempts": 1, "last_status": 503, "died_at": 30,
                 "reason": "expired"},
                true,
                "queued",
                [],
                {"state": "held", "attempts": 0, "next_attempt_at": null},
                ["e2 expired"],
                {"state": "dead", "attempts": 0, "next_attempt_at": null},
                {"endpoint": "shop", "attempts": 0, "last_status": null, "died_at": 70,
                 "reason": "expired"},
                true,
                {"state": "dead", "attempts": 0, "next_attempt_at": null},
                [],
                ["e1", "e2"]
            ]),
        );
    }

    #[test]
    fn an_expired_head_frees_the_next_and_set_policy_moves_no_deadline() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": 50}],
                ["enqueue", 0, "shop", "e1", [500]],
                ["process", 0],
                // No max_age from now on: e1 keeps its deadline of 50...
                ["set_policy", 5, "shop", {"attempts": 6, "waits": [30]}],
                ["enqueue", 10, "shop", "e2", [200]],
                // ...and e2, enqueued without one, gets none from a shorter age set later.
                ["set_policy", 20, "shop", {"attempts": 6, "waits": [30], "max_age": 1}],
                ["process", 30],
                ["status", 30, "e2"],
                ["process", 50],
                ["status", 50, "e2"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e1 #1 500 retry at 30"],
                true,
                "queued",
                true,
                ["e1 #2 500 retry at 60"],
                {"state": "pending", "attempts": 0, "next_attempt_at": 10},
                ["e1 expired", "e2 #1 200 delivered"],
                {"state": "delivered", "attempts": 1, "next_attempt_at": null}
            ]),
        );
    }

    #[test]
    fn expiries_come_first_in_enqueue_order_whatever_their_deadlines() {
        check(
            json!([
                ["register", 0, "a", "u"],
                ["register", 0, "b", "u"],
                ["register", 0, "c", "u"],
                ["set_policy", 0, "a", {"attempts": 6, "waits": [30], "max_age": 100}],
                ["set_policy", 0, "b", {"attempts": 6, "waits": [30], "max_age": 10}],
                ["enqueue", 0, "c", "c1", [404]],
                ["enqueue", 0, "a", "a1", [200]],
                ["enqueue", 0, "b", "b1", [200]],
                ["enqueue", 0, "b", "b2", [200]],
                ["enqueue", 0, "c", "c2", [200]],
                ["enqueue", 1, "a", "a2", [200]],
                // ts going back expires nothing that is not due by it.
                ["process", -5],
                ["process", 100],
                ["dead_letters", 100],
                ["dead_letters", 100, "b"],
                ["status", 100, "a2"],
                ["process", 101]
            ]),
            json!([
                true,
                true,
                true,
                true,
                true,
                "queued",
                "queued",
                "queued",
                "queued",
                "queued",
                "queued",
                [],
                [
                    "a1 expired",
                    "b1 expired",
                    "b2 expired",
                    "c1 #1 404 dead",
                    "c2 #1 200 delivered",
                    "a2 #1 200 delivered"
                ],
                ["a1", "b1", "b2", "c1"],
                ["b1", "b2"],
                {"state": "delivered", "attempts": 1, "next_attempt_at": null},
                []
            ]),
        );
    }

    #[test]
    fn expiry_is_no_failure_and_holds_no_threshold() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop",
                 {"attempts": 6, "waits": [10], "disable_after": 3, "max_age": 25}],
                ["enqueue", 0, "shop", "e1", [500]],
                ["process", 0],
                ["process", 10],
                ["process", 25],
                ["endpoint", 25, "shop"],
                ["enqueue", 25, "shop", "e2", [500]],
                ["process", 30],
                ["endpoint", 30, "shop"],
                ["process", 50],
                ["endpoint", 50, "shop"],
                ["status", 50, "e2"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e1 #1 500 retry at 10"],
                ["e1 #2 500 retry at 20"],
                ["e1 expired"],
                {"disabled": false, "reason": null, "consecutive_failures": 2},
                "queued",
                ["e2 #1 500 retry at 40", "shop disabled"],
                {"disabled": true, "reason": "failing", "consecutive_failures": 3},
                ["e2 expired"],
                {"disabled": true, "reason": "failing", "consecutive_failures": 3},
                {"state": "dead", "attempts": 1, "next_attempt_at": null}
            ]),
        );
    }

    #[test]
    fn expiry_takes_no_token_and_a_throttled_head_can_expire() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop",
                 {"attempts": 3, "waits": [10], "throttle": {"burst": 1, "interval": 100},
                  "max_age": 50}],
                ["enqueue", 0, "shop", "e0", [200]],
                ["process", 50],
                ["enqueue", 50, "shop", "e1", [200]],
                ["enqueue", 50, "shop", "e2", [200]],
                ["process", 60],
                ["status", 60, "e2"],
                ["process", 100],
                ["enqueue", 100, "shop", "e3", [200]],
                ["process", 100],
                ["set_policy", 110, "shop", {"attempts": 3, "waits": [10]}],
                ["status", 110, "e2"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e0 expired"],
                "queued",
                "queued",
                ["e1 #1 200 delivered", "e2 throttled until 100"],
                {"state": "pending", "attempts": 0, "next_attempt_at": 100},
                ["e2 expired"],
                "queued",
                ["e3 #1 200 delivered"],
                true,
                {"state": "dead", "attempts": 0, "next_attempt_at": null}
            ]),
        );
    }

    #[test]
    fn a_revival_starts_a_fresh_age_under_the_policy_then_in_force() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": 40}],
                ["enqueue", 0, "shop", "e1", [404]],
                ["enqueue", 0, "shop", "e2", [500, 404]],
                ["process", 0],
                ["process", 40],
                ["dead_letter", 40, "e1"],
                ["dead_letter", 40, "e2"],
                ["set_policy", 50, "shop", {"attempts": 6, "waits": [30], "max_age": 100}],
                ["recover", 60, "shop", 40],
                ["status", 60, "e2"],
                ["dead_letter", 60, "e2"],
                // Removing the age afterwards does not save e2 from its deadline of 160.
                ["set_policy", 70, "shop", null],
                ["process", 159],
                ["process", 160],
                ["dead_letter", 160, "e2"],
                ["disable", 170, "shop"],
                ["enable", 170, "shop", true],
                ["process", 170],
                ["process", 100000],
                ["dead_letter", 100000, "e2"],
                ["dead_letters", 100000]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["e1 #1 404 dead", "e2 #1 500 retry at 30"],
                ["e2 expired"],
                {"endpoint": "shop", "attempts": 1, "last_status": 404, "died_at": 0},
                {"endpoint": "shop", "attempts": 1, "last_status": 500, "died_at": 40,
                 "reason": "expired"},
                true,
                1,
                {"state": "pending", "attempts": 0, "next_attempt_at": 60},
                "error: not dead",
                true,
                ["e2 #1 500 retry at 189"],
                ["e2 expired"],
                {"endpoint": "shop", "attempts": 1, "last_status": 500, "died_at": 160,
                 "reason": "expired"},
                true,
                true,
                ["e1 #1 404 dead", "e2 #1 500 retry at 200"],
                ["e2 #2 404 dead"],
                {"endpoint": "shop", "attempts": 2, "last_status": 404, "died_at": 100000},
                ["e1", "e2"]
            ]),
        );
    }

    #[test]
    fn a_replay_of_an_event_that_expired_while_held_gives_it_a_new_deadline() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": 20}],
                ["disable", 0, "shop"],
                ["enqueue", 0, "shop", "e1", [500]],
                ["process", 20],
                ["enable", 30, "shop", true],
                ["status", 30, "e1"],
                ["process", 49],
                ["process", 50]
            ]),
            json!([
                true,
                true,
                true,
                "queued",
                ["e1 expired"],
                true,
                {"state": "pending", "attempts": 0, "next_attempt_at": 30},
                ["e1 #1 500 retry at 79"],
                ["e1 expired"]
            ]),
        );
    }

    #[test]
    fn a_deadline_past_the_last_ts_is_never_reached() {
        let max = 9_007_199_254_740_991_i64;
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": 10}],
                ["disable", 0, "shop"],
                ["enqueue", max - 10, "shop", "e1", [200]],
                ["enqueue", max - 9, "shop", "e2", [200]],
                ["process", max],
                ["status", max, "e2"],
                ["enable", max, "shop", false],
                ["process", max]
            ]),
            json!([
                true,
                true,
                true,
                "queued",
                "queued",
                ["e1 expired"],
                {"state": "held", "attempts": 0, "next_attempt_at": null},
                true,
                ["e2 #1 200 delivered"]
            ]),
        );
    }

    #[test]
    fn max_age_is_checked_before_the_endpoint_and_echoed_as_given() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "nope", {"attempts": 6, "waits": [30], "max_age": 0}],
                ["set_policy", 0, "nope", {"attempts": 6, "waits": [30], "max_age": 1}],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": 31536000}],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": 31536001}],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": null}],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": "60"}],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "max_age": -60}],
                ["policy", 0, "shop"],
                ["set_policy", 0, "shop", null],
                ["policy", 0, "shop"]
            ]),
            json!([
                true,
                "error: invalid policy",
                "error: unknown endpoint",
                true,
                "error: invalid policy",
                "error: invalid policy",
                "error: invalid policy",
                "error: invalid policy",
                {"attempts": 6, "waits": [30], "max_age": 31536000},
                true,
                {"attempts": 6, "waits": [30, 60, 120, 240, 300]}
            ]),
        );
    }

    // Part 10: circuit breaker.

    #[test]
    fn f_failures_open_the_breaker_and_p_probes_close_it() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 5, "waits": [10],
                  "breaker": {"failures": 2, "window": 60, "open_for": 100, "probes": 2}}],
                ["policy", 0, "shop"],
                ["endpoint", 0, "shop"],
                ["enqueue", 0, "shop", "e1", [500, 500, 200]],
                ["enqueue", 0, "shop", "e2", [200]],
                ["process", 0],
                ["process", 10],
                ["endpoint", 10, "shop"],
                ["process", 20],
                ["status", 20, "e1"],
                ["status", 20, "e2"],
                ["endpoint", 20, "shop"],
                ["process", 109],
                ["endpoint", 109, "shop"],
                ["endpoint", 110, "shop"],
                // Two probes in one call: the second is the next head, unblocked.
                ["process", 110],
                ["endpoint", 110, "shop"]
            ]),
            json!([
                true,
                true,
                {"attempts": 5, "waits": [10],
                 "breaker": {"failures": 2, "window": 60, "open_for": 100, "probes": 2}},
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "closed", "until": null}},
                "queued",
                "queued",
                ["e1 #1 500 retry at 10"],
                ["e1 #2 500 retry at 20"],
                {"disabled": false, "reason": null, "consecutive_failures": 2,
                 "breaker": {"state": "open", "until": 110}},
                ["e1 held until 110"],
                {"state": "pending", "attempts": 2, "next_attempt_at": 110},
                {"state": "pending", "attempts": 0, "next_attempt_at": 0},
                {"disabled": false, "reason": null, "consecutive_failures": 2,
                 "breaker": {"state": "open", "until": 110}},
                [],
                {"disabled": false, "reason": null, "consecutive_failures": 2,
                 "breaker": {"state": "open", "until": 110}},
                {"disabled": false, "reason": null, "consecutive_failures": 2,
                 "breaker": {"state": "half-open", "until": null}},
                ["e1 #3 200 delivered", "e2 #1 200 delivered"],
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "closed", "until": null}}
            ]),
        );
    }

    #[test]
    fn a_dead_opener_lets_the_next_head_be_held_and_a_failed_probe_reopens() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [10],
                  "breaker": {"failures": 1, "window": 1, "open_for": 50, "probes": 1}}],
                ["enqueue", 0, "shop", "e1", [503]],
                ["enqueue", 0, "shop", "e2", [500]],
                ["enqueue", 0, "shop", "e3", [200]],
                ["enqueue", 0, "mall", "m1", [200]],
                ["process", 0],
                ["process", 50],
                ["endpoint", 50, "shop"],
                ["process", 99],
                ["process", 100],
                ["endpoint", 100, "shop"],
                ["endpoint", 100, "mall"],
                ["dead_letters", 100]
            ]),
            json!([
                true,
                true,
                true,
                "queued",
                "queued",
                "queued",
                "queued",
                ["e1 #1 503 dead", "e2 held until 50", "m1 #1 200 delivered"],
                ["e2 #1 500 dead", "e3 held until 100"],
                {"disabled": false, "reason": null, "consecutive_failures": 2,
                 "breaker": {"state": "open", "until": 100}},
                [],
                ["e3 #1 200 delivered"],
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "closed", "until": null}},
                {"disabled": false, "reason": null, "consecutive_failures": 0},
                ["e1", "e2"]
            ]),
        );
    }

    #[test]
    fn the_window_is_measured_back_from_the_failure_and_successes_do_not_count() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [1],
                  "breaker": {"failures": 2, "window": 10, "open_for": 20, "probes": 1}}],
                ["enqueue", 0, "shop", "a", [500]],
                ["process", 0],
                ["enqueue", 10, "shop", "b", [500]],
                ["process", 10],
                ["endpoint", 10, "shop"],
                ["enqueue", 15, "shop", "c", [200]],
                ["process", 15],
                ["enqueue", 15, "shop", "d", [404]],
                ["process", 15],
                ["endpoint", 15, "shop"],
                ["endpoint", 34, "shop"],
                ["endpoint", 35, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["a #1 500 dead"],
                "queued",
                ["b #1 500 dead"],
                {"disabled": false, "reason": null, "consecutive_failures": 2,
                 "breaker": {"state": "closed", "until": null}},
                "queued",
                ["c #1 200 delivered"],
                "queued",
                ["d #1 404 dead"],
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "open", "until": 35}},
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "open", "until": 35}},
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "half-open", "until": null}}
            ]),
        );
    }

    #[test]
    fn a_held_head_takes_no_token_and_a_probe_takes_one() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 3, "waits": [10],
                  "throttle": {"burst": 2, "interval": 1000},
                  "breaker": {"failures": 1, "window": 10, "open_for": 20, "probes": 1}}],
                ["enqueue", 0, "shop", "e1", [500, 200]],
                ["process", 0],
                ["process", 10],
                ["process", 20],
                ["enqueue", 20, "shop", "e2", [200]],
                ["process", 20],
                ["endpoint", 20, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e1 #1 500 retry at 10"],
                ["e1 held until 20"],
                ["e1 #2 200 delivered"],
                "queued",
                ["e2 throttled until 1000"],
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "closed", "until": null}}
            ]),
        );
    }

    #[test]
    fn a_throttled_head_is_no_probe() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 3, "waits": [5],
                  "throttle": {"burst": 1, "interval": 100},
                  "breaker": {"failures": 1, "window": 10, "open_for": 20, "probes": 1}}],
                ["enqueue", 0, "shop", "e1", [500, 200]],
                ["process", 0],
                ["process", 20],
                ["endpoint", 20, "shop"],
                ["process", 100],
                ["endpoint", 100, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e1 #1 500 retry at 5"],
                ["e1 throttled until 100"],
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "half-open", "until": null}},
                ["e1 #2 200 delivered"],
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "closed", "until": null}}
            ]),
        );
    }

    #[test]
    fn set_policy_restarts_the_breaker_and_releases_held_events_only() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 5, "waits": [100],
                  "breaker": {"failures": 1, "window": 10, "open_for": 50, "probes": 1}}],
                ["enqueue", 0, "shop", "e1", [404]],
                ["enqueue", 0, "shop", "e2", [500, 200]],
                ["process", 0],
                // A failed set changes nothing.
                ["set_policy", 20, "shop", {"attempts": 5, "waits": [100],
                  "breaker": {"failures": 1, "window": 10, "open_for": 0, "probes": 1}}],
                ["status", 20, "e2"],
                ["set_policy", 20, "shop", {"attempts": 5, "waits": [100],
                  "breaker": {"failures": 1, "window": 10, "open_for": 50, "probes": 1}}],
                ["status", 20, "e2"],
                ["endpoint", 20, "shop"],
                ["process", 20],
                ["endpoint", 20, "shop"],
                // No breaker: Part 6's three keys, and the retry at 120 does not move.
                ["set_policy", 30, "shop", null],
                ["endpoint", 30, "shop"],
                ["status", 30, "e2"],
                ["process", 119],
                ["process", 120]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["e1 #1 404 dead", "e2 held until 50"],
                "error: invalid policy",
                {"state": "pending", "attempts": 0, "next_attempt_at": 50},
                true,
                {"state": "pending", "attempts": 0, "next_attempt_at": 20},
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "closed", "until": null}},
                ["e2 #1 500 retry at 120"],
                {"disabled": false, "reason": null, "consecutive_failures": 2,
                 "breaker": {"state": "open", "until": 70}},
                true,
                {"disabled": false, "reason": null, "consecutive_failures": 2},
                {"state": "pending", "attempts": 1, "next_attempt_at": 120},
                [],
                ["e2 #2 200 delivered"]
            ]),
        );
    }

    #[test]
    fn a_held_event_due_before_the_set_keeps_its_due_time() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [1],
                  "breaker": {"failures": 1, "window": 10, "open_for": 50, "probes": 1}}],
                ["enqueue", 0, "shop", "e1", [404]],
                ["enqueue", 0, "shop", "e2", [200]],
                ["process", 0],
                ["set_policy", 70, "shop", null],
                ["status", 70, "e2"],
                ["process", 70]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["e1 #1 404 dead", "e2 held until 50"],
                true,
                {"state": "pending", "attempts": 0, "next_attempt_at": 50},
                ["e2 #1 200 delivered"]
            ]),
        );
    }

    #[test]
    fn the_breaker_and_auto_disable_count_independently() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 5, "waits": [10], "disable_after": 2,
                  "breaker": {"failures": 2, "window": 100, "open_for": 30, "probes": 1}}],
                ["enqueue", 0, "shop", "e1", [500]],
                ["process", 0],
                ["process", 10],
                ["endpoint", 10, "shop"],
                ["status", 10, "e1"],
                ["process", 20],
                ["enable", 25, "shop", false],
                ["process", 25],
                ["endpoint", 25, "shop"],
                ["disable", 30, "shop"],
                ["enable", 30, "shop", false],
                ["status", 30, "e1"],
                ["process", 39],
                ["process", 40],
                ["endpoint", 40, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                ["e1 #1 500 retry at 10"],
                ["e1 #2 500 retry at 20", "shop disabled"],
                {"disabled": true, "reason": "failing", "consecutive_failures": 2,
                 "breaker": {"state": "open", "until": 40}},
                {"state": "held", "attempts": 2, "next_attempt_at": null},
                [],
                true,
                ["e1 held until 40"],
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "open", "until": 40}},
                true,
                true,
                {"state": "pending", "attempts": 2, "next_attempt_at": 30},
                ["e1 held until 40"],
                ["e1 #3 500 retry at 50"],
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "open", "until": 70}}
            ]),
        );
    }

    #[test]
    fn held_heads_can_expire_and_revived_events_are_held() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 5, "waits": [10], "max_age": 30,
                  "breaker": {"failures": 1, "window": 10, "open_for": 100, "probes": 1}}],
                ["enqueue", 0, "shop", "e1", [500]],
                ["enqueue", 5, "shop", "e2", [404]],
                ["process", 0],
                ["process", 10],
                ["process", 30],
                ["status", 30, "e2"],
                ["process", 35],
                ["dead_letter", 35, "e1"],
                ["recover", 40, "shop", 0],
                ["process", 40],
                ["status", 40, "e1"],
                ["endpoint", 40, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["e1 #1 500 retry at 10"],
                ["e1 held until 100"],
                ["e1 expired", "e2 held until 100"],
                {"state": "pending", "attempts": 0, "next_attempt_at": 100},
                ["e2 expired"],
                {"endpoint": "shop", "attempts": 1, "last_status": 500, "died_at": 30,
                 "reason": "expired"},
                2,
                ["e1 held until 100"],
                {"state": "pending", "attempts": 0, "next_attempt_at": 100},
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "open", "until": 100}}
            ]),
        );
    }

    #[test]
    fn time_going_back_before_t_holds_again_and_keeps_the_probes_counted() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [1],
                  "breaker": {"failures": 1, "window": 10, "open_for": 50, "probes": 2}}],
                ["enqueue", 0, "shop", "e1", [500]],
                ["enqueue", 0, "shop", "e2", [200]],
                ["process", 0],
                ["process", 50],
                ["enqueue", 40, "shop", "e3", [200]],
                ["endpoint", 40, "shop"],
                ["process", 40],
                ["endpoint", 50, "shop"],
                ["process", 50],
                ["endpoint", 40, "shop"]
            ]),
            json!([
                true,
                true,
                "queued",
                "queued",
                ["e1 #1 500 dead", "e2 held until 50"],
                ["e2 #1 200 delivered"],
                "queued",
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "open", "until": 50}},
                ["e3 held until 50"],
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "half-open", "until": null}},
                // The second success in a row: the first, before time went back, still counts.
                ["e3 #1 200 delivered"],
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "closed", "until": null}}
            ]),
        );
    }

    #[test]
    fn a_breaker_open_past_the_last_ts_stays_open_and_one_open_until_it_half_opens() {
        let max = 9_007_199_254_740_991_i64;
        let held = format!("e2 held until {max}");
        let open = json!({"disabled": false, "reason": null, "consecutive_failures": 1,
                          "breaker": {"state": "open", "until": max}});
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["register", 0, "mall", "u"],
                ["set_policy", 0, "shop", {"attempts": 1, "waits": [1],
                  "breaker": {"failures": 1, "window": 10, "open_for": 100, "probes": 1}}],
                ["set_policy", 0, "mall", {"attempts": 1, "waits": [1],
                  "breaker": {"failures": 1, "window": 10, "open_for": 5, "probes": 1}}],
                ["enqueue", max - 5, "shop", "e1", [404]],
                ["enqueue", max - 5, "shop", "e2", [200]],
                ["enqueue", max - 5, "mall", "m1", [500]],
                ["enqueue", max - 5, "mall", "m2", [200]],
                ["process", max - 5],
                ["endpoint", max, "shop"],
                ["endpoint", max, "mall"],
                // shop's T is past the limit: open at the limit too, held once per call.
                ["process", max],
                ["status", max, "e2"],
                ["process", max],
                // Opened at the last ts itself: held there as well.
                ["enqueue", max, "mall", "m3", [500]],
                ["enqueue", max, "mall", "m4", [200]],
                ["process", max],
                ["endpoint", max, "mall"],
                ["set_policy", max, "shop", null],
                ["endpoint", max, "shop"],
                ["process", max]
            ]),
            json!([
                true,
                true,
                true,
                true,
                "queued",
                "queued",
                "queued",
                "queued",
                ["e1 #1 404 dead", held, "m1 #1 500 dead", format!("m2 held until {max}")],
                open,
                {"disabled": false, "reason": null, "consecutive_failures": 1,
                 "breaker": {"state": "half-open", "until": null}},
                [held, "m2 #1 200 delivered"],
                {"state": "pending", "attempts": 0, "next_attempt_at": max},
                [held],
                "queued",
                "queued",
                [held, "m3 #1 500 dead", format!("m4 held until {max}")],
                open,
                true,
                {"disabled": false, "reason": null, "consecutive_failures": 1},
                ["e2 #1 200 delivered", format!("m4 held until {max}")]
            ]),
        );
    }

    #[test]
    fn breaker_policies_are_checked_before_the_endpoint_and_echoed_as_given() {
        check(
            json!([
                ["register", 0, "shop", "u"],
                ["set_policy", 0, "nope", {"attempts": 6, "waits": [30],
                  "breaker": {"failures": 1, "window": 1, "open_for": 1}}],
                ["set_policy", 0, "nope", {"attempts": 6, "waits": [30],
                  "breaker": {"failures": 1, "window": 1, "open_for": 1, "probes": 1}}],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30], "breaker": null}],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30],
                  "breaker": {"failures": 1000, "window": 2592000, "open_for": 2592000,
                              "probes": 100}}],
                ["policy", 0, "shop"],
                ["endpoint", 0, "shop"],
                ["set_policy", 0, "shop", {"attempts": 6, "waits": [30]}],
                ["policy", 0, "shop"],
                ["endpoint", 0, "shop"]
            ]),
            json!([
                true,
                "error: invalid policy",
                "error: unknown endpoint",
                "error: invalid policy",
                true,
                {"attempts": 6, "waits": [30],
                 "breaker": {"failures": 1000, "window": 2592000, "open_for": 2592000,
                             "probes": 100}},
                {"disabled": false, "reason": null, "consecutive_failures": 0,
                 "breaker": {"state": "closed", "until": null}},
                true,
                {"attempts": 6, "waits": [30]},
                {"disabled": false, "reason": null, "consecutive_failures": 0}
            ]),
        );
    }
}
