//! Random operation sequences, reproducible from (seed, case number) with the project's own
//! PRNG. A shadow reference dispatcher steers the generator towards deep states: process calls
//! land on pending retries' exact due times, so sixth attempts, deaths and replays come often.

use crate::case::Part;
use crate::dispatcher::Dispatcher;
use crate::ops::step;
use crate::prng::Prng;
use serde_json::{Value, json};

pub struct Generator {
    pub max_ops: usize,
    pub parts: Vec<Part>,
    /// Stay inside what the brief defines: no duplicate or unknown ids, no `dead_letters`, only
    /// the malformed operations whose result the brief fixes.
    pub brief_only: bool,
}

const ENDPOINTS: [&str; 4] = ["a", "b", "c", "d"];
const STATUSES: [i64; 16] = [
    0, 100, 199, 200, 201, 204, 299, 301, 400, 404, 408, 410, 429, 500, 503, 599,
];

/// The seed of case `index` of a run: independent of which thread generates it.
fn case_seed(seed: u64, index: u64) -> u64 {
    Prng::new(seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

struct State {
    brief: bool,
    p: Prng,
    ts: i64,
    events: u64,
    /// Retry due times seen in the shadow dispatcher's records, not yet reached.
    dues: Vec<i64>,
    shadow: Dispatcher,
    ops: Vec<Value>,
    /// Ids of the events the shadow accepted.
    known: Vec<String>,
}

impl Generator {
    /// Case `index` of the run seeded with `seed`.
    pub fn case(&self, seed: u64, index: u64) -> Vec<Value> {
        let pause = self.parts.contains(&Part::Pause);
        // Without ordering, every event gets an endpoint of its own, so results never depend
        // on per-endpoint ordering.
        let ordering = self.parts.contains(&Part::Ordering);
        let brief = self.brief_only;
        let mut s = State {
            brief,
            p: Prng::new(case_seed(seed, index)),
            ts: 0,
            events: 0,
            dues: Vec::new(),
            shadow: Dispatcher::new(),
            ops: Vec::new(),
            known: Vec::new(),
        };
        let endpoints = 1 + s.p.below(4) as usize;
        for ep in &ENDPOINTS[..endpoints] {
            s.push(json!([
                "register",
                0,
                ep,
                format!("https://{ep}.example/hooks")
            ]));
        }
        let max = self.max_ops.max(endpoints + 1);
        let len = endpoints + 1 + s.p.below((max - endpoints) as u64) as usize;
        while s.ops.len() < len {
            let op = match s.p.below(100) {
                0..=29 => s.enqueue(endpoints, ordering),
                30..=64 => s.process(),
                65..=71 => s.status(),
                72..=75 if pause => s.disable(endpoints),
                76..=81 if pause => s.enable(endpoints),
                82..=85 if !brief => json!(["dead_letters", s.ts]),
                86..=89 if ordering && !brief => s.register_late(),
                90..=94 => s.malformed(endpoints, pause),
                _ => s.process(),
            };
            s.push(op);
        }
        s.ops
    }
}

impl State {
    fn push(&mut self, op: Value) {
        let result = step(&mut self.shadow, &op);
        if result == json!("queued")
            && let Some(id) = op.get(3).and_then(Value::as_str)
        {
            self.known.push(id.to_string());
        }
        for record in result
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if let Some(due) = record
                .rsplit_once("retry at ")
                .and_then(|(_, d)| d.parse().ok())
            {
                self.dues.push(due);
            }
        }
        self.ops.push(op);
    }

    /// Time moves on by a step that often lands on the boundaries of the retry schedule.
    fn advance(&mut self) -> i64 {
        self.ts +=
            [0, 0, 1, 5, 29, 30, 31, 60, 119, 120, 240, 300, 301, 1000][self.p.below(14) as usize];
        self.ts
    }

    fn endpoint(&mut self, endpoints: usize) -> &'static str {
        if self.p.chance(3) && !self.brief {
            "zz"
        } else {
            ENDPOINTS[self.p.below(endpoints as u64) as usize]
        }
    }

    fn enqueue(&mut self, endpoints: usize, ordering: bool) -> Value {
        self.events += 1;
        let id = if self.p.chance(4) && self.events > 1 && !self.brief {
            format!("e{}", 1 + self.p.below(self.events - 1))
        } else {
            format!("e{}", self.events)
        };
        let outcomes: Vec<i64> = match self.p.below(10) {
            0 | 1 => vec![*self.p.pick(&[200, 201, 204]).unwrap_or(&200)],
            2 => vec![*self.p.pick(&[404, 410, 301, 100]).unwrap_or(&404)],
            // A long outage: every attempt fails, the event dies on the sixth.
            3 => vec![*self.p.pick(&[503, 500, 0, 429]).unwrap_or(&503)],
            // Recovers on exactly the sixth attempt, or one too late.
            4 => {
                let mut v = vec![503; 5 + self.p.below(2) as usize];
                v.push(200);
                v
            }
            5 | 6 => {
                let mut v = vec![
                    *self.p.pick(&[500, 408, 0, 429, 599]).unwrap_or(&500);
                    1 + self.p.below(4) as usize
                ];
                v.push(*self.p.pick(&[200, 404]).unwrap_or(&200));
                v
            }
            _ => (0..1 + self.p.below(7))
                .map(|_| *self.p.pick(&STATUSES).unwrap_or(&200))
                .collect(),
        };
        let endpoint = if ordering {
            self.endpoint(endpoints).to_string()
        } else {
            // One endpoint per event, registered just before.
            let ep = format!("x{}", self.events);
            let ts = self.ts;
            self.push(json!([
                "register",
                ts,
                ep.clone(),
                "https://x.example/hooks"
            ]));
            ep
        };
        json!(["enqueue", self.advance(), endpoint, id, outcomes])
    }

    fn process(&mut self) -> Value {
        // Often exactly at (or a second before) the next known retry.
        self.dues.retain(|d| *d > self.ts);
        self.dues.sort_unstable();
        let ts = match self.dues.first() {
            Some(&due) if self.p.chance(60) => {
                if self.p.chance(15) {
                    due - 1
                } else {
                    due
                }
            }
            _ => self.advance(),
        };
        self.ts = self.ts.max(ts);
        json!(["process", self.ts])
    }

    fn status(&mut self) -> Value {
        // The brief fixes no result for an unknown id: only accepted ones in brief mode.
        let id = match self.p.pick(&self.known) {
            Some(id) if self.brief || self.p.chance(80) => id.clone(),
            None if self.brief => return self.process(),
            _ => format!("e{}", self.p.below(self.events + 2)),
        };
        json!(["status", self.ts, id])
    }

    fn disable(&mut self, endpoints: usize) -> Value {
        let ep = self.endpoint(endpoints);
        json!(["disable", self.advance(), ep])
    }

    fn enable(&mut self, endpoints: usize) -> Value {
        let ep = self.endpoint(endpoints);
        let replay = self.p.chance(60);
        json!(["enable", self.advance(), ep, replay])
    }

    fn register_late(&mut self) -> Value {
        let ep = ENDPOINTS[self.p.below(4) as usize];
        json!(["register", self.ts, ep, "https://late.example/hooks"])
    }

    fn malformed(&mut self, endpoints: usize, pause: bool) -> Value {
        let ts = self.ts;
        let ep = self.endpoint(endpoints);
        self.events += 1;
        // A fresh id for the rejected event, so no later operation depends on it.
        let bad = format!("bad{}", self.events);
        // The brief fixes the results of the first forms; the ones after `brief_forms` are
        // clarifications; the last two are pause operations.
        let brief_forms = 8;
        let forms = if self.brief { brief_forms } else { 14 };
        let roll = self.p.below(if pause { forms + 2 } else { forms });
        if roll >= forms {
            return if roll == forms {
                json!(["enable", ts, ep, 1])
            } else {
                json!(["disable", ts, ep, "extra"])
            };
        }
        match roll {
            0 => json!(["process"]),
            1 => json!(["process", format!("{ts}")]),
            2 => json!(["process", ts as f64 + 0.5]),
            3 => json!(["frobnicate", ts]),
            4 => json!(["enqueue", ts, ep, bad, []]),
            5 => json!(["enqueue", ts, ep, bad, [600]]),
            6 => json!(["status", ts]),
            7 => json!(["register", ts]),
            8 => json!(["process", true]),
            9 => json!([]),
            10 => json!(5),
            11 => json!(["enqueue", ts, ep, bad, [true]]),
            12 => json!(["register", ts, 7, "u"]),
            _ => json!(["status", ts, 7]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Generator {
        Generator {
            max_ops: 40,
            parts: Part::ALL.to_vec(),
            brief_only: false,
        }
    }

    #[test]
    fn same_seed_same_case_and_cases_differ() {
        let g = all();
        assert_eq!(g.case(7, 3), g.case(7, 3));
        assert_ne!(g.case(7, 3), g.case(7, 4));
        assert_ne!(g.case(7, 3), g.case(8, 3));
    }

    #[test]
    fn reaches_every_operation_and_deep_states() {
        let g = all();
        let mut names = std::collections::BTreeSet::new();
        let (mut sixth, mut revived) = (false, false);
        for i in 0..300 {
            let ops = g.case(1, i);
            assert!(ops.len() <= 40 + 40, "{}", ops.len());
            for op in &ops {
                if let Some(n) = op.get(0).and_then(Value::as_str) {
                    names.insert(n.to_string());
                }
            }
            let results = crate::ops::run(&ops);
            let text = Value::Array(results).to_string();
            sixth |= text.contains(" #6 ");
            revived |= ops.iter().any(|o| o.get(3) == Some(&json!(true)))
                && text.contains(" #1 ")
                && text.contains("dead");
        }
        for n in crate::ops::names().chain(["frobnicate"]) {
            assert!(names.contains(n), "{n} never generated");
        }
        assert!(sixth, "no sixth attempt in 300 cases");
        assert!(revived);
    }

    #[test]
    fn brief_mode_stays_where_the_brief_fixes_results() {
        let g = Generator {
            max_ops: 40,
            parts: Part::ALL.to_vec(),
            brief_only: true,
        };
        for i in 0..300 {
            let ops = g.case(9, i);
            let case = super::super::adhoc_case("x", &ops, false);
            assert!(super::super::in_brief_domain(&case), "{ops:?}");
        }
    }

    #[test]
    fn declared_parts_limit_the_operations() {
        let g = Generator {
            max_ops: 40,
            parts: vec![Part::Retries],
            brief_only: false,
        };
        for i in 0..200 {
            let ops = g.case(3, i);
            assert!(
                !ops.iter().any(|o| matches!(
                    o.get(0).and_then(Value::as_str),
                    Some("disable" | "enable")
                ))
            );
            let mut per_endpoint = std::collections::BTreeMap::new();
            let results = crate::ops::run(&ops);
            let accepted = ops
                .iter()
                .zip(&results)
                .filter(|(_, r)| **r == json!("queued"));
            for (o, _) in accepted {
                if let Some(ep) = o.get(2).and_then(Value::as_str) {
                    *per_endpoint.entry(ep.to_string()).or_insert(0) += 1;
                }
            }
            assert!(per_endpoint.values().all(|n| *n == 1), "{per_endpoint:?}");
        }
    }
}
