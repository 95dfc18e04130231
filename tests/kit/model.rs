//! Differential test of the indexed reference against a naive model written straight from
//! `spec/dispatcher.md`: it scans every event on every pick, which is slow but obviously right,
//! so any disagreement points at the reference's indexing (ready set, heads, dead letters).

use hookcheck::prng::Prng;
use hookcheck::run;
use serde_json::{Value, json};

#[derive(Clone, PartialEq)]
enum Life {
    Pending(i64),
    Delivered,
    Dead,
}

struct Ev {
    id: String,
    ep: usize,
    outcomes: Vec<i64>,
    attempts: u32,
    life: Life,
}

#[derive(Default)]
struct Naive {
    endpoints: Vec<(String, bool)>,
    events: Vec<Ev>,
    dead_letters: Vec<usize>,
}

fn err(code: &str) -> Value {
    json!(format!("error: {code}"))
}

impl Naive {
    fn endpoint(&self, id: &str) -> Option<usize> {
        self.endpoints.iter().position(|(e, _)| e == id)
    }

    fn apply(&mut self, op: &[Value]) -> Value {
        let ts = op[1].as_i64().unwrap_or(0);
        let s = |i: usize| op[i].as_str().unwrap_or("").to_string();
        match op[0].as_str().unwrap_or("") {
            "register" => {
                if self.endpoint(&s(2)).is_some() {
                    return err("duplicate endpoint");
                }
                self.endpoints.push((s(2), false));
                json!(true)
            }
            "enqueue" => {
                let outcomes: Vec<i64> = op[4]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_i64).collect())
                    .unwrap_or_default();
                let Some(ep) = self.endpoint(&s(2)) else {
                    return err("unknown endpoint");
                };
                if self.events.iter().any(|e| e.id == s(3)) {
                    return err("duplicate event");
                }
                self.events.push(Ev {
                    id: s(3),
                    ep,
                    outcomes,
                    attempts: 0,
                    life: Life::Pending(ts),
                });
                json!("queued")
            }
            "process" => json!(self.process(ts)),
            "status" => {
                let Some(e) = self.events.iter().find(|e| e.id == s(2)) else {
                    return err("unknown event");
                };
                let (state, next) = match e.life {
                    Life::Pending(_) if self.endpoints[e.ep].1 => ("held", Value::Null),
                    Life::Pending(d) => ("pending", json!(d)),
                    Life::Delivered => ("delivered", Value::Null),
                    Life::Dead => ("dead", Value::Null),
                };
                json!({"state": state, "attempts": e.attempts, "next_attempt_at": next})
            }
            "disable" => {
                let Some(ep) = self.endpoint(&s(2)) else {
                    return err("unknown endpoint");
                };
                if self.endpoints[ep].1 {
                    return err("already disabled");
                }
                self.endpoints[ep].1 = true;
                json!(true)
            }
            "enable" => {
                let Some(ep) = self.endpoint(&s(2)) else {
                    return err("unknown endpoint");
                };
                if !self.endpoints[ep].1 {
                    return err("not disabled");
                }
                self.endpoints[ep].1 = false;
                let replay = op[3].as_bool().unwrap_or(false);
                for (i, e) in self.events.iter_mut().enumerate() {
                    if e.ep != ep {
                        continue;
                    }
                    if replay && e.life == Life::Dead {
                        self.dead_letters.retain(|&d| d != i);
                        e.attempts = 0;
                        e.life = Life::Pending(ts);
                    }
                    if let Life::Pending(_) = e.life {
                        e.life = Life::Pending(ts);
                    }
                }
                json!(true)
            }
            _ => {
                let only = match op.get(2) {
                    None => None,
                    Some(_) => match self.endpoint(&s(2)) {
                        Some(ep) => Some(ep),
                        None => return err("unknown endpoint"),
                    },
                };
                json!(
                    self.dead_letters
                        .iter()
                        .filter(|&&i| only.is_none_or(|ep| self.events[i].ep == ep))
                        .map(|&i| self.events[i].id.clone())
                        .collect::<Vec<_>>()
                )
            }
        }
    }

    fn process(&mut self, ts: i64) -> Vec<String> {
        let mut records = Vec::new();
        loop {
            // Heads of enabled endpoints: the first pending event of each, by enqueue order.
            let mut best: Option<(i64, usize)> = None;
            for (ep, (_, disabled)) in self.endpoints.iter().enumerate() {
                if *disabled {
                    continue;
                }
                let head = self
                    .events
                    .iter()
                    .enumerate()
                    .find(|(_, e)| e.ep == ep && matches!(e.life, Life::Pending(_)));
                if let Some((
                    i,
                    Ev {
                        life: Life::Pending(due),
                        ..
                    },
                )) = head
                    && *due <= ts
                    && best.is_none_or(|b| (*due, i) < b)
                {
                    best = Some((*due, i));
                }
            }
            let Some((_, i)) = best else { return records };
            let e = &mut self.events[i];
            e.attempts += 1;
            let n = e.attempts as usize;
            let status = e.outcomes[(n - 1).min(e.outcomes.len() - 1)];
            let retryable = matches!(status, 0 | 408 | 429 | 500..=599);
            let tail = if (200..=299).contains(&status) {
                e.life = Life::Delivered;
                "delivered".to_string()
            } else if retryable && n < 6 {
                let due = ts + [30, 60, 120, 240, 300][n - 1];
                e.life = Life::Pending(due);
                format!("retry at {due}")
            } else {
                e.life = Life::Dead;
                self.dead_letters.push(i);
                "dead".to_string()
            };
            records.push(format!("{} #{} {} {}", e.id, n, status, tail));
        }
    }
}

/// A random valid-shaped operation over small pools of ids, so that state errors, blocking,
/// pauses and replays all happen often.
fn random_op(p: &mut Prng, ts: &mut i64, next_event: &mut u64) -> Value {
    let statuses = [200, 204, 500, 503, 0, 408, 429, 404, 410, 301, 100, 599];
    *ts += [0, 0, 1, 5, 30, 60, 200, 900][p.below(8) as usize];
    let ep = format!("ep{}", p.below(4));
    match p.below(20) {
        0 => json!(["register", *ts, ep, "u"]),
        1..=7 => {
            *next_event += 1;
            let id = if p.chance(5) {
                "e1".to_string()
            } else {
                format!("e{next_event}")
            };
            let outcomes: Vec<i64> = (0..=p.below(4))
                .map(|_| *p.pick(&statuses).unwrap_or(&200))
                .collect();
            json!(["enqueue", *ts, ep, id, outcomes])
        }
        8..=13 => json!(["process", *ts]),
        14 => json!(["status", *ts, format!("e{}", p.below(*next_event + 1))]),
        15 | 16 => json!(["disable", *ts, ep]),
        17 | 18 => json!(["enable", *ts, ep, p.chance(50)]),
        19 if p.chance(50) => json!(["dead_letters", *ts, format!("ep{}", p.below(5))]),
        _ => json!(["dead_letters", *ts]),
    }
}

#[test]
fn reference_agrees_with_naive_model() {
    let mut p = Prng::new(0x5eed);
    for case in 0..3000 {
        let (mut ts, mut next_event) = (0, 0);
        let mut ops: Vec<Value> = (0..4)
            .map(|i| json!(["register", 0, format!("ep{i}"), "u"]))
            .collect();
        ops.extend((0..p.below(60)).map(|_| random_op(&mut p, &mut ts, &mut next_event)));
        let mut naive = Naive::default();
        let expected: Vec<Value> = ops
            .iter()
            .map(|op| naive.apply(op.as_array().map_or(&[], |v| v)))
            .collect();
        let actual = run(&ops);
        for (i, (a, e)) in actual.iter().zip(&expected).enumerate() {
            assert_eq!(
                a,
                e,
                "case {case}, step {i}: {}\noperations: {}",
                ops[i],
                json!(ops)
            );
        }
    }
}
