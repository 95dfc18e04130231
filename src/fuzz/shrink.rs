//! Delta debugging of a failing operation sequence: drop operations (halves down to single
//! ones), shorten outcome lists, give statuses their class's plainest value (and object entries
//! their bare status), shorten policies (fewer waits, no `disable_on_gone` or `disable_after`, a
//! threshold of 1), pull timestamps back to the previous operation's, and rename ids, keeping
//! each change that still fails.

use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::time::Instant;

/// Shrinks `ops` while `fails` holds, until nothing more helps or `deadline` passes.
pub fn shrink(
    mut ops: Vec<Value>,
    fails: &mut dyn FnMut(&[Value]) -> bool,
    deadline: Instant,
) -> Vec<Value> {
    loop {
        let before = ops.clone();
        ops = drop_operations(ops, fails, deadline);
        ops = simplify_each(ops, fails, deadline, shorter_outcomes);
        ops = simplify_each(ops, fails, deadline, plainer_statuses);
        ops = simplify_each(ops, fails, deadline, plainer_policies);
        ops = simplify_each(ops, fails, deadline, plainer_signing);
        ops = simplify_each(ops, fails, deadline, earlier_ts);
        ops = shift_tails(ops, fails, deadline);
        ops = try_whole(ops, fails, rename_ids);
        if ops == before || Instant::now() >= deadline {
            return ops;
        }
    }
}

fn drop_operations(
    mut ops: Vec<Value>,
    fails: &mut dyn FnMut(&[Value]) -> bool,
    deadline: Instant,
) -> Vec<Value> {
    let mut size = ops.len() / 2;
    while size >= 1 {
        let mut start = 0;
        while start < ops.len() {
            if Instant::now() >= deadline {
                return ops;
            }
            let end = (start + size).min(ops.len());
            let mut candidate = ops[..start].to_vec();
            candidate.extend_from_slice(&ops[end..]);
            if !candidate.is_empty() && fails(&candidate) {
                ops = candidate;
            } else {
                start += size;
            }
        }
        size /= 2;
    }
    ops
}

/// Tries each candidate that `variants` offers for each operation, keeping the first that fails.
fn simplify_each(
    mut ops: Vec<Value>,
    fails: &mut dyn FnMut(&[Value]) -> bool,
    deadline: Instant,
    variants: fn(&[Value], usize) -> Vec<Value>,
) -> Vec<Value> {
    for i in 0..ops.len() {
        for variant in variants(&ops, i) {
            if Instant::now() >= deadline {
                return ops;
            }
            let mut candidate = ops.clone();
            candidate[i] = variant;
            if fails(&candidate) {
                ops = candidate;
                break;
            }
        }
    }
    ops
}

fn try_whole(
    ops: Vec<Value>,
    fails: &mut dyn FnMut(&[Value]) -> bool,
    change: fn(&[Value]) -> Vec<Value>,
) -> Vec<Value> {
    let candidate = change(&ops);
    if candidate != ops && fails(&candidate) {
        candidate
    } else {
        ops
    }
}

fn outcomes_of(op: &Value) -> Option<&Vec<Value>> {
    (op.get(0).and_then(Value::as_str) == Some("enqueue"))
        .then(|| op.get(4).and_then(Value::as_array))
        .flatten()
}

fn with_outcomes(op: &Value, outcomes: Vec<Value>) -> Value {
    let mut op = op.clone();
    if let Some(slot) = op.get_mut(4) {
        *slot = Value::Array(outcomes);
    }
    op
}

/// The list without one entry, and the list cut to its first entries.
fn shorter_outcomes(ops: &[Value], i: usize) -> Vec<Value> {
    let Some(list) = outcomes_of(&ops[i]) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for cut in 1..list.len() {
        out.push(with_outcomes(&ops[i], list[..cut].to_vec()));
    }
    for skip in 0..list.len() {
        if list.len() > 1 {
            let mut shorter = list.clone();
            shorter.remove(skip);
            out.push(with_outcomes(&ops[i], shorter));
        }
    }
    out
}

/// Each status replaced by its class's plainest value: 200, 500 or 404; an object entry
/// (`outcomes.objects`) by its bare status first.
fn plainer_statuses(ops: &[Value], i: usize) -> Vec<Value> {
    let Some(list) = outcomes_of(&ops[i]) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, status) in list.iter().enumerate() {
        if let Some(bare) = status.get("status").filter(|s| s.is_i64()) {
            let mut plainer = list.clone();
            plainer[k] = bare.clone();
            out.push(with_outcomes(&ops[i], plainer));
            continue;
        }
        let plain = match status.as_i64() {
            Some(200..=299) => 200,
            Some(0 | 408 | 429 | 500..=599) => 500,
            Some(100..=199 | 300..=499) => 404,
            _ => continue,
        };
        if status.as_i64() != Some(plain) {
            let mut plainer = list.clone();
            plainer[k] = json!(plain);
            out.push(with_outcomes(&ops[i], plainer));
        }
    }
    out
}

/// A policy (`set_policy`) with fewer waits, without `disable_on_gone` or `disable_after`, or
/// with a threshold of 1.
fn plainer_policies(ops: &[Value], i: usize) -> Vec<Value> {
    let op = &ops[i];
    let Some(policy) = (op.get(0).and_then(Value::as_str) == Some("set_policy"))
        .then(|| op.get(3).and_then(Value::as_object))
        .flatten()
    else {
        return Vec::new();
    };
    let with_policy = |p: serde_json::Map<String, Value>| {
        let mut op = op.clone();
        if let Some(slot) = op.get_mut(3) {
            *slot = Value::Object(p);
        }
        op
    };
    let mut out = Vec::new();
    for key in [
        "disable_on_gone",
        "disable_after",
        "throttle",
        "max_age",
        "breaker",
    ] {
        if policy.contains_key(key) {
            let mut p = policy.clone();
            p.remove(key);
            out.push(with_policy(p));
        }
    }
    // The lowest threshold (`auto.policy-key`): the first failed attempt disables, so the
    // failures that led up to a higher one can go.
    if policy
        .get("disable_after")
        .and_then(Value::as_i64)
        .is_some_and(|f| f > 1)
    {
        let mut p = policy.clone();
        p.insert("disable_after".to_string(), json!(1));
        out.push(with_policy(p));
    }
    let waits = policy.get("waits").and_then(Value::as_array);
    for cut in 1..waits.map_or(0, Vec::len) {
        let mut p = policy.clone();
        p.insert(
            "waits".to_string(),
            Value::Array(waits.map(|w| w[..cut].to_vec()).unwrap_or_default()),
        );
        out.push(with_policy(p));
    }
    out
}

/// Part 8: an `enqueue` without its payload (the empty body), a `verify` with one secret fewer.
fn plainer_signing(ops: &[Value], i: usize) -> Vec<Value> {
    let op = &ops[i];
    let Some(list) = op.as_array() else {
        return Vec::new();
    };
    match list.first().and_then(Value::as_str) {
        Some("enqueue") if list.len() == 6 => vec![Value::Array(list[..5].to_vec())],
        Some("verify") => {
            let secrets = list.get(2).and_then(Value::as_array);
            (0..secrets.map_or(0, |s| if s.len() > 1 { s.len() } else { 0 }))
                .map(|drop| {
                    let mut op = op.clone();
                    if let Some(Value::Array(s)) = op.get_mut(2) {
                        s.remove(drop);
                    }
                    op
                })
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The operation at the previous operation's time (or 0 for the first), keeping time in order.
fn earlier_ts(ops: &[Value], i: usize) -> Vec<Value> {
    let ts = |op: &Value| op.get(1).and_then(Value::as_i64);
    let Some(own) = ts(&ops[i]) else {
        return Vec::new();
    };
    let previous = ops[..i].iter().rev().find_map(ts).unwrap_or(0);
    if own <= previous {
        return Vec::new();
    }
    let mut op = ops[i].clone();
    if let Some(slot) = op.get_mut(1) {
        *slot = json!(previous);
    }
    vec![op]
}

/// Closes each gap in time: operation `i` and every later one move back by the gap between `i`
/// and the operation before it, so their timing relative to each other is kept.
fn shift_tails(
    mut ops: Vec<Value>,
    fails: &mut dyn FnMut(&[Value]) -> bool,
    deadline: Instant,
) -> Vec<Value> {
    let ts = |op: &Value| op.get(1).and_then(Value::as_i64);
    for i in 1..ops.len() {
        if Instant::now() >= deadline {
            break;
        }
        let previous = ops[..i].iter().rev().find_map(ts).unwrap_or(0);
        let Some(gap) = ts(&ops[i]).map(|t| t - previous).filter(|g| *g > 0) else {
            continue;
        };
        let candidate: Vec<Value> = ops
            .iter()
            .enumerate()
            .map(|(k, op)| match (k >= i, ts(op)) {
                (true, Some(t)) => {
                    let mut op = op.clone();
                    if let Some(slot) = op.get_mut(1) {
                        *slot = json!(t - gap);
                    }
                    op
                }
                _ => op.clone(),
            })
            .collect();
        if fails(&candidate) {
            ops = candidate;
        }
    }
    ops
}

/// Event ids become e1, e2... and endpoint ids a, b... in order of first use.
fn rename_ids(ops: &[Value]) -> Vec<Value> {
    let mut events: BTreeMap<String, String> = BTreeMap::new();
    let mut endpoints: BTreeMap<String, String> = BTreeMap::new();
    let rename =
        |map: &mut BTreeMap<String, String>, v: &mut Value, fresh: &dyn Fn(usize) -> String| {
            if let Some(s) = v.as_str() {
                let n = map.len();
                let new = map.entry(s.to_string()).or_insert_with(|| fresh(n)).clone();
                *v = Value::String(new);
            }
        };
    let endpoint_name = |n: usize| {
        let letters = "abcdefghijklmnopqrstuvwxyz";
        letters
            .get(n..=n)
            .map_or_else(|| format!("ep{n}"), str::to_string)
    };
    let event_name = |n: usize| format!("e{}", n + 1);
    ops.iter()
        .map(|op| {
            let mut op = op.clone();
            let name = op.get(0).and_then(Value::as_str).unwrap_or("").to_string();
            let (endpoint_at, event_at) = match name.as_str() {
                "register" | "disable" | "enable" | "dead_letters" | "set_policy" | "policy"
                | "endpoint" | "recover" => (Some(2), None),
                "enqueue" => (Some(2), Some(3)),
                "status" | "dead_letter" => (None, Some(2)),
                _ => (None, None),
            };
            if let Some(slot) = endpoint_at.and_then(|k| op.get_mut(k)) {
                rename(&mut endpoints, slot, &endpoint_name);
            }
            if let Some(slot) = event_at.and_then(|k| op.get_mut(k)) {
                rename(&mut events, slot, &event_name);
            }
            op
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A "bug" that shows whenever a 503 is enqueued and processed at or after ts 100.
    fn planted(ops: &[Value]) -> bool {
        let has_503 = ops
            .iter()
            .any(|o| outcomes_of(o).is_some_and(|l| l.contains(&json!(503))));
        has_503
            && ops.iter().any(|o| {
                o.get(0) == Some(&json!("process")) && o.get(1).and_then(Value::as_i64) >= Some(100)
            })
    }

    #[test]
    fn shrinks_to_the_operations_that_matter() {
        let mut ops = vec![json!(["register", 0, "shop", "u"])];
        for i in 0..100 {
            ops.push(json!([
                "enqueue",
                i,
                "shop",
                format!("evt-{i}"),
                [200, 404]
            ]));
            ops.push(json!(["process", i * 3]));
        }
        ops.insert(
            120,
            json!(["enqueue", 60, "shop", "the-one", [0, 503, 201]]),
        );
        assert!(planted(&ops));
        let mut calls = 0;
        let mut fails = |o: &[Value]| {
            calls += 1;
            planted(o)
        };
        let small = shrink(ops, &mut fails, Instant::now() + Duration::from_secs(10));
        assert_eq!(small.len(), 2, "{small:?}");
        assert_eq!(small[0], json!(["enqueue", 0, "a", "e1", [503]]));
        assert_eq!(small[1].get(0), Some(&json!("process")));
        assert!(calls < 2000, "{calls} evaluations");
    }

    #[test]
    fn renaming_is_consistent() {
        let ops = vec![
            json!(["register", 0, "shop", "u"]),
            json!(["enqueue", 0, "shop", "x", [200]]),
            json!(["status", 0, "x"]),
            json!(["disable", 0, "shop"]),
        ];
        let renamed = rename_ids(&ops);
        assert_eq!(renamed[1], json!(["enqueue", 0, "a", "e1", [200]]));
        assert_eq!(renamed[2], json!(["status", 0, "e1"]));
        assert_eq!(renamed[3], json!(["disable", 0, "a"]));
        let ops = vec![
            json!(["register", 0, "shop", "u"]),
            json!(["set_policy", 0, "shop", null]),
            json!(["policy", 0, "shop"]),
            json!(["dead_letters", 0, "shop"]),
            json!(["endpoint", 0, "shop"]),
            json!(["recover", 0, "shop", 0]),
        ];
        assert!(rename_ids(&ops)[1..].iter().all(|op| op[2] == json!("a")));
        let ops = vec![
            json!(["register", 0, "shop", "u"]),
            json!(["enqueue", 0, "shop", "x", [404]]),
            json!(["dead_letter", 0, "x"]),
            json!(["dead_letter", 0, "never"]),
            json!(["recover", 0, "shop", 5]),
        ];
        let renamed = rename_ids(&ops);
        assert_eq!(renamed[2], json!(["dead_letter", 0, "e1"]));
        assert_eq!(renamed[3], json!(["dead_letter", 0, "e2"]));
        // `since` is a time, not an id.
        assert_eq!(renamed[4], json!(["recover", 0, "a", 5]));
    }

    #[test]
    fn payloads_go_and_verify_keeps_fewer_secrets() {
        let ops = [
            json!(["enqueue", 0, "a", "e", [200], "body"]),
            json!(["verify", 0, ["s1", "s2"], {}, ""]),
            json!(["verify", 0, ["s1"], {}, ""]),
        ];
        assert_eq!(
            plainer_signing(&ops, 0),
            vec![json!(["enqueue", 0, "a", "e", [200]])]
        );
        assert_eq!(
            plainer_signing(&ops, 1),
            vec![
                json!(["verify", 0, ["s2"], {}, ""]),
                json!(["verify", 0, ["s1"], {}, ""])
            ]
        );
        assert!(plainer_signing(&ops, 2).is_empty(), "one secret stays");
    }

    #[test]
    fn objects_become_bare_statuses_and_policies_shorter() {
        let ops = vec![json!([
            "enqueue",
            0,
            "a",
            "e1",
            [{"status": 503, "retry_after": 90}, 200]
        ])];
        assert_eq!(
            plainer_statuses(&ops, 0)[0],
            json!(["enqueue", 0, "a", "e1", [503, 200]])
        );
        let ops = vec![json!([
            "set_policy",
            0,
            "a",
            {"attempts": 3, "waits": [10, 20, 30], "disable_on_gone": true, "disable_after": 2}
        ])];
        let plainer = plainer_policies(&ops, 0);
        assert_eq!(
            plainer[0],
            json!(["set_policy", 0, "a", {"attempts": 3, "waits": [10, 20, 30], "disable_after": 2}])
        );
        assert_eq!(
            plainer[1],
            json!(["set_policy", 0, "a", {"attempts": 3, "waits": [10, 20, 30], "disable_on_gone": true}])
        );
        assert_eq!(plainer[2][3]["disable_after"], json!(1));
        assert_eq!(plainer[3][3]["waits"], json!([10]));
        assert_eq!(plainer.len(), 5);
    }
}
