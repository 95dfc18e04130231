//! The brief's three worked examples, run through the JSON `run` contract, record for record.

use hookcheck::run;
use serde_json::{Value, json};

fn ops(v: Value) -> Vec<Value> {
    match v {
        Value::Array(items) => items,
        other => panic!("test operations must be an array, got {other}"),
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
        true, "queued",
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
        ["status", 50, "evt-1"],
        ["status", 50, "evt-2"],
        ["process", 50]
    ]));
    let expected = ops(json!([
        true, "queued",
        ["evt-1 #1 404 dead"],
        true, "queued", true,
        {"state": "pending", "attempts": 0, "next_attempt_at": 50},
        {"state": "pending", "attempts": 0, "next_attempt_at": 50},
        ["evt-1 #1 404 dead", "evt-2 #1 200 delivered"]
    ]));
    assert_eq!(run(&operations), expected);
}

#[test]
fn status_keys_print_in_the_briefs_order() {
    let operations = ops(json!([
        ["register", 0, "s", "u"],
        ["enqueue", 0, "s", "e", [200]],
        ["status", 0, "e"]
    ]));
    let text = serde_json::to_string(&run(&operations)[2]).unwrap_or_default();
    assert_eq!(
        text,
        r#"{"state":"pending","attempts":0,"next_attempt_at":0}"#
    );
}
