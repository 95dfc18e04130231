//! The JSON contract's validation rules (`op.*`, `outcomes.*`, `op.error-precedence`) and its
//! robustness: any JSON value gives one result per operation and never a panic.

use hookcheck::prng::Prng;
use hookcheck::run;
use serde_json::{Value, json};

/// Runs `setup` then `op` and returns `op`'s result.
fn result_of(setup: Value, op: Value) -> Value {
    let mut ops = match setup {
        Value::Array(items) => items,
        _ => Vec::new(),
    };
    ops.push(op);
    run(&ops).pop().unwrap_or(Value::Null)
}

fn base() -> Value {
    json!([["register", 0, "s", "u"], ["enqueue", 0, "s", "e", [200]]])
}

#[track_caller]
fn assert_error(op: Value, code: &str) {
    assert_eq!(
        result_of(base(), op.clone()),
        json!(format!("error: {code}")),
        "{op}"
    );
}

#[test]
fn operation_shape_and_names() {
    for op in [
        json!(5),
        json!("process"),
        json!({"name": "process"}),
        json!(null),
        json!(true),
    ] {
        assert_error(op, "invalid arguments");
    }
    for op in [
        json!([]),
        json!([5, 0]),
        json!([null]),
        json!(["Process", 0]),
        json!(["nope", 0]),
    ] {
        assert_error(op, "unknown operation");
    }
    // An unknown name wins over a bad arity and a bad ts.
    assert_error(json!(["frobnicate", "x", 1, 2, 3]), "unknown operation");
}

#[test]
fn arity_for_every_operation() {
    for op in [
        json!(["process"]),
        json!(["process", 0, 1]),
        json!(["register", 0, "s"]),
        json!(["register", 0, "a", "u", "x"]),
        json!(["enqueue", 0, "s", "f"]),
        json!(["status", 0]),
        json!(["disable", 0]),
        json!(["enable", 0, "s"]),
        json!(["dead_letters", 0, "s", "s"]),
        json!(["dead_letters", 0, 5]),
    ] {
        assert_error(op, "invalid arguments");
    }
    // `dead.list-endpoint`: one argument after ts is the endpoint filter.
    assert_eq!(
        result_of(base(), json!(["dead_letters", 0, "s"])),
        json!([])
    );
    assert_error(json!(["dead_letters", 0, "nowhere"]), "unknown endpoint");
}

#[test]
fn ts_must_be_an_exact_integer_in_range() {
    let limit = (1i64 << 53) - 1;
    for ts in [
        json!(true),
        json!(10.0),
        json!(1e3),
        json!("10"),
        json!(null),
        json!([1]),
        json!(limit + 1),
        json!(-limit - 1),
    ] {
        assert_error(json!(["process", ts]), "invalid arguments");
    }
    for ts in [json!(0), json!(-5), json!(limit), json!(-limit)] {
        assert!(result_of(base(), json!(["process", ts])).is_array(), "{ts}");
    }
}

#[test]
fn ids_and_urls_must_be_strings() {
    assert_error(json!(["register", 0, 5, "u"]), "invalid arguments");
    assert_error(json!(["register", 0, "t", null]), "invalid arguments");
    assert_error(
        json!(["enqueue", 0, ["s"], "f", [200]]),
        "invalid arguments",
    );
    assert_error(json!(["enqueue", 0, "s", 7, [200]]), "invalid arguments");
    assert_error(json!(["status", 0, 1]), "invalid arguments");
    assert_error(json!(["disable", 0, false]), "invalid arguments");
    assert_eq!(
        result_of(base(), json!(["register", 0, "", ""])),
        json!(true)
    );
}

#[test]
fn outcomes_validation() {
    for outcomes in [
        json!([]),
        json!(200),
        json!("200"),
        json!(null),
        json!({"a": 200}),
        json!([true]),
        json!([false]),
        json!([200.0]),
        json!([99]),
        json!([600]),
        json!([-1]),
        json!([200, null]),
        json!(["200"]),
        json!([1e2]),
    ] {
        assert_error(
            json!(["enqueue", 0, "s", "f", outcomes]),
            "invalid outcomes",
        );
    }
    for outcomes in [json!([0]), json!([100]), json!([599]), json!([503, 200])] {
        assert_eq!(
            result_of(base(), json!(["enqueue", 0, "s", "f", outcomes])),
            json!("queued")
        );
    }
}

#[test]
fn error_precedence() {
    // Argument types before outcomes, outcomes before state.
    assert_error(json!(["enqueue", 0, 1, "f", [7]]), "invalid arguments");
    assert_error(json!(["enqueue", 0, "nope", "e", [7]]), "invalid outcomes");
    // Unknown endpoint before duplicate event.
    assert_error(
        json!(["enqueue", 0, "nope", "e", [200]]),
        "unknown endpoint",
    );
    assert_error(json!(["enqueue", 0, "s", "e", [200]]), "duplicate event");
    // replay_dead before every state error of enable.
    assert_error(json!(["enable", 0, "nope", 1]), "invalid arguments");
    assert_error(json!(["enable", 0, "s", "true"]), "invalid arguments");
    assert_error(json!(["enable", 0, "nope", true]), "unknown endpoint");
    assert_error(json!(["enable", 0, "s", true]), "not disabled");
    assert_error(json!(["register", 0, "s", "v"]), "duplicate endpoint");
    assert_error(json!(["status", 0, "zzz"]), "unknown event");
}

#[test]
fn errors_change_no_state() {
    let ops = json!([
        ["register", 0, "s", "u"],
        ["register", 0, "s", "other"],
        ["enqueue", 0, "s", "e", [500, 200]],
        ["enqueue", 0, "s", "e", [404]],
        ["enqueue", 0, "nope", "f", [200]],
        ["status", 0, "f"],
        ["enable", 0, "s", true],
        ["disable", 0, "s"],
        ["disable", 0, "s"],
        ["enable", 0, "s", "yes"],
        ["status", 0, "e"],
        ["enable", 0, "s", false],
        ["process", 0],
        ["process", 30]
    ]);
    let ops = ops.as_array().cloned().unwrap_or_default();
    assert_eq!(
        run(&ops),
        json!([
            true, "error: duplicate endpoint", "queued", "error: duplicate event",
            "error: unknown endpoint", "error: unknown event", "error: not disabled", true,
            "error: already disabled", "error: invalid arguments",
            {"state": "held", "attempts": 0, "next_attempt_at": null}, true,
            ["e #1 500 retry at 30"], ["e #2 200 delivered"]
        ])
        .as_array()
        .cloned()
        .unwrap_or_default()
    );
}

/// A random JSON value, biased towards things that look like operations.
fn random_value(p: &mut Prng, depth: u32) -> Value {
    let names: Vec<&str> = hookcheck::ops::names().chain(["x"]).collect();
    match p.below(if depth > 3 { 6 } else { 9 }) {
        0 => Value::Null,
        1 => json!(p.chance(50)),
        2 => json!(p.below(700) as i64 - 50),
        3 => json!((p.below(1000) as f64) / 4.0),
        4 => json!(["s", "t", "e1", "e2", ""][p.below(5) as usize]),
        5 => json!(u64::MAX - p.below(3)),
        6 => {
            let mut items = vec![json!(p.pick(&names).copied().unwrap_or("x"))];
            items.extend((0..p.below(5)).map(|_| random_value(p, depth + 1)));
            Value::Array(items)
        }
        7 => Value::Array(
            (0..p.below(4))
                .map(|_| random_value(p, depth + 1))
                .collect(),
        ),
        _ => json!({"k": random_value(p, depth + 1)}),
    }
}

#[test]
fn any_json_gives_one_result_per_operation() {
    let mut p = Prng::new(2026);
    for _ in 0..2000 {
        let ops: Vec<Value> = (0..p.below(30)).map(|_| random_value(&mut p, 0)).collect();
        let results = run(&ops);
        assert_eq!(results.len(), ops.len());
        for r in &results {
            let ok = match r {
                Value::String(s) => s == "queued" || s.starts_with("error: "),
                Value::Bool(b) => *b,
                Value::Array(_) | Value::Object(_) => true,
                _ => false,
            };
            assert!(ok, "unexpected result {r} for {ops:?}");
        }
    }
}
