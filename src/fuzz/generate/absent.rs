//! Probes of the roadmap's parts an implementation does not declare: among its generated
//! operations, now and then one of a part it leaves out (`set_policy`, `policy`, `endpoint`,
//! `dead_letter`, `recover`, and Part 8's `set_secret`, `signature` and `verify`), an outcomes
//! entry that is an object without Part 5, an `enqueue` with a payload without Part 8, and outside
//! brief mode a policy carrying a key of a part left out (`policy.strict`) and the same
//! operations with faults in their arguments (the name comes first, `op.error-precedence`).
//! Each must be unknown or invalid to it and change nothing (`crate::ops::absent`).
//!
//! The probes are drawn from a generator of their own and inserted into [`Generator::case`]'s
//! operations, which stay what they were: an implementation that answers the probes as the
//! spec says meets, for a seed, the sequences and findings it met before.

use super::{Generator, case_seed};
use crate::case::Part;
use crate::prng::Prng;
use serde_json::{Value, json};

/// Keeps the probes' draws apart from the sequence's own.
const PROBES: u64 = 0x5052_4f42_4553_2121;
/// Keeps Part 9's probes apart from the others': those of an implementation of Parts 1 to 7
/// are the ones it met before Part 9 existed.
const THROTTLE_PROBES: u64 = PROBES ^ 9;
/// Part 8's, apart from all of the above for the same reason.
const SIGNATURE_PROBES: u64 = PROBES ^ 8;
/// Part 11's, likewise.
const EXPIRY_PROBES: u64 = PROBES ^ 11;
/// Part 10's, likewise.
const BREAKER_PROBES: u64 = PROBES ^ 10;

impl Generator {
    /// Case `index` of the run seeded with `seed` as the fuzzer sends it: [`Generator::case`]
    /// with, in about half the cases, one to three probes of the parts not declared.
    pub fn sequence(&self, seed: u64, index: u64) -> Vec<Value> {
        let mut ops = self.case(seed, index);
        self.probe_parts(&mut ops, seed, index);
        // Last, each from a generator of its own, so that the other probes are where they were
        // before Parts 8 to 11.
        self.probe_policy_key(&mut ops, seed, index, Part::Throttle, THROTTLE_PROBES, |p| {
            let throttle = json!({"burst": 1 + p.below(3), "interval": 1 + p.below(10)});
            json!({"attempts": 1 + p.below(4), "waits": [1 + p.below(30)], "throttle": throttle})
        });
        self.probe_signatures(&mut ops, seed, index);
        self.probe_policy_key(&mut ops, seed, index, Part::Expiry, EXPIRY_PROBES, |p| {
            json!({"attempts": 1 + p.below(4), "waits": [1 + p.below(30)],
                   "max_age": 1 + p.below(100)})
        });
        self.probe_policy_key(&mut ops, seed, index, Part::Breaker, BREAKER_PROBES, |p| {
            let breaker = json!({"failures": 1 + p.below(3), "window": 60,
                                 "open_for": 1 + p.below(60), "probes": 1});
            json!({"attempts": 1 + p.below(4), "waits": [1 + p.below(30)], "breaker": breaker})
        });
        ops
    }

    /// Without `part` (9, 10 or 11) and with Part 4, in a third of the cases, a policy carrying
    /// that part's key, which `policy` draws: no key of the policy to it, so `"error: invalid
    /// policy"` (`throttle.parts`, `breaker.parts`, `expiry.parts`, the roadmap's rules, so
    /// brief mode too). Without Part 4, `set_policy` is unknown anyway. `salt` keeps each part's
    /// draws apart from the others'.
    fn probe_policy_key(
        &self,
        ops: &mut Vec<Value>,
        seed: u64,
        index: u64,
        part: Part,
        salt: u64,
        policy: impl FnOnce(&mut Prng) -> Value,
    ) {
        if self.parts.contains(&part) || !self.parts.contains(&Part::Policy) {
            return;
        }
        let mut p = Prng::new(case_seed(seed, index) ^ salt);
        if ops.is_empty() || !p.chance(33) {
            return;
        }
        let (at, ts) = place(&mut p, ops);
        let policy = policy(&mut p);
        ops.insert(at, json!(["set_policy", ts, "a", policy]));
    }

    /// Without Part 8, in a third of the cases, one of its operations: unknown
    /// (`op.unknown-name`, a rule of the brief's). Outside brief mode also an `enqueue` with a
    /// payload, which has one argument too many (`sig.absent`, a clarification), under a
    /// fresh id: an implementation that queues it shows it at once.
    fn probe_signatures(&self, ops: &mut Vec<Value>, seed: u64, index: u64) {
        if self.parts.contains(&Part::Signatures) {
            return;
        }
        let mut p = Prng::new(case_seed(seed, index) ^ SIGNATURE_PROBES);
        if ops.is_empty() || !p.chance(33) {
            return;
        }
        let (at, ts) = place(&mut p, ops);
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let probe = match p.below(if self.brief_only { 3 } else { 4 }) {
            0 => json!(["set_secret", ts, "a", secret]),
            1 => json!(["signature", ts, "e1", 1]),
            2 => json!(["verify", ts, [secret],
                        {"webhook-id": "e1", "webhook-timestamp": ts.to_string(),
                         "webhook-signature": "v1,x"}, ""]),
            _ => json!([
                "enqueue",
                ts,
                "a",
                format!("q{}", (seed ^ index) % 1000),
                [200],
                "{}"
            ]),
        };
        ops.insert(at, probe);
    }

    /// The probes of Parts 4 to 7.
    fn probe_parts(&self, ops: &mut Vec<Value>, seed: u64, index: u64) {
        let absent: Vec<Part> = [
            Part::Policy,
            Part::RetryAfter,
            Part::AutoDisable,
            Part::DeadLetters,
        ]
        .into_iter()
        .filter(|p| !self.parts.contains(p))
        .collect();
        if absent.is_empty() {
            return;
        }
        let mut p = Prng::new(case_seed(seed, index) ^ PROBES);
        if !p.chance(50) {
            return;
        }
        for _ in 0..1 + p.below(3) {
            let (at, ts) = place(&mut p, ops);
            let part = p.pick(&absent).copied().unwrap_or(Part::Policy);
            let probe = self.probe(&mut p, part, ts, seed ^ index);
            ops.insert(at, probe);
        }
    }

    fn probe(&self, p: &mut Prng, part: Part, ts: i64, tag: u64) -> Value {
        let faults = !self.brief_only && p.chance(25);
        let policy = self.parts.contains(&Part::Policy);
        match part {
            Part::Policy if faults => p
                .pick(&[
                    json!(["set_policy"]),
                    json!(["policy", ts]),
                    json!(["set_policy", "x", 7, 1, 2]),
                    json!(["policy", ts, 7]),
                ])
                .cloned()
                .unwrap_or(Value::Null),
            Part::Policy => match p.below(3) {
                0 => json!(["set_policy", ts, "a", {"attempts": 1, "waits": [5]}]),
                1 => json!(["set_policy", ts, "a", null]),
                _ => json!(["policy", ts, "a"]),
            },
            // A key of a part not offered is a clarification's (`policy.strict`).
            Part::RetryAfter | Part::AutoDisable if policy && !self.brief_only && p.chance(40) => {
                let key = if part == Part::RetryAfter {
                    ("disable_on_gone", json!(p.chance(50)))
                } else {
                    ("disable_after", json!(1 + p.below(5)))
                };
                let mut object = json!({"attempts": 1 + p.below(4), "waits": [1 + p.below(30)]});
                if let Some(map) = object.as_object_mut() {
                    map.insert(key.0.to_string(), key.1);
                }
                json!(["set_policy", ts, "a", object])
            }
            Part::RetryAfter => {
                // A fresh id: an implementation that accepts it has an event the reference
                // has not, and every later step of it shows.
                let id = format!("n{}", tag % 1000);
                let outcomes = p
                    .pick(&[
                        json!([{"status": 200}]),
                        json!([503, {"status": 503, "retry_after": 5}]),
                        json!([{"status": 404}, 200]),
                    ])
                    .cloned()
                    .unwrap_or(Value::Null);
                json!(["enqueue", ts, "a", id, outcomes])
            }
            Part::AutoDisable if faults => p
                .pick(&[json!(["endpoint"]), json!(["endpoint", ts, 7])])
                .cloned()
                .unwrap_or(Value::Null),
            Part::AutoDisable => json!(["endpoint", ts, "a"]),
            Part::DeadLetters if faults => p
                .pick(&[
                    json!(["recover"]),
                    json!(["recover", ts, "a", "0"]),
                    json!(["dead_letter", ts, 7, 8]),
                ])
                .cloned()
                .unwrap_or(Value::Null),
            _ => match p.below(2) {
                0 => json!(["dead_letter", ts, "e1"]),
                _ => json!(["recover", ts, "a", -1 - p.below(100) as i64]),
            },
        }
    }
}

/// Where a probe goes among `ops` (not empty) and the `ts` it takes: after the first
/// registration, so `a` exists (a probe of an endpoint is of one the implementation knows),
/// at the time of the operation before it.
fn place(p: &mut Prng, ops: &[Value]) -> (usize, i64) {
    let at = 1 + p.below(ops.len() as u64) as usize;
    let ts = ops
        .get(at - 1)
        .and_then(|op| op.get(1))
        .and_then(Value::as_i64)
        .filter(|t| t.unsigned_abs() < 1 << 53)
        .unwrap_or(0);
    (at, ts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    use super::super::tests::generator;

    #[test]
    #[ignore = "slow: .ci/run runs it with --ignored"]
    fn probes_are_additions_of_absent_parts_only() {
        let roadmap = [
            Part::Policy,
            Part::RetryAfter,
            Part::AutoDisable,
            Part::DeadLetters,
            Part::Signatures,
            Part::Throttle,
            Part::Breaker,
            Part::Expiry,
        ];
        for bits in 0..256u32 {
            let mut parts = Part::BRIEF.to_vec();
            parts.extend((0..8).filter(|i| bits & 1 << i != 0).map(|i| roadmap[i]));
            if Part::check_declared(&parts).is_err() {
                continue;
            }
            for brief_only in [false, true] {
                let g = generator(&parts, brief_only);
                let mut probed = BTreeSet::new();
                for i in 0..200 {
                    let (case, sequence) = (g.case(4, i), g.sequence(4, i));
                    // The case's own operations, in order, with the probes among them.
                    let mut own = case.iter();
                    let mut next = own.next();
                    for op in &sequence {
                        if next == Some(op) {
                            next = own.next();
                            continue;
                        }
                        let (part, _) = crate::ops::absent(op, &parts)
                            .unwrap_or_else(|| panic!("{parts:?}: {op} is no probe"));
                        probed.insert(part);
                    }
                    assert_eq!(next, None, "{parts:?}: case {i} lost an operation");
                    // Answered as the parts declared say, the probes change nothing.
                    let full = crate::ops::run_declared(&sequence, &parts);
                    let mut own = crate::ops::run(&case).into_iter();
                    for (op, result) in sequence.iter().zip(full) {
                        if crate::ops::absent(op, &parts).is_none() {
                            assert_eq!(Some(result), own.next(), "{parts:?}: case {i}: {op}");
                        }
                    }
                    if brief_only {
                        let case = crate::fuzz::adhoc_case_for("x", &sequence, true, &parts);
                        assert!(crate::fuzz::in_brief_domain(&case), "{sequence:?}");
                    }
                }
                // Parts 9 and 11 are probed with a policy, which needs Part 4: without it, the
                // probes of Part 4 show that `set_policy` is unknown.
                let expected: BTreeSet<Part> = roadmap
                    .into_iter()
                    .filter(|p| !parts.contains(p))
                    .filter(|p| {
                        !matches!(p, Part::Throttle | Part::Breaker | Part::Expiry)
                            || parts.contains(&Part::Policy)
                    })
                    .collect();
                assert_eq!(probed, expected, "{parts:?}, brief {brief_only}");
            }
        }
    }

    #[test]
    fn every_part_declared_means_no_probe() {
        let g = generator(&Part::ALL, false);
        for i in 0..50 {
            assert_eq!(g.sequence(6, i), g.case(6, i));
        }
    }
}
