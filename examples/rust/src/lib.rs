//! A simulated webhook dispatcher: retries on a per-endpoint policy (by default capped
//! exponential backoff) that honours Retry-After and may pause an endpoint on 410 Gone,
//! per-endpoint delivery order, and pausing endpoints with optional replay of dead letters.
//!
//! [`run`] is the whole public interface: it replays a list of JSON operations against a fresh
//! dispatcher and returns one JSON result per operation.

mod decode;
mod dispatcher;
mod error;
mod schedule;

use serde_json::{Map, Value};

use decode::{Command, Operation};
use dispatcher::{Dispatcher, Status};
use error::Error;
use schedule::Policy;

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
        } => {
            dispatcher.enqueue(ts, &endpoint, &event, outcomes)?;
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
            dispatcher.set_policy(&endpoint, policy)?;
            Value::Bool(true)
        }
        Command::Policy { endpoint } => policy_object(dispatcher.policy(&endpoint)?),
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
            // Part 6's key: not offered, so an unknown key.
            json!({"attempts": 6, "waits": [30], "disable_after": 3}),
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
}
