//! The roadmap's operations (spec sections 11 and 12), for an implementation that declares
//! Part 4 (`policy`) or Part 5 (`retry-after`): policies set, reset and queried, also while a
//! retry waits; outcome lists mixing statuses and objects whose `retry_after` lies below, inside
//! and above the clamp's range [w, 2w]; 410s under `disable_on_gone` true and false; the invalid
//! policies and objects whose results the roadmap fixes; and, outside brief mode, the
//! clarifications' forms and retries due at the edge of `op.ts-range` (`retry.beyond-range`).
//!
//! Nothing here is called, and so nothing here draws, for an implementation of the brief's
//! three parts alone.

use super::{ENDPOINTS, State, TS_LIMIT};
use serde_json::{Value, json};

/// `policy.valid`, `outcomes.objects`: the longest wait and the largest `retry_after`, 30 days.
const MAX_WAIT: i64 = 2_592_000;
/// The default policy's waits (`policy.default`), for an endpoint the shadow has no policy of.
const DEFAULT_WAITS: [i64; 5] = [30, 60, 120, 240, 300];
/// Waits of generated policies. Mostly short, so that retries come due within a case.
const SHORT_WAITS: [i64; 12] = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 100, 120];
/// Around the brief's 300-second cap, which belongs to the default policy only
/// (`policy.in-force`): another policy may wait longer.
const LONG_WAITS: [i64; 6] = [240, 299, 300, 301, 600, 1000];
/// Hours to the 30-day limit: such a retry is rarely reached, but its due time is still checked.
const HUGE_WAITS: [i64; 4] = [3600, 86_400, 604_800, MAX_WAIT];

impl State {
    /// `percent` of the time, when an endpoint was disabled by a 410 or a threshold, an
    /// `enable` of it, with or without replay: without one, its held events (and, with replay,
    /// its dead) would never be attempted again.
    pub(super) fn enable_a_disabled(&mut self, percent: u64) -> Option<Value> {
        if !(self.pause && !self.gone.is_empty() && self.p.chance(percent)) {
            return None;
        }
        let at = self.p.below(self.gone.len() as u64) as usize;
        let ep = self.gone.swap_remove(at);
        Some(self.enable_op(&ep, 50))
    }

    /// A roadmap operation in place of one of the brief's.
    pub(super) fn roadmap_op(&mut self) -> Value {
        // `gone.disable`: `enable` resumes an endpoint a 410 disabled.
        if let Some(enable) = self.enable_a_disabled(60) {
            return enable;
        }
        // Invalid object entries, more often than `malformed` alone would give them. For an
        // endpoint that exists: whether outcomes or the endpoint are checked first is only a
        // clarification's (`op.error-precedence`).
        if self.retry_after && self.p.chance(10) {
            let ep = self.p.pick(&self.registered).cloned();
            if let Some(ep) = ep {
                self.events += 1;
                let id = format!("bad{}", self.events);
                let strict = !self.brief && self.p.chance(30);
                let outcomes = self.bad_object_outcomes(strict);
                return json!(["enqueue", self.ts, ep, id, outcomes]);
            }
        }
        if !self.policy {
            return self.process();
        }
        let ts = self.ts;
        match self.p.below(100) {
            0..=34 => {
                let ep = self.policy_endpoint();
                if !self.may_set_policy(&ep) {
                    return json!(["policy", ts, ep]);
                }
                let policy = self.valid_policy();
                json!(["set_policy", ts, ep, policy])
            }
            // `policy.default`: back to the brief's schedule.
            35..=42 => {
                let ep = self.policy_endpoint();
                if !self.may_set_policy(&ep) {
                    return json!(["policy", ts, ep]);
                }
                json!(["set_policy", ts, ep, null])
            }
            43..=62 => {
                let ep = self.policy_endpoint();
                json!(["policy", ts, ep])
            }
            63..=84 => {
                // Rejected whatever the endpoint's state (`policy.set-errors`), so any endpoint.
                let ep = self.policy_endpoint();
                let policy = self.bad_policy();
                json!(["set_policy", ts, ep, policy])
            }
            _ => self.policy_call_error(),
        }
    }

    /// Whether `set_policy` on `ep` stays where the generator's mode allows: brief mode sets no
    /// policy on a disabled endpoint, whose result only a clarification fixes
    /// (`policy.while-disabled`).
    pub(super) fn may_set_policy(&self, ep: &str) -> bool {
        !self.brief || !self.disabled.contains(ep)
    }

    /// An endpoint for `set_policy` or `policy`: a registered one, or now and then one that is
    /// not, whose result the roadmap fixes (`policy.set-errors`, `policy.get`), so brief mode
    /// draws it too.
    pub(super) fn policy_endpoint(&mut self) -> String {
        match self.p.pick(&self.registered) {
            Some(ep) if !self.p.chance(4) => ep.clone(),
            _ => "zz".to_string(),
        }
    }

    fn wait_pick(&mut self) -> i64 {
        let from: &[i64] = match self.p.below(10) {
            0..=5 => &SHORT_WAITS,
            6 | 7 => &LONG_WAITS,
            8 => &HUGE_WAITS,
            // Anything up to ten minutes, off the round numbers above.
            _ => return 1 + self.p.below(600) as i64,
        };
        *self.p.pick(from).unwrap_or(&30)
    }

    /// A valid policy (`policy.valid`): mostly 1 to 10 attempts, so deaths come before and after
    /// the default's sixth; 1 to 5 waits; with Part 5, `disable_on_gone` absent, true or false;
    /// with Part 6, now and then a `disable_after` (`auto.policy-key`).
    pub(super) fn valid_policy(&mut self) -> Value {
        let attempts = match self.p.below(10) {
            // One attempt: every retryable failure is a death.
            0 => 1,
            // The bounds, and the default's count and one more.
            1 => *self.p.pick(&[2, 100, 6, 7]).unwrap_or(&2),
            _ => 1 + self.p.below(10) as i64,
        };
        let waits: Vec<i64> = (0..1 + self.p.below(5)).map(|_| self.wait_pick()).collect();
        let mut policy = json!({"attempts": attempts, "waits": waits});
        if self.retry_after {
            let flag = match self.p.below(20) {
                0..=6 => None,
                7..=14 => Some(true),
                _ => Some(false),
            };
            if let (Some(flag), Some(map)) = (flag, policy.as_object_mut()) {
                map.insert("disable_on_gone".to_string(), json!(flag));
            }
        }
        // Drawn last, and only with Part 6: the policies of fewer parts keep their draws.
        if self.auto && self.p.chance(35) {
            let threshold = self.threshold(0);
            if let Some(map) = policy.as_object_mut() {
                map.insert("disable_after".to_string(), json!(threshold));
            }
        }
        // Part 9's, after Part 6's; in brief mode a throttle comes only with its scenario.
        if self.throttle && !self.brief && self.p.chance(30) {
            let throttle = self.throttle_value();
            if let Some(map) = policy.as_object_mut() {
                map.insert("throttle".to_string(), throttle);
            }
        }
        // Part 11's, last. Not in brief mode: which events expire when a policy changes, and
        // where their records go among the attempts, are clarifications (`expiry.deadline`,
        // `expiry.which`, `expiry.record`). Ages from a second to an hour: some events expire
        // before their first attempt, some between retries, most never.
        if self.expiry && !self.brief && self.p.chance(30) {
            let age = *self
                .p
                .pick(&[1_i64, 2, 5, 30, 60, 100, 300, 3600])
                .unwrap_or(&60);
            if let Some(map) = policy.as_object_mut() {
                map.insert("max_age".to_string(), json!(age));
            }
        }
        // Part 10's, drawn after Part 11's. Not in brief mode: the window's edge, where held
        // records go, probes in one call and a new policy's effect are clarifications
        // (`breaker.window`, `breaker.record`, `breaker.probes`, `breaker.set`). Small numbers,
        // so that breakers open, hold, probe and close within a case.
        if self.breaker && !self.brief && self.p.chance(35) {
            let breaker = json!({
                "failures": 1 + self.p.below(3),
                "window": *self.p.pick(&[1_i64, 10, 30, 60, 300]).unwrap_or(&60),
                "open_for": *self.p.pick(&[1_i64, 5, 30, 60, 120]).unwrap_or(&30),
                "probes": 1 + self.p.below(3),
            });
            if let Some(map) = policy.as_object_mut() {
                map.insert("breaker".to_string(), breaker);
            }
        }
        policy
    }

    /// An invalid policy (`policy.valid`, `gone.policy-key`, `auto.policy-key`), each with one
    /// fault: out of range, empty or missing, an unknown key, not an object, a value of the
    /// wrong type; outside brief mode also the integers only `policy.strict` rejects (booleans,
    /// whole numbers written with a fraction).
    fn bad_policy(&mut self) -> Value {
        let mut forms: Vec<u64> = vec![0, 1, 2, 3, 4, 5];
        if self.retry_after {
            forms.push(6);
        }
        if !self.brief {
            forms.push(7);
        }
        // Part 6's forms come last, so the forms of fewer parts keep their draws; Part 9's
        // after them.
        if self.auto {
            forms.extend([8, 8]);
            if !self.brief {
                forms.push(9);
            }
        }
        if self.throttle {
            forms.extend([10, 10]);
        }
        // Part 11's bounds are a clarification (`expiry.valid`).
        if self.expiry && !self.brief {
            forms.extend([11, 11]);
        }
        // Part 10's bounds and types are a clarification too (`breaker.valid`).
        if self.breaker && !self.brief {
            forms.extend([12, 12]);
        }
        let mut policy = self.valid_policy();
        let form = self.p.pick(&forms).copied().unwrap_or(0);
        let Some(map) = policy.as_object_mut() else {
            return Value::Null;
        };
        match form {
            0 => {
                let attempts = *self
                    .p
                    .pick(&[0_i64, 101, -1, 1000, 4_294_967_297])
                    .unwrap_or(&0);
                map.insert("attempts".to_string(), json!(attempts));
            }
            1 => {
                let mut waits: Vec<i64> = map
                    .get("waits")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_i64)
                    .collect();
                if self.p.chance(25) {
                    waits.clear();
                } else {
                    let bad = *self.p.pick(&[0, -1, MAX_WAIT + 1, 1 << 40]).unwrap_or(&0);
                    let at = self.p.below(waits.len() as u64 + 1) as usize;
                    waits.insert(at, bad);
                }
                map.insert("waits".to_string(), json!(waits));
            }
            2 => match self.p.below(3) {
                0 => {
                    map.remove("attempts");
                }
                1 => {
                    map.remove("waits");
                }
                _ => map.clear(),
            },
            3 => {
                // A key of no part: a misspelling, or another part's word. (`disable_on_gone`
                // is one only with Part 5, and then valid: `policy.strict`.)
                let key = *self
                    .p
                    .pick(&["Attempts", "wait", "max_attempts", "retry_after", ""])
                    .unwrap_or(&"wait");
                map.insert(key.to_string(), json!(5));
            }
            4 => {
                return self
                    .p
                    .pick(&[
                        json!([3, [10]]),
                        json!([]),
                        json!("default"),
                        json!("null"),
                        json!(5),
                        json!(true),
                    ])
                    .cloned()
                    .unwrap_or(Value::Null);
            }
            5 => {
                // Each value is the wrong type for the key it goes with.
                let (key, value) = self
                    .p
                    .pick(&[
                        ("attempts", json!("3")),
                        ("attempts", json!(null)),
                        ("attempts", json!([3])),
                        ("attempts", json!({"n": 3})),
                        ("waits", json!(30)),
                        ("waits", json!("30")),
                        ("waits", json!(null)),
                        ("waits", json!({"0": 30})),
                        ("waits", json!([null])),
                        ("waits", json!(["30"])),
                        ("waits", json!([[30]])),
                    ])
                    .cloned()
                    .unwrap_or(("attempts", Value::Null));
                map.insert(key.to_string(), value);
            }
            6 => {
                let flag = self
                    .p
                    .pick(&[
                        json!(1),
                        json!(0),
                        json!("true"),
                        json!(null),
                        json!([true]),
                    ])
                    .cloned()
                    .unwrap_or(Value::Null);
                map.insert("disable_on_gone".to_string(), flag);
            }
            8 => {
                let bad = self.bad_threshold(false);
                map.insert("disable_after".to_string(), bad);
            }
            9 => {
                let bad = self.bad_threshold(true);
                map.insert("disable_after".to_string(), bad);
            }
            10 => {
                let bad = self.bad_throttle();
                map.insert("throttle".to_string(), bad);
            }
            11 => {
                let bad = self
                    .p
                    .pick(&[
                        json!(0),
                        json!(-1),
                        json!(31_536_001),
                        json!("60"),
                        json!(null),
                        json!(true),
                        json!([60]),
                        json!(60.0),
                        json!(1e3),
                    ])
                    .cloned()
                    .unwrap_or(Value::Null);
                map.insert("max_age".to_string(), bad);
            }
            12 => {
                let bad = self.bad_breaker();
                map.insert("breaker".to_string(), bad);
            }
            _ => {
                let (key, value) = self
                    .p
                    .pick(&[
                        ("attempts", json!(true)),
                        ("attempts", json!(3.0)),
                        ("waits", json!([true])),
                        ("waits", json!([30.0])),
                        ("waits", json!([30, 60.0])),
                    ])
                    .cloned()
                    .unwrap_or(("attempts", Value::Null));
                map.insert(key.to_string(), value);
            }
        }
        policy
    }

    /// `set_policy` and `policy` with the wrong number of arguments, a `ts` that is not an
    /// integer, a non-string endpoint id, or (`policy.set-errors`) an invalid policy for an
    /// unknown endpoint or after a non-string id: one fault each, or the faults whose order the
    /// roadmap fixes; outside brief mode also faults whose order only `op.error-precedence` fixes.
    fn policy_call_error(&mut self) -> Value {
        let ts = self.ts;
        let ep = self.policy_endpoint();
        // Drawn first and built after: most forms need no policy.
        let forms = if self.brief { 12 } else { 16 };
        match self.p.below(forms) {
            0 => json!(["set_policy", ts, ep]),
            1 => json!(["set_policy", ts]),
            2 => {
                let good = self.valid_policy();
                json!(["set_policy", ts, ep, good.clone(), good])
            }
            3 => json!(["policy", ts]),
            4 => json!(["policy", ts, ep.clone(), ep]),
            5 => json!(["set_policy", ts, 7, self.valid_policy()]),
            6 => json!(["set_policy", ts, null, self.bad_policy()]),
            7 => json!(["set_policy", ts, "zz", self.bad_policy()]),
            8 => json!(["policy", ts, 7]),
            9 => json!(["policy", ts, ["a"]]),
            10 => json!(["policy", format!("{ts}"), ep]),
            11 => json!(["set_policy", ts as f64 + 0.5, ep, self.valid_policy()]),
            // Clarifications from here on.
            12 => json!(["set_policy", ts, 7]),
            13 => json!(["policy", true, ep]),
            14 => json!(["set_policy", TS_LIMIT + 1, ep, self.valid_policy()]),
            _ => json!(["policy", "x", 7, 8]),
        }
    }

    /// The waits of `endpoint`'s policy in force, as the shadow holds it (`policy.get`), read
    /// from its dispatcher rather than through a `policy` operation: this runs for every
    /// enqueue, and a JSON round trip would cost more than the rest of the draw.
    fn waits_of(&self, endpoint: &str) -> Vec<i64> {
        match self.shadow.dispatcher().policy(endpoint) {
            Ok(policy) => policy.waits().iter().map(|w| i64::from(*w)).collect(),
            Err(_) => DEFAULT_WAITS.to_vec(),
        }
    }

    /// Enqueues an event of `ep` at the current time, its outcomes written by `entries`;
    /// returns its id.
    fn enqueue_entries(&mut self, ep: &str, prefix: &str, statuses: Vec<i64>) -> String {
        self.events += 1;
        let id = format!("{prefix}{}", self.events);
        let outcomes = self.entries(statuses, ep);
        self.push(json!(["enqueue", self.ts, ep, id.clone(), outcomes]));
        id
    }

    /// The outcomes of an event of `endpoint`: `statuses` as the brief's generator drew them,
    /// or with Part 5 now and then a list of the statuses Part 5 is about, and with some
    /// entries as objects (`outcomes.objects`).
    pub(super) fn entries(&mut self, statuses: Vec<i64>, endpoint: &str) -> Value {
        if !self.retry_after {
            return json!(statuses);
        }
        let statuses = if self.p.chance(40) {
            self.roadmap_statuses()
        } else {
            statuses
        };
        self.objects(statuses, endpoint)
    }

    /// `statuses` as they are, with Part 5 some as objects (`outcomes.objects`), whose
    /// `retry_after` lies around the wait of the attempt it decides.
    pub(super) fn objects(&mut self, statuses: Vec<i64>, endpoint: &str) -> Value {
        if !self.retry_after {
            return json!(statuses);
        }
        // Entry k decides attempt k + 1, whose wait is the policy's k-th (`policy.in-force`).
        // The policy may change before that attempt fails: then the value lands elsewhere
        // relative to the clamp's range, which is as good a test.
        let waits = self.waits_of(endpoint);
        let entries = statuses
            .iter()
            .enumerate()
            .map(|(k, status)| {
                let w = waits.get(k).or(waits.last()).copied().unwrap_or(30);
                self.entry(*status, w)
            })
            .collect();
        Value::Array(entries)
    }

    /// Statuses where Part 5 changes something: throttled or unavailable (429, 503) runs, gone
    /// (410) alone or after retries, other permanent failures (which disable nothing whatever
    /// the policy, `gone.default`), and mixes.
    fn roadmap_statuses(&mut self) -> Vec<i64> {
        match self.p.below(6) {
            0 | 1 => {
                let mut v: Vec<i64> = (0..1 + self.p.below(6))
                    .map(|_| *self.p.pick(&[429, 503]).unwrap_or(&503))
                    .collect();
                if self.p.chance(60) {
                    v.push(*self.p.pick(&[200, 404, 500, 410]).unwrap_or(&200));
                }
                v
            }
            2 => vec![410],
            3 => vec![*self.p.pick(&[503, 429, 500, 0]).unwrap_or(&503), 410],
            4 => vec![*self.p.pick(&[404, 400, 409, 301, 100, 499]).unwrap_or(&404)],
            _ => (0..1 + self.p.below(4))
                .map(|_| {
                    *self
                        .p
                        .pick(&[0, 408, 429, 500, 503, 599, 410, 200])
                        .unwrap_or(&503)
                })
                .collect(),
        }
    }

    /// One outcomes entry for `status` on an attempt whose policy wait is `w`: a plain status,
    /// `{"status": S}`, or `{"status": S, "retry_after": R}`. `retry_after` matters on 429 and
    /// 503 (`retry-after.wait`), so it is there most often; on any other status it must change
    /// nothing (`retry-after.ignored`).
    fn entry(&mut self, status: i64, w: i64) -> Value {
        let (object, with_retry_after) = match status {
            429 | 503 => (self.p.chance(80), self.p.chance(85)),
            0 | 408 | 500..=599 => (self.p.chance(30), self.p.chance(80)),
            _ => (self.p.chance(15), self.p.chance(50)),
        };
        if !object {
            return json!(status);
        }
        if !with_retry_after {
            return json!({"status": status});
        }
        let r = self.retry_after_near(w);
        // Keys in either order: an object's keys have none.
        if self.p.chance(20) {
            json!({"retry_after": r, "status": status})
        } else {
            json!({"status": status, "retry_after": r})
        }
    }

    /// A `retry_after` around `w`'s clamp range [w, 2w]: below it (0 included), at and next to
    /// its bounds, inside, above, and the largest valid value.
    fn retry_after_near(&mut self, w: i64) -> i64 {
        let r = match self.p.below(12) {
            0 => 0,
            1 => w / 2,
            2 => w - 1,
            3 => w,
            4 => w + 1,
            5 => w + w / 2,
            6 => 2 * w - 1,
            7 => 2 * w,
            8 => 2 * w + 1,
            9 => 3 * w,
            10 => MAX_WAIT,
            _ => self.p.below(4 * w.max(1) as u64 + 1) as i64,
        };
        r.clamp(0, MAX_WAIT)
    }

    /// Outcomes with one invalid object entry among valid ones (`outcomes.objects`): a key not
    /// its own, no `status`, a value out of range or of the wrong type. `strict`: the entries
    /// only `outcomes.objects-strict` rejects, booleans and whole numbers with a fraction.
    pub(super) fn bad_object_outcomes(&mut self, strict: bool) -> Value {
        // As text, parsed once picked: most are never used in a call, and the text keeps the
        // spelling of `45.0` as written.
        const BRIEF: [&str; 18] = [
            r#"{"status": 503, "retry_after": -1}"#,
            r#"{"status": 503, "retry_after": 2592001}"#,
            r#"{"status": 429, "retry_after": 1099511627776}"#,
            r#"{"status": 503, "Retry-After": 30}"#,
            r#"{"status": 503, "wait": 30}"#,
            r#"{"retry_after": 30}"#,
            r#"{}"#,
            r#"{"status": 600}"#,
            r#"{"status": -1, "retry_after": 5}"#,
            r#"{"status": 99}"#,
            r#"{"status": "503"}"#,
            r#"{"status": null}"#,
            r#"{"status": [503]}"#,
            r#"{"status": {"code": 503}}"#,
            r#"{"status": 503, "retry_after": "30"}"#,
            r#"{"status": 503, "retry_after": null}"#,
            r#"{"status": 503, "retry_after": [30]}"#,
            r#"{"status": 503, "retry_after": {"s": 30}}"#,
        ];
        const STRICT: [&str; 5] = [
            r#"{"status": true}"#,
            r#"{"status": 503, "retry_after": true}"#,
            r#"{"status": 503.0}"#,
            r#"{"status": 429, "retry_after": 45.0}"#,
            r#"{"status": 503, "retry_after": 45.5}"#,
        ];
        let from: &[&str] = if strict { &STRICT } else { &BRIEF };
        let text = self.p.pick(from).copied().unwrap_or("{}");
        let bad = serde_json::from_str(text).unwrap_or(Value::Null);
        let mut entries: Vec<Value> = (0..self.p.below(3))
            .map(|_| {
                let status = self.status_pick();
                self.entry(status, 30)
            })
            .collect();
        let at = self.p.below(entries.len() as u64 + 1) as usize;
        entries.insert(at, bad);
        Value::Array(entries)
    }

    /// An event fails with a retryable status and its retry is scheduled; then the endpoint's
    /// policy changes while the retry waits (`policy.no-reschedule`): often to fewer attempts
    /// than already made, or back to the default; outside brief mode sometimes while the
    /// endpoint is disabled (`policy.while-disabled`). Processing goes on at the due times.
    pub(super) fn policy_scenario(&mut self, endpoints: usize, ordering: bool) {
        self.policy_done = true;
        let ep = self.scenario_endpoint(endpoints, ordering);
        if self.retry_after && self.p.chance(35) {
            self.gone_scenario(ep, ordering);
            return;
        }
        if self.may_set_policy(&ep) && self.p.chance(60) {
            let policy = self.valid_policy();
            self.push(json!(["set_policy", self.ts, ep.clone(), policy]));
        }
        let first = *self.p.pick(&[503, 429, 500, 0, 408]).unwrap_or(&503);
        let statuses = match self.p.below(3) {
            0 => vec![first],
            1 => {
                let mut v = vec![first; 2 + self.p.below(4) as usize];
                v.push(200);
                v
            }
            _ => vec![first, first, 404],
        };
        let id = self.enqueue_entries(&ep, "q", statuses);
        self.push_processes(3);
        let made = self
            .shadow
            .step(&json!(["status", self.ts, id.clone()]))
            .get("attempts")
            .and_then(Value::as_i64)
            .unwrap_or(0);
        let paused = self.pause && !self.brief && !self.disabled.contains(&ep) && self.p.chance(30);
        if paused {
            self.push(json!(["disable", self.ts, ep.clone()]));
        }
        let policy = match self.p.below(4) {
            0 => Value::Null,
            // As many attempts as made so far or fewer: the scheduled retry is still made.
            1 => {
                let attempts = 1 + self.p.below(made.max(1) as u64) as i64;
                let waits: Vec<i64> = (0..1 + self.p.below(3)).map(|_| self.wait_pick()).collect();
                json!({"attempts": attempts, "waits": waits})
            }
            _ => self.valid_policy(),
        };
        if self.may_set_policy(&ep) {
            self.push(json!(["set_policy", self.ts, ep.clone(), policy]));
        }
        if self.p.chance(40) {
            self.push(json!(["policy", self.ts, ep.clone()]));
        }
        if paused {
            self.push_enable(&ep, 50);
        }
        self.push_processes(4);
        if self.p.chance(60) {
            self.push(json!(["status", self.ts, id]));
        }
    }

    /// One of the endpoints registered at the start, or without ordering a fresh one.
    fn scenario_endpoint(&mut self, endpoints: usize, ordering: bool) -> String {
        if ordering {
            ENDPOINTS[self.p.below(endpoints as u64) as usize].to_string()
        } else {
            self.events += 1;
            let ep = format!("x{}", self.events);
            let register = json!(["register", self.ts, ep.clone(), "https://x.example/hooks"]);
            self.push(register);
            ep
        }
    }

    /// A head answered 410 under `disable_on_gone` (mostly true: `gone.disable`; else
    /// `gone.default`), with events behind it that the disabling holds; they are queried, the
    /// endpoint is enabled again (with or without replay) and processing goes on.
    fn gone_scenario(&mut self, ep: String, ordering: bool) {
        if self.may_set_policy(&ep) {
            let mut policy = self.valid_policy();
            if let Some(map) = policy.as_object_mut() {
                map.insert("disable_on_gone".to_string(), json!(self.p.chance(75)));
            }
            self.push(json!(["set_policy", self.ts, ep.clone(), policy]));
        }
        let head = match self.p.below(4) {
            0 | 1 => vec![410],
            2 => vec![*self.p.pick(&[503, 429, 500]).unwrap_or(&503), 410],
            // Another permanent failure disables nothing, whatever the policy.
            _ => vec![*self.p.pick(&[404, 400, 409, 301]).unwrap_or(&404)],
        };
        let mut ids = Vec::new();
        let behind = if ordering { 1 + self.p.below(3) } else { 0 };
        for k in 0..=behind {
            let statuses = if k == 0 {
                head.clone()
            } else {
                self.outcomes()
            };
            let id = self.enqueue_entries(&ep, "g", statuses);
            ids.push(id);
        }
        self.push_processes(2);
        for _ in 0..1 + self.p.below(3) {
            let id = self.p.pick(&ids).cloned().unwrap_or_default();
            self.push(json!(["status", self.ts, id]));
        }
        // With Part 6, why the endpoint is disabled: a 410 that also reaches a threshold is
        // `"gone"` (`endpoint.report`). Drawn only then.
        if self.auto && self.p.chance(70) {
            self.push(json!(["endpoint", self.ts, ep.clone()]));
        }
        if self.pause {
            if self.p.chance(25) {
                self.push(json!(["disable", self.ts, ep.clone()]));
            }
            self.push_enable(&ep, 50);
        }
        self.push_processes(3);
    }

    /// Outside brief mode: an event's retry falls due just before, exactly at or just past the
    /// largest valid `ts` (`retry.beyond-range`), after a wait from the default policy, a policy
    /// of the endpoint's own or a `retry_after`. Time stays at the edge afterwards.
    pub(super) fn edge_scenario(&mut self) {
        self.edge_done = true;
        self.events += 1;
        // A fresh endpoint, so no earlier event blocks this one (`order.blocked`).
        let ep = format!("edge{}", self.events);
        let id = format!("r{}", self.events);
        self.push(json!([
            "register",
            self.ts,
            ep.clone(),
            "https://edge.example/hooks"
        ]));
        let w = if self.policy && self.p.chance(50) {
            let w = self.wait_pick();
            let attempts = 2 + self.p.below(4) as i64;
            self.push(
                json!(["set_policy", self.ts, ep.clone(), {"attempts": attempts, "waits": [w]}]),
            );
            w
        } else {
            DEFAULT_WAITS[0]
        };
        let status = *self.p.pick(&[503, 429, 500, 0]).unwrap_or(&503);
        let (entry, wait) = if self.retry_after && matches!(status, 429 | 503) && self.p.chance(50)
        {
            let r = self.retry_after_near(w);
            (
                json!({"status": status, "retry_after": r}),
                r.clamp(w, 2 * w),
            )
        } else {
            (json!(status), w)
        };
        // How far past the last valid ts the retry falls due.
        let past = *self.p.pick(&[-2, -1, 0, 0, 1, 1, 2]).unwrap_or(&0);
        let at = (TS_LIMIT - wait + past).min(TS_LIMIT).max(self.ts);
        self.ts = at;
        self.push(json!(["enqueue", at, ep, id.clone(), [entry]]));
        self.push(json!(["process", at]));
        // Then at the retry's due time, if it has one: a further failure cannot be retried.
        self.push_process();
        if self.p.chance(50) {
            self.push(json!(["status", self.ts, id]));
        } else {
            self.push(json!(["dead_letters", self.ts]));
        }
    }
}

impl State {
    /// A breaker `breaker.valid` refuses: not an object, a key missing or of another name, a
    /// number out of range or of another type (`1.0` only outside brief mode, which never asks).
    fn bad_breaker(&mut self) -> Value {
        let mut bad = json!({"failures": 2, "window": 60, "open_for": 30, "probes": 1});
        match self.p.below(6) {
            0 => {
                return self
                    .p
                    .pick(&[json!(null), json!(3), json!([2, 60, 30, 1])])
                    .cloned()
                    .unwrap_or(Value::Null);
            }
            1 => {
                let key = *self
                    .p
                    .pick(&["failures", "window", "open_for", "probes"])
                    .unwrap_or(&"probes");
                if let Some(b) = bad.as_object_mut() {
                    b.remove(key);
                }
            }
            2 => bad["rate"] = json!(1),
            3 => {
                let (key, value) = self
                    .p
                    .pick(&[
                        ("failures", json!(0)),
                        ("failures", json!(1001)),
                        ("window", json!(0)),
                        ("window", json!(2_592_001)),
                        ("open_for", json!(-5)),
                        ("probes", json!(101)),
                    ])
                    .cloned()
                    .unwrap_or(("probes", json!(0)));
                bad[key] = value;
            }
            4 => {
                bad["failures"] = self
                    .p
                    .pick(&[json!("2"), json!(true), json!(null)])
                    .cloned()
                    .unwrap_or(Value::Null);
            }
            _ => bad["window"] = json!(60.0),
        }
        bad
    }
}

#[cfg(test)]
mod tests {
    use super::super::Generator;
    use super::*;
    use crate::case::Part;
    use crate::ops::Session;
    use std::collections::BTreeSet;

    fn generator(brief_only: bool) -> Generator {
        Generator {
            max_ops: 40,
            parts: Part::ALL.to_vec(),
            brief_only,
        }
    }

    /// Whether a JSON boolean stands where a policy or an object entry wants an integer.
    fn boolean_integer(op: &Value) -> bool {
        let name = op.get(0).and_then(Value::as_str);
        let in_map = |v: &Value, skip: &str| {
            v.as_object().is_some_and(|m| {
                m.iter().any(|(k, v)| {
                    k != skip
                        && (v.is_boolean()
                            || v.as_array()
                                .is_some_and(|l| l.iter().any(Value::is_boolean)))
                })
            })
        };
        match name {
            Some("set_policy") => op.get(3).is_some_and(|p| in_map(p, "disable_on_gone")),
            Some("enqueue") => op
                .get(4)
                .and_then(Value::as_array)
                .is_some_and(|l| l.iter().any(|e| in_map(e, ""))),
            _ => false,
        }
    }

    #[test]
    fn brief_mode_keeps_the_roadmap_to_what_it_fixes() {
        let g = generator(true);
        let mut errors = BTreeSet::new();
        for i in 0..400 {
            let ops = g.case(21, i);
            let mut session = Session::new();
            let mut disabled = BTreeSet::new();
            for op in &ops {
                let name = op.get(0).and_then(Value::as_str).unwrap_or("");
                let ep = op.get(2).and_then(Value::as_str).unwrap_or("").to_string();
                // `outcomes.objects-strict`, `policy.strict`, `op.ts-range`,
                // `retry.beyond-range` are clarifications.
                assert!(!crate::case::depends_on_spelling(op), "{op}");
                assert!(!boolean_integer(op), "{op}");
                let ts = op.get(1).and_then(Value::as_i64).unwrap_or(0);
                assert!(ts.abs() < 1 << 52, "{op}");
                assert_ne!(name, "dead_letters");
                let result = session.step(op);
                // `policy.while-disabled` is a clarification (rejecting a policy is not).
                assert!(
                    !(name == "set_policy" && result == json!(true) && disabled.contains(&ep)),
                    "a policy set on a disabled endpoint: {op} in {ops:?}"
                );
                match (name, &result) {
                    ("disable", Value::Bool(true)) => {
                        disabled.insert(ep);
                    }
                    ("enable", Value::Bool(true)) => {
                        disabled.remove(&ep);
                    }
                    (_, Value::String(e)) if e.starts_with("error: ") => {
                        errors.insert((name.to_string(), e.clone()));
                    }
                    _ => {}
                }
                for record in result.as_array().into_iter().flatten() {
                    if let Some(ep) = record.as_str().and_then(|r| r.strip_suffix(" disabled")) {
                        disabled.insert(ep.to_string());
                    }
                }
            }
        }
        // The roadmap's own errors are drawn in brief mode.
        for (name, error) in [
            ("set_policy", "invalid policy"),
            ("set_policy", "invalid arguments"),
            ("set_policy", "unknown endpoint"),
            ("policy", "invalid arguments"),
            ("policy", "unknown endpoint"),
            ("enqueue", "invalid outcomes"),
        ] {
            let e = (name.to_string(), format!("error: {error}"));
            assert!(errors.contains(&e), "{e:?} never drawn");
        }
    }

    #[test]
    fn draws_the_roadmaps_boundaries() {
        let mut policies = Vec::new();
        let mut objects = Vec::new();
        let mut near_limit = 0;
        // Parts 4 and 5 alone: Parts 6 and 7's operations would only thin these draws out
        // (`incidents` has their own).
        let five = |brief_only| Generator {
            max_ops: 40,
            parts: Part::ALL[..5].to_vec(),
            brief_only,
        };
        for (g, seed) in [(five(true), 4), (five(false), 5)] {
            for i in 0..400 {
                for op in g.case(seed, i) {
                    match op.get(0).and_then(Value::as_str) {
                        Some("set_policy") => policies.extend(op.get(3).cloned()),
                        Some("enqueue") => objects.extend(
                            op.get(4)
                                .and_then(Value::as_array)
                                .into_iter()
                                .flatten()
                                .filter(|e| e.is_object())
                                .cloned(),
                        ),
                        _ => {}
                    }
                    near_limit += usize::from(
                        op.get(0) == Some(&json!("process"))
                            && op.get(1).and_then(Value::as_i64) >= Some(TS_LIMIT - 1000),
                    );
                }
            }
        }
        let text: Vec<String> = policies.iter().map(Value::to_string).collect();
        let has = |needle: &str| text.iter().any(|t| t.contains(needle));
        for needle in [
            "null",
            "\"attempts\":0,",
            "\"attempts\":101,",
            "\"waits\":[]",
            "2592001",
            "2592000",
            "\"disable_on_gone\":true",
            "\"disable_on_gone\":false",
            "\"Attempts\"",
            "\"default\"",
            "[3,[10]]",
            "\"attempts\":3.0",
        ] {
            assert!(has(needle), "no policy holds {needle}");
        }
        assert!(
            policies
                .iter()
                .any(|p| p.get("attempts").is_none() && p.is_object())
        );
        let waits = |p: &Value| p.get("waits").and_then(Value::as_array).cloned();
        assert!(
            policies
                .iter()
                .any(|p| waits(p).is_some_and(|w| w.contains(&json!(0)))),
            "no wait of 0"
        );
        let objects: Vec<String> = objects.iter().map(Value::to_string).collect();
        for needle in [
            "{\"status\":503}",
            "\"retry_after\":0}",
            "\"retry_after\":2592000",
            "\"retry_after\":2592001",
            "\"retry_after\":-1",
            "\"Retry-After\"",
            "{\"retry_after\":30}",
            "\"status\":410,\"retry_after\"",
            "\"retry_after\":true",
            "\"retry_after\":45.0",
        ] {
            assert!(
                objects.iter().any(|o| o.contains(needle)),
                "no outcome object holds {needle}"
            );
        }
        assert!(
            near_limit >= 20,
            "{near_limit} process calls near the limit"
        );
    }

    #[test]
    fn disabled_endpoints_are_enabled_again() {
        let g = generator(false);
        let mut enabled_again = 0;
        for i in 0..300 {
            let ops = g.case(6, i);
            let results = crate::ops::run(&ops);
            let mut gone = BTreeSet::new();
            for (op, result) in ops.iter().zip(&results) {
                for record in result.as_array().into_iter().flatten() {
                    if let Some(ep) = record.as_str().and_then(|r| r.strip_suffix(" disabled")) {
                        gone.insert(ep.to_string());
                    }
                }
                let ep = op.get(2).and_then(Value::as_str).unwrap_or("");
                if op.get(0) == Some(&json!("enable")) && *result == json!(true) && gone.remove(ep)
                {
                    enabled_again += 1;
                }
            }
        }
        assert!(
            enabled_again >= 10,
            "{enabled_again} endpoints enabled after a 410"
        );
    }

    /// How many of 300 cases hold a record of each kind: expired, held, and a policy refused
    /// for its `max_age` or its breaker.
    fn reached_10_11(parts: &[Part], brief_only: bool) -> [usize; 4] {
        let g = super::super::tests::generator(parts, brief_only);
        let mut counts = [0; 4];
        for i in 0..300 {
            let ops = g.case(11, i);
            let results = crate::ops::run(&ops);
            let records: Vec<&str> = results
                .iter()
                .filter_map(Value::as_array)
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            counts[0] += usize::from(records.iter().any(|r| r.ends_with(" expired")));
            counts[1] += usize::from(records.iter().any(|r| r.contains(" held until ")));
            for (n, key) in [(2, "max_age"), (3, "breaker")] {
                counts[n] += usize::from(ops.iter().zip(&results).any(|(op, r)| {
                    op.get(3).and_then(|p| p.get(key)).is_some() && r == "error: invalid policy"
                }));
            }
        }
        counts
    }

    #[test]
    fn expiries_breakers_and_refused_ones_are_reached_outside_brief_mode_only() {
        let [expired, held, bad_age, bad_breaker] = reached_10_11(&Part::ALL, false);
        // Measured: 21 of 300 cases hold a head; policies are drawn for a few endpoints only,
        // and a breaker must then meet enough failures.
        assert!(expired >= 30, "{expired} of 300 expire");
        assert!(held >= 15, "{held} of 300 hold");
        assert!(bad_age >= 5 && bad_breaker >= 5, "{bad_age} {bad_breaker}");
        // Brief mode draws neither part (their generation is clarifications' ground).
        assert_eq!(reached_10_11(&Part::ALL, true), [0; 4]);
    }
}
