//! Part 9's operations (spec section 15), for an implementation that declares `throttle`:
//! throttles in policies, invalid throttles, and a burst on a throttled endpoint followed by
//! `process` calls at and between its token times.
//!
//! In brief mode only what the roadmap settles is made: one burst on an enabled endpoint, at
//! the case's end once every other event is settled (the case's pending events are driven to
//! their end first), so that a throttled record has no other endpoint's records to be placed
//! among (`throttle.record`), and the endpoint is never paused (`throttle.pause`). Both readings
//! of the token clock (`throttle.clock`) must agree: with an interval of 1 they always do, and
//! the burst may then hold failures and retries; with a longer one its events are delivered at
//! once, tokens are first taken on the clock's own times (after an idle stretch of whole
//! intervals), and calls are less than an interval apart while events wait, so that the bucket
//! is never full when a token is taken off the clock. The throttle is removed only once nothing
//! waits (so `throttle.release` has nothing to release), and never set again (`throttle.set`).
//!
//! Nothing here draws for an implementation without Part 9.

use super::{ENDPOINTS, State};
use serde_json::{Value, json};

/// `throttle.valid`: the largest `burst` and `interval`.
const MAX_BURST: i64 = 1_000_000;
const MAX_INTERVAL: i64 = 2_592_000;
/// Intervals of generated throttles: short, so that tokens come within a case.
const INTERVALS: [i64; 7] = [1, 2, 3, 5, 10, 30, 60];

impl State {
    /// A valid throttle: a small burst, a short interval.
    pub(super) fn throttle_value(&mut self) -> Value {
        let burst = *self.p.pick(&[1, 1, 2, 3, 5]).unwrap_or(&1);
        let interval = *self.p.pick(&INTERVALS).unwrap_or(&1);
        json!({"burst": burst, "interval": interval})
    }

    /// A throttle the roadmap makes `"error: invalid policy"` (`throttle.policy-key`): not an
    /// object, a value of the wrong type, below 1; outside brief mode also what only
    /// `throttle.valid` refuses (a key missing or of another name, `null`, above the bounds).
    pub(super) fn bad_throttle(&mut self) -> Value {
        let brief_forms = [
            json!(5),
            json!("fast"),
            json!([2, 10]),
            json!(true),
            json!({"burst": 0, "interval": 10}),
            json!({"burst": 2, "interval": 0}),
            json!({"burst": -1, "interval": 10}),
            json!({"burst": "2", "interval": 10}),
            json!({"burst": 2, "interval": [10]}),
        ];
        let clarified = [
            Value::Null,
            json!({"burst": 2}),
            json!({"interval": 10}),
            json!({}),
            json!({"burst": 2, "interval": 10, "rate": 1}),
            json!({"Burst": 2, "interval": 10}),
            json!({"burst": MAX_BURST + 1, "interval": 10}),
            json!({"burst": 2, "interval": MAX_INTERVAL + 1}),
        ];
        if !self.brief && self.p.chance(45) {
            self.p.pick(&clarified).cloned().unwrap_or(Value::Null)
        } else {
            self.p.pick(&brief_forms).cloned().unwrap_or(Value::Null)
        }
    }

    /// Whether an event the case enqueued is still pending or held: one whose retry comes due
    /// while the burst waits behind it would take a token from a bucket refilled meanwhile.
    fn any_pending(&mut self) -> bool {
        let ts = self.ts;
        let ids: Vec<String> = self.known.iter().map(|(id, _)| id.clone()).collect();
        ids.iter().any(|id| {
            let status = self.shadow.step(&json!(["status", ts, id]));
            !matches!(status["state"].as_str(), Some("delivered" | "dead"))
        })
    }

    /// A throttle set on an endpoint, an idle stretch now and then, a burst of events beyond
    /// it enqueued at once, calls at and between its token times while they wait, and at times
    /// the throttle removed and a burst let through. Outside brief mode on any endpoint, with
    /// failures among the events and calls at any distance; in brief mode see the module.
    /// Nothing is added once the case holds `cap` operations.
    pub(super) fn throttle_scenario(&mut self, endpoints: usize, cap: usize) {
        self.throttle_done = true;
        // The burst and its calls take at most 30 operations.
        if self.ops.len() + 30 > cap {
            return;
        }
        let ep = ENDPOINTS[self.p.below(endpoints as u64) as usize];
        if self.brief {
            // Enabled (a policy set while disabled is a clarification's,
            // `policy.while-disabled`), and nothing pending anywhere: the events left are driven
            // to their end by calls past every wait (30 days at most), a few at most.
            for _ in 0..12 {
                if !self.any_pending() || self.ops.len() + 30 > cap {
                    break;
                }
                self.ts = self.ts.saturating_add(2_592_001);
                self.push(json!(["process", self.ts]));
            }
            // Checked after the calls, which may have disabled it (`auto.disable`).
            if self.any_pending() || self.disabled.contains(ep) {
                return;
            }
        }
        let mut throttle = self.throttle_value();
        if self.brief && self.p.chance(50) {
            throttle["interval"] = json!(1);
        }
        let burst = throttle["burst"].as_i64().unwrap_or(1);
        let interval = throttle["interval"].as_i64().unwrap_or(1);
        // Failures and retries only where no reading of the clock can tell (see the module).
        let failures = !self.brief || interval == 1;
        let mut policy = self.valid_policy();
        if let Some(map) = policy.as_object_mut() {
            map.insert("throttle".to_string(), throttle);
        }
        self.push(json!(["set_policy", self.ts, ep, policy.clone()]));
        // The bucket full for whole intervals: tokens that come to a full bucket are lost.
        if self.p.chance(50) {
            self.ts = self
                .ts
                .saturating_add(interval * (1 + self.p.below(4) as i64));
        }
        let extra = 1 + self.p.below(4) as i64;
        self.burst(ep, burst + extra, failures);
        self.push(json!(["process", self.ts]));
        // Each call less than an interval after the last: at most one token comes between
        // two, and the events waiting take it. Outside brief mode some calls land a whole
        // interval later.
        for _ in 0..extra + 1 + self.p.below(3) as i64 {
            let step = if interval == 1 || (!self.brief && self.p.chance(20)) {
                interval
            } else {
                1 + self.p.below((interval - 1) as u64) as i64
            };
            self.ts = self.ts.saturating_add(step);
            self.push(json!(["process", self.ts]));
            if !self.brief && self.p.chance(25) {
                let id = format!("t{}", self.events);
                self.push(json!(["status", self.ts, id]));
            }
        }
        // Retries and the events behind them, driven on where the clock allows it.
        if failures {
            for _ in 0..8 {
                if !self.any_pending() || self.ops.len() >= cap {
                    break;
                }
                self.ts = self.ts.saturating_add(1 + self.p.below(30) as i64);
                self.push(json!(["process", self.ts]));
            }
        }
        // The throttle removed: a burst goes at once (`throttle.remove`).
        let room = self.ops.len() + 2 + (burst + extra) as usize <= cap;
        if room && self.p.chance(50) && !self.any_pending() && !self.disabled.contains(ep) {
            if let Some(map) = policy.as_object_mut() {
                map.remove("throttle");
            }
            self.push(json!(["set_policy", self.ts, ep, policy]));
            self.burst(ep, burst + extra, false);
            self.push(json!(["process", self.ts]));
        }
    }

    /// `count` events enqueued on `ep` at once: delivered at their first attempt, or with
    /// `failures` now and then any outcomes.
    fn burst(&mut self, ep: &str, count: i64, failures: bool) {
        for _ in 0..count {
            self.events += 1;
            let id = format!("t{}", self.events);
            let outcomes = if failures && self.p.chance(40) {
                self.outcomes()
            } else {
                vec![200]
            };
            self.push(json!(["enqueue", self.ts, ep, id, outcomes]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::generator;
    use crate::case::Part;
    use serde_json::Value;

    /// How many of 300 cases hold a throttled record, and how many a throttle refused.
    fn reached(parts: &[Part], brief_only: bool) -> (usize, usize) {
        let g = generator(parts, brief_only);
        let (mut throttled, mut refused) = (0, 0);
        for i in 0..300 {
            let ops = g.case(5, i);
            let results = crate::ops::run(&ops);
            let records = results.iter().filter_map(Value::as_array).flatten();
            if records
                .filter_map(Value::as_str)
                .any(|r| r.contains(" throttled until "))
            {
                throttled += 1;
            }
            if ops.iter().zip(&results).any(|(op, r)| {
                op.get(3).and_then(|p| p.get("throttle")).is_some() && r == "error: invalid policy"
            }) {
                refused += 1;
            }
        }
        (throttled, refused)
    }

    #[test]
    fn throttled_heads_and_refused_throttles_are_reached_in_both_modes() {
        for brief_only in [false, true] {
            let (throttled, refused) = reached(&Part::ALL, brief_only);
            // Brief mode throttles only cases of one endpoint, about a quarter of them; Part 8's
            // scenario and Parts 10 and 11's policies share the case's room (measured: 72 of
            // 300 outside brief mode with them).
            let least = if brief_only { 30 } else { 60 };
            assert!(throttled >= least, "brief {brief_only}: {throttled} of 300");
            assert!(refused >= 5, "brief {brief_only}: {refused} of 300");
        }
        // Without Part 9, never a throttle.
        assert_eq!(reached(&Part::ALL[..7], false), (0, 0));
    }
}
