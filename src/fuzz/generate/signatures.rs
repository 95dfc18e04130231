//! Part 8's operations (spec section 16), for an implementation that declares `signatures`: an
//! endpoint of its own given secrets and rotated, events with payloads driven through retries,
//! every attempt's headers asked for, and the receiver's `verify` of those headers as sent,
//! tampered with, or read at clocks around the tolerance.
//!
//! In brief mode only what the roadmap settles is made: fresh secrets (no secret set twice,
//! `sig.same-secret`), at most ten rotations (which secret an eleventh drops is
//! `sig.keep-ten-oldest`'s), no attempt exactly a grace after a rotation
//! (`sig.grace-boundary`), no replay (`sig.replay`), well-formed arguments only, header names
//! as `signature` gives them, and only the calls whose result is no error, as the roadmap names
//! no code (`sig.signature-codes`, `sig.verify-codes`): the headers of attempts made, and the
//! checks that pass, at receivers' clocks never exactly the tolerance away.
//!
//! Nothing here draws for an implementation without Part 8.

use super::{State, TS_LIMIT};
use serde_json::{Value, json};

/// The endpoint the scenario registers: no other generator names it, so its throttle, pause
/// and policy are the scenario's alone.
const ENDPOINT: &str = "signed";
/// Valid secrets of 24, 32 and 64 bytes (the roadmap's known answer first).
const SECRETS: [&str; 6] = [
    "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    "whsec_aG9va2NoZWNrIGtleSBCLCAzMiBieXRlcyBsb25nISE=",
    "whsec_aG9va2NoZWNrIGtleSBEIDI0IGJ5dGVz",
    "whsec_aG9va2NoZWNrIGtleSBFLCAyNSBieXRlcw==",
    "whsec_aG9va2NoZWNrIGtleSBDOiBzaXh0eS1mb3VyIGJ5dGVzIGxvbmcsIHRoZSBsYXJnZXN0IGEga2V5IG1heSBiZQ==",
    "whsec_aG9va2NoZWNrIHJvdGtleSAwMCBwYWQh",
];
/// Secrets `sig.secret-strict` refuses: no prefix, 23 and 65 bytes, no padding, URL-safe,
/// a space, a number.
fn bad_secrets() -> [Value; 7] {
    [
        json!("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
        json!("whsec_aG9va2NoZWNrIGtleSBEIDI0IGJ5dGU="),
        json!(format!("whsec_{}", "QUFB".repeat(21) + "QUE=")),
        json!("whsec_aG9va2NoZWNrIGtleSBFLCAyNSBieXRlcw"),
        json!("whsec_aG9va2NoZWNrIGtleSBCLCAzMiBieXRlcyBsb25nISE-"),
        json!("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La LaSw"),
        json!(24),
    ]
}
const PAYLOADS: [&str; 6] = [
    "",
    r#"{"test": 2432232314}"#,
    r#"{"type":"order.created","id":1}"#,
    "plain text\nwith a newline",
    "caf\u{e9} \u{1f600}",
    "a.b.c",
];
const GRACE: i64 = 86_400;

impl State {
    /// The scenario: its endpoint registered, a secret, events with payloads, rotations between
    /// their attempts, calls until they settle, then their headers and receivers' checks.
    /// Nothing is added once the case holds `cap` operations.
    pub(super) fn signature_scenario(&mut self, cap: usize) {
        self.signature_done = true;
        // The throttle's burst, if still to come, keeps its room.
        let cap = cap.saturating_sub(if self.throttle && !self.throttle_done {
            30
        } else {
            0
        });
        if self.ops.len() + 20 > cap {
            return;
        }
        let ep = ENDPOINT;
        if !self.registered.iter().any(|r| r == ep) {
            self.push(json!([
                "register",
                self.ts,
                ep,
                "https://signed.example/hooks"
            ]));
        }
        let mut order: Vec<usize> = (0..SECRETS.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, self.p.below(i as u64 + 1) as usize);
        }
        let mut fresh = order.into_iter().cycle();
        // The times of the rotations: every `set_secret` after the first.
        let mut rotations: Vec<i64> = Vec::new();
        self.push_secret(&mut fresh);
        let count = 1 + self.p.below(3);
        let first = self.events;
        for _ in 0..count {
            self.events += 1;
            let id = format!("s{}", self.events);
            let outcomes = if self.p.chance(50) {
                self.outcomes()
            } else {
                vec![200]
            };
            let payload = *self.p.pick(&PAYLOADS).unwrap_or(&"");
            let op = if self.p.chance(20) {
                json!(["enqueue", self.ts, ep, id, outcomes])
            } else {
                json!(["enqueue", self.ts, ep, id, outcomes, payload])
            };
            self.push(op);
        }
        if self.p.chance(45) {
            let by = self.p.below(50) as i64;
            self.ts = self.later(by);
            rotations.push(self.ts);
            self.push_secret(&mut fresh);
        }
        // Calls until the events settle, a rotation now and then between them, and at times a
        // stretch of about a grace.
        let most_rotations = if self.brief { 10 } else { 14 };
        for _ in 0..12 {
            if self.ops.len() + 12 > cap {
                break;
            }
            if rotations.len() < most_rotations && self.p.chance(30) {
                let by = self.p.below(100) as i64;
                self.ts = self.later(by);
                rotations.push(self.ts);
                self.push_secret(&mut fresh);
            }
            let step = match self.p.below(10) {
                0 => GRACE - 1 + self.p.below(3) as i64,
                1 => GRACE * 2,
                _ => *self.p.pick(&[0, 1, 30, 60, 120, 300, 1000]).unwrap_or(&30),
            };
            let mut at = self
                .next_due(ep)
                .map_or(self.later(step), |due| due.max(self.ts));
            if self.p.chance(30) {
                at = at.saturating_add(step).min(TS_LIMIT);
            }
            if self.brief {
                while at < TS_LIMIT && rotations.iter().any(|r| at - r == GRACE) {
                    at += 1;
                }
            }
            self.ts = at;
            self.push(json!(["process", self.ts]));
            if !self.brief && self.p.chance(10) {
                // A replay: attempts numbered from 1 again, signed by the secrets of their time.
                self.push(json!(["disable", self.ts, ep]));
                self.push(json!(["enable", self.ts, ep, true]));
            }
            if self.next_due(ep).is_none() && self.p.chance(60) {
                break;
            }
        }
        // Every attempt's headers, one past the last, and the receivers' checks of them.
        for k in first + 1..=self.events {
            let id = format!("s{k}");
            let attempts = self.shadow.step(&json!(["status", self.ts, id]))["attempts"]
                .as_u64()
                .unwrap_or(0);
            let asked = if self.brief { attempts } else { attempts + 1 };
            for n in 1..=asked {
                if self.ops.len() + 3 > cap {
                    return;
                }
                let ask = json!(["signature", self.ts, id, n]);
                let headers = self.shadow.step(&ask);
                self.push(ask);
                if headers.is_object() && self.p.chance(60) {
                    let body = self.body_of(&id);
                    self.verify_headers(headers, body);
                }
            }
        }
        if !self.brief && self.p.chance(40) {
            let op = self.signature_op();
            self.push(op);
        }
    }

    /// A `set_secret` of the scenario's endpoint: the next of `fresh`, or outside brief mode now
    /// and then one set before, the current one included (`sig.same-secret`).
    fn push_secret(&mut self, fresh: &mut impl Iterator<Item = usize>) {
        let secret = if !self.brief && self.p.chance(15) {
            SECRETS[self.p.below(SECRETS.len() as u64) as usize]
        } else {
            SECRETS[fresh.next().unwrap_or(0)]
        };
        self.push(json!(["set_secret", self.ts, ENDPOINT, secret]));
    }

    /// `by` seconds after the case's time, never past the largest valid `ts`.
    fn later(&self, by: i64) -> i64 {
        self.ts.saturating_add(by).min(TS_LIMIT)
    }

    /// The due time of the scenario endpoint's head, if it has one pending.
    fn next_due(&mut self, ep: &str) -> Option<i64> {
        let ids: Vec<String> = self
            .known
            .iter()
            .filter(|(_, e)| e == ep)
            .map(|(id, _)| id.clone())
            .collect();
        ids.iter()
            .filter_map(|id| {
                self.shadow.step(&json!(["status", self.ts, id]))["next_attempt_at"].as_i64()
            })
            .min()
    }

    /// The payload an event was enqueued with (the empty body without one).
    fn body_of(&self, id: &str) -> String {
        self.ops
            .iter()
            .find(|op| op[0] == "enqueue" && op[3] == id)
            .and_then(|op| op.get(5))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    }

    /// A receiver's `verify` of headers `signature` gave: at a clock around their timestamp,
    /// with some of the secrets, and now and then the headers or the body tampered with.
    fn verify_headers(&mut self, mut headers: Value, mut body: String) {
        let t = headers["webhook-timestamp"]
            .as_str()
            .and_then(|t| t.parse::<i64>().ok())
            .unwrap_or(self.ts);
        let offsets: &[i64] = if self.brief {
            &[0, 0, 1, -1, 150, -150, 299, -299, 301, -301, 5000]
        } else {
            &[0, 0, 1, -1, 299, -299, 300, -300, 301, -301, 5000]
        };
        // Within 5000 s of a valid timestamp: a valid `ts` or just past one, which `verify`
        // refuses as it refuses any `ts` out of range (`op.ts-range`).
        let clock = t.saturating_add(*self.p.pick(offsets).unwrap_or(&0));
        let mut secrets: Vec<&str> = (0..1 + self.p.below(3))
            .filter_map(|_| self.p.pick(&SECRETS).copied())
            .collect();
        secrets.dedup();
        match self.p.below(10) {
            0 => body.push('!'),
            1 => {
                // Another version before the signatures: some v1 one may still match.
                let sig = headers["webhook-signature"].as_str().unwrap_or("");
                headers["webhook-signature"] = json!(format!("v2,{} {sig}", "A".repeat(43) + "="));
            }
            2 if !self.brief => {
                let keys = ["webhook-id", "webhook-timestamp", "webhook-signature"];
                let key = *self.p.pick(&keys).unwrap_or(&"webhook-id");
                if let Some(map) = headers.as_object_mut() {
                    let value = map.remove(key).unwrap_or(Value::Null);
                    if self.p.chance(50) {
                        map.insert(key.to_uppercase(), value);
                    }
                }
            }
            3 if !self.brief => {
                let forms = ["01", "1.0", "+5", " 5", "", "x"];
                headers["webhook-timestamp"] = json!(*self.p.pick(&forms).unwrap_or(&"x"));
            }
            _ => {}
        }
        // The receiver's clock is its own: `verify` reads no state, so a clock before the
        // dispatcher's latest `ts` is no time going back (`op.ts-any-order` is of state).
        let op = json!(["verify", clock, secrets, headers, body]);
        if self.brief && self.shadow.step(&op) != Value::Bool(true) {
            return;
        }
        self.push(op);
    }

    /// One Part 8 operation, outside brief mode: a secret (valid or not) on any endpoint, the
    /// headers of any attempt number, a `verify` with malformed arguments, an `enqueue` with a
    /// payload that is not a string.
    pub(super) fn signature_op(&mut self) -> Value {
        let ts = self.advance();
        let ep = self
            .registered
            .get(self.p.below(self.registered.len().max(1) as u64) as usize)
            .cloned()
            .unwrap_or_else(|| "a".to_string());
        match self.p.below(5) {
            0 | 1 => {
                let secret = if self.p.chance(60) {
                    json!(*self.p.pick(&SECRETS).unwrap_or(&SECRETS[0]))
                } else {
                    let bad = bad_secrets();
                    self.p.pick(&bad).cloned().unwrap_or(Value::Null)
                };
                json!(["set_secret", ts, ep, secret])
            }
            2 => {
                let id = self
                    .known
                    .get(self.p.below(self.known.len().max(1) as u64) as usize)
                    .map_or_else(|| "nope".to_string(), |(id, _)| id.clone());
                let forms = [json!(0), json!(1), json!(2), json!(-1), json!(1.5)];
                let n = self.p.pick(&forms).cloned().unwrap_or(Value::Null);
                json!(["signature", ts, id, n])
            }
            3 => {
                let args = [
                    json!([[], {}, ""]),
                    json!([["whsec_x"], {}, ""]),
                    json!([[SECRETS[0]], {"webhook-id": 5}, ""]),
                    json!([[SECRETS[0]], {"webhook-id": "a", "webhook-timestamp": "0"}, 7]),
                    json!([[SECRETS[0]], [], ""]),
                    json!([SECRETS[0], {}, ""]),
                ];
                let mut op = vec![json!("verify"), json!(ts)];
                if let Some(Value::Array(a)) = self.p.pick(&args) {
                    op.extend(a.iter().cloned());
                }
                Value::Array(op)
            }
            _ => {
                self.events += 1;
                let forms = [json!(null), json!(5), json!(["x"]), json!({})];
                let payload = self.p.pick(&forms).cloned().unwrap_or(Value::Null);
                json!([
                    "enqueue",
                    ts,
                    ep,
                    format!("s{}", self.events),
                    [200],
                    payload
                ])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::generator;
    use crate::case::Part;
    use serde_json::Value;

    /// How many of 300 cases hold headers with two signatures or more, a `verify` that is true
    /// and one that is not.
    fn reached(parts: &[Part], brief_only: bool) -> (usize, usize, usize) {
        let g = generator(parts, brief_only);
        let (mut rotated, mut verified, mut refused) = (0, 0, 0);
        for i in 0..300 {
            let ops = g.case(8, i);
            let results = crate::ops::run(&ops);
            let named = |name: &'static str| {
                ops.iter()
                    .zip(&results)
                    .filter(move |(op, _)| op[0] == name)
                    .map(|(_, r)| r)
            };
            if named("signature").any(|r| {
                r["webhook-signature"]
                    .as_str()
                    .is_some_and(|s| s.contains(' '))
            }) {
                rotated += 1;
            }
            if named("verify").any(|r| r == &Value::Bool(true)) {
                verified += 1;
            }
            if named("verify").any(Value::is_string) {
                refused += 1;
            }
        }
        (rotated, verified, refused)
    }

    #[test]
    fn rotations_and_both_verdicts_of_verify_are_reached_in_both_modes() {
        for brief_only in [false, true] {
            let (rotated, verified, refused) = reached(&Part::ALL, brief_only);
            assert!(
                rotated >= 30,
                "brief {brief_only}: {rotated} of 300 rotated"
            );
            assert!(
                verified >= 20,
                "brief {brief_only}: {verified} of 300 verified"
            );
            // Brief mode makes only the checks that pass: a code is a clarification's.
            let least = if brief_only { 0 } else { 30 };
            assert!(
                refused >= least,
                "brief {brief_only}: {refused} of 300 refused"
            );
            if brief_only {
                assert_eq!(refused, 0, "brief mode: a verify that fails");
            }
        }
        // Without Part 8, never a signature operation.
        let without: Vec<Part> = Part::ALL
            .into_iter()
            .filter(|p| *p != Part::Signatures)
            .collect();
        assert_eq!(reached(&without, false), (0, 0, 0));
    }
}
