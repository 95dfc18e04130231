//! The roadmap's Parts 6 and 7 (spec sections 13 and 14), for an implementation that declares
//! them. Part 6 (`auto-disable`): thresholds in policies (mostly 1 to 10, sometimes at or below
//! the count already reached), `endpoint` queries, failures in a row across an endpoint's events
//! with deliveries in between, and long incidents: an endpoint failing attempt after attempt
//! until its threshold disables it, then enabled (with or without replay) and recovering, while
//! other endpoints go on. Part 7 (`dead-letters`): `dead_letter` of dead, pending, held,
//! delivered, revived and unknown events, and `recover` with `since` before, at (often exactly)
//! and after deaths, on disabled endpoints, in front of an event waiting for its retry, and when
//! nothing is dead; with both parts, recoveries under thresholds. Invalid forms: in brief mode
//! only those the roadmap fixes, otherwise also the clarifications' (`endpoint.errors`,
//! `recover.since`, booleans and whole floats as integers, non-string ids).
//!
//! Nothing here is called, and so nothing here draws, for an implementation that declares
//! neither part; a part's own draws are made only when it is declared.

use super::{ENDPOINTS, State, TS_LIMIT};
use serde_json::{Value, json};

/// Waits of an incident's policy: short, so that an endpoint fails many attempts in a row
/// within the few hundred seconds a case spans.
const INCIDENT_WAITS: [i64; 8] = [1, 2, 5, 10, 15, 30, 60, 90];
/// Statuses that fail an attempt but may be retried (`classify.retryable`).
const RETRYABLE: [i64; 6] = [503, 500, 0, 429, 408, 599];
/// Statuses that kill an event at once (`classify.permanent`; 410 only without
/// `disable_on_gone`, which the policies here may carry).
const PERMANENT: [i64; 7] = [404, 400, 301, 100, 499, 409, 410];

/// What a `dead_letter` is asked about: the report of a dead event, or the errors of
/// `dead-letter.errors` for each other state an event can be in.
#[derive(Clone, Copy)]
enum Target {
    Dead,
    Waiting,
    Delivered,
    Revived,
    Any,
    Unknown,
}

impl State {
    /// A Part 6 or Part 7 operation in place of one of the brief's.
    pub(super) fn incident_op(&mut self) -> Value {
        // Endpoints a threshold (or a 410) disabled are enabled again.
        if let Some(enable) = self.enable_a_disabled(25) {
            return enable;
        }
        let six = self.auto && (!self.dead || self.p.chance(50));
        if six { self.auto_op() } else { self.dead_op() }
    }

    fn auto_op(&mut self) -> Value {
        let ts = self.ts;
        match self.p.below(100) {
            0..=44 => {
                let ep = self.report_endpoint();
                json!(["endpoint", ts, ep])
            }
            45..=69 => {
                // An unknown endpoint now and then: `policy.set-errors`, the roadmap's own.
                let ep = self.policy_endpoint();
                if !self.may_set_policy(&ep) {
                    return json!(["endpoint", ts, ep]);
                }
                let count = self.failures_of(&ep);
                let policy = self.incident_policy(count);
                json!(["set_policy", ts, ep, policy])
            }
            70..=87 => {
                // Rejected whatever the endpoint's state (`policy.set-errors`).
                let ep = self.policy_endpoint();
                let mut policy = self.valid_policy();
                let strict = !self.brief && self.p.chance(30);
                let bad = self.bad_threshold(strict);
                if let Some(map) = policy.as_object_mut() {
                    map.insert("disable_after".to_string(), bad);
                }
                json!(["set_policy", ts, ep, policy])
            }
            _ => self.endpoint_call_error(),
        }
    }

    fn dead_op(&mut self) -> Value {
        let ts = self.ts;
        match self.p.below(100) {
            0..=35 => {
                let target = self.target();
                let id = self.dead_letter_target(None, target);
                json!(["dead_letter", ts, id])
            }
            36..=74 => {
                // `recover` of an unknown endpoint is the roadmap's own error (`recover.errors`).
                let ep = match self.p.pick(&self.registered) {
                    Some(ep) if !self.p.chance(8) => ep.clone(),
                    _ => "zz".to_string(),
                };
                let since = self.since(&ep);
                json!(["recover", ts, ep, since])
            }
            _ => self.dead_call_error(),
        }
    }

    /// The shadow's count of `ep`'s consecutive failed attempts (`auto.count`); 0 for an
    /// endpoint it does not know.
    pub(super) fn failures_of(&self, ep: &str) -> i64 {
        self.shadow
            .dispatcher()
            .endpoint_report(self.ts, ep)
            .map_or(0, |r| i64::from(r.consecutive_failures))
    }

    /// A `disable_after` (`auto.policy-key`): mostly 1 to 10, so that thresholds are reached
    /// within a case; sometimes at or below `count`, the failures already counted, which
    /// disables nothing by itself but makes the next failed attempt disable (`auto.disable`);
    /// sometimes one above it, or far.
    pub(super) fn threshold(&mut self, count: i64) -> i64 {
        match self.p.below(20) {
            0..=11 => 1 + self.p.below(10) as i64,
            12 | 13 if count >= 1 => count.min(1000),
            14 if count >= 2 => 1 + self.p.below((count - 1) as u64) as i64,
            15 => (count + 1).clamp(1, 1000),
            16 => *self.p.pick(&[1, 2]).unwrap_or(&1),
            17 => *self.p.pick(&[1000, 100, 11]).unwrap_or(&1000),
            _ => 2 + self.p.below(4) as i64,
        }
    }

    /// A policy for an incident: a threshold (`threshold`), short waits, a few attempts or
    /// many; with Part 5 often `disable_on_gone`, so that a 410 may reach the threshold on the
    /// very attempt it disables the endpoint for (`endpoint.report`: `"gone"` wins).
    fn incident_policy(&mut self, count: i64) -> Value {
        let attempts = match self.p.below(6) {
            0 => 1 + self.p.below(3) as i64,
            1 => 6,
            2 => *self.p.pick(&[100, 20]).unwrap_or(&100),
            _ => 2 + self.p.below(8) as i64,
        };
        let waits: Vec<i64> = (0..1 + self.p.below(3))
            .map(|_| *self.p.pick(&INCIDENT_WAITS).unwrap_or(&5))
            .collect();
        let threshold = self.threshold(count);
        let mut policy = json!({"attempts": attempts, "waits": waits, "disable_after": threshold});
        if self.retry_after {
            let flag = match self.p.below(10) {
                0..=3 => Some(true),
                4 => Some(false),
                _ => None,
            };
            if let (Some(flag), Some(map)) = (flag, policy.as_object_mut()) {
                map.insert("disable_on_gone".to_string(), json!(flag));
            }
        }
        policy
    }

    /// A `disable_after` that is not valid: out of range or of the wrong type, all fixed by
    /// the roadmap (`auto.policy-key`); `strict`: the integers only `policy.strict` rejects.
    pub(super) fn bad_threshold(&mut self, strict: bool) -> Value {
        // As text, parsed once picked: the text keeps `5.0` and `1e1` as written. The range's
        // bounds (`0`, `1001`) twice as often as the rest.
        const BRIEF: [&str; 13] = [
            "0",
            "1001",
            "0",
            "1001",
            "-1",
            "2000",
            "4294967297",
            "2.5",
            "\"5\"",
            "null",
            "[3]",
            "{\"n\": 3}",
            "\"\"",
        ];
        const STRICT: [&str; 5] = ["true", "false", "5.0", "1e1", "1000.0"];
        let from: &[&str] = if strict { &STRICT } else { &BRIEF };
        let text = self.p.pick(from).copied().unwrap_or("0");
        serde_json::from_str(text).unwrap_or(Value::Null)
    }

    /// An endpoint for `endpoint`: often one with failures counted or disabled, where the
    /// report says most; outside brief mode now and then an unknown one (`endpoint.errors`).
    fn report_endpoint(&mut self) -> String {
        if !self.brief && self.p.chance(5) {
            return "zz".to_string();
        }
        let interesting: Vec<String> = self
            .registered
            .iter()
            .filter(|ep| self.disabled.contains(*ep) || self.failures_of(ep) > 0)
            .cloned()
            .collect();
        let from = if !interesting.is_empty() && self.p.chance(60) {
            &interesting
        } else {
            &self.registered
        };
        match self.p.pick(from) {
            Some(ep) => ep.clone(),
            None => ENDPOINTS[0].to_string(),
        }
    }

    /// `endpoint` with the wrong number of arguments or a `ts` that is not an integer (the
    /// brief's `op.arity`, `op.ts-integer`); outside brief mode also a non-string or unknown
    /// endpoint (`endpoint.errors`) and the clarifications' `ts`.
    fn endpoint_call_error(&mut self) -> Value {
        let ts = self.ts;
        let ep = self.report_endpoint();
        let forms = if self.brief { 5 } else { 11 };
        match self.p.below(forms) {
            0 => json!(["endpoint", ts]),
            1 => json!(["endpoint", ts, ep.clone(), ep]),
            2 => json!(["endpoint", format!("{ts}"), ep]),
            3 => json!(["endpoint", ts as f64 + 0.5, ep]),
            4 => json!(["endpoint"]),
            // Clarifications from here on.
            5 => json!(["endpoint", ts, 7]),
            6 => json!(["endpoint", ts, null]),
            7 => json!(["endpoint", ts, [ep]]),
            8 => json!(["endpoint", ts, "zz"]),
            9 => json!(["endpoint", true, ep]),
            _ => json!(["endpoint", TS_LIMIT + 1, ep]),
        }
    }

    /// `dead_letter` and `recover` with one fault the roadmap fixes: the wrong number of
    /// arguments, a `ts` or `since` that is not an integer (for a registered endpoint: which
    /// error comes first for an unknown one is only `recover.since`'s), an unknown endpoint
    /// with a valid `since`, an event never enqueued. Outside brief mode also the
    /// clarifications': booleans, whole floats and values beyond ±(2^53 − 1) as `since`,
    /// non-string ids, and faults whose order only `recover.since` fixes.
    fn dead_call_error(&mut self) -> Value {
        let ts = self.ts;
        let ep = match self.p.pick(&self.registered) {
            Some(ep) => ep.clone(),
            None => ENDPOINTS[0].to_string(),
        };
        let event = self.dead_letter_target(None, Target::Any);
        let forms = if self.brief { 11 } else { 20 };
        match self.p.below(forms) {
            0 => json!(["dead_letter", ts]),
            1 => json!(["dead_letter", ts, event.clone(), event]),
            2 => json!(["dead_letter", format!("{ts}"), event]),
            3 => json!(["dead_letter", ts, format!("u{}", self.events + 1)]),
            4 => json!(["recover", ts, ep]),
            5 => json!(["recover", ts, ep, 0, 0]),
            6 => json!(["recover", ts]),
            7 => json!(["recover", ts as f64 + 0.5, ep, 0]),
            8 => json!(["recover", ts, "zz", self.since("zz")]),
            9 | 10 => {
                let since = self
                    .p
                    .pick(&[
                        json!(format!("{ts}")),
                        json!("since"),
                        json!(null),
                        json!([ts]),
                        json!({"since": ts}),
                        json!(ts as f64 + 0.5),
                    ])
                    .cloned()
                    .unwrap_or(Value::Null);
                json!(["recover", ts, ep, since])
            }
            // Clarifications from here on.
            11..=14 => {
                const SINCE: [&str; 7] = [
                    "true",
                    "false",
                    "5.0",
                    "1e3",
                    "9007199254740992",
                    "-9007199254740992",
                    "18446744073709551616",
                ];
                let text = self.p.pick(&SINCE).copied().unwrap_or("true");
                let since = serde_json::from_str(text).unwrap_or(Value::Null);
                json!(["recover", ts, ep, since])
            }
            // The limits themselves are valid: every dead event, or none.
            15 => json!([
                "recover",
                ts,
                ep,
                if self.p.chance(50) {
                    TS_LIMIT
                } else {
                    -TS_LIMIT
                }
            ]),
            16 => json!(["recover", ts, 7, 0]),
            17 => json!(["recover", ts, "zz", "5"]),
            18 => json!(["dead_letter", ts, 7]),
            _ => json!(["dead_letter", ts, [event]]),
        }
    }

    /// Which kind of event `dead_letter` asks about: mostly a dead one.
    fn target(&mut self) -> Target {
        match self.p.below(12) {
            0..=4 => Target::Dead,
            5 => Target::Waiting,
            6 => Target::Delivered,
            7 | 8 => Target::Revived,
            9 | 10 => Target::Any,
            _ => Target::Unknown,
        }
    }

    /// An event id for `dead_letter`, of `endpoint` when given: of the kind asked for when the
    /// shadow has one, else any accepted event, else one never enqueued (`dead-letter.errors`).
    fn dead_letter_target(&mut self, endpoint: Option<&str>, target: Target) -> String {
        let d = self.shadow.dispatcher();
        let state = |id: &str| d.status(id).ok().map(|s| s.state.as_str());
        let of: Vec<String> = self
            .known
            .iter()
            .filter(|(_, ep)| endpoint.is_none_or(|e| e == ep))
            .map(|(id, _)| id)
            .filter(|id| match target {
                Target::Dead => state(id) == Some("dead"),
                Target::Waiting => matches!(state(id), Some("pending" | "held")),
                Target::Delivered => state(id) == Some("delivered"),
                Target::Revived => self.died.contains(*id) && state(id) != Some("dead"),
                Target::Any | Target::Unknown => true,
            })
            .cloned()
            .collect();
        let any: Vec<String> = match target {
            Target::Unknown => Vec::new(),
            _ => self.known.iter().map(|(id, _)| id.clone()).collect(),
        };
        let from = if of.is_empty() || matches!(target, Target::Unknown) {
            &any
        } else {
            &of
        };
        match self.p.pick(from) {
            Some(id) => id.clone(),
            // An id no enqueue used: `u` is no prefix of the generated events'.
            None => format!("u{}", self.events + 1),
        }
    }

    /// A `since` for `recover` on `ep`: most often exactly the `ts` of one of its dead events'
    /// deaths (`recover.revive`: at or after), or a second either side; before every death and
    /// after every one; a death of another endpoint or of an event revived since; or anywhere
    /// up to now.
    pub(super) fn since(&mut self, ep: &str) -> i64 {
        let d = self.shadow.dispatcher();
        let times: Vec<i64> = self
            .known
            .iter()
            .filter(|(_, e)| e == ep)
            .filter_map(|(id, _)| d.dead_letter(id).ok())
            .map(|letter| letter.died_at)
            .collect();
        let death = self.p.pick(&times).copied();
        let first = times.iter().min().copied();
        let last = times.iter().max().copied();
        match (self.p.below(20), death) {
            (0..=8, Some(t)) => t,
            (9 | 10, Some(t)) => t - 1,
            (11 | 12, Some(t)) => t + 1,
            (13 | 14, _) => match self.p.below(4) {
                0 => first.map_or(0, |t| t - 1),
                1 => 0,
                // Every dead event, whatever the past: the range's own limit is a clarification
                // (`recover.since`) only for its value's portability, so brief mode keeps to -1.
                2 if !self.brief => -TS_LIMIT,
                _ => -1 - self.p.below(100) as i64,
            },
            (15, _) => last.unwrap_or(self.ts).max(self.ts) + 1 + self.p.below(3) as i64,
            (16 | 17, _) if !self.death_times.is_empty() => {
                self.p.pick(&self.death_times).copied().unwrap_or(0)
            }
            (18, _) => self.ts,
            _ => self.p.below(self.ts.max(0) as u64 + 1) as i64,
        }
    }

    /// Statuses of an event in an incident: mostly failures, retryable runs (as many attempts
    /// failed in a row as the policy allows), permanent ones, retries that end permanently
    /// (whose last status is not their first: `dead-letter.report`); now and then a delivery,
    /// after retries or at once, which sets the count back to 0 (`auto.count`).
    fn failing_statuses(&mut self) -> Vec<i64> {
        let retryable = *self.p.pick(&RETRYABLE).unwrap_or(&503);
        let permanent = |s: &mut State| {
            // 410 is Part 5's: without it, it is a plain permanent failure (`gone.default`) and
            // is drawn as the others are.
            let from = if s.retry_after {
                &PERMANENT[..]
            } else {
                &PERMANENT[..6]
            };
            *s.p.pick(from).unwrap_or(&404)
        };
        match self.p.below(12) {
            0..=3 => vec![retryable],
            4 => vec![permanent(self)],
            5 | 6 => {
                let mut v: Vec<i64> = (0..1 + self.p.below(3))
                    .map(|_| *self.p.pick(&RETRYABLE).unwrap_or(&500))
                    .collect();
                v.push(permanent(self));
                v
            }
            7 => {
                let mut v = vec![retryable; 1 + self.p.below(5) as usize];
                v.push(200);
                v
            }
            8 => vec![*self.p.pick(&[200, 204]).unwrap_or(&200)],
            9 if self.retry_after => vec![410],
            _ => (0..1 + self.p.below(4))
                .map(|_| *self.p.pick(&RETRYABLE).unwrap_or(&500))
                .collect(),
        }
    }

    /// Enqueues an event of `ep` with `statuses` (objects among them with Part 5) at the
    /// current time; returns its id. The statuses are kept: a scenario's events fail, die or
    /// recover as it planned.
    pub(super) fn enqueue_on(&mut self, ep: &str, prefix: &str, statuses: Vec<i64>) -> String {
        self.events += 1;
        let id = format!("{prefix}{}", self.events);
        let outcomes = self.objects(statuses, ep);
        self.push(json!(["enqueue", self.ts, ep, id.clone(), outcomes]));
        id
    }

    fn query_endpoint(&mut self, ep: &str) {
        self.push(json!(["endpoint", self.ts, ep]));
    }

    /// A status query of one of `ids`.
    fn status_of(&mut self, ids: &[String]) {
        if let Some(id) = self.p.pick(ids).cloned() {
            self.push(json!(["status", self.ts, id]));
        }
    }

    /// Whether `ep` has an event pending (or held) in the shadow.
    fn has_pending(&self, ep: &str) -> bool {
        let d = self.shadow.dispatcher();
        self.known.iter().any(|(id, e)| {
            e == ep
                && d.status(id)
                    .is_ok_and(|s| matches!(s.state.as_str(), "pending" | "held"))
        })
    }

    /// The shadow's due time of `ep`'s head, when it is pending and due after now.
    pub(super) fn head_due(&self, ep: &str, ids: &[String]) -> Option<i64> {
        let d = self.shadow.dispatcher();
        let of_ep = |id: &&String| self.known.iter().any(|(known, e)| known == *id && e == ep);
        ids.iter()
            .filter(of_ep)
            .filter_map(|id| d.status(id).ok())
            .find(|s| s.state.as_str() == "pending")
            .and_then(|s| s.next_attempt_at)
            .filter(|due| *due > self.ts)
    }

    /// A policy for a long incident: 2 to 4 attempts and short waits, and a threshold of 4 to
    /// 10 failures, so that several events die one after another, their failures counted in a
    /// row across them, before it is reached; now and then a threshold at or below the count
    /// already reached. With its attempts and threshold.
    fn long_incident_policy(&mut self, count: i64) -> (Value, i64, i64) {
        let attempts = 2 + self.p.below(3) as i64;
        let waits: Vec<i64> = (0..1 + self.p.below(2))
            .map(|_| *self.p.pick(&INCIDENT_WAITS[..6]).unwrap_or(&5))
            .collect();
        let threshold = if self.p.chance(80) {
            4 + self.p.below(7) as i64
        } else {
            self.threshold(count)
        };
        let policy = json!({"attempts": attempts, "waits": waits, "disable_after": threshold});
        (policy, attempts, threshold)
    }

    /// The statuses of a long incident's failing events: as many events die of retryable
    /// failures, `attempts` each, as the threshold allows with the `count` already reached,
    /// and the last fails just often enough to reach it, then is delivered, as is its endpoint
    /// once enabled again (`enable` sets the count back to 0). At most `room` events: a
    /// threshold of hundreds is not reached within a case, and the case stays within its cap.
    fn incident_script(
        &mut self,
        attempts: i64,
        threshold: i64,
        count: i64,
        room: usize,
    ) -> Vec<Vec<i64>> {
        let needed = (threshold - count).max(1);
        let attempts = attempts.max(1);
        let room = i64::try_from(room).unwrap_or(i64::MAX).max(1);
        let dying = ((needed - 1) / attempts).min(room - 1);
        let rest = needed - dying * attempts;
        let mut events: Vec<Vec<i64>> = (0..dying)
            .map(|_| vec![*self.p.pick(&RETRYABLE).unwrap_or(&503)])
            .collect();
        let mut last = vec![*self.p.pick(&RETRYABLE).unwrap_or(&503); rest as usize];
        last.push(200);
        events.push(last);
        events
    }

    /// An incident (Part 6; with Part 7, deaths and recoveries among it): one endpoint gets a
    /// threshold and events that fail attempt after attempt, across events, with deliveries
    /// now and then, while the others get events of their own; processing goes on at the due
    /// times, with `endpoint` and `status` queries, threshold changes and a manual pause, until
    /// the threshold disables it. Then it is queried, enabled with or without replay, and
    /// recovers. A long one (most) fails many attempts in a row across several events before
    /// its threshold is reached; a short one mixes permanent failures, 410s and deliveries.
    /// Nothing is added once the case holds `cap` operations.
    pub(super) fn incident_scenario(&mut self, endpoints: usize, cap: usize) {
        self.incident_done = true;
        let long = self.p.chance(60);
        let start = self.ops.len();
        let budget = if long {
            30 + self.p.below(12) as usize
        } else {
            16 + self.p.below(12) as usize
        };
        // Room for the end of the incident (`incident_recovery`), at most a dozen operations.
        let end = (start + budget).min(cap.saturating_sub(12));
        let ep = ENDPOINTS[self.p.below(endpoints as u64) as usize].to_string();
        let others: Vec<String> = ENDPOINTS[..endpoints]
            .iter()
            .filter(|e| **e != ep)
            .map(|e| e.to_string())
            .collect();
        // Enabled first: brief mode sets no threshold on a disabled endpoint.
        if self.pause && self.disabled.contains(&ep) {
            self.push_enable(&ep, 50);
        }
        // The long incident's plan: its policy's attempts and threshold.
        let mut plan = None;
        if self.may_set_policy(&ep) && self.p.chance(if long { 95 } else { 85 }) {
            let count = self.failures_of(&ep);
            let policy = if long {
                let (policy, attempts, threshold) = self.long_incident_policy(count);
                plan = Some((attempts, threshold, count));
                policy
            } else {
                self.incident_policy(count)
            };
            self.push(json!(["set_policy", self.ts, ep.clone(), policy]));
        }
        let mut ids = Vec::new();
        if long {
            // Events that fail until the threshold is reached (events enqueued before may
            // still add failures or a delivery: the plan is a likelihood, not a promise), and
            // behind them events that are held when it disables the endpoint and are delivered
            // once it is enabled again.
            let (attempts, threshold, count) = plan.unwrap_or((6, 4 + self.p.below(7) as i64, 0));
            let room = end.saturating_sub(self.ops.len());
            for statuses in self.incident_script(attempts, threshold, count, room) {
                ids.push(self.enqueue_on(&ep, "f", statuses));
            }
            for _ in 0..1 + self.p.below(2) {
                let statuses = match self.p.below(3) {
                    0 => vec![*self.p.pick(&RETRYABLE).unwrap_or(&503), 200],
                    _ => vec![200],
                };
                ids.push(self.enqueue_on(&ep, "h", statuses));
            }
        } else {
            for _ in 0..2 + self.p.below(3) {
                let statuses = self.failing_statuses();
                ids.push(self.enqueue_on(&ep, "f", statuses));
            }
        }
        for other in &others {
            if self.p.chance(50) {
                let statuses = if self.p.chance(50) {
                    self.outcomes()
                } else {
                    self.failing_statuses()
                };
                ids.push(self.enqueue_on(other, "o", statuses));
            }
        }
        while self.ops.len() < end && !self.disabled.contains(&ep) {
            // A long incident goes on failing until the threshold is reached.
            if long && !self.has_pending(&ep) {
                let retryable = *self.p.pick(&RETRYABLE).unwrap_or(&503);
                ids.push(self.enqueue_on(&ep, "f", vec![retryable]));
            }
            // A long incident goes from one of the endpoint's attempts to the next; the other
            // endpoints' retries fall due in between.
            let head = if long && self.p.chance(60) {
                self.head_due(&ep, &ids)
            } else {
                None
            };
            let p = match head {
                Some(due) => {
                    self.ts = due;
                    json!(["process", due])
                }
                None => self.process(),
            };
            self.push(p);
            match self.p.below(20) {
                0..=5 => self.query_endpoint(&ep),
                6 => {
                    if let Some(other) = self.p.pick(&others).cloned() {
                        self.query_endpoint(&other);
                    }
                }
                7 | 8 => self.status_of(&ids),
                9 | 10 => {
                    let statuses = self.failing_statuses();
                    ids.push(self.enqueue_on(&ep, "f", statuses));
                }
                11 => {
                    if let Some(other) = self.p.pick(&others).cloned() {
                        let statuses = self.failing_statuses();
                        ids.push(self.enqueue_on(&other, "o", statuses));
                    }
                }
                12 if self.dead => {
                    let target = self.target();
                    let id = self.dead_letter_target(Some(&ep), target);
                    self.push(json!(["dead_letter", self.ts, id]));
                }
                13 if self.dead => {
                    let since = self.since(&ep);
                    self.push(json!(["recover", self.ts, ep.clone(), since]));
                }
                // A threshold moved while failures are counted: at or below the count, the
                // next failed attempt disables.
                14 if self.may_set_policy(&ep) => {
                    let count = self.failures_of(&ep);
                    let policy = self.incident_policy(count);
                    self.push(json!(["set_policy", self.ts, ep.clone(), policy]));
                }
                // A manual pause keeps the count (`auto.count`); `enable` resets it.
                15 if self.pause => {
                    self.push(json!(["disable", self.ts, ep.clone()]));
                    self.query_endpoint(&ep);
                    if self.p.chance(40) {
                        self.status_of(&ids);
                    }
                    self.push_enable(&ep, 40);
                    if self.p.chance(50) {
                        self.query_endpoint(&ep);
                    }
                }
                _ => {}
            }
        }
        if self.disabled.contains(&ep) {
            self.incident_recovery(&ep, &mut ids, cap, long);
        }
    }

    /// The end of an incident: the disabled endpoint is queried (`"failing"`, or `"gone"`),
    /// its held events too; with Part 7 its dead events are reported and some recovered while
    /// it is disabled; it is enabled, with or without replay, gets events that are delivered
    /// (or fail again), and processing goes on.
    /// After a `long` incident, the endpoint is mostly enabled without replay, so that its held
    /// events are delivered: replay and `recover` revive events that fail again.
    fn incident_recovery(&mut self, ep: &str, ids: &mut Vec<String>, cap: usize, long: bool) {
        if self.p.chance(80) {
            self.query_endpoint(ep);
        }
        for _ in 0..self.p.below(3) {
            self.status_of(ids);
        }
        if self.pause && self.p.chance(15) {
            self.push(json!(["disable", self.ts, ep]));
        }
        if self.dead && self.p.chance(if long { 30 } else { 60 }) {
            if self.p.chance(50) {
                let id = self.dead_letter_target(Some(ep), Target::Dead);
                self.push(json!(["dead_letter", self.ts, id]));
            }
            // Revived events of a disabled endpoint are held; nothing else changes
            // (`recover.unchanged-rest`), the count included (`auto.count`).
            let since = self.since(ep);
            self.push(json!(["recover", self.ts, ep, since]));
            if self.p.chance(60) {
                self.query_endpoint(ep);
            }
            if self.p.chance(40) {
                self.status_of(ids);
            }
        }
        if self.p.chance(30) {
            self.push_process();
        }
        if !self.pause {
            return;
        }
        self.push_enable(ep, if long { 25 } else { 50 });
        if self.p.chance(60) {
            self.query_endpoint(ep);
        }
        if self.p.chance(if long { 40 } else { 70 }) {
            let statuses = if self.p.chance(75) {
                vec![200]
            } else {
                self.failing_statuses()
            };
            ids.push(self.enqueue_on(ep, "f", statuses));
        }
        // Until the endpoint delivers again, or fails again: as long as there is room.
        for _ in 0..3 + self.p.below(4) {
            if self.ops.len() + 3 > cap {
                break;
            }
            let head = self.head_due(ep, ids);
            let p = match head {
                Some(due) if self.p.chance(60) => {
                    self.ts = due;
                    json!(["process", due])
                }
                _ => self.process(),
            };
            self.push(p);
            if self.p.chance(40) {
                self.query_endpoint(ep);
            }
        }
        if self.dead && self.p.chance(40) {
            let id = self.dead_letter_target(Some(ep), Target::Revived);
            self.push(json!(["dead_letter", self.ts, id]));
        }
    }

    /// Dead letters and their recovery (Part 7): events of one endpoint die at different
    /// times (some after retries, so their last status is not their first), an event behind
    /// them waits for its retry; dead letters are reported; the endpoint is sometimes paused;
    /// `recover` revives those that died at or after `since`, in front of the waiting event.
    /// Then the revived events are processed (many die again, to be reported again), queried,
    /// and sometimes recovered again, when nothing may be dead. With Part 6, under a threshold.
    /// Fewer events die when the case nears `cap` operations.
    pub(super) fn recovery_scenario(&mut self, endpoints: usize, cap: usize) {
        self.recovery_done = true;
        let ep = ENDPOINTS[self.p.below(endpoints as u64) as usize].to_string();
        if self.pause && self.disabled.contains(&ep) {
            self.push_enable(&ep, 50);
        }
        if self.auto && self.may_set_policy(&ep) && self.p.chance(40) {
            let count = self.failures_of(&ep);
            let policy = self.incident_policy(count);
            self.push(json!(["set_policy", self.ts, ep.clone(), policy]));
        } else if self.policy && self.may_set_policy(&ep) && self.p.chance(30) {
            // Few attempts, short waits: retried events die within the scenario.
            let attempts = 1 + self.p.below(3) as i64;
            let w = *self.p.pick(&INCIDENT_WAITS).unwrap_or(&5);
            self.push(
                json!(["set_policy", self.ts, ep.clone(), {"attempts": attempts, "waits": [w]}]),
            );
        }
        let mut ids = Vec::new();
        for k in 0..1 + self.p.below(3) {
            // What follows the deaths takes at most 20 operations.
            if k > 0 && self.ops.len() + 25 > cap {
                break;
            }
            let statuses = match self.p.below(4) {
                0 => vec![*self.p.pick(&PERMANENT[..6]).unwrap_or(&404)],
                1 | 2 => {
                    let mut v = vec![
                        *self.p.pick(&RETRYABLE).unwrap_or(&503);
                        1 + self.p.below(2) as usize
                    ];
                    v.push(*self.p.pick(&PERMANENT[..6]).unwrap_or(&404));
                    v
                }
                _ => self.failing_statuses(),
            };
            ids.push(self.enqueue_on(&ep, "k", statuses));
            // Another endpoint's event dies in the same call now and then: one `ts`, two
            // endpoints' deaths.
            if self.p.chance(25)
                && let Some(other) = ENDPOINTS[..endpoints].iter().find(|e| **e != ep.as_str())
            {
                ids.push(self.enqueue_on(other, "o", vec![404]));
            }
            self.push_processes(3);
        }
        // The event a recovery goes in front of: failed once, waiting for its retry.
        let waiting = self.p.chance(70).then(|| {
            let first = *self.p.pick(&RETRYABLE).unwrap_or(&503);
            let statuses = if self.p.chance(50) {
                vec![first, 200]
            } else {
                vec![first, first, 200]
            };
            let id = self.enqueue_on(&ep, "w", statuses);
            self.push(json!(["process", self.ts]));
            id
        });
        for _ in 0..self.p.below(3) {
            let target = self.target();
            let id = self.dead_letter_target(Some(&ep), target);
            self.push(json!(["dead_letter", self.ts, id]));
        }
        let paused = self.pause && !self.disabled.contains(&ep) && self.p.chance(25);
        if paused {
            self.push(json!(["disable", self.ts, ep.clone()]));
        }
        let since = self.since(&ep);
        self.push(json!(["recover", self.ts, ep.clone(), since]));
        if let Some(w) = &waiting
            && self.p.chance(50)
        {
            self.push(json!(["status", self.ts, w]));
        }
        if self.p.chance(50) {
            self.status_of(&ids);
        }
        if self.auto && self.p.chance(40) {
            self.query_endpoint(&ep);
        }
        if self.p.chance(30) {
            let id = self.dead_letter_target(Some(&ep), Target::Revived);
            self.push(json!(["dead_letter", self.ts, id]));
        }
        // At the recover's own time: the revived events are due, the waiting one is not.
        if self.p.chance(60) {
            self.push(json!(["process", self.ts]));
        }
        if paused {
            if self.p.chance(40) {
                self.status_of(&ids);
            }
            self.push_enable(&ep, 50);
        }
        self.push_processes(3);
        if let Some(w) = waiting
            && self.p.chance(40)
        {
            self.push(json!(["status", self.ts, w]));
        }
        // Revived and dead again: reported as of the latest death.
        for _ in 0..1 + self.p.below(2) {
            let target = if self.p.chance(70) {
                Target::Dead
            } else {
                Target::Revived
            };
            let id = self.dead_letter_target(Some(&ep), target);
            self.push(json!(["dead_letter", self.ts, id]));
        }
        if self.p.chance(30) {
            let since = self.since(&ep);
            self.push(json!(["recover", self.ts, ep, since]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Part;
    use crate::ops::Session;
    use std::collections::{BTreeMap, BTreeSet};

    use super::super::tests::generator;

    fn name(op: &Value) -> &str {
        op.get(0).and_then(Value::as_str).unwrap_or("")
    }

    fn arg(op: &Value, k: usize) -> String {
        op.get(k).and_then(Value::as_str).unwrap_or("").to_string()
    }

    /// The situations of Parts 6 and 7 a case reaches, read from the reference's state around
    /// each operation.
    #[derive(Default)]
    struct Case {
        session: Session,
        seen: BTreeSet<&'static str>,
        /// Each accepted event's endpoint.
        endpoint_of: BTreeMap<String, String>,
        /// Events that have died at least once.
        died: BTreeSet<String>,
        /// Per endpoint, its failed attempts in a row since its last delivery or enable, and
        /// the events they were of.
        run: BTreeMap<String, (usize, BTreeSet<String>)>,
        /// Endpoints a threshold disabled after 6 failures or more across 2 events or more,
        /// and those of them enabled since.
        long_disabled: BTreeSet<String>,
        long_enabled: BTreeSet<String>,
        /// Endpoints with a threshold whose dead events `recover` revived.
        recovered: BTreeSet<String>,
    }

    impl Case {
        fn reached(ops: &[Value]) -> BTreeSet<&'static str> {
            let mut case = Case::default();
            for op in ops {
                case.step(op);
            }
            case.seen
        }

        fn step(&mut self, op: &Value) {
            let ep = arg(op, 2);
            // Before the operation: the endpoint's state, its dead events' deaths, whether it
            // has an event that failed and waits for its retry.
            let d = self.session.dispatcher();
            let report = d.endpoint_report(0, &ep).ok();
            let reason = report.and_then(|r| r.disabled).map(|r| r.as_str());
            let count = report.map_or(0, |r| i64::from(r.consecutive_failures));
            let threshold = d.policy(&ep).is_ok_and(|p| p.disable_after().is_some());
            let of_ep: Vec<&String> = self
                .endpoint_of
                .iter()
                .filter(|(_, e)| **e == ep)
                .map(|(id, _)| id)
                .collect();
            let deaths: Vec<i64> = of_ep
                .iter()
                .filter_map(|id| d.dead_letter(id).ok())
                .map(|l| l.died_at)
                .collect();
            let retrying = of_ep.iter().any(|id| {
                d.status(id)
                    .is_ok_and(|s| s.attempts > 0 && s.state.as_str() == "pending")
            });
            let result = self.session.step(op);
            let mut hit = |what| {
                self.seen.insert(what);
            };
            match name(op) {
                "enqueue" if result == json!("queued") => {
                    self.endpoint_of.insert(arg(op, 3), ep.clone());
                }
                "set_policy" if result == json!(true) => {
                    let f = op[3].get("disable_after").and_then(Value::as_i64);
                    if f.is_some_and(|f| count >= 1 && f <= count) {
                        hit("threshold at or below the count");
                    }
                }
                "enable" if result == json!(true) => {
                    if reason == Some("failing") {
                        hit(if op[3] == json!(true) {
                            "enable after a threshold, replay"
                        } else {
                            "enable after a threshold, no replay"
                        });
                    }
                    if self.long_disabled.remove(&ep) {
                        self.long_enabled.insert(ep.clone());
                    }
                    self.run.remove(&ep);
                }
                "recover" => {
                    let since = op.get(3).and_then(Value::as_i64);
                    let revived = result.as_i64().unwrap_or(0);
                    if let (Some(since), true) = (since, result.is_i64()) {
                        if deaths.contains(&since) {
                            hit("since at a death");
                        }
                        if revived > 0 && deaths.iter().all(|t| *t > since) {
                            hit("since before every death");
                        }
                        if !deaths.is_empty() && revived == 0 {
                            hit("since after every death");
                        }
                        if deaths.is_empty() {
                            hit("recover with nothing dead");
                        }
                        if revived > 0 && reason.is_some() {
                            hit("recover on a disabled endpoint");
                        }
                        if revived > 0 && retrying {
                            hit("recover in front of a retry");
                        }
                        if revived > 0 && threshold {
                            self.recovered.insert(ep.clone());
                        }
                    }
                }
                "dead_letter" => {
                    let id = arg(op, 2);
                    let status = self.session.dispatcher().status(&id).ok();
                    hit(
                        match (result.is_object(), status.map(|s| s.state.as_str())) {
                            (true, _) => "dead_letter of a dead event",
                            (_, None) => "dead_letter of an unknown event",
                            (_, Some(_)) if self.died.contains(&id) => {
                                "dead_letter of a revived event"
                            }
                            (_, Some("delivered")) => "dead_letter of a delivered event",
                            (_, Some("held")) => "dead_letter of a held event",
                            _ => "dead_letter of a pending event",
                        },
                    );
                }
                _ => {}
            }
            for record in result
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if let Some(ep) = record.strip_suffix(" disabled")
                    && !record.contains(" #")
                {
                    let report = self.session.dispatcher().endpoint_report(0, ep).ok();
                    if report.and_then(|r| r.disabled).map(|r| r.as_str()) == Some("failing") {
                        let (n, events) = self.run.get(ep).cloned().unwrap_or_default();
                        if n >= 6 && events.len() >= 2 {
                            self.long_disabled.insert(ep.to_string());
                        }
                        if self.recovered.remove(ep) {
                            self.seen
                                .insert("recovered events failing until a threshold");
                        }
                    }
                    continue;
                }
                let Some((id, _)) = record.split_once(" #") else {
                    continue;
                };
                let Some(ep) = self.endpoint_of.get(id).cloned() else {
                    continue;
                };
                if record.ends_with(" delivered") {
                    if self.long_enabled.remove(&ep) {
                        self.seen.insert("long incident, enabled, delivering");
                    }
                    self.run.remove(&ep);
                } else {
                    let entry = self.run.entry(ep).or_default();
                    entry.0 += 1;
                    entry.1.insert(id.to_string());
                    if record.ends_with(" dead") {
                        self.died.insert(id.to_string());
                    }
                }
            }
        }
    }

    #[test]
    fn reaches_the_situations_of_parts_6_and_7() {
        use Part::{AutoDisable, DeadLetters, Ordering, Pause, Policy, Retries};
        let six = vec![Retries, Ordering, Pause, Policy, AutoDisable];
        let seven = vec![Retries, Ordering, Pause, DeadLetters];
        for (parts, brief_only) in [
            (Part::ALL.to_vec(), false),
            (Part::ALL.to_vec(), true),
            (six, true),
            (seven, true),
        ] {
            let g = generator(&parts, brief_only);
            let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
            for i in 0..300 {
                for what in Case::reached(&g.case(17, i)) {
                    *counts.entry(what).or_insert(0) += 1;
                }
            }
            // Cases reaching each, out of 300, for the parts it needs; each several times, so
            // that a small change of the draws cannot lose one.
            for (what, needs, least) in [
                ("threshold at or below the count", &[AutoDisable][..], 10),
                ("long incident, enabled, delivering", &[AutoDisable], 10),
                ("enable after a threshold, replay", &[AutoDisable], 10),
                ("enable after a threshold, no replay", &[AutoDisable], 10),
                ("since at a death", &[DeadLetters], 20),
                ("since before every death", &[DeadLetters], 10),
                ("since after every death", &[DeadLetters], 10),
                ("recover with nothing dead", &[DeadLetters], 10),
                ("recover on a disabled endpoint", &[DeadLetters], 10),
                ("recover in front of a retry", &[DeadLetters], 10),
                (
                    "recovered events failing until a threshold",
                    &[AutoDisable, DeadLetters],
                    5,
                ),
                ("dead_letter of a dead event", &[DeadLetters], 20),
                ("dead_letter of an unknown event", &[DeadLetters], 5),
                ("dead_letter of a revived event", &[DeadLetters], 5),
                ("dead_letter of a delivered event", &[DeadLetters], 5),
                ("dead_letter of a held event", &[DeadLetters], 5),
                ("dead_letter of a pending event", &[DeadLetters], 5),
            ] {
                if !needs.iter().all(|p| parts.contains(p)) {
                    continue;
                }
                let n = counts.get(what).copied().unwrap_or(0);
                assert!(
                    n >= least,
                    "{parts:?}, brief {brief_only}: {what} in {n} cases of 300"
                );
            }
        }
    }

    /// The errors of Parts 6 and 7's operations drawn in 600 cases, as (operation, error,
    /// the argument that decides it as JSON text).
    fn errors(brief_only: bool, seed: u64) -> BTreeSet<(String, String, String)> {
        let g = generator(&Part::ALL, brief_only);
        let mut errors = BTreeSet::new();
        for i in 0..1200 {
            let ops = g.case(seed, i);
            for (op, result) in ops.iter().zip(crate::ops::run(&ops)) {
                let n = name(op);
                let Some(error) = result.as_str().and_then(|r| r.strip_prefix("error: ")) else {
                    continue;
                };
                let decisive = match n {
                    "set_policy" => op.get(3).and_then(|p| p.get("disable_after")),
                    "recover" => op.get(3),
                    "endpoint" | "dead_letter" => op.get(2),
                    _ => continue,
                };
                let text = decisive.map_or("-".to_string(), Value::to_string);
                errors.insert((n.to_string(), error.to_string(), text));
            }
        }
        errors
    }

    #[test]
    fn brief_mode_draws_the_errors_the_roadmap_fixes_and_no_other() {
        let errors = errors(true, 19);
        let has = |n: &str, e: &str, arg: &str| {
            errors
                .iter()
                .any(|(name, error, text)| name == n && error == e && text.contains(arg))
        };
        for (n, e, arg) in [
            ("set_policy", "invalid policy", "1001"),
            ("set_policy", "invalid policy", "0"),
            ("set_policy", "invalid policy", "\"5\""),
            ("set_policy", "invalid policy", "null"),
            ("recover", "unknown endpoint", ""),
            ("recover", "invalid arguments", "\""),
            ("recover", "invalid arguments", "null"),
            ("dead_letter", "unknown event", ""),
            ("dead_letter", "not dead", ""),
            ("dead_letter", "invalid arguments", "-"),
            ("endpoint", "invalid arguments", ""),
        ] {
            assert!(
                has(n, e, arg),
                "{n} {e} with {arg} never drawn in brief mode"
            );
        }
        for (n, e, arg) in &errors {
            let clarification = match (n.as_str(), e.as_str()) {
                ("endpoint", "unknown endpoint") => true,
                ("endpoint" | "dead_letter", "invalid arguments") => {
                    arg != "-" && !arg.starts_with('"')
                }
                ("set_policy" | "recover", _) => {
                    ["true", "false", ".0", "e1", "e3", "e+", "9007199254740992"]
                        .iter()
                        .any(|c| arg.contains(c))
                }
                _ => false,
            };
            assert!(!clarification, "{n} {e} with {arg} drawn in brief mode");
        }
    }

    #[test]
    fn draws_the_clarifications_outside_brief_mode() {
        let errors = errors(false, 23);
        let has = |n: &str, e: &str, arg: &dyn Fn(&str) -> bool| {
            errors
                .iter()
                .any(|(name, error, text)| name == n && error == e && arg(text))
        };
        let boolean = |t: &str| t == "true" || t == "false";
        let whole_float = |t: &str| t.ends_with(".0") || t.contains('e');
        let beyond = |t: &str| t.parse::<i128>().is_ok_and(|v| v.unsigned_abs() > 1 << 53);
        let not_a_string = |t: &str| !t.starts_with('"') && t != "-";
        for (n, e, arg, what) in [
            (
                "set_policy",
                "invalid policy",
                &boolean as &dyn Fn(&str) -> bool,
                "a boolean",
            ),
            (
                "set_policy",
                "invalid policy",
                &whole_float,
                "a whole float",
            ),
            ("recover", "invalid arguments", &boolean, "a boolean"),
            (
                "recover",
                "invalid arguments",
                &whole_float,
                "a whole float",
            ),
            ("recover", "invalid arguments", &beyond, "beyond the range"),
            (
                "endpoint",
                "unknown endpoint",
                &|t| t == "\"zz\"",
                "an unknown id",
            ),
            (
                "endpoint",
                "invalid arguments",
                &not_a_string,
                "not a string",
            ),
            (
                "dead_letter",
                "invalid arguments",
                &not_a_string,
                "not a string",
            ),
        ] {
            assert!(has(n, e, arg), "{n} {e} with {what} never drawn");
        }
    }

    #[test]
    fn only_the_declared_parts_operations() {
        use Part::{AutoDisable, DeadLetters, Ordering, Pause, Policy, Retries, RetryAfter};
        for (parts, six, seven) in [
            (
                vec![Retries, Ordering, Pause, Policy, RetryAfter],
                false,
                false,
            ),
            (
                vec![Retries, Ordering, Pause, Policy, AutoDisable],
                true,
                false,
            ),
            (vec![Retries, Ordering, Pause, DeadLetters], false, true),
            (Part::BRIEF.to_vec(), false, false),
        ] {
            let mut drawn = BTreeSet::new();
            for brief_only in [false, true] {
                let g = generator(&parts, brief_only);
                for i in 0..200 {
                    for op in g.case(13, i) {
                        let n = name(&op);
                        let threshold = n == "set_policy"
                            && op.get(3).is_some_and(|p| p.get("disable_after").is_some());
                        assert!(six || !(n == "endpoint" || threshold), "{parts:?}: {op}");
                        assert!(
                            seven || !matches!(n, "dead_letter" | "recover"),
                            "{parts:?}: {op}"
                        );
                        // Part 7 builds on the brief's parts alone: no policy without Part 4,
                        // no outcome objects without Part 5.
                        assert!(
                            parts.contains(&Policy) || !matches!(n, "set_policy" | "policy"),
                            "{parts:?}: {op}"
                        );
                        let objects = op
                            .get(4)
                            .and_then(Value::as_array)
                            .is_some_and(|l| l.iter().any(Value::is_object));
                        assert!(
                            parts.contains(&RetryAfter) || !(n == "enqueue" && objects),
                            "{parts:?}: {op}"
                        );
                        drawn.insert(n.to_string());
                    }
                }
            }
            for (n, wanted) in [
                ("endpoint", six),
                ("dead_letter", seven),
                ("recover", seven),
            ] {
                assert_eq!(drawn.contains(n), wanted, "{parts:?}: {n}");
            }
        }
    }
}
